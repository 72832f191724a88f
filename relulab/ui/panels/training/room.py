"""Room for the Training panel's plots: the note on what they show gives way to them.

At 1280 × 720 and zoom 1.6 the note took four lines of the small plots' room, which
left their numbers no space. A :class:`NoteGivesWay` shows the note only where the
plots keep PLOTS_ROOM beside it; its words stay the main plot's tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer

#: The plots' height together (the main plot and a small one), in pixels at zoom 1,
#: below which the note gives way to them.
PLOTS_ROOM = 330
#: No plot of the panel is shorter than this, in pixels.
MIN_PLOT_HEIGHT = 120


class NoteGivesWay(QObject):
    """Shows ``note`` above the plots ``main`` and ``small`` (one of a row) only where
    they keep PLOTS_ROOM (times the zoom) beside it, after every resize of ``panel``
    and every ``fit()``; never in the lecture layout (``lecture``)."""

    def __init__(self, panel, note, main, small, spacing: int, theme):
        super().__init__(panel)
        self.panel, self.note, self.main, self.small = panel, note, main, small
        self.spacing, self.theme = spacing, theme
        self.lecture = False
        panel.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.panel and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self.fit)  # once the layout placed the plots
        return False

    def fit(self) -> None:
        if self.lecture or not self.panel.isVisible():
            return
        shown = self.note.isVisible()
        room = self.main.height() + self.small.height()
        if shown:
            room += self.note.height() + self.spacing
        needs = self.note.heightForWidth(self.main.width()) + self.spacing
        fits = room - needs >= self.theme.width(PLOTS_ROOM)
        if fits != shown:
            self.note.setVisible(fits)
