"""What the Deep → shallow panel's workers run: numpy and :mod:`relulab.model` only, no Qt.

:func:`compute` converts a network of up to four inputs whole (the shallow network, its
verification, the 1-D curves or the 2-D regions in :data:`DRAW_BOX`).
:func:`compute_sliced` looks at a network of more inputs on a slice: first the slice's
picture (:func:`compute_slice`: the exact regions in the box around the points of a
plane, or the exact kinks of every output along a line, and a classifier's decision
regions), then the conversion of the restricted network. A map of many regions is
painted here, into a picture (:func:`rasterize`), with the theme's colours as plain
numbers (:class:`Palette`); the outlines of fewer are turned into paths by the builders
the drawing hands over (:class:`PathMakers`), so that the GUI thread only hands them to
the plot. :func:`read_rows` reads a points file; :func:`example_network` the example
that ships with the app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from relulab.model.core.cancel import check
from relulab.model.lessons.converter import MAX_SLICE_SHALLOW_PARAMETERS
from relulab.model.networks.mlp import MLP
from relulab.model.regions.slices import Slice, SliceState

#: The example that ships with the app (relulab/resources/examples, made by
#: packaging/make_examples.py): a 64-32-32-10 classifier of 8×8 digits and its data,
#: sliced first by the plane through these three pictures (a 0, a 1 and a 7).
EXAMPLE = "digits"
EXAMPLE_ROWS = (0, 1, 7)
DRAW_BOX = (-12.0, 12.0, -12.0, 12.0)  # polygons are clipped here, so panning shows more
CURVE_POINTS = 2001
#: Up to this many regions the map is drawn as vector paths (sharp at any zoom, about
#: 3 ms a thousand regions for each repaint); beyond, the worker paints it into a picture
#: as large as the plot (at most RASTER_PIXELS²), which any number of regions repaints
#: in a few milliseconds (zooming in shows its pixels).
VECTOR_REGIONS = 4000
RASTER_PIXELS = 2400
#: The panel draws at most this many regions in the box (then: choose closer points).
MAX_BOX_REGIONS = 250_000
#: A slice's regions take the first seven series colours in turn.
SLICE_COLOURS = 7


@dataclass
class Result:
    """Everything the view shows, computed off the GUI thread."""

    conversion: object                                   # relulab.model.shallow.construction.Conversion
    verification: object                                # relulab.model.shallow.construction.Verification
    polygons: list = field(default_factory=list)        # 2-D: RegionPolygon in the view box
    curve_x: np.ndarray | None = None                    # 1-D curves
    deep_y: np.ndarray | None = None
    shallow_y: np.ndarray | None = None
    kink_rows: np.ndarray | None = None                  # 1-D: (index, t, f(t), jump, |Δ|)
    lower_dimensional: int = 0
    slice_view: SliceView | None = None                  # a slice's picture
    problem: str | None = None                           # why a slice was not converted
    terms: tuple | None = None                           # then: Corollary 1's widths, p, k


def compute(net: MLP, box=DRAW_BOX, should_stop=None) -> Result:
    """Convert, verify and prepare the pictures (model calls only; runs in a worker)."""
    from relulab.model.regions.activation import regions_in_box
    from relulab.model.shallow.construction import convert

    conv = convert(net, should_stop=should_stop)
    check(should_stop, "verifying")
    ver = conv.verify(should_stop=should_stop)
    check(should_stop, "drawing")
    res = Result(conv, ver)
    if conv.one_d is not None:
        t = conv.one_d.kinks
        lo, hi = (float(t.min()), float(t.max())) if len(t) else (-1.0, 1.0)
        pad = max(1.0, 0.25 * (hi - lo))
        x = np.linspace(lo - pad, hi + pad, CURVE_POINTS)
        x = np.sort(np.concatenate([x, t]))
        res.curve_x = x
        # the first output is drawn (a 1-D network usually has one)
        res.deep_y = np.asarray(net(x[:, None]), float).reshape(len(x), -1)[:, 0]
        res.shallow_y = np.asarray(conv.shallow(x[:, None]), float).reshape(len(x), -1)[:, 0]
        res.kink_rows = _kink_rows(net, conv)
    else:
        res.lower_dimensional = sum(not r.is_full_dimensional() for r in conv.regions)
        if net.n_in == 2:
            res.polygons = regions_in_box(conv.regions, box)
    return res


# A plane slice's shallow network is built here up to MAX_SLICE_SHALLOW_PARAMETERS (the
# model's limit, which relulab convert keeps too); beyond, its sizes are shown and
# ``relulab slice`` + ``relulab convert --force`` build it.


def compute_sliced(net: MLP, cut: SliceState, should_stop=None, palette=None, paths=None):
    """A slice of ``net``: first its picture (yielded, so it is drawn at once), then the
    conversion of the restricted network (returned; ``problem`` says why not, when the
    slice has too many regions on its whole plane, too many kinks, or a shallow network
    too large to build here). ``palette`` and ``paths``: see :func:`compute_slice`."""
    from relulab.model.regions.activation import RegionLimit, linear_regions
    from relulab.model.shallow.construction import (
        MAX_REGIONS,
        MAX_SECONDS,
        convert,
        corollary_terms,
        region_constraints,
        shallow_parameters,
    )

    view = compute_slice(net, cut, should_stop, palette, paths)
    yield view
    r = view.restricted
    try:
        regions = None
        if r.n_in == 2:
            regions = linear_regions(r, should_stop=should_stop, max_regions=MAX_REGIONS,
                                     max_seconds=MAX_SECONDS)
            _, _, strict, _ = region_constraints(regions)
            k, p = len(strict), len(regions)
            size = shallow_parameters(2, k, p, r.n_out, int(strict.sum()))
            if size > MAX_SLICE_SHALLOW_PARAMETERS:
                w = corollary_terms(2, k, p, r.n_out)
                # short: the verdict says it in a line; the widths are in the sizes
                return Result(None, None, slice_view=view, terms=(w, p, k), problem=(
                    f"{size:,} parameters, more than the {MAX_SLICE_SHALLOW_PARAMETERS:,} "
                    "built here"))
        conv = convert(r, regions=regions, should_stop=should_stop)
    except (RegionLimit, ValueError) as e:
        return Result(None, None, slice_view=view, problem=str(e))
    check(should_stop, "verifying")
    ver = conv.verify(should_stop=should_stop)
    res = Result(conv, ver, slice_view=view)
    if conv.one_d is not None:
        lo, hi = view.box
        t = conv.one_d.kinks
        x = np.linspace(lo, hi, CURVE_POINTS)
        x = np.sort(np.concatenate([x, t[(t > lo) & (t < hi)]]))
        res.curve_x = x
        res.deep_y = np.asarray(r(x[:, None]), float).reshape(len(x), -1)
        res.shallow_y = np.asarray(conv.shallow(x[:, None]), float).reshape(len(x), -1)
        res.kink_rows = _kink_rows(r, conv)
    else:
        res.lower_dimensional = sum(not g.is_full_dimensional() for g in conv.regions)
    return res


def _kink_rows(net: MLP, conv) -> np.ndarray:
    """(index, t, f(t), jump, |deep − shallow| at t) per kink, the first output's value."""
    t = conv.one_d.kinks
    if not len(t):
        return np.zeros((0, 5))
    dt = np.asarray(net(t[:, None]), float).reshape(len(t), -1)
    st = np.asarray(conv.shallow(t[:, None]), float).reshape(len(t), -1)
    jumps = conv.one_d.jumps if len(conv.one_d.jumps) == len(t) else np.full(len(t), np.nan)
    return np.column_stack([np.arange(1, len(t) + 1), t, dt[:, 0], jumps,
                            np.abs(dt - st).max(axis=1)])


def example_network() -> MLP:
    """The digits classifier that ships with the app."""
    from importlib.resources import as_file, files

    from relulab.io.networks import load_network

    with as_file(files("relulab") / "resources" / "examples" / f"{EXAMPLE}-classifier.json") as p:
        return load_network(p)


def read_rows(source: str):
    """The rows of a points file, or of the example's (``example:<name>``)."""
    from relulab.io.points import load_input_rows

    if source.startswith("example:"):
        from importlib.resources import as_file, files

        name = source.split(":", 1)[1]
        if name != EXAMPLE:
            raise ValueError(f"no example called {name!r}")
        with as_file(files("relulab") / "resources" / "examples" / f"{name}-rows.npz") as p:
            return load_input_rows(p)
    return load_input_rows(source)


@dataclass
class SliceView:
    """What the slice's picture shows, computed off the GUI thread."""

    cut: Slice
    restricted: object                     # relulab.model.networks.mlp.MLP of 1 or 2 inputs
    box: tuple
    polygons: list = field(default_factory=list)      # plane: RegionPolygon in the box
    region_paths: list = field(default_factory=list)  # plane: (colour index, path)
    edges: object = None                              # plane: every region's outline, a path
    decisions: object = None                          # plane, classifier: DecisionRegions
    class_paths: list = field(default_factory=list)   # (class, path)
    class_labels: list = field(default_factory=list)  # (class, x, y, room): where to write it
    boundary: object = None                           # the decision boundary, a path
    pieces: object = None                             # line: LinePieces of every output
    curves: list = field(default_factory=list)        # line: (t, y) per output, exact
    kinks: list = field(default_factory=list)         # line: (t, y) of each output's kinks
    winners: np.ndarray | None = None                 # the class the network gives each point
    raster: np.ndarray | None = None                  # plane, many regions: the map, RGBA

    def region_at(self, x: float, y: float) -> int:
        """The index of the region in the box holding the point (x, y) of a plane, by
        the restricted network's activation pattern there (−1: none)."""
        pattern = self.restricted.activation_patterns(np.array([[x, y]], dtype=float))[0]
        key = pattern.tobytes()
        return next((i for i, p in enumerate(self.polygons) if p.pattern.tobytes() == key), -1)




@dataclass(frozen=True)
class PathMakers:
    """How a worker turns outlines into the paths the drawing hands to the plot as they
    are: ``polygons(list of (k, 2) arrays)`` for closed polygons, ``segments(ends)`` for
    segments (rows 2s and 2s + 1 of ``ends`` are segment s's ends). The panel hands over
    Qt's painter-path builders
    (:data:`relulab.ui.panels.converter.slices.PAINTER_PATHS`): built on the worker, the
    paths of thousands of regions cost the GUI thread nothing. Without them a plane's
    view has its polygons but no paths."""

    polygons: Callable[[list], object]
    segments: Callable[[np.ndarray], object]


@dataclass(frozen=True)
class Palette:
    """The colours of a slice's map as plain RGBA tuples, taken from the theme on the GUI
    thread for a worker that paints many regions into a picture."""

    regions: tuple = ()
    classes: tuple = ()
    edge: tuple = (255, 255, 255, 150)
    boundary: tuple = (0, 0, 0, 255)
    width: float = 1.0
    #: the picture's side in pixels: the plot's, so that one pixel is one on screen
    pixels: int = RASTER_PIXELS


def raster_labels(polygons, box, pixels: int) -> np.ndarray:
    """Which of the convex ``polygons`` (a tiling of ``box``) holds each pixel centre of a
    ``pixels``² picture of the box, as an int32 array (rows from the top; −1 where
    none does). Numpy only, so a worker doing it leaves the GUI thread free: every
    polygon's edges are cut by the pixel rows they cross, each (polygon, row) gives one
    span [left, right), and a row's spans, sorted, fill it left to right."""
    x0, x1, y0, y1 = box
    sx, sy = pixels / (x1 - x0), pixels / (y1 - y0)
    counts = np.array([len(p) for p in polygons], dtype=np.int64)
    V = np.concatenate([np.asarray(p, dtype=float) for p in polygons])
    px = (V[:, 0] - x0) * sx
    py = (y1 - V[:, 1]) * sy                          # rows grow downwards
    owner = np.repeat(np.arange(len(polygons)), counts)
    starts = np.cumsum(counts) - counts
    nxt = np.arange(len(V)) + 1
    nxt[starts + counts - 1] = starts                  # each polygon's last vertex closes it
    ya, yb, xa, xb = py, py[nxt], px, px[nxt]
    lo, hi = np.minimum(ya, yb), np.maximum(ya, yb)
    r0 = np.clip(np.ceil(lo - 0.5), 0, pixels).astype(np.int64)
    r1 = np.clip(np.ceil(hi - 0.5), 0, pixels).astype(np.int64)
    n = np.maximum(r1 - r0, 0)
    edge = np.repeat(np.arange(len(V)), n)
    row = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n - r0, n)
    y = row + 0.5
    t = (y - ya[edge]) / (yb[edge] - ya[edge])
    x = xa[edge] + t * (xb[edge] - xa[edge])
    key = owner[edge] * pixels + row
    order = np.lexsort((x, key))
    key, x = key[order], x[order]
    first = np.r_[True, key[1:] != key[:-1]]
    last = np.r_[first[1:], True]
    left, right = x[first], x[last]                     # per (polygon, row): its span
    span_key = key[first]
    poly, srow = span_key // pixels, span_key % pixels
    col = np.clip(np.ceil(left - 0.5), 0, pixels - 1).astype(np.int64)
    end = np.clip(np.ceil(right - 0.5), 0, pixels).astype(np.int64)
    keep = end > col                                    # a sliver between pixel centres: none
    poly, srow, col = poly[keep], srow[keep], col[keep]
    flat = srow * pixels + col
    order = np.argsort(flat, kind="stable")
    marks = np.full(pixels * pixels, -1, dtype=np.int64)
    marks[flat[order]] = np.arange(len(order))
    filled = np.maximum.accumulate(marks)
    out = np.where(filled >= 0, poly[order][np.maximum(filled, 0)], -1)
    return out.reshape(pixels, pixels).astype(np.int32)


def _changes(labels: np.ndarray) -> np.ndarray:
    """Pixels whose right or lower neighbour has another label (the outlines)."""
    edge = np.zeros(labels.shape, dtype=bool)
    edge[:, :-1] |= labels[:, :-1] != labels[:, 1:]
    edge[:-1, :] |= labels[:-1, :] != labels[1:, :]
    return edge


def rasterize(view: SliceView, palette: Palette, pixels: int = RASTER_PIXELS) -> np.ndarray:
    """The map of a plane (fills, outlines, the decision boundary) as an RGBA picture
    (pixels, pixels, 4) of ``view.box``, rows from the top; numpy only (see
    :func:`raster_labels`). A picture: its pixels sample the exact polygons."""
    regions = raster_labels([p.vertices for p in view.polygons], view.box, pixels)
    inside = regions >= 0
    if view.decisions is not None:
        pieces = view.decisions.pieces
        labels = np.array([p.label for p in pieces] + [-1], dtype=np.int64)
        classes = labels[raster_labels([p.vertices for p in pieces], view.box, pixels)]
        lut = np.array([*list(palette.classes), (0, 0, 0, 0)], dtype=np.uint8)
        rgba = lut[np.where(classes >= 0, classes % len(palette.classes), len(palette.classes))]
        boundary = _changes(classes)
        boundary[1:, :] |= boundary[:-1, :]             # two pixels wide
        boundary[:, 1:] |= boundary[:, :-1]
    else:
        index = np.array([p.index for p in view.polygons], dtype=np.int64)
        colour = np.where(inside, index[np.maximum(regions, 0)] % SLICE_COLOURS, len(palette.regions))
        lut = np.array([*list(palette.regions), (0, 0, 0, 0)], dtype=np.uint8)
        rgba = lut[colour]
        boundary = None
    edges = _changes(regions) & inside
    a = palette.edge[3] / 255.0
    rgba[edges, :3] = (rgba[edges, :3] * (1 - a) + np.array(palette.edge[:3]) * a).astype(np.uint8)
    rgba[edges, 3] = np.maximum(rgba[edges, 3], palette.edge[3])
    if boundary is not None:
        boundary &= inside
        rgba[boundary] = palette.boundary
    rgba[~inside] = 0
    return np.ascontiguousarray(rgba)


#: A picture at a point of a plane is this fraction of the box's width (inside the map).
PICTURE_SIZE = 0.16
#: The grid on which each class's label place is found, cells a side.
LABEL_GRID = 240


def _keep_clear(points: np.ndarray, box) -> list[tuple]:
    """Rectangles (x0, x1, y0, y1) around the chosen points where a picture and the
    point's label may be drawn inside the map (above the point, and centred under it)."""
    size = PICTURE_SIZE * (box[1] - box[0])
    return [(x - 1.2 * size, x + 1.2 * size, y - 0.9 * size, y + 1.3 * size)
            for x, y in np.asarray(points, float)]


def _class_label_places(pieces, box, keep_clear) -> list[tuple]:
    """(class, x, y, clearance): where each class is named, the point of its area
    farthest from the decision boundary, from the box's edge and from the rectangles
    ``keep_clear`` (where the points' pictures and labels go; only if the class has
    room elsewhere), and that distance in the box's units, so that the drawing names
    the classes whose label fits there. On a grid of LABEL_GRID² cells (numpy and
    scipy's distance transform; one call per class)."""
    from scipy.ndimage import distance_transform_edt

    if not pieces:
        return []
    x0, x1, y0, y1 = box
    g = LABEL_GRID
    dx, dy = (x1 - x0) / g, (y1 - y0) / g
    owner = raster_labels([p.vertices for p in pieces], box, g)   # rows from the top
    labels = np.array([p.label for p in pieces] + [-1])
    classes = labels[owner]                                        # −1: outside every piece
    cx = x0 + (np.arange(g) + 0.5) * dx
    cy = y1 - (np.arange(g) + 0.5) * dy
    blocked = np.zeros((g, g), dtype=bool)
    for a, b, c, d in keep_clear:
        blocked |= ((cx[None, :] >= a) & (cx[None, :] <= b)
                    & (cy[:, None] >= c) & (cy[:, None] <= d))
    places = []
    for k in np.unique(classes[classes >= 0]):
        mine = classes == k
        free = mine & ~blocked
        # the box's edge is a boundary too: one cell of "not this class" around it
        dist = distance_transform_edt(np.pad(free if free.any() else mine, 1),
                                      sampling=(dy, dx))[1:-1, 1:-1]
        row, col = np.unravel_index(int(np.argmax(dist)), dist.shape)
        clearance = float(dist[row, col]) - 0.5 * max(dx, dy)   # to the cell's edge
        places.append((int(k), float(cx[col]), float(cy[row]), max(0.0, clearance)))
    return places


def compute_slice(net, cut_state: SliceState, should_stop=None, palette: Palette | None = None,
                  paths: PathMakers | None = None):
    """Restrict ``net`` to the slice and prepare its picture (returns a SliceView); with
    more than VECTOR_REGIONS regions the map is painted here with ``palette``, with
    fewer its outlines are made into paths by ``paths``."""
    from relulab.model.pieces.piecewise import line_pieces
    from relulab.model.regions.activation import region_polygons

    cut = cut_state.slice()
    restricted = cut.restrict(net)
    box = cut.box()
    view = SliceView(cut, restricted, box)
    view.winners = np.argmax(np.asarray(net(cut.points)).reshape(len(cut.points), -1), axis=1)
    if cut.kind == "line":
        lp = line_pieces(restricted, should_stop=should_stop)
        view.pieces = lp
        for o in lp.outputs:
            view.curves.append(o.breakpoints(*box))
            inside = (o.kinks > box[0]) & (o.kinks < box[1])
            view.kinks.append((o.kinks[inside], o.values[inside]))
        return view
    polys = region_polygons(restricted, box, should_stop=should_stop, max_regions=MAX_BOX_REGIONS)
    check(should_stop, "drawing")
    view.polygons = polys
    # painter paths are built by Qt calls that hold the GIL (0.1 s for 70,000 polygons,
    # and painting them holds it for seconds): many regions are drawn as a picture
    vector = palette is None or len(polys) <= VECTOR_REGIONS
    if vector and paths is not None:
        by_colour: dict[int, list] = {}
        for p in polys:
            by_colour.setdefault(p.index % SLICE_COLOURS, []).append(p.vertices)
        view.region_paths = [(k, paths.polygons(v)) for k, v in sorted(by_colour.items())]
        view.edges = paths.polygons([p.vertices for p in polys])
    if restricted.n_out > 1 and polys:
        from relulab.model.regions.decisions import decision_regions

        dec = decision_regions(restricted, box, should_stop=should_stop, regions=polys)
        view.decisions = dec
        # each class is named once, where it is widest: away from the decision
        # boundary (a label on it reads as the other class's), the box's edge and the
        # chosen points' pictures and labels
        view.class_labels = _class_label_places(dec.pieces, box, _keep_clear(cut.coords, box))
        if vector and paths is not None:
            by_class: dict[int, list] = {}
            for piece in dec.pieces:
                by_class.setdefault(piece.label, []).append(piece.vertices)
            view.class_paths = [(k, paths.polygons(v)) for k, v in sorted(by_class.items())]
            view.boundary = paths.segments(dec.boundary)
    if not vector:
        check(should_stop, "painting")
        view.raster = rasterize(view, palette, palette.pixels)
    return view
