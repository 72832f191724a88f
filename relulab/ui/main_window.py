"""The main window: one tab per panel, menus, undo for the visible panel, status bar,
scene files (open, save, recent, drop), export, lectures and the lecture layout."""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence, QUndoGroup
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

import relulab
from relulab.io.scenes import SCENE_SUFFIX
from relulab.ui import dialogs, export, settings
from relulab.ui.help import GuideWindow, ShortcutsDialog, WelcomeDialog
from relulab.ui.lecture import LectureController, is_editing
from relulab.ui.panels import PANEL_NAMES, PANELS, PanelMap, PanelSpec
from relulab.ui.panels.base import Panel
from relulab.ui.session import Session
from relulab.ui.theme import current_theme
from relulab.ui.view_choices import THEMES
from relulab.ui.window_export import ExportCommands

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


@dataclass(frozen=True)
class MenuEntry:
    """One action of a menu, named ``name`` ("action-…": what tests, scripts and the
    accessibility tree find it by) and showing ``text``. ``keys`` are its shortcuts
    (QKeySequence texts or standard keys; the menu shows the first). Choosing it calls
    the window's method ``slot`` (a dotted path such as ``"lecture.next"`` reaches a
    part of the window) with ``args``, or, without ``args``, with what ``triggered``
    gives (the new state of a ``checkable`` entry). The undo and redo entries have no
    slot: the undo group makes them, and their text names the step they undo or redo."""

    name: str
    text: str
    keys: tuple = ()
    slot: str = ""
    args: tuple = ()
    checkable: bool = False


@dataclass(frozen=True)
class Submenu:
    """A menu inside a menu, named ``name`` ("menu-…"): its ``entries``, and those the
    window's method ``fill`` puts in it each time it opens (the recent files)."""

    name: str
    text: str
    entries: tuple = ()
    fill: str = ""


_KEY = QKeySequence.StandardKey

#: The menu bar: each menu's title and its entries in order (None: a separator). The
#: window builds it from here, and Help ▸ Keyboard shortcuts lists the keys it made.
MENUS: dict[str, tuple[MenuEntry | Submenu | None, ...]] = {
    "&File": (
        MenuEntry("action-new", "&New", (_KEY.New,), "new_document"),
        MenuEntry("action-open", "&Open…", (_KEY.Open,), "open_dialog"),
        Submenu("menu-recent", "Open &recent", fill="_fill_recent_menu"),
        MenuEntry("action-save", "&Save", (_KEY.Save,), "save"),
        MenuEntry("action-save-as", "Save &as…", ("Ctrl+Shift+S",), "save_as_dialog"),
        None,
        Submenu("menu-export", "&Export", (
            *(MenuEntry(f"action-export-png-{scale}x", f"Plot as PNG ({scale}×)…",
                        ("Ctrl+E",) if scale == 1 else (), "export_dialog", ("png", scale))
              for scale in export.PNG_SCALES),
            MenuEntry("action-export-svg", "Plot as SVG…", (), "export_dialog", ("svg",)),
            MenuEntry("action-export-csv", "Data as CSV…", (), "export_dialog", ("csv",)),
            MenuEntry("action-export-gif", "Animation as GIF…", (), "export_dialog", ("gif",)),
            MenuEntry("action-export-mp4", "Animation as MP4…", (), "export_dialog", ("mp4",)),
            None,
            MenuEntry("action-export-script", "Python script…", (), "export_code_dialog", (".py",)),
            MenuEntry("action-export-notebook", "Jupyter notebook…", (), "export_code_dialog",
                      (".ipynb",)),
        )),
        None,
        MenuEntry("action-quit", "&Quit", ("Ctrl+Q",), "close"),
    ),
    "&Edit": (
        MenuEntry("action-undo", "&Undo", (_KEY.Undo,)),
        MenuEntry("action-redo", "&Redo", ("Ctrl+Shift+Z", _KEY.Redo)),
        None,
        MenuEntry("action-reset-panel", "Reset &this panel", (), "reset_panel"),
    ),
    "&View": (
        MenuEntry("action-fullscreen", "&Full screen", ("F11",), "toggle_full_screen",
                  checkable=True),
        MenuEntry("action-zoom-in", "Zoom &in", ("Ctrl+=", "Ctrl++"), "choose_zoom", ("zoom_in",)),
        MenuEntry("action-zoom-out", "Zoom &out", ("Ctrl+-",), "choose_zoom", ("zoom_out",)),
        MenuEntry("action-zoom-reset", "&Reset zoom", ("Ctrl+0",), "choose_zoom", ("reset_zoom",)),
        MenuEntry("action-lecture-layout", "&Lecture layout", ("Ctrl+L",), "set_lecture_layout",
                  checkable=True),
        Submenu("menu-theme", "&Theme", tuple(
            MenuEntry(f"action-theme-{name}", name.replace("-", " ").capitalize(), (),
                      "choose_theme", (name,), checkable=True)
            for name in THEMES)),
        None,
        *(MenuEntry(f"action-show-{p.name}", p.title, (f"Ctrl+{i}",), "show_panel", (p.name,))
          for i, p in enumerate(PANELS, start=1)),
    ),
    "&Lecture": (
        MenuEntry("action-lecture-builtin", "Start the &built-in lecture", ("Ctrl+F5",),
                  "lecture.start_builtin"),
        MenuEntry("action-lecture-open", "&Open a playlist…", (), "open_dialog"),
        None,
        MenuEntry("action-lecture-add", "&Add this view…", ("Ctrl+Shift+A",),
                  "lecture.add_view_dialog"),
        MenuEntry("action-lecture-edit", "&Edit the lecture…", ("Ctrl+Shift+E",), "lecture.edit"),
        MenuEntry("action-lecture-new", "Ne&w lecture", (), "lecture.new_lecture"),
        MenuEntry("action-lecture-open-edit", "Open a lecture to e&dit…", (),
                  "lecture.open_lecture_dialog"),
        MenuEntry("action-lecture-save", "&Save the lecture", (), "lecture.save_lecture"),
        MenuEntry("action-lecture-save-as", "Save the lecture a&s…", (),
                  "lecture.save_lecture_as_dialog"),
        MenuEntry("action-lecture-export", "Export a &handout (PDF)…", (),
                  "lecture.export_handout_dialog"),
        None,
        MenuEntry("action-lecture-present", "P&resent with the presenter view", ("F5",),
                  "lecture.present"),
        MenuEntry("action-lecture-next", "&Next scene", ("PgDown",), "lecture.next"),
        MenuEntry("action-lecture-previous", "&Previous scene", ("PgUp",), "lecture.previous"),
        MenuEntry("action-lecture-caption", "Show or hide the &caption", ("Ctrl+H",),
                  "lecture.toggle_caption"),
        MenuEntry("action-lecture-end", "&End lecture", (), "lecture.end"),
    ),
    "&Help": (
        MenuEntry("action-guide", "&Guide to this panel", (_KEY.HelpContents,), "show_guide"),
        MenuEntry("action-shortcuts", "&Keyboard shortcuts", ("Ctrl+/",), "show_shortcuts"),
        MenuEntry("action-welcome", "&Welcome", (), "show_welcome"),
        None,
        MenuEntry("action-about", "&About ReLU Lab", (), "show_about"),
    ),
}
#: The entries that act on a running lecture, enabled only while one runs.
LECTURE_RUNNING = ("action-lecture-next", "action-lecture-previous", "action-lecture-caption",
                   "action-lecture-end")


class MainWindow(ExportCommands, QMainWindow):
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
        self.session.recent_changed.connect(self._fill_recent_menu)
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
        # (offscreen, some kiosks) a second window would stay deaf until clicked.
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
        # the tab widget is as large as its largest page needs: a hidden panel's minimum
        # (the Hinges plots at zoom 1.6, say) would hold the window past the screen
        ignored, preferred = QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred
        for i in range(self.tabs.count()):
            page = self.tabs.widget(i)
            policy = preferred if i == index else ignored
            page.setSizePolicy(policy, policy)

    # -- menus ---------------------------------------------------------------
    def _build_menus(self) -> None:
        """The menu bar made from MENUS; then what depends on this machine or on the
        theme in use (the export formats available, the theme ticked)."""
        self.menus: dict[str, QMenu] = {}
        self.menu_actions: dict[str, QAction] = {}
        for title, entries in MENUS.items():
            menu = self.menuBar().addMenu(title)
            self._name_menu(menu, f"menu-{title.replace('&', '').lower()}")
            self._fill_menu(menu, entries)
        self.undo_action = self.menu_actions["action-undo"]
        self.redo_action = self.menu_actions["action-redo"]
        gif, mp4 = self.menu_actions["action-export-gif"], self.menu_actions["action-export-mp4"]
        gif.setEnabled(export.gif_available())
        mp4.setEnabled(export.mp4_available())
        if not export.mp4_available():
            mp4.setText("Animation as MP4 (install PyAV: pip install av)")
        group = QActionGroup(self)  # one theme at a time
        self.theme_actions = {name: self.menu_actions[f"action-theme-{name}"] for name in THEMES}
        for name, action in self.theme_actions.items():
            action.setChecked(name == self.theme.name)
            group.addAction(action)
        # the command line or a script may set the theme too: the menu shows the one in use
        self.theme.changed.connect(self._show_theme_in_menu)

    def _name_menu(self, menu: QMenu, name: str) -> None:
        menu.setObjectName(name)
        menu.setAccessibleName(f"{menu.title().replace('&', '')} menu")
        self.menus[name] = menu

    def _fill_menu(self, menu: QMenu, entries) -> None:
        made_by_undo_group = {"action-undo": self.undo_group.createUndoAction,
                              "action-redo": self.undo_group.createRedoAction}
        for entry in entries:
            if entry is None:
                menu.addSeparator()
            elif isinstance(entry, Submenu):
                submenu = menu.addMenu(entry.text)
                self._name_menu(submenu, entry.name)
                self._fill_menu(submenu, entry.entries)
                if entry.fill:
                    fill = attrgetter(entry.fill)(self)
                    submenu.aboutToShow.connect(fill)
                    fill()
            else:
                make = made_by_undo_group.get(entry.name)
                action = make(self, entry.text) if make else QAction(entry.text, self)
                action.setObjectName(entry.name)
                action.setCheckable(entry.checkable)
                if entry.keys:
                    action.setShortcuts([QKeySequence(k) for k in entry.keys])
                if entry.slot:
                    slot = attrgetter(entry.slot)(self)
                    # an entry with arguments is called with them alone, not with the
                    # "checked" that triggered() adds
                    action.triggered.connect(
                        (lambda _=False, slot=slot, args=entry.args: slot(*args)) if entry.args
                        else slot)
                menu.addAction(action)
                self.addAction(action)  # shortcuts keep working when the menu bar is hidden
                self.menu_actions[entry.name] = action

    # -- actions -------------------------------------------------------------
    def choose_theme(self, name: str) -> None:
        """The theme chosen from the View menu: shown now and kept for the next launch."""
        self.theme.set_name(name)
        settings.set("view/theme", self.theme.name)

    def _show_theme_in_menu(self) -> None:
        self.theme_actions[self.theme.name].setChecked(True)

    def choose_zoom(self, change: str) -> None:
        """A zoom chosen from the View menu (``change`` names the theme's method that
        moves it: zoom_in, zoom_out or reset_zoom): shown now and kept for the next
        launch."""
        getattr(self.theme, change)()
        settings.set("view/zoom", self.theme.zoom)

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.menu_actions["action-fullscreen"].setChecked(self.isFullScreen())

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
        """Open recent lists the recent files, and is greyed only while there are none.
        Its entries are updated in place, never deleted and made again: the list
        changes while an entry's own ``triggered`` runs (opening a file moves it to the
        top), and deleting the action being triggered would crash."""
        menu = self.menus["menu-recent"]
        recent = settings.get("files/recent")
        actions = menu.actions()
        for extra in actions[len(recent):]:
            menu.removeAction(extra)
            extra.deleteLater()
        for i, path in enumerate(recent):
            if i < len(actions):
                a = actions[i]
            else:
                a = menu.addAction("")
                a.setObjectName(f"action-recent-{i + 1}")
                a.triggered.connect(lambda _=False, a=a: self.open_scene(a.data()))
            a.setText(f"&{i + 1} {Path(path).name}  ({Path(path).parent})")
            a.setData(path)
        menu.setEnabled(bool(recent))

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

    # -- lecture -------------------------------------------------------------------
    def set_lecture_layout(self, on: bool) -> None:
        """Hide every panel's controls and let plots and readouts take the room."""
        self.lecture_layout = bool(on)
        for widget in self.panels.created().values():  # others get it when created
            widget.set_lecture_layout(self.lecture_layout)
        self.menu_actions["action-lecture-layout"].setChecked(self.lecture_layout)
        self.statusBar().setVisible(not self.lecture_layout)
        self.lecture.update_key_filter()

    def _on_lecture_running(self, running: bool) -> None:
        # the scenes choose the panel: its tabs give the room to the plots
        self.tabs.tabBar().setVisible(not running)
        for name in LECTURE_RUNNING:
            self.menu_actions[name].setEnabled(running)
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
        self.lecture.abandon_handout()  # no child left drawing after the app is gone
        self.shutdown_panels()
        super().closeEvent(event)
