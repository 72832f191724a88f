"""The main window: one tab per panel, menus, undo for the visible panel, status bar,
scene files (open, save, recent, drop), export, lectures and the lecture layout."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence, QUndoGroup
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

import relulab
from relulab.io.scenes import SCENE_SUFFIX, SceneError
from relulab.ui import dialogs, export, settings
from relulab.ui.help import GuideWindow, ShortcutsDialog, WelcomeDialog
from relulab.ui.lecture import LectureController, is_editing
from relulab.ui.panels import PANEL_NAMES, PANELS, PanelMap, PanelSpec
from relulab.ui.panels.base import Panel
from relulab.ui.session import Session
from relulab.ui.theme import THEMES, current_theme

SCENE_FILTER = f"ReLU Lab scenes and playlists (*{SCENE_SUFFIX} *.json);;All files (*)"

#: The window's size when it opens for the first time, where the screen allows.
DEFAULT_SIZE = QSize(1280, 800)
#: Room for the window frame (title bar, borders) before the window manager says.
ESTIMATED_FRAME = QSize(8, 40)


def default_size(available: QSize, frame: QSize = ESTIMATED_FRAME) -> QSize:
    """DEFAULT_SIZE, or less where the available screen with the frame is smaller."""
    return DEFAULT_SIZE.boundedTo(available - frame)


LICENCES = (
    "ReLU Lab is free software under the MIT licence.<br>"
    "It is built on Qt for Python (PySide6, LGPL-3.0), pyqtgraph (MIT), "
    "NumPy (BSD-3-Clause) and SciPy (BSD-3-Clause)."
)


class MainWindow(QMainWindow):
    def __init__(self, panel: str | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("main-window")
        self.setAccessibleName(relulab.APP_NAME)
        self.setAccessibleDescription(f"{len(PANELS)} panels in tabs (Ctrl+1 … Ctrl+{len(PANELS)}),"
                                      " a menu bar, and a lecture bar while a lecture runs.")
        self.setWindowTitle(relulab.APP_NAME)
        self.theme = current_theme()
        self.undo_group = QUndoGroup(self)
        central = QWidget(self)
        central.setObjectName("central")
        central.setAccessibleName("Lecture bar and panels")
        self.tabs = QTabWidget(central)
        self.tabs.setObjectName("panel-tabs")
        self.tabs.setAccessibleName("Panels")
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(central)
        self.lecture_layout = False
        self.guide: GuideWindow | None = None
        # One page per panel; a panel is created (and its page filled) the first time it
        # is shown or asked for, so the window paints without building all of them.
        self._pages: dict[str, QWidget] = {}
        for p in PANELS:
            page = QWidget()
            page.setObjectName(f"page-{p.name}")
            page.setAccessibleName(f"{p.title} page")
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._pages[p.name] = page
            self.tabs.addTab(page, p.title)
        self.panels = PanelMap(self._create_panel)
        self.session = Session(self)
        self.lecture = LectureController(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.lecture.bar)
        layout.addWidget(self.tabs, 1)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.tabs.currentChanged.connect(self._update_title)
        # A click on a tab puts the focus in its panel (the arrow keys on a focused tab
        # bar keep it there, to move on along the tabs).
        self.tabs.tabBarClicked.connect(self._on_tab_clicked)
        self._build_menus()
        self.statusBar().setObjectName("status-bar")
        self.statusBar().setAccessibleName("Status bar")
        self.setAcceptDrops(True)
        self._fitted = False
        geometry = settings.get("window/geometry")
        if not (isinstance(geometry, QByteArray) and not geometry.isEmpty()
                and self.restoreGeometry(geometry)):
            self.resize(default_size(self._available().size(), ESTIMATED_FRAME))
        # the command line's --panel (like --theme, --zoom and --lecture) holds for this
        # launch only: a panel is remembered when chosen in the window
        self._panel_chosen = False
        start = panel or settings.get("window/last_panel")
        self.show_panel(start if start in self.panels else PANELS[0].name)
        self._on_tab_changed(self.tabs.currentIndex())
        self.tabs.currentChanged.connect(self._on_panel_chosen)
        self._closed = False
        self._close_confirmed = False
        self.close_prompt: QMessageBox | None = None
        self.session.mark_clean()  # the panels' start-up state is the unmodified document
        self.session.document_changed.connect(self._update_title)
        self.undo_group.indexChanged.connect(self._update_title)
        self.lecture.running_changed.connect(self._on_lecture_running)
        self._on_lecture_running(False)
        self._update_title()

    # -- size ------------------------------------------------------------------
    def _available(self) -> QRect:
        """The available geometry of the screen the window opens on (its desktop
        without panels and docks)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            self.fit_to_screen()
        # A window shown takes the keyboard (its menu shortcuts reach only the active
        # window): window managers activate a new window anyway, but without one
        # (offscreen, some kiosks) a second window stayed deaf until clicked.
        if not event.spontaneous():
            self.activateWindow()

    def fit_to_screen(self) -> None:
        """Shrink the window (frame included) to the screen's available area and move it
        inside: a 1366 × 768 laptop or a 1280 × 720 projector shows all of it."""
        available = self._available()
        if self.isMaximized() or self.isFullScreen() or available.isEmpty():
            return
        frame = self.frameGeometry().size() - self.geometry().size()
        if frame.width() < 0 or frame.height() < 0:
            frame = ESTIMATED_FRAME
        most = available.size() - frame
        size = self.size().boundedTo(most)
        if size != self.size():
            self.resize(size)
        outer = self.frameGeometry()
        x = min(max(outer.x(), available.left()), available.right() + 1 - outer.width())
        y = min(max(outer.y(), available.top()), available.bottom() + 1 - outer.height())
        if (x, y) != (outer.x(), outer.y()):
            self.move(x, y)

    # -- panels --------------------------------------------------------------
    def _create_panel(self, p: PanelSpec) -> Panel:
        panel = p.load()(host=self)
        self._pages[p.name].layout().addWidget(panel)
        self.undo_group.addStack(panel.undo_stack)
        if self.lecture_layout:
            panel.set_lecture_layout(True)
        return panel

    def panel(self, name: str) -> Panel:
        """The panel ``name``, created now if it has not been (KeyError if unknown)."""
        if name not in self.panels:
            raise KeyError(f"unknown panel {name!r} (known: {', '.join(PANEL_NAMES)})")
        return self.panels[name]

    def current_panel(self) -> Panel:
        return self.panels[PANEL_NAMES[self.tabs.currentIndex()]]

    def show_panel(self, name: str, focus: bool = True) -> Panel:
        """Show the panel ``name`` (created now if need be) with the keyboard focus
        inside it, so that its keys work without a click first."""
        panel = self.panel(name)
        self.tabs.setCurrentIndex(PANEL_NAMES.index(name))
        if focus:
            panel.take_focus()
        return panel

    def focus_current_panel(self) -> None:
        """The keys to the visible panel, unless an editing control (a text field, a
        spin box, …) has them: what is being typed keeps its focus."""
        if not is_editing(QApplication.focusWidget()):
            self.current_panel().take_focus()

    def send_to(self, name: str, kind: str, payload) -> bool:
        target = self.panel(name)
        if not target.receive(kind, payload):
            self.statusBar().showMessage(f"The {target.title} panel cannot take that yet.", 5000)
            return False
        self.show_panel(name)
        return True

    def _on_tab_clicked(self, index: int) -> None:
        if 0 <= index < len(PANEL_NAMES):
            self.show_panel(PANEL_NAMES[index])
    def _on_panel_chosen(self, _index: int) -> None:
        if not self.lecture.running:
            self._panel_chosen = True

    def _on_tab_changed(self, index: int) -> None:
        if 0 <= index < len(PANEL_NAMES):
            self.undo_group.setActiveStack(self.panels[PANEL_NAMES[index]].undo_stack)

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
        self.file_menu.setAccessibleName("File menu")
        self._action(self.file_menu, "&New", "action-new", self.new_document,
                     QKeySequence.StandardKey.New)
        self._action(self.file_menu, "&Open…", "action-open", self.open_dialog,
                     QKeySequence.StandardKey.Open)
        self.recent_menu = self.file_menu.addMenu("Open &recent")
        self.recent_menu.setObjectName("menu-recent")
        self.recent_menu.setAccessibleName("Open recent menu")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._fill_recent_menu()
        self._action(self.file_menu, "&Save", "action-save", self.save, QKeySequence.StandardKey.Save)
        self._action(self.file_menu, "Save &as…", "action-save-as", self.save_as_dialog,
                     "Ctrl+Shift+S")
        self.file_menu.addSeparator()
        self.export_menu = self.file_menu.addMenu("&Export")
        self.export_menu.setObjectName("menu-export")
        self.export_menu.setAccessibleName("Export menu")
        for scale in export.PNG_SCALES:
            self._action(self.export_menu, f"Plot as PNG ({scale}×)…", f"action-export-png-{scale}x",
                         lambda _=False, k=scale: self.export_dialog("png", k),
                         "Ctrl+E" if scale == 1 else None)
        self._action(self.export_menu, "Plot as SVG…", "action-export-svg",
                     lambda: self.export_dialog("svg"))
        self._action(self.export_menu, "Data as CSV…", "action-export-csv",
                     lambda: self.export_dialog("csv"))
        self.gif_action = self._action(self.export_menu, "Animation as GIF…", "action-export-gif",
                                       lambda: self.export_dialog("gif"))
        self.mp4_action = self._action(self.export_menu, "Animation as MP4…", "action-export-mp4",
                                       lambda: self.export_dialog("mp4"))
        self.gif_action.setEnabled(export.gif_available())
        self.mp4_action.setEnabled(export.mp4_available())
        if not export.mp4_available():
            self.mp4_action.setText("Animation as MP4 (install PyAV: pip install av)")
        self.file_menu.addSeparator()
        self._action(self.file_menu, "&Quit", "action-quit", self.close, "Ctrl+Q")

        self.edit_menu = bar.addMenu("&Edit")
        self.edit_menu.setObjectName("menu-edit")
        self.edit_menu.setAccessibleName("Edit menu")
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
        self.edit_menu.addSeparator()
        self._action(self.edit_menu, "Reset &this panel", "action-reset-panel", self.reset_panel)

        self.view_menu = bar.addMenu("&View")
        self.view_menu.setObjectName("menu-view")
        self.view_menu.setAccessibleName("View menu")
        self.fullscreen_action = self._action(
            self.view_menu, "&Full screen", "action-fullscreen", self.toggle_full_screen, "F11")
        self.fullscreen_action.setCheckable(True)
        self._action(self.view_menu, "Zoom &in", "action-zoom-in",
                     lambda: self.choose_zoom(self.theme.zoom_in), ["Ctrl+=", "Ctrl++"])
        self._action(self.view_menu, "Zoom &out", "action-zoom-out",
                     lambda: self.choose_zoom(self.theme.zoom_out), "Ctrl+-")
        self._action(self.view_menu, "&Reset zoom", "action-zoom-reset",
                     lambda: self.choose_zoom(self.theme.reset_zoom), "Ctrl+0")
        self.lecture_layout_action = self._action(
            self.view_menu, "&Lecture layout", "action-lecture-layout",
            lambda checked=False: self.set_lecture_layout(bool(checked)), "Ctrl+L")
        self.lecture_layout_action.setCheckable(True)
        theme_menu = self.view_menu.addMenu("&Theme")
        theme_menu.setObjectName("menu-theme")
        theme_menu.setAccessibleName("Theme menu")
        group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for name in THEMES:
            a = QAction(name.replace("-", " ").capitalize(), self, checkable=True)
            a.setObjectName(f"action-theme-{name}")
            a.setChecked(name == self.theme.name)
            a.triggered.connect(lambda _=False, n=name: self.choose_theme(n))
            group.addAction(a)
            theme_menu.addAction(a)
            self.theme_actions[name] = a
        # the command line or a script may set the theme too: the menu shows the one in use
        self.theme.changed.connect(self._show_theme_in_menu)
        self.view_menu.addSeparator()
        for i, p in enumerate(PANELS, start=1):
            self._action(self.view_menu, p.title, f"action-show-{p.name}",
                         lambda _=False, n=p.name: self.show_panel(n), f"Ctrl+{i}")

        self.lecture_menu = bar.addMenu("&Lecture")
        self.lecture_menu.setObjectName("menu-lecture")
        self.lecture_menu.setAccessibleName("Lecture menu")
        self._action(self.lecture_menu, "Start the &built-in lecture", "action-lecture-builtin",
                     self.lecture.start_builtin, "Ctrl+F5")
        self._action(self.lecture_menu, "&Open a playlist…", "action-lecture-open", self.open_dialog)
        self.lecture_menu.addSeparator()
        self.lecture_next_action = self._action(
            self.lecture_menu, "&Next scene", "action-lecture-next", self.lecture.next, "PgDown")
        self.lecture_previous_action = self._action(
            self.lecture_menu, "&Previous scene", "action-lecture-previous", self.lecture.previous,
            "PgUp")
        self.lecture_caption_action = self._action(
            self.lecture_menu, "Show or hide the &caption", "action-lecture-caption",
            self.lecture.toggle_caption, "Ctrl+H")
        self.lecture_end_action = self._action(
            self.lecture_menu, "&End lecture", "action-lecture-end", self.lecture.end)

        self.help_menu = bar.addMenu("&Help")
        self.help_menu.setObjectName("menu-help")
        self.help_menu.setAccessibleName("Help menu")
        self._action(self.help_menu, "&Guide to this panel", "action-guide", self.show_guide,
                     QKeySequence.StandardKey.HelpContents)
        self._action(self.help_menu, "&Keyboard shortcuts", "action-shortcuts",
                     self.show_shortcuts, "Ctrl+/")
        self._action(self.help_menu, "&Welcome", "action-welcome", self.show_welcome)
        self.help_menu.addSeparator()
        self._action(self.help_menu, "&About ReLU Lab", "action-about", self.show_about)

    # -- actions -------------------------------------------------------------
    def choose_theme(self, name: str) -> None:
        """The theme chosen from the View menu: shown now and kept for the next launch."""
        self.theme.set_name(name)
        settings.set("view/theme", self.theme.name)

    def _show_theme_in_menu(self) -> None:
        self.theme_actions[self.theme.name].setChecked(True)

    def choose_zoom(self, change) -> None:
        """A zoom chosen from the View menu (``change`` moves the theme's zoom): shown
        now and kept for the next launch."""
        change()
        settings.set("view/zoom", self.theme.zoom)

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.fullscreen_action.setChecked(self.isFullScreen())

    # -- help ----------------------------------------------------------------
    def show_guide(self, name: str | None = None) -> GuideWindow:
        """The guide to the panel on screen (F1), or to ``name``; it follows the panels
        while it is open."""
        if self.guide is None:
            self.guide = GuideWindow(self, self.theme.zoom)
            self.tabs.currentChanged.connect(self._guide_follows)
        self.guide.show_guide(name or self.current_panel().name)
        self.guide.show()
        self.guide.raise_()
        return self.guide

    def _guide_follows(self, _index: int) -> None:
        if self.guide is not None and self.guide.isVisible():
            self.guide.show_guide(self.current_panel().name)

    def show_shortcuts(self) -> ShortcutsDialog:
        dialog = ShortcutsDialog(self, self.theme.zoom)
        dialog.show()
        return dialog

    def show_welcome(self) -> WelcomeDialog:
        """Where to start and what to try; shown by itself once, at the first launch."""
        settings.set("help/welcome_shown", True)
        dialog = WelcomeDialog(self, self.theme.zoom)
        dialog.open()
        return dialog

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

    # -- scene files -------------------------------------------------------------
    def open_scene(self, path) -> bool:
        """Open a scene or playlist file; a bad file is reported and changes nothing."""
        return self.session.open(path)

    def save(self) -> bool:
        if self.session.path is None:
            return self.save_as_dialog()
        return self.session.save()

    def save_as(self, path) -> bool:
        path = Path(path)
        if not path.name.endswith(SCENE_SUFFIX) and not path.suffix:
            path = path.with_name(path.name + SCENE_SUFFIX)
        return self.session.save(path)

    def _start_folder(self) -> str:
        return settings.get("files/last_folder") or str(Path.home())

    def open_dialog(self) -> bool:
        path, _ = dialogs.open_file_name(self, "Open a scene or playlist", self._start_folder(),
                                         SCENE_FILTER, instead="window.open_scene(path)")
        return self.open_scene(path) if path else False

    def save_as_dialog(self) -> bool:
        start = str(self.session.path or Path(self._start_folder()) / f"untitled{SCENE_SUFFIX}")
        path, _ = dialogs.save_file_name(self, "Save the scene", start, SCENE_FILTER,
                                         instead="window.save_as(path)")
        return self.save_as(path) if path else False

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = settings.get("files/recent")
        for i, path in enumerate(recent):
            a = self.recent_menu.addAction(f"&{i + 1} {Path(path).name}  ({Path(path).parent})")
            a.setObjectName(f"action-recent-{i + 1}")
            a.triggered.connect(lambda _=False, p=path: self.open_scene(p))
        self.recent_menu.setEnabled(bool(recent))

    def _update_title(self, *_) -> None:
        if self.lecture.running:
            name = self.lecture.playlist.title or "Lecture"
        else:
            name = self.session.display_name()
        self.setWindowTitle(f"{name}[*] — {relulab.APP_NAME}")
        self.setWindowModified(not self.lecture.running and self.session.is_modified())

    # drop a file on the window to open it
    def dragEnterEvent(self, event) -> None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        if any(u.isLocalFile() and u.toLocalFile().lower().endswith(".json") for u in urls):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(".json"):
                event.acceptProposedAction()
                self.open_scene(url.toLocalFile())
                return
        event.ignore()

    # -- export --------------------------------------------------------------------
    def main_plot(self, name: str | None = None):
        """The visible panel's plot ``name`` (its main plot when None)."""
        plots = self.current_panel().plots()
        if name is None:
            return next(iter(plots.values()), None)
        if name not in plots:
            raise export.ExportError(f"the {self.current_panel().title} panel has no plot "
                                     f"{name!r} (it has: {', '.join(plots) or 'none'})")
        return plots[name]

    def export_current(self, kind: str, path, scale: int = 1, plot: str | None = None,
                       progress=None) -> list[Path]:
        """Export the visible panel's plot (png, svg; the main one unless ``plot`` names
        another), data (csv) or animation (gif, mp4) to ``path``; raises
        export.ExportError when there is nothing to export."""
        panel = self.current_panel()
        if kind == "csv":
            return export.export_csv(panel.data_tables(), path)
        name = plot
        plot = self.main_plot(name)
        if plot is None:
            raise export.ExportError(f"the {panel.title} panel has no plot to export")
        if kind == "png":
            return [export.export_png(plot, path, scale)]
        if kind == "svg":
            return [export.export_svg(plot, path)]
        if kind in ("gif", "mp4"):
            return [export.export_animation(panel, plot, path, progress=progress)]
        raise ValueError(f"unknown export kind {kind!r}")

    def export_dialog(self, kind: str, scale: int = 1) -> list[Path]:
        panel = self.current_panel()
        suffix = {"png": ".png", "svg": ".svg", "csv": ".csv", "gif": ".gif", "mp4": ".mp4"}[kind]
        tail = f"-{scale}x" if kind == "png" and scale != 1 else ""
        start = str(Path(self._start_folder()) / f"{panel.name}{tail}{suffix}")
        args = f"{kind!r}, path" + (f", {scale}" if kind == "png" and scale != 1 else "")
        path, _ = dialogs.save_file_name(self, f"Export as {kind.upper()}", start,
                                         f"{kind.upper()} (*{suffix})",
                                         instead=f"window.export_current({args})")
        if not path:
            return []
        if not path.lower().endswith(suffix):
            path += suffix
        progress = None
        if kind in ("gif", "mp4"):
            dialog = QProgressDialog("Recording the animation…", "Stop here", 0,
                                     export.MAX_ANIMATION_FRAMES, self)
            dialog.setObjectName("export-progress")
            dialog.setWindowModality(Qt.WindowModality.WindowModal)
            dialog.setMinimumDuration(300)

            def progress(done, total):
                dialog.setValue(done)
                return not dialog.wasCanceled()  # "Stop here" keeps the frames so far
        try:
            written = self.export_current(kind, path, scale, progress=progress)
        except (export.ExportError, OSError) as exc:
            problem = f"{path}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror \
                else str(exc)
            self.session.report_error("Could not export", SceneError("export", problem))
            return []
        finally:
            if progress is not None:
                dialog.close()
        self.statusBar().showMessage("Exported " + ", ".join(str(p) for p in written), 8000)
        return written

    # -- lecture -------------------------------------------------------------------
    def set_lecture_layout(self, on: bool) -> None:
        """Hide every panel's controls and let plots and readouts take the room."""
        self.lecture_layout = bool(on)
        for widget in self.panels.created().values():  # others get it when created
            widget.set_lecture_layout(self.lecture_layout)
        self.lecture_layout_action.setChecked(self.lecture_layout)
        self.statusBar().setVisible(not self.lecture_layout)
        self.lecture.update_key_filter()

    def _on_lecture_running(self, running: bool) -> None:
        # the scenes choose the panel: its tabs give the room to the plots
        self.tabs.tabBar().setVisible(not running)
        for a in (self.lecture_next_action, self.lecture_previous_action, self.lecture_end_action,
                  self.lecture_caption_action):
            a.setEnabled(running)
        self._update_title()

    def keyPressEvent(self, event) -> None:
        # Arrow keys reach the window only when the focused widget did not use them.
        if self.lecture.handle_key(event):
            event.accept()
            return
        super().keyPressEvent(event)

    # -- closing -------------------------------------------------------------
    def shutdown_panels(self) -> None:
        """Stop every panel's timers and threads (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.lecture.playlist = None
        self.lecture.update_key_filter()
        for widget in self.panels.created().values():
            widget.shutdown()

    def ask_to_save(self, then=None, doing: str = "closing") -> QMessageBox:
        """Save / Discard / Cancel for unsaved work (without blocking); then ``then()``
        (by default: close the window) unless cancelled or the save failed."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                          f"Save the changes to {self.session.display_name()} before {doing}?",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("close-prompt")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def close():
            self._close_confirmed = True
            self.close()

        def answered(button):
            choice = box.standardButton(button)
            if choice == QMessageBox.StandardButton.Save and not self.save():
                return
            if choice in (QMessageBox.StandardButton.Save, QMessageBox.StandardButton.Discard):
                (then or close)()

        box.buttonClicked.connect(answered)
        box.open()
        self.close_prompt = box
        return box

    # -- starting again --------------------------------------------------------------
    def new_document(self) -> bool:
        """File ▸ New: every panel back to its defaults, a new untitled document. Unsaved
        work is asked about first (True when it was reset at once)."""
        if self.lecture.running:
            self.lecture.end()  # the work from before the lecture is what may need saving
        if self.session.is_modified():
            self.ask_to_save(self.session.new, "starting a new one")
            return False
        self.session.new()
        return True

    def reset_panel(self) -> None:
        """Edit ▸ Reset this panel: the panel on screen back to its defaults, as one
        undoable step (the other panels keep their work)."""
        panel = self.current_panel()
        if panel.state_class is None:
            return
        panel.commit(panel.state_class(), f"Reset {panel.title}")
        self.statusBar().showMessage(f"{panel.title} is back to its defaults (Ctrl+Z undoes it).",
                                     5000)

    def closeEvent(self, event) -> None:
        if self.lecture.running:
            self.lecture.end()  # the work from before the lecture is what may need saving
        if (self.session.confirm_close and not self._close_confirmed and not self._closed
                and self.session.is_modified()):
            event.ignore()
            self.ask_to_save()
            return
        if not self._closed:
            # theme and zoom were saved when chosen from the menus; what the command
            # line asked for, and the lecture layout, hold for one launch
            settings.set("window/geometry", self.saveGeometry())
            if self._panel_chosen:
                settings.set("window/last_panel", self.current_panel().name)
        self.session.finish()
        self.shutdown_panels()
        super().closeEvent(event)
