"""``relulab export-code SCENE OUT.py|OUT.ipynb [--panel NAME] [--torch]``: a panel's
experiment in a scene file as a self-contained Python script (numpy only) or a Jupyter
notebook that rebuilds the data, the network and the training and prints the panel's
readouts (:mod:`relulab.io.codegen`).

The panel is ``--panel``, else the scene's current panel, else its only panel that can
be exported. The file is saved atomically. Bad input exits with status 1 and one line
on standard error; a usage mistake with status 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from relulab.commands._edge import Failure as _Failure
from relulab.commands._edge import OneLineParser, run


class _Parser(OneLineParser):
    hint = " (see relulab export-code --help)"


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="relulab export-code",
                description="Write a panel's experiment in a scene as a numpy script or a "
                            "Jupyter notebook that prints the panel's readouts.")
    p.add_argument("scene", metavar="SCENE", help="a scene file (.relulab.json)")
    p.add_argument("output", metavar="OUT", help="the script (.py) or notebook (.ipynb) to write")
    p.add_argument("--panel", metavar="NAME", help="the panel to export (default: the scene's "
                   "current panel)")
    p.add_argument("--torch", action="store_true",
                   help="a PyTorch version (the Playground and the Training panel)")
    return p


def main(argv: list[str] | None = None) -> int:
    return run("export-code", _run, argv)


def choose_panel(panels: dict, current: str | None, asked: str | None, exportable) -> str:
    """The panel to export: the one asked for, else the current one, else the only one
    that can be exported."""
    if asked is not None:
        if asked not in panels:
            raise _Failure(f"the scene has no {asked} panel (it has {', '.join(panels) or 'none'})")
        return asked
    if current in panels and current in exportable:
        return current
    can = [name for name in panels if name in exportable]
    if len(can) == 1:
        return can[0]
    if not can:
        raise _Failure(f"the scene has no panel that can be exported as code "
                       f"(these can: {', '.join(exportable)})")
    raise _Failure(f"the scene has {', '.join(can)}: say which with --panel")


def _run(argv: list[str], reading: list[str]) -> int:
    args = _parser().parse_args(argv)
    from relulab.io.atomic import write_text_atomic
    from relulab.io.codegen import EXPORTERS, CodeExportError, code_for
    from relulab.io.scenes import read_scene

    out = Path(args.output)
    if out.suffix not in (".py", ".ipynb"):
        raise _Failure(f"{out.name}: the output must end in .py or .ipynb", 2)
    reading.append(args.scene)
    try:
        scene = read_scene(args.scene)
    except (ValueError, OSError) as e:  # SceneError and FileRefused are ValueErrors
        raise _Failure(str(e)) from None
    panel = choose_panel(scene.panels, scene.current, args.panel, EXPORTERS)
    try:
        text = code_for(panel, scene.panels[panel], out.suffix, torch=args.torch)
    except CodeExportError as e:
        raise _Failure(str(e)) from None
    reading.append(str(out))
    try:
        write_text_atomic(out, text)
    except OSError as e:
        raise _Failure(f"{out}: {e.strerror or e}") from None
    print(f"wrote {out} ({panel} panel)")
    return 0
