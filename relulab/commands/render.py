"""``relulab render [SCENE] -o OUT.png [--panel NAME] [--size WxH]``: draw a panel offscreen.

Without a scene the panel's default state is drawn. The picture is the panel as it
looks in the window (``--lecture``: in the lecture layout, controls hidden), or just
its main plot with ``--plot`` (another plot with ``--plot NAME``). ``.svg`` output
draws the main plot as vectors.
The panel's background work (a conversion, a deep tent) is waited for, up to a
minute. Exit code 0 on success; 1 when the scene or the output is wrong; 2 for bad
arguments; the problem is one line on standard error.
"""

from __future__ import annotations

import argparse
import os
import sys

from relulab.commands._edge import Failure, OneLineParser, run
from relulab.commands._offscreen import check_zoom, checked_output, quiet_qt

MIN_SIDE, MAX_SIDE = 64, 8192
#: How long a panel's background work (a conversion, a deep tent) may take to appear.
RENDER_WAIT_SECONDS = 60.0


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1280x800") from None
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise argparse.ArgumentTypeError(
            f"{text!r}: each side must be between {MIN_SIDE} and {MAX_SIDE} pixels")
    return w, h


def parser() -> argparse.ArgumentParser:
    from relulab.ui.panels import PANEL_NAMES  # Qt-free

    p = OneLineParser(prog="relulab render", description="Draw a panel offscreen to a PNG or SVG file.")
    p.add_argument("scene", nargs="?", help="a scene file (.relulab.json); default: the default state")
    p.add_argument("-o", "--output", required=True, help="the picture to write (.png or .svg)")
    p.add_argument("--panel", choices=PANEL_NAMES,
                   help="the panel to draw (default: the scene's current panel, else the first)")
    p.add_argument("--size", type=_size, default=(1280, 800), help="WIDTHxHEIGHT in pixels (1280x800)")
    p.add_argument("--theme", choices=["light", "dark", "high-contrast"], default="light")
    p.add_argument("--zoom", type=float, default=1.0, help="fonts, lines and handles (1.0)")
    p.add_argument("--plot", nargs="?", const="", metavar="NAME",
                   help="only a plot of the panel (its main plot, or the one named)")
    p.add_argument("--lecture", action="store_true", help="the lecture layout (controls hidden)")
    return p


def main(argv: list[str] | None = None) -> int:
    return run("render", _main, argv)


def _main(argv: list[str], reading: list[str]) -> int:
    args = parser().parse_args(argv)
    out = checked_output(args.output, (".png", ".svg"))
    suffix = os.path.splitext(out)[1].lower()
    check_zoom(args.zoom)
    from relulab.io.atomic import check_writable

    try:  # refused before the panel is drawn, not after
        check_writable(out)
    except OSError as exc:
        raise Failure(f"{args.output}: cannot write ({exc.strerror or exc})") from None
    if args.scene and os.path.exists(out) and os.path.exists(args.scene) \
            and os.path.samefile(args.scene, out):
        raise Failure(f"{args.output}: the output is the scene read; choose another name", 2)

    from relulab.io.scenes import SceneError, read_scene
    from relulab.ui.panels import PANEL_NAMES

    scene = None
    if args.scene:
        try:
            scene = read_scene(args.scene, PANEL_NAMES)
        except SceneError as exc:
            raise Failure(f"{args.scene}: {exc}") from None
    name = args.panel or (scene.current if scene and scene.current else None) \
        or (next(iter(scene.panels), None) if scene else None) or PANEL_NAMES[0]

    try:
        with quiet_qt():
            _render(args, scene, name, out, suffix)
    except (Failure, KeyboardInterrupt):
        raise
    except SceneError as exc:
        raise Failure(f"{args.scene}: {exc}") from None
    except Exception as exc:  # one line, whatever went wrong
        raise Failure(f"could not draw the {name} panel: {type(exc).__name__}: {exc}") from None
    print(out)
    return 0


def _render(args, scene, name: str, out: str, suffix: str) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from relulab.ui.application import ensure_application

    ensure_application()
    from relulab.io.scenes import SceneError
    from relulab.ui import export
    from relulab.ui.panels import spec
    from relulab.ui.theme import Theme, set_current_theme

    theme = Theme(args.theme, args.zoom)
    set_current_theme(theme)
    theme.apply_to_application()
    panel = spec(name).load()()
    try:
        if scene is not None and name in scene.panels:
            try:
                panel.load_state(scene.panels[name])
            except ValueError as exc:
                raise SceneError(f"panels.{name}", str(exc)) from exc
        panel.set_lecture_layout(args.lecture)
        w, h = args.size
        # A panel that needs more room than asked for is drawn larger and scaled down
        # evenly, so the picture has exactly the size asked for and nothing is clipped.
        need = panel.minimumSizeHint()
        s = max(1.0, need.width() / w, need.height() / h)
        logical = (round(w * s), round(h * s))
        panel.resize(*(logical if args.plot is None else args.size))
        panel.show()
        panel.wait_until_idle(RENDER_WAIT_SECONDS)  # the background work shows too
        for _ in range(3):  # layouts settle, then plots paint
            QApplication.processEvents()
        target = panel
        plots = panel.plots()
        if args.plot is not None or suffix == ".svg":
            if args.plot and args.plot not in plots:
                raise Failure(f"--plot {args.plot}: the {name} panel has no such plot "
                              f"(it has: {', '.join(plots) or 'none'})")
            target = plots[args.plot] if args.plot else next(iter(plots.values()), None)
            if target is None:
                raise Failure(f"the {name} panel has no plot to draw")
        if args.plot is not None:  # the plot alone, at the full size
            target.setParent(None)
            target.resize(*args.size)
            target.show()
            for _ in range(3):
                QApplication.processEvents()
        if suffix == ".svg":
            export.export_svg(target, out)
        else:
            from relulab.io.atomic import write_bytes_atomic

            image = target.grab().toImage()
            if image.size().toTuple() != tuple(args.size):
                image = image.scaled(*args.size, Qt.AspectRatioMode.IgnoreAspectRatio,
                                     Qt.TransformationMode.SmoothTransformation)
            write_bytes_atomic(out, export._png_bytes(image))
        if target is not panel:
            target.close()
            target.deleteLater()
    finally:
        panel.shutdown()
        panel.close()
        panel.deleteLater()
        QApplication.processEvents()


if __name__ == "__main__":
    sys.exit(main())
