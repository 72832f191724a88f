"""The main window: one tab per panel, menus, undo for the visible panel, status bar."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QUndoGroup
from PySide6.QtWidgets import QMainWindow, QMessageBox, QTabWidget

import relulab
from relulab.ui import settings
from relulab.ui.panels import PANELS, spec
from relulab.ui.panels.base import Panel, PlaceholderPanel
from relulab.ui.theme import THEMES, current_theme

LICENCES = (
    "ReLU Lab is free software under the MIT licence.<br>"
    "It is built on Qt for Python (PySide6, LGPL-3.0), pyqtgraph (MIT), "
    "NumPy (BSD-3-Clause) and SciPy (BSD-3-Clause)."
)


class MainWindow(QMainWindow):
    def __init__(self, panel: str | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("main-window")
        self.setWindowTitle(relulab.APP_NAME)
        self.theme = current_theme()
        self.undo_group = QUndoGroup(self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("panel-tabs")
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)
        self.panels: dict[str, Panel] = {}
        for p in PANELS:
            cls = p.load()
            widget = cls(host=self) if cls is not None else PlaceholderPanel(
                p.name, p.title, p.summary, host=self)
            self.panels[p.name] = widget
            self.undo_group.addStack(widget.undo_stack)
            self.tabs.addTab(widget, p.title)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self._build_menus()
        self.statusBar().setObjectName("status-bar")
        self.resize(1280, 800)
        start = panel or settings.get("window/last_panel")
        self.show_panel(start if start in self.panels else PANELS[0].name)
        self._on_tab_changed(self.tabs.currentIndex())
        self._closed = False

    # -- panels --------------------------------------------------------------
    def panel(self, name: str) -> Panel:
        spec(name)  # a clear error for an unknown name
        return self.panels[name]

    def current_panel(self) -> Panel:
        return self.tabs.currentWidget()

    def show_panel(self, name: str) -> Panel:
        widget = self.panel(name)
        self.tabs.setCurrentWidget(widget)
        return widget

    def send_to(self, name: str, kind: str, payload) -> bool:
        target = self.panel(name)
        if not target.receive(kind, payload):
            self.statusBar().showMessage(f"The {target.title} panel cannot take that yet.", 5000)
            return False
        self.show_panel(name)
        return True

    def _on_tab_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if widget is not None:
            self.undo_group.setActiveStack(widget.undo_stack)

    # -- menus ---------------------------------------------------------------
    def _action(self, menu, text: str, name: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if shortcut is not None:
            if isinstance(shortcut, (list, tuple)):
                action.setShortcuts([QKeySequence(s) for s in shortcut])
            else:
                action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)  # shortcuts keep working when the menu bar is hidden
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.file_menu.setObjectName("menu-file")
        self.file_menu.addSeparator()
        self._action(self.file_menu, "&Quit", "action-quit", self.close, QKeySequence.StandardKey.Quit)

        self.edit_menu = bar.addMenu("&Edit")
        self.edit_menu.setObjectName("menu-edit")
        undo = self.undo_group.createUndoAction(self, "&Undo")
        undo.setObjectName("action-undo")
        undo.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
        redo = self.undo_group.createRedoAction(self, "&Redo")
        redo.setObjectName("action-redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence(QKeySequence.StandardKey.Redo)])
        for a in (undo, redo):
            self.edit_menu.addAction(a)
            self.addAction(a)
        self.undo_action, self.redo_action = undo, redo

        self.view_menu = bar.addMenu("&View")
        self.view_menu.setObjectName("menu-view")
        self.fullscreen_action = self._action(
            self.view_menu, "&Full screen", "action-fullscreen", self.toggle_full_screen, "F11")
        self.fullscreen_action.setCheckable(True)
        self._action(self.view_menu, "Zoom &in", "action-zoom-in", self.theme.zoom_in,
                     ["Ctrl+=", "Ctrl++"])
        self._action(self.view_menu, "Zoom &out", "action-zoom-out", self.theme.zoom_out, "Ctrl+-")
        self._action(self.view_menu, "&Reset zoom", "action-zoom-reset", self.theme.reset_zoom, "Ctrl+0")
        theme_menu = self.view_menu.addMenu("&Theme")
        theme_menu.setObjectName("menu-theme")
        group = QActionGroup(self)
        for name in THEMES:
            a = QAction(name.replace("-", " ").capitalize(), self, checkable=True)
            a.setObjectName(f"action-theme-{name}")
            a.setChecked(name == self.theme.name)
            a.triggered.connect(lambda _=False, n=name: self.theme.set_name(n))
            group.addAction(a)
            theme_menu.addAction(a)
        self.view_menu.addSeparator()
        for i, p in enumerate(PANELS, start=1):
            self._action(self.view_menu, p.title, f"action-show-{p.name}",
                         lambda _=False, n=p.name: self.show_panel(n), f"Ctrl+{i}")

        self.help_menu = bar.addMenu("&Help")
        self.help_menu.setObjectName("menu-help")
        self._action(self.help_menu, "&About ReLU Lab", "action-about", self.show_about)

    # -- actions -------------------------------------------------------------
    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.fullscreen_action.setChecked(self.isFullScreen())

    def about_text(self) -> str:
        return (f"<h3>{relulab.APP_NAME} {relulab.__version__}</h3>"
                "<p>See how ReLU networks approximate functions: hinges, training, folding, "
                "deep → shallow conversion and a 2-D playground.</p>"
                f"<p>{LICENCES}</p>")

    def show_about(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, f"About {relulab.APP_NAME}",
                          self.about_text(), QMessageBox.StandardButton.Ok, self)
        box.setObjectName("about-dialog")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    # -- closing -------------------------------------------------------------
    def shutdown_panels(self) -> None:
        """Stop every panel's timers and threads (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for widget in self.panels.values():
            widget.shutdown()

    def closeEvent(self, event) -> None:
        settings.set("window/geometry", self.saveGeometry())
        settings.set("window/last_panel", self.current_panel().name)
        self.shutdown_panels()
        super().closeEvent(event)
