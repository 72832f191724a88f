"""The data map: the plane with the network's picture, its boundary, the exact linear
regions and the points.

The picture is a 200 × 200 heat map: for two classes σ(net(x)) in the two class
colours, for more the winning class's colour, stronger where the network is surer
(its softmax probability); or one neuron's value. The boundary is on top (the grid's
contour; for a ReLU network at rest the exact lines from the regions' maps replace
it). The picture is made by ``jobs.map_picture``, without Qt: at once for a small
network, on a worker for a larger one (``picture.PicturePacer``), so that no frame
holds the event loop. Hovering the map says the affine map of the network (or of the
neuron shown) on the region under the cursor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QPainterPath

from relulab.model.fitting.classify import DEFAULT_BOX
from relulab.model.lessons.playground import MAX_CLASSES, Points
from relulab.ui.driver import TimedPlotWidget
from relulab.ui.items.path_item import PathItem
from relulab.ui.legend import Entry
from relulab.ui.panels.base import named
from relulab.ui.panels.playground.jobs import STRENGTH, MapPicture, outline_points

#: Right-click removes the nearest point within this many screen pixels.
REMOVE_RADIUS = 12
#: What the map shows, for screen readers: the plane, or a feature space.
PLANE_DESCRIPTION = (
    "The plane, x₁ across and x₂ up: the network's picture (the class at each place, or one "
    "neuron's map), the decision boundary, the training points (filled) and test points "
    "(hollow) in their classes' symbols, and for ReLU networks the exact linear regions. A "
    "click adds a point, a right click removes the nearest.")
SPACE_DESCRIPTION = (
    "The feature space, {0} across and {1} up, over the box the points' features span: the "
    "network's picture, its exact linear regions and boundary, and each point's features in "
    "its class's symbol. A right click removes the nearest point.")
#: One symbol per class, so that classes differ without colour too.
SYMBOLS = ("o", "s", "t", "d", "star", "p")
#: What a click on the map does, said in its tooltip: in a classification problem,
#: and in a regression problem (a point on the problem's own function).
CLICK_TIPS = {
    False: "Click: add a training point of the class Data ▸ Click adds names (Shift+click: "
           "the next class). Right-click: remove the nearest point.",
    True: "Click: add a training point whose target is the problem's own function there "
          "(the plane, the bumps or your f(x₁, x₂); no noise). Right-click: remove the "
          "nearest point.",
}
#: The key's glyph for each of the map's marker symbols.
KEY_GLYPHS = {"o": "●", "s": "■", "t": "▼", "d": "◆", "star": "★", "p": "⬟"}


def class_palette(theme) -> np.ndarray:
    """RGB rows: the background, then each class's colour, for ``jobs.map_picture``
    (numbers, so that the picture can be made without Qt)."""
    rows = [theme.color("background")] + [theme.class_color(k) for k in range(MAX_CLASSES)]
    return np.array([c.getRgb()[:3] for c in rows], dtype=np.float32)


def key_entries(classes: int, regress: bool = False) -> list[Entry]:
    """The key under the map: each class's colour and marker (a regression problem's:
    the targets' signs), then what the hollow markers, the lines and the shading mean
    (the diagram's lines have their own key)."""
    names = ["target ≤ 0", "target > 0"] if regress else [f"class {k}" for k in range(classes)]
    entries = [Entry(lambda th, k=k: th.class_color(k), KEY_GLYPHS[SYMBOLS[k % len(SYMBOLS)]],
                     name) for k, name in enumerate(names)]
    # short words: the key is as wide as the map, and each line of it is map height
    entries += [Entry("foreground", "○", "test point"),
                Entry("foreground", "━", "z = 0" if regress else "boundary"),
                Entry("foreground", "╱", "linear regions"),
                Entry("muted", "▒", "z" if regress else "how sure")]
    return entries


@dataclass(frozen=True, eq=False)
class Outline:
    """The regions' outlines as x, y with NaN between loops, and as the path that draws
    them. Made on a worker for a large network: joining twelve thousand polygons and
    building their path take 30 ms, which the GUI thread then does not spend."""

    x: np.ndarray
    y: np.ndarray
    path: QPainterPath

    @property
    def loops(self) -> int:
        return int(np.isnan(self.x).sum())


def polygon_outline(polygons) -> Outline:
    """All polygon outlines as one x, y pair with NaN between loops, and its path."""
    if not polygons:
        return Outline(np.zeros(0), np.zeros(0), QPainterPath())
    x, y = outline_points(polygons)
    return Outline(x, y, pg.arrayToQPath(x, y, connect="finite"))


NO_REGIONS = Outline(np.zeros(0), np.zeros(0), QPainterPath())


def point_items() -> dict:
    """One scatter item per class and set (training, test), each with one symbol, brush
    and pen: pyqtgraph draws such an item from one cached symbol, whatever the number
    of points."""
    return {(c, test): pg.ScatterPlotItem() for c in range(MAX_CLASSES) for test in (False, True)}


def style_point_items(items: dict, theme, outline: float = 2.0) -> None:
    """Training points filled in their class colour, outlined; held-out points hollow,
    outlined in their class colour (darker where it is pale on the background)."""
    for (c, test), item in items.items():
        colour = theme.class_color(c)
        if test:
            item.setPen(pg.mkPen(outline_color(colour, theme.color("background")),
                                 width=theme.width(outline)))
            item.setBrush(pg.mkBrush(0, 0, 0, 0))
        else:
            item.setPen(theme.pen("foreground", 0.8 * outline / 2.0))
            item.setBrush(pg.mkBrush(colour))


def contrast_ratio(a, b) -> float:
    """The WCAG contrast of two QColors, (L₁ + 0.05)/(L₂ + 0.05) of their relative luminances."""
    def luminance(c):
        rgb = np.array(c.getRgbF()[:3])
        lin = np.where(rgb <= 0.03928, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        return float(lin @ [0.2126, 0.7152, 0.0722])

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def outline_color(colour, background):
    """``colour``, darkened (or lightened) until a thin outline of it reaches a 3:1
    contrast with ``background`` (orange and sky on white do not)."""
    out = colour
    for _ in range(10):
        if contrast_ratio(out, background) >= 3.0:
            break
        out = out.darker(115) if background.lightness() > 128 else out.lighter(115)
    return out


def diverging_lut(low, mid, high, n: int = 256, strength: float = STRENGTH) -> np.ndarray:
    """A colour table from ``low`` through ``mid`` to ``high`` (QColors); the ends are
    mixed with ``mid`` by 1 − strength so that points drawn on top stay visible."""
    lo = np.array(low.getRgb()[:3], float)
    md = np.array(mid.getRgb()[:3], float)
    hi = np.array(high.getRgb()[:3], float)
    t = np.linspace(-1, 1, n)[:, None]
    a = np.abs(t) * strength
    lut = np.where(t < 0, md + (lo - md) * a, md + (hi - md) * a)
    return np.clip(lut, 0, 255).astype(np.ubyte)


class DataMap(TimedPlotWidget):
    """The map plot. A left click asks for a point (``add_requested(x, y, shift)``; in a
    feature space ``add_refused()``), a right click near a point for its removal
    (``remove_requested(index)``)."""

    add_requested = Signal(float, float, bool)
    remove_requested = Signal(int)
    #: A left click in a feature space, where no point of the plane is under it.
    add_refused = Signal()
    #: The cursor over the plane (x, y), or None when it left.
    hovered = Signal(object)

    def __init__(self, clock, theme, box=DEFAULT_BOX, parent=None):
        super().__init__(clock, parent)
        named(self, "playground-map", "Decision map", description=PLANE_DESCRIPTION)
        self.set_regress(False)
        self.theme = theme
        self.box = box
        self.picture: MapPicture | None = None
        self.show_test = True  # test points drawn (hidden ones are still held out)
        self.plane = True  # the plane (x₁, x₂), where a click adds a point; else a feature space
        self.labels = ("x₁", "x₂")  # the axes' names
        self._points = Points(np.zeros((0, 2)), np.zeros(0), np.zeros(0, bool))
        self.setAspectLocked(True)
        self.setMouseEnabled(False, False)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.setRange(xRange=box[:2], yRange=box[2:], padding=0)
        self.getPlotItem().getViewBox().sigResized.connect(self._frame_the_box)
        self.setLabel("bottom", "x₁")
        self.setLabel("left", "x₂")
        # at 1280 × 720 and zoom 1.6, beside the controls and over the regions against
        # depth, the map gets this much (a data area of 120 px); more made the window
        # taller than the screen
        self.setMinimumSize(170, 170)
        self.heat = pg.ImageItem()
        self._rect = QRectF(box[0], box[2], box[1] - box[0], box[3] - box[2])
        self.addItem(self.heat)
        self.outline = NO_REGIONS
        self.region_item = PathItem()  # 12,000 outlines: Qt's own bounds stroke them all
        self.addItem(self.region_item)
        self.boundary_item = pg.PlotDataItem(connect="pairs")
        self.addItem(self.boundary_item)
        self.point_items = point_items()
        for item in self.point_items.values():
            self.addItem(item)
        self.scene().sigMouseClicked.connect(self._on_click)
        self.scene().sigMouseMoved.connect(self._on_move)
        self._lut = None

    def resizeEvent(self, event) -> None:
        """No wider than its plot area is tall: the map keeps its aspect (the box is
        square), and a wider widget showed white bands beside the picture. The room
        goes to the diagram beside it."""
        super().resizeEvent(event)
        item = getattr(self, "plotItem", None)
        if item is None or "box" not in self.__dict__:  # still being built (pyqtgraph
            return                                        # resizes during __init__)
        axes = item.getAxis("left").width() - item.getAxis("bottom").height()
        widest = max(self.minimumWidth(), int(self.height() + axes) + 8)
        if self.maximumWidth() != widest:
            # after this event: a resize from inside it left the scene at the old size
            QTimer.singleShot(0, lambda: self.setMaximumWidth(widest))

    def set_space(self, box, labels=("x₁", "x₂")) -> None:
        """Show the rectangle ``box`` with axes ``labels``: the plane (x₁, x₂), its aspect
        kept, or a feature space (the box the points' features span), stretched to the
        square (x₁² against x₁ spans another range on each axis)."""
        box, labels = tuple(float(v) for v in box), tuple(labels)
        if box == self.box and labels == self.labels:
            return
        self.box, self.labels = box, labels
        self.plane = labels == ("x₁", "x₂")
        self._rect = QRectF(box[0], box[2], box[1] - box[0], box[3] - box[2])
        self.heat.setRect(self._rect)
        self.setLabel("bottom", labels[0])
        self.setLabel("left", labels[1])
        self.setAspectLocked(self.plane)
        self.setAccessibleDescription(PLANE_DESCRIPTION if self.plane
                                      else SPACE_DESCRIPTION.format(*labels))
        self._frame_the_box()

    def _frame_the_box(self, *_args) -> None:
        """The whole box in view whatever the shape (the aspect lock alone kept the old
        centre and scale when the view was resized, and an edge of the box fell out)."""
        self.setRange(xRange=self.box[:2], yRange=self.box[2:], padding=0)

    # -- what it shows ----------------------------------------------------------------
    def show_picture(self, picture: MapPicture, boundary: bool = True) -> None:
        """The picture; its boundary too unless ``boundary`` is False (exact lines shown)."""
        self.picture = picture
        if picture.levels is None:  # colours already
            self.heat.setLookupTable(None)
            self.heat.setImage(picture.image, autoLevels=False, levels=(0, 255))
        else:
            self.heat.setLookupTable(self._lut)
            self.heat.setImage(picture.image, levels=picture.levels, autoLevels=False)
        self.heat.setRect(self._rect)
        if boundary:
            self.show_boundary(picture.boundary)

    def show_boundary(self, seg: np.ndarray) -> None:
        """Line segments (2·S, 2), consecutive rows the ends of one."""
        self.boundary_item.setData(seg[:, 0], seg[:, 1]) if len(seg) else self.boundary_item.setData([], [])

    def show_regions(self, outline: Outline) -> None:
        self.outline = outline
        self.region_item.setPath(outline.path)

    def show_points(self, points: Points) -> None:
        self._points = points
        size = 8 * self.theme.zoom ** 0.5
        for (c, test), item in self.point_items.items():
            mask = (points.label == c) & (points.test == test)
            item.setData(x=points.x[mask, 0], y=points.x[mask, 1], size=size, symbol=SYMBOLS[c])
            item.setVisible(self.show_test or not test)

    def set_regress(self, regress: bool) -> None:
        """Say what a click adds: a point of a class, or (regression) a point on the
        problem's own function."""
        self.setToolTip(CLICK_TIPS[bool(regress)])

    def set_show_test(self, on: bool) -> None:
        """Draw the test points (hollow) or hide them; they are still held out."""
        self.show_test = bool(on)
        for (_c, test), item in self.point_items.items():
            item.setVisible(self.show_test or not test)

    def point_count(self, test: bool | None = None) -> int:
        return sum(len(item.data) for (_c, t), item in self.point_items.items()
                   if test is None or t == test)

    def apply_theme(self) -> None:
        theme = self.theme
        theme.style_plot(self)
        self.getPlotItem().showGrid(False, False)
        # outside the box nothing is computed: the window's colour there, not the
        # plot's, which is also the map's colour where the network is unsure
        self.getPlotItem().getViewBox().setBackgroundColor(theme.color("window"))
        self._lut = diverging_lut(theme.color("class0"), theme.color("background"),
                                  theme.color("class1"))
        if self.picture is None or self.picture.levels is not None:
            self.heat.setLookupTable(self._lut)
        self.boundary_item.setPen(theme.pen("foreground", 2.5))
        self.region_item.setPen(theme.pen("foreground", 0.8, alpha=110))
        style_point_items(self.point_items, theme)
        self.show_points(self._points)

    # -- the mouse ----------------------------------------------------------------------
    def _on_move(self, pos) -> None:
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            self.hovered.emit(None)
            return
        p = vb.mapSceneToView(pos)
        x0, x1, y0, y1 = self.box
        inside = x0 <= p.x() <= x1 and y0 <= p.y() <= y1
        self.hovered.emit((p.x(), p.y()) if inside else None)

    def leaveEvent(self, ev):
        self.hovered.emit(None)
        super().leaveEvent(ev)

    def _on_click(self, ev) -> None:
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = vb.mapSceneToView(ev.scenePos())
        x, y = p.x(), p.y()
        x0, x1, y0, y1 = self.box
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return
        if ev.button() == Qt.MouseButton.LeftButton and not self.plane:
            ev.accept()
            self.add_refused.emit()
        elif ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.add_requested.emit(x, y, shift)
        elif ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            i = self.nearest_point(x, y)
            if i is not None:
                self.remove_requested.emit(i)

    def nearest_point(self, x: float, y: float) -> int | None:
        """The index of the point nearest (x, y) on screen, if within REMOVE_RADIUS pixels."""
        X = self._points.x
        if not len(X):
            return None
        px = self.getPlotItem().getViewBox().viewPixelSize()
        d = np.hypot((X[:, 0] - x) / px[0], (X[:, 1] - y) / px[1])
        if not self.show_test:  # a hidden point is not removed by a click beside it
            d = np.where(self._points.test, np.inf, d)
        i = int(np.argmin(d))
        return i if d[i] <= REMOVE_RADIUS * max(1.0, self.theme.zoom) else None
