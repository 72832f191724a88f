"""Help inside the app: the first launch's welcome, the guides (F1), the shortcuts list
(generated from what makes the shortcuts), File ▸ New and Reset this panel."""

from __future__ import annotations

import re
import sys

import pytest
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QMessageBox

from relulab.ui.help import guide_markdown, shortcut_rows
from relulab.ui.panels import PANELS

#: What each guide must say: the notebooks' numbers and the formula that matters.
GUIDE_FACTS = {
    "hinges": ["0.1022", "Σ cᵢ·ReLU(x − kᵢ)", "(b − a)²M/(8n²)", "0.0254"],
    "training": ["0.025", "0.033", "0.160", "L = (1/N) Σ"],
    "folding": ["2ᵏ", "2ᵏ − 1", "16,777,216"],
    "converter": ["N or N + 1", "max{2n + k, 2n + p, 2pm}"],
    "playground": ["177", "2-8-8-8-1", "φ(W·x + b)", "2000 steps"],
    "questions": ["φ(x) = ReLU(W x + b)/√H", "H = n", "**0.20**", "10 of 10"],
}


def _action(window, name) -> QAction:
    return window.findChild(QAction, name)


@pytest.mark.parametrize("name", [p.name for p in PANELS])
def test_every_panel_has_a_short_guide_with_the_seeds_numbers(name):
    text = guide_markdown(name)
    for heading in ("**What you see.**", "**Try this.**", "**Numbers to look for.**"):
        assert heading in text, (name, heading)
    assert "**The one formula.**" in text or "**The one idea.**" in text
    tries = text.split("**Try this.**")[1].split("**Numbers")[0]
    assert len(re.findall(r"^\d\. ", tries, flags=re.M)) == 3, name
    for fact in GUIDE_FACTS[name]:
        assert fact in text, (name, fact)
    assert len(text.split()) < 450, f"{name}: the guide is short ({len(text.split())} words)"


def test_f1_opens_the_guide_to_the_panel_on_screen_and_it_follows(main_window, qtbot, theme):
    w = main_window
    w.show_panel("training")
    _action(w, "action-guide").trigger()
    guide = w.guide
    assert guide.isVisible() and guide.panel_name == "training"
    assert "0.033" in guide.text.toPlainText()
    assert _action(w, "action-guide").shortcut() == QKeySequence(QKeySequence.StandardKey.HelpContents)
    w.show_panel("playground")
    assert guide.panel_name == "playground" and "177" in guide.text.toPlainText()
    theme.set_zoom(1.6)  # the guide's text grows with everything else
    QApplication.processEvents()
    assert guide.text.font().pointSizeF() == pytest.approx(theme.point_size(), rel=0.05)
    guide.close()


def test_the_guide_fits_a_small_screen(main_window, theme):
    theme.set_zoom(2.0)
    guide = main_window.show_guide("hinges")
    available = main_window.screen().availableGeometry()
    assert guide.width() <= available.width() and guide.height() <= available.height()
    guide.close()


def test_the_welcome_comes_once_at_the_first_launch(qtbot, theme, monkeypatch, data_dir):
    """relulab the first time: the welcome; the second time: not; Help ▸ Welcome: again."""
    seen = []

    def fake_exec(*_):
        window = next(w for w in QApplication.topLevelWidgets()
                      if w.objectName() == "main-window" and w.isVisible())
        qtbot.wait(50)  # the welcome is asked for once the event loop runs
        from relulab.ui.help import WelcomeDialog

        welcome = window.findChild(WelcomeDialog, "welcome-dialog")
        seen.append(welcome is not None and welcome.isVisible())
        if welcome is not None:
            welcome.start_button.click()
            assert window.current_panel().name == "hinges"
        window.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    from relulab.app import main

    assert main([]) == 0
    assert main([]) == 0
    assert seen == [True, False]


def test_help_welcome_shows_it_again_and_its_buttons_work(main_window, qtbot):
    w = main_window
    _action(w, "action-welcome").trigger()
    from relulab.ui.help import WelcomeDialog

    welcome = w.findChild(WelcomeDialog, "welcome-dialog")
    assert welcome.isVisible() and "Start with Hinges" in welcome.text.toPlainText()
    w.show_panel("folding")
    welcome.guide_button.click()
    assert w.current_panel().name == "hinges" and w.guide.isVisible()
    w.guide.close()


def test_the_shortcuts_list_has_every_key_of_the_window_and_the_panels(main_window):
    """Generated from the actions and the panels' KEYS: every action's shortcut is in it,
    and every shortcut a panel makes is one it declares (so none is left out)."""
    w = main_window
    rows = shortcut_rows(w)
    listed = {(keys, what) for _where, keys, what in rows}
    listed_keys = " / ".join(keys for keys, _what in listed).split(" / ")
    for action in w.findChildren(QAction):
        for sequence in action.shortcuts():
            if action.objectName().startswith("action-"):
                text = sequence.toString(QKeySequence.SequenceFormat.NativeText)
                assert text in listed_keys, (action.objectName(), text)
    for name in w.panels:
        panel = w.panel(name)
        portable = QKeySequence.SequenceFormat.PortableText
        declared = {(QKeySequence(k.keys).toString(portable), k.what) for k in panel.KEYS}
        for shortcut in panel.findChildren(QShortcut):
            key = (shortcut.key().toString(portable), shortcut.whatsThis())
            assert key in declared, f"{name}: a shortcut made outside KEYS: {key}"
        assert len(panel.findChildren(QShortcut)) == len(panel.KEYS)
    where = {r[0] for r in rows}
    assert {"File", "Edit", "View", "Lecture", "Help"} <= where
    assert {p.title for p in PANELS} <= where
    dialog = w.show_shortcuts()
    html = dialog.text.toPlainText()
    assert "play or pause training" in html and "Ctrl+/" in html and "F1" in html
    dialog.close()


def test_the_shortcuts_list_has_the_presenters_keys(main_window):
    """B (black out), a held P (pointer) and F5 (present) are listed, from the same
    declarations the keys are watched with."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QKeyEvent

    from relulab.ui.lecture.presenter import TOOL_KEYS

    w = main_window
    rows = {(keys, what): where for where, keys, what in shortcut_rows(w)}
    tools = "Lecture (in the lecture layout or the presenter view)"
    assert rows[("B", "black out the audience's screen (again: back)")] == tools
    assert rows[("P", "held: a pointer dot follows the mouse")] == tools
    assert rows[("F5", "Present with the presenter view")] == "Lecture"
    assert rows[("PgDown / Right / Down / Space", "next scene")] == "Presenter view"
    for key in TOOL_KEYS:  # the keys listed are the keys watched
        event = QKeyEvent(QKeyEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier)
        assert w.lecture.presenting.is_tool_key(event)
    dialog = w.show_shortcuts()
    html = dialog.text.toPlainText()
    assert "black out the audience's screen" in html and "pointer dot" in html
    dialog.close()


def test_the_panel_keys_do_what_the_list_says(main_window, qtbot):
    """A key from the list, pressed in its panel, does it: ] deepens the fold."""
    w = main_window
    panel = w.show_panel("folding")
    depth = panel.state.depth
    panel.depth_slider.setFocus()
    qtbot.keyClick(panel.depth_slider, "]")
    assert panel.state.depth == depth + 1


# -- starting again -----------------------------------------------------------------------
def test_file_new_puts_every_panel_back_and_asks_about_unsaved_work(main_window, qtbot):
    w = main_window
    w.session.confirm_close = True
    folding = w.show_panel("folding")
    folding.set_depth(9)
    hinges = w.show_panel("hinges")
    hinges.set_count(3)
    assert w.session.is_modified()
    assert not _action(w, "action-new").trigger() and w.close_prompt is not None
    w.close_prompt.button(QMessageBox.StandardButton.Cancel).click()
    assert folding.state.depth == 9  # cancelled: nothing changed
    _action(w, "action-new").trigger()
    w.close_prompt.button(QMessageBox.StandardButton.Discard).click()
    assert folding.state == type(folding.state)() and hinges.state == type(hinges.state)()
    assert not w.session.is_modified() and w.session.path is None
    assert not hinges.undo_stack.canUndo()
    assert w.new_document()  # nothing unsaved: at once, no question
    w.session.confirm_close = False


def test_reset_this_panel_is_one_undoable_step(main_window):
    w = main_window
    panel = w.show_panel("folding")
    other = w.panel("hinges")
    other.set_count(3)
    panel.set_depth(7)
    _action(w, "action-reset-panel").trigger()
    assert panel.state == type(panel.state)()
    assert len(other.state.kinks) == 3  # the other panels keep their work
    w.undo_action.trigger()
    assert panel.state.depth == 7
