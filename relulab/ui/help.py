"""Help inside the app: the welcome at the first launch, a guide to each panel (F1) and
the list of every keyboard shortcut.

The guides are Markdown files shipped with the package (``relulab/resources/guides``):
what the plots show, the one formula that matters, three things to try and the
notebooks' numbers to look for. They are shown in the application's font, so they grow
with the zoom like everything else. The shortcuts are read from the window's actions,
the panels' ``KEYS`` tables and the lecture's keys, the same objects that make the
shortcuts: the list cannot drift from what the keys do.
"""

from __future__ import annotations

from importlib.resources import files

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMenu,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

import relulab
from relulab.ui.panels import PANELS, spec

#: The dialogs' size at zoom 1 (they stay inside the available screen).
GUIDE_SIZE = (600, 640)


def guide_markdown(name: str) -> str:
    """The Markdown of the guide ``name`` (a panel's name, or ``"welcome"``)."""
    return (files(relulab) / "resources" / "guides" / f"{name}.md").read_text(encoding="utf-8")


def _keys_text(sequences) -> str:
    """The keys as shown on a keyboard, one of each ("Backtab" is Shift+Tab)."""
    shown = []
    for s in sequences:
        text = QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText)
        text = text.replace("Shift+Backtab", "Shift+Tab").replace("Backtab", "Shift+Tab")
        if text not in shown:
            shown.append(text)
    return " / ".join(shown)


def _menu_rows(menu: QMenu, path: str) -> list[tuple[str, str, str]]:
    rows = []
    for action in menu.actions():
        if action.menu() is not None:
            rows += _menu_rows(action.menu(), f"{path} ▸ {action.menu().title().replace('&', '')}")
        elif action.shortcuts() and action.objectName().startswith("action-"):
            rows.append((path, _keys_text(action.shortcuts()), action.text().replace("&", "")))
    return rows


def shortcut_rows(window) -> list[tuple[str, str, str]]:
    """(where, keys, what) for every keyboard shortcut: the menus' actions in menu
    order, the lecture's keys (stepping, the presenter's tools B and a held P, the
    presenter view's), then each panel's (keys that do the same thing on one row)."""
    from relulab.ui.lecture import LectureController
    from relulab.ui.lecture.presenter import TOOL_KEYS, Presenting

    rows = []
    for action in window.menuBar().actions():
        if action.menu() is not None:
            rows += _menu_rows(action.menu(), action.menu().title().replace("&", ""))
    steps: dict[str, list] = {}
    for key, step in LectureController.STEP_KEYS.items():
        steps.setdefault(step, []).append(key)
    words = {"next": "next scene", "previous": "previous scene", "first": "first scene",
             "last": "last scene"}
    for step, keys in steps.items():
        rows.append(("Lecture (in the lecture layout)", _keys_text(keys), words[step]))
    for key, what in TOOL_KEYS.items():
        rows.append(("Lecture (in the lecture layout or the presenter view)", _keys_text([key]),
                     what))
    steps = {}
    for key, step in Presenting.STEPS.items():
        steps.setdefault(step, []).append(key)
    for step, keys in steps.items():
        rows.append(("Presenter view", _keys_text(keys), words[step]))
    for p in PANELS:
        grouped: dict[str, list[str]] = {}
        for key in spec(p.name).load().KEYS:
            grouped.setdefault(key.what, []).append(key.keys)
        for what, keys in grouped.items():
            rows.append((p.title, _keys_text(keys), what))
    first = {}
    for section, _keys, _what in rows:
        first.setdefault(section, len(first))
    return sorted(rows, key=lambda row: first[row[0]])  # a submenu's rows after its menu's


def shortcuts_html(window) -> str:
    parts = ["<h2>Keyboard shortcuts</h2>",
             "<p>A panel's keys work while the focus is in that panel (Hinges' keys: on its "
             "plot, after a click on it).</p>"]
    where = None
    for section, keys, what in shortcut_rows(window):
        if section != where:
            if where is not None:
                parts.append("</table>")
            parts.append(f"<h3>{section}</h3><table cellspacing='0' cellpadding='3'>")
            where = section
        parts.append(f"<tr><td><b>{keys}</b>&nbsp;&nbsp;</td><td>{what}</td></tr>")
    parts.append("</table>")
    return "".join(parts)


def _fit(dialog: QWidget, parent: QWidget | None, zoom: float) -> None:
    """GUIDE_SIZE grown with the zoom (slower: the text grows already), inside the screen."""
    w, h = (int(v * zoom ** 0.5) for v in GUIDE_SIZE)
    screen = (parent.screen() if parent is not None else dialog.screen()).availableGeometry()
    dialog.resize(min(w, screen.width() - 40), min(h, screen.height() - 60))


def _browser(name: str) -> QTextBrowser:
    text = QTextBrowser()
    text.setObjectName(name)
    text.setOpenExternalLinks(True)
    return text


class GuideWindow(QDialog):
    """The guide to one panel, beside the window (not modal: the panel stays usable).
    ``show_guide(name)`` shows a panel's guide; the main window makes it follow the
    panel on screen."""

    def __init__(self, parent=None, zoom: float = 1.0):
        super().__init__(parent)
        self.setObjectName("guide-window")
        self.setAccessibleName("Guide")
        self.setModal(False)
        self.text = _browser("guide-text")
        self.text.setAccessibleName("Guide text")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.panel_name: str | None = None
        _fit(self, parent, zoom)

    def show_guide(self, name: str) -> None:
        self.panel_name = name
        title = "Welcome" if name == "welcome" else spec(name).title
        self.setWindowTitle(f"Guide: {title} — {relulab.APP_NAME}")
        self.text.setMarkdown(guide_markdown(name))


class WelcomeDialog(QDialog):
    """The first launch's welcome: where to start and what to try. Its buttons start
    with Hinges, open the guide or start the lecture."""

    def __init__(self, window, zoom: float = 1.0):
        super().__init__(window)
        self.setObjectName("welcome-dialog")
        self.setAccessibleName("Welcome")
        self.setWindowTitle(f"Welcome to {relulab.APP_NAME}")
        self.text = _browser("welcome-text")
        self.text.setAccessibleName("Welcome text")
        self.text.setMarkdown(guide_markdown("welcome"))
        buttons = QDialogButtonBox()
        self.start_button = self._button(buttons, "Start with Hinges", "welcome-start",
                                         QDialogButtonBox.ButtonRole.AcceptRole)
        self.guide_button = self._button(buttons, "Open the guide (F1)", "welcome-guide",
                                         QDialogButtonBox.ButtonRole.ActionRole)
        self.lecture_button = self._button(buttons, "Start the lecture", "welcome-lecture",
                                           QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = self._button(buttons, "Close", "welcome-close",
                                         QDialogButtonBox.ButtonRole.RejectRole)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(lambda: (window.show_panel("hinges"), self.accept()))
        self.guide_button.clicked.connect(lambda: (window.show_panel("hinges"),
                                                   window.show_guide(), self.accept()))
        self.lecture_button.clicked.connect(lambda: (self.accept(), window.lecture.start_builtin()))
        self.close_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        _fit(self, window, zoom)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    @staticmethod
    def _button(box: QDialogButtonBox, text: str, name: str, role) -> QPushButton:
        b = QPushButton(text)
        b.setObjectName(name)
        b.setAccessibleName(text)
        box.addButton(b, role)
        return b


class ShortcutsDialog(QDialog):
    """Help ▸ Keyboard shortcuts: every key, generated from what makes the shortcuts."""

    def __init__(self, window, zoom: float = 1.0):
        super().__init__(window)
        self.setObjectName("shortcuts-dialog")
        self.setAccessibleName("Keyboard shortcuts")
        self.setWindowTitle(f"Keyboard shortcuts — {relulab.APP_NAME}")
        self.text = _browser("shortcuts-text")
        self.text.setAccessibleName("Keyboard shortcuts")
        self.text.setHtml(shortcuts_html(window))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        _fit(self, window, zoom)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)


