"""Drawing a result in stages, one per pass of the event loop, each painted before the next.

A result drawn all at once is painted all at once: the Deep → shallow panel's words,
kink table, curves and difference for 1-512-512-1 take 60-90 ms of one pass, and the
window freezes for that long. :class:`StagedDrawing` runs the stages a panel hands it
one per pass, each once the window has painted the one before, so that no pass holds
more than one stage and its paint.

A panel draws the first stage itself (at once), hands the rest to
:meth:`StagedDrawing.run` with what to do when all are drawn (announce the result), and
calls :meth:`~StagedDrawing.cancel` when a new request makes them stale. Its
``drawing_pending()`` returns :attr:`~StagedDrawing.busy`, so that ``busy`` and
``wait_until_idle`` cover the stages too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

#: How long a stage waits for the window to paint the last one, in seconds: a hidden
#: widget paints nothing, and a stage that changed nothing asks for no paint.
PAINT_WAIT = 0.05


class _PaintSeen(QObject):
    """Notes when the window it filters paints: its update request arrives."""

    seen = False

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.UpdateRequest:
            self.seen = True
        return False


class StagedDrawing(QObject):
    """Runs stages (callables without arguments) for ``widget``, one per pass of the
    event loop, each once the window has painted the last (or after ``wait`` seconds
    at most). A new :meth:`run` or :meth:`cancel` drops the stages not run yet."""

    def __init__(self, widget: QWidget, wait: float = PAINT_WAIT):
        super().__init__(widget)
        self._widget = widget
        self._wait = wait
        self._stages: list[Callable[[], object]] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        # The next stage waits until the window has painted the last: a timer alone,
        # even of 1 ms, often fires first (Qt's request to paint comes 1-2 ms after
        # the change, behind due timers), and the stage's work would join that paint.
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._next)
        self._painted = _PaintSeen(self)
        self._since = 0.0

    @property
    def busy(self) -> bool:
        """True while a stage (or ``done``) has not run yet."""
        return bool(self._stages)

    def run(self, stages: Iterable[Callable[[], object]],
            done: Callable[[], object] | None = None) -> None:
        """Run ``stages`` in order from the next painted pass on, then ``done`` in a pass
        of its own; stages of an earlier call not run yet are dropped."""
        self._stages = list(stages) + ([done] if done is not None else [])
        if self._stages:
            self._after_paint()
        else:
            self._timer.stop()

    def cancel(self) -> None:
        """Drop the stages not run yet (and ``done``)."""
        self._stages = []
        self._timer.stop()

    def _after_paint(self) -> None:
        self._widget.window().installEventFilter(self._painted)  # (once: Qt moves it to the front)
        self._painted.seen = False
        self._since = time.monotonic()
        self._timer.start()

    def _next(self) -> None:
        # a hidden widget paints nothing, and a stage that changed nothing asks for no
        # paint: neither waits longer than ``wait``
        waiting = (not self._painted.seen and self._widget.isVisible()
                   and time.monotonic() - self._since < self._wait)
        if self._stages and waiting:
            self._timer.start()
            return
        if self._stages:
            self._stages.pop(0)()
        if self._stages:
            self._after_paint()
