"""What every benchmark module uses: a timer and the row it reports.

A module ``benchmarks/bench_<topic>.py`` defines ``run() -> list[Row]``. Each row
is one measurement next to its baseline, measured in the same run, so the ratio
means something on whatever machine runs it.

A row's target is data, not only words: ``max_seconds`` (the measurement's budget),
``min_ratio`` (baseline / measurement must reach it: 1.0 = "no slower than the
baseline", 1/1.5 = "at most 1.5× the baseline") and ``holds`` (a condition that is
not a time: counts equal, memory within its budget). ``python -m benchmarks --check``
exits non-zero when any row misses its target, or states a target in words only.

The smoke run, ``python -m benchmarks --smoke`` (CI runs it), runs every probe once on
tiny sizes so that a rename or a changed signature breaks it, and judges no target:
only a probe that raises fails it. It takes under two minutes in all, so each probe must
finish in seconds there. What a probe does for it:

- every size, count, depth and number of repeats it chooses goes through
  ``small(full, tiny)``, which returns ``tiny`` in a smoke run. Call it where the value
  is used, or at module level (``HINGES = small(100, 10)``): the flag is set before any
  probe module is imported, and a probe's child processes inherit it (the
  environment variable :data:`SMOKE_VARIABLE`);
- ``median_time`` and ``best_time`` already time one call there, and
  ``event_loop_delays`` without ``done`` watches for :data:`SMOKE_SECONDS` at most:
  nothing to do for those (a loop of the probe's own, e.g. five clicks, takes
  ``small(5, 1)``);
- a row's name and note quote the sizes actually run (format them from the variables),
  so that a smoke table never claims the full sizes;
- the probe still runs every step of the full one: the same functions, panels and
  child processes, only smaller. ``if SMOKE: return []`` defeats the purpose.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

#: set (to "1") in a smoke run, for the probes' child processes too
SMOKE_VARIABLE = "RELULAB_BENCH_SMOKE"
#: True in a smoke run: tiny sizes, one call per timing, no target judged
SMOKE = bool(os.environ.get(SMOKE_VARIABLE))
#: the longest a smoke run watches an event loop that has no end condition
SMOKE_SECONDS = 0.2

T = TypeVar("T")


def set_smoke(on: bool = True) -> None:
    """Turn the smoke run on (before any probe module is imported), here and in the
    child processes the probes start."""
    global SMOKE
    SMOKE = on
    if on:
        os.environ[SMOKE_VARIABLE] = "1"
    else:
        os.environ.pop(SMOKE_VARIABLE, None)


def small(full: T, tiny: T) -> T:
    """``tiny`` in a smoke run, ``full`` otherwise: every size a probe chooses."""
    return tiny if SMOKE else full


@dataclass
class Row:
    name: str               # what was measured
    seconds: float          # its median time
    baseline: str           # what it is compared with
    baseline_seconds: float
    target: str = ""        # the budget in words; derived from the fields below if empty
    note: str = ""
    max_seconds: float | None = None   # the measurement must take at most this
    min_ratio: float | None = None     # baseline_seconds / seconds must be at least this
    holds: bool | None = None          # a condition other than time (counts equal, memory)

    def __post_init__(self):
        if not self.target:
            words = []
            if self.max_seconds is not None:
                words.append(f"≤ {fmt_time(self.max_seconds)}")
            if self.min_ratio is not None:
                words.append(f"≥ {self.min_ratio:g}× baseline" if self.min_ratio >= 1
                             else f"≤ {1 / self.min_ratio:.3g}× baseline time")
            self.target = ", ".join(words)

    @property
    def ratio(self) -> float:
        """How many times faster than the baseline (> 1 is faster); NaN without one."""
        if not math.isfinite(self.baseline_seconds):
            return math.nan
        return self.baseline_seconds / self.seconds if self.seconds > 0 else float("inf")

    @property
    def checked(self) -> bool:
        """True when the row's target is data that ``--check`` can compare."""
        return (self.max_seconds is not None or self.min_ratio is not None
                or self.holds is not None)

    def misses(self) -> list[str]:
        """Why the row misses its target (empty when it meets it)."""
        out = []
        if self.target and not self.checked:
            out.append(f"target {self.target!r} is words only")
        if self.max_seconds is not None and not self.seconds <= self.max_seconds:
            out.append(f"{fmt_time(self.seconds)} > {fmt_time(self.max_seconds)}")
        if self.min_ratio is not None:
            if math.isnan(self.ratio):
                out.append("no baseline measured")
            elif not self.ratio >= self.min_ratio:
                out.append(f"ratio {self.ratio:.2f} < {self.min_ratio:.2f}")
        if self.holds is False:
            out.append("condition failed" + (f" ({self.note})" if self.note else ""))
        return out


def median_time(fn: Callable[[], object], repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` over ``repeat`` calls, after ``warmup`` calls (one
    call, no warm-up, in a smoke run)."""
    repeat, warmup = small(repeat, 1), small(warmup, 0)
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
    if not math.isfinite(s):
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def event_loop_delays(start: Callable[[], object], done: Callable[[], bool] | None = None,
                      seconds: float = 3.0, interval: float = 0.010,
                      tail: float = 0.3) -> np.ndarray:
    """How late a ``interval`` QTimer fires while the event loop runs after ``start()``.

    Runs the event loop until ``done()`` is true (or ``seconds`` pass), then ``tail``
    seconds more, and returns the delays of every tick beyond its interval, in seconds:
    the longest is the longest time the window could not answer. The tail holds what
    finished work leaves behind: the paint of its results, a garbage collection that
    waited for it (``done()`` turns true as the results arrive, before they are
    painted). Never empty: a loop blocked for the whole time gives one delay as long
    as the block. In a smoke run, without ``done`` it watches :data:`SMOKE_SECONDS` at
    most, and the tail is short.
    """
    if SMOKE:
        seconds = seconds if done is not None else min(seconds, SMOKE_SECONDS)
        tail = min(tail, 0.05)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        gaps.append(now - last[0] - interval)
        last[0] = now

    timer = QTimer()
    timer.setInterval(int(interval * 1000))
    timer.timeout.connect(tick)
    timer.start()
    app.processEvents()
    last[0] = time.perf_counter()
    start()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end and not (done is not None and done()):
        app.processEvents()
    end = time.perf_counter() + tail
    while time.perf_counter() < end:
        app.processEvents()
    timer.stop()
    gaps.append(time.perf_counter() - last[0] - interval)  # the time since the last tick
    return np.maximum(np.array(gaps), 0.0)


def longest_wait_beside(work: Callable[[], object], switch_interval: float = 0.001) -> float:
    """The longest a thread waits for the interpreter while ``work()`` runs on another:
    what a GUI thread beside a worker feels, without Qt. The waiting thread sleeps 1 ms
    at a time (giving the interpreter up) and notes how long each turn took; the
    interpreter's switch interval is the app's (``GUI_SWITCH_INTERVAL``)."""
    import sys
    import threading

    old = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval)
    try:
        worker = threading.Thread(target=work)
        last = time.perf_counter()
        worker.start()
        longest = 0.0
        while worker.is_alive():
            time.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last - 0.001)
            last = now
        worker.join()
        return longest
    finally:
        sys.setswitchinterval(old)


def click_latency(click: Callable[[], object], busy: Callable[[], bool],
                  seconds: float = 10.0) -> tuple[float, float]:
    """A click (``click()``) posted to the event loop while work runs, as a real one
    arrives: (seconds from posting it until ``click`` has returned, the longest event-loop
    delay until ``busy()`` is false, e.g. until a paused panel has drawn its last frame)."""
    from PySide6.QtCore import QTimer

    marks: dict[str, float] = {}

    def handle():
        click()
        marks["handled"] = time.perf_counter()

    def post():
        marks["posted"] = time.perf_counter()
        QTimer.singleShot(0, handle)

    delays = event_loop_delays(post, done=lambda: "handled" in marks and not busy(), seconds=seconds)
    return marks.get("handled", math.inf) - marks["posted"], float(delays.max())
