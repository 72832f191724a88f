"""``relulab convert IN [OUT] [--report]``: a deep ReLU network in, its exact shallow equal out.

1-D input gives an ordinary network with one hidden layer (finite weights, least
width); 2-D to 4-D input gives the three-hidden-layer network with ±∞ rows (JSON
or NPZ; ``--big-m M`` writes a finite stand-in instead, which ONNX can hold, and
reports where it may be wrong). The format is OUT's extension or ``--format``, else
the size's (JSON, or NPZ for a large network: :mod:`relulab.commands._output`).

Before building, the command says what it will build (parameters, bytes on disk, a
rough time; on a terminal always, elsewhere when it takes seconds) and shows each
stage's progress on a terminal (:mod:`relulab.commands._progress`). It keeps the
Deep → shallow panel's limits unless ``--force``: deep networks within the limits of
one looked at on a slice, at most MAX_REGIONS regions and MAX_SECONDS of enumeration,
and a shallow network of at most MAX_SLICE_SHALLOW_PARAMETERS parameters. A network
certainly beyond them is refused before the region engine is even loaded: a proven
lower bound on its regions (:func:`relulab.commands._plan.regions_at_least`) costs a
fraction of a second.

A bad input exits with status 1 and one line on standard error naming the file,
the field and the problem; ``main`` is the command's edge, where anything that
escaped (a bug) still ends as one line and a non-zero status. A conversion whose
check finds deep and shallow different beyond rounding exits with status 3 and
writes nothing (docs/deep-to-shallow.md, "What is certified").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from relulab.commands import _output, _plan
from relulab.commands._edge import Failure as _Failure
from relulab.commands._edge import OneLineParser, run
from relulab.commands._progress import Progress, duration

#: What the command says when the region engine really compiles (numba's disk cache
#: does not hold it: a first run); a load from the cache says nothing.
FIRST_RUN = "preparing the compiled region engine (first run only; it takes seconds)…"


class _Parser(OneLineParser):
    hint = " (see relulab convert --help)"

    def format_help(self) -> str:
        # the limits come from the region engine's module (a second to import): read
        # them for --help only, so that a refusal answers at once
        if self.epilog is None:
            self.epilog = _limits()
        return super().format_help()


def _limits() -> str:
    from relulab.model.lessons.converter import (
        MAX_SLICE_SHALLOW_PARAMETERS,
        MAX_SLICED_NEURONS,
        MAX_SLICED_OUTPUTS,
    )
    from relulab.model.shallow.construction import MAX_REGIONS, MAX_SECONDS

    return (f"Without --force, networks beyond the Deep → shallow panel's limits are "
            f"refused in one line: more than {MAX_SLICED_NEURONS:,} hidden neurons or "
            f"{MAX_SLICED_OUTPUTS} outputs, more than {MAX_REGIONS:,} activation "
            f"regions or {MAX_SECONDS:g} s to list them, a shallow network of more "
            f"than {MAX_SLICE_SHALLOW_PARAMETERS:,} parameters.")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="relulab convert",
                description="Convert a deep ReLU network into an exactly equal shallow one.")
    p.add_argument("input", metavar="IN", help="deep network (.json, .npz or .onnx)")
    p.add_argument("output", metavar="OUT", nargs="?",
                   help="where to write the shallow network (default: IN's name with "
                        "-shallow, in this folder; a name without an extension gets the "
                        "format's)")
    p.add_argument("-o", "--output", dest="output_option", metavar="OUT", help="the same as OUT")
    p.add_argument("--format", choices=_output.FORMATS,
                   help=_output.format_help())
    p.add_argument("--force", action="store_true",
                   help="convert beyond the panel's limits (see below): it may take hours "
                        "and gigabytes")
    p.add_argument("--report", action="store_true", help="print sizes, bound and the check")
    p.add_argument("--big-m", type=float, metavar="M",
                   help="n-D only: write the finite big-M version (∞ replaced by M)")
    p.add_argument("--points", type=int, default=256, metavar="N",
                   help="random points for the sanity check beside the proof (default 256)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random points")
    return p


def _arch(sizes) -> str:
    return "-".join(str(s) for s in sizes)


def prepare_engine(n_in: int, progress: Progress) -> None:
    """Load the compiled region engine for ``n_in`` inputs from numba's disk cache, or
    compile it (a first run), saying :data:`FIRST_RUN` only then."""
    from relulab.model.core.compiled import compile_notice
    from relulab.model.regions.arrangement import engine_ready, warm_up

    if engine_ready(n_in):
        return
    said = []

    def first_run(_target: str) -> None:
        if not said:
            said.append(True)
            progress.say(FIRST_RUN)

    with compile_notice(first_run), progress.stage("loading the compiled region engine"):
        warm_up(n_in)


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
        # a width is "proven" least only for a network that passed its check
        lines.append(f"kinks: {conv.one_d.certificate}; least width "
                     + ("not claimed: the check failed" if not verification.ok() else
                        "proven" if conv.one_d.least_width_proven else "not proven"))
    if big_m is not None:
        lines.append(big_m.text())
    lines.append(f"time: {seconds:.3f} s")
    if conv.one_d is None:
        from relulab.model.regions.arrangement import engine_status

        lines.append(f"compiled region engine: {engine_status(n)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    return run("convert", _run, argv)


def _run(argv, reading: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.output is not None and args.output_option is not None:
        raise _Failure("give OUT or -o OUT, not both (see relulab convert --help)", 2)
    if args.points < 1:
        raise _Failure("--points must be at least 1")
    if args.big_m is not None and not (np.isfinite(args.big_m) and args.big_m > 0):
        raise _Failure(f"--big-m must be a positive number, got {args.big_m}")
    out = _output.resolve(args.output if args.output is not None else args.output_option,
                          args.format, f"{Path(args.input).stem}-shallow", "convert", args.input)
    with Progress("convert") as progress:
        return _convert(args, out, reading, progress)


def _convert(args, out: _output.Output, reading: list[str], progress: Progress) -> int:
    from relulab.io.networks import NetworkFileError, load_network
    from relulab.model.lessons.converter import MAX_INPUTS, check_sliced_size
    from relulab.model.networks.mlp import MLP

    t0 = time.perf_counter()
    name = Path(args.input).name
    reading.append(name)
    try:
        with progress.stage(f"reading {name}"):
            deep = load_network(args.input)
    except NetworkFileError as e:
        raise _Failure(str(e)) from None
    if not isinstance(deep, MLP):
        raise _Failure(f"{name}: already an extended (±∞) network, not a deep one")
    if deep.activation != "relu":
        raise _Failure(f"{name}: hidden activation {deep.activation!r}; the converter needs ReLU")
    if deep.n_in > MAX_INPUTS:
        raise _Failure(f"{name}: {deep.n_in} inputs; the converter handles 1 to {MAX_INPUTS} "
                       "(regions grow too fast beyond): convert a line or plane through it, "
                       "written by relulab slice")
    if deep.n_in >= 2 and out.fmt == "onnx" and args.big_m is None:
        raise _Failure(f"{out.path('onnx').name}: ONNX cannot hold the ±∞ weights of the exact "
                       "shallow network; write .json or .npz, or add --big-m M for a finite "
                       "version")
    if deep.n_in == 1 and args.big_m is not None:
        raise _Failure("--big-m is for 2-D and up: the 1-D shallow network is already finite")
    if not args.force:
        try:
            check_sliced_size(deep.sizes, where="without --force (the Deep → shallow panel's "
                                                "limit)")
        except ValueError as e:
            raise _Failure(f"{name}: {e}") from None
    # started: when the conversion itself starts (the report's time leaves out the bound
    # and the engine's loading or first compilation)
    if deep.n_in == 1:
        conv, layout, started = _one_d(deep, args, out, progress)
    else:
        conv, layout, started = _n_d(deep, args, out, name, progress)
    verification, rep, written = _check(conv, layout, args, progress)
    seconds = time.perf_counter() - started
    if args.report:
        print("\n".join(report_lines(conv, verification, seconds, rep)))
    # 1-D: within the scale-relative rounding bound (relulab.model.shallow.construction.ROUNDING);
    # n-D: the region-by-region proof, each region held to its own magnitude.
    # Otherwise nothing is written.
    layout = _written_layout(layout, args)
    fmt = out.predicted(layout)
    if not verification.ok():
        raise _Failure(_mismatch(verification) + f"; {out.path(fmt).name} not written", 3)
    with progress.stage(f"writing {out.path(fmt).name}", expected=layout.write_seconds(fmt)):
        path, size = out.write(written, layout)
    if progress.loud:
        progress.say(f"wrote {path} ({_plan.bytes_text(size)}) in "
                     f"{time.perf_counter() - t0:.1f} s")
    return 0


def _one_d(deep, args, out: _output.Output, progress: Progress):
    """Kinks and the one finite hidden layer (quick: its size is said after, before the
    check and the writing)."""
    from relulab.model.lessons.converter import MAX_SLICE_SHALLOW_PARAMETERS
    from relulab.model.shallow import construction

    started = time.perf_counter()
    with progress.stage("finding the kinks and the shallow network"):
        conv = construction.convert(deep)
    layout = _plan.mlp_layout(conv.shallow.sizes)
    if not args.force and layout.parameters > MAX_SLICE_SHALLOW_PARAMETERS:
        raise _Failure(f"its shallow network has {layout.parameters:,} parameters, more than the "
                       f"{MAX_SLICE_SHALLOW_PARAMETERS:,} written without --force")
    fmt = out.predicted(layout)
    out.check_json(layout)
    if progress.loud:
        hidden = (f"one hidden layer of width {layout.sizes[1]:,}" if len(layout.sizes) > 2
                  else "affine, no hidden layer")
        progress.say(f"shallow network: {hidden}, "
                     f"{layout.parameters:,} parameters; {out.path(fmt).name} of about "
                     f"{_plan.bytes_text(layout.bytes_about(fmt))}")
    return conv, layout, started


def _n_d(deep, args, out: _output.Output, name: str, progress: Progress):
    """Bound, enumerate, size, state, build: refusing as early as a limit is certain."""
    from relulab.model.lessons.converter import MAX_SLICE_SHALLOW_PARAMETERS as LIMIT
    from relulab.model.regions.activation import RegionLimit, linear_regions
    from relulab.model.shallow import construction
    from relulab.model.shallow.construction import region_constraints

    n, m = deep.n_in, deep.n_out
    max_regions = construction.MAX_REGIONS
    if not args.force:
        lines = _plan.lines_for_bound(deep)
        with progress.stage("looking for activation regions", total=lines) as stage:
            p_lo = _plan.regions_at_least(deep, advance=stage.advance)
        least = _plan.extended_layout(n, 0, p_lo, m, 0)
        if p_lo > max_regions:
            raise _Failure(f"{name}: at least {p_lo:,} activation regions, more than the "
                           f"{max_regions:,} converted without --force (the Deep → shallow "
                           "panel's limit); --force converts it (it may take long)")
        if least.parameters > LIMIT:
            raise _Failure(f"{name}: its shallow network would have at least "
                           f"{least.parameters:,} parameters ({p_lo:,} activation regions "
                           f"found; at least {_plan.bytes_text(least.npz_bytes())} as NPZ), "
                           f"more than the {LIMIT:,} built without --force (the Deep → shallow "
                           "panel's limit); --force builds it")
        out.check_json(_written_layout(least, args))
    prepare_engine(n, progress)
    started = time.perf_counter()
    try:
        with progress.stage("listing the activation regions"):
            regions = linear_regions(deep, should_stop=_never,
                                     max_regions=None if args.force else max_regions,
                                     max_seconds=None if args.force else construction.MAX_SECONDS)
    except RegionLimit as e:
        raise _Failure(f"{name}: {e}; --force converts it anyway") from None
    _G, _g, strict, _members = region_constraints(regions)
    layout = _plan.extended_layout(n, len(strict), len(regions), m, int(strict.sum()))
    written = _written_layout(layout, args)
    fmt = out.predicted(written)
    facets = sum(len(r.normals) for r in regions)
    points = _plan.check_points(len(regions), facets, args.points)
    build, check = _plan.build_seconds(layout), _plan.verify_seconds(layout, points)
    total = build + check + written.write_seconds(fmt)
    widths = ", ".join(f"{w:,}" for w in layout.sizes[1:-1])
    bytes_ = _plan.bytes_text(written.bytes_about(fmt))
    if not args.force and layout.parameters > LIMIT:
        raise _Failure(f"{name}: its shallow network would have {layout.parameters:,} parameters "
                       f"(widths {widths}; {len(regions):,} activation regions), more than the "
                       f"{LIMIT:,} built without --force (the Deep → shallow panel's limit); "
                       f"--force builds it ({duration(total)}, "
                       f"{_plan.bytes_text(written.npz_bytes())} as NPZ)")
    out.check_json(written)
    progress.expect(total)
    if progress.loud:
        progress.say(f"shallow network: 3 hidden layers of widths {widths}, "
                     f"{layout.parameters:,} parameters; {out.path(fmt).name} of about {bytes_}; "
                     f"{duration(total)} (building {duration(build)}, checking at "
                     f"{points:,} points {duration(check)})")
    with progress.stage("building the shallow network", expected=build):
        conv = construction.convert(deep, regions=regions)
    return conv, layout, started


def _written_layout(layout: _plan.Layout, args) -> _plan.Layout:
    return _plan.big_m_layout(layout) if args.big_m is not None else layout


def _never() -> bool:
    """A stop callback that never stops: the engine then lets Python see Ctrl+C."""
    return False


def _check(conv, layout: _plan.Layout, args, progress: Progress):
    """Verify, and make the big-M network when asked: (verification, big-M report or
    None, the network to write)."""
    from relulab.model.shallow.construction import big_m_network, big_m_report

    one_d = conv.one_d is not None
    points = len(conv.exact_points()) + args.points
    expected = None if one_d else _plan.verify_seconds(layout, points)
    with progress.stage(f"checking deep = shallow at {points:,} points", expected=expected):
        verification = conv.verify(n_random=args.points, seed=args.seed, should_stop=_never)
    if args.big_m is None:
        return verification, None, conv.shallow
    with progress.stage("making the big-M version and finding where it is wrong"):
        return (verification, big_m_report(conv.deep, conv.regions, args.big_m),
                big_m_network(conv.shallow, args.big_m))


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
