"""What every benchmark module uses: a timer and the row it reports.

A module ``benchmarks/bench_<topic>.py`` defines ``run() -> list[Row]``. Each row
is one measurement next to its baseline, measured in the same run, so the ratio
means something on whatever machine runs it.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Row:
    name: str               # what was measured
    seconds: float          # its median time
    baseline: str           # what it is compared with
    baseline_seconds: float
    target: str = ""        # the budget, in words ("≤ 8 ms", "≥ 10× faster")
    note: str = ""

    @property
    def ratio(self) -> float:
        """How many times faster than the baseline (> 1 is faster)."""
        return self.baseline_seconds / self.seconds if self.seconds > 0 else float("inf")


def median_time(fn: Callable[[], object], repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` over ``repeat`` calls, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def best_time(fn: Callable[[], object], repeat: int = 7, warmup: int = 1) -> float:
    """Fastest wall time of ``fn()`` over ``repeat`` calls (for peers measured side by
    side on a busy machine: the least disturbed run of each)."""
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def fmt_time(s: float) -> str:
    if s != s:  # NaN: nothing was measured
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"
