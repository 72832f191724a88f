"""Application bootstrap and command line.

``relulab`` opens the window; ``relulab convert …``, ``relulab export-code …``,
``relulab lecture …``, ``relulab render …`` and ``relulab slice …`` run without one.
``--version`` prints and exits before Qt is even imported.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

import relulab

#: Sub-commands that run without the window: name -> module with ``main(argv) -> int``.
COMMANDS = {
    "convert": "relulab.commands.convert",
    "lecture": "relulab.commands.lecture",
    "export-code": "relulab.commands.export_code",
    "render": "relulab.commands.render",
    "slice": "relulab.commands.slice",
}


def _parser() -> argparse.ArgumentParser:
    from relulab.ui.panels import PANEL_NAMES  # Qt-free module
    from relulab.ui.view_choices import THEMES  # Qt-free module

    p = argparse.ArgumentParser(
        prog="relulab",
        description="See how ReLU networks approximate functions.",
        epilog="Commands without a window: " + ", ".join(
            f"relulab {c} --help" for c in COMMANDS),
    )
    p.add_argument("--version", action="version", version=f"relulab {relulab.__version__}")
    p.add_argument("--panel", choices=PANEL_NAMES, help="open on this panel")
    p.add_argument("--theme", choices=THEMES, help="colour theme")
    p.add_argument("--zoom", type=float, help="zoom factor for fonts, lines and handles")
    p.add_argument("--lecture", action="store_true",
                   help="start the built-in lecture (PageDown/PageUp step it)")
    p.add_argument("scene", nargs="?",
                   help="a scene file (.relulab.json) or lecture playlist to open")
    return p


def __getattr__(name: str):
    # The window's builders live in the ui layer (which never imports this entry
    # point); they are imported on first use so that --version runs without Qt.
    if name in ("build_main_window", "ensure_application", "limit_blas_threads", "window_icon",
                "GUI_SWITCH_INTERVAL"):
        from relulab.ui import application

        return getattr(application, name)
    raise AttributeError(f"module 'relulab.app' has no attribute {name!r}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        from relulab.model.core.platform import tolerant_console

        tolerant_console()  # a report or a file name the console cannot show is no failure
        return importlib.import_module(COMMANDS[argv[0]]).main(argv[1:])
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from PySide6.QtCore import QTimer

    from relulab.ui import settings
    from relulab.ui.application import build_main_window, ensure_application
    from relulab.ui.errors import install_exception_hook
    from relulab.ui.worker import freeze_long_lived_objects, freeze_what_lives_now

    app = ensure_application()
    freeze_long_lived_objects()  # one window for the process's life: full collections stay short

    window = build_main_window(panel=args.panel, theme=args.theme, zoom=args.zoom)
    install_exception_hook(window)
    window.session.confirm_close = True  # the app asks before unsaved work is lost
    pending = window.session.start(autosave=True)
    if args.scene:
        window.open_scene(args.scene)
    elif args.lecture:
        window.lecture.start_builtin()
    window.show()
    if pending is not None:  # the last run did not exit cleanly
        QTimer.singleShot(0, window.session.offer_restore)
    elif not (args.scene or args.lecture) and not settings.get("help/welcome_shown"):
        QTimer.singleShot(0, window.show_welcome)  # the first launch: where to start
    freeze_what_lives_now()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
