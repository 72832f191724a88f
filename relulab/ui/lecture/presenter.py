"""Presenting: the audience sees the scene, the presenter sees notes, what comes next
and the time.

With two screens or more, the window goes full screen on a screen other than the
presenter view's (the laptop's, where the window was); with one screen the presenter
view is a window of its own that Lecture ▸ Present shows and hides. While a lecture
runs in the lecture layout or with the presenter view open, ``B`` blacks the
audience's view out (and back), and holding ``P`` shows a pointer dot that follows
the mouse over it. The clicker keys step the lecture from
either window.
"""

from __future__ import annotations

import time
from typing import ClassVar

from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, QTime, QTimer
from PySide6.QtGui import QColor, QCursor, QGuiApplication, QPainter, QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from relulab.io.scenes import Scene
from relulab.ui.readout import Readout, readouts_of
from relulab.ui.theme import current_theme

#: The keys of the presenter's tools (no panel uses them).
BLACKOUT_KEY = Qt.Key.Key_B
POINTER_KEY = Qt.Key.Key_P
#: What each tool key does, as Help ▸ Keyboard shortcuts lists it; the keys watched
#: while presenting are these (``Presenting.is_tool_key``), so the list cannot drift.
TOOL_KEYS: dict[Qt.Key, str] = {
    BLACKOUT_KEY: "black out the audience's screen (again: back)",
    POINTER_KEY: "held: a pointer dot follows the mouse",
}
#: The pointer dot's diameter at zoom 1, in pixels: seen from the back of a room.
POINTER_DIAMETER = 22


class Blackout(QWidget):
    """A black sheet over the whole audience window."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("lecture-blackout")
        self.setAccessibleName("Screen blacked out (B shows it again)")
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(self.backgroundRole(), QColor("black"))
        self.setPalette(palette)
        self.hide()


class PointerDot(QWidget):
    """A red dot that mouse clicks pass through."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("lecture-pointer")
        self.setAccessibleName("Pointer")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        self.hide()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(QColor(255, 255, 255, 230))
        p.setBrush(QColor(230, 20, 20, 220))
        p.drawEllipse(self.rect().adjusted(1, 1, -1, -1))
        p.end()

    def centre_on(self, point: QPoint) -> None:
        self.move(point - self.rect().center())


class PresenterView(QWidget):
    """The presenter's screen: scene n / N, title, caption, notes, the next scene's picture and
    title, the time since presenting began and the clock; buttons for the same."""

    def __init__(self, presenting: Presenting):
        # a window of its own, owned by the main window (closed and deleted with it)
        super().__init__(presenting.window, Qt.WindowType.Window)
        self.presenting = presenting
        self.setObjectName("lecture-presenter")
        self.setAccessibleName("Presenter view")
        self.setWindowTitle("Presenter view — ReLU Lab")
        self.position = Readout("presenter-position", "Scene number", "position", parent=self)
        self.title = Readout("presenter-title", "Scene title", "title", wrap=True, parent=self)
        # what the audience reads under the scene: the presenter knows what they see
        self.caption = Readout("presenter-caption", "Scene caption", "caption", wrap=True,
                               parent=self)
        self.notes = QTextBrowser(self)
        self.notes.setObjectName("presenter-notes")
        self.notes.setAccessibleName("Presenter notes")
        self.notes.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys step the lecture
        self.next_picture = QLabel(self)
        self.next_picture.setObjectName("presenter-next-picture")
        self.next_picture.setAccessibleName("The next scene")
        self.next_picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.next_title = Readout("presenter-next-title", "Next scene's title", "next_title",
                                  wrap=True, parent=self)
        self.elapsed = Readout("presenter-elapsed", "Time since presenting began", "elapsed",
                               parent=self)
        self.clock = Readout("presenter-clock", "Clock", "clock", parent=self)
        self.blacked = Readout("presenter-blackout", "Audience screen", "blackout", parent=self)
        buttons = QHBoxLayout()
        for text, name, slot in (("◀ Previous", "presenter-previous", presenting.controller.previous),
                                 ("Next ▶", "presenter-next", presenting.controller.next),
                                 ("Black out (B)", "presenter-blackout-toggle",
                                  presenting.toggle_blackout),
                                 ("Stop presenting", "presenter-stop", presenting.stop)):
            b = QPushButton(text, self)
            b.setObjectName(name)
            b.setAccessibleName(text)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.clicked.connect(lambda _=False, slot=slot: slot())
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.blacked)

        grid = QGridLayout(self)
        top = QHBoxLayout()
        top.setSpacing(round(24 * current_theme().zoom))
        top.addWidget(self.position)
        top.addWidget(self.title, 1)
        top.addWidget(self.elapsed)
        top.addWidget(self.clock)
        grid.addLayout(top, 0, 0, 1, 2)
        left = QVBoxLayout()
        left.addWidget(self.caption)
        left.addWidget(self.notes, 1)
        grid.addLayout(left, 1, 0, 2, 1)
        side = QVBoxLayout()
        caption = QLabel("Next", self)
        caption.setObjectName("presenter-next-label")
        caption.setAccessibleName("Next")
        side.addWidget(caption)
        side.addWidget(self.next_picture)
        side.addWidget(self.next_title)
        side.addStretch(1)
        grid.addLayout(side, 1, 1)
        grid.addLayout(buttons, 3, 0, 1, 2)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        grid.setRowStretch(1, 1)
        self.apply_theme()
        current_theme().changed.connect(self.apply_theme)

    def apply_theme(self) -> None:
        theme = current_theme()
        self.title.setFont(theme.font(14, bold=True))
        self.position.setFont(theme.font(14, bold=True))
        self.elapsed.setFont(theme.font(14))
        self.clock.setFont(theme.font(14))
        caption_font = theme.font(12)
        caption_font.setItalic(True)
        self.caption.setFont(caption_font)
        self.notes.setFont(theme.font(13))
        self.next_title.setFont(theme.font(11))
        self.blacked.setFont(theme.font(11, bold=True))
        self.presenting._show_scene()  # the next scene's picture in the new colours

    def keyPressEvent(self, event) -> None:
        if not self.presenting.handle_key(event):
            super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if not self.presenting.handle_key_release(event):
            super().keyReleaseEvent(event)

    def closeEvent(self, event) -> None:
        self.presenting.stop()
        super().closeEvent(event)


class Presenting(QObject):
    """Shows the presenter view, places the audience's window, blacks it out and points."""

    #: steps the presenter view's keys make (the window's own take PgUp/PgDown and arrows)
    STEPS: ClassVar[dict[Qt.Key, str]] = {
        Qt.Key.Key_PageDown: "next", Qt.Key.Key_Right: "next", Qt.Key.Key_Down: "next",
        Qt.Key.Key_Space: "next", Qt.Key.Key_PageUp: "previous", Qt.Key.Key_Left: "previous",
        Qt.Key.Key_Up: "previous", Qt.Key.Key_Home: "first", Qt.Key.Key_End: "last"}

    def __init__(self, controller):
        super().__init__(controller)
        self.controller = controller
        self.window = controller.window
        self.view: PresenterView | None = None
        self.active = False
        self.started = 0.0
        self._window_before: tuple | None = None
        self.blackout = Blackout(self.window)
        self.pointer = PointerDot(self.window)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._follow = QTimer(self)
        self._follow.setInterval(16)
        self._follow.timeout.connect(self._follow_cursor)
        self.window.installEventFilter(self)  # keep the sheets as large as the window
        controller.stepped.connect(self._on_stepped)
        controller.running_changed.connect(self._on_running)

    # -- readouts --------------------------------------------------------------------
    def readouts(self) -> dict:
        """``presenting``, ``two_screens`` (the audience on a screen of its own),
        ``blackout``, ``pointer``, and the presenter view's ``position``, ``title``,
        ``caption``, ``notes``, ``next_title``, ``elapsed`` (seconds), ``clock`` (HH:MM)."""
        values = readouts_of(self.view) if self.view is not None else {}
        values.update(presenting=self.active, two_screens=self.two_screens(),
                      blackout=self.blackout.isVisible(), pointer=self.pointer.isVisible(),
                      notes=self.view.notes.toPlainText() if self.view is not None else None)
        return values

    @staticmethod
    def two_screens() -> bool:
        return len(QGuiApplication.screens()) >= 2

    # -- starting and stopping ----------------------------------------------------------
    def start(self) -> None:
        """Show the presenter view; with two screens the window goes full screen on the
        other one."""
        if self.view is None:
            self.view = PresenterView(self)
        self.active = True
        self.started = time.monotonic()
        screens = QGuiApplication.screens()
        here = self.window.screen() or QGuiApplication.primaryScreen()
        self.view.resize(QSize(1100, 700).boundedTo(here.availableGeometry().size()))
        if len(screens) >= 2:
            audience = next(s for s in screens if s is not here)
            self._window_before = (here, self.window.saveGeometry(), self.window.isFullScreen())
            # the room sees the scene, not the menus (their shortcuts still work)
            self.window.menuBar().hide()
            self.window.showNormal()
            self.window.windowHandle().setScreen(audience)
            # the screen's whole area even where no window manager makes "full screen" so
            self.window.setGeometry(audience.geometry())
            self.window.showFullScreen()
            self.view.setGeometry(here.availableGeometry())
            self.view.show()
            self.view.windowHandle().setScreen(here)
            self.view.showMaximized()
        else:
            self.view.move(here.availableGeometry().topLeft())
            self.view.show()
        self.view.raise_()
        self.view.activateWindow()
        self._ticker.start()
        self._show_scene()
        self._tick()

    def stop(self) -> None:
        """Hide the presenter view; the window goes back where and as it was."""
        if not self.active:
            return
        self.active = False
        self._ticker.stop()
        self.set_blackout(False)
        self.set_pointer(False)
        if self._window_before is not None:
            # back to its own screen: on an X server whose screens are separate (two X
            # screens, not one desktop) the geometry alone would leave it on the projector
            screen, geometry, full = self._window_before
            self._window_before = None
            self.window.menuBar().show()
            if screen in QGuiApplication.screens():
                self.window.windowHandle().setScreen(screen)
            if not full:
                self.window.showNormal()
                self.window.restoreGeometry(geometry)
        if self.view is not None and self.view.isVisible():
            self.view.hide()
        self.controller.update_key_filter()  # B and P were watched for the presenter view
        self.window.activateWindow()

    def toggle(self) -> None:
        if self.active:
            self.stop()
        else:
            self.start()

    def _on_running(self, running: bool) -> None:
        if not running:
            self.stop()

    # -- what the presenter sees -------------------------------------------------------
    def _on_stepped(self, _index: int) -> None:
        if self.active:
            self._show_scene()

    def _show_scene(self) -> None:
        c, view = self.controller, self.view
        if view is None or not c.running:
            return
        n, i = len(c.playlist.scenes), c.index
        scene = c.scene
        view.position.set_value(i + 1, f"Scene {i + 1} / {n}")
        view.title.setText(scene.title or f"Scene {i + 1}")
        view.caption.setText(scene.caption)
        view.caption.setVisible(bool(scene.caption))
        view.notes.setPlainText(scene.notes or "(no notes for this scene)")
        if i + 1 < n:
            following = c.playlist.scenes[i + 1]
            view.next_title.setText(following.title or f"Scene {i + 2}")
            view.next_picture.setPixmap(self._thumbnail(following))
        else:
            view.next_title.setText("(the last scene)")
            view.next_picture.clear()

    def _thumbnail(self, scene: Scene) -> QPixmap:
        from relulab.ui.lecture.pictures import cached_thumbnail

        # as large as the side column allows (two fifths of the view), within reason
        width = min(round(480 * current_theme().zoom), round(self.view.width() * 0.38))
        return cached_thumbnail(scene, max(160, width))

    def _tick(self) -> None:
        if self.view is None:
            return
        seconds = int(time.monotonic() - self.started)
        self.view.elapsed.set_value(seconds, f"elapsed {seconds // 3600}:{seconds // 60 % 60:02d}:"
                                             f"{seconds % 60:02d}")
        now = QTime.currentTime().toString("HH:mm")
        self.view.clock.set_value(now, f"clock {now}")
        self.view.blacked.setText("Audience screen: BLACK" if self.blackout.isVisible() else "")

    # -- black out and pointer -------------------------------------------------------
    def set_blackout(self, on: bool) -> None:
        self.blackout.setGeometry(self.window.rect())
        self.blackout.setVisible(on)
        if on:
            self.blackout.raise_()
        self._tick()

    def toggle_blackout(self) -> None:
        self.set_blackout(not self.blackout.isVisible())

    def set_pointer(self, on: bool, at: QPoint | None = None) -> None:
        """The pointer dot on (at ``at`` in the window, else under the mouse) or off."""
        if on:
            size = round(POINTER_DIAMETER * current_theme().zoom)
            self.pointer.resize(size, size)
            self.pointer.centre_on(at if at is not None else self.window.mapFromGlobal(QCursor.pos()))
            self.pointer.show()
            self.pointer.raise_()
            self._follow.start()
        else:
            self._follow.stop()
            self.pointer.hide()

    def _follow_cursor(self) -> None:
        self.pointer.centre_on(self.window.mapFromGlobal(QCursor.pos()))

    # -- keys -------------------------------------------------------------------------
    def is_tool_key(self, event) -> bool:
        return (Qt.Key(event.key()) in TOOL_KEYS
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier)

    def handle_key(self, event) -> bool:
        """B, a held P, and (in the presenter view) the keys that step the lecture."""
        if not self.controller.running:
            return False
        key = Qt.Key(event.key())
        if self.is_tool_key(event):
            if not event.isAutoRepeat():
                if key == BLACKOUT_KEY:
                    self.toggle_blackout()
                else:
                    self.set_pointer(True)
            return True
        step = self.STEPS.get(key)
        if step is not None and self.view is not None and self.view.isActiveWindow():
            getattr(self.controller, step)()
            return True
        return False

    def handle_key_release(self, event) -> bool:
        if Qt.Key(event.key()) == POINTER_KEY and self.controller.running:
            if not event.isAutoRepeat():
                self.set_pointer(False)
            return True
        return False

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if obj is self.window and kind == QEvent.Type.Resize:
            self.blackout.setGeometry(self.window.rect())
        return False
