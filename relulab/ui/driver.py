"""Training driven from a QTimer, one bounded piece of work per tick: the Training and
Playground panels share this driver.

Staying responsive (the event loop answers within 50 ms while training): every tick
does one bounded piece of work and returns to the event loop, which then paints what
changed. A tick trains for as many steps as fit COMPUTE_BUDGET (measured, see
:class:`ChunkSizer`), or draws one piece of a frame (the panel splits a frame into
pieces: its main plot, each small plot, …) and trains in what is left of the budget.
A frame starts at most every ``redraw_interval`` seconds, longer when frames cost
more (drawing may take 40 % of the time, painting included: plots report their paint
time through :class:`TimedPlotWidget`). At a fixed speed the steps owed are counted
from the time that passed. When training stops (paused, finished, or stopped by the
panel) the final frame is drawn piece by piece in the next ticks, then the timer
stops.

Python's full garbage collections, which walk every object Qt, pyqtgraph and numba
made (≈ 80 ms), are kept off the objects that already exist while training runs
(``gc.freeze``).

The panel gives three functions: ``train(n)`` makes up to n steps and returns how
many it made (fewer: training stopped itself, e.g. diverged); ``steps_left()`` says
how many steps remain before the end (None: no end); ``frame(final)`` takes a
snapshot and returns the pieces that draw it (the first is drawn at once).
"""

from __future__ import annotations

import gc
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QTimer, Signal

TICK_MS = 10             # the timer's interval
COMPUTE_BUDGET = 0.008   # seconds of work per tick at most (training and drawing together)
MIN_TRAIN_SLICE = 0.002  # after a drawing piece, train only if this much budget is left
MIN_REDRAW_INTERVAL = 0.033  # at most 30 frames a second
MAX_REDRAW_INTERVAL = 0.5    # and at least two, however costly a frame is
DRAW_SHARE = 0.4         # a frame's drawing and painting may take this share of the time
CATCH_UP = 0.25          # after a stall, a fixed speed makes up at most this many seconds

Piece = Callable[[], object]


class ChunkSizer:
    """How many training steps fit a time budget, learned from the chunks run so far.

    A step costs from a few microseconds (H = 12, 400 points) to a millisecond (32
    restarts, H = 256, 4000 points), so nothing is assumed: the first chunk is one step,
    and then n = budget / (seconds per step), the cost per step being the median of the
    last few chunks: it is the same for every step of a run, and what varies is the
    machine (another process taking the core for a while), which one chunk's time would
    overstate. A chunk is at most ``growth`` times the last one, so that a lucky
    measurement cannot make the next chunk overrun by much.
    """

    def __init__(self, budget: float, growth: float = 2.0, window: int = 5):
        if not budget > 0 or not growth > 1 or window < 1:
            raise ValueError("the budget must be positive, the growth above 1, the window ≥ 1")
        self.budget = budget
        self.growth = growth
        self._recent = deque(maxlen=window)  # seconds per step of the last chunks
        self.last = 0                        # steps in the last chunk

    @property
    def per_step(self) -> float | None:
        """Seconds per step (median of the last chunks), None until measured."""
        return float(np.median(self._recent)) if self._recent else None

    def size(self, budget: float | None = None) -> int:
        """Steps for the next chunk so that it takes at most ``budget`` (default: the
        sizer's budget) seconds; at least one."""
        budget = self.budget if budget is None else budget
        per = self.per_step
        if per is None:
            return 1
        fit = int(budget / per) if per > 0 else sys.maxsize
        return max(1, min(fit, int(max(1, self.last) * self.growth)))

    def record(self, steps: int, seconds: float) -> None:
        """Remember that ``steps`` steps took ``seconds``."""
        if steps <= 0 or not seconds >= 0:
            return
        self._recent.append(seconds / steps)
        self.last = steps


class TimedPlotWidget(pg.PlotWidget):
    """A PlotWidget that reports the time of each paint (the paint of a frame is the
    larger part of its cost, and it runs after the tick returns)."""

    def __init__(self, clock: Callable[[float], None], parent=None):
        super().__init__(parent)
        self._clock = clock

    def paintEvent(self, ev):
        t0 = time.perf_counter()
        super().paintEvent(ev)
        self._clock(time.perf_counter() - t0)


class TrainingDriver(QObject):
    """Plays a panel's training from a QTimer within a time budget per tick.

    Signals: ``playing_changed(bool)`` when training starts or stops (paused, finished,
    or stopped by ``train``); ``finished()`` when it stopped because no steps were left
    or ``train`` made fewer than asked; ``idle()`` when the last piece of a frame has
    been drawn and the timer stopped; ``settled()`` at the first ``idle()`` after
    ``finished()``: the final frame is on screen (a new start before it forgets it).
    """

    playing_changed = Signal(bool)
    finished = Signal()
    idle = Signal()
    settled = Signal()

    def __init__(self, parent: QObject, name: str, *, train: Callable[[int], int],
                 steps_left: Callable[[], int | None], frame: Callable[[bool], list[Piece]],
                 ready: Callable[[], bool] | None = None):
        super().__init__(parent)
        self.setObjectName(f"{name}-driver")
        self._train_fn, self._steps_left, self._frame, self._ready = train, steps_left, frame, ready
        self.speed: int | None = None   # steps per second; None: as many as the budget allows
        self.sizer = ChunkSizer(COMPUTE_BUDGET)
        self.rate = 0.0                 # measured steps per second
        self.playing = False
        self.redraw_interval = MIN_REDRAW_INTERVAL
        self._rate_window: list[tuple[float, int]] = []
        self._done_steps = 0
        self._owed = 0.0
        self._last_tick: float | None = None
        self._pieces: deque[Piece] = deque()
        self._frame_started = 0.0
        self._frame_cost = 0.0          # seconds the current frame has cost so far
        self._paint_seconds = 0.0       # added to by the plots' paint events
        self._gc_frozen = False
        self._settling = False          # finished, its final frame still being drawn
        self._timer = QTimer(self)
        self._timer.setObjectName(f"{name}-timer")
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    # -- state ---------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """True while training or while pieces of a frame are still to be drawn."""
        return self._timer.isActive()

    def add_paint_time(self, seconds: float) -> None:
        self._paint_seconds += seconds

    def restart(self) -> None:
        """A new run: the cost of a step is measured again, the rate starts from zero."""
        self.sizer = ChunkSizer(COMPUTE_BUDGET)
        self.rate, self._rate_window, self._done_steps = 0.0, [], 0
        self._owed = 0.0

    def set_speed(self, steps_per_second: int | None) -> None:
        self.speed = steps_per_second
        self._owed = 0.0

    # -- playing -------------------------------------------------------------------
    def play(self) -> bool:
        """Start training (False when no steps are left)."""
        if self.playing:
            return True
        if self._steps_left() == 0:
            return False
        self.playing = True
        self._settling = False
        now = time.perf_counter()
        self._last_tick = now
        self._owed = 0.0
        self._pieces.clear()
        self._frame_started = now
        self._frame_cost = self._paint_seconds = 0.0  # paints while paused do not count
        self._freeze_gc()
        self._timer.start()
        self.playing_changed.emit(True)
        return True

    def pause(self) -> None:
        """Stop training now; the final frame is drawn in the next ticks."""
        if self.playing:
            self._stop_training(finished=False)

    def step(self, n: int) -> int:
        """Train n steps now (fewer at the end), outside play; returns how many ran."""
        self.pause()
        return self._train(n)

    def show(self, pieces: Iterable[Piece]) -> None:
        """Draw a frame (a redraw after an edit, a change of view). While paused, a frame
        whose last drawing and painting fit COMPUTE_BUDGET is drawn now, as far as the
        budget goes; a costlier one, and every frame while training, one piece per tick,
        each followed by its own paint. Pieces still queued are dropped."""
        cheap = self._frame_cost + self._paint_seconds < COMPUTE_BUDGET
        self._frame_cost = self._paint_seconds = 0.0
        self._pieces.clear()
        self._pieces.extend(pieces)
        if not self.playing:
            started = time.perf_counter()
            self._run_piece()
            while cheap and self._pieces and time.perf_counter() - started < COMPUTE_BUDGET:
                self._run_piece()
        if self._pieces:
            self._timer.start()

    def draw_all(self) -> None:
        """Draw every queued piece now (for scripts, exports and tests)."""
        while self._pieces:
            self._run_piece()
        if not self.playing and self._timer.isActive():
            self._timer.stop()
            self._emit_idle()

    def shutdown(self) -> None:
        self._timer.stop()
        self._pieces.clear()
        self.playing = False
        self._unfreeze_gc()

    # -- the work of one tick ------------------------------------------------------------
    def _train(self, n: int) -> int:
        """Train up to n steps (fewer at the end); remember how long they took."""
        left = self._steps_left()
        if left is not None:
            n = min(n, left)
        if n <= 0:
            return 0
        t0 = time.perf_counter()
        made = self._train_fn(n)
        now = time.perf_counter()
        if made > 0:
            self.sizer.record(made, now - t0)
            self._done_steps += made
            self._rate_window.append((now, self._done_steps))
            while len(self._rate_window) > 2 and now - self._rate_window[0][0] > 1.0:
                self._rate_window.pop(0)
            (t_a, s_a), (t_b, s_b) = self._rate_window[0], self._rate_window[-1]
            self.rate = (s_b - s_a) / (t_b - t_a) if t_b > t_a else 0.0
        return made

    def _run_piece(self) -> float:
        t0 = time.perf_counter()
        self._pieces.popleft()()
        spent = time.perf_counter() - t0
        self._frame_cost += spent
        return spent

    def _begin_frame(self, final: bool) -> float:
        """Take a snapshot and draw its first piece now; queue the others."""
        now = time.perf_counter()
        if self._frame_cost:
            cost = self._frame_cost + self._paint_seconds
            self.redraw_interval = min(MAX_REDRAW_INTERVAL,
                                       max(MIN_REDRAW_INTERVAL, cost / DRAW_SHARE))
        self._frame_started, self._frame_cost, self._paint_seconds = now, 0.0, 0.0
        self._pieces.clear()
        self._pieces.extend(self._frame(final))
        return self._run_piece() if self._pieces else 0.0

    def _stop_training(self, finished: bool) -> None:
        self.playing = False
        self._unfreeze_gc()
        self._begin_frame(final=True)
        if self._pieces:
            self._timer.start()
        else:
            self._timer.stop()
        self.playing_changed.emit(False)
        if finished:
            self._settling = True
            self.finished.emit()
        if not self._pieces:
            self._emit_idle()

    def _tick(self) -> None:
        """One bounded piece of work, then back to the event loop (which paints what the
        piece changed before the next tick): a piece of the current frame and training in
        what is left of COMPUTE_BUDGET, or a training chunk that fills it."""
        started = time.perf_counter()
        if not self.playing:
            if self._pieces:
                self._run_piece()
            if not self._pieces and self._timer.isActive():
                self._timer.stop()
                self._emit_idle()
            return
        if self._ready is not None and not self._ready():
            return
        elapsed = started - (self._last_tick or started)
        self._last_tick = started
        if self.speed is not None:
            self._owed = min(self._owed + self.speed * elapsed, max(1.0, self.speed * CATCH_UP))
        left = self._steps_left()
        drawn = 0.0
        if self._pieces:
            drawn = self._run_piece()
        elif left != 0 and started - self._frame_started >= self.redraw_interval:
            drawn = self._begin_frame(final=False)
        if left == 0:
            self._stop_training(finished=True)
            return
        budget = COMPUTE_BUDGET - drawn
        if drawn and budget < MIN_TRAIN_SLICE:
            return
        n = self.sizer.size(budget)
        if self.speed is not None:
            n = min(int(self._owed), n)
            self._owed -= n
        if n <= 0:
            return
        if left is not None:
            n = min(n, left)
        made = self._train(n)
        if made < n or self._steps_left() == 0:
            self._stop_training(finished=True)

    def _emit_idle(self) -> None:
        self.idle.emit()
        if self._settling and not self.playing:
            self._settling = False
            self.settled.emit()

    # -- garbage collection ----------------------------------------------------------
    def _freeze_gc(self) -> None:
        """Move every object alive now out of the garbage collector's reach while training
        runs: a full collection walks them all (Qt wrappers, pyqtgraph items, numba's
        compiler state; ≈ 80 ms) and would stall the event loop. Only the objects made
        while training are then collected; a freeze made elsewhere is left in place."""
        if not self._gc_frozen:
            self._gc_frozen = gc.get_freeze_count() == 0
            gc.freeze()

    def _unfreeze_gc(self) -> None:
        if self._gc_frozen:
            self._gc_frozen = False
            gc.unfreeze()  # cycles that died meanwhile become collectable again
