"""A result drawn in stages: one stage per pass of the event loop, each after the window
has painted the last, ``done`` after them all, and a new run or a cancel drops the
stages not drawn yet."""

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from relulab.ui.staged import StagedDrawing


class _Painted(QWidget):
    """A widget that notes each of its paints in ``events``."""

    def __init__(self, events: list):
        super().__init__()
        self.events = events

    def paintEvent(self, event):
        self.events.append("painted")


def _widget(qtbot, events) -> _Painted:
    w = _Painted(events)
    qtbot.addWidget(w)
    w.resize(200, 100)
    w.show()
    qtbot.waitExposed(w)
    return w


def _stage(widget, events, name):
    """A stage that notes its name and changes what the widget shows; the window asks
    to paint a few milliseconds later (as Qt does for a large change, behind timers
    already due)."""
    return lambda: (events.append(name), QTimer.singleShot(5, widget.update))


def _painted_passes(qtbot, widget, n: int = 3) -> None:
    """Let ``n`` more painted passes of the event loop go by (counted by stages of
    another StagedDrawing), time enough for any stage still queued to run."""
    ticks: list = []
    clock = StagedDrawing(widget)
    clock.run([_stage(widget, ticks, "tick")] * n)
    qtbot.waitUntil(lambda: not clock.busy, timeout=5000)


def test_stages_run_in_order_each_after_the_last_is_painted(qtbot):
    events: list = []
    w = _widget(qtbot, events)
    # a long wait: on a busy machine the paint may come later than the 50 ms after
    # which a stage goes on without it, and this test is about the order, not the time
    staged = StagedDrawing(w, wait=30.0)
    staged.run([_stage(w, events, f"stage {i}") for i in range(3)],
               done=lambda: events.append("done"))
    assert staged.busy and "stage 0" not in events  # nothing runs before the next pass
    qtbot.waitUntil(lambda: not staged.busy, timeout=5000)
    ran = [e for e in events if e != "painted"]
    assert ran == ["stage 0", "stage 1", "stage 2", "done"]
    for a, b in (("stage 0", "stage 1"), ("stage 1", "stage 2"), ("stage 2", "done")):
        between = events[events.index(a) + 1:events.index(b)]
        assert "painted" in between, (a, b, events)


def test_cancel_drops_the_stages_not_run_yet(qtbot):
    events: list = []
    w = _widget(qtbot, events)
    staged = StagedDrawing(w)

    def first():
        events.append("stage 0")
        staged.cancel()

    staged.run([first, _stage(w, events, "stage 1")], done=lambda: events.append("done"))
    qtbot.waitUntil(lambda: "stage 0" in events, timeout=5000)
    assert not staged.busy
    _painted_passes(qtbot, w)
    assert [e for e in events if e != "painted"] == ["stage 0"]


def test_a_new_run_replaces_the_stages_of_the_last(qtbot):
    events: list = []
    w = _widget(qtbot, events)
    staged = StagedDrawing(w)
    staged.run([_stage(w, events, "old")], done=lambda: events.append("old done"))
    staged.run([_stage(w, events, "new")], done=lambda: events.append("new done"))
    qtbot.waitUntil(lambda: not staged.busy, timeout=5000)
    _painted_passes(qtbot, w)
    assert [e for e in events if e != "painted"] == ["new", "new done"]


def test_a_hidden_widget_waits_for_no_paint(qtbot):
    events: list = []
    w = _widget(qtbot, events)
    w.hide()
    staged = StagedDrawing(w, wait=30.0)
    staged.run([_stage(w, events, f"stage {i}") for i in range(3)])
    # with a wait of 30 s for each paint that never comes, this would time out
    qtbot.waitUntil(lambda: not staged.busy, timeout=5000)
    assert events == ["stage 0", "stage 1", "stage 2"]
