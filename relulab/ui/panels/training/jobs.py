"""What the Training panel computes without Qt: the jobs its workers run (compiling the
training loop, replaying a run from its seeds, refitting a large network's output
layer) and, from a training snapshot, the numbers its plots, readouts and tables show.

numpy and :mod:`relulab.model` only, never PySide6, pyqtgraph or ``relulab.ui`` (a
contract checks), so that tests and benchmarks call them without a widget. Colours stay
on the panel's side: a bar says whether it is the best restart's, the plot picks the
brush.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from relulab.model.core.cancel import ShouldStop
from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.hinges import MAX_HINGES, HingeFit
from relulab.model.fitting.training import (
    HingeNetTrainer,
    RestartsSnapshot,
    refit_output_layer,
    rmse_histogram,
)
from relulab.model.lessons.training import TrainingState, replay

CURVE_POINTS = 400    # points per drawn curve
LOSS_POINTS = 600     # at most this many points per drawn loss curve
KINK_ROWS = 300       # at most this many moments per drawn kink trajectory
KINK_POINTS = 24_000  # and at most this many points in all trajectories (paint cost is per point)
REFIT_LIVE_SIZE = 64 * 1000  # larger N·H: refit only while paused, on a worker
#: Replaying a state's steps (see TrainingState.replay_cost): up to this much at once on
#: the GUI thread (≈ 5 ms), up to REPLAY_BUDGET on a worker (≈ 5 s), beyond that the run
#: starts again from its seeds.
SYNC_REPLAY = 1e7
REPLAY_BUDGET = 1e10

# -- the workers' jobs ---------------------------------------------------------------


def compile_training_loop(should_stop: ShouldStop = None) -> bool:
    """Compile the training loop (or load it from the cache) off the GUI thread: the
    first time this takes seconds, and the window must answer meanwhile."""
    return kernels.compiled_available(apart=True)


def replay_run(state: TrainingState, should_stop: ShouldStop = None) -> HingeNetTrainer:
    """The run of ``state`` trained again from its seeds to its step (training is
    deterministic); a newer request stops it between chunks of steps."""
    return replay(state, should_stop)


def replay_plan(state: TrainingState) -> str:
    """How a state's steps are brought back: ``"none"`` (no step made), ``"now"`` (at
    most SYNC_REPLAY, on the GUI thread), ``"worker"`` (at most REPLAY_BUDGET) or
    ``"restart"`` (too long to wait for: training starts again from the seeds)."""
    if not state.step:
        return "none"
    cost = state.replay_cost()
    if cost <= SYNC_REPLAY:
        return "now"
    if cost <= REPLAY_BUDGET:
        return "worker"
    return "restart"


def refit_is_live(hidden: int, points: int) -> bool:
    """Whether a least-squares refit of the output layer is cheap enough to solve on the
    GUI thread while training runs: it costs O(N·H²), ≈ 50 ms at H = 256 on 4000 points."""
    return hidden * points <= REFIT_LIVE_SIZE


class Refit(NamedTuple):
    """The RMSE of the best output layer for one restart's hidden neurons (its kinks)."""

    key: tuple  # what it was asked for: (step, restart, snapshot), to drop stale answers
    rmse: float


def refit_rmse(key: tuple, x, y, w, b, should_stop: ShouldStop = None) -> Refit:
    """The refit of a restart with hidden weights ``w``, biases ``b`` on the data (x, y)."""
    return Refit(key, refit_output_layer(x, y, w, b)[2])


# -- what the plots show -------------------------------------------------------------


def finite_range(target_on_grid: np.ndarray) -> tuple[float, float]:
    """Where restarts' curves are clipped: two target spans beyond the target, so that a
    wild restart neither hides the others nor sends huge numbers to the painter."""
    y = target_on_grid
    span = float(np.ptp(y)) or 1.0
    return float(y.min()) - 2 * span, float(y.max()) + 2 * span


def curve_y_range(target_on_grid: np.ndarray) -> tuple[float, float]:
    """The main plot's fixed vertical range: the target, with a margin (its key is under the plots)."""
    y = target_on_grid
    span = float(np.ptp(y)) or 1.0
    return float(y.min()) - 0.15 * span, float(y.max()) + 0.15 * span


class Curves(NamedTuple):
    """The main plot: every restart on the grid (clipped to :func:`finite_range`, NaN
    where it diverged), the best restart (not clipped) and the selected restart's kinks
    on its curve."""

    restarts: np.ndarray  # (R, len(grid))
    best: np.ndarray
    kink_x: np.ndarray
    kink_y: np.ndarray


def curves(snap: RestartsSnapshot, selected: int, grid: np.ndarray,
           target_on_grid: np.ndarray) -> Curves:
    preds = snap.predict(grid)
    lo, hi = finite_range(target_on_grid)
    nan = np.full_like(grid, np.nan)
    restarts = np.array([np.clip(preds[r] if not snap.diverged[r] else nan, lo, hi)
                         for r in range(snap.restarts)])
    best = preds[snap.best] if not snap.diverged[snap.best] else nan
    kinks = snap.kinks_inside(selected)
    at = snap.predict(kinks, selected) if kinks.size else np.zeros(0)
    ok = np.isfinite(at)  # a diverged restart's last weights may overflow
    return Curves(restarts, best, kinks[ok], at[ok])


class Losses(NamedTuple):
    """Each restart's loss curve (steps counted from 1; only finite, positive losses: the
    axis is logarithmic) and the vertical range, in decades (log10)."""

    steps: list[np.ndarray]
    values: list[np.ndarray]
    log_range: tuple[float, float]


def losses(snap: RestartsSnapshot, ghost_rmse: float) -> Losses:
    """At most LOSS_POINTS points per curve, the last step always among them."""
    steps = snap.losses.shape[1]
    stride = max(1, -(-steps // LOSS_POINTS))
    idx = np.arange(0, steps, stride)
    if steps and idx[-1] != steps - 1:
        idx = np.append(idx, steps - 1)
    xs, ys = [], []
    lo, hi = np.inf, 0.0
    for r in range(snap.restarts):
        vals = snap.losses[r, idx] if steps else np.zeros(0)
        ok = np.isfinite(vals) & (vals > 0)
        xs.append((idx + 1)[ok])
        ys.append(vals[ok])
        if ok.any():
            # a diverged restart's losses run up to 10³⁰⁰ on its way out: the range
            # holds its start, not its blow-up, so that the others stay readable
            seen = vals[ok][:1] if snap.diverged[r] else vals[ok]
            lo, hi = min(lo, seen.min()), max(hi, seen.max())
    if not hi > 0:
        # nothing trained yet: the decades the curves will cross, from the starts'
        # errors down to the ghost's (an empty log axis shows 1 … 10 as a crowd of
        # minor numbers written over each other)
        mse = np.append(np.asarray(snap.rmse, float) ** 2, ghost_rmse ** 2)
        mse = mse[np.isfinite(mse) & (mse > 0)]
        lo, hi = (float(mse.min()), float(mse.max())) if mse.size else (1e-3, 1.0)
    if hi <= lo * 10:
        lo, hi = min(lo, hi) / 10, max(lo, hi) * 10  # at least two decades: no crowd
    return Losses(xs, ys, (float(np.log10(lo)), float(np.log10(hi))))


class KinkPaths(NamedTuple):
    """Where the selected restart's kinks were at each recorded step: one path per
    neuron, separated by NaN, for a single item (``x`` the kink, ``y`` the step), and
    the kinks now. A kink outside the domain is NaN (it bends nothing there)."""

    x: np.ndarray
    y: np.ndarray
    now_x: np.ndarray
    now_y: np.ndarray


def kink_paths(snap: RestartsSnapshot, selected: int) -> KinkPaths:
    lo, hi = snap.domain
    # painting costs per point: at large H fewer moments per trajectory
    rows = max(2, min(KINK_ROWS, KINK_POINTS // snap.hidden))
    stride = max(1, -(-snap.kink_steps.size // rows))
    hist = snap.kink_history[::stride, selected, :]
    steps = snap.kink_steps[::stride]
    if steps.size == 0 or steps[-1] != snap.step:
        hist = np.vstack([hist, snap.kinks[selected][None, :]])
        steps = np.append(steps, snap.step)
    inside = np.where((hist > lo) & (hist < hi), hist, np.nan)
    xs = np.vstack([inside, np.full((1, inside.shape[1]), np.nan)]).T.ravel()
    ys = np.tile(np.append(steps.astype(float), np.nan), inside.shape[1])
    now = inside[-1]
    ok = np.isfinite(now)
    return KinkPaths(xs, ys, now[ok], np.full(ok.sum(), float(snap.step)))


UNTRAINED_HINT = "press Space to train:\neach restart's RMSE comes here"
DIVERGED_WORD = "diverged"


class FinalBars(NamedTuple):
    """The RMSE plot: bars (``best`` says per bar whether it is the best restart's, for
    the sorted view; None for one colour), axis labels (bottom, left), the angle of the
    ghost's line (0 across, 90 upright) at ``ghost``, the view ranges, and the hint
    shown before training with its place (``hint`` empty and ``hint_pos`` None after).

    A diverged restart has no RMSE: its bar (``diverged`` true) is full height, to be
    drawn hatched and marked "diverged", never as a low (good) bar; the histogram
    counts only finite RMSEs and its hint says how many diverged. ``ticks`` name the
    bars of the sorted view by restart number (bar 1 is the best restart, whichever
    it is)."""

    x: np.ndarray
    height: np.ndarray
    width: float | np.ndarray
    best: np.ndarray | None
    labels: tuple[str, str]
    angle: float
    ghost: float
    x_range: tuple[float, float]
    top: float
    hint: str
    hint_pos: tuple[float, float] | None
    diverged: np.ndarray
    ticks: list[tuple[float, str]] | None


def final_bars(snap: RestartsSnapshot, view: str, ghost: float) -> FinalBars:
    """The final RMSEs, best first (``view`` "sorted") or as a histogram, against the
    ghost's RMSE ``ghost`` (NaN when there is none)."""
    empty = np.zeros(0)
    x: np.ndarray
    width: float | np.ndarray
    hint, hint_pos = "", None
    diverged, ticks = np.zeros(0, dtype=bool), None
    lost = int(np.sum(snap.diverged | ~np.isfinite(snap.rmse)))
    if snap.step == 0:  # the random starts' errors are no result to rank
        hint = UNTRAINED_HINT
        x, height, width, best = empty, empty, 1.0, None
        histogram = view == "histogram"
        labels = ("RMSE", "restarts") if histogram else ("restart, best first", "")
        angle = 90 if histogram else 0
        # the ghost's line an eighth of the way up (across): the hint in the room
        # beyond it, never written over the line, even in a small plot at zoom 1.6
        top = 8 * ghost if np.isfinite(ghost) and ghost > 0 else 1.0
        x_range = (0.0, top) if histogram else (0.5, snap.restarts + 0.5)
        hint_pos = (0.5 * (x_range[0] + x_range[1]), 0.58 * top)
        if histogram:
            top = 1.0
            hint_pos = (0.58 * x_range[1], 0.5)
    elif view == "histogram":
        counts, edges = rmse_histogram(np.where(snap.diverged, np.inf, snap.rmse))
        if counts.size:
            x, height, width = 0.5 * (edges[:-1] + edges[1:]), counts, np.diff(edges) * 0.9
        else:
            x, height, width = empty, empty, 1.0
        best = None
        labels = ("RMSE", "restarts")
        angle = 90
        xs = [edges[0], edges[-1], ghost] if counts.size else [ghost]
        xs = [v for v in xs if np.isfinite(v)] or [0.0, 1.0]
        x_range, top = (min(xs), max(xs)), max(1, int(counts.max()) if counts.size else 1)
        if lost:
            hint = f"{lost} of {snap.restarts} {DIVERGED_WORD}: not counted"
            hint_pos = (0.5 * (x_range[0] + x_range[1]), 0.9 * top)
    else:
        order = snap.rmse_order()
        diverged = snap.diverged[order] | ~np.isfinite(snap.rmse[order])
        finite = np.where(diverged, 0.0, snap.rmse[order])
        x, width, best = np.arange(len(order)) + 1.0, 0.8, order == snap.best
        labels = ("restart, best first", "")  # the title says RMSE
        angle = 0
        x_range = (0.5, len(order) + 0.5)
        top = max([float(finite.max()) if finite.size else 0.0]
                  + ([ghost] if np.isfinite(ghost) else [])) or 1.0
        height = np.where(diverged, top, finite)
        ticks = [(float(i + 1), str(int(r) + 1)) for i, r in enumerate(order)]
    if x_range[1] <= x_range[0]:
        x_range = (x_range[0] - 0.5, x_range[0] + 0.5)
    return FinalBars(x, height, width, best, labels, angle, ghost, x_range, top, hint, hint_pos,
                     diverged, ticks)


# -- readouts and tables -------------------------------------------------------------


def restart_name(r: int, restarts: int) -> str:
    """Restart r (from 0) as every text names it: "restart 3 of 6", counted from 1."""
    return f"restart {r + 1} of {restarts}"


def status_text(snap: RestartsSnapshot, steps: int, replaying: int | None,
                running: bool) -> str:
    """What training is doing, and which restarts diverged and where."""
    R = snap.restarts
    diverged = [f"{restart_name(r, R)} at step {int(d):,}"
                for r, d in enumerate(snap.diverged_at) if d >= 0]
    parts = []
    if replaying is not None:
        parts.append(f"Replaying the {replaying:,} steps made with these settings…")
    elif snap.step >= steps:
        parts.append(f"Finished {snap.step:,} steps.")
    elif running:
        parts.append("Training…")
    if diverged:
        parts.append("Diverged (stopped, last finite weights kept): " + ", ".join(diverged)
                     + ". Lower the learning rate.")
    return " ".join(parts)


#: Kinks closer than this share of the domain are one kink to the Hinges panel: its
#: least squares gives two hinges at one place the fit of one.
SAME_KINK = 1e-6


class SentKinks(NamedTuple):
    """The kinks a restart sends to the Hinges panel, and a line that says how many of
    its neurons' kinks were left out and why ("" when none was)."""

    kinks: list[float]
    note: str


def hinges_kinks(snap: RestartsSnapshot, r: int, limit: int = MAX_HINGES) -> SentKinks:
    """Restart r's kinks as the Hinges panel can take them: inside the domain (a kink
    outside bends nothing there; a neuron with w = 0 has none), one per place (kinks
    closer than SAME_KINK of the domain merged), at most ``limit`` (those that bend
    the curve most, |aᵢ·wᵢ|, kept). Each kink left out is counted in ``note``."""
    lo, hi = snap.domain
    k = snap.kinks[r]
    bend = np.abs(snap.a[r] * snap.w[r])
    inside = np.isfinite(k) & (k > lo) & (k < hi)
    outside = int(np.sum(~inside))
    order = np.argsort(k[inside], kind="stable")
    kinks, bends = k[inside][order], bend[inside][order]
    same = np.diff(kinks) <= SAME_KINK * (hi - lo)
    keep = np.append(True, ~same) if kinks.size else np.zeros(0, dtype=bool)
    merged = int(np.sum(~keep))
    kinks, bends = kinks[keep], bends[keep]
    over = max(0, kinks.size - limit)
    if over:
        strongest = np.sort(np.argsort(-bends, kind="stable")[:limit])
        kinks = kinks[strongest]
    parts = []
    if outside:
        parts.append(f"{outside} outside [{lo:g}, {hi:g}]")
    if merged:
        parts.append(f"{merged} at the same place as another")
    if over:
        parts.append(f"{over} beyond the Hinges panel's {limit} (the least bent)")
    dropped = outside + merged + over
    note = ""
    if dropped:
        note = (f"Sent {kinks.size} of the {snap.hidden} kinks of restart {r + 1} of "
                f"{snap.restarts} to Hinges; left out {dropped}: " + ", ".join(parts) + ".")
    return SentKinks([float(v) for v in kinks], note)


def explanation(restarts: int, hidden: int, word: Callable[[str], str]) -> str:
    """What the plots show, in words, for these settings; ``word(role)`` names the
    colour of a role ("target", "approx", "second") in the theme in use."""
    nets = "One network" if restarts == 1 else f"{restarts} networks"
    return (
        f"{nets} of {hidden} ReLU neurons learn{'s' if restarts == 1 else ''} the "
        f"{word('target')} curve, "
        f"{'from a random start' if restarts == 1 else 'each from its own random start'}"
        f"{'' if restarts == 1 else ' (thin ' + word('muted') + ' lines)'}"
        f"; the best is thick {word('approx')}, its kinks ◆. Dashed {word('second')}: "
        f"least squares with {hidden} evenly spaced kinks, the best that fixed kinks can do. "
        "Can training beat it?")


def data_tables(snap: RestartsSnapshot, grid: np.ndarray, target_on_grid: np.ndarray,
                ghost: HingeFit) -> dict:
    """The data behind the plots, as {name: (column headers, rows)} for CSV export."""
    restarts = [[r + 1, snap.seeds[r], float(snap.rmse[r]), int(snap.diverged_at[r])]
                for r in range(snap.restarts)]
    preds = snap.predict(grid)
    curves = [[float(x), float(t), float(g)] + [float(v) for v in preds[:, i]]
              for i, (x, t, g) in enumerate(zip(grid, target_on_grid, ghost.predict(grid)))]
    kinks = [[r + 1, float(k)] for r in range(snap.restarts) for k in snap.kinks_inside(r)]
    return {
        "restarts": (["restart", "seed", "final RMSE", "diverged at step"], restarts),
        "curves": (["x", "target", "even kinks (least squares)"]
                   + [f"restart {r + 1}" for r in range(snap.restarts)], curves),
        "kinks": (["restart", "kink"], kinks),
    }
