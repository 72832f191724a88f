"""Run every ``benchmarks/bench_*.py`` (or those named) and print one table.

``--check`` compares each row with its target and exits 1 on a miss (a benchmark
that crashes is a miss too, and the others still run).

``--smoke`` runs every probe once on tiny sizes (what CI runs: under two minutes,
35 s of CPU) and judges no target: it exits 1 only when a probe raises. See
``benchmarks/common.py``.
"""

from __future__ import annotations

import importlib
import math
import os
import pkgutil
import sys
import time
import traceback
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from benchmarks import common
from benchmarks.common import Row, fmt_time
from relulab.app import limit_blas_threads


def main(argv: list[str]) -> int:
    check = "--check" in argv
    smoke = "--smoke" in argv
    argv = [a for a in argv if a not in ("--check", "--smoke")]
    if check and smoke:
        print("--check judges the targets of full-size runs; --smoke judges none: choose one")
        return 2
    if smoke:
        common.set_smoke()  # before any probe module is imported: they size themselves
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    wanted = [a if a.startswith("bench_") else f"bench_{a}" for a in argv]
    if wanted:
        unknown = set(wanted) - set(names)
        if unknown:
            print(f"unknown benchmark(s): {', '.join(sorted(unknown))}; known: {', '.join(names)}")
            return 2
        names = wanted
    limit_blas_threads()  # measure what the app runs: one BLAS thread, as it sets
    rows: list[Row] = []
    crashed: list[str] = []
    took: dict[str, float] = {}
    for name in names:
        print(f"running {name} …", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            module = importlib.import_module(f"benchmarks.{name}")
            rows.extend(module.run())
        except Exception:
            traceback.print_exc()
            crashed.append(name)
        took[name] = time.perf_counter() - t0
    headers = ("measurement", "time", "baseline", "time", "ratio", "target", "check")
    # a smoke run's sizes are not the targets' sizes: nothing is judged
    misses = {id(r): [] if smoke else r.misses() for r in rows}
    table = [(r.name, fmt_time(r.seconds), r.baseline, fmt_time(r.baseline_seconds),
              "—" if math.isnan(r.ratio) else f"{r.ratio:.1f}×", r.target,
              ("MISS: " + "; ".join(misses[id(r)])) if misses[id(r)]
              else ("ok" if r.checked and not smoke else ""))
             for r in rows]
    widths = [max(len(h), *(len(t[i]) for t in table)) if table else len(h)
              for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for t in table:
        print("  ".join(c.ljust(w) for c, w in zip(t, widths)))
    notes = [f"* {r.name}: {r.note}" for r in rows if r.note]
    if notes:
        print()
        print("\n".join(notes))
    missed = [r for r in rows if misses[id(r)]]
    if crashed:
        print(f"\ncrashed: {', '.join(crashed)}")
    if smoke:
        print(f"\n--smoke: {len(names) - len(crashed)} of {len(names)} probes ran on tiny sizes "
              f"({len(rows)} rows, no target judged) in {sum(took.values()):.0f} s: "
              + ", ".join(f"{n.removeprefix('bench_')} {t:.0f} s" for n, t in took.items()))
    if check:
        print(f"\n--check: {len(rows) - len(missed)} of {len(rows)} rows meet their targets"
              + (f"; {len(crashed)} benchmark(s) crashed" if crashed else ""))
        return 1 if missed or crashed else 0
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
