"""Scene files in the window: round trips, broken files change nothing, autosave and
restore after a crash, closing with unsaved changes, recent files, drop, settings."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from relulab.io.scenes import SCENE_FORMAT, Scene, SceneError, dump_scene, read_scene
from relulab.ui import settings
from relulab.ui.panels import PANEL_NAMES
from relulab.ui.session import AUTOSAVE_NAME, RECOVERED_NAME, apply_scene
from tests.ui.fakes import values

ROOT = Path(__file__).resolve().parents[2]


def curves(panel) -> list:
    """The data of every curve, scatter and image in every plot of a panel: what the
    picture is made of (PlotWidget and GraphicsLayoutWidget alike)."""
    out = []
    for plot in panel.plots().values():
        if not plot.isVisibleTo(panel):
            continue  # a hidden plot is no part of the picture (it is redrawn when shown)
        scene = plot.scene() if isinstance(plot, pg.GraphicsView) else None
        if scene is None:
            continue
        for item in scene.items():
            if not item.isVisible():
                # no part of the picture: the Playground's hidden neuron maps keep the
                # images they had when last shown, in one window and not the other
                continue
            if isinstance(item, pg.PlotDataItem) or (
                    isinstance(item, pg.ScatterPlotItem) and item.parentItem() is not None
                    and not isinstance(item.parentItem(), pg.PlotDataItem)):
                x, y = item.getData()
            elif isinstance(item, pg.ImageItem) and item.image is not None:
                x, y = None, np.asarray(item.image, float).ravel()
            else:
                continue
            out.append((None if x is None else np.asarray(x, float),
                        None if y is None else np.asarray(y, float)))
    return out


def _equal(a, b) -> bool:
    try:
        same_pictures(a, b)
    except AssertionError:
        return False
    return True


def settled_curves(panel, rounds: int = 2000) -> list:
    """The panel's curves once its background work (a convergence study run by a
    zero-interval timer, say) has finished: its workers are waited for, then events are
    processed until nothing moves."""
    panel.wait_until_idle(60)
    before = curves(panel)
    for _ in range(rounds):
        QApplication.processEvents()
        now = curves(panel)
        if _equal(before, now):
            QApplication.processEvents()
            if _equal(now, curves(panel)):
                return now
        before = now
    return before


def same_pictures(a, b) -> None:
    assert len(a) == len(b)
    for (xa, ya), (xb, yb) in zip(a, b):
        for u, v in ((xa, xb), (ya, yb)):
            assert (u is None) == (v is None)
            if u is not None:
                np.testing.assert_allclose(u, v, rtol=1e-9, atol=1e-12, equal_nan=True)


# -- every real panel ----------------------------------------------------------
@pytest.fixture(scope="module")
def two_windows(qapp):
    """Two windows with every real panel, built once for the round trips (they are slow
    to build; each test loads its own states into them)."""
    from relulab.app import build_main_window
    from relulab.ui.theme import Theme, set_current_theme

    set_current_theme(Theme())
    windows = (build_main_window(), build_main_window())
    for w in windows:  # a window creates a panel when first asked for: ask for all now
        for name in w.panels:
            w.panel(name)
    windows[0].defaults = {n: p.state_dict() for n, p in windows[0].panels.items()}
    yield windows
    for w in windows:
        w.close()
        w.deleteLater()
    QApplication.processEvents()


def _round_trip(windows, scene: Scene, tmp_path) -> None:
    first, second = windows
    first.session.load(scene)
    path = tmp_path / "round-trip.relulab.json"
    assert first.session.save(path), first.session.last_error
    # the second window starts from other states, so nothing passes by accident
    second.session.load(Scene(panels={n: first.defaults[n] for n in scene.panels}))
    assert second.open_scene(path), second.session.last_error
    assert second.current_panel().name == first.current_panel().name
    for name in scene.panels:
        assert second.panel(name).state_dict() == first.panel(name).state_dict(), name
        same_pictures(settled_curves(second.panel(name)), settled_curves(first.panel(name)))
        # loading a panel's own state again changes nothing
        state = second.panel(name).state_dict()
        second.panel(name).load_state(state)
        assert second.panel(name).state_dict() == state


@pytest.mark.parametrize("name", PANEL_NAMES)
def test_round_trip_of_every_panel_state(name, two_windows, tmp_path):
    """Every panel's default state → scene file → the other window: the same state and
    the same pictures (real panels once they exist; placeholders until then)."""
    first = two_windows[0]
    state = first.panel(name).state_dict()
    _round_trip(two_windows, Scene(panels={name: state}, current=name), tmp_path)
    saved = json.loads((tmp_path / "round-trip.relulab.json").read_text())
    assert saved["panels"][name] == json.loads(json.dumps(first.panel(name).state_dict()))


def _lecture_scenes():
    from relulab.io.scenes import builtin_lecture_path, read_playlist

    playlist = read_playlist(builtin_lecture_path(), PANEL_NAMES)
    return [pytest.param(scene, id=f"scene{i + 1}") for i, scene in enumerate(playlist.scenes)]


@pytest.mark.parametrize("scene", _lecture_scenes())
def test_round_trip_of_the_lecture_states(scene, two_windows, tmp_path):
    """The built-in lecture's (non-default) states survive save and open, pictures too."""
    _round_trip(two_windows, scene, tmp_path)


# -- the mechanism, on fake panels --------------------------------------------
def test_save_modify_open(fake_window, tmp_path):
    w = fake_window
    w.panel("hinges").set_value(2.5)
    assert w.session.is_modified()
    path = tmp_path / "work.relulab.json"
    assert w.save_as(tmp_path / "work")  # the suffix is added
    assert path.exists() and not w.session.is_modified()
    assert w.windowTitle().startswith("work[*]")
    w.panel("hinges").set_value(-7)
    w.panel("folding").label = "changed"
    w.show_panel("converter")
    assert w.session.is_modified()
    assert w.open_scene(path)
    assert w.panel("hinges").value == 2.5 and w.panel("folding").label == "start"
    assert w.current_panel().name == "hinges"
    assert not w.session.is_modified()
    assert settings.get("files/recent")[0] == str(path)


def _scene_text(**panels) -> str:
    return json.dumps({"format": SCENE_FORMAT, "version": 1, "current": "training",
                       "panels": panels})


BROKEN = {
    "truncated": (lambda: _scene_text(hinges={"value": 3.0})[:50], "file", "cut short"),
    "wrong type": (lambda: _scene_text(hinges=[1, 2]), "panels.hinges", "got a list"),
    "newer version": (lambda: json.dumps({"format": SCENE_FORMAT, "version": 99, "panels": {}}),
                      "version", "newer ReLU Lab"),
    "bad state in the last panel": (
        lambda: _scene_text(hinges={"value": 3.0}, training={"value": 4.0},
                            folding={"value": "steep"}),
        "panels.folding", "value: expected a finite number"),
    "unknown panel": (lambda: _scene_text(hinges={"value": 3.0}, nope={}), "panels.nope",
                      "unknown panel"),
    "not json": (lambda: "PK\x03\x04 zip?", "file", "not valid JSON"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_file_gives_its_message_and_changes_nothing(kind, fake_window, tmp_path, qtbot):
    w = fake_window
    w.panel("hinges").set_value(1.5)
    w.show_panel("playground")
    saved = tmp_path / "mine.relulab.json"
    w.session.save(saved)
    w.panel("training").set_value(-2)  # unsaved work too
    before, path_before = values(w), w.session.path
    text, field, words = BROKEN[kind]
    bad = tmp_path / "bad.relulab.json"
    bad.write_text(text())
    assert not w.open_scene(bad)
    assert values(w) == before  # nothing changed, not even the panels loaded first
    assert w.current_panel().name == "playground"
    assert w.session.path == path_before and w.session.is_modified()
    err = w.session.last_error
    assert err.field == field and words in err.problem
    box = w.findChild(QMessageBox, "scene-error-dialog")
    assert box is not None and box.text().startswith(f"{field}: ")
    assert "Nothing was changed" in box.informativeText()
    box.close()


def test_oversized_file_is_refused(fake_window, tmp_path, monkeypatch):
    import relulab.io.scenes as scenes

    monkeypatch.setattr(scenes, "MAX_BYTES", 100)
    monkeypatch.setattr(scenes.read_document, "__defaults__", (None, 100))
    bad = tmp_path / "big.relulab.json"
    bad.write_text(_scene_text(hinges={"value": 3.0, "label": "x" * 200}))
    before = values(fake_window)
    assert not fake_window.open_scene(bad)
    assert "larger than" in fake_window.session.last_error.problem
    assert values(fake_window) == before


def test_apply_scene_rolls_back_on_a_panel_bug(fake_window):
    panels = fake_window.panels

    def broken(state):
        raise KeyError("oops")

    panels["folding"].load_state = broken
    scene = Scene(panels={"hinges": {"value": 9.0}, "folding": {"value": 1.0}})
    with pytest.raises(SceneError) as info:
        apply_scene(panels, scene)
    assert info.value.field == "panels.folding" and "KeyError" in info.value.problem
    assert panels["hinges"].value == 1.0


def test_a_scene_may_hold_some_panels(fake_window, tmp_path):
    w = fake_window
    w.panel("training").set_value(4)
    path = tmp_path / "part.relulab.json"
    path.write_text(_scene_text(hinges={"value": -1.0}))
    assert w.open_scene(path)
    assert w.panel("hinges").value == -1.0 and w.panel("training").value == 4.0


def test_save_is_atomic_and_failed_saves_keep_the_old_file(fake_window, tmp_path, monkeypatch):
    w = fake_window
    path = tmp_path / "keep.relulab.json"
    w.session.save(path)
    old = path.read_text()
    w.panel("hinges").label = object()  # cannot be stored
    assert not w.session.save(path)
    assert w.session.last_error.field == "panels.hinges.label"
    assert path.read_text() == old
    w.panel("hinges").label = "fine"

    import relulab.io.atomic as atomic

    def crash(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", crash)
    assert not w.session.save(path)
    assert "No space left" in w.session.last_error.problem
    assert path.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["keep.relulab.json"]  # no temporary left


def test_drop_a_file_on_the_window_opens_it(fake_window, tmp_path):
    w = fake_window
    path = tmp_path / "dropped.relulab.json"
    path.write_text(_scene_text(hinges={"value": 6.0}))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    w.dropEvent(event)
    assert w.panel("hinges").value == 6.0
    assert w.session.path == path


def test_open_recent(fake_window, tmp_path):
    w = fake_window
    path = tmp_path / "recent.relulab.json"
    w.panel("hinges").set_value(3)
    w.session.save(path)
    w.panel("hinges").set_value(0)
    w._fill_recent_menu()
    action = w.findChild(type(w.undo_action), "action-recent-1")
    assert action is not None and "recent.relulab.json" in action.text()
    action.trigger()
    assert w.panel("hinges").value == 3
    path.unlink()  # moved away: opening it says so and forgets it
    action.trigger()
    assert "does not exist" in w.session.last_error.problem
    assert str(path) not in settings.get("files/recent")
    w.findChild(QMessageBox, "scene-error-dialog").close()


def _recent_entries(window) -> list[str]:
    """What Open recent lists now, without opening it (a greyed menu never opens, so
    it would never fill itself)."""
    menu = window.menus["menu-recent"]
    return [a.text() for a in menu.actions() if a.objectName().startswith("action-recent-")]


def test_open_recent_lists_the_file_saved_and_is_enabled(fake_window, tmp_path, monkeypatch):
    w = fake_window
    menu = w.menus["menu-recent"]
    assert not menu.menuAction().isEnabled()  # a first launch: nothing to list yet
    first, second = tmp_path / "first.relulab.json", tmp_path / "second.relulab.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(first), ""))
    w.menu_actions["action-save-as"].trigger()  # File ▸ Save as…
    assert first.exists()
    assert menu.menuAction().isEnabled() and menu.isEnabled()
    assert len(_recent_entries(w)) == 1 and "first.relulab.json" in _recent_entries(w)[0]
    w.save_as(second)
    w.panel("hinges").set_value(4)
    w.menu_actions["action-save"].trigger()  # File ▸ Save, to the file of the last Save as
    entries = _recent_entries(w)
    assert [("second" in e, "first" in e) for e in entries] == [(True, False), (False, True)]
    assert menu.menuAction().isEnabled()


def test_drag_enter_accepts_scene_files_only(fake_window, tmp_path):
    from PySide6.QtGui import QDragEnterEvent

    for name, accepted in (("a.relulab.json", True), ("notes.txt", False)):
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(tmp_path / name))])
        event = QDragEnterEvent(QPointF(5, 5).toPoint(), Qt.DropAction.CopyAction, mime,
                                Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
        fake_window.dragEnterEvent(event)
        assert event.isAccepted() is accepted


# -- closing -------------------------------------------------------------------
def _click(box, which):
    box.button(which).click()


def test_closing_with_unsaved_changes_asks(fake_window, qtbot, tmp_path):
    w = fake_window
    w.session.confirm_close = True
    w.close()
    assert not w.isVisible()  # nothing changed: no question


@pytest.mark.parametrize("answer", ["cancel", "discard", "save"])
def test_close_prompt_answers(answer, qtbot, theme, fake_panels, data_dir, tmp_path):
    from relulab.app import build_main_window

    w = build_main_window()
    qtbot.addWidget(w)
    w.show()
    w.session.confirm_close = True
    path = tmp_path / "doc.relulab.json"
    w.session.save(path)
    w.panel("hinges").set_value(5)
    w.close()
    assert w.isVisible()
    box = w.close_prompt
    assert box is not None and "doc" in box.text()
    button = {"cancel": QMessageBox.StandardButton.Cancel,
              "discard": QMessageBox.StandardButton.Discard,
              "save": QMessageBox.StandardButton.Save}[answer]
    _click(box, button)
    if answer == "cancel":
        assert w.isVisible() and w.panel("hinges").value == 5
        w.session.confirm_close = False
        w.close()
    else:
        assert not w.isVisible()
    saved = read_scene(path).panels["hinges"]["value"]
    assert saved == (5.0 if answer == "save" else 1.0)


# -- autosave and restore ------------------------------------------------------
def test_autosave_writes_unsaved_work_and_a_clean_exit_removes_it(fake_window, data_dir):
    w = fake_window
    assert w.session.start() is None
    assert w.session._timer.isActive() and w.session._timer.interval() == 60_000
    assert w.session.autosave_now() is None  # nothing unsaved
    w.panel("hinges").set_value(8)
    path = w.session.autosave_now()
    assert path == data_dir / AUTOSAVE_NAME
    assert read_scene(path).panels["hinges"]["value"] == 8
    w.close()
    assert not path.exists()
    assert not (data_dir / "session.lock").exists()


def test_timer_autosaves(fake_window, data_dir, qtbot):
    w = fake_window
    w.session.start()
    w.session._timer.setInterval(10)
    w.panel("training").set_value(3)
    qtbot.waitUntil(lambda: (data_dir / AUTOSAVE_NAME).exists(), timeout=3000)


def test_second_window_does_not_take_the_autosave(fake_window, qtbot, data_dir):
    from relulab.app import build_main_window

    fake_window.session.start()
    other = build_main_window()
    qtbot.addWidget(other)
    assert other.session.start() is None and other.session._lock is None
    other.panel("hinges").set_value(4)
    assert other.session.autosave_now() is None
    other.close()


CRASH = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from relulab.ui.panels import PANELS, PanelSpec
    from tests.ui.fakes import fake_class
    classes = {{p.name: fake_class(p) for p in PANELS}}
    PanelSpec.load = lambda self: classes[self.name]
    from relulab.app import build_main_window
    w = build_main_window()
    w.session.start()
    w.panel("folding").set_value(42)
    w.panel("folding").label = "before the crash"
    w.show_panel("folding")
    assert w.session.autosave_now() is not None
    os._exit(3)  # a crash: no clean exit
""")


def test_restore_after_a_real_crash(qtbot, theme, fake_panels, data_dir, tmp_path):
    env = dict(os.environ, RELULAB_DATA_DIR=str(data_dir), QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", CRASH.format(root=str(ROOT))], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 3, out.stderr
    assert (data_dir / AUTOSAVE_NAME).exists()

    from relulab.app import build_main_window

    w = build_main_window()
    qtbot.addWidget(w)
    w.show()
    pending = w.session.start()
    assert pending == data_dir / RECOVERED_NAME
    assert not (data_dir / AUTOSAVE_NAME).exists()  # moved aside: this run's autosave cannot overwrite it
    assert w.panel("folding").value == 1.0
    box = w.session.offer_restore()
    assert box.objectName() == "restore-dialog"
    box.findChild(type(box.button(QMessageBox.StandardButton.NoButton) or box.buttons()[0]),
                  "restore-accept").click()
    assert w.panel("folding").value == 42 and w.panel("folding").label == "before the crash"
    assert w.current_panel().name == "folding"
    assert w.session.is_modified() and w.session.path is None
    assert not (data_dir / RECOVERED_NAME).exists()
    assert (data_dir / AUTOSAVE_NAME).exists()  # kept as this run's autosave until saved
    w.close()


def test_discarding_the_recovered_work(qtbot, theme, fake_panels, data_dir):
    from relulab.app import build_main_window

    data_dir.mkdir(parents=True)
    (data_dir / AUTOSAVE_NAME).write_text(dump_scene(Scene(panels={"hinges": {"value": 5.0}})))
    w = build_main_window()
    qtbot.addWidget(w)
    assert w.session.start() is not None
    box = w.session.offer_restore()
    next(b for b in box.buttons() if b.objectName() == "restore-discard").click()
    assert w.panel("hinges").value == 1.0
    assert not (data_dir / RECOVERED_NAME).exists()
    w.close()


def test_windows_sets_the_last_autosave_aside_once_a_reader_lets_go(qtbot, theme, fake_panels,
                                                                    data_dir, monkeypatch):
    """Windows refuses to rename a file another program is reading (a virus scanner
    checks a file the moment it is written): the app tries again before giving up the
    crashed run's work (relulab.model.core.platform.replace; Windows simulated)."""
    import errno

    from relulab.app import build_main_window
    from relulab.model.core import platform

    data_dir.mkdir(parents=True)
    (data_dir / AUTOSAVE_NAME).write_text(dump_scene(Scene(panels={"hinges": {"value": 5.0}})))
    w = build_main_window()
    qtbot.addWidget(w)
    real, tries = os.replace, []

    def scanned(src, dst):
        tries.append(dst)
        if len(tries) <= 2:
            raise PermissionError(errno.EACCES, "The process cannot access the file", str(src))
        real(src, dst)

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(platform, "REPLACE_WAIT", 0.0)
    monkeypatch.setattr(os, "replace", scanned)
    assert w.session.start() == data_dir / RECOVERED_NAME
    assert len(tries) == 3 and not (data_dir / AUTOSAVE_NAME).exists()
    monkeypatch.undo()
    w.close()


def test_a_broken_autosave_is_offered_once_then_set_aside(qtbot, theme, fake_panels, data_dir):
    """A corrupt autosave is refused cleanly, renamed aside with a note saying where,
    and not offered again at the next start."""
    from relulab.app import build_main_window
    from relulab.ui.session import REFUSED_PREFIX

    data_dir.mkdir(parents=True)
    broken = '{"format": "relulab-scene", "version": 1, "pan'
    (data_dir / AUTOSAVE_NAME).write_text(broken)
    w = build_main_window()
    qtbot.addWidget(w)
    assert w.session.start() == data_dir / RECOVERED_NAME
    box = w.session.offer_restore()
    next(b for b in box.buttons() if b.objectName() == "restore-accept").click()
    assert w.session.last_error.field == "file"
    assert w.panel("hinges").value == 1.0
    aside = w.session.refused_autosave
    assert aside is not None and aside.parent == data_dir and aside.name.startswith(REFUSED_PREFIX)
    assert aside.read_text() == broken  # kept, never deleted
    assert not (data_dir / RECOVERED_NAME).exists()
    assert str(aside) in w.session.last_error.problem
    assert "\n" not in str(w.session.last_error)
    assert w.session.offer_restore() is None  # not again in this run
    w.close()
    again = build_main_window()
    qtbot.addWidget(again)
    assert again.session.start() is None  # nor at the next start
    assert again.session.offer_restore() is None
    again.close()


def test_an_autosave_a_panel_refuses_is_set_aside_too(qtbot, theme, fake_panels, data_dir):
    from relulab.app import build_main_window

    data_dir.mkdir(parents=True)
    (data_dir / AUTOSAVE_NAME).write_text(dump_scene(Scene(panels={
        "hinges": {"value": 5.0}, "folding": {"value": "steep"}})))
    w = build_main_window()
    qtbot.addWidget(w)
    w.session.start()
    assert not w.session.restore()
    err = w.session.last_error
    assert err.field == "panels.folding" and "kept as" in err.problem
    assert w.panel("hinges").value == 1.0  # all or nothing
    assert w.session.refused_autosave.exists() and not (data_dir / RECOVERED_NAME).exists()
    w.close()


# -- settings --------------------------------------------------------------------
def test_window_settings_persist(qtbot, theme, fake_panels, data_dir):
    """What is chosen in the window (its menus, its tabs) is there at the next launch."""
    from PySide6.QtGui import QAction

    from relulab.app import build_main_window

    w = build_main_window()
    qtbot.addWidget(w)
    w.show()
    w.resize(700, 500)
    w.tabs.setCurrentIndex(2)  # a click on a tab
    w.findChild(QAction, "action-theme-dark").trigger()
    w.findChild(QAction, "action-zoom-in").trigger()
    w.findChild(QAction, "action-zoom-in").trigger()
    w.close()
    assert settings.get("view/theme") == "dark"
    assert settings.get("view/zoom") == pytest.approx(1.44)
    assert settings.get("window/last_panel") == list(w.panels)[2]
    again = build_main_window()
    qtbot.addWidget(again)
    assert again.size().width() == 700
    assert again.theme.name == "dark" and again.theme.zoom == pytest.approx(1.44)
    assert again.current_panel().name == list(w.panels)[2]
    again.close()
    theme.set_name("light")
    theme.set_zoom(1.0)


def test_settings_are_read_with_their_types(qtbot):
    from PySide6.QtCore import QSettings

    from relulab import APP_NAME, ORGANIZATION

    store = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APP_NAME)
    store.setValue("help/welcome_shown", "false")
    store.setValue("view/zoom", "1.25")
    store.setValue("view/theme", "dark")
    store.sync()
    assert settings.get("help/welcome_shown") is False
    assert settings.get("view/zoom") == 1.25
    store.setValue("view/zoom", "lots")
    store.sync()
    assert settings.get("view/zoom") == 1.0  # unreadable: the default
    store.setValue("view/theme", "neon")
    store.sync()
    assert settings.get("view/theme") == "light"  # not a theme: the default


def test_the_app_offers_to_restore_at_start(qtbot, theme, fake_panels, data_dir, monkeypatch):
    """relulab itself: confirm_close on, autosave started, the restore question asked."""
    data_dir.mkdir(parents=True)
    (data_dir / AUTOSAVE_NAME).write_text(
        dump_scene(Scene(panels={"hinges": {"value": 5.0}}, current="hinges")))
    seen = {}

    def fake_exec(*_):
        def dialog():
            for w in QApplication.topLevelWidgets():
                if w.objectName() == "main-window" and w.isVisible():
                    return w, w.findChild(QMessageBox, "restore-dialog")
            return None, None

        qtbot.waitUntil(lambda: dialog()[1] is not None, timeout=5000)
        window, box = dialog()
        next(b for b in box.buttons() if b.objectName() == "restore-accept").click()
        seen.update(value=window.panel("hinges").value, confirm=window.session.confirm_close,
                    autosaving=window.session._timer.isActive())
        window.session.confirm_close = False
        window.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    from relulab.app import main

    assert main([]) == 0
    assert seen == {"value": 5.0, "confirm": True, "autosaving": True}


def test_an_unwritable_data_folder_turns_autosave_off(fake_window, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RELULAB_DATA_DIR", str(blocker / "data"))
    assert fake_window.session.start() is None
    assert fake_window.session.autosave_now() is None
    assert "Autosave is off" in fake_window.statusBar().currentMessage()


def test_a_bad_part_leaves_every_real_panel_as_it_was(main_window, tmp_path):
    """Real panels: a valid hinges state followed by a broken playground state changes
    neither (the hinges panel is rolled back)."""
    from relulab.io.scenes import builtin_lecture_path, read_playlist

    w = main_window
    before = {n: p.state_dict() for n, p in w.panels.items()}
    good_hinges = read_playlist(builtin_lecture_path(), PANEL_NAMES).scenes[1].panels["hinges"]
    assert good_hinges != before["hinges"]  # so a missed roll-back would show
    broken = dict(before["playground"], dataset="not a dataset")
    path = tmp_path / "half-good.relulab.json"
    path.write_text(json.dumps({"format": SCENE_FORMAT, "version": 1, "current": "hinges",
                                "panels": {"hinges": good_hinges, "playground": broken}}))
    current = w.current_panel().name
    assert not w.open_scene(path)
    err = w.session.last_error
    assert err.field == "panels.playground" and "dataset" in err.problem
    assert {n: p.state_dict() for n, p in w.panels.items()} == before
    assert w.current_panel().name == current
    w.findChild(QMessageBox, "scene-error-dialog").close()


# -- all or nothing, the refusing panel included ---------------------------------
def test_the_refusing_panel_itself_is_restored(fake_window, tmp_path):
    """A panel that changes part of its state and then refuses is put back too, not
    only the panels loaded before it."""
    w = fake_window
    w.panel("folding").set_value(3.0)
    before = {n: p.state_dict() for n, p in w.panels.items()}
    folding = w.panel("folding")
    original = folding.load_state

    def half_then_refuse(state):
        if state.get("value") != 5.0:  # the snapshot put back
            return original(state)
        folding.set_value(99.0)  # changed on screen ...
        folding.label = "half-loaded"
        raise ValueError("fold: weights out of range")  # ... then refused

    folding.load_state = half_then_refuse
    path = tmp_path / "half.relulab.json"
    path.write_text(_scene_text(hinges={"value": 7.0}, folding={"value": 5.0},
                                playground={"value": 2.0}))
    try:
        assert not w.open_scene(path)
    finally:
        folding.load_state = original
    assert {n: p.state_dict() for n, p in w.panels.items()} == before
    assert w.session.last_error.field == "panels.folding"
    w.findChild(QMessageBox, "scene-error-dialog").close()


def test_a_real_panel_that_refuses_after_changing_is_restored(main_window, tmp_path):
    from relulab.io.scenes import builtin_lecture_path, read_playlist

    w = main_window
    before = {n: p.state_dict() for n, p in w.panels.items()}
    lecture = read_playlist(builtin_lecture_path(), PANEL_NAMES).scenes
    other = next(s.panels["folding"] for s in lecture if "folding" in s.panels
                 and s.panels["folding"] != before["folding"])
    folding = w.panel("folding")
    original = folding.load_state

    def load_then_refuse(state):
        original(state)  # the whole state is on screen ...
        if state == other:
            raise ValueError("depth: refused after the fact")  # ... and then refused

    folding.load_state = load_then_refuse
    path = tmp_path / "late.relulab.json"
    path.write_text(json.dumps({"format": SCENE_FORMAT, "version": 1,
                                "panels": {"folding": other}}))
    try:
        assert not w.open_scene(path)
    finally:
        folding.load_state = original
    assert {n: p.state_dict() for n, p in w.panels.items()} == before
    w.findChild(QMessageBox, "scene-error-dialog").close()


def test_opening_is_the_edge_where_any_exception_becomes_one_line(fake_window, tmp_path,
                                                                   monkeypatch, caplog):
    w = fake_window
    before = values(w)
    path = tmp_path / "odd\nname.relulab.json"
    path.write_text(_scene_text(hinges={"value": 3.0}))

    def bug(self, p):
        raise TypeError("a bug\nwith two lines")

    monkeypatch.setattr(type(w.session), "read", bug)
    assert not w.open_scene(path)
    err = w.session.last_error
    assert err.field == "file" and "TypeError: a bug with two lines" in err.problem
    assert values(w) == before
    status = w.statusBar().currentMessage()
    assert "\n" not in status and "odd name.relulab.json" in status
    assert "a bug" in caplog.text  # the traceback is logged for whoever debugs it
    w.findChild(QMessageBox, "scene-error-dialog").close()


def test_a_bad_scene_during_a_lecture_leaves_the_lecture_running(fake_window, tmp_path):
    from relulab.io.scenes import Playlist

    w = fake_window
    w.panel("hinges").set_value(2.0)
    lecture = Playlist(scenes=[Scene(panels={"hinges": {"value": 4.0}}, current="hinges")])
    assert w.lecture.start(lecture)
    bad = tmp_path / "bad.relulab.json"
    bad.write_text(_scene_text(hinges={"value": 9.0}, folding={"value": "steep"}))
    assert not w.open_scene(bad)
    assert w.lecture.running and w.panel("hinges").value == 4.0
    good = tmp_path / "good.relulab.json"
    good.write_text(_scene_text(folding={"value": 6.0}))
    assert w.open_scene(good)
    assert not w.lecture.running
    assert w.panel("hinges").value == 2.0 and w.panel("folding").value == 6.0
    for box in w.findChildren(QMessageBox, "scene-error-dialog"):
        box.close()


# -- saves that respect the user's file ----------------------------------------------
@pytest.mark.skipif(os.name != "posix", reason="links and modes of POSIX")
def test_saving_respects_links_permissions_and_read_only_files(fake_window, tmp_path):
    w = fake_window
    real = tmp_path / "shared" / "talk.relulab.json"
    real.parent.mkdir()
    real.write_text(_scene_text(hinges={"value": 3.0}))
    os.chmod(real, 0o644)
    link = tmp_path / "talk.relulab.json"
    link.symlink_to(real)
    assert w.open_scene(link)
    w.panel("hinges").set_value(8)
    assert w.save()
    assert link.is_symlink() and read_scene(real).panels["hinges"]["value"] == 8
    assert os.stat(real).st_mode & 0o777 == 0o644
    os.chmod(real, 0o444)
    w.panel("hinges").set_value(9)
    assert not w.save()
    err = w.session.last_error
    assert err.field == "file" and "read-only" in err.problem and "\n" not in str(err)
    assert read_scene(real).panels["hinges"]["value"] == 8  # not replaced
    assert w.session.is_modified()  # the work is still unsaved, and still on screen
    w.findChild(QMessageBox, "scene-error-dialog").close()
