"""Take the screenshots of the real app for the README and the AppStream metainfo.

    xvfb-run -a -s "-screen 0 1280x800x24" python packaging/screenshots.py

Writes resources/screenshots/main-window.png (the window as it opens, on the
first panel) and <panel>.png for every other panel, each 1280×800, light theme at zoom 1, with fresh
settings so nothing of the user's shows. Each panel shows the demo state it
opens with (the training panels after a few seconds of training).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "resources" / "screenshots"
SIZE = (1280, 800)
#: Panels that train: press their Play button (``<panel>-play``) and let them train
#: this many milliseconds before the picture, so it shows learning, not step 0.
TRAIN_MS = {"training": 8000, "playground": 6000}


def settle(app, ms: int) -> None:
    """Let the window lay out, plots draw and start-up timers run for ms milliseconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    app.processEvents()


def train(app, panel, name: str) -> None:
    """Let a training panel run for a while, then pause it."""
    from PySide6.QtWidgets import QPushButton

    if name not in TRAIN_MS:
        return
    play = panel.findChild(QPushButton, f"{name}-play")
    if play is None:
        print(f"{name}: no {name}-play button; shown untrained", file=sys.stderr)
        return
    play.click()
    settle(app, TRAIN_MS[name])
    play.click()
    settle(app, 500)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    # Fresh settings: nothing from the user's own configuration in the pictures.
    home = tempfile.mkdtemp(prefix="relulab-shots-")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")

    from relulab.app import build_main_window, ensure_application
    from relulab.ui.panels import PANELS

    app = ensure_application()
    window = build_main_window(panel=PANELS[0].name, theme="light", zoom=1.0)
    window.resize(*SIZE)
    window.show()
    settle(app, 1500)
    OUT.mkdir(parents=True, exist_ok=True)
    # The window opens on the first panel: main-window.png is that panel's picture.
    shots = {"main-window": None} | {p.name: p for p in PANELS[1:]}
    for name, spec in shots.items():
        if spec is not None:
            panel = window.show_panel(spec.name) or window.panel(spec.name)
            settle(app, 1500)
            train(app, panel, spec.name)
        image = window.grab().toImage()
        if (image.width(), image.height()) != SIZE:
            raise SystemExit(f"{name}: window is {image.width()}×{image.height()}, not "
                             f"{SIZE[0]}×{SIZE[1]}: run under xvfb-run with a larger screen")
        path = OUT / f"{name}.png"
        image.save(str(path))
        print(path.relative_to(ROOT))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
