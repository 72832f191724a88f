"""Generate every application icon from the master SVG.

    python packaging/make_icons.py

reads ``resources/icon.svg`` and writes, under ``relulab/resources/icons/``:

- ``hicolor/<N>x<N>/apps/<APP_ID>.png`` for N in 16 … 512 (Linux icon theme
  layout, also what the running app loads as its window icon),
- ``hicolor/scalable/apps/<APP_ID>.svg`` (a copy of the master),
- ``<APP_ID>.ico`` (Windows: 16 … 256 px in one file),
- ``<APP_ID>.icns`` (macOS: 16 … 1024 px in one file).

Qt's SVG renderer draws each size from the vector source (a small icon is
drawn small, not shrunk from a big bitmap); Pillow packs the .ico and .icns.
The generated files are committed so the wheel and the frozen build carry
them; rerun this script after editing the SVG.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import relulab  # noqa: E402  (after the path so the source tree is used)

SOURCE = ROOT / "resources" / "icon.svg"
ICONS = ROOT / "relulab" / "resources" / "icons"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn into a size × size transparent PNG, as bytes."""
    from PySide6.QtCore import QBuffer, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG for Qt")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data())


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    try:
        from PIL import Image
    except ImportError:
        raise SystemExit("Pillow is needed for the .ico and .icns files: pip install Pillow") from None

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    name = relulab.APP_ID
    hicolor = ICONS / "hicolor"
    if hicolor.exists():
        shutil.rmtree(hicolor)

    pngs = {size: render_png(SOURCE, size) for size in sorted(set(PNG_SIZES + ICNS_SIZES))}
    for size in PNG_SIZES:
        out = hicolor / f"{size}x{size}" / "apps" / f"{name}.png"
        out.parent.mkdir(parents=True)
        out.write_bytes(pngs[size])
    scalable = hicolor / "scalable" / "apps" / f"{name}.svg"
    scalable.parent.mkdir(parents=True)
    shutil.copyfile(SOURCE, scalable)

    def images(sizes):
        return [Image.open(io.BytesIO(pngs[s])).convert("RGBA") for s in sizes]

    # Pillow takes the frame of each requested size from append_images, so each
    # size is the one Qt drew, not a downscale of the largest.
    ico = images(ICO_SIZES)
    ico[-1].save(ICONS / f"{name}.ico", format="ICO",
                 sizes=[(s, s) for s in ICO_SIZES], append_images=ico[:-1])
    icns = images(ICNS_SIZES)
    icns[-1].save(ICONS / f"{name}.icns", format="ICNS", append_images=icns[:-1])

    for path in sorted(ICONS.rglob("*")):
        if path.is_file():
            print(path.relative_to(ROOT), path.stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
