"""Training a 2-D classifier: seed 002 reproduced, optimizers, losses, divergence."""

import numpy as np
import pytest

from relulab.model.classify import (
    TrainConfig, Trainer, accuracy, loss_from_logits, predict_proba, seed002_run, seed002_setup,
    train,
)
from relulab.model.datasets import make_dataset, train_test_split
from relulab.model.mlp import MLP


@pytest.mark.slow
def test_seed002_accuracies():
    """2000 full-batch GD steps at rate 0.5: the lesson's stated accuracies, seeds 0-9."""
    acc = {h: [seed002_run(s, h).train_accuracy for s in range(10)] for h in (6, 3, 2)}
    assert acc[6] == [1.0] * 10
    assert all(0.81 <= round(a, 2) <= 1.0 for a in acc[3])
    assert round(min(acc[3]), 2) == 0.81 and max(acc[3]) == 1.0
    assert all(0.82 <= round(a, 2) <= 0.89 for a in acc[2])


def lesson_loop(seed, H, steps):
    """Seed 002's training loop, verbatim (W as (in, out))."""
    rng = np.random.default_rng(seed)
    n = 90
    a0, r0 = rng.uniform(0, 2 * np.pi, n), np.sqrt(rng.uniform(0, 1, n)) * 1.15
    a1, r1 = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.95, 2.8, n)
    X = np.vstack([np.c_[r0 * np.cos(a0), r0 * np.sin(a0)], np.c_[r1 * np.cos(a1), r1 * np.sin(a1)]])
    X = (X + 0.12 * rng.normal(size=X.shape)) / 3
    y = np.r_[np.zeros(n), np.ones(n)]
    W1 = rng.normal(0, np.sqrt(2 / 2), (2, H)); b1 = rng.uniform(-0.5, 0.5, H)
    W2 = rng.normal(0, np.sqrt(1 / H), (H, 1)); b2 = np.zeros(1)
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    for _ in range(steps):
        Z1 = X @ W1 + b1; Hd = np.maximum(0, Z1); p = sig(Hd @ W2 + b2).ravel()  # noqa: E702
        dZ2 = (p - y)[:, None] / len(y)
        dW2, db2 = Hd.T @ dZ2, dZ2.sum(0)
        dZ1 = (dZ2 @ W2.T) * (Z1 > 0)
        dW1, db1 = X.T @ dZ1, dZ1.sum(0)
        for P, G in ((W1, dW1), (b1, db1), (W2, dW2), (b2, db2)):
            P -= 0.5 * G
    return W1, b1, W2, b2


def test_trainer_follows_the_lessons_loop_step_by_step():
    X, y, net = seed002_setup(4, 6)
    W1, b1, W2, b2 = lesson_loop(4, 6, 50)
    assert net.layers[0][0].shape == (6, 2)  # (out, in), the lesson's transposed
    snap = Trainer(net, X, y, config=TrainConfig("gd", 0.5)).advance(50)
    (V1, c1), (V2, c2) = snap.net.layers
    assert np.allclose(V1, W1.T, atol=1e-12) and np.allclose(c1, b1, atol=1e-12)
    assert np.allclose(V2, W2.T, atol=1e-12) and np.allclose(c2, b2, atol=1e-12)


def numeric_gradient(trainer, X, y, eps=1e-6):
    def loss():
        p = trainer.params
        net = MLP([(p[i], p[i + 1]) for i in range(0, len(p), 2)], trainer.activation)
        return loss_from_logits(net(X)[:, 0], y, trainer.config.loss)

    grads = []
    for P in trainer.params:
        G = np.zeros_like(P)
        for idx in np.ndindex(P.shape):
            old = P[idx]
            P[idx] = old + eps
            up = loss()
            P[idx] = old - eps
            down = loss()
            P[idx] = old
            G[idx] = (up - down) / (2 * eps)
        grads.append(G)
    return grads


@pytest.mark.parametrize("loss", ["cross_entropy", "squared"])
@pytest.mark.parametrize("activation", ["relu", "tanh", "gelu", "sigmoid", "leaky_relu", "identity"])
def test_backprop_matches_finite_differences(loss, activation):
    X, y = make_dataset("xor", 1, n_per_class=10)
    net = MLP.random([2, 4, 3, 1], seed=2, activation=activation)
    t = Trainer(net, X, y, config=TrainConfig(loss=loss))
    for g, n in zip(t.gradients(X, y), numeric_gradient(t, X, y)):
        assert np.allclose(g, n, atol=1e-6)


@pytest.mark.parametrize("config", [
    TrainConfig("adam", 0.03), TrainConfig("gd", 0.5), TrainConfig("adam", 0.03, batch_size=16),
    TrainConfig("gd", 2.0, "squared"),
])
def test_optimizers_learn_xor_with_test_accuracy(config):
    X, y = make_dataset("xor", 0, noise=0.0)
    Xtr, ytr, Xte, yte = train_test_split(X, y, 0.3, seed=0)
    net = MLP.random([2, 8, 8, 1], seed=0)
    t = Trainer(net, Xtr, ytr, Xte, yte, config)
    first = t.snapshot()
    snap = t.advance(1500)
    assert snap.step == 1500 and not snap.diverged
    assert snap.train_loss < first.train_loss
    assert snap.train_accuracy >= 0.95 and snap.test_accuracy >= 0.9
    assert snap.train_accuracy == accuracy(snap.net, Xtr, ytr)


def test_xor_is_not_linearly_separable():
    X, y = make_dataset("xor", 0, noise=0.0)
    t = Trainer(MLP.random([2, 1], seed=0), X, y, config=TrainConfig("adam", 0.05))
    assert t.advance(2000).train_accuracy < 0.8


def test_minibatches_cover_the_data_each_epoch():
    X, y = make_dataset("circles", 0)
    t = Trainer(MLP.random([2, 3, 1], seed=0), X, y, config=TrainConfig(batch_size=50, seed=1))
    seen = []
    for _ in range(3):
        Xb, _ = t._batch()
        seen.append(Xb)
    assert len(np.unique(np.vstack(seen), axis=0)) == 150


def test_divergence_stops_and_says_so():
    X, y = make_dataset("gaussians", 0)
    X = X * 1e3
    net = MLP.random([2, 8, 8, 1], seed=0, activation="identity")
    config = TrainConfig("gd", 1e4, "cross_entropy")
    snaps = list(train(net, X, y, 500, config, every=10))
    assert snaps[-1].diverged and "diverged" in snaps[-1].message
    assert len(snaps) < 50 and snaps[-1].net.is_finite()
    t = Trainer(net, X, y, config=config)
    last = t.advance(500)
    assert last.diverged and "lower the learning rate" in last.message
    assert last.step < 500 and last.net.is_finite() and np.isfinite(last.train_loss)
    assert t.run(10) == 0 and t.advance(10).step == last.step  # no more steps after divergence


def test_the_trainer_has_the_shape_of_the_hinge_net_trainer():
    """run(n) makes steps and says how many, advance(n) returns the snapshot after them,
    snapshot() the current one (made once per step), step counts, lr changes the rate
    without a reset: the same as relulab.model.training.HingeNetTrainer."""
    X, y = make_dataset("circles", 0)
    t = Trainer(MLP.random([2, 4, 1], seed=0), X, y, config=TrainConfig("adam", 0.05))
    assert t.step == 0 and t.run(7) == 7 and t.step == 7
    snap = t.snapshot()
    assert snap is t.snapshot() and snap.step == 7 and snap.net is t.net
    t.lr = 0.01
    assert t.config.learning_rate == 0.01 and t.config.optimizer == "adam" and t.step == 7
    assert t.advance(3).step == 10 and t.snapshot() is not snap
    with pytest.raises(ValueError, match="learning rate"):
        t.lr = -1.0
    empty = Trainer(MLP.random([2, 3, 1], seed=0), np.zeros((0, 2)), np.zeros(0))
    assert empty.run(5) == 0 and np.isnan(empty.snapshot().train_loss)


def test_prediction_and_losses():
    net = MLP([([[1.0, 0.0]], [0.0])], "relu")
    assert predict_proba(net, [[0, 0]])[0] == 0.5
    assert loss_from_logits([0.0], [1.0]) == pytest.approx(np.log(2))
    assert loss_from_logits([1000.0], [0.0]) == pytest.approx(1000.0)
    assert loss_from_logits([0.0], [1.0], "squared") == pytest.approx(0.125)


def test_bad_configs_are_named():
    with pytest.raises(ValueError, match="optimizer"):
        TrainConfig("sgd2")
    with pytest.raises(ValueError, match="learning rate"):
        TrainConfig(learning_rate=-1)
    with pytest.raises(ValueError, match="one output"):
        Trainer(MLP.random([2, 3, 2]), np.zeros((1, 2)), np.zeros(1))
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        Trainer(MLP.random([2, 3, 1]), np.zeros((1, 2)), np.array([2.0]))


def test_grid_maps_equal_the_network():
    from relulab.model.classify import decision_map, grid_axes, grid_layers

    net = MLP.random([2, 8, 8, 8, 1], seed=5)
    xs, ys = grid_axes((-1, 2, -3, 1), 50)
    assert xs[0] == pytest.approx(-1 + 1.5 / 50) and ys[-1] == pytest.approx(1 - 2 / 50)
    gx, gy = np.meshgrid(xs, ys)
    expected = net(np.c_[gx.ravel(), gy.ravel()])[:, 0].reshape(50, 50)
    assert np.allclose(decision_map(net, (-1, 2, -3, 1), 50), expected, atol=1e-12)
    zs = grid_layers(net, (-1, 2, -3, 1), 50)
    assert [z.shape for z in zs] == [(8, 50, 50)] * 3 + [(1, 50, 50)]
    with pytest.raises(ValueError):
        grid_axes((1, 0, 0, 1), 10)
    for activation in ("relu", "tanh", "identity", "gelu"):  # the fast picture grid
        other = net.with_activation(activation)
        z64 = decision_map(other, (-1, 2, -3, 1), 50)
        z32 = decision_map(other, (-1, 2, -3, 1), 50, dtype=np.float32)
        assert z32.dtype == np.float32
        assert np.abs(z32 - z64).max() <= 1e-5 * max(1.0, np.abs(z64).max())


def test_boundary_segments_lie_on_the_contour():
    from relulab.model.classify import boundary_segments, grid_axes

    xs, ys = grid_axes((-1, 1, -1, 1), 120)
    gx, gy = np.meshgrid(xs, ys)
    line = boundary_segments(0.3 * gx - gy + 0.1, xs, ys)  # a straight line: exact
    assert len(line) > 100 and np.abs(0.3 * line[:, 0] - line[:, 1] + 0.1).max() < 1e-12
    circle = boundary_segments(np.hypot(gx, gy) - 0.7, xs, ys)
    assert np.abs(np.hypot(*circle.T) - 0.7).max() < 1e-3
    saddle = boundary_segments(gx * gy, xs, ys)
    assert len(saddle) and np.abs(saddle.prod(axis=1)).max() < 1e-12
    assert boundary_segments(gx * 0 + 1, xs, ys).shape == (0, 2)
