"""Training 1 → H → 1 ReLU networks: the notebook's experiment and the machinery around it."""

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.training import (
    MAX_POINTS,
    MAX_STEPS,
    MAX_WIDTH,
    SPEEDS,
    HingeNetTrainer,
    fit_even_hinges,
    init_hinge_net,
    iter_hinge_net,
    refit_output_layer,
    rmse_histogram,
    train_hinge_net,
)
from relulab.model.lessons.training import TrainingState, replay
from relulab.model.networks.mlp import MLP

X = np.linspace(-3, 3, 400)
Y = np.sin(2 * X) + 0.3 * X ** 2


def relu(z):
    return np.maximum(0, z)


def notebook_train(seed, hidden=12, learning_rate=0.01, steps=20000):
    """The notebook's loop, verbatim but for names: the reference for the mathematics."""
    x, target = X, Y
    rng = np.random.default_rng(seed)
    w = rng.choice([-1, 1], hidden) * rng.uniform(0.5, 1.5, hidden)
    params = [w, -w * rng.uniform(-3, 3, hidden), rng.normal(0, 0.1, hidden), np.zeros(1)]
    m, v = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    errors = []
    for t in range(1, steps + 1):
        z = x[:, None] * params[0] + params[1]
        h = relu(z)
        error = h @ params[2] + params[3][0] - target
        errors.append(np.mean(error ** 2))
        d_out = 2 * error / len(x)
        d_hidden = d_out[:, None] * params[2] * (z > 0)
        grads = [(d_hidden * x[:, None]).sum(axis=0), d_hidden.sum(axis=0), h.T @ d_out,
                 np.array([d_out.sum()])]
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g ** 2
            params[i] -= learning_rate * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    return params, np.array(errors)


BACKENDS = ["numpy", pytest.param("compiled", marks=pytest.mark.skipif(
    not kernels.compiled_available(), reason="numba not available"))]


def test_initialisation_is_the_notebooks():
    for seed in (0, 3, 17):
        rng = np.random.default_rng(seed)
        w = rng.choice([-1, 1], 12) * rng.uniform(0.5, 1.5, 12)
        b = -w * rng.uniform(-3, 3, 12)
        a = rng.normal(0, 0.1, 12)
        w2, b2, a2, c2, _ = init_hinge_net(seed, 12, (-3.0, 3.0))
        assert np.array_equal(w, w2) and np.array_equal(b, b2) and np.array_equal(a, a2)
        assert c2 == 0.0
    snap = HingeNetTrainer(X, Y, hidden=12, seeds=[3]).snapshot()
    assert np.array_equal(snap.w[0], init_hinge_net(3, 12)[0])


def test_he_initialisation_option():
    w, b, _a, _c, _ = init_hinge_net(1, 64, init="he")
    assert abs(np.std(w) - np.sqrt(2)) < 0.4 and np.all(np.abs(b) <= 0.5)
    with pytest.raises(ValueError, match="initialisation"):
        init_hinge_net(1, 4, init="xavier")


@pytest.mark.parametrize("backend", BACKENDS)
def test_prefix_sum_steps_match_the_notebook_loop(backend):
    params, errors = notebook_train(2, steps=300)
    trainer = HingeNetTrainer(X, Y, hidden=12, seeds=[2], lr=0.01, backend=backend)
    snap = trainer.advance(300)
    np.testing.assert_allclose(snap.losses[0], errors, rtol=1e-9, atol=1e-13)
    for ours, theirs in zip((snap.w[0], snap.b[0], snap.a[0], snap.c), params):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-11)


@pytest.mark.parametrize(("optimizer", "lr", "batch"), [("adam", 0.01, None), ("gd", 0.05, None),
                                                ("momentum", 0.01, None), ("adam", 0.01, 32),
                                                ("momentum", 0.005, 50)])
def test_compiled_loop_agrees_with_numpy_reference(optimizer, lr, batch):
    if not kernels.compiled_available():
        pytest.skip("numba not available")
    runs = [HingeNetTrainer(X, Y, hidden=9, seeds=[0, 4, 7], lr=lr, optimizer=optimizer,
                            batch_size=batch, backend=b).advance(250) for b in ("numpy", "compiled")]
    np.testing.assert_allclose(runs[0].losses, runs[1].losses, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(runs[0].w, runs[1].w, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(runs[0].a, runs[1].a, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_vectorised_restarts_agree_with_single_restarts(backend):
    seeds = [5, 1, 8]
    together = train_hinge_net(X, Y, hidden=7, seeds=seeds, steps=400, lr=0.02, batch_size=40,
                               backend=backend)
    for r, s in enumerate(seeds):
        alone = train_hinge_net(X, Y, hidden=7, seeds=[s], steps=400, lr=0.02, batch_size=40,
                                backend=backend)
        np.testing.assert_allclose(together.losses[r], alone.losses[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(together.w[r], alone.w[0])
        assert together.rmse[r] == pytest.approx(alone.rmse[0], rel=1e-12)


def test_seeds_are_reproducible_and_differ():
    one = train_hinge_net(X, Y, hidden=6, seeds=[0, 1], steps=200)
    two = train_hinge_net(X, Y, hidden=6, seeds=[0, 1], steps=200)
    np.testing.assert_array_equal(one.w, two.w)
    np.testing.assert_array_equal(one.losses, two.losses)
    assert not np.allclose(one.w[0], one.w[1])


def _check_notebook_pattern(result):
    rmse = result.rmse
    assert rmse[3] >= 0.15, rmse                                 # the stuck start
    others = np.delete(rmse, 3)
    assert np.all(others < 0.075), rmse
    assert np.count_nonzero((others >= 0.03) & (others <= 0.055)) >= 4, rmse
    # the best network's kinks crowd where the target bends most: |f''| = |−4 sin 2x + 0.6|
    best = result.best
    assert best != 3
    kinks = result.kinks_inside(best)
    def bend(x):
        return np.abs(-4 * np.sin(2 * x) + 0.6)
    assert np.median(bend(kinks)) > 1.3 * np.mean(bend(X)), kinks
    near_peaks = np.min(np.abs(kinks[:, None] - np.array([-2.36, -0.79, 0.79, 2.36])), axis=1) < 0.35
    # windows of ±0.35 cover under half of [−3, 3]; evenly spread kinks would put half in them
    assert np.count_nonzero(near_peaks) >= 0.75 * len(kinks), kinks
    # and the best trained network is still not better than 12 even hinges by least squares
    assert fit_even_hinges(X, Y, 12, -3, 3).rmse < rmse[best]


def test_notebook_experiment_reproduces():
    """12 hidden, lr 0.01, 20 000 Adam steps, seeds 0–5 (the shipped, compiled path)."""
    result = train_hinge_net(X, Y, hidden=12, seeds=range(6), steps=20_000, lr=0.01)
    _check_notebook_pattern(result)
    assert result.losses.shape == (6, 20_000)
    assert np.all(result.losses[:, -1] < result.losses[:, 0])


@pytest.mark.slow
def test_notebook_experiment_reproduces_with_numpy_reference():
    result = train_hinge_net(X, Y, hidden=12, seeds=range(6), steps=20_000, lr=0.01, backend="numpy")
    _check_notebook_pattern(result)


def test_generator_yields_immutable_snapshots():
    snaps = list(iter_hinge_net(X, Y, hidden=5, seeds=[0, 1], steps=250, every=100))
    assert [s.step for s in snaps] == [0, 100, 200, 250]
    assert [s.losses.shape for s in snaps] == [(2, 0), (2, 100), (2, 200), (2, 250)]
    first = snaps[1]
    w_before, loss_before = first.w.copy(), first.losses.copy()
    with pytest.raises(ValueError):
        first.w[0, 0] = 1.0
    with pytest.raises(ValueError):
        first.losses[0, 0] = 1.0
    np.testing.assert_array_equal(first.w, w_before)   # later steps did not touch it
    np.testing.assert_array_equal(first.losses, loss_before)
    assert list(snaps[-1].kink_steps) == [0, 100, 200, 250]
    assert snaps[-1].kink_history.shape == (4, 2, 5)
    np.testing.assert_allclose(snaps[-1].kink_history[-1], snaps[-1].kinks)


def test_snapshot_histories_survive_buffer_growth():
    trainer = HingeNetTrainer(X, Y, hidden=3, seeds=[0])
    early = trainer.advance(1000)
    copy = early.losses.copy()
    trainer.advance(5000)   # grows the loss buffer past its first size
    np.testing.assert_array_equal(early.losses, copy)
    assert trainer.snapshot().losses.shape == (1, 6000)
    np.testing.assert_array_equal(trainer.snapshot().losses[:, :1000], copy)


@pytest.mark.parametrize("backend", BACKENDS)
def test_divergence_is_flagged_per_restart_and_keeps_finite_parameters(backend):
    result = train_hinge_net(X, Y, hidden=12, seeds=range(4), steps=300, lr=10, optimizer="gd",
                             backend=backend)
    assert np.all(result.diverged) and np.all(result.diverged_at > 0)
    for r in range(4):
        d = result.diverged_at[r]
        assert np.all(np.isfinite(result.losses[r, :d - 1]))
        assert np.all(np.isnan(result.losses[r, d:]))
    assert np.all(np.isfinite(result.w)) and np.all(np.isfinite(result.a))
    # Adam at lr = 10 does not crash either: its steps are bounded by lr
    adam = train_hinge_net(X, Y, hidden=12, seeds=range(2), steps=300, lr=10)
    assert adam.rmse.shape == (2,)


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_restart_diverges_while_the_others_go_on(backend):
    seeds = [4, 5, 6]
    result = train_hinge_net(X, Y, hidden=12, seeds=seeds, steps=600, lr=0.05,
                             optimizer="momentum", backend=backend)
    assert list(result.diverged) == [False, True, False]
    assert result.diverged_at[1] > 1
    alone = train_hinge_net(X, Y, hidden=12, seeds=[6], steps=600, lr=0.05, optimizer="momentum",
                            backend=backend)
    np.testing.assert_allclose(result.losses[2], alone.losses[0], rtol=1e-12)
    assert result.best != 1 and result.rmse_order()[-1] == 1


def test_changing_the_learning_rate_does_not_reset():
    trainer = HingeNetTrainer(X, Y, hidden=12, seeds=[0, 1], lr=0.01)
    before = trainer.advance(500)
    trainer.lr = 0.002
    after = trainer.advance(100)
    assert after.step == 600 and after.lr == 0.002
    np.testing.assert_array_equal(after.losses[:, :500], before.losses)
    assert abs(after.losses[0, 500] - before.losses[0, -1]) < 0.1 * before.losses[0, -1]
    with pytest.raises(ValueError, match="learning rate"):
        trainer.lr = -1


def test_mini_batch_training_learns_and_plain_gd_too():
    mb = train_hinge_net(X, Y, hidden=12, seeds=[0, 1], steps=3000, lr=0.01, batch_size=32)
    start = HingeNetTrainer(X, Y, hidden=12, seeds=[0, 1]).snapshot()
    assert np.all(mb.rmse < 0.5 * start.rmse)
    gd = train_hinge_net(X, Y, hidden=12, seeds=[0], steps=3000, lr=0.02, optimizer="gd")
    assert gd.rmse[0] < 0.6 * start.rmse[0]
    assert mb.batch_size == 32
    assert train_hinge_net(X, Y, seeds=[0], steps=1, batch_size=400).batch_size is None


def test_network_export_and_prediction_agree():
    snap = train_hinge_net(X, Y, hidden=5, seeds=[0, 1], steps=50)
    mlp = snap.network(1)
    assert isinstance(mlp, MLP) and mlp.sizes == [1, 5, 1]
    np.testing.assert_allclose(mlp(X), snap.predict(X, 1), atol=1e-12)
    np.testing.assert_allclose(snap.predict(X)[1], snap.predict(X, 1), atol=1e-12)
    assert snap.rmse[1] == pytest.approx(np.sqrt(np.mean((mlp(X) - Y) ** 2)))


def test_unsorted_data_is_the_same_problem():
    perm = np.random.default_rng(0).permutation(X.size)
    a = train_hinge_net(X[perm], Y[perm], hidden=6, seeds=[2], steps=200, backend="numpy")
    b = train_hinge_net(X, Y, hidden=6, seeds=[2], steps=200, backend="numpy")
    np.testing.assert_allclose(a.w, b.w, rtol=1e-12)


def test_even_hinges_reproduce_the_notebooks_table():
    for n, rmse in ((3, 0.5228), (6, 0.1022), (12, 0.0254), (24, 0.0065)):
        assert fit_even_hinges(X, Y, n, -3, 3).rmse == pytest.approx(rmse, abs=6e-5)
    fit = fit_even_hinges(X, Y, 12, -3, 3)
    assert np.sqrt(np.mean((fit.predict(X) - Y) ** 2)) == pytest.approx(fit.rmse)


def test_refit_output_layer_never_worse_than_training():
    snap = train_hinge_net(X, Y, hidden=12, seeds=[0, 3], steps=2000)
    for r in range(2):
        a, c, rmse = refit_output_layer(X, Y, snap.w[r], snap.b[r])
        assert rmse <= snap.rmse[r] + 1e-12
        f = relu(np.outer(X, snap.w[r]) + snap.b[r]) @ a + c
        assert rmse == pytest.approx(np.sqrt(np.mean((f - Y) ** 2)))


def test_rmse_histogram_counts_finite_values():
    counts, edges = rmse_histogram([0.03, 0.04, 0.05, np.inf, np.nan, 0.16], bins=4)
    assert counts.sum() == 4 and len(edges) == 5


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"hidden": 0}, "hidden"), ({"seeds": []}, "restarts"), ({"seeds": range(33)}, "restarts"),
    ({"optimizer": "sgdx"}, "optimizer"), ({"lr": 0}, "learning rate"),
    ({"lr": float("nan")}, "learning rate"), ({"batch_size": 0}, "batch"),
    ({"beta1": 1.0}, "beta1"),
])
def test_bad_settings_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        HingeNetTrainer(X, Y, **kwargs)
    with pytest.raises(ValueError, match="differ"):
        HingeNetTrainer(X, Y[:-1])
    with pytest.raises(ValueError, match="finite"):
        HingeNetTrainer(np.r_[X, np.nan], np.r_[Y, 0])


def test_kink_history_is_thinned_evenly_and_old_snapshots_stay():
    from relulab.model.fitting import training

    trainer = HingeNetTrainer(X, Y, hidden=3, seeds=[0, 1])
    first = None
    for i in range(2 * training.MAX_KINK_RECORDS + 10):
        snap = trainer.advance(1)
        if i == 10:
            first = snap
            kept = first.kink_history.copy()
    last = trainer.snapshot()
    assert len(last.kink_steps) <= training.MAX_KINK_RECORDS
    assert last.kink_steps[0] == 0 and np.all(np.diff(last.kink_steps) > 0)
    assert np.max(np.diff(last.kink_steps)) <= 4
    np.testing.assert_array_equal(first.kink_history, kept)


def test_prefix_sum_evaluation_matches_the_dense_sum():
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(-2, 2, 300))
    w = rng.normal(size=(4, 9))
    w[0, :3] = 0.0                       # flat neurons: on everywhere (b > 0) or nowhere
    b = rng.normal(size=(4, 9))
    a = rng.normal(size=(4, 9))
    c = rng.normal(size=4)
    dense = np.einsum("rnh,rh->rn", relu(x[None, :, None] * w[:, None, :] + b[:, None, :]), a) + c[:, None]
    np.testing.assert_allclose(kernels.evaluate_sorted(x, w, b, a, c), dense, atol=1e-12)


# -- the Training panel's state ----------------------------------------------------------


def test_training_state_round_trips_and_keeps_old_files_readable():
    s = TrainingState(hidden=9, restarts=3, step=40, steps=100, selected=2, final_view="histogram")
    assert TrainingState.from_dict(s.to_dict()) == s
    assert TrainingState.from_dict({}) == TrainingState()          # every field has a default
    assert TrainingState.from_dict({"hidden": 5}).hidden == 5


@pytest.mark.parametrize(("bad", "field"), [
    ({"hidden": 0}, "training.hidden"), ({"hidden": MAX_WIDTH + 1}, "training.hidden"),
    ({"hidden": 2.5}, "training.hidden"), ({"hidden": True}, "training.hidden"),
    ({"points": MAX_POINTS + 1}, "training.points"), ({"steps": MAX_STEPS + 1}, "training.steps"),
    ({"restarts": 33}, "training.restarts"), ({"lr": float("nan")}, "training.lr"),
    ({"lr": 10 ** 400}, "training.lr"), ({"lr": "fast"}, "training.lr"),
    ({"a": float("inf")}, "training.a"), ({"a": 2.0, "b": 1.0}, "training.b"),
    ({"target": "sin("}, "training.target"), ({"target": "1/x", "a": -1.0, "b": 1.0}, "training.target"),
    ({"target": 7}, "training.target"), ({"optimizer": "sgd"}, "training.optimizer"),
    ({"speed": "warp"}, "training.speed"), ({"final_view": "pie"}, "training.final_view"),
    ({"selected": 6}, "training.selected"), ({"step": 20_001}, "training.step"),
    ({"batch_size": -1}, "training.batch_size"), ({"nonsense": 1}, "nonsense"),
])
def test_training_state_refuses_what_the_panel_cannot_show(bad, field):
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        TrainingState.from_dict({**TrainingState().to_dict(), **bad})


def test_training_state_refuses_what_is_not_an_object():
    for bad in ([], "training", None, 3):
        with pytest.raises(ValueError, match="training"):
            TrainingState.from_dict(bad)


def test_every_accepted_state_makes_a_trainer():
    """The largest state the panel allows trains (from_dict accepts only what works)."""
    big = TrainingState.from_dict({"points": MAX_POINTS, "hidden": MAX_WIDTH, "restarts": 32,
                                   "batch_size": MAX_POINTS, "target": "x^2", "a": -100, "b": 100})
    trainer = big.trainer()
    assert trainer.run(2) == 2 and trainer.snapshot().restarts == 32
    assert set(SPEEDS) >= {TrainingState().speed}


def test_replay_gives_the_same_run_and_stops_when_asked():
    s = TrainingState(restarts=2, hidden=6, step=300, steps=1000)
    stepwise = s.trainer()
    for _ in range(300):
        stepwise.run(1)
    np.testing.assert_array_equal(replay(s, chunk=64).snapshot().w, stepwise.snapshot().w)
    calls = []
    with pytest.raises(Cancelled):
        replay(s, should_stop=lambda: calls.append(1) or len(calls) > 2, chunk=10)
    assert len(calls) == 3
