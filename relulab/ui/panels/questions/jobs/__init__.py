"""What the Questions panel's worker runs, and the words each page says about the result.

numpy and the model only (no Qt): tests and benchmarks call these without a window.
Every job is a generator: it yields ``(done, total)`` as it goes (the page's progress
bar and the status bar show it) and returns its result; ``should_stop`` ends it at the
next seed or width once a newer request came.

Every number a page's verdict says is read from the result object here, by the same
functions the tests check the sentences with.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

import numpy as np

from relulab.model.lessons.questions import (
    DoubleDescentSettings,
    InfiniteWidthSettings,
    OverparametrisationSettings,
)

Progress = tuple[int, int]
Job = Generator[Progress, None, Any]

#: Feature draws of the lottery (on one data set, at one width).
LOTTERY_DRAWS = 10
#: The second feature scale: 4H more features whose weights are scaled by 0.01.
SECOND_SCALE, SECOND_RATIO = 0.01, 4
#: The widths of the spirals study and of the lazy-training study.
SPIRAL_WIDTHS = (2, 4, 8, 16, 32, 64)
LAZY_WIDTHS = (16, 64, 256, 1024, 4096)


def dd_widths(n: int) -> np.ndarray:
    """The widths H of the double-descent sweep at ``n`` training points: the model's
    24, log-spaced up to 20n, with n, 2n and 4n among them."""
    from relulab.model.questions.double_descent import default_widths

    return np.asarray(default_widths(n), dtype=int)


def model(name: str) -> Callable:
    """An experiment of relulab.model.questions by name (re-exported by relulab.model);
    None when this version of the model does not have it."""
    import relulab.model

    return getattr(relulab.model, name, None)


def number(x: float) -> str:
    """A measured number as a page writes it: about two significant digits (0.20, 6.1,
    29, 241), thousands with a comma (1,234), very large or small ones as a power of
    ten, 3.1 × 10⁷ and 1.4 × 10⁻⁶ (a learner reads "1.4e-06" as a typo)."""
    x = float(x)
    if not np.isfinite(x):
        return "∞" if x > 0 else "—"
    if x == 0:
        return "0"
    if x < 0:
        return "−" + number(-x)  # the minus sign, not a hyphen
    if x >= 1e5 or x < 1e-3:
        mantissa, exponent = f"{x:.1e}".split("e")
        # the superscripts here, not training.axes.decade_text's: the exported scripts
        # copy this function alone, and a worker's module imports no Qt
        power = str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
        return f"{mantissa} × 10{power}"
    if abs(x) >= 100:
        return f"{round(x):,}"
    if abs(x) >= 10:
        return f"{x:.0f}"
    return f"{x:.1f}" if abs(x) >= 1 else f"{x:.2f}" if abs(x) >= 0.1 else f"{x:.2g}"


def _run_steps(function: Callable, args: tuple, kwargs: dict, should_stop) -> Job:
    """Run a model experiment, yielding its progress: through its ``<name>_steps``
    generator when the model offers one, else in one step."""
    steps = getattr(inspect.getmodule(function), f"{function.__name__}_steps", None)
    if steps is not None:
        result = yield from steps(*args, should_stop=should_stop, **kwargs)
        return result
    yield 0, 1
    result = function(*args, should_stop=should_stop, **kwargs)
    yield 1, 1
    return result


def _scaled(job: Job, start: int, share: int, total: int) -> Job:
    """A sub-job's progress as part ``start``…``start + share`` of ``total``."""
    try:
        done, whole = next(job)
        while True:
            yield start + round(share * done / max(whole, 1)), total
            done, whole = job.send(None)
    except StopIteration as stop:
        return stop.value


@dataclass(frozen=True)
class Words:
    """What a page states about a run: its numbers (``value`` the short answer the
    verdict's readout holds), the verdict and the details. Computed on the worker
    beside the run (:func:`with_words`): medians, bands and sentences are no work
    for the GUI thread, which only shows them."""

    numbers: dict
    value: Any
    verdict: str
    details: str


def with_words(job: Job, numbers: Callable[[Any], dict], verdict: Callable[[Any], str],
               details: Callable[[Any], str], value: str = "verdict") -> Job:
    """``job``'s progress, then ``(run, Words)``: the run and what the page says of it,
    ``value`` naming the number the verdict's readout holds."""
    run = yield from job
    v = numbers(run)
    return run, Words(v, v[value], verdict(run), details(run))


# -- the double-descent page ---------------------------------------------------------
@dataclass(frozen=True)
class DoubleDescentRun:
    """One run of the double-descent page: its settings, the sweep over widths and
    seeds, the tuned ridge's sweep (the oracle, when asked for) and the lottery."""

    settings: DoubleDescentSettings
    sweep: Any            # relulab.model.questions.DoubleDescent
    tuned: Any | None     # the oracle's sweep, or None
    lottery: Any          # relulab.model.questions.Lottery

    @property
    def shown(self):
        """The sweep the plot and the verdict are about: the oracle's when asked for."""
        return self.tuned if self.tuned is not None else self.sweep


def run_double_descent(s: DoubleDescentSettings, should_stop=None) -> Job:
    """The sweep of ``s`` (seeds 0 … s.seeds − 1, the widths of :func:`dd_widths`), the
    tuned ridge's when asked for, and the lottery at H = s.lottery_ratio · n."""
    widths = dd_widths(s.n)
    second = {"second_scale": SECOND_SCALE, "second_ratio": SECOND_RATIO} if s.second_scale else {}
    parts = 3 if s.tuned_ridge else 2
    total = 100 * parts
    args = (s.d, s.n, s.noise, widths, list(range(s.seeds)))
    sweep = yield from _scaled(_run_steps(model("double_descent"), args, {"ridge": s.ridge, **second},
                                          should_stop), 0, 100, total)
    tuned = None
    if s.tuned_ridge:
        tuned = yield from _scaled(_run_steps(model("tuned_ridge"), args, second, should_stop),
                                   100, 100, total)
    H = s.lottery_ratio * s.n
    lottery = None if model("lottery") is None else (yield from _scaled(
        _run_steps(model("lottery"), (s.d, s.n, s.noise, H),
                   {"draws": LOTTERY_DRAWS, "ridge": s.ridge, **second}, should_stop),
        total - 100, 100, total))
    yield total, total
    return DoubleDescentRun(s, sweep, tuned, lottery)


def dd_numbers(run: DoubleDescentRun) -> dict:
    """The numbers the page states, by name, read from the run's result objects."""
    sweep = run.shown
    n = run.settings.n
    widest = int(sweep.widths[-1])
    test = sweep.median("test_mse")
    lo, hi = sweep.band("test_mse")
    i_n = int(np.searchsorted(sweep.widths, n))
    kernel = np.asarray(sweep.kernel_mse, float)
    numbers = {
        "regime": str(sweep.regime()), "wins": int(sweep.wins()),
        "seeds": int(np.asarray(sweep.test_mse).shape[0]),
        "widest": widest, "median_widest": float(test[-1]), "best_small": float(sweep.best_small()),
        "median_at_n": float(test[i_n]), "band_at_n": (float(lo[i_n]), float(hi[i_n])),
        "kernel": float(np.median(kernel)),
        "peaks": [int(w) for w in sweep.peaks()],
    }
    lot = run.lottery
    if lot is not None:
        numbers.update(lottery_width=run.settings.lottery_ratio * n,
                       lottery_spread=float(lot.spread), lottery_ensemble=float(lot.ensemble_mse),
                       lottery_median=float(np.median(lot.test_mse)))
    return numbers


def dd_verdict(run: DoubleDescentRun) -> str:
    """The regime in words, with the numbers that decide it (medians, seeds that win)."""
    v = dd_numbers(run)
    ratio = run.shown.ratio()
    head = (f"{v['regime']}: the widest model (H = {v['widest']:,}) beats the best small one "
            f"in {v['wins']} of {v['seeds']} seeds (median {number(v['median_widest'])} vs "
            f"{number(v['best_small'])})")
    if v["regime"] != "benign":
        head += f"; its median error is {number(ratio)}× the best small model's"
    oracle = " With the oracle's ridge (tuned on the test error)." if run.tuned is not None else ""
    return head + "." + oracle


def dd_details(run: DoubleDescentRun) -> str:
    """The peak, the kernel limit, the extra peaks and the lottery, in numbers."""
    v = dd_numbers(run)
    n = run.settings.n
    lo, hi = v["band_at_n"]
    peaks = v["peaks"]
    parts = [f"At H = n = {n:,} the median test error is {number(v['median_at_n'])} "
             f"(10–90%: {number(lo)} to {number(hi)}); the kernel limit H = ∞ gives "
             f"{number(v['kernel'])}."]
    if len(peaks) > 1:
        parts.append(f"{len(peaks)} peaks, at H = {', '.join(f'{w:,}' for w in peaks)}.")
    if run.lottery is not None:
        parts.append(f"Lottery at H = {v['lottery_width']:,}: {LOTTERY_DRAWS} draws of the features "
                     f"range {number(v['lottery_spread'])}× (max/min); their ensemble scores "
                     f"{number(v['lottery_ensemble'])} against the draws' median "
                     f"{number(v['lottery_median'])}.")
    return " ".join(parts)


def dd_table(run: DoubleDescentRun) -> dict:
    """The sweep's medians and bands per width (for CSV export)."""
    sweep = run.shown
    cols = ["H", "test median", "test 10%", "test 90%", "train median", "weight norm median",
            "condition median"]
    test, (lo, hi) = sweep.median("test_mse"), sweep.band("test_mse")
    rows = [[int(w), float(test[i]), float(lo[i]), float(hi[i]),
             float(sweep.median("train_mse")[i]), float(sweep.median("weight_norm")[i]),
             float(sweep.median("condition")[i])] for i, w in enumerate(sweep.widths)]
    tables = {"double descent": (cols, rows)}
    if run.lottery is not None:
        tables["lottery"] = (["draw", "test error"],
                             [[i + 1, float(e)] for i, e in enumerate(run.lottery.test_mse)])
    return tables


# -- the over-parametrisation page ---------------------------------------------------
@dataclass(frozen=True)
class OverparametrisationRun:
    settings: OverparametrisationSettings
    spirals: Any           # relulab.model.questions.SpiralsByWidth
    real: Any              # relulab.model.questions.Pruning, real labels
    shuffled: Any          # the same with shuffled labels


def run_overparametrisation(s: OverparametrisationSettings, should_stop=None) -> Job:
    total = 300
    spirals = yield from _scaled(_run_steps(model("spirals_by_width"), (list(SPIRAL_WIDTHS),
                                                                 list(range(s.seeds))), {},
                                            should_stop), 0, 200, total)
    real = yield from _scaled(_run_steps(model("pruning"), (s.prune_width, 0), {"shuffled": False},
                                         should_stop), 200, 50, total)
    shuffled = yield from _scaled(_run_steps(model("pruning"), (s.prune_width, 0), {"shuffled": True},
                                             should_stop), 250, 50, total)
    yield total, total
    return OverparametrisationRun(s, spirals, real, shuffled)


# -- the infinite-width page -----------------------------------------------------------
@dataclass(frozen=True)
class InfiniteWidthRun:
    settings: InfiniteWidthSettings
    lazy: Any              # relulab.model.questions.LazyTraining


def run_infinite_width(s: InfiniteWidthSettings, should_stop=None) -> Job:
    lazy = yield from _run_steps(model("lazy_training"), (list(LAZY_WIDTHS), list(range(s.seeds))), {},
                                 should_stop)
    return InfiniteWidthRun(s, lazy)


def _per_width(values, widths) -> np.ndarray:
    """A (seeds × widths) array, whichever way the model stacks it."""
    a = np.asarray(values, float)
    if a.ndim == 1:
        return a[None, :]
    return a if a.shape[1] == len(widths) else a.T


#: Real labels "leave more to prune" when their prunable share passes the shuffled
#: labels' by at least this much (a few weights either way is one seed's luck).
PRUNE_MARGIN = 0.05


def over_numbers(run: OverparametrisationRun) -> dict:
    """The numbers the over-parametrisation page states, read from the results."""
    sp = run.spirals
    widths = [int(w) for w in sp.widths]
    found = _per_width(sp.found, widths)
    counts = [int(c) for c in found.sum(axis=0)]
    seeds = int(found.shape[0])
    always = next((w for w, c in zip(widths, counts) if c == seeds and all(
        k == seeds for k in counts[widths.index(w):])), None)
    real, shuffled = run.real.prunable(), run.shuffled.prunable()
    return {"widths": widths, "found": counts, "seeds": seeds,
            "smallest_always": always, "narrowest": widths[0], "found_narrowest": counts[0],
            "prunable_real": real, "prunable_shuffled": shuffled,
            "verdict": "real labels prune further" if real >= shuffled + PRUNE_MARGIN
            else "no clear difference"}


def over_verdict(run: OverparametrisationRun) -> str:
    v = over_numbers(run)
    always = ("no width fits them in every seed" if v["smallest_always"] is None else
              f"from {v['smallest_always']} units on, every seed does")
    real, shuffled = v["prunable_real"], v["prunable_shuffled"]
    # One pruned net is one draw: the sentence says so and draws no general rule from it
    # (over seeds 0-2 the real labels' share was 10-25%, the shuffled labels' 0-15%).
    ending = ("more with the real labels" if real >= shuffled + PRUNE_MARGIN
              else "no clear difference")
    return (f"Width helps training find a fit: {v['found_narrowest']} of {v['seeds']} seeds fit "
            f"the spirals with {v['narrowest']} units; {always}. One net of "
            f"{run.settings.prune_width} units pruned after training (seed {run.real.seed}): "
            f"{real:.0%} of the weights can go at equal accuracy with the real labels, "
            f"{shuffled:.0%} with shuffled labels (fitted to {run.shuffled.unpruned:.0%} "
            f"before pruning): {ending}, in one net, not a finding over seeds.")


def over_details(run: OverparametrisationRun) -> str:
    v = over_numbers(run)
    per = ", ".join(f"{w}: {c}" for w, c in zip(v["widths"], v["found"]))
    return (f"Seeds that fit, by width: {per} (of {v['seeds']}). Pruning: a net of "
            f"{run.settings.prune_width} units, smallest weights first.")


def over_table(run: OverparametrisationRun) -> dict:
    v = over_numbers(run)
    tables = {"spirals": (["hidden units", "seeds that fit", "seeds"],
                          [[w, c, v["seeds"]] for w, c in zip(v["widths"], v["found"])])}
    rows = [[float(f), float(a), float(b)] for f, a, b in zip(
        run.real.fractions, run.real.accuracy, run.shuffled.accuracy)]
    tables["pruning"] = (["share pruned", "accuracy, real labels", "accuracy, shuffled labels"],
                         rows)
    return tables


def lazy_numbers(run: InfiniteWidthRun) -> dict:
    """The numbers the infinite-width page states, read from the result."""
    lazy = run.lazy
    widths = [int(w) for w in lazy.widths]
    movement = np.median(_per_width(lazy.movement, widths), axis=0)
    distance = np.median(_per_width(lazy.distance, widths), axis=0)
    return {"widths": widths, "movement": [float(m) for m in movement],
            "distance": [float(d) for d in distance],
            "narrowest": widths[0], "widest": widths[-1],
            "movement_narrowest": float(movement[0]), "movement_widest": float(movement[-1]),
            "distance_narrowest": float(distance[0]), "distance_widest": float(distance[-1]),
            "verdict": "lazy" if movement[-1] < movement[0] else "not lazy"}


def lazy_verdict(run: InfiniteWidthRun) -> str:
    v = lazy_numbers(run)
    return (f"The wider the net, the less its weights move: {number(v['movement_narrowest'])} "
            f"of their size at {v['narrowest']:,} units, {number(v['movement_widest'])} at "
            f"{v['widest']:,}; the trained net comes within {number(v['distance_widest'])} "
            f"(RMS) of its kernel model, from {number(v['distance_narrowest'])}.")


def lazy_details(run: InfiniteWidthRun) -> str:
    v = lazy_numbers(run)
    rows = "; ".join(f"{w:,}: {number(m)}, {number(d)}"
                     for w, m, d in zip(v["widths"], v["movement"], v["distance"]))
    return (f"Width: movement, distance to the kernel model (medians of "
            f"{run.settings.seeds} seeds): {rows}.")


def lazy_table(run: InfiniteWidthRun) -> dict:
    v = lazy_numbers(run)
    return {"lazy training": (["hidden units", "relative weight movement",
                               "RMS distance to the kernel model"],
                              [[w, m, d] for w, m, d in zip(v["widths"], v["movement"],
                                                              v["distance"])])}
