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

Bad input (a file, a point, a dimension) exits with status 1 and one line on
standard error; a usage mistake with status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from relulab.commands._edge import Failure as _Failure
from relulab.commands._edge import run


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not usage + error
        raise _Failure(f"{message} (see relulab slice --help)", 2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="relulab slice",
                description="Restrict a network to the line through two points or the plane "
                            "through three; write the restricted network.",
                epilog="A point: a row number of --points (from 0), numbers separated by "
                       "commas ([-1,2,3] in brackets when it starts with a minus sign), zeros, "
                       "ones, mean or e<i>.")
    p.add_argument("input", metavar="IN", help="network (.json, .npz or .onnx)")
    p.add_argument("output", metavar="OUT", help="where to write the restricted network")
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
    from relulab.io.networks import SUFFIXES, NetworkFileError, load_network, save_network
    from relulab.io.points import PointsFileError, load_input_rows
    from relulab.model.networks.mlp import MLP
    from relulab.model.regions.slices import parse_points, slice_state

    args = _parser().parse_args(argv)
    out = Path(args.output)
    if out.suffix.lower() not in SUFFIXES:
        raise _Failure(f"{out.name}: unknown output type {out.suffix or '(no extension)'!r}; "
                       f"use {', '.join(SUFFIXES)}")
    if not out.parent.exists():
        raise _Failure(f"{out}: the folder {out.parent} does not exist")
    try:
        net = load_network(args.input)
    except NetworkFileError as e:
        raise _Failure(str(e)) from None
    if not isinstance(net, MLP):
        raise _Failure(f"{Path(args.input).name}: an extended (±∞) network cannot be sliced")
    kind, texts = ("line", args.line) if args.line else ("plane", args.plane)
    if kind == "plane" and net.n_in < 2:
        raise _Failure(f"{Path(args.input).name}: a plane needs a network with at least 2 "
                       "inputs, this one has 1")
    rows = None
    if args.points is not None:
        try:
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
    restricted = cut.restrict(net)
    if not restricted.is_finite():
        raise _Failure("the restricted network's first layer overflows (points or weights "
                       "beyond the range of doubles)")
    if args.report:
        print("\n".join(report_lines(net, cut, restricted, rows)))
    try:
        save_network(restricted, out)
    except NetworkFileError as e:
        raise _Failure(str(e)) from None
    return 0


if __name__ == "__main__":
    sys.exit(main())

