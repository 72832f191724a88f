"""How the Playground's parts ask for room, so that every plot keeps a usable height on
a 1366 × 768 laptop and on a 1280 × 720 projector at zoom 1.6.

Three things took that room away or hid what was in it. A tab widget asks for the size
of its largest page, seen or not (the hidden space's boxes, plot and note made the
diagram's tab ask for all of them). A wrapped label tells a splitter or a tab widget
the height of one line, so that squeezed, a note under a plot was drawn over the plot.
And a plot's left label stands along its data area, and was cut off where it was the
longer of the two.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QSizePolicy, QTabWidget

from relulab.ui.legend import KeyLabel
from relulab.ui.readout import Note, Readout

#: Below this width a label is being laid out, not shown: its lines then would ask for
#: a height it never needs, and the window, once grown, does not shrink back.
LEAST_WIDTH = 60


class WholeLines(QLabel):
    """A wrapped label whose minimum height is that of all its lines at its width (a
    mixin, before a QLabel class: a Readout's text arrives through ``_show``, a plain
    label's through ``setText``)."""

    def _hold_lines(self) -> None:
        width = self.width()
        if not self.wordWrap() or width < LEAST_WIDTH:
            return
        held = self.minimumHeight()
        self.setMinimumHeight(0)  # a QLabel's height for a width is at least its minimum
        need = self.heightForWidth(width) if self.text() else 0
        self.setMinimumHeight(max(need, 0))
        if need != held:
            self.updateGeometry()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width() and not getattr(self, "_pending", False):
            # once the layout has settled: a width it passes through on the way (the
            # side column before it takes its width) would grow the window for good
            self._pending = True
            QTimer.singleShot(0, self._settled)

    def _settled(self) -> None:
        self._pending = False
        self._hold_lines()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._hold_lines()

    def _show(self, text: str, spoken: str | None = None) -> None:
        super()._show(text, spoken)
        self._hold_lines()


class WholeReadout(WholeLines, Readout):
    """A wrapped :class:`~relulab.ui.readout.Readout` that keeps all its lines."""


class Line(WholeReadout):
    """A readout that takes no room while it has nothing to say, and the room of all
    its lines when it has."""

    def _show(self, text: str, spoken: str | None = None) -> None:
        super()._show(text, spoken)
        self.setVisible(bool(text))


class WholeNote(WholeLines, Note):
    """A :class:`~relulab.ui.readout.Note` that keeps all its lines."""


class WholeKey(WholeLines, KeyLabel):
    """A :class:`~relulab.ui.legend.KeyLabel` that keeps all its lines."""


def size_to_current_page(tabs: QTabWidget) -> None:
    """``tabs`` asks for the room of the page in sight only: the other pages' size
    policies are Ignored (their minimum size then counts for nothing), and given back
    when they are shown."""
    policies = {}

    def follow(index: int) -> None:
        for i in range(tabs.count()):
            page = tabs.widget(i)
            policy = policies.setdefault(page, page.sizePolicy())
            ignored = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
            page.setSizePolicy(policy if i == index else ignored)
        tabs.updateGeometry()

    tabs.currentChanged.connect(follow)
    follow(tabs.currentIndex())


#: The least height of every plot of the panel, and of its data area (the plot less its
#: axes: what the lecture layout asks of a scene's second plots), in pixels.
PLOT_HEIGHT = 120
DATA_HEIGHT = 80


def fit_left_label(plot) -> None:
    """At least PLOT_HEIGHT high, with a data area at least DATA_HEIGHT high and as high
    as the left axis's label is long: the label stands along the data area, and a longer
    one was cut off at the plot's top."""
    item = plot.getPlotItem()
    left, bottom = item.getAxis("left"), item.getAxis("bottom")
    data = DATA_HEIGHT
    if left.isVisible() and left.labelText:
        data = max(data, left.label.boundingRect().width())
    _left, top, _right, below = item.layout.getContentsMargins()
    ends = 8  # the left axis reaches a few pixels past the data area, for its end ticks
    need = data + (bottom.maximumHeight() if bottom.isVisible() else 0) + top + below + ends
    height = max(PLOT_HEIGHT, int(need + 0.999))
    if plot.minimumHeight() != height:
        plot.setMinimumHeight(height)
