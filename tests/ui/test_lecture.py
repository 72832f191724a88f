"""Lectures: playlist stepping with keys, captions, lecture layout, zoom and themes."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from relulab.io.scenes import Playlist, Scene, builtin_lecture_path, read_playlist
from relulab.ui.panels import PANEL_NAMES


def playlist() -> Playlist:
    return Playlist(title="Test talk", scenes=[
        Scene(panels={"hinges": {"value": 10.0}}, current="hinges", title="One",
              caption="The first scene."),
        Scene(panels={"hinges": {"value": 20.0}, "folding": {"value": 2.0}}, current="folding",
              title="Two", caption="The second scene."),
        Scene(panels={"training": {"value": 30.0}}, current="training", title="Three"),
    ])


def press(widget, key):
    QTest.keyClick(widget, key, Qt.KeyboardModifier.NoModifier)
    QApplication.processEvents()


@pytest.fixture
def lecture_window(fake_window, qtbot):
    w = fake_window
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=3000)
    w.panel("hinges").set_value(-1)  # the work from before the lecture
    assert w.lecture.start(playlist())
    return w


def test_start_shows_the_first_scene_and_its_caption(lecture_window):
    w = lecture_window
    bar = w.lecture.bar
    assert bar.isVisible()
    assert w.findChild(QWidget, "lecture-caption").text() == "The first scene."
    assert w.findChild(QWidget, "lecture-title").text() == "One"
    assert w.findChild(QWidget, "lecture-position").text() == "1 / 3"
    assert w.panel("hinges").value == 10 and w.current_panel().name == "hinges"
    assert w.lecture_layout
    assert not w.panel("hinges").findChild(QWidget, "hinges-controls").isVisible()
    assert "Test talk" in w.windowTitle()


def test_page_down_and_page_up_step_the_playlist(lecture_window, qtbot):
    w = lecture_window
    press(w, Qt.Key.Key_PageDown)
    assert w.lecture.index == 1
    assert w.current_panel().name == "folding" and w.panel("folding").value == 2.0
    assert w.lecture.bar.caption.text() == "The second scene."
    press(w, Qt.Key.Key_PageDown)
    assert w.lecture.index == 2 and not w.lecture.bar.caption.isVisible()  # no caption
    press(w, Qt.Key.Key_PageDown)
    assert w.lecture.index == 2  # stays on the last scene
    press(w, Qt.Key.Key_PageUp)
    press(w, Qt.Key.Key_PageUp)
    assert w.lecture.index == 0 and w.panel("hinges").value == 10


def test_arrow_keys_step_when_the_focus_does_not_use_them(lecture_window, qtbot):
    w = lecture_window
    plot = w.panel("hinges").plot
    plot.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is plot)
    press(plot, Qt.Key.Key_Right)
    assert w.lecture.index == 1
    press(w.current_panel().plot, Qt.Key.Key_Left)
    assert w.lecture.index == 0
    press(w.current_panel().plot, Qt.Key.Key_End)
    assert w.lecture.index == 2
    press(w.current_panel().plot, Qt.Key.Key_Home)
    assert w.lecture.index == 0
    press(w.current_panel().plot, Qt.Key.Key_Down)
    assert w.lecture.index == 1
    press(w.current_panel().plot, Qt.Key.Key_Up)
    assert w.lecture.index == 0


def test_arrow_keys_stay_with_an_editing_control(lecture_window, qtbot):
    w = lecture_window
    w.set_lecture_layout(False)  # controls shown: the presenter edits
    spin = w.panel("hinges").spin
    spin.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None
                    and (QApplication.focusWidget() is spin or spin.isAncestorOf(QApplication.focusWidget())))
    press(QApplication.focusWidget(), Qt.Key.Key_Up)
    assert w.lecture.index == 0
    assert spin.value() == 11 and w.panel("hinges").value == 11  # the spin box took the arrow
    press(QApplication.focusWidget(), Qt.Key.Key_Right)
    assert w.lecture.index == 0
    press(w, Qt.Key.Key_PageDown)  # the clicker still steps
    assert w.lecture.index == 1


def test_arrows_do_nothing_without_a_lecture(fake_window, qtbot):
    w = fake_window
    press(w, Qt.Key.Key_Right)
    assert not w.lecture.running
    assert not w.findChild(type(w.undo_action), "action-lecture-next").isEnabled()


def test_end_puts_back_the_work_from_before(lecture_window):
    w = lecture_window
    press(w, Qt.Key.Key_PageDown)
    w.findChild(QWidget, "lecture-end").click()
    assert not w.lecture.running and not w.lecture.bar.isVisible()
    assert w.panel("hinges").value == -1 and w.panel("folding").value == 1.0
    assert not w.lecture_layout
    assert w.panel("hinges").findChild(QWidget, "hinges-controls").isVisibleTo(w)
    assert w.session.is_modified()  # the unsaved work is still unsaved


def test_buttons_step_too(lecture_window):
    w = lecture_window
    w.findChild(QWidget, "lecture-next").click()
    assert w.lecture.index == 1
    w.findChild(QWidget, "lecture-previous").click()
    assert w.lecture.index == 0
    assert not w.findChild(QWidget, "lecture-previous").isEnabled()


def test_a_scene_that_fails_is_reported_and_the_lecture_stays(lecture_window):
    w = lecture_window
    w.lecture.playlist.scenes[1] = Scene(panels={"hinges": {"value": "steep"}}, current="hinges")
    assert not w.lecture.next()
    assert w.lecture.index == 0 and w.panel("hinges").value == 10
    assert w.session.last_error.field == "panels.hinges"
    box = w.findChild(QMessageBox, "scene-error-dialog")
    assert box is not None
    box.close()


def test_opening_a_playlist_file_starts_the_lecture(fake_window, tmp_path):
    import json

    (tmp_path / "talk.json").write_text(json.dumps({
        "format": "relulab-playlist", "version": 1, "title": "From a file",
        "scenes": [{"format": "relulab-scene", "version": 1, "current": "folding",
                    "panels": {"folding": {"value": 5.0}}, "caption": "Hello."}]}))
    assert fake_window.open_scene(tmp_path / "talk.json")
    assert fake_window.lecture.running and fake_window.panel("folding").value == 5.0
    assert fake_window.lecture.bar.caption.text() == "Hello."


def test_closing_during_a_lecture_asks_about_the_work_from_before(lecture_window, tmp_path):
    w = lecture_window
    w.session.confirm_close = True
    w.close()
    assert not w.lecture.running
    assert w.close_prompt is not None  # the pre-lecture work was unsaved
    w.close_prompt.button(QMessageBox.StandardButton.Discard).click()
    assert not w.isVisible()


def test_builtin_lecture_steps_through_every_scene(qtbot, theme, data_dir):
    """The shipped lecture loads on the real panels, scene after scene."""
    from relulab.app import build_main_window

    w = build_main_window()
    qtbot.addWidget(w)
    w.show()
    before = {n: p.state_dict() for n, p in w.panels.items()}
    assert w.lecture.start_builtin(), w.session.last_error
    n = len(w.lecture.playlist.scenes)
    assert n >= 9
    for i in range(1, n):
        assert w.lecture.next(), w.session.last_error
        scene = w.lecture.scene
        assert w.lecture.index == i and w.current_panel().name == scene.current
        assert w.lecture.bar.caption.text() == scene.caption
        for name, state in scene.panels.items():
            assert w.panel(name).state_dict() == state
    w.lecture.end()
    assert {n: p.state_dict() for n, p in w.panels.items()} == before
    w.close()


def test_builtin_lecture_follows_the_seeds():
    playlist = read_playlist(builtin_lecture_path(), PANEL_NAMES)
    text = " ".join(s.caption for s in playlist.scenes)
    for words in ("hinged ruler", "least squares", "six random starts", "256 pieces",
                  "W₂W₁", "(b − a)²M/(8n²)", "2ᵏ − 1", "2-6-1"):
        assert words in text or words in " ".join(s.title for s in playlist.scenes), words
    panels = [s.current for s in playlist.scenes]
    assert panels[:5] == ["hinges", "hinges", "hinges", "training", "folding"]


# -- lecture mode: zoom and themes -----------------------------------------------
def test_zoom_scales_fonts_pens_and_handles_together(fake_window, theme):
    w = fake_window
    panel = w.panel("hinges")
    font0 = QApplication.font().pointSizeF()
    pen0 = panel.curve.opts["pen"].widthF()
    handle0, caption0 = theme.handle_size(), w.lecture.bar.caption.font().pointSizeF()
    w.findChild(type(w.undo_action), "action-zoom-in").trigger()
    w.findChild(type(w.undo_action), "action-zoom-in").trigger()
    z = theme.zoom
    assert z == pytest.approx(1.44)
    assert QApplication.font().pointSizeF() == pytest.approx(font0 * z, rel=0.05)
    assert panel.curve.opts["pen"].widthF() == pytest.approx(pen0 * z)
    assert theme.handle_size() == pytest.approx(handle0 * z)
    assert theme.pen("target", 2).widthF() == pytest.approx(2 * z)
    assert w.lecture.bar.caption.font().pointSizeF() == pytest.approx(caption0 * z, rel=0.05)
    axis = panel.plot.getPlotItem().getAxis("bottom")
    assert axis.style["tickFont"].pointSizeF() == pytest.approx(theme.point_size(9))
    w.findChild(type(w.undo_action), "action-zoom-reset").trigger()
    assert panel.curve.opts["pen"].widthF() == pytest.approx(pen0)


@pytest.mark.parametrize(("name", "background"), [("dark", "#1e1e1e"), ("high-contrast", "#000000"),
                                              ("light", "#ffffff")])
def test_themes_switch_without_restart(fake_window, theme, name, background):
    w = fake_window
    if name == "light":
        theme.set_name("dark")
    w.findChild(type(w.undo_action), f"action-theme-{name}").trigger()
    assert theme.name == name
    plot = w.panel("hinges").plot
    assert plot.backgroundBrush().color().name() == background
    expected_window = "#ffffff" if name == "light" else background
    if name != "light":
        assert QApplication.palette().window().color().name() == expected_window
    assert w.panel("hinges").curve.opts["pen"].color().name() == theme.series_color(0).name()
    theme.set_name("light")


def test_series_differ_by_line_style_not_only_colour(theme):
    styles = {theme.series_pen(i).style() for i in range(5)}
    assert len(styles) == 5


def test_autosave_during_a_lecture_keeps_the_work_from_before(fake_window, data_dir):
    from relulab.io.scenes import read_scene
    from relulab.ui.session import AUTOSAVE_NAME

    w = fake_window
    w.session.start()
    w.panel("hinges").set_value(-3)  # unsaved work
    assert w.lecture.start(playlist())
    path = data_dir / AUTOSAVE_NAME
    assert read_scene(path).panels["hinges"]["value"] == -3  # written as the lecture began
    w.lecture.next()
    w.session.autosave_now()
    assert read_scene(path).panels["hinges"]["value"] == -3  # not replaced by a lecture scene
    w.lecture.end()
    assert w.panel("hinges").value == -3


def test_in_the_lecture_layout_arrows_beat_panel_shortcuts(lecture_window, qtbot):
    """A panel shortcut on Right (training steps with it) does not keep the presenter
    from stepping the lecture; with the controls shown the panel gets it back."""
    from PySide6.QtGui import QKeySequence, QShortcut

    w = lecture_window
    fired = []
    for panel in w.panels.values():
        sc = QShortcut(QKeySequence(Qt.Key.Key_Right), panel)
        sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sc.activated.connect(lambda n=panel.name: fired.append(n))
    qtbot.waitUntil(lambda: (QApplication.focusWidget() is not None
                    and w.current_panel().isAncestorOf(QApplication.focusWidget()))
                    or QApplication.focusWidget() is w.current_panel())
    press(QApplication.focusWidget(), Qt.Key.Key_Right)
    assert w.lecture.index == 1 and fired == []
    # the new scene's panel has the keys (its main plot has the focus)
    assert w.panel("folding").isAncestorOf(QApplication.focusWidget())
    w.set_lecture_layout(False)
    press(QApplication.focusWidget(), Qt.Key.Key_Right)
    assert fired == ["folding"] and w.lecture.index == 1
    w.set_lecture_layout(True)
    press(QApplication.focusWidget(), Qt.Key.Key_Right)
    assert w.lecture.index == 2 and fired == ["folding"]


def test_the_key_filter_is_installed_only_while_presenting(lecture_window):
    w = lecture_window
    assert w.lecture._filtering
    w.set_lecture_layout(False)
    assert not w.lecture._filtering
    w.set_lecture_layout(True)
    w.lecture.end()
    assert not w.lecture._filtering


def test_the_caption_can_be_hidden_for_the_plots(lecture_window):
    w = lecture_window
    assert w.lecture.bar.caption.isVisible()
    w.findChild(type(w.undo_action), "action-lecture-caption").trigger()
    assert not w.lecture.bar.caption.isVisible()
    w.lecture.next()  # stays hidden on the next scene
    assert not w.lecture.bar.caption.isVisible()
    assert w.lecture.bar.caption.text() == "The second scene."
    w.findChild(QWidget, "lecture-caption-toggle").click()
    assert w.lecture.bar.caption.isVisible()


def test_opening_a_scene_during_a_lecture_ends_it_first(lecture_window, tmp_path):
    import json

    w = lecture_window
    path = tmp_path / "other.relulab.json"
    path.write_text(json.dumps({"format": "relulab-scene", "version": 1,
                                "panels": {"training": {"value": 7.0}}}))
    assert w.open_scene(path)
    assert not w.lecture.running
    assert w.panel("training").value == 7.0
    assert w.panel("hinges").value == -1  # the work from before the lecture, not scene 1
    assert w.session.path == path


def test_save_during_a_lecture_never_overwrites_the_users_file(fake_window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from relulab.io.scenes import read_scene

    w = fake_window
    mine = tmp_path / "mine.relulab.json"
    w.panel("hinges").set_value(4)
    w.session.save(mine)
    assert w.lecture.start(playlist())
    assert w.session.path is None
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "slide.relulab.json"), "")))
    assert w.save()  # asks for a new name
    assert read_scene(mine).panels["hinges"]["value"] == 4
    assert read_scene(tmp_path / "slide.relulab.json").panels["hinges"]["value"] == 10
    w.lecture.end()
    assert w.session.path == mine and w.panel("hinges").value == 4


def test_zoom_reaches_every_real_plot(main_window, theme):
    """Projector zoom: every panel's plots restyle (tick fonts grow with the zoom)."""
    import pyqtgraph as pg

    def tick_sizes():
        sizes = {}
        for name, panel in main_window.panels.items():
            for plot_name, plot in panel.plots().items():
                if isinstance(plot, pg.PlotWidget):
                    font = plot.getPlotItem().getAxis("bottom").style.get("tickFont")
                    if font is not None:
                        sizes[(name, plot_name)] = font.pointSizeF()
        return sizes

    before = tick_sizes()
    theme.set_zoom(1.5)
    after = tick_sizes()
    theme.set_zoom(1.0)
    for key, size in before.items():
        assert after[key] == pytest.approx(size * 1.5, rel=0.1), key


def test_theme_switch_reaches_every_real_plot(main_window, theme):
    import pyqtgraph as pg

    plots = [plot for panel in main_window.panels.values() for plot in panel.plots().values()
             if isinstance(plot, pg.PlotWidget)]
    theme.set_name("high-contrast")
    try:
        for plot in plots:
            assert plot.backgroundBrush().color().name() == "#000000", plot.objectName()
    finally:
        theme.set_name("light")
    for plot in plots:
        assert plot.backgroundBrush().color().name() == "#ffffff", plot.objectName()


def test_every_training_scene_can_be_watched():
    """Each scene that trains sets a speed its caption needs: scene 4 ("watch where the
    kinks gather") takes at least ten seconds for its 20 000 steps, never "as fast as
    possible"; the Playground's scenes train at a speed too."""
    from relulab.model.fitting.training import SPEEDS

    playlist = read_playlist(builtin_lecture_path(), PANEL_NAMES)
    trained = 0
    for scene in playlist.scenes:
        training = scene.panels.get("training")
        if training is not None:
            speed = SPEEDS[training["speed"]]
            assert speed is not None and training["steps"] / speed >= 10, scene.title
            trained += 1
        playground = scene.panels.get("playground")
        if playground is not None:
            assert SPEEDS[playground["training"]["speed"]] is not None, scene.title
    assert trained >= 1


def test_captions_speak_of_test_points_only_where_there_are_some():
    playlist = read_playlist(builtin_lecture_path(), PANEL_NAMES)
    for scene in playlist.scenes:
        playground = scene.panels.get("playground")
        if playground is None or playground["dataset"]["test_fraction"] > 0:
            continue
        caption = scene.caption.lower()
        for words in ("new data", "test points", "test accuracy", "held out"):
            assert words not in caption, (scene.title, words)


def test_the_panels_train_at_a_speed_one_can_watch_by_default():
    """Training: 20 000 steps take 20 s, not one; the Playground's circles (learnt in
    about 100 steps) take a second or more. "As fast as possible" stays a choice."""
    from relulab.model.fitting.training import SPEEDS
    from relulab.model.lessons.playground import PlaygroundState
    from relulab.model.lessons.training import TrainingState

    state = TrainingState()
    assert SPEEDS[state.speed] is not None and state.steps / SPEEDS[state.speed] >= 10
    assert SPEEDS[PlaygroundState().training.speed] <= 100
    assert SPEEDS["as fast as possible"] is None
