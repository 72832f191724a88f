"""The Training panel's Qt-free work, called without a widget: the workers' jobs (replay,
refit, compile), and what the plots, readouts and tables show, checked against the
snapshot and the model's own functions."""

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.fitting.training import fit_even_hinges, refit_output_layer
from relulab.model.lessons.training import TrainingState
from relulab.ui.panels.training import jobs


def _run(state: TrainingState, steps: int):
    trainer = state.trainer()
    trainer.run(steps)
    return trainer, trainer.snapshot()


@pytest.fixture(scope="module")
def trained():
    """Three restarts, 1000 steps of Adam: none diverged."""
    return _run(TrainingState(restarts=3, hidden=8, points=200, steps=3000), 1000)


@pytest.fixture(scope="module")
def some_diverged():
    """Gradient descent at 0.15: restarts 1, 2 and 5 diverge, 3, 4 and 6 do not."""
    trainer, snap = _run(TrainingState(restarts=6, hidden=8, points=200, optimizer="gd",
                                       lr=0.15), 300)
    assert snap.diverged.any() and not snap.diverged.all()
    return trainer, snap


def _grid(snap, n=jobs.CURVE_POINTS):
    return np.linspace(*snap.domain, n)


def test_the_jobs_run_without_qt_and_compile_the_training_loop():
    """In a fresh process: importing the jobs and compiling the loop (or loading it from
    numba's cache) starts no Qt, and the compiled loop is ready afterwards."""
    code = ("import sys\n"
            "from relulab.model.fitting import _training_kernels as kernels\n"
            "from relulab.ui.panels.training import jobs\n"
            "assert not kernels.compiled_ready()\n"
            "assert jobs.compile_training_loop(lambda: False) is True\n"
            "assert kernels.compiled_ready()\n"
            "qt = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]\n"
            "assert not qt, qt")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_replay_run_gives_the_run_trained_from_its_seeds(trained):
    _, snap = trained
    state = TrainingState(restarts=3, hidden=8, points=200, steps=3000, step=1000)
    replayed = jobs.replay_run(state).snapshot()
    assert replayed.step == 1000
    np.testing.assert_array_equal(replayed.w, snap.w)
    np.testing.assert_array_equal(replayed.a, snap.a)
    with pytest.raises(Cancelled):
        jobs.replay_run(state, lambda: True)


def test_replay_plan_follows_the_cost_of_the_steps():
    state = TrainingState(restarts=1, points=90, hidden=1)
    per_step = state.restarts * (state.points + 10 * state.hidden)  # 100: the limits are steps
    assert jobs.replay_plan(state) == "none"
    at_most_now = int(jobs.SYNC_REPLAY // per_step)
    assert jobs.replay_plan(replace(state, step=at_most_now)) == "now"
    assert jobs.replay_plan(replace(state, step=at_most_now + 1)) == "worker"
    at_most_worker = int(jobs.REPLAY_BUDGET // per_step)
    assert jobs.replay_plan(replace(state, step=at_most_worker)) == "worker"
    assert jobs.replay_plan(replace(state, step=at_most_worker + 1)) == "restart"


def test_refit_is_the_least_squares_output_layer(trained):
    trainer, snap = trained
    for r in range(snap.restarts):
        refit = jobs.refit_rmse(("key", r), trainer.x, trainer.y, snap.w[r], snap.b[r])
        key, rmse = refit
        assert key == ("key", r)
        assert rmse == refit_output_layer(trainer.x, trainer.y, snap.w[r], snap.b[r])[2]
        # the best output layer for these kinks is no worse than the trained one
        assert rmse <= snap.rmse[r] + 1e-12


def test_refit_is_live_up_to_its_size():
    assert jobs.refit_is_live(16, jobs.REFIT_LIVE_SIZE // 16)
    assert not jobs.refit_is_live(16, jobs.REFIT_LIVE_SIZE // 16 + 1)


def test_curves_are_the_restarts_on_the_grid(trained):
    _, snap = trained
    grid = _grid(snap)
    target = np.sin(grid)
    lo, hi = jobs.finite_range(target)
    for sel in range(snap.restarts):
        c = jobs.curves(snap, sel, grid, target)
        assert c.restarts.shape == (snap.restarts, grid.size)
        np.testing.assert_allclose(c.restarts, np.clip(snap.predict(grid), lo, hi))
        np.testing.assert_allclose(c.best, snap.predict(grid, snap.best))
        np.testing.assert_allclose(c.kink_x, snap.kinks_inside(sel))
        np.testing.assert_allclose(c.kink_y, snap.predict(snap.kinks_inside(sel), sel))


def test_curves_of_diverged_restarts_are_not_drawn(some_diverged):
    _, snap = some_diverged
    grid = _grid(snap)
    c = jobs.curves(snap, 0, grid, np.cos(grid))
    for r in range(snap.restarts):
        assert np.isnan(c.restarts[r]).all() == bool(snap.diverged[r])
    assert snap.best != 0 and not snap.diverged[snap.best]
    np.testing.assert_allclose(c.best, snap.predict(grid, snap.best))
    assert np.isfinite(c.kink_y).all()


def test_ranges_follow_the_target():
    y = np.array([-1.0, 0.0, 3.0])  # span 4
    assert jobs.finite_range(y) == (-9.0, 11.0)
    assert jobs.curve_y_range(y) == pytest.approx((-1.6, 3.6))  # no key on the plot
    assert jobs.finite_range(np.zeros(3)) == (-2.0, 2.0)  # a flat target spans 1


def test_losses_are_thinned_and_end_at_the_last_step(trained):
    _, snap = trained
    losses = jobs.losses(snap, ghost_rmse=0.05)
    assert len(losses.steps) == snap.restarts
    for r, (x, y) in enumerate(zip(losses.steps, losses.values)):
        assert x[-1] == snap.step and x.size <= jobs.LOSS_POINTS + 1
        np.testing.assert_array_equal(y, snap.losses[r, x - 1])
    finite = snap.losses[snap.losses > 0]
    lo, hi = losses.log_range
    assert lo <= np.log10(finite.min()) and hi >= np.log10(finite.max())


def test_losses_before_training_span_the_starts_to_the_ghost():
    trainer = TrainingState(restarts=3, hidden=8, points=200).trainer()
    snap = trainer.snapshot()
    losses = jobs.losses(snap, ghost_rmse=1e-3)
    assert all(x.size == 0 for x in losses.steps)
    lo, hi = losses.log_range
    assert lo == pytest.approx(np.log10(1e-6))
    assert hi == pytest.approx(np.log10(np.max(snap.rmse) ** 2))
    # the starts alone lie within a decade: a decade more on either side
    mse = snap.rmse ** 2
    assert mse.max() < 10 * mse.min()
    lo, hi = jobs.losses(snap, ghost_rmse=np.nan).log_range
    assert (lo, hi) == pytest.approx((np.log10(mse.min()) - 1, np.log10(mse.max()) + 1))


def test_kink_paths_follow_each_neuron_to_its_kink_now(trained):
    _, snap = trained
    sel = 1
    paths = jobs.kink_paths(snap, sel)
    # one path per neuron, each ended by a NaN, steps upwards to the step now
    ends = np.flatnonzero(np.isnan(paths.y))
    assert ends.size == snap.hidden
    assert np.all(paths.y[ends - 1] == snap.step)
    lo, hi = snap.domain
    kinks = snap.kinks[sel]
    inside = (kinks > lo) & (kinks < hi)
    np.testing.assert_allclose(paths.x[ends - 1][inside], kinks[inside])
    assert np.isnan(paths.x[ends - 1][~inside]).all()
    np.testing.assert_allclose(np.sort(paths.now_x), snap.kinks_inside(sel))
    assert np.all(paths.now_y == snap.step)


def test_kink_paths_of_a_wide_network_stay_within_the_paint_budget():
    trainer = TrainingState(restarts=1, hidden=256, points=200).trainer()
    for _ in range(400):  # a snapshot of the kinks at every run
        trainer.run(1)
    snap = trainer.snapshot()
    paths = jobs.kink_paths(snap, 0)
    rows = max(2, min(jobs.KINK_ROWS, jobs.KINK_POINTS // snap.hidden))
    assert paths.y.size <= (rows + 2) * snap.hidden


def test_final_bars_sorted_best_first(some_diverged):
    _, snap = some_diverged
    bars = jobs.final_bars(snap, "sorted", ghost=0.1)
    order = snap.rmse_order()
    assert bars.best is not None and bars.best[0] and bars.best.sum() == 1
    lost = snap.diverged[order]
    assert lost.any() and not lost[0]
    finite = np.where(lost, 0.0, snap.rmse[order])
    assert bars.top == pytest.approx(max(finite.max(), 0.1)) and bars.hint == ""
    # a diverged restart is a full-height bar marked as such, never a low (good) one
    np.testing.assert_array_equal(bars.height, np.where(lost, bars.top, finite))
    np.testing.assert_array_equal(bars.diverged, lost)
    np.testing.assert_array_equal(bars.x, np.arange(snap.restarts) + 1)
    assert bars.ticks == [(i + 1.0, str(r + 1)) for i, r in enumerate(order)]
    assert bars.labels == ("restart, best first", "") and bars.angle == 0
    assert bars.x_range == (0.5, snap.restarts + 0.5)


def test_final_bars_as_a_histogram_count_every_finite_restart(trained):
    _, snap = trained
    bars = jobs.final_bars(snap, "histogram", ghost=0.01)
    assert bars.best is None and int(np.sum(bars.height)) == snap.restarts
    assert bars.labels == ("RMSE", "restarts") and bars.angle == 90
    assert bars.x_range[0] <= min(snap.rmse.min(), 0.01) and bars.x_range[1] >= snap.rmse.max()


def test_final_bars_before_training_say_what_will_come():
    snap = TrainingState(restarts=4, hidden=8, points=200).trainer().snapshot()
    for view in ("sorted", "histogram"):
        bars = jobs.final_bars(snap, view, ghost=0.02)
        assert bars.x.size == 0 and "Space" in bars.hint and bars.hint_pos is not None
    sorted_bars = jobs.final_bars(snap, "sorted", ghost=0.02)
    assert sorted_bars.top == pytest.approx(0.16)  # the ghost an eighth of the way up
    assert sorted_bars.hint_pos[1] > sorted_bars.ghost  # the hint above the ghost's line


def test_status_says_what_training_does(some_diverged):
    _, snap = some_diverged
    text = jobs.status_text(snap, steps=300, replaying=None, running=False)
    assert text.startswith("Finished 300 steps.")
    for r, at in enumerate(snap.diverged_at):
        assert (f"restart {r + 1} of {snap.restarts} at step {int(at):,}" in text) == bool(at >= 0)
    assert jobs.status_text(snap, 3000, replaying=3000, running=False).startswith("Replaying the 3,000")
    assert jobs.status_text(snap, 3000, None, running=True).startswith("Training…")


def test_explanation_names_the_theme_colours():
    text = jobs.explanation(4, 8, lambda role: role.upper())
    assert text.startswith("4 networks of 8 ReLU neurons learn the TARGET curve")
    assert "thick APPROX" in text and "Dashed SECOND" in text and "8 evenly spaced kinks" in text
    assert jobs.explanation(1, 3, str).startswith("One network of 3 ReLU neurons learns")


def test_data_tables_hold_the_snapshot(trained):
    trainer, snap = trained
    grid = _grid(snap, 50)
    target = np.sin(grid)
    ghost = fit_even_hinges(trainer.x, trainer.y, snap.hidden, *snap.domain)
    tables = jobs.data_tables(snap, grid, target, ghost)
    _, restarts = tables["restarts"]
    assert [row[2] for row in restarts] == [float(v) for v in snap.rmse]
    header, curves = tables["curves"]
    assert len(header) == 3 + snap.restarts and len(curves) == grid.size
    np.testing.assert_allclose(np.array(curves)[:, 3:], snap.predict(grid).T)
    np.testing.assert_allclose(np.array(curves)[:, 2], ghost.predict(grid))
    _, kinks = tables["kinks"]
    assert len(kinks) == sum(snap.kinks_inside(r).size for r in range(snap.restarts))
