"""The lecture being built: scenes captured from the window, edited, saved and opened.

Every change is one step of the book's own undo stack (the lecture editor shows it),
and is autosaved beside the scenes' autosave while this window owns the data folder.
The built-in lecture opens read-only: an example to copy, never to write over.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from relulab.io.atomic import write_text_atomic
from relulab.io.scenes import (
    Playlist,
    Scene,
    SceneError,
    builtin_lecture_path,
    dump_playlist,
    read_lecture,
    read_playlist,
    write_playlist,
)
from relulab.model.core import platform
from relulab.ui.session import data_dir

log = logging.getLogger(__name__)

#: The lecture being built, written after each change (beside the scenes' autosave).
AUTOSAVE_NAME = "lecture-autosave.json"
#: The autosave a previous run left (it crashed, or quit without saving), set aside at
#: this run's first change so that no autosave of this run writes over it.
RECOVERED_NAME = "lecture-recovered.json"
#: The scene texts the editor edits.
TEXT_FIELDS = ("title", "caption", "notes")


class _Change(QUndoCommand):
    """One edit of the scene list: ``after`` and ``before`` are whole lists of scenes
    (a lecture is tens of scenes: copying the list is cheaper than being clever)."""

    def __init__(self, book: LectureBook, text: str, scenes: list[Scene], selected: int,
                 merge: tuple = ()):
        super().__init__(text)
        self.book = book
        self.before = list(book.playlist.scenes)
        self.before_selected = book.selected
        self.after = scenes
        self.after_selected = selected
        self.merge = merge

    def id(self) -> int:
        # typing into one text of one scene is one step, however many pauses it has
        return 1 if self.merge else -1

    def mergeWith(self, other) -> bool:
        if not isinstance(other, _Change) or other.merge != self.merge:
            return False
        self.after, self.after_selected = other.after, other.after_selected
        return True

    def redo(self) -> None:
        self.book._set_scenes(self.after, self.after_selected)

    def undo(self) -> None:
        self.book._set_scenes(self.before, self.before_selected)


class LectureBook(QObject):
    """The lecture being built (``playlist``), its file (``path``) and its undo stack.

    Signal ``changed()`` after any change of its scenes, title, file or read-only state.
    """

    changed = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.playlist = Playlist(scenes=[], title="")
        self.path: Path | None = None
        self.read_only = False
        self.selected = -1
        self.last_error: SceneError | None = None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setObjectName("lecture-undo-stack")
        # methods, not lambdas: Qt disconnects them when the book goes
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self.undo_stack.indexChanged.connect(self._autosave)
        self._set_aside = False
        QTimer.singleShot(0, self._say_what_was_left)

    def _on_clean_changed(self, _clean: bool) -> None:
        self.changed.emit()

    # -- what it holds ---------------------------------------------------------
    @property
    def scenes(self) -> list[Scene]:
        return self.playlist.scenes

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def readouts(self) -> dict:
        """``title``, ``scenes`` (how many), ``titles`` (each scene's), ``path`` (text or
        None), ``read_only`` and ``modified``."""
        return {"title": self.playlist.title, "scenes": len(self.scenes),
                "titles": [s.title for s in self.scenes],
                "path": str(self.path) if self.path else None,
                "read_only": self.read_only, "modified": self.is_modified()}

    # -- edits (each one undoable step) -----------------------------------------
    def _edit(self, text: str, scenes: list[Scene], selected: int, merge: tuple = ()) -> bool:
        if self.read_only:
            self.window.statusBar().showMessage(
                "The built-in lecture is an example: copy it (Edit a copy) to change it.", 8000)
            return False
        self.undo_stack.push(_Change(self, text, scenes, selected, merge))
        return True

    def _set_scenes(self, scenes: list[Scene], selected: int) -> None:
        self.playlist.scenes = list(scenes)
        self.selected = min(selected, len(scenes) - 1)
        self.changed.emit()

    def add_view(self, title: str = "", caption: str = "", notes: str = "") -> Scene:
        """The window's panels as they are now, appended as the lecture's last scene."""
        scene = self.window.session.capture(title=title, caption=caption)
        scene.notes = notes
        if self.read_only:
            self.copy_to_edit()
        at = len(self.scenes)
        scenes = list(self.scenes)
        scenes.insert(at, scene)
        self._edit(f"Add “{title or 'a view'}”", scenes, at)
        self.window.statusBar().showMessage(
            f"Scene {at + 1} of {len(self.scenes)} added to the lecture.", 5000)
        return scene

    def move(self, source: int, target: int) -> bool:
        """Scene ``source`` moves to position ``target`` (both counted from 0)."""
        n = len(self.scenes)
        if not (0 <= source < n) or source == target:
            return False
        target = max(0, min(target, n - 1))
        scenes = list(self.scenes)
        scenes.insert(target, scenes.pop(source))
        return self._edit(f"Move scene {source + 1} to {target + 1}", scenes, target)

    def duplicate(self, index: int) -> bool:
        if not 0 <= index < len(self.scenes):
            return False
        scenes = list(self.scenes)
        scenes.insert(index + 1, copy.deepcopy(scenes[index]))
        return self._edit(f"Duplicate scene {index + 1}", scenes, index + 1)

    def delete(self, index: int) -> bool:
        if not 0 <= index < len(self.scenes):
            return False
        scenes = list(self.scenes)
        del scenes[index]
        return self._edit(f"Delete scene {index + 1}", scenes, min(index, len(scenes) - 1))

    def set_text(self, index: int, name: str, text: str) -> bool:
        """Scene ``index``'s ``title``, ``caption`` or ``notes`` becomes ``text``."""
        if name not in TEXT_FIELDS:
            raise ValueError(f"{name!r}: a scene's texts are {', '.join(TEXT_FIELDS)}")
        if not 0 <= index < len(self.scenes) or getattr(self.scenes[index], name) == text:
            return False
        scenes = list(self.scenes)
        scenes[index] = copy.copy(scenes[index])
        setattr(scenes[index], name, text)
        return self._edit(f"Edit the {name} of scene {index + 1}", scenes, index, (index, name))

    def rename(self, index: int, title: str) -> bool:
        return self.set_text(index, "title", title)

    def set_title(self, title: str) -> None:
        """The lecture's own title (shown in the window's title while it runs)."""
        if not self.read_only and title != self.playlist.title:
            self.playlist.title = title
            self.changed.emit()

    # -- files -------------------------------------------------------------------
    def _replace(self, playlist: Playlist, path: Path | None, read_only: bool) -> None:
        self.playlist, self.path, self.read_only = playlist, path, read_only
        self.selected = 0 if playlist.scenes else -1
        self.undo_stack.clear()
        self.changed.emit()

    def new(self) -> None:
        """An empty lecture, untitled (the one being built is left as saved)."""
        self._replace(Playlist(scenes=[], title=""), None, False)

    def open(self, path) -> bool:
        """Open a lecture (a playlist file, or a folder with ``playlist.json``) to edit;
        a broken file is reported in one line and changes nothing."""
        path = Path(path)
        try:
            playlist = read_lecture(path, list(self.window.panels))
        except SceneError as exc:
            self.last_error = exc
            self.window.session.report_error(f"Could not open the lecture {path.name}", exc)
            return False
        self._replace(playlist, path, False)
        self.window.statusBar().showMessage(f"Opened the lecture {path.name}", 5000)
        return True

    def open_builtin(self) -> bool:
        """The built-in lecture, read-only: an example to look at and copy."""
        try:
            playlist = read_playlist(builtin_lecture_path(), list(self.window.panels))
        except SceneError as exc:  # pragma: no cover - our own files
            self.last_error = exc
            self.window.session.report_error("Could not read the built-in lecture", exc)
            return False
        self._replace(playlist, None, True)
        return True

    def copy_to_edit(self) -> None:
        """The lecture shown, as a new untitled one that can be changed and saved."""
        playlist = Playlist(scenes=copy.deepcopy(self.scenes), title=self.playlist.title)
        self._replace(playlist, None, False)

    def save(self, path=None) -> bool:
        """Write the lecture to ``path`` (or its file) atomically: a ``.json`` file, or a
        folder for a name without a suffix. False, with the problem shown, if it could not."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no file name to save the lecture to")
        try:
            written = write_playlist(target, self.playlist)
        except SceneError as exc:
            self.last_error = exc
            self.window.session.report_error("Could not save the lecture", exc)
            return False
        except OSError as exc:
            self.last_error = SceneError("file", f"{target}: {exc.strerror or exc}")
            self.window.session.report_error("Could not save the lecture", self.last_error)
            return False
        self.path = written.parent if written.parent == target else written
        self.read_only = False
        self.undo_stack.setClean()
        if getattr(self.window.session, "_lock", None) is not None:
            self.autosave_path.unlink(missing_ok=True)
        self.changed.emit()
        self.window.statusBar().showMessage(f"Saved the lecture {target}", 5000)
        return True

    # -- autosave ------------------------------------------------------------------
    @property
    def autosave_path(self) -> Path:
        return data_dir() / AUTOSAVE_NAME

    @property
    def recovered_path(self) -> Path:
        return data_dir() / RECOVERED_NAME

    def left_unsaved(self) -> Path | None:
        """The lecture a previous run or an unsaved New left behind, or None."""
        for path in (self.recovered_path, self.autosave_path):
            if path.exists():
                return path
        return None

    def _owns_data_folder(self) -> bool:
        return getattr(self.window.session, "_lock", None) is not None

    def _say_what_was_left(self) -> None:
        if self._owns_data_folder() and self.left_unsaved() is not None:
            self.window.statusBar().showMessage(
                "A lecture left unsaved is kept: Lecture ▸ Edit the lecture… ▸ Restore", 15000)

    def _autosave(self, _index: int = 0) -> None:
        """Unsaved scenes are on disk after each change (only in the window that owns
        the data folder, as the scenes' autosave); saving the lecture removes them, New
        and Open keep them until the next change (restore_autosave brings them back)."""
        if getattr(self.window.session, "_lock", None) is None:
            return
        try:
            if self.is_modified() and self.scenes:
                if not self._set_aside and self.autosave_path.exists():
                    platform.replace(self.autosave_path, self.recovered_path)
                self._set_aside = True
                write_text_atomic(self.autosave_path, dump_playlist(self.playlist))
        except (SceneError, OSError) as exc:
            log.warning("lecture autosave failed: %s", exc)

    def restore_autosave(self) -> bool:
        """Open the autosaved lecture as unsaved work (False if there is none): the one
        a previous run left if there is one, else this run's."""
        path = self.left_unsaved()
        if path is None:
            return False
        try:
            playlist = read_playlist(path, list(self.window.panels))
        except SceneError as exc:
            self.last_error = exc
            return False
        self._replace(Playlist(scenes=[], title=playlist.title), None, False)
        self._edit("Restore the autosaved lecture", playlist.scenes, 0)
        return True
