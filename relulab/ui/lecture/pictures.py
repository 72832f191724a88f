"""A scene's picture drawn offscreen: its current panel, built apart from the window
(the work on screen is not touched), in the lecture layout, at any scale. The
handout's pages and the editor's and presenter view's thumbnails are made here."""

from __future__ import annotations

import json

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QApplication

from relulab.io.scenes import Scene, SceneError
from relulab.ui import export
from relulab.ui.theme import current_theme

#: The window's size that scenes are drawn at (what a lecturer's window shows).
SCENE_SIZE = QSize(1280, 720)
#: How long a panel's background work (a conversion, a deep tent) may take to appear.
WAIT_SECONDS = 60.0


def scene_panel_name(scene: Scene, known) -> str:
    """The panel a scene shows: its ``current``, else its first, else the first known."""
    known = list(known)
    name = scene.current or next(iter(scene.panels), None) or known[0]
    return name if name in known else known[0]


def render_scene(scene: Scene, scale: float = 1.0, size: QSize = SCENE_SIZE) -> QImage:
    """The scene's panel at ``size`` (logical pixels) drawn at ``scale`` times, the
    controls hidden as in a lecture. Raises SceneError when the scene's state is refused."""
    from relulab.ui.panels import PANEL_NAMES, spec

    name = scene_panel_name(scene, PANEL_NAMES)
    panel = spec(name).load()()
    panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)  # drawn, never shown
    try:
        if name in scene.panels:
            try:
                panel.load_state(scene.panels[name])
            except ValueError as exc:
                raise SceneError(f"panels.{name}", str(exc)) from exc
        panel.set_lecture_layout(True)
        panel.resize(size)
        panel.show()
        panel.wait_until_idle(WAIT_SECONDS)
        for _ in range(3):  # layouts settle, then plots paint
            QApplication.processEvents()
        return export.render_image(panel, scale)
    finally:
        panel.shutdown()
        panel.hide()
        panel.deleteLater()


def thumbnail(scene: Scene, width: int = 240) -> QImage:
    """A small picture of the scene (grey with the problem's first words if refused)."""
    try:
        image = render_scene(scene, 0.5)
    except SceneError:
        image = QImage(SCENE_SIZE / 2, QImage.Format.Format_ARGB32)
        image.fill(QColor("#888888"))
        painter = QPainter(image)
        painter.drawText(image.rect(), Qt.AlignmentFlag.AlignCenter, "cannot be shown")
        painter.end()
    return image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)


#: Pictures of scenes already drawn, by what they show, the theme and zoom they were
#: drawn in and their width: the editor and the presenter view draw each scene once.
_THUMBNAILS: dict[tuple, QPixmap] = {}


def _key(scene: Scene, width: int) -> tuple:
    theme = current_theme()
    return (json.dumps([scene.current, scene.panels], sort_keys=True, default=str),
            theme.name, theme.zoom, width)


def has_thumbnail(scene: Scene, width: int) -> bool:
    return _key(scene, width) in _THUMBNAILS


def cached_thumbnail(scene: Scene, width: int, draw: bool = True) -> QPixmap | None:
    """The scene's picture ``width`` pixels wide, drawn once (None when not drawn yet
    and ``draw`` is False)."""
    key = _key(scene, width)
    if key not in _THUMBNAILS:
        if not draw:
            return None
        _THUMBNAILS[key] = QPixmap.fromImage(thumbnail(scene, width))
    return _THUMBNAILS[key]
