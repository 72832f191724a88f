"""Lectures: a playlist of scenes stepped in front of a room, with captions.

Keys while a lecture runs (documented in docs/automation.md and the README):

- PageDown / PageUp (what presenter clickers send): next / previous scene, always.
- Right, Down / Left, Up: next / previous scene; Home / End: first / last scene.
  In the lecture layout (controls hidden) these keys belong to the lecture, before
  any panel shortcut, unless the focus is on an editing control (text field, spin
  box, slider, combo box, list). With the controls shown they belong to the panels
  first: they step the lecture only when the focused widget and the panel's
  shortcuts left them unused.

- B and a held P (black out, pointer; relulab.ui.lecture.presenter) in the lecture
  layout or while the presenter view is open, unless an editing control has the focus.

Starting a lecture keeps the work that was on screen and turns the lecture layout
on; ending it puts that work back and the layout as it was. The lecture being built
from the window is ``book`` (relulab.ui.lecture.book), its editor ``edit()``.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
)

from relulab.io.scenes import Playlist, Scene, SceneError, builtin_lecture_path, read_playlist
from relulab.ui import dialogs
from relulab.ui.lecture.book import LectureBook
from relulab.ui.lecture.handout_job import HandoutJob, HandoutProgress
from relulab.ui.lecture.presenter import Presenting
from relulab.ui.readout import Readout, readouts_of
from relulab.ui.theme import current_theme


class LectureBar(QFrame):
    """The strip above the panels while a lecture runs: title, caption, position, buttons."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("lecture-bar")
        self.setAccessibleName("Lecture")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = Readout("lecture-title", "Scene title", "title", parent=self)
        self.caption = Readout("lecture-caption", "Scene caption", "caption", wrap=True,
                               selectable=True, parent=self)
        self.position = Readout("lecture-position", "Scene number", "position", parent=self)
        self.previous_button = self._button("◀ Previous", "lecture-previous", "Previous scene")
        self.next_button = self._button("Next ▶", "lecture-next", "Next scene")
        self.end_button = self._button("End lecture", "lecture-end", "End lecture")
        # the caption is read once, then the plots may want its room (Ctrl+H)
        self.caption_button = self._button("Caption", "lecture-caption-toggle", "Show the caption")
        self.caption_button.setCheckable(True)
        self.caption_button.setChecked(True)

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.position)
        top.addWidget(self.caption_button)
        top.addWidget(self.previous_button)
        top.addWidget(self.next_button)
        top.addWidget(self.end_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.caption)
        self.apply_theme()

    def _button(self, text: str, name: str, accessible: str) -> QPushButton:
        b = QPushButton(text, self)
        b.setObjectName(name)
        b.setAccessibleName(accessible)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keep the keyboard focus on the panel
        return b

    def apply_theme(self) -> None:
        theme = current_theme()
        # large enough for the back of a room at the projector's zoom, small enough to
        # leave the plots most of a 720-pixel screen
        self.title.setFont(theme.font(12, bold=True))
        self.caption.setFont(theme.font(9.5))
        m = int(8 * theme.zoom)
        self.layout().setContentsMargins(m, m // 2, m, m // 2)


#: Focus widgets that keep the arrow keys even in the lecture layout.
EDITING = (QLineEdit, QAbstractSpinBox, QAbstractSlider, QComboBox, QTextEdit, QPlainTextEdit,
           QAbstractItemView)


def is_editing(widget) -> bool:
    """True when ``widget`` (or the composite control it is part of) edits with arrows."""
    while widget is not None:
        if isinstance(widget, EDITING):
            return True
        widget = widget.parentWidget()
        if widget is not None and not isinstance(widget, (QAbstractSpinBox, QComboBox)):
            return False
    return False


class LectureController(QObject):
    """Steps the window through a playlist.

    Signals: ``stepped(index)`` after scene ``index`` (0 for the first) is on screen,
    its caption and position shown; ``running_changed(running)`` when a lecture starts
    or ends; ``handout_written(path)`` / ``handout_failed(problem)`` when a handout
    export ends (``"cancelled"`` when it was).
    """

    stepped = Signal(int)
    running_changed = Signal(bool)
    handout_written = Signal(str)
    handout_failed = Signal(str)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.playlist: Playlist | None = None
        self.source: Path | None = None
        self.index = -1
        self._before: Scene | None = None
        self._before_session: tuple | None = None
        self._layout_before = False
        self._filtering = False
        self.bar = LectureBar()
        self.bar.hide()
        self.bar.previous_button.clicked.connect(self.previous)
        self.bar.next_button.clicked.connect(self.next)
        self.bar.end_button.clicked.connect(self.end)
        self.bar.caption_button.toggled.connect(lambda _=False: self._show_caption())
        current_theme().changed.connect(self.bar.apply_theme)
        #: the lecture being built from the window (Add this view, the editor)
        self.book = LectureBook(window)
        #: the presenter view, black out and pointer
        self.presenting = Presenting(self)
        self.editor = None
        #: the handout being written in a child (relulab.ui.lecture.handout_job), if any
        self.handout_job = None

    @property
    def running(self) -> bool:
        return self.playlist is not None

    def readouts(self) -> dict:
        """What the lecture bar shows: ``title``, ``caption``, ``position`` (1 for the
        first scene; None when no lecture runs) and ``scenes`` (how many)."""
        values = readouts_of(self.bar)
        values["scenes"] = len(self.playlist.scenes) if self.running else None
        return values

    @property
    def scene(self) -> Scene | None:
        return self.playlist.scenes[self.index] if self.running else None

    # -- starting and ending ---------------------------------------------------
    def start_builtin(self) -> bool:
        try:
            playlist = read_playlist(builtin_lecture_path(), list(self.window.panels))
        except SceneError as exc:
            self.window.session.report_error("Could not read the built-in lecture", exc)
            return False
        return self.start(playlist)

    def start(self, playlist: Playlist, source=None) -> bool:
        """Show the playlist's first scene; the work on screen is kept for ``end()``."""
        session = self.window.session
        if not self.running:
            session.autosave_now()  # unsaved work is on disk before the lecture replaces it
            self._before = session.capture()
            self._before_session = session.document()
            self._layout_before = self.window.lecture_layout
            # Save during a lecture must not write a lecture scene over the user's file
            session.set_document((None, session.document()[1]))
        previous = (self.playlist, self.index)
        self.playlist, self.index = playlist, -1
        if not self.go(0):
            self.playlist, self.index = previous
            if not self.running:
                self._before = None
                session.set_document(self._before_session)
            return False
        self.source = Path(source) if source is not None else None
        self.window.set_lecture_layout(True)
        self.bar.show()
        self._focus_panel()
        self.update_key_filter()
        self.running_changed.emit(True)
        return True

    def end(self) -> None:
        """Put back the work that was on screen before the lecture."""
        if not self.running:
            return
        session = self.window.session
        self.playlist, self.index, self.source = None, -1, None
        if self._before is not None:
            try:
                session.load(self._before)
            except SceneError as exc:  # pragma: no cover - our own snapshot
                session.report_error("Could not restore the work from before the lecture", exc)
            session.set_document(self._before_session)
            self._before = None
        self.bar.hide()
        for readout in (self.bar.title, self.bar.caption, self.bar.position):
            readout.clear()
        self.window.set_lecture_layout(self._layout_before)
        self.update_key_filter()
        session.document_changed.emit()
        self.running_changed.emit(False)

    # -- stepping --------------------------------------------------------------
    def go(self, index: int) -> bool:
        """Show scene ``index`` (clamped); a scene that fails to load is reported and skipped."""
        if not self.running:
            return False
        index = max(0, min(index, len(self.playlist.scenes) - 1))
        if index == self.index:
            return True
        scene = self.playlist.scenes[index]
        session = self.window.session
        try:
            session.load(scene)
        except SceneError as exc:
            session.report_error(f"Could not show scene {index + 1}", exc)
            return False
        session.mark_clean()
        self.index = index
        self._show_caption()
        self._focus_panel()
        self.stepped.emit(index)
        return True

    def _focus_panel(self) -> None:
        """Keys go to the scene's panel (its shortcuts, e.g. Space to train, work) unless
        the presenter is editing something."""
        self.window.focus_current_panel()

    def next(self) -> bool:
        return self.go(self.index + 1)

    def previous(self) -> bool:
        return self.go(self.index - 1)

    def first(self) -> bool:
        return self.go(0)

    def last(self) -> bool:
        return self.go(len(self.playlist.scenes) - 1) if self.running else False

    def toggle_caption(self) -> None:
        self.bar.caption_button.toggle()

    def _show_caption(self) -> None:
        if not self.running:
            return
        scene = self.scene
        n = len(self.playlist.scenes)
        self.bar.title.setText(scene.title or (self.playlist.title or "Lecture"))
        self.bar.caption.setText(scene.caption)
        self.bar.caption.setVisible(bool(scene.caption) and self.bar.caption_button.isChecked())
        self.bar.caption_button.setEnabled(bool(scene.caption))
        self.bar.position.set_value(self.index + 1, f"{self.index + 1} / {n}")
        self.bar.previous_button.setEnabled(self.index > 0)
        self.bar.next_button.setEnabled(self.index < n - 1)

    # -- building a lecture -------------------------------------------------------
    def add_view(self, title: str = "", caption: str = "", notes: str = "") -> Scene:
        """Lecture ▸ Add this view without its dialog: the panels as they are now become
        a scene of the lecture being built (``book``)."""
        return self.book.add_view(title, caption, notes)

    def add_view_dialog(self):
        from relulab.ui.lecture.add_view import AddViewDialog

        dialog = AddViewDialog(self.book, self.window)
        dialog.open()
        return dialog

    LECTURE_FILTER = "ReLU Lab lectures (*.json);;All files (*)"

    def new_lecture(self) -> None:
        self.book.new()

    def open_lecture_dialog(self) -> bool:
        path, _ = dialogs.open_file_name(self.window, "Open a lecture to edit",
                                         self.window._start_folder(), self.LECTURE_FILTER,
                                         instead="window.lecture.book.open(path)")
        return self.book.open(path) if path else False

    def save_lecture(self) -> bool:
        if self.book.path is None or self.book.read_only:
            return self.save_lecture_as_dialog()
        return self.book.save()

    def save_lecture_as_dialog(self) -> bool:
        start = str(self.book.path or Path(self.window._start_folder()) / "lecture.json")
        path, _ = dialogs.save_file_name(self.window, "Save the lecture (a .json file, or a "
                                         "name without a suffix for a folder)", start,
                                         self.LECTURE_FILTER,
                                         instead="window.lecture.book.save(path)")
        return self.book.save(path) if path else False

    def edit(self):
        """Lecture ▸ Edit the lecture: the editor window (made once, kept)."""
        from relulab.ui.lecture.editor import LectureEditor

        if self.editor is None:
            self.editor = LectureEditor(self)
        self.editor.show()
        self.editor.raise_()
        self.editor.activateWindow()
        return self.editor

    # -- presenting ---------------------------------------------------------------
    def present(self) -> bool:
        """Lecture ▸ Present: the presenter view on (or, when on, off). A lecture starts
        first if none runs: the one being built, else the built-in one."""
        if self.presenting.active:
            self.presenting.stop()
            return True
        if not self.running:
            started = (self.start(Playlist(scenes=list(self.book.scenes), title=self.book.playlist.title))
                       if self.book.scenes else self.start_builtin())
            if not started:
                return False
        self.presenting.start()
        self.update_key_filter()
        return True

    def export_handout(self, path, notes: bool = False, playlist: Playlist | None = None,
                       wait: bool = False) -> bool:
        """Lecture ▸ Export a handout without its dialog: ``playlist`` (by default the
        lecture being built, else the one running) as a PDF, one page a scene, drawn by
        ``relulab lecture export`` in a child process (relulab.ui.lecture.handout_job)
        while the window keeps answering. Returns whether it started; ``wait=True``
        returns when it is done, whether the PDF was written. Signals
        ``handout_written(path)`` or ``handout_failed(problem)`` at the end."""
        playlist = playlist or (self.book.playlist if self.book.scenes else self.playlist)
        status = self.window.statusBar()
        if playlist is None or not playlist.scenes:
            status.showMessage("No lecture to export: add a view first.", 8000)
            return False
        if self.handout_job is not None:
            status.showMessage("A handout is being written: wait for it or cancel it.", 8000)
            return False
        try:
            job = HandoutJob(playlist, path, notes, self)
        except (OSError, SceneError) as exc:  # the temporary playlist could not be written
            self.window.session.report_error("Could not export the handout",
                                             SceneError("handout", str(exc)))
            return False
        self.handout_job = job
        indicator = HandoutProgress()
        indicator.cancel_button.clicked.connect(job.cancel)
        job.progressed.connect(indicator.show_scene)
        job.progressed.connect(lambda i, n: status.showMessage(
            f"Drawing scene {i} of {n} for the handout…"))
        height = status.height()
        status.addPermanentWidget(indicator)
        taller = status.sizeHint().height() - height
        if status.isVisible() and taller > 0:
            # the status bar keeps its height: a taller one would shrink the plots above,
            # which then redraw (0.3 s for a Hinges panel)
            indicator.setMaximumHeight(max(1, indicator.sizeHint().height() - taller))
        status.showMessage("Writing the handout…")

        def finished(ok: bool, text: str) -> None:
            status.removeWidget(indicator)
            indicator.deleteLater()
            self.handout_job = None
            job.deleteLater()
            if ok:
                status.showMessage(f"Wrote the handout {text}", 8000)
                self.handout_written.emit(text)
            elif text == "cancelled":
                status.showMessage("The handout was cancelled; no file was written.", 8000)
                self.handout_failed.emit(text)
            else:
                self.window.session.report_error("Could not export the handout",
                                                 SceneError("handout", text))
                self.handout_failed.emit(text)

        job.finished.connect(finished)
        if wait:
            loop = QEventLoop()
            outcome: list[bool] = []
            job.finished.connect(lambda ok, _text: (outcome.append(ok), loop.quit()))
            job.start()
            if not outcome:
                loop.exec()
            return outcome[0]
        job.start()
        return True

    def abandon_handout(self) -> None:
        """The window closes: a handout being written is stopped, no file written."""
        if self.handout_job is not None:
            self.handout_job.abandon()

    def export_handout_dialog(self) -> bool:
        start = str(Path(self.window._start_folder()) / "handout.pdf")
        path, _ = dialogs.save_file_name(self.window, "Export the lecture as a PDF handout", start,
                                         "PDF (*.pdf)", instead="window.lecture.export_handout(path)")
        return self.export_handout(path) if path else False

    # -- keys --------------------------------------------------------------------
    STEP_KEYS: ClassVar[dict[Qt.Key, str]] = {
        Qt.Key.Key_Right: "next", Qt.Key.Key_Down: "next",
        Qt.Key.Key_Left: "previous", Qt.Key.Key_Up: "previous",
        Qt.Key.Key_Home: "first", Qt.Key.Key_End: "last",
    }

    def update_key_filter(self) -> None:
        """Watch for arrow keys before the panels' shortcuts only while presenting."""
        want = self.running and (self.window.lecture_layout or self.presenting.active)
        app = QApplication.instance()
        if want and not self._filtering:
            app.installEventFilter(self)
        elif not want and self._filtering:
            app.removeEventFilter(self)
        self._filtering = want

    def eventFilter(self, obj, event) -> bool:
        # B and a held P are the presenter's: in the window or the presenter view, while
        # nothing is being typed
        kind = event.type()
        if (kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease, QEvent.Type.ShortcutOverride)
                and self.running and self.presenting.is_tool_key(event)
                and QApplication.activeWindow() in (self.window, self.presenting.view)
                and not is_editing(QApplication.focusWidget())):
            if kind == QEvent.Type.KeyPress:
                self.presenting.handle_key(event)
            elif kind == QEvent.Type.KeyRelease:
                self.presenting.handle_key_release(event)
            event.accept()
            return True
        # A ShortcutOverride accepted here keeps panel shortcuts (training's Right = one
        # step, hinges' Left/Right = nudge) from taking the key; the key press then
        # travels up from the focused widget to the window, which steps the lecture.
        if (event.type() == QEvent.Type.ShortcutOverride and self.running
                and self.window.lecture_layout
                and QApplication.activeWindow() is self.window
                and Qt.Key(event.key()) in self.STEP_KEYS
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
                and not is_editing(QApplication.focusWidget())):
            event.accept()
            return True
        return False

    def handle_key(self, event) -> bool:
        """Arrow, Home and End keys that no widget took: step the lecture."""
        if not self.running or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        step = self.STEP_KEYS.get(Qt.Key(event.key()))
        if step is None:
            return False
        getattr(self, step)()
        return True
