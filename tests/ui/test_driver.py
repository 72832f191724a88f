"""The training driver both training panels share: a time budget per tick, a speed in
steps per second, frames drawn one piece per tick, the final frame, gc freezing.

The clock is a fake one that the fake trainer advances, so every decision the driver
makes from time is checked exactly (tests never assert on real time)."""

import gc
import types

import pytest
from PySide6.QtCore import QObject

from relulab.ui import driver as driver_module
from relulab.ui.driver import COMPUTE_BUDGET, ChunkSizer, TrainingDriver


class Clock:
    def __init__(self):
        self.now = 100.0

    def perf_counter(self):
        return self.now


class FakeRun:
    """A trainer whose steps cost ``per_step`` seconds of the fake clock."""

    def __init__(self, clock, per_step=0.001, steps=None, stop_after=None):
        self.clock, self.per_step, self.steps, self.stop_after = clock, per_step, steps, stop_after
        self.step, self.chunks, self.frames, self.drawn = 0, [], [], []

    def train(self, n):
        if self.stop_after is not None:
            n = max(0, min(n, self.stop_after - self.step))
        self.chunks.append(n)
        self.step += n
        self.clock.now += n * self.per_step
        return n

    def steps_left(self):
        return None if self.steps is None else self.steps - self.step

    def frame(self, final):
        self.frames.append((self.step, final))
        names = ["main", "small"] if not final else ["main", "a", "b", "c"]
        return [lambda n=n: self.drawn.append(n) for n in names]


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(driver_module, "time", types.SimpleNamespace(perf_counter=c.perf_counter))
    return c


@pytest.fixture
def parent(qapp):
    p = QObject()
    yield p
    for d in p.findChildren(TrainingDriver):
        d.shutdown()  # a driver left playing would keep gc frozen for the next test
    p.deleteLater()


def make(parent, run):
    return TrainingDriver(parent, "test", train=run.train, steps_left=run.steps_left, frame=run.frame)


def test_chunk_sizer_starts_with_one_step_and_fits_the_budget():
    sizer = ChunkSizer(budget=0.008)
    assert sizer.size() == 1                   # nothing measured: one step
    sizer.record(1, 0.001)                     # 1 ms per step
    assert sizer.size() == 2                   # would fit 8, but grows at most twofold
    sizer.record(2, 0.002)
    sizer.record(4, 0.004)
    assert sizer.size() == 8                   # 8 ms / 1 ms
    sizer.record(8, 0.008)
    assert sizer.size() == 8                   # stays at the budget
    assert sizer.size(budget=0.003) == 3       # what is left after a drawing piece


def test_chunk_sizer_grows_twofold_and_shrugs_off_one_slow_chunk():
    sizer = ChunkSizer(budget=0.008)
    sizer.record(1, 1e-5)
    for n in (2, 4, 8, 16, 32, 64, 128, 256, 512):
        assert sizer.size() == n
        sizer.record(n, n * 1e-5)
    assert sizer.size() == 800                 # 8 ms at 10 µs per step
    sizer.record(800, 0.080)                   # the core was taken away for a while
    assert sizer.size() == 800                 # one slow chunk: the median holds
    sizer.record(800, 0.080)
    sizer.record(800, 0.080)                   # slow three times in five: believed
    assert sizer.size() == 80
    with pytest.raises(ValueError):
        ChunkSizer(budget=0)


def test_ticks_train_within_the_budget_and_draw_a_piece_at_a_time(clock, parent):
    run = FakeRun(clock, per_step=0.001)
    d = make(parent, run)
    assert d.play() and d.playing and d.busy
    for _ in range(200):
        clock.now += 0.010  # the timer's interval
        d._tick()
    assert run.chunks[:3] == [1, 2, 4]                        # learning the cost of a step
    assert max(run.chunks) * run.per_step <= COMPUTE_BUDGET   # no chunk overruns the budget
    assert max(run.chunks) >= 7
    frames = [f for f in run.frames if not f[1]]
    assert len(frames) >= 10                                  # frames kept coming
    assert run.drawn[:2] == ["main", "small"]
    assert d.rate > 0
    d.shutdown()


def test_a_fixed_speed_trains_that_many_steps_per_second(clock, parent):
    run = FakeRun(clock, per_step=1e-5)
    d = make(parent, run)
    d.set_speed(10)
    d.play()
    for _ in range(300):  # three seconds of 10 ms ticks
        clock.now += 0.010
        d._tick()
    assert 29 <= run.step <= 31
    d.shutdown()


def test_pause_stops_at_once_and_draws_the_final_frame_piece_by_piece(clock, parent):
    run = FakeRun(clock)
    d = make(parent, run)
    changes, idle = [], []
    d.playing_changed.connect(changes.append)
    d.idle.connect(lambda: idle.append(True))
    d.play()
    for _ in range(20):
        clock.now += 0.01
        d._tick()
    steps = run.step
    run.drawn.clear()
    d.pause()
    assert not d.playing and changes == [True, False] and run.frames[-1] == (steps, True)
    assert run.drawn == ["main"] and d.busy and not idle     # the main plot at once
    for _ in range(3):
        d._tick()
    assert run.drawn == ["main", "a", "b", "c"] and run.step == steps  # no more training
    assert not d.busy and idle == [True]
    d._tick()
    assert idle == [True]


def test_the_end_of_the_steps_finishes_with_a_final_frame(clock, parent):
    run = FakeRun(clock, steps=50)
    d = make(parent, run)
    finished = []
    d.finished.connect(lambda: finished.append(run.step))
    d.play()
    for _ in range(100):
        clock.now += 0.01
        d._tick()
    assert run.step == 50 and finished == [50] and not d.playing and not d.busy
    assert run.frames[-1] == (50, True) and run.drawn[-4:] == ["main", "a", "b", "c"]
    assert not d.play()  # nothing left to train


def test_settled_comes_once_the_final_frame_of_a_finish_is_drawn(clock, parent):
    run = FakeRun(clock, steps=50)
    d = make(parent, run)
    events = []
    d.finished.connect(lambda: events.append(("finished", list(run.drawn[-4:]))))
    d.settled.connect(lambda: events.append(("settled", list(run.drawn[-4:]))))
    d.play()
    for _ in range(3):  # a pause settles nothing
        clock.now += 0.01
        d._tick()
    d.pause()
    d.draw_all()
    d._tick()
    assert events == []
    d.play()
    while d.playing or d.busy:
        clock.now += 0.01
        d._tick()
    assert [e[0] for e in events] == ["finished", "settled"]
    assert events[1][1] == ["main", "a", "b", "c"]  # every piece of the final frame drawn
    d._tick()
    assert len(events) == 2
    run.steps, events[:] = 60, []  # a finish whose frame a script draws at once
    d.play()
    while d.playing:
        clock.now += 0.01
        d._tick()
    d.draw_all()
    assert [e[0] for e in events] == ["finished", "settled"] and not d.busy


def test_a_trainer_that_stops_itself_stops_the_driver(clock, parent):
    run = FakeRun(clock, stop_after=7)  # e.g. diverged after 7 steps
    d = make(parent, run)
    finished = []
    d.finished.connect(lambda: finished.append(True))
    d.play()
    for _ in range(30):
        clock.now += 0.01
        d._tick()
    assert run.step == 7 and finished == [True] and not d.playing


def test_show_draws_a_cheap_frame_at_once_and_a_costly_one_over_ticks(clock, parent):
    run = FakeRun(clock)
    d = make(parent, run)
    drawn = []
    d.show([lambda: drawn.append(1), lambda: drawn.append(2)])
    assert drawn == [1, 2] and not d.busy
    drawn.clear()

    def costly(n):
        drawn.append(n)
        clock.now += 2 * COMPUTE_BUDGET

    d.show([lambda: costly(1), lambda: costly(2), lambda: costly(3)])
    assert drawn == [1] and d.busy
    d._tick()
    assert drawn == [1, 2]
    d.draw_all()
    assert drawn == [1, 2, 3] and not d.busy
    drawn.clear()
    d.show([lambda: drawn.append(4), lambda: drawn.append(5)])  # the last frame was costly
    assert drawn == [4] and d.busy                               # so one piece per tick
    d._tick()
    d.add_paint_time(COMPUTE_BUDGET / 4)                         # its paints are counted too
    d.show([lambda: drawn.append(6), lambda: drawn.append(7)])
    assert drawn == [4, 5, 6, 7] and not d.busy


def test_step_trains_outside_play_and_respects_the_end(clock, parent):
    run = FakeRun(clock, steps=5)
    d = make(parent, run)
    assert d.step(3) == 3 and d.step(3) == 2 and d.step(3) == 0


def test_full_collections_skip_old_objects_only_while_playing(clock, parent):
    assert gc.get_freeze_count() == 0
    d = make(parent, FakeRun(clock))
    d.play()
    assert gc.get_freeze_count() > 0
    d.pause()
    assert gc.get_freeze_count() == 0
    d.play()
    d.shutdown()
    assert gc.get_freeze_count() == 0 and not d.busy
