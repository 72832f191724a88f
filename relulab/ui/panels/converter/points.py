"""The chosen points of a plane slice on its map: a marker at each, its picture (when the
rows are pictures) and its label ("A: row 0, label 0 → class 0").

Where the plot is wider than the map (on a projector the map's height sets its size),
each point's picture and label go beside the map, on the point's side (the label on the
picture's outer side), joined to the point by a thin dashed line: the map keeps all of
the plot's height and nothing covers it. Where
there is no such room they sit on the map by the point, the picture above it, the label
under it, and the range grows below for the labels. :meth:`PointCards.place` chooses
again when the plot changes size.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem

from relulab.model.regions.slices import POINT_NAMES
from relulab.ui.items.path_item import PathItem
from relulab.ui.panels.converter.jobs import PICTURE_SIZE, SliceView

#: The view's padding around the box (a fraction of its sides).
PADDING = 0.02
#: Beside the map, a picture's side is this fraction of the plot's height.
SIDE_PICTURE = 0.26
#: Pixels between the map, a picture and its label (times the zoom).
GAP = 8.0


class PointCards:
    """The markers, pictures and labels of a plane's points, drawn with ``drawing``'s
    items (a :class:`~relulab.ui.panels.converter.slices.SliceDrawing`)."""

    def __init__(self, drawing):
        self.drawing = drawing
        self.view: SliceView | None = None
        self.cards: list[dict] = []      # per point: x, y, picture, frame, label
        self.leaders: PathItem | None = None
        #: "beside" (pictures and labels beside the map) or "on" (on it), once placed
        self.mode = ""

    @property
    def vb(self):
        return self.drawing.plot.getPlotItem().getViewBox()

    def draw(self, view: SliceView, image_shape) -> None:
        """The items of ``view``'s points (placed by :meth:`place`)."""
        t = self.drawing.theme
        add = self.drawing.add
        self.view, self.cards = view, []
        cut = view.cut
        marks = pg.ScatterPlotItem(cut.coords[:, 0], cut.coords[:, 1], size=t.point_size(9),
                                   pen=pg.mkPen(t.color("background"), width=t.width(1.5)),
                                   brush=pg.mkBrush(t.color("foreground")))
        add(marks, 6)
        fill = QColor(t.color("background"))
        fill.setAlpha(200)
        for i, (x, y) in enumerate(cut.coords):
            # one short line each (name and row, the file's label, the class)
            text = (cut.labels[i] if i < len(cut.labels) else POINT_NAMES[i]).replace(", ", "\n")
            if view.winners is not None and view.restricted.n_out > 1:
                text += f"\n→ class {int(view.winners[i])}"
            card = {"x": float(x), "y": float(y), "picture": None, "frame": None, "shape": None}
            if image_shape is not None:
                h, w = image_shape
                picture = np.asarray(cut.points[i], dtype=float).reshape(h, w)
                img = pg.ImageItem(picture[::-1].T)
                lo, hi = float(picture.min()), float(picture.max())
                # dark ink on a light card whatever the theme: a picture reads as a picture
                img.setLevels((hi, lo) if hi > lo else (lo + 1, lo))
                frame = QGraphicsPathItem()
                pen = pg.mkPen(t.color("foreground"), width=t.width(1.0))
                pen.setCosmetic(True)
                frame.setPen(pen)
                card.update(picture=add(img, 5), frame=add(frame, 5.5), shape=(h, w))
            label = pg.TextItem(text, color=t.color("foreground"), fill=pg.mkBrush(fill))
            label.setFont(t.font(9.5, bold=True))
            card["label"] = add(label, 7)
            self.cards.append(card)
        pen = pg.mkPen(t.color("muted"), width=t.width(1.2), style=Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.leaders = add(PathItem(), 5.8)
        self.leaders.setPen(pen)
        self.place()

    def place(self) -> None:
        """Beside the map when the plot has the room, else on it; then the view's range."""
        if self.view is None:
            return
        x0, x1, y0, y1 = self.view.box
        if not self._place_beside():
            self._place_on()
            y0 = min(y0, self._room_below(y1))
            x_range = (x0, x1)
        else:
            lefts = [c["left"] for c in self.cards] + [x0]
            rights = [c["right"] for c in self.cards] + [x1]
            x_range = (min(lefts), max(rights))
        self.vb.setAspectLocked(True)
        self.vb.setRange(xRange=x_range, yRange=(y0, y1), padding=PADDING)

    def _sizes(self) -> list[tuple[float, float, float]]:
        """(picture side, card width, card height) of each card in pixels, beside the
        map: the picture, then its label beside it."""
        height, gap = self.vb.height(), GAP * self.drawing.theme.zoom
        out = []
        for c in self.cards:
            text = c["label"].boundingRect()
            side = SIDE_PICTURE * height if c["picture"] is not None else 0.0
            out.append((side, side + (gap if side else 0.0) + text.width(),
                        max(side, text.height())))
        return out

    def _place_beside(self) -> bool:
        """Each card beside the map, on its point's side, as near its point's height as
        the cards above it allow; False (nothing moved) when the plot lacks the room."""
        width, height = self.vb.width(), self.vb.height()
        x0, x1, y0, y1 = self.view.box
        if width <= 0 or height <= 0:
            return False
        scale = height / ((y1 - y0) * (1 + 2 * PADDING))  # pixels per unit: height-bound
        gap = GAP * self.drawing.theme.zoom
        room = (width - (x1 - x0) * scale * (1 + 2 * PADDING)) / 2 - 2 * gap
        sizes = self._sizes()
        middle = (x0 + x1) / 2
        sides = {"left": [], "right": []}
        for card, size in zip(self.cards, sizes):
            sides["left" if card["x"] < middle else "right"].append((card, size))
        for cards in sides.values():
            if any(w > room for _, (_, w, _) in cards) or \
                    sum(h for _, (_, _, h) in cards) + gap * len(cards) > height:
                return False
        for side, cards in sides.items():
            # top edges in pixels below the box's top, in the order of the points' heights
            cards.sort(key=lambda cs: -cs[0]["y"])
            tops, below = [], 0.0
            for card, (_, _, h) in cards:
                top = max(below, (y1 - card["y"]) * scale - h / 2)
                tops.append(top)
                below = top + h + gap
            overflow = below - gap - (y1 - y0) * scale
            tops = [max(0.0, top - max(0.0, overflow)) for top in tops]
            for (card, (pic, w, h)), top in zip(cards, tops):
                left = x0 - (gap + w) / scale if side == "left" else x1 + gap / scale
                self._put(card, left, y1 - top / scale, w / scale, pic / scale, gap / scale,
                          side == "left")
                card["left"], card["right"] = left, left + w / scale
                card["join"] = (left + w / scale if side == "left" else left,
                                y1 - (top + h / 2) / scale)
        self._draw_leaders()
        self.mode = "beside"
        return True

    def _put(self, card: dict, left: float, top: float, width: float, side: float,
             gap: float, on_left: bool) -> None:
        """A card ``width`` units wide from (left, top): its picture (``side`` units high)
        next to the map, its label on the picture's outer side."""
        label_left = left
        if card["picture"] is not None:
            h, w = card["shape"]
            pw, ph = side * w / max(h, w), side * h / max(h, w)
            x = left + width - pw if on_left else left
            self._frame(card, QRectF(x, top - ph, pw, ph))
            label_left = left if on_left else left + pw + gap
        card["label"].setAnchor((0.0, 0.0))
        card["label"].setPos(label_left, top)

    def _frame(self, card: dict, rect: QRectF) -> None:
        card["picture"].setRect(rect)
        path = QPainterPath()
        path.addRect(rect)
        card["frame"].setPath(path)

    def _draw_leaders(self) -> None:
        ends = []
        for c in self.cards:
            ends += [(c["x"], c["y"]), c["join"]]
        self.leaders.setPath(_segments(ends))
        self.leaders.setVisible(True)

    def _place_on(self) -> None:
        """Each picture above its point (opening towards the middle), its label centred
        under it: they never overlap."""
        x0, x1 = self.view.box[0], self.view.box[1]
        size = PICTURE_SIZE * (x1 - x0)
        for card in self.cards:
            x, y = card["x"], card["y"]
            if card["picture"] is not None:
                h, w = card["shape"]
                scale = size / max(h, w)
                right = x > (x0 + x1) / 2
                left = x - 0.15 * size - w * scale if right else x + 0.15 * size
                self._frame(card, QRectF(left, y + 0.15 * size, w * scale, h * scale))
            card["label"].setAnchor((0.5, -0.12))
            card["label"].setPos(x, y)
        self.leaders.setVisible(False)
        self.mode = "on"

    def _room_below(self, top: float) -> float:
        """The lowest y that keeps the labels under the lowest point in view: their
        height is fixed in pixels, so the range grows by its share of the plot
        (the aspect lock can only make a data unit longer, which needs less)."""
        lines = max((c["label"].toPlainText().count("\n") + 1 for c in self.cards), default=1)
        need = lines * QFontMetricsF(self.drawing.theme.font(9.5, bold=True)).lineSpacing() + 8
        height = self.vb.height()
        lowest = min((c["y"] for c in self.cards), default=self.view.box[2])
        if height <= 2 * need:  # not laid out yet, or too small to keep them all
            return lowest
        a = need / height
        return (lowest - a * top) / (1 - a)


def _segments(ends) -> QPainterPath:
    path = QPainterPath()
    for (xa, ya), (xb, yb) in zip(ends[::2], ends[1::2]):
        path.moveTo(xa, ya)
        path.lineTo(xb, yb)
    return path
