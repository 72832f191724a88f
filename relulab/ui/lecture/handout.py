"""The handout: a lecture as a PDF written by Qt's own PDF writer, one page a scene
(its title, its picture drawn at print resolution, its caption; the presenter's notes
when asked for). Text is written as text, so it can be searched and copied."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import QFont, QPageLayout, QPageSize, QPainter, QPdfWriter

from relulab.io.atomic import write_bytes_atomic
from relulab.io.scenes import Playlist, SceneError
from relulab.ui.lecture.pictures import SCENE_SIZE, render_scene

#: Dots per inch of the page: a scene's picture is drawn this sharp.
RESOLUTION = 300
#: A scene drawn at this many times its window size: 2560 pixels across the page's
#: picture, sharp at print resolution rather than a blown-up screenshot.
PICTURE_SCALE = 2.0


def _text_height(painter: QPainter, rect: QRectF, text: str) -> float:
    if not text:
        return 0.0
    return painter.boundingRect(rect, Qt.TextFlag.TextWordWrap, text).height()


def write_handout(playlist: Playlist, path, notes: bool = False, progress=None) -> Path:
    """Write ``playlist`` to the PDF ``path`` (A4 landscape, one page a scene); the
    file appears whole or not at all. ``progress(i, n)`` is called before each page."""
    path = Path(path)
    if not playlist.scenes:
        raise SceneError("scenes", "a lecture needs at least one scene")
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(RESOLUTION)
    writer.setTitle(playlist.title or "Lecture")
    writer.setCreator("ReLU Lab")
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4),
                                     QPageLayout.Orientation.Landscape, QMarginsF(12, 12, 12, 12),
                                     QPageLayout.Unit.Millimeter))
    painter = QPainter(writer)
    try:
        n = len(playlist.scenes)
        for i in range(n):
            if progress is not None:
                progress(i, n)
            if i:
                writer.newPage()
            try:
                _page(painter, writer, playlist, i, notes)
            except SceneError as exc:
                raise SceneError(f"scenes[{i}].{exc.field}", exc.problem) from None
    finally:
        painter.end()
    write_bytes_atomic(path, bytes(buffer.data()))
    return path


def _page(painter: QPainter, writer: QPdfWriter, playlist: Playlist, i: int, notes: bool) -> None:
    scene = playlist.scenes[i]
    page = QRectF(writer.pageLayout().paintRectPixels(RESOLUTION))
    page.moveTo(0, 0)
    pt = RESOLUTION / 72  # device pixels per point
    gap = 8 * pt
    title_font = QFont()
    title_font.setPointSizeF(18)
    title_font.setBold(True)
    body_font = QFont()
    body_font.setPointSizeF(11)
    small_font = QFont()
    small_font.setPointSizeF(8.5)

    painter.setFont(small_font)
    footer = f"{playlist.title + ' — ' if playlist.title else ''}scene {i + 1} / {len(playlist.scenes)}"
    footer_h = _text_height(painter, page, footer)
    painter.drawText(QRectF(page.left(), page.bottom() - footer_h, page.width(), footer_h),
                     Qt.AlignmentFlag.AlignRight, footer)

    painter.setFont(title_font)
    title = scene.title or f"Scene {i + 1}"
    title_h = _text_height(painter, page, title)
    painter.drawText(QRectF(page.left(), page.top(), page.width(), title_h),
                     Qt.TextFlag.TextWordWrap, title)
    top = page.top() + title_h + gap

    # the words below the picture take what they need; the picture the rest
    painter.setFont(body_font)
    caption_h = _text_height(painter, page, scene.caption)
    painter.setFont(small_font)
    notes_text = f"Notes: {scene.notes}" if notes and scene.notes else ""
    notes_h = _text_height(painter, page, notes_text)
    words_h = caption_h + notes_h + (gap if caption_h else 0) + (gap if notes_h else 0)
    room = QRectF(page.left(), top, page.width(), page.bottom() - footer_h - gap - words_h - top)

    image = render_scene(scene, PICTURE_SCALE)
    aspect = image.width() / max(1, image.height())
    w = min(room.width(), room.height() * aspect)
    h = w / aspect
    target = QRectF(room.left() + (room.width() - w) / 2, room.top(), w, h)
    painter.drawImage(target, image)
    y = target.bottom() + gap
    if caption_h:
        painter.setFont(body_font)
        painter.drawText(QRectF(page.left(), y, page.width(), caption_h),
                         Qt.TextFlag.TextWordWrap, scene.caption)
        y += caption_h + gap
    if notes_h:
        painter.setFont(small_font)
        painter.drawText(QRectF(page.left(), y, page.width(), notes_h),
                         Qt.TextFlag.TextWordWrap, notes_text)


__all__ = ["RESOLUTION", "SCENE_SIZE", "write_handout"]
