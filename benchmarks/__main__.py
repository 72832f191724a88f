"""Run every ``benchmarks/bench_*.py`` (or those named) and print one table."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from benchmarks.common import fmt_time  # noqa: E402
from relulab.app import limit_blas_threads  # noqa: E402


def main(argv: list[str]) -> int:
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
    rows = []
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"running {name} …", file=sys.stderr, flush=True)
        rows.extend(module.run())
    headers = ("measurement", "time", "baseline", "time", "ratio", "target")
    table = [(r.name, fmt_time(r.seconds), r.baseline, fmt_time(r.baseline_seconds),
              f"{r.ratio:.1f}×", r.target) for r in rows]
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
