"""Export what a panel shows: plots to PNG (1×, 2×, 4×) and SVG, data to CSV, an
animation to GIF (Pillow) or MP4 (PyAV, when installed).

Plots go through pyqtgraph's exporters, so a 4× PNG is drawn at 4× (sharp text
and lines), not a blown-up screenshot. Every file is written atomically. What a panel
says only to the one at the screen ("(click one)"; its ``export_hints()``) is hidden
while a picture is drawn.
"""

from __future__ import annotations

import csv
import importlib.util
import io
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsView, QWidget

from relulab.io.atomic import write_bytes_atomic, write_text_atomic

PNG_SCALES = (1, 2, 4)
GIF_FPS = 10
MAX_ANIMATION_FRAMES = 120


class ExportError(RuntimeError):
    """An export that cannot be made (nothing to export, no encoder, a failed write)."""


def _graphics_item(widget: QWidget):
    """What pyqtgraph's exporters take for this widget: a PlotItem or a whole scene."""
    if isinstance(widget, pg.PlotWidget):
        return widget.getPlotItem()
    if isinstance(widget, pg.GraphicsView):
        return widget.scene()
    return None


def _png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise ExportError("could not encode the PNG")
    return bytes(buffer.data())


@contextmanager
def _items_uncached(widget: QWidget):
    """Every graphics item under ``widget`` painted afresh for the duration: the plots'
    axes keep a picture of themselves for the screen (``Theme.style_plot``), which an
    SVG would hold as a bitmap instead of lines and text, and a scaled PNG as pixels
    blown up."""
    views = [widget] if isinstance(widget, QGraphicsView) else []
    views += widget.findChildren(QGraphicsView)
    cached = [(gi, gi.cacheMode()) for view in views if view.scene() is not None
              for gi in view.scene().items() if gi.cacheMode() != QGraphicsItem.CacheMode.NoCache]
    for gi, _ in cached:
        gi.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        yield
    finally:
        for gi, mode in cached:
            gi.setCacheMode(mode)


@contextmanager
def hints_hidden(hints=()):
    """Hide ``hints`` (widgets and graphics items: a panel's ``export_hints()``) for the
    duration and show again those that were shown, also when the block fails. A hidden
    widget keeps its room, so nothing beside it moves while the export draws."""
    hidden = []
    try:
        for hint in hints:
            if isinstance(hint, QWidget):
                if hint.isHidden():
                    continue
                policy = hint.sizePolicy()
                kept = policy.retainSizeWhenHidden()
                policy.setRetainSizeWhenHidden(True)
                hint.setSizePolicy(policy)
                hint.hide()
                hidden.append((hint, kept))
            elif hint.isVisible():
                hint.hide()
                hidden.append((hint, None))
        yield
    finally:
        for hint, kept in reversed(hidden):
            hint.show()
            if kept is not None:
                policy = hint.sizePolicy()
                policy.setRetainSizeWhenHidden(kept)
                hint.setSizePolicy(policy)


def _panel_hints(widget: QWidget, hide):
    """``hide``, or when None the ``export_hints()`` of the panel the widget is in."""
    if hide is not None:
        return hide
    owner = widget
    while owner is not None and not hasattr(owner, "export_hints"):
        owner = owner.parentWidget()
    return owner.export_hints() if owner is not None else ()


def render_image(widget: QWidget, scale: float = 1.0, hide=None) -> QImage:
    """The widget drawn at ``scale`` times its size on screen, without ``hide`` (by
    default the hints of the panel it belongs to)."""
    with hints_hidden(_panel_hints(widget, hide)), _items_uncached(widget):
        return _render_image(widget, scale)


def _render_image(widget: QWidget, scale: float) -> QImage:
    item = _graphics_item(widget)
    if item is not None:
        exporter = pg.exporters.ImageExporter(item)
        width = max(1, round(exporter.parameters()["width"] * scale))
        exporter.parameters()["width"] = width
        image = exporter.export(toBytes=True)
        if image is not None and not image.isNull():
            return image
    size = widget.size() * scale
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(widget.palette().window().color())
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(scale, scale)
    QWidget.render(widget, painter, QPoint(0, 0))
    painter.end()
    return image


def export_png(widget: QWidget, path, scale: float = 1.0, hide=None) -> Path:
    """Save the plot (or any widget) as a PNG at ``scale`` × its size on screen, without
    the hints ``hide`` (a panel's ``export_hints()``)."""
    path = Path(path)
    write_bytes_atomic(path, _png_bytes(render_image(widget, scale, hide)))
    return path


def _svg_by_painting(widget: QWidget) -> bytes:
    """The widget painted into Qt's SVG generator (vector paths and text)."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(widget.size())
    generator.setViewBox(QRectF(0, 0, widget.width(), widget.height()))
    generator.setTitle(widget.accessibleName() or widget.objectName())
    painter = QPainter(generator)
    QWidget.render(widget, painter, QPoint(0, 0))
    painter.end()
    return bytes(buffer.data())


def export_svg(widget: QWidget, path, hide=None) -> Path:
    """Save the plot (or any widget) as an SVG drawing, without the hints ``hide``."""
    path = Path(path)
    data = None
    item = _graphics_item(widget)
    with hints_hidden(_panel_hints(widget, hide)), _items_uncached(widget):
        if item is not None:
            try:
                data = pg.exporters.SVGExporter(item).export(toBytes=True)
            except ValueError:
                # pyqtgraph 0.14's SVGExporter cannot parse the closed paths ("… Z")
                # that Qt ≥ 6.10 writes (pyqtgraph issue 3495); Qt's own generator can.
                data = None
            if isinstance(data, str):
                data = data.encode("utf-8")
        if data is None:
            data = _svg_by_painting(widget)
    write_bytes_atomic(path, bytes(data))
    return path


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-") or "table"


def table_csv(headers, rows) -> str:
    """One table as CSV text (numbers written with full precision)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([repr(float(v)) if isinstance(v, (float, np.floating)) else v for v in row])
    return out.getvalue()


def export_csv(tables: dict, path) -> list[Path]:
    """Save ``data_tables()`` as CSV: one table to ``path`` itself; several to
    ``<stem>-<table>.csv`` beside it. Returns the files written."""
    if not tables:
        raise ExportError("this panel has no data to export")
    path = Path(path)
    stem = path.name[:-4] if path.name.lower().endswith(".csv") else path.name
    written = []
    for name, (headers, rows) in tables.items():
        target = path if len(tables) == 1 else path.with_name(f"{stem}-{_safe_name(name)}.csv")
        write_text_atomic(target, table_csv(headers, rows))
        written.append(target)
    return written


# -- animations ----------------------------------------------------------------
def record_frames(panel, widget: QWidget, max_frames: int = MAX_ANIMATION_FRAMES,
                  progress=None) -> list[QImage]:
    """Step the panel's animation and grab ``widget`` after each frame, the panel's
    ``export_hints()`` hidden. The generator is closed at the end, so the panel returns
    to what it showed before. ``progress(frames_so_far, max_frames)`` may return False
    to stop early."""
    frames: list[QImage] = []
    steps = panel.animation_frames(max_frames)
    hints = getattr(panel, "export_hints", tuple)()
    with hints_hidden(hints):
        _record(steps, widget, frames, max_frames, progress)
    if not frames:
        raise ExportError(f"the {panel.title} panel has no animation to record")
    return frames


def _record(steps, widget: QWidget, frames: list[QImage], max_frames: int, progress) -> None:
    try:
        for _ in steps:
            QApplication.processEvents()
            frames.append(widget.grab().toImage())
            if len(frames) >= max_frames:
                break
            if progress is not None and progress(len(frames), max_frames) is False:
                break
    finally:
        close = getattr(steps, "close", None)
        if close is not None:
            close()
        QApplication.processEvents()


def _rgb_array(image: QImage, even: bool = False) -> np.ndarray:
    """An H×W×3 uint8 copy of the image (cropped to even sides for video encoders)."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes())
    rgb = data.reshape(h, image.bytesPerLine())[:, : w * 3].reshape(h, w, 3)
    if even:
        rgb = rgb[: h - h % 2, : w - w % 2]
    return rgb.copy()


def gif_available() -> bool:
    return importlib.util.find_spec("PIL") is not None


def mp4_available() -> bool:
    return importlib.util.find_spec("av") is not None


def write_gif(frames: list[QImage], path, fps: float = GIF_FPS) -> Path:
    """Save frames as a looping GIF (Pillow; one adaptive palette per frame)."""
    if not gif_available():
        raise ExportError("GIF export needs Pillow: pip install pillow")
    from PIL import Image

    images = [Image.fromarray(_rgb_array(f)).quantize(colors=256) for f in frames]
    buffer = io.BytesIO()
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:],
                   duration=round(1000 / fps), loop=0)
    path = Path(path)
    write_bytes_atomic(path, buffer.getvalue())
    return path


def write_mp4(frames: list[QImage], path, fps: float = GIF_FPS) -> Path:
    """Save frames as an H.264 MP4 (PyAV, which ships its own FFmpeg). Encoded in
    memory (at most MAX_ANIMATION_FRAMES frames: a few MB), then saved as every export
    is: through a symbolic link to its target, and on Windows over a file a video
    player still holds open once it lets go (``write_bytes_atomic``)."""
    if not mp4_available():
        raise ExportError("MP4 export needs PyAV: pip install av")
    import av

    arrays = [_rgb_array(f, even=True) for f in frames]
    h, w = arrays[0].shape[:2]
    path = Path(path)
    buffer = io.BytesIO()
    with av.open(buffer, mode="w", format="mp4") as container:
        codec = "libx264" if "libx264" in av.codecs_available else "mpeg4"
        stream = container.add_stream(codec, rate=round(fps))
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        for rgb in arrays:
            rgb = rgb[:h, :w] if rgb.shape[:2] != (h, w) else rgb
            for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    write_bytes_atomic(path, buffer.getvalue())
    return path


def export_animation(panel, widget: QWidget, path, max_frames: int = MAX_ANIMATION_FRAMES,
                     fps: float = GIF_FPS, progress=None) -> Path:
    """Record the panel's animation and save it as GIF or MP4 (by the file's suffix)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ExportError(f"{path.name}: an animation is saved as .gif or .mp4")
    if suffix == ".gif" and not gif_available():
        raise ExportError("GIF export needs Pillow: pip install pillow")
    if suffix == ".mp4" and not mp4_available():
        raise ExportError("MP4 export needs PyAV: pip install av")
    frames = record_frames(panel, widget, max_frames, progress)
    return write_gif(frames, path, fps) if suffix == ".gif" else write_mp4(frames, path, fps)
