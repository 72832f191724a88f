"""The document behind the window: open, save, autosave, restore after a crash.

A scene is applied all or nothing: every panel's state is snapshotted first, and if
any ``load_state`` refuses its part, every panel the scene touched gets its snapshot
back, the refusing one included (it may have changed before it refused), so a bad
file leaves the work on screen as it was.

Opening is the app's edge for files: a refusal, whatever raised it, is one line
naming the file, the field and the problem, and changes nothing.

Autosave: while the window runs as the app (``start()``), the work is written every
60 s to ``autosave.relulab.json`` in the user data folder when it differs from the
saved file. A clean exit removes it. A file left behind means the last run did not
exit cleanly; the next start moves it aside to ``recovered.relulab.json`` and offers
to restore it. A recovered file that cannot be restored is offered once: it is then
renamed ``refused-autosave-<date>.relulab.json`` beside it and the message says so.
``RELULAB_DATA_DIR`` overrides the folder (for scripts and tests).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QLockFile, QObject, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtWidgets import QMessageBox

from relulab.io.limits import one_line
from relulab.io.scenes import (
    SCENE_SUFFIX,
    Playlist,
    Scene,
    SceneError,
    json_ready,
    read_document,
    write_scene,
)
from relulab.model.core import platform
from relulab.ui import settings

if TYPE_CHECKING:  # pragma: no cover
    from relulab.ui.panels.base import Panel

log = logging.getLogger("relulab.session")

AUTOSAVE_INTERVAL_MS = 60_000
AUTOSAVE_NAME = "autosave" + SCENE_SUFFIX
RECOVERED_NAME = "recovered" + SCENE_SUFFIX
REFUSED_PREFIX = "refused-autosave-"
LOCK_NAME = "session.lock"


# -- applying and capturing scenes (no window needed: tests pass fake panels) --
# A window's panels (relulab.ui.panels.PanelMap) answer for the panels it has not
# created yet, so that a check or a capture does not create every panel.
def _state_dict(panels: Mapping[str, Panel], name: str) -> dict:
    ask = getattr(panels, "state_dict", None)
    return ask(name) if ask is not None else panels[name].state_dict()


def _load_state(panels: Mapping[str, Panel], name: str, state) -> None:
    load = getattr(panels, "load_state", None)
    if load is not None:
        load(name, state)
    else:
        panels[name].load_state(state)


def _created(panels: Mapping[str, Panel]) -> Mapping[str, Panel]:
    created = getattr(panels, "created", None)
    return created() if created is not None else panels


def capture_scene(panels: Mapping[str, Panel], current: str | None = None,
                  names=None, title: str = "", caption: str = "") -> Scene:
    """The state of ``panels`` (or those in ``names``) as a scene."""
    chosen = list(panels) if names is None else list(names)
    states = {}
    for name in chosen:
        states[name] = json_ready(_state_dict(panels, name), f"panels.{name}")
    return Scene(panels=states, current=current, title=title, caption=caption)


def apply_scene(panels: Mapping[str, Panel], scene: Scene) -> None:
    """Load every panel state of ``scene``, all or nothing.

    Raises SceneError(``panels.<name>``, the panel's message) when a panel refuses
    its state; every panel the scene touched, the refusing one included, is first
    restored from a snapshot taken before anything was applied.
    """
    unknown = [n for n in scene.panels if n not in panels]
    if unknown:
        raise SceneError(f"panels.{unknown[0]}", f"unknown panel (known: {', '.join(panels)})")
    if scene.current is not None and scene.current not in panels:
        raise SceneError("current", f"unknown panel {scene.current!r}")
    snapshots = {name: _state_dict(panels, name) for name in panels}
    touched: list[str] = []
    for name, state in scene.panels.items():
        touched.append(name)
        try:
            _load_state(panels, name, state)
        except Exception as exc:  # a panel's ValueError, or a bug: either way roll back
            _restore(panels, snapshots, touched)
            problem = str(exc) if isinstance(exc, ValueError) else \
                f"could not be loaded ({type(exc).__name__}: {exc})"
            raise SceneError(f"panels.{name}", problem) from exc


def _restore(panels, snapshots: dict, touched: list[str]) -> None:
    """Put back the snapshots of the panels a failed scene touched (the last one may
    have changed part of its state before refusing) and of any other panel whose
    state moved meanwhile."""
    for name in reversed(list(panels)):
        if name not in touched and _state_dict(panels, name) == snapshots[name]:
            continue
        try:
            _load_state(panels, name, snapshots[name])
        except Exception:  # pragma: no cover - a panel that cannot reload its own state
            log.exception("could not restore the %s panel after a failed load", name)


def fingerprint(scene: Scene) -> str:
    """A canonical text of the panels' states, to tell whether anything changed."""
    return json.dumps(scene.panels, sort_keys=True, allow_nan=True, default=str)


def data_dir() -> Path:
    """The user data folder for autosaves (``RELULAB_DATA_DIR`` overrides it)."""
    override = os.environ.get("RELULAB_DATA_DIR")
    if override:
        return Path(override)
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))


class Session(QObject):
    """The window's document: its file, whether it is modified, autosave and restore."""

    #: after a scene was opened, restored or saved (the window updates its title)
    document_changed = Signal()
    #: after the list of recent files changed (the window refills Open recent: a menu
    #: greyed while the list was empty never opens, so it cannot refill itself)
    recent_changed = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.path: Path | None = None
        self.confirm_close = False  # the app sets it; scripts and tests are never asked
        self.last_error: SceneError | None = None
        self.pending_restore: Path | None = None
        self.refused_autosave: Path | None = None
        self._baseline = ""
        self._autosaved = ""
        self._lock: QLockFile | None = None
        self._timer = QTimer(self)
        self._timer.setObjectName("autosave-timer")
        self._timer.setInterval(AUTOSAVE_INTERVAL_MS)
        self._timer.timeout.connect(self.autosave_now)
        self.mark_clean()

    # -- state ---------------------------------------------------------------
    @property
    def panels(self):
        return self.window.panels

    def capture(self, title: str = "", caption: str = "") -> Scene:
        return capture_scene(self.panels, self.window.current_panel().name,
                             title=title, caption=caption)

    def _fingerprint(self) -> str:
        try:
            return fingerprint(capture_scene(self.panels))
        except SceneError:
            return "<unstorable>"  # a panel holds NaN etc.: treat as changed

    def mark_clean(self) -> None:
        """The work on screen is what the file holds (after open or save)."""
        self._baseline = self._fingerprint()
        for panel in _created(self.panels).values():
            panel.undo_stack.setClean()

    def document(self) -> tuple:
        """Which file the work belongs to and what it held (to put back after a lecture)."""
        return self.path, self._baseline

    def set_document(self, document: tuple) -> None:
        self.path, self._baseline = document

    def is_modified(self) -> bool:
        return self._fingerprint() != self._baseline

    def display_name(self) -> str:
        if self.path is None:
            return "Untitled"
        name = self.path.name
        return name[: -len(SCENE_SUFFIX)] if name.endswith(SCENE_SUFFIX) else name

    # -- opening ---------------------------------------------------------------
    def load(self, scene: Scene, clear_undo: bool = True) -> None:
        """Apply ``scene`` to the window (all or nothing) and show its current panel."""
        apply_scene(self.panels, scene)
        if clear_undo:
            created = _created(self.panels)
            for name in scene.panels:
                if name in created:
                    created[name].undo_stack.clear()
        if scene.current is not None:
            # the focus goes into it only when nothing is being edited (a lecture's step
            # leaves a spin box the presenter types in alone)
            self.window.show_panel(scene.current, focus=False)
            self.window.focus_current_panel()

    def new(self) -> None:
        """Every panel back to its defaults (its state class's, the state a new panel
        starts in; a panel not created yet stays so), a new untitled document with empty
        undo histories."""
        panels = self.panels
        states = {name: panels.initial_state_dict(name) for name in panels}
        self.load(Scene(panels={n: s for n, s in states.items() if s is not None}, current=None))
        self.path = None
        self.mark_clean()
        self.document_changed.emit()
        self.window.statusBar().showMessage("A new document: every panel at its defaults.", 5000)

    def read(self, path) -> Scene | Playlist:
        """Read and validate a scene or playlist file (nothing is applied)."""
        return read_document(path, list(self.panels))

    def open(self, path) -> bool:
        """Open a scene or playlist file; on any problem show it in one line and leave
        the work (and a running lecture) untouched."""
        path = Path(path)
        try:
            doc = self.read(path)
            if isinstance(doc, Playlist):
                if not self.window.lecture.start(doc, source=path):
                    return False  # the lecture said why
                self._add_recent(path)
                return True
            if self.window.lecture.running:
                # try the scene on the lecture's screen first: a refusal then changes
                # nothing; only a scene that loads ends the lecture (which puts the
                # work from before it back) and is loaded over that work
                apply_scene(self.panels, doc)
                self.window.lecture.end()
            self.load(doc)
        except SceneError as exc:
            if not path.exists():
                settings.remove_recent(str(path))
                self.recent_changed.emit()
            self.report_error(f"Could not open {path.name}", exc)
            return False
        except Exception as exc:  # the edge of the open command: a bug is still one line
            log.exception("unexpected error while opening %s", path)
            self.report_error(f"Could not open {path.name}",
                              SceneError("file", f"could not be opened ({type(exc).__name__}: "
                                                 f"{exc})"))
            return False
        self.path = path
        self.mark_clean()
        self._add_recent(path)
        settings.set("files/last_folder", str(path.parent))
        self.document_changed.emit()
        self.window.statusBar().showMessage(f"Opened {path.name}", 5000)
        return True

    def _add_recent(self, path: Path) -> None:
        settings.add_recent(str(path))
        self.recent_changed.emit()

    def report_error(self, title: str, exc: SceneError) -> QMessageBox:
        """Show a problem with a file next to the work (non-blocking) and in the status bar,
        one line each."""
        title = one_line(title, 200)
        self.last_error = exc
        self.window.statusBar().showMessage(f"{title}: {exc}", 15000)
        box = QMessageBox(QMessageBox.Icon.Warning, title,
                          f"{exc.field}: {exc.problem}", QMessageBox.StandardButton.Ok, self.window)
        box.setObjectName("scene-error-dialog")
        box.setInformativeText("Nothing was changed: the work on screen is as it was.")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    # -- saving ----------------------------------------------------------------
    def save(self, path=None) -> bool:
        """Save every panel to ``path`` (or the current file) atomically."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no file name to save to")
        try:
            write_scene(target, self.capture())
        except SceneError as exc:
            self.report_error("Could not save", exc)
            return False
        except OSError as exc:
            self.report_error("Could not save", SceneError("file", f"{target}: {exc.strerror or exc}"))
            return False
        self.path = target
        self.mark_clean()
        self._add_recent(target)
        settings.set("files/last_folder", str(target.parent))
        self.document_changed.emit()
        self.window.statusBar().showMessage(f"Saved {target}", 5000)
        return True

    # -- autosave and restore --------------------------------------------------
    @property
    def autosave_path(self) -> Path:
        return data_dir() / AUTOSAVE_NAME

    @property
    def recovered_path(self) -> Path:
        return data_dir() / RECOVERED_NAME

    def start(self, autosave: bool = True) -> Path | None:
        """Begin a session of the app: look for work a crash left behind, start autosave.

        Returns the file to offer for restoring, if any. Only one running window owns
        the data folder (a lock file); a second one neither autosaves nor restores.
        """
        folder = data_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # no autosave is better than no app
            log.warning("no autosave: cannot use %s (%s)", folder, exc)
            self.window.statusBar().showMessage(f"Autosave is off: cannot write to {folder}", 10000)
            return None
        self._lock = QLockFile(str(folder / LOCK_NAME))
        self._lock.setStaleLockTime(0)  # stale only when its process is gone
        if not self._lock.tryLock(0):
            self._lock = None
            log.info("another ReLU Lab window owns %s; no autosave here", folder)
            return None
        if self.autosave_path.exists():
            # left behind by a run that did not exit cleanly: keep it out of the way of
            # this run's autosaves until the user decides
            try:
                platform.replace(self.autosave_path, self.recovered_path)
            except OSError as exc:
                log.warning("cannot set the last autosave aside: %s", exc)
                self._lock.unlock()
                self._lock = None
                return None
        self.pending_restore = self.recovered_path if self.recovered_path.exists() else None
        if autosave:
            self._timer.start()
        return self.pending_restore

    def autosave_now(self) -> Path | None:
        """Write the work to the autosave file if it differs from the saved file."""
        if self._lock is None:
            return None
        lecture = getattr(self.window, "lecture", None)
        if lecture is not None and lecture.running:
            # the screen shows lecture scenes; the work from before was autosaved at the start
            return self.autosave_path if self.autosave_path.exists() else None
        try:
            scene = self.capture(title=f"Autosave of {self.display_name()}")
            current = fingerprint(scene)
            if current == self._baseline:  # nothing unsaved: nothing to keep
                self.autosave_path.unlink(missing_ok=True)
                self._autosaved = ""
                return None
            if current != self._autosaved:
                write_scene(self.autosave_path, scene)
                self._autosaved = current
        except (SceneError, OSError) as exc:
            log.warning("autosave failed: %s", exc)
            self.window.statusBar().showMessage(f"Autosave failed: {exc}", 10000)
            return None
        return self.autosave_path

    def offer_restore(self) -> QMessageBox | None:
        """Ask (without blocking) whether to restore the work a crash left behind."""
        if self.pending_restore is None:
            return None
        box = QMessageBox(QMessageBox.Icon.Question, "Restore unsaved work?",
                          "ReLU Lab did not close cleanly last time. Restore the work that was "
                          "autosaved then?", parent=self.window)
        box.setObjectName("restore-dialog")
        restore = box.addButton("Restore", QMessageBox.ButtonRole.AcceptRole)
        restore.setObjectName("restore-accept")
        discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
        discard.setObjectName("restore-discard")
        box.setDefaultButton(restore)

        def answered(button):
            if button is restore:
                self.restore()
            elif button is discard:
                self.discard_recovered()

        box.buttonClicked.connect(answered)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    def restore(self) -> bool:
        """Load the recovered autosave as unsaved work (it stays until saved or discarded).

        A recovered file that is refused is not offered again: it is renamed aside
        (``refused-autosave-<date>.relulab.json``) and the message says where it is."""
        path = self.pending_restore
        if path is None:
            return False
        try:
            doc = self.read(path)
            if not isinstance(doc, Scene):
                raise SceneError("format", "the autosave is not a scene")
            self.load(doc)
        except Exception as exc:  # the edge of the restore command
            if not isinstance(exc, SceneError):
                log.exception("unexpected error while restoring %s", path)
                exc = SceneError("file", f"could not be restored ({type(exc).__name__}: {exc})")
            self.pending_restore = None
            aside = self._set_refused_aside(path)
            where = f"it was kept as {aside}" if aside is not None else f"it is still at {path}"
            self.report_error("Could not restore the autosave",
                              SceneError(exc.field, f"{exc.problem}; {where}"))
            return False
        self.path = None
        self._baseline = ""  # restored work is unsaved work
        self.pending_restore = None
        self.recovered_path.unlink(missing_ok=True)
        self.autosave_now()  # now it is this run's autosave
        self.document_changed.emit()
        self.window.statusBar().showMessage("Restored the autosaved work; save it to keep it.", 10000)
        return True

    def _set_refused_aside(self, path: Path) -> Path | None:
        """Rename a refused autosave out of the way of the next start (never delete it:
        the user may still want what is in it)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for n in range(100):
            tail = f"-{n}" if n else ""
            target = path.with_name(f"{REFUSED_PREFIX}{stamp}{tail}{SCENE_SUFFIX}")
            if target.exists():
                continue
            try:
                platform.replace(path, target)
            except OSError as exc:
                log.warning("cannot set the refused autosave %s aside: %s", path, exc)
                return None
            self.refused_autosave = target
            return target
        return None  # pragma: no cover - a hundred refusals in one second

    def discard_recovered(self) -> None:
        self.pending_restore = None
        self.recovered_path.unlink(missing_ok=True)

    def finish(self) -> None:
        """A clean exit: stop autosaving, remove the autosave, release the folder."""
        self._timer.stop()
        if self._lock is not None:
            self.autosave_path.unlink(missing_ok=True)
            self._lock.unlock()
            self._lock = None
