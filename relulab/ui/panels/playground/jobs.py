"""What the Playground's workers run, without Qt: the map's picture of a network, the
exact linear regions in view with the decision regions cut from their affine maps, the
number of regions in the whole plane, and the depth study's random networks; and the
plain text of a network's affine map at a point, which the panel shows beside them.

Each job takes the worker's ``should_stop`` as its last argument and returns a new
object built from its arguments (immutable networks, arrays it does not modify).
Colours cross in as numbers (``data_map.class_palette`` turns the theme's colours into
an RGB array), so that importing this module imports neither Qt nor pyqtgraph: tests
and benchmarks call the jobs directly, without a widget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from relulab.model.core.rows import unique_rows
from relulab.model.fitting.classify import (
    DEFAULT_BOX,
    boundary_segments,
    class_boundary_segments,
    grid_axes,
    grid_layers,
)
from relulab.model.fitting.features import FeatureMap
from relulab.model.lessons.converter import MAX_INPUTS
from relulab.model.lessons.playground import DEPTHS, MAX_CLASSES
from relulab.model.networks.activations import ACTIVATIONS, get_activation
from relulab.model.networks.collapse import (
    format_affine,
    local_affine_map,
    neuron_affine_map,
    relu_form,
)
from relulab.model.networks.mlp import MLP
from relulab.model.regions import arrangement
from relulab.model.regions.activation import count_linear_regions
from relulab.model.regions.arrangement import RegionLimit
from relulab.model.regions.decisions import DecisionRegions, decision_regions
from relulab.model.regions.depth import DepthSample, regions_against_depth

RESOLUTION = 200
#: Networks with at most this many parameters are pictured at once (≤ 10 ms with the
#: costliest activation); larger ones on a worker.
QUICK_PICTURE_PARAMS = 400
#: How far a class colour replaces the background where the network is sure.
STRENGTH = 0.6


# -- the map's picture ------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MapPicture:
    """What the map shows for one network: ``image`` indexed [column (x), row (y)],
    either values with their colour ``levels`` (two classes, a neuron) or RGB colours
    (levels None: several classes), the boundary segments, and a sentence on the
    neuron shown (empty for the output)."""

    net: MLP
    neuron: tuple[int, int] | None
    image: np.ndarray
    levels: tuple[float, float] | None
    boundary: np.ndarray
    text: str


def picture_is_quick(net: MLP) -> bool:
    return net.n_params <= QUICK_PICTURE_PARAMS


def class_image(S: np.ndarray, palette: np.ndarray, winner: np.ndarray | None = None,
                discrete: bool = False) -> np.ndarray:
    """RGB (rows, columns, 3) of the scores S (C, rows, columns): each pixel the colour
    of its winning class (``winner``, argmax of S, when known) mixed into the background
    by STRENGTH × how much surer than chance the network is, (p_max − 1/C)/(1 − 1/C)
    with p = softmax(s); ``discrete``: by STRENGTH everywhere (the winner alone)."""
    C = S.shape[0]
    if winner is None:
        winner = np.argmax(S, axis=0)
    if discrete:
        weight = np.full(winner.shape, STRENGTH)
    else:
        top = np.take_along_axis(S, winner[None], axis=0)
        total = np.exp(S - top).sum(axis=0)          # p_max = 1 / Σ e^{s − max}
        weight = (STRENGTH * C / (C - 1.0)) * np.clip(1.0 / total - 1.0 / C, 0.0, None)
    background, colours = palette[0], palette[1:]
    rgb = background + (colours[winner] - background) * weight[..., None]
    return np.clip(rgb, 0, 255).astype(np.ubyte)


def map_picture(net: MLP, neuron: tuple[int, int] | None = None, box=DEFAULT_BOX,
                resolution: int = RESOLUTION, palette: np.ndarray | None = None,
                discrete: bool = False, features: FeatureMap | None = None,
                regress: bool = False, names: tuple[str, ...] | None = None) -> MapPicture:
    """The network's picture: p = σ(z) of a one-output network, the classes' colours of a
    several-output one (``palette``: RGB rows, the background then each class, from
    ``data_map.class_palette``), or φ(z) of hidden neuron (layer, i) on a symmetric
    scale; and the boundary (z = 0, where the class changes, the neuron's zero line), on
    a float32 grid (a picture needs 7 digits, and float32 is several times faster); in
    float64 when the weights take the values past float32's range, and values past
    float64's are drawn at its largest. ``discrete``: the output's map shows the
    predicted class alone (p rounded to 0 or 1, each winner at full strength), as
    TensorFlow Playground's "discretize output"; a neuron's map is never rounded.
    ``features``: the first layer takes them, computed at each pixel centre.
    ``regress``: the output z is a prediction, drawn as it is on [−1, 1] (the targets'
    range: TensorFlow Playground's plane and Gaussians); its zero line is drawn.
    ``names``: the inputs' names in a neuron's sentence (x₁, x₂ when not given)."""
    with np.errstate(all="ignore"):
        zs = grid_layers(net, box, resolution, dtype=np.float32, features=features)
        finite = all(np.isfinite(z).all() for z in zs)
        if not finite:
            zs = grid_layers(net, box, resolution, dtype=np.float64, features=features)
        clean = (lambda z: z) if finite else _finite
        xs, ys = grid_axes(box, resolution)
        if neuron is None and net.n_out > 1:
            S = clean(zs[-1])
            if palette is None:
                palette = np.zeros((MAX_CLASSES + 1, 3), np.float32)
            winner = np.argmax(S, axis=0)
            image = np.swapaxes(class_image(S, palette, winner, discrete), 0, 1)
            boundary = class_boundary_segments(S, xs, ys, winner)
            return MapPicture(net, None, image, None, boundary[np.isfinite(boundary).all(axis=1)], "")
        if neuron is None and regress:
            z = clean(zs[-1][0])
            image, levels, text = z, (-1.0, 1.0), ""
        elif neuron is None:
            z = clean(zs[-1][0])
            image = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))  # through the diverging table
            if discrete:
                image = (z > 0).astype(image.dtype)  # class 1 where z > 0, as predicted
            levels, text = (0.0, 1.0), ""
        else:
            layer, i = neuron
            z = clean(zs[layer - 1][i])
            image = _finite(get_activation(net.activations[layer - 1]).f(z))
            m = float(np.max(np.abs(image))) or 1.0
            levels, text = (-m, m), neuron_text(net, layer, i, m, features, names)
        boundary = boundary_segments(z, xs, ys)
    return MapPicture(net, neuron, image.T, levels, boundary[np.isfinite(boundary).all(axis=1)], text)


def picture_job(net: MLP, neuron: tuple[int, int] | None, box, palette: np.ndarray,
                _should_stop=None, *, discrete: bool = False,
                features: FeatureMap | None = None, regress: bool = False,
                names: tuple[str, ...] | None = None) -> MapPicture:
    """:func:`map_picture` as the worker runs it (one pass over the grid: nothing to
    stop in between)."""
    return map_picture(net, neuron, box, palette=palette, discrete=discrete, features=features,
                       regress=regress, names=names)


def _finite(z: np.ndarray) -> np.ndarray:
    big = np.finfo(z.dtype).max / 4  # room for the differences the boundary takes
    return np.nan_to_num(z, nan=0.0, posinf=big, neginf=-big)


def neuron_text(net: MLP, layer: int, i: int, m: float,
                features: FeatureMap | None = None, names: tuple[str, ...] | None = None) -> str:
    """One sentence on what hidden neuron (layer, i) computes (of the ``features``
    when given: then its zero line is sampled, not an affine map of the point), its
    inputs called ``names`` (x₁, x₂ when not given)."""
    own = net.activations[layer - 1]
    act = ACTIVATIONS[own].label
    head = f"Layer {layer}, neuron {i + 1}"
    if features is not None:
        return (f"{head}: {act} of its inputs {', '.join(features.labels)}; its zero line "
                f"is sampled; largest |value| in view {m:.3g}.")
    if all(a == "identity" for a in net.activations[:layer - 1]):  # z is affine in x
        a, c = neuron_affine_map(net, layer, i)
        z = format_affine(a, c) if names is None else _affine_in(a, c, names)
        if own == "identity":
            return f"{head}: exactly {z} (identity layers)."
        return f"{head}: {act}({z}); largest |value| in view {m:.3g}."
    return (f"{head}: {act} of a combination of layer {layer - 1}'s outputs; "
            f"its zero line is drawn; largest |value| in view {m:.3g}.")


# -- the exact regions ------------------------------------------------------------------------
def regions_network(net: MLP) -> MLP | None:
    """The ReLU network whose regions are found: ``net`` itself, or with its identity
    layers merged exactly or written as ReLU pairs (:func:`relu_form`: the same
    function exactly, so the same regions; a merge rounded in doubles moves the lines,
    and three lines through one point become a sliver, one region too many). None when
    another activation is on a hidden layer or no ReLU layer is left."""
    form = relu_form(net)
    return None if form is None else form.net


def identity_note(net: MLP, paired: str = "counted as built") -> str:
    """How the identity layers of ``net`` enter its ReLU form (:func:`relu_form`):
    "identity layer 1 merged exactly, identity layers 2, 3 counted as built"; empty
    without identity layers (or regions)."""
    form = relu_form(net)
    if form is None:
        return ""
    parts = []
    for layers, how in ((form.merged, "merged exactly"), (form.paired, paired)):
        if layers:
            s = "s" if len(layers) > 1 else ""
            parts.append(f"identity layer{s} {', '.join(map(str, layers))} {how}")
    return ", ".join(parts)


def outline_points(polygons) -> tuple[np.ndarray, np.ndarray]:
    """All polygon outlines as one x, y pair, each loop closed and NaN between loops."""
    if not polygons:
        return np.zeros(0), np.zeros(0)
    parts = []
    gap = np.array([[np.nan, np.nan]])
    for p in polygons:
        v = np.asarray(p.vertices, float)
        parts.extend([v, v[:1], gap])
    xy = np.concatenate(parts)
    return xy[:, 0], xy[:, 1]


class RegionsInView(NamedTuple):
    """The exact regions of ``net`` in the box, found for training step ``step``: its
    decision regions and the outline of its linear regions."""

    net: MLP
    step: int
    decisions: DecisionRegions
    outline: Any


def regions_in_view(net: MLP, step: int, box, should_stop=None,
                    outline: Callable[[list], Any] = outline_points) -> RegionsInView:
    """The decision regions of ``net`` (ReLU and identity layers) in ``box`` and
    ``outline`` of its linear regions: :func:`outline_points` by default; the panel
    passes the map's ``polygon_outline``, which also builds the path that draws them,
    so that the worker builds it too (30 ms for twelve thousand polygons the GUI
    thread then does not spend). The regions are those of the network as built
    (``decisions.regions_as_built``)."""
    decisions = decision_regions(net, box, should_stop=should_stop)
    return RegionsInView(net, step, decisions, outline(decisions.regions))


class PlaneCount(NamedTuple):
    """The number of linear regions ``net`` has in the whole plane."""

    net: MLP
    count: int


def plane_count(net: MLP, should_stop=None) -> PlaneCount:
    """The exact number of linear regions of ``net`` in all of R², by the region
    engine, on its ReLU form (:func:`relu_form`): where identity layers are written
    as ReLU pairs, the regions told apart by the network's own neurons."""
    form = relu_form(net)
    if form is None:
        raise ValueError("regions are counted for networks of ReLU and identity layers with "
                         "a ReLU layer")
    if not form.paired:
        return PlaneCount(net, count_linear_regions(form.net, should_stop=should_stop))
    found = arrangement.arrangement_2d(form.net, should_stop=should_stop)
    return PlaneCount(net, len(unique_rows(found.pattern[:, form.own])[1]))


# -- the pieces in feature space ------------------------------------------------------------
#: The exact count of the pieces in feature space takes up to this many features, as
#: the converter takes up to this many inputs (the n-D enumeration grows quickly).
MAX_COUNTED_FEATURES = MAX_INPUTS
#: The feature box: the span of the data's features, widened by this much of it each side.
FEATURE_MARGIN = 0.1
#: The exact count stops past this many seconds (a 4-32-32-1 network in four features).
COUNT_SECONDS = 20.0


def feature_box(features: FeatureMap, X, plane_box=DEFAULT_BOX) -> tuple[float, ...]:
    """(lo₁, hi₁, lo₂, hi₂, …): for each feature, the span of the points' features
    ``features.apply(X)`` widened by FEATURE_MARGIN of it each side (by 1 where all
    points share a value); without points, the span over the plane's box (a 41 × 41 grid)."""
    X = np.asarray(X, float).reshape(-1, 2)
    if not len(X):
        xs, ys = np.meshgrid(np.linspace(*plane_box[:2], 41), np.linspace(*plane_box[2:], 41))
        X = np.column_stack([xs.ravel(), ys.ravel()])
    F = features.apply(X)
    lo, hi = F.min(axis=0), F.max(axis=0)
    pad = np.where(hi > lo, FEATURE_MARGIN * (hi - lo), 1.0)
    return tuple(float(v) for pair in zip(lo - pad, hi + pad) for v in pair)


def boxed_network(net: MLP, box) -> MLP:
    """``net`` (ReLU layers) with 2k neurons put first in its first layer, x_i − lo_i and
    hi_i − x_i for the box (lo₁, hi₁, …), that no later neuron reads: its activation
    regions are those of ``net`` cut by the box's faces, and the regions inside the box
    are its full-dimensional ones with these 2k neurons on."""
    k = net.n_in
    lo, hi = np.asarray(box[0::2], float), np.asarray(box[1::2], float)
    (W, b), (W2, b2) = net.layers[:2]
    eye = np.eye(k)
    first = (np.vstack([eye, -eye, W]), np.concatenate([-lo, hi, b]))
    second = (np.hstack([np.zeros((W2.shape[0], 2 * k)), W2]), b2)
    return MLP([first, second, *net.layers[2:]], net.activations)


class FeatureCount(NamedTuple):
    """The number of linear pieces of ``net`` (a network of its features) in ``box``,
    or None and why not (``why``, the words after "Linear pieces in feature space: ")."""

    net: MLP
    box: tuple
    count: int | None
    why: str = ""


def feature_count(net: MLP, box, should_stop=None, method: str = "auto",
                  max_seconds: float | None = COUNT_SECONDS) -> FeatureCount:
    """The exact number of linear pieces (activation regions with volume) of ``net``,
    a ReLU network of k features, inside ``box`` = (lo₁, hi₁, …, lo_k, hi_k): by the
    region engine on its ReLU form, the regions told apart by its own neurons (as
    :func:`plane_count`). ``method``: "2d" (the 2-D engine in a box, k = 2), "nd" (the
    n-D engine on :func:`boxed_network`, k ≤ MAX_COUNTED_FEATURES) or "auto" (2-D for
    two features). Not counted past MAX_COUNTED_FEATURES features or ``max_seconds``,
    nor for other activations (their pieces are not linear)."""
    box = tuple(float(v) for v in box)
    k = net.n_in
    if k > MAX_COUNTED_FEATURES:
        return FeatureCount(net, box, None, f"not counted ({k} features; the exact count takes "
                                            f"up to {MAX_COUNTED_FEATURES})")
    form = relu_form(net)
    if form is None:
        if net.uses_only("relu", "identity"):  # no ReLU layer: one affine map
            return FeatureCount(net, box, 1)
        return FeatureCount(net, box, None, "not counted (the activations are not piecewise "
                                            "linear)")
    if method == "auto":
        method = "2d" if k == 2 else "nd"
    try:
        if method == "2d" and not form.paired:  # the count alone, nothing read out
            return FeatureCount(net, box, arrangement.count_regions_2d(
                form.net, box, should_stop=should_stop, max_seconds=max_seconds))
        if method == "2d":
            found = arrangement.arrangement_2d(form.net, box=box, should_stop=should_stop,
                                               max_seconds=max_seconds)
            pattern = found.pattern
        else:
            found = arrangement.arrangement_nd(boxed_network(form.net, box),
                                               should_stop=should_stop, max_seconds=max_seconds)
            inside = found.full & found.pattern[:, :2 * k].all(axis=1)
            pattern = found.pattern[inside, 2 * k:]
    except RegionLimit:
        return FeatureCount(net, box, None, f"not counted (past the exact count's limit of "
                                            f"{max_seconds:g} s)")
    count = len(pattern) if not form.paired else len(unique_rows(pattern[:, form.own])[1])
    return FeatureCount(net, box, int(count))


def pieces_text(result: FeatureCount | None) -> str:
    """The line that says what is exact with nonlinear features: the count of pieces in
    feature space, and that the plane's picture is sampled."""
    tail = f"; the plane's picture is sampled on a {RESOLUTION} × {RESOLUTION} grid"
    if result is None:
        return f"Linear pieces in feature space: counting…{tail}."
    if result.count is None:
        return f"Linear pieces in feature space: {result.why}{tail}."
    s = "" if result.count == 1 else "s"
    return f"{result.count:,} linear piece{s} in feature space (exact){tail}."


def feature_affine_text(net: MLP, point, neuron, features: FeatureMap) -> str:
    """Under the cursor in feature space: the affine map of the output (or of hidden
    neuron (layer, i)) in the features on the region there, as :func:`affine_map_text`
    says it in the plane."""
    f = np.asarray(point, dtype=float)
    names = features.labels
    layer, i = (None, None) if neuron is None else neuron
    with np.errstate(all="ignore"):
        A, c, exact = local_affine_map(net, f, layer, i)
    if neuron is not None:
        what = f"layer {layer}, neuron {i + 1}'s pre-activation"
    elif net.n_out == 1:
        what = "the output"
    else:
        what = f"the class scores (the two highest of {net.n_out})"
    rows = range(len(c)) if net.n_out == 1 or neuron is not None else \
        np.argsort(-(A @ f + c), kind="stable")[:2]
    head = "z" if len(c) == 1 else "s"
    maps = [f"{head}{'' if len(c) == 1 else r} = {_affine_in(A[r], float(c[r]), names)}"
            for r in rows]
    kind = "on the region here" if exact else "its tangent here (a smooth activation: no region)"
    where = ", ".join(f"{n} = {v:.3g}" for n, v in zip(names, f))
    return f"At ({where}), {what} {kind}: " + "; ".join(maps) + "."


def _affine_in(a, c: float, names) -> str:
    """'1.23·x₁² − 0.5·x₂² + 0.1': ``format_affine`` with the features' names."""
    parts = []
    for w, name in zip(a, names):
        term = f"{abs(w):.3g}·{name}"
        parts.append(("−" if w < 0 else "") + term if not parts else
                     f"{'−' if w < 0 else '+'} {term}")
    parts.append(f"{'−' if c < 0 else '+'} {abs(c):.3g}")
    return " ".join(parts)


# -- the depth study --------------------------------------------------------------------------
def depth_samples(budget: int, seeds: int, box, _should_stop=None) -> Iterator[DepthSample]:
    """Random ReLU networks of ``budget`` parameters, ``seeds`` per depth of
    ``DEPTHS``, and the exact number of regions each has in ``box``, one network at a
    time (the worker delivers each as progress and checks ``should_stop`` between)."""
    return regions_against_depth(budget, DEPTHS, range(seeds), box)


# -- what the panel says under the cursor ------------------------------------------------------
def sampled_value_text(net: MLP, point, neuron, features: FeatureMap) -> str:
    """Under the cursor with nonlinear features: the output's value (or the neuron's
    pre-activation) there, and that it is affine in the features, not the point."""
    x = np.asarray(point, dtype=float)
    f = features.apply(x[None])
    with np.errstate(all="ignore"):
        zs = net.forward(f)
    if neuron is None:
        z, what = zs[-1][0], "the output"
    else:
        layer, i = neuron
        z, what = zs[layer - 1][0, i], f"layer {layer}, neuron {i + 1}'s pre-activation"
    values = ", ".join(f"{v:.3g}" for v in np.ravel(z))
    return (f"At ({x[0]:.3g}, {x[1]:.3g}), {what}: {values}; piecewise linear in "
            f"{', '.join(features.labels)}, not in the point.")



def affine_map_text(net: MLP, point, neuron) -> str:
    """What the output (or hidden neuron (layer, i)) computes on the activation region
    at ``point``: its affine map there, exact for ReLU, leaky ReLU and identity layers,
    the tangent map otherwise."""
    x = np.asarray(point, dtype=float)
    where = f"At ({x[0]:.3g}, {x[1]:.3g})"
    with np.errstate(all="ignore"):
        if neuron is None:
            A, c, exact = local_affine_map(net, x)
            if net.n_out == 1:
                maps = [f"z = {format_affine(A[0], float(c[0]))}"]
                what = "the output"
            else:
                # the two highest scores here, whose tie is the boundary nearby: all six
                # maps were six lines at zoom 1.6, and pushed the controls off the screen
                first, second = np.argsort(-(A @ x + c), kind="stable")[:2]
                maps = [f"s{k} = {format_affine(A[k], float(c[k]))}" for k in (first, second)]
                what = f"the class scores (the two highest of {net.n_out})"
        else:
            layer, i = neuron
            A, c, exact = local_affine_map(net, x, layer, i)
            maps = [f"z = {format_affine(A[0], float(c[0]))}"]
            what = f"layer {layer}, neuron {i + 1}'s pre-activation"
    kind = "on the region here" if exact else "its tangent here (a smooth activation: no region)"
    return f"{where}, {what} {kind}: " + "; ".join(maps) + "."
