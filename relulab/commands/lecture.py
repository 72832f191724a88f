"""``relulab lecture export LECTURE -o OUT.pdf [--notes]``: a lecture's handout, offscreen.

LECTURE is a playlist file, a folder holding ``playlist.json``, or ``builtin`` (the
built-in lecture). The PDF has one page a scene: its title, its picture at print
resolution and its caption (``--notes``: the presenter's notes too). Exit code 0 on
success; 1 when the lecture or the output is wrong; 2 for bad arguments; the problem
is one line on standard error.

While it draws, standard error shows the progress: on a terminal a bar counting the
scenes; elsewhere (a pipe: the window reads it) a line ``relulab lecture: drawing
scene i of n`` before each page, for lectures expected to take 2 s or more.
"""

from __future__ import annotations

import argparse
import os
import sys

from relulab.commands._edge import Failure, OneLineParser, run
from relulab.commands._offscreen import check_zoom, checked_output, quiet_qt
from relulab.commands._progress import Progress

#: About how long one scene's page takes to draw (1.5 s on a laptop; the built-in
#: ten-scene lecture takes 15 s): a lecture of two scenes or more says which scene it
#: is drawing even off a terminal.
SCENE_SECONDS = 1.5


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="relulab lecture", description="Work with lectures without the window.")
    sub = p.add_subparsers(dest="action", required=True)
    e = sub.add_parser("export", help="write a lecture's handout as a PDF")
    e.add_argument("lecture", help="a playlist file, a folder with playlist.json, or 'builtin'")
    e.add_argument("-o", "--output", required=True, help="the PDF to write")
    e.add_argument("--notes", action="store_true", help="print the presenter's notes too")
    e.add_argument("--theme", choices=["light", "dark", "high-contrast"], default="light",
                   help="the pictures' colours (light: for paper)")
    e.add_argument("--zoom", type=float, default=1.0, help="fonts, lines and handles (1.0)")
    return p


def main(argv: list[str] | None = None) -> int:
    return run("lecture", _main, argv)


def _main(argv: list[str], reading: list[str]) -> int:
    args = parser().parse_args(argv)
    out = checked_output(args.output, (".pdf",))
    check_zoom(args.zoom)

    from relulab.io.scenes import SceneError, builtin_lecture_path, read_lecture, read_playlist
    from relulab.ui.panels import PANEL_NAMES

    try:
        if args.lecture == "builtin" and not os.path.exists(args.lecture):
            playlist = read_playlist(builtin_lecture_path(), PANEL_NAMES)
        else:
            playlist = read_lecture(args.lecture, PANEL_NAMES)
    except SceneError as exc:
        raise Failure(f"{args.lecture}: {exc}") from None

    try:
        with quiet_qt():
            _export(args, playlist, out)
    except (Failure, KeyboardInterrupt):
        raise
    except SceneError as exc:
        raise Failure(f"{args.lecture}: {exc}") from None
    except OSError as exc:
        raise Failure(f"{args.output}: {exc.strerror or exc}") from None
    except Exception as exc:  # one line, whatever went wrong
        raise Failure(f"could not write the handout: {type(exc).__name__}: {exc}") from None
    print(out)
    return 0


def _export(args, playlist, out: str) -> None:
    from relulab.ui.application import ensure_application

    ensure_application()
    from relulab.ui.lecture.handout import write_handout
    from relulab.ui.theme import Theme, set_current_theme

    theme = Theme(args.theme, args.zoom)
    set_current_theme(theme)
    theme.apply_to_application()
    with Progress("lecture") as progress:
        n = len(playlist.scenes)
        progress.expect(n * SCENE_SECONDS)
        with progress.stage(f"Drawing the handout's {n} scenes", total=n) as stage:
            def drawing(i: int, n: int) -> None:
                if i:
                    stage.advance()
                if progress.loud and not progress.terminal:
                    # one line a scene: the window reads these for its progress bar
                    progress.say(f"drawing scene {i + 1} of {n}")

            write_handout(playlist, out, args.notes, progress=drawing)


if __name__ == "__main__":
    sys.exit(main())
