"""What every panel shares: its name, undo stack, theme, state and clean shutdown.

A panel is a state object (in the model), a view (plots and controls) and the
wiring between them. The hooks below are what the main window, scene files and
tests rely on; a panel overrides the ones it needs.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from PySide6.QtCore import QEventLoop, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from relulab.ui.readout import readouts_of
from relulab.ui.theme import current_theme
from relulab.ui.worker import Worker

W = TypeVar("W", bound=QWidget)


@dataclass(frozen=True)
class Key:
    """One of a panel's keyboard shortcuts, declared once: the shortcut made from it
    and Help ▸ Keyboard shortcuts both read it, so the list cannot drift.

    ``keys`` is a QKeySequence text; ``what`` says what it does, in the panel's words
    (keys with the same ``what`` are listed together); ``slot`` names the panel's
    method (a dotted path such as ``"whole_line.toggle"`` reaches a child) called with
    ``args``; ``widget`` names the child that must hold the focus ("": anywhere in the
    panel); ``name`` ends the shortcut's object name, ``<panel>-shortcut-<name>``."""

    keys: str
    what: str
    slot: str
    args: tuple = ()
    widget: str = ""
    name: str = ""


def named(widget: W, name: str, accessible: str, tip: str = "", description: str = "") -> W:

    """Give a widget its stable object name (``<panel>-<what>``, what tests and
    scripts find it by), its accessible name and, if given, a tooltip and an accessible
    description (for a plot: what it shows)."""
    widget.setObjectName(name)
    widget.setAccessibleName(accessible)
    if tip:
        widget.setToolTip(tip)
    if description:
        widget.setAccessibleDescription(description)
    return widget


def fit_controls_width(scroll: QScrollArea, width: int, most: int | None = None) -> None:
    """A scrolled column of controls ``width`` pixels wide (up to ``most`` when given),
    wider if its content needs it, so that nothing is cut at its right edge or needs
    sideways scrolling. Call it again after a zoom: the content's need grows with the
    fonts (they reach the widgets an event later)."""
    need = (scroll.widget().minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width()
            + 2 * scroll.frameWidth())
    if most is None:
        scroll.setFixedWidth(max(width, need))
    else:
        scroll.setMinimumWidth(max(width, need))
        scroll.setMaximumWidth(max(most, need))


@contextmanager
def signals_blocked(*objects):
    """Apply model changes to widgets without their signals echoing back as edits."""
    blockers = [QSignalBlocker(o) for o in objects]
    try:
        yield
    finally:
        for b in blockers:
            b.unblock()


class SnapshotCommand(QUndoCommand):
    """One undoable edit as a before/after pair of panel states.

    ``apply(state)`` puts a state on screen. ``push()`` calls ``redo()`` at once,
    which re-applies ``after``: harmless, so redo is safe to run twice. Commands with
    the same non-None ``merge_key`` pushed one after another merge into one step
    (holding an arrow key is one undo step, not fifty).
    """

    def __init__(self, apply, before, after, text: str, merge_key=None):
        super().__init__(text)
        self.apply, self.before, self.after = apply, before, after
        self.merge_key = merge_key

    def id(self) -> int:
        return 1 if self.merge_key is not None else -1

    def mergeWith(self, other) -> bool:
        if not isinstance(other, SnapshotCommand) or other.merge_key != self.merge_key:
            return False
        self.after = other.after
        return True

    def redo(self):
        self.apply(self.after)

    def undo(self):
        self.apply(self.before)


class Panel(QWidget):
    """Base class of the main window's panels.

    Subclasses set ``name`` (used in object names ``panel-<name>``, on the command
    line and in scene files) and ``title``. What a panel is about in one line is its
    entry's ``summary`` in the registry (relulab.ui.panels.PANELS), known without
    importing the panel.
    """

    name = "panel"
    title = "Panel"
    #: The panel's Qt-free state: an immutable object of the model layer with
    #: ``to_dict()`` and a ``from_dict(d)`` that validates every field first (see
    #: relulab.model.core.fields). What the panel shows follows from it; scene files, undo
    #: snapshots and tests all use it. A new panel starts in ``state_class()``, which
    #: the registry (relulab.ui.panels.PANELS) names too, so that the window knows it
    #: before creating the panel.
    state_class: type | None = None
    _state: Any = None
    #: Object names of the controls a learner reaches for first (Play, Step, Reset …):
    #: they come first in the controls and are always in sight (a test checks).
    primary_controls: tuple[str, ...] = ()
    #: The panel's keyboard shortcuts (made by ``make_keys``, listed by Help).
    KEYS: tuple[Key, ...] = ()
    #: Object names of what the lecture layout hides besides the controls: words and
    #: keys the lecture's caption says instead, views a scene does not need.
    lecture_hidden: tuple[str, ...] = ()

    #: ``finished(work)``: a long piece of work is done and its results are on screen
    #: and in :meth:`readouts` (``work`` names it: "training", "counts", "conversion",
    #: "regions", …; each panel's are listed in docs/automation.md). Emitted once per
    #: request, also when the work failed (the readouts then say so); a request made
    #: while one is running replaces it, and only the latest one finishes.
    finished = Signal(str)

    def __init__(self, host=None, parent=None):
        super().__init__(parent)
        self.host = host  # the main window, or None when the panel runs alone
        self.setObjectName(f"panel-{self.name}")
        self.setAccessibleName(f"{self.title} panel")
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setObjectName(f"{self.name}-undo")
        self.theme = current_theme()
        self.theme.changed.connect(self.apply_theme)

    # -- state -----------------------------------------------------------------
    @property
    def state(self):
        """The state on screen (an instance of ``state_class``)."""
        return self._state

    def apply_state(self, state) -> None:
        """Put ``state`` on screen (widgets, plots, background work). Called by undo,
        redo and ``load_state``; a state that ``from_dict`` accepted must never make it
        raise. Panels with a ``state_class`` override it."""
        raise NotImplementedError

    def commit(self, after, text: str, merge_key=None) -> None:
        """One undoable edit from the current state to ``after`` (nothing if equal)."""
        if after != self._state:
            self.undo_stack.push(SnapshotCommand(self.apply_state, self._state, after, text,
                                                 merge_key))

    def make_keys(self) -> list[QShortcut]:
        """The shortcuts of ``KEYS``, each active while the focus is in its widget (or
        anywhere in the panel), so that text boxes elsewhere keep their keys."""
        made = []
        for i, key in enumerate(self.KEYS):
            target = self._resolve(key.widget) if key.widget else self
            shortcut = QShortcut(QKeySequence(key.keys), target)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.setObjectName(f"{self.name}-shortcut-{key.name or i}")
            shortcut.setWhatsThis(key.what)
            shortcut.activated.connect(partial(self._resolve(key.slot), *key.args))
            made.append(shortcut)
        self._shortcuts = made
        return made

    def _resolve(self, path: str):
        obj = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    # -- hooks ---------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to rebuild what the panel shows, as JSON-ready data."""
        return self._state.to_dict() if self.state_class is not None else {}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore a ``state_dict``. Validate everything first and raise ValueError
        naming the field; on error the panel must stay exactly as it was."""
        if self.state_class is not None:
            self.apply_state(self.state_class.from_dict(state))

    def apply_theme(self) -> None:
        """Restyle plots and handles after a theme or zoom change."""

    def receive(self, kind: str, payload: Any) -> bool:
        """Accept something sent from another panel (``"network"`` with an MLP, …).
        Returns True when taken."""
        return False

    def readouts(self) -> dict[str, Any]:
        """What the panel's readouts show, as data: key → number, text or None (the
        keys and their meaning are listed in docs/automation.md). Each comes from a
        :class:`~relulab.ui.readout.Readout` (its ``key`` and ``value``); a panel adds
        the numbers a readout shows beside its main one."""
        return readouts_of(self)

    def plots(self) -> dict[str, QWidget]:
        """The panel's plots by name, main one first (for PNG/SVG export)."""
        return {}

    def data_tables(self) -> dict[str, tuple[list[str], list[list]]]:
        """Data behind the plots as {name: (column headers, rows)} (for CSV export)."""
        return {}

    def export_hints(self) -> tuple:
        """What File ▸ Export leaves out of its pictures: widgets and plot items that say
        how to use the screen ("(click one)", "Scroll on the plot to zoom in") rather
        than what it shows. relulab.ui.export hides them while it draws a plot or
        records an animation and shows them again after, also when the export fails.
        A hint is best an item of its own: one hidden takes nothing else with it."""
        return ()

    def animation_frames(self, max_frames: int = 120):
        """A generator that advances what the panel shows by one frame per ``yield``
        (a training tick, a fold); the exporter grabs the plot after each. It leaves
        the panel as it found it when closed. Panels without an animation yield nothing."""
        return iter(())

    def focus_target(self) -> QWidget:
        """Where the keyboard focus goes when the panel is shown, so that its keys work
        at once (``]`` on the Folding panel, Space on Training): its main plot."""
        return next(iter(self.plots().values()), self)

    def take_focus(self) -> None:
        """Give the keyboard focus to :meth:`focus_target` (the window shows a panel
        with its focus inside; a window not active yet gets it when activated)."""
        self.focus_target().setFocus(Qt.FocusReason.OtherFocusReason)

    def set_lecture_layout(self, on: bool) -> None:
        """Lecture layout: hide the controls (the child named ``<name>-controls``) and
        what ``lecture_hidden`` names, and let the plots and readouts take the room."""
        for name in (f"{self.name}-controls", *self.lecture_hidden):
            widget = self.findChild(QWidget, name)
            if widget is not None:
                widget.setVisible(not on)

    def drawing_pending(self) -> bool:
        """True while a result is being drawn in stages over the next passes of the
        event loop (a panel that draws that way says so)."""
        return False

    def wait_until_idle(self, timeout: float = 30.0) -> bool:
        """Process events until the panel's background work is done: its workers (child
        :class:`~relulab.ui.worker.Worker` objects) have no request pending and its
        training driver, when it is not playing, has drawn the last piece of its frame,
        and a result drawn in stages has its last stage drawn. For scripts, tests and
        ``relulab render``; the app itself never waits. False on timeout."""
        from relulab.ui.driver import TrainingDriver

        deadline = time.monotonic() + timeout
        while True:
            workers = [w for w in self.findChildren(Worker) if w.busy]
            drivers = [d for d in self.findChildren(TrainingDriver) if d.busy and not d.playing]
            if not workers and not drivers and not self.drawing_pending():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if workers:
                workers[0].wait(left)
            else:
                QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)

    def shutdown(self) -> None:
        """Stop timers and threads; called once before the panel is destroyed."""
        with suppress(RuntimeError, TypeError):
            self.theme.changed.disconnect(self.apply_theme)

    # -- helpers -------------------------------------------------------------
    def show_status(self, text: str, msec: int = 5000) -> None:
        if self.host is not None:
            self.host.statusBar().showMessage(text, msec)

    def send_to(self, panel_name: str, kind: str, payload: Any) -> bool:
        """Hand ``payload`` to another panel and switch to it (False when alone)."""
        if self.host is None:
            return False
        return self.host.send_to(panel_name, kind, payload)


def run_alone(panel_class, argv=None) -> int:
    """Show one panel in its own window on demo data: ``python -m relulab.ui.panels.X``."""
    app = QApplication.instance() or QApplication(sys.argv if argv is None else argv)
    current_theme().apply_to_application()
    panel = panel_class()
    panel.setWindowTitle(f"ReLU Lab: {panel.title}")
    panel.resize(1200, 760)
    panel.show()
    code = app.exec()
    panel.shutdown()
    return code
