"""``relulab slice IN OUT (--line A B | --plane A B C) [--points FILE]``: a network
restricted to the line through two points or the plane through three.

The restricted network has 1 or 2 inputs, the coordinates along orthonormal
directions from A (B on the first axis), and the same hidden layers: ``relulab
convert`` then converts it, and the app opens it as an ordinary small network.

A point is a row number of the points file (counting from 0), a vector of the
network's n inputs written as numbers separated by commas (``0.5,0,1``; one that
starts with a minus sign is written in brackets, ``[-1,2,3]``, so that it is not
read as an option), or ``zeros``, ``ones``, ``mean`` (of the points file) or
``e<i>``, the unit vector along input i (counting from 0). See relulab.model.regions.slices.

The output's format is OUT's extension or ``--format``, else the size's (JSON, or NPZ
for a large network: :mod:`relulab.commands._output`). On a terminal the command
shows its stages and says what it writes (:mod:`relulab.commands._progress`). A network
beyond the limits of one the Deep → shallow panel looks at on a slice
(:func:`relulab.model.lessons.converter.check_sliced_size`) is refused unless ``--force``.

Bad input (a file, a point, a dimension) exits with status 1 and one line on
standard error; a usage mistake with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from relulab.commands import _output, _plan
from relulab.commands._edge import Failure as _Failure
from relulab.commands._edge import OneLineParser, run
from relulab.commands._progress import Progress


class _Parser(OneLineParser):
    hint = " (see relulab slice --help)"


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="relulab slice",
                description="Restrict a network to the line through two points or the plane "
                            "through three; write the restricted network.",
                epilog="A point: a row number of --points (from 0), numbers separated by "
                       "commas ([-1,2,3] in brackets when it starts with a minus sign), zeros, "
                       "ones, mean or e<i>.")
    p.add_argument("input", metavar="IN", help="network (.json, .npz or .onnx)")
    p.add_argument("output", metavar="OUT", nargs="?",
                   help="where to write the restricted network (default: IN's name with "
                        "-line or -plane, in this folder; a name without an extension gets "
                        "the format's)")
    p.add_argument("-o", "--output", dest="output_option", metavar="OUT", help="the same as OUT")
    p.add_argument("--format", choices=_output.FORMATS,
                   help=_output.format_help())
    p.add_argument("--force", action="store_true",
                   help="slice a network beyond the Deep → shallow panel's limits for one "
                        "looked at on a slice (hidden neurons, outputs)")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--line", nargs=2, metavar=("A", "B"), help="the line through A and B")
    how.add_argument("--plane", nargs=3, metavar=("A", "B", "C"),
                     help="the plane through A, B and C")
    p.add_argument("--points", metavar="FILE", help="rows of inputs (.csv or .npz) that row "
                   "numbers and mean refer to")
    p.add_argument("--report", action="store_true", help="print the slice and the sizes")
    return p


def main(argv: list[str] | None = None) -> int:
    return run("slice", lambda args, _reading: _run(args), argv)


def report_lines(net, cut, restricted, rows=None) -> list[str]:
    """What ``--report`` prints: the network, the points and the restricted network."""
    def arch(n) -> str:
        return "-".join(map(str, n.sizes))

    kind = cut.kind
    lines = [f"network: {arch(net)} ({net.n_in} inputs)",
             f"slice: the {kind} through {', '.join(cut.labels)}"]
    names = ("t",) if kind == "line" else ("t1", "t2")
    for label, t in zip(cut.labels, cut.coords):
        coords = ", ".join(f"{n} = {v:.6g}" for n, v in zip(names, t))
        lines.append(f"  {label}: {coords}")
    lines.append("directions: orthonormal (distances along the slice are distances in input "
                 "space)")
    lines.append(f"restricted network: {arch(restricted)}; first layer W·D and W·o + b, "
                 "rounded to doubles")
    return lines


def _run(argv) -> int:
    args = _parser().parse_args(argv)
    if args.output is not None and args.output_option is not None:
        raise _Failure("give OUT or -o OUT, not both (see relulab slice --help)", 2)
    kind = "line" if args.line else "plane"
    out = _output.resolve(args.output if args.output is not None else args.output_option,
                          args.format, f"{Path(args.input).stem}-{kind}", "slice", args.input)
    with Progress("slice") as progress:
        return _slice(args, kind, out, progress)


def _slice(args, kind: str, out: _output.Output, progress: Progress) -> int:
    from relulab.io.networks import NetworkFileError, check_saveable, load_network
    from relulab.io.points import PointsFileError, load_input_rows
    from relulab.model.lessons.converter import check_sliced_size
    from relulab.model.networks.mlp import MLP
    from relulab.model.regions.slices import parse_points, slice_state

    t0 = time.perf_counter()
    name = Path(args.input).name
    try:
        with progress.stage(f"reading {name}"):
            net = load_network(args.input)
    except NetworkFileError as e:
        raise _Failure(str(e)) from None
    if not isinstance(net, MLP):
        raise _Failure(f"{name}: an extended (±∞) network cannot be sliced")
    texts = args.line if kind == "line" else args.plane
    if kind == "plane" and net.n_in < 2:
        raise _Failure(f"{name}: a plane needs a network with at least 2 inputs, this one has 1")
    if not args.force:
        try:
            check_sliced_size(net.sizes, where="without --force (the Deep → shallow panel's "
                                               "limit for a network looked at on a slice)")
        except ValueError as e:
            raise _Failure(f"{name}: {e}") from None
    rows = None
    if args.points is not None:
        try:
            with progress.stage(f"reading {Path(args.points).name}"):
                rows = load_input_rows(args.points)
        except PointsFileError as e:
            raise _Failure(str(e)) from None
        if rows.n_inputs != net.n_in:
            raise _Failure(f"{rows.name} has rows of {rows.n_inputs} numbers; the network has "
                           f"{net.n_in} inputs")
    try:
        points = parse_points(texts, net.n_in, rows)
        cut = slice_state(kind, points, "typed", text="; ".join(texts)).slice()
    except ValueError as e:
        raise _Failure(str(e)) from None
    layout = _plan.mlp_layout([cut.directions.shape[0], *net.sizes[1:]])
    fmt = out.predicted(layout)
    out.check_json(layout)
    progress.expect(layout.write_seconds(fmt))
    if progress.loud:
        progress.say(f"restricted network {'-'.join(map(str, layout.sizes))}: "
                     f"{layout.parameters:,} parameters; {out.path(fmt).name} of about "
                     f"{_plan.bytes_text(layout.bytes_about(fmt))}")
    with progress.stage(f"restricting {name} to the {kind}"):
        restricted = cut.restrict(net)
    if not restricted.is_finite():
        raise _Failure("the restricted network's first layer overflows (points or weights "
                       "beyond the range of doubles)")
    try:  # what relulab convert would refuse to read is not written
        check_saveable(restricted, "the restricted network")
    except NetworkFileError as e:
        raise _Failure(f"{out.path(fmt).name} not written: {e}; its first layer is W·D and "
                       "W·A + b (A the first point): points nearer the origin keep it smaller") \
            from None
    if args.report:
        print("\n".join(report_lines(net, cut, restricted, rows)))
    with progress.stage(f"writing {out.path(fmt).name}", expected=layout.write_seconds(fmt)):
        path, size = out.write(restricted, layout)
    if progress.loud:
        progress.say(f"wrote {path} ({_plan.bytes_text(size)}) in "
                     f"{time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

