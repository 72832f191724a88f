"""``relulab convert IN OUT [--report]``: a deep ReLU network in, its exact shallow equal out.

1-D input gives an ordinary network with one hidden layer (finite weights, least
width); 2-D to 4-D input gives the three-hidden-layer network with ±∞ rows (JSON
or NPZ; ``--big-m M`` writes a finite stand-in instead, which ONNX can hold, and
reports where it may be wrong). Formats follow the extensions (.json, .npz, .onnx).
A bad input exits with status 1 and one line on standard error naming the file,
the field and the problem; ``main`` is the command's edge, where anything that
escaped (a bug) still ends as one line and a non-zero status. A conversion whose
check finds deep and shallow different beyond rounding exits with status 3 and
writes nothing (docs/deep-to-shallow.md, "What is certified").
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
from pathlib import Path

import numpy as np

from relulab.commands._edge import Failure as _Failure
from relulab.commands._edge import run, say

#: Loading the compiled region engine from numba's disk cache takes a fraction of a
#: second; past this the command says that it is compiling (a first run: seconds).
ENGINE_NOTICE_SECONDS = 1.0


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not usage + error
        raise _Failure(f"{message} (see relulab convert --help)", 2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="relulab convert",
                description="Convert a deep ReLU network into an exactly equal shallow one.")
    p.add_argument("input", metavar="IN", help="deep network (.json, .npz or .onnx)")
    p.add_argument("output", metavar="OUT", help="where to write the shallow network")
    p.add_argument("--report", action="store_true", help="print sizes, bound and the check")
    p.add_argument("--big-m", type=float, metavar="M",
                   help="n-D only: write the finite big-M version (∞ replaced by M)")
    p.add_argument("--points", type=int, default=256, metavar="N",
                   help="random points for the sanity check beside the proof (default 256)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random points")
    return p


def _arch(sizes) -> str:
    return "-".join(str(s) for s in sizes)


def prepare_engine(n_in: int) -> None:
    """Load the compiled region engine for ``n_in`` inputs, saying so on standard error
    when that takes long enough to notice (the first run compiles it)."""
    from relulab.model.regions.arrangement import warm_up

    thread = threading.Thread(target=_quietly, args=(warm_up, n_in), daemon=True,
                              name="relulab-region-engine")
    thread.start()
    thread.join(ENGINE_NOTICE_SECONDS)
    if thread.is_alive():
        _say("preparing the compiled region engine (first run only; it takes seconds)…")
        thread.join()
    warm_up(n_in)  # at once; or the compile error, raised here


def _quietly(fn, *args) -> None:
    with contextlib.suppress(Exception):
        fn(*args)


def report_lines(conv, verification, seconds: float, big_m=None) -> list[str]:
    """The human-readable report of one conversion."""
    deep = conv.deep
    n, m = conv.n_in, conv.n_out
    lines = [
        f"input size n = {n}, output size m = {m}",
        f"deep network: {_arch(deep.sizes)}: {len(deep.hidden_sizes)} hidden layers, "
        f"{deep.n_hidden_neurons} neurons, {deep.n_params} parameters",
    ]
    widths = conv.shallow_widths
    if conv.one_d is not None:
        one = conv.one_d
        lines.append(f"kinks: K = {len(one.kinks)} (activation regions along the line: p = {conv.p})")
        lines.append(f"shallow network: one hidden layer of width {one.width}, finite weights, "
                     f"{conv.shallow.n_params} parameters")
        lines.append(f"width rule: {one.rule}")
    else:
        lower = sum(not r.is_full_dimensional() for r in conv.regions)
        lines.append(f"activation regions: p = {conv.p} ({lower} lower-dimensional), "
                     f"distinct constraints k = {conv.k}")
        lines.append(f"shallow network: 3 hidden layers of widths {', '.join(map(str, widths))} "
                     f"(±∞ rows stored factored), {conv.shallow.n_params} parameters, "
                     f"{conv.shallow.n_nonzero} of them non-zero")
    widest = max(widths) if widths else 0
    lines.append(f"Corollary 1 bound: {conv.bound_text()}; widest shallow layer {widest}")
    if verification.proof is not None:
        lines.append(f"region-by-region proof: {verification.proof.text()}")
    else:
        lines.append(f"largest |deep − shallow| at {verification.n_exact_points} kinks, "
                     f"midpoints between them and beyond the ends: "
                     f"{verification.max_error_exact_points:.3g}")
    lines.append(f"largest |deep − shallow| at {verification.n_random} random points: "
                 f"{verification.max_error_random:.3g}")
    if verification.end_slopes_agree is not None:
        lines.append(f"end slopes agree: {'yes' if verification.end_slopes_agree else 'NO'}")
    if verification.max_rounding_ratio is not None:
        lines.append(f"largest difference / rounding bound: {verification.max_rounding_ratio:.3g} "
                     "(≤ 1: equal up to rounding)")
    if conv.one_d is not None:
        lines.append(f"kinks: {conv.one_d.certificate}; least width "
                     + ("proven" if conv.one_d.least_width_proven else "not proven"))
    if big_m is not None:
        lines.append(big_m.text())
    lines.append(f"time: {seconds:.3f} s")
    if conv.one_d is None:
        from relulab.model.regions.arrangement import engine_status

        lines.append(f"compiled region engine: {engine_status(n)}")
    return lines


def _say(message: str) -> None:
    say("convert", message)


def main(argv: list[str] | None = None) -> int:
    return run("convert", _run, argv)


def _run(argv, reading: list[str]) -> int:
    from relulab.io.networks import SUFFIXES, NetworkFileError, load_network, save_network
    from relulab.model.lessons.converter import MAX_INPUTS
    from relulab.model.networks.mlp import MLP
    from relulab.model.shallow.construction import big_m_network, big_m_report, convert

    args = _parser().parse_args(argv)
    out = Path(args.output)
    if out.suffix.lower() not in SUFFIXES:
        raise _Failure(f"{out.name}: unknown output type {out.suffix or '(no extension)'!r}; "
                       f"use {', '.join(SUFFIXES)}")
    if not out.parent.exists():
        raise _Failure(f"{out}: the folder {out.parent} does not exist")
    if args.points < 1:
        raise _Failure("--points must be at least 1")
    if args.big_m is not None and not (np.isfinite(args.big_m) and args.big_m > 0):
        raise _Failure(f"--big-m must be a positive number, got {args.big_m}")
    reading.append(Path(args.input).name)
    try:
        deep = load_network(args.input)
    except NetworkFileError as e:
        raise _Failure(str(e)) from None
    if not isinstance(deep, MLP):
        raise _Failure(f"{Path(args.input).name}: already an extended (±∞) network, not a deep one")
    if deep.activation != "relu":
        raise _Failure(f"{Path(args.input).name}: hidden activation {deep.activation!r}; "
                       "the converter needs ReLU")
    if deep.n_in > MAX_INPUTS:
        raise _Failure(f"{Path(args.input).name}: {deep.n_in} inputs; the converter handles "
                       f"1 to {MAX_INPUTS} (regions grow too fast beyond): convert a line or "
                       "plane through it, written by relulab slice")
    if deep.n_in >= 2 and out.suffix.lower() == ".onnx" and args.big_m is None:
        raise _Failure(f"{out.name}: ONNX cannot hold the ±∞ weights of the exact shallow "
                       "network; write .json or .npz, or add --big-m M for a finite version")
    if deep.n_in == 1 and args.big_m is not None:
        raise _Failure("--big-m is for 2-D and up: the 1-D shallow network is already finite")

    if deep.n_in >= 2:
        prepare_engine(deep.n_in)
    t0 = time.perf_counter()
    conv = convert(deep)
    verification = conv.verify(n_random=args.points, seed=args.seed)
    written = conv.shallow
    rep = None
    if args.big_m is not None:
        written = big_m_network(conv.shallow, args.big_m)
        rep = big_m_report(deep, conv.regions, args.big_m)
    seconds = time.perf_counter() - t0
    if args.report:
        print("\n".join(report_lines(conv, verification, seconds, rep)))
    # 1-D: within the scale-relative rounding bound (relulab.model.shallow.construction.ROUNDING);
    # n-D: within 1e-9 of the size of the outputs' terms. Otherwise nothing is written.
    if not verification.ok():
        raise _Failure(_mismatch(verification) + f"; {out.name} not written", 3)
    try:
        save_network(written, out)
    except NetworkFileError as e:
        raise _Failure(str(e)) from None
    return 0


def _mismatch(v) -> str:
    if not v.finite:
        return "deep or shallow network gives NaN or ±inf (values beyond double precision)"
    if v.proof is not None and not v.proof.proven:
        return f"deep and shallow are not proven equal ({v.proof.reason})"
    if v.end_slopes_agree is False:
        return "deep and shallow networks have different slopes on the rays"
    worst = max(v.max_error_exact_points, v.max_error_random)
    if v.max_rounding_ratio is not None:
        return (f"deep and shallow differ by up to {worst:.3g}, {v.max_rounding_ratio:.3g} times "
                "the rounding bound")
    return f"deep and shallow differ by up to {worst:.3g}, more than rounding"


if __name__ == "__main__":
    sys.exit(main())
