"""Training a 2-D classifier: the circles lesson reproduced, optimizers, losses, divergence."""

import numpy as np
import pytest

from relulab.model.data.datasets import make_dataset, train_test_split
from relulab.model.fitting.classify import (
    TrainConfig,
    Trainer,
    accuracy,
    circles_lesson_run,
    circles_lesson_setup,
    loss_from_logits,
    predict_proba,
    train,
)
from relulab.model.networks.mlp import MLP


@pytest.mark.slow
def test_circles_lesson_accuracies():
    """2000 full-batch GD steps at rate 0.5: the lesson's stated accuracies, seeds 0-9."""
    acc = {h: [circles_lesson_run(s, h).train_accuracy for s in range(10)] for h in (6, 3, 2)}
    assert acc[6] == [1.0] * 10
    assert all(0.81 <= round(a, 2) <= 1.0 for a in acc[3])
    assert round(min(acc[3]), 2) == 0.81 and max(acc[3]) == 1.0
    assert all(0.82 <= round(a, 2) <= 0.89 for a in acc[2])


def lesson_loop(seed, H, steps):
    """The lesson's training loop, verbatim (W as (in, out))."""
    rng = np.random.default_rng(seed)
    n = 90
    a0, r0 = rng.uniform(0, 2 * np.pi, n), np.sqrt(rng.uniform(0, 1, n)) * 1.15
    a1, r1 = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.95, 2.8, n)
    X = np.vstack([np.c_[r0 * np.cos(a0), r0 * np.sin(a0)], np.c_[r1 * np.cos(a1), r1 * np.sin(a1)]])
    X = (X + 0.12 * rng.normal(size=X.shape)) / 3
    y = np.r_[np.zeros(n), np.ones(n)]
    W1 = rng.normal(0, np.sqrt(2 / 2), (2, H))
    b1 = rng.uniform(-0.5, 0.5, H)
    W2 = rng.normal(0, np.sqrt(1 / H), (H, 1))
    b2 = np.zeros(1)

    def sig(z):
        return 1 / (1 + np.exp(-z))

    for _ in range(steps):
        Z1 = X @ W1 + b1
        Hd = np.maximum(0, Z1)
        p = sig(Hd @ W2 + b2).ravel()
        dZ2 = (p - y)[:, None] / len(y)
        dW2, db2 = Hd.T @ dZ2, dZ2.sum(0)
        dZ1 = (dZ2 @ W2.T) * (Z1 > 0)
        dW1, db1 = X.T @ dZ1, dZ1.sum(0)
        for P, G in ((W1, dW1), (b1, db1), (W2, dW2), (b2, db2)):
            P -= 0.5 * G
    return W1, b1, W2, b2


def test_trainer_follows_the_lessons_loop_step_by_step():
    X, y, net = circles_lesson_setup(4, 6)
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
        z = net(X)
        return loss_from_logits(z[:, 0] if net.n_out == 1 else z, y, trainer.config.loss)

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
    without a reset: the same as relulab.model.fitting.training.HingeNetTrainer."""
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
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        Trainer(MLP.random([2, 3, 2]), np.zeros((1, 2)), np.array([2.0]))
    with pytest.raises(ValueError, match="whole numbers from 0 to 2"):
        Trainer(MLP.random([2, 3, 3]), np.zeros((2, 2)), np.array([1.0, 0.5]))
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        Trainer(MLP.random([2, 3, 1]), np.zeros((1, 2)), np.array([2.0]))


def test_grid_maps_equal_the_network():
    from relulab.model.fitting.classify import decision_map, grid_axes, grid_layers

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
    from relulab.model.fitting.classify import boundary_segments, grid_axes

    xs, ys = grid_axes((-1, 1, -1, 1), 120)
    gx, gy = np.meshgrid(xs, ys)
    line = boundary_segments(0.3 * gx - gy + 0.1, xs, ys)  # a straight line: exact
    assert len(line) > 100 and np.abs(0.3 * line[:, 0] - line[:, 1] + 0.1).max() < 1e-12
    circle = boundary_segments(np.hypot(gx, gy) - 0.7, xs, ys)
    assert np.abs(np.hypot(*circle.T) - 0.7).max() < 1e-3
    saddle = boundary_segments(gx * gy, xs, ys)
    assert len(saddle) and np.abs(saddle.prod(axis=1)).max() < 1e-12
    assert boundary_segments(gx * 0 + 1, xs, ys).shape == (0, 2)


# -- several classes, an activation per layer --------------------------------------------

@pytest.mark.parametrize("loss", ["cross_entropy", "squared"])
@pytest.mark.parametrize(("outputs", "activation"), [
    (3, "relu"), (4, ["tanh", "relu"]), (2, ["leaky_relu", "gelu"]), (1, ["identity", "sigmoid"]),
])
def test_softmax_and_per_layer_backprop_match_finite_differences(loss, outputs, activation):
    X, _ = make_dataset("gaussians", 1, n_per_class=6)
    y = np.arange(len(X)) % (2 if outputs == 1 else outputs)
    net = MLP.random([2, 4, 3, outputs], seed=2, activation=activation)
    t = Trainer(net, X, y, config=TrainConfig(loss=loss))
    for g, n in zip(t.gradients(X, y.astype(float)), numeric_gradient(t, X, y)):
        assert np.allclose(g, n, atol=1e-6)


def test_softmax_loss_and_prediction():
    from relulab.model.fitting.classify import predict, predicted_classes, softmax

    z = np.array([[0.0, 0.0, 0.0], [1000.0, 0.0, -1000.0], [1.0, 3.0, 3.0]])
    y = np.array([2.0, 0.0, 1.0])
    ce = loss_from_logits(z, y)
    expected = np.mean([np.log(3), 0.0, np.log(np.exp(1) + 2 * np.exp(3)) - 3])
    assert ce == pytest.approx(expected)
    assert np.isfinite(loss_from_logits(-z, y))  # no overflow either way
    assert predicted_classes(z).tolist() == [0, 0, 1]  # ties go to the lower class
    assert np.allclose(softmax(z).sum(axis=1), 1.0)
    net = MLP([(np.eye(3, 2), np.zeros(3))])
    assert predict(net, [[2.0, 1.0], [-1.0, 3.0]]).tolist() == [0, 1]
    assert predict_proba(net, [[0.0, 0.0]]).shape == (1, 3)


def test_three_class_spiral_reaches_ninety_percent_in_the_playgrounds_default_training():
    """The open questions' multi-class case: 2-16-16-3 on three spiral arms, the Playground's own
    default training (Adam at 0.03, full batch, cross-entropy), 600 steps."""
    from dataclasses import replace

    from relulab.model.lessons.playground import PlaygroundState

    s = PlaygroundState()
    s = s.with_data(replace(s.dataset.switched_to("spirals"), classes=3)).with_hidden((16, 16))
    assert s.network.sizes == [2, 16, 16, 3] and s.training.optimizer == "adam"
    (X, y), (Xt, yt) = s.points.train(), s.points.held_out()
    snap = Trainer(s.network, X, y, Xt, yt, s.training.config()).advance(600)
    assert snap.train_accuracy >= 0.9 and snap.test_accuracy >= 0.85
    assert set(np.unique(y)) == {0.0, 1.0, 2.0}


def test_random_labels_are_fitted_and_teach_nothing():
    """The open questions, "networks can fit random labels": with the training labels shuffled a
    2-32-32-32-1 net (within the panel's limits) fits them, and the test points, which
    keep their labels, stay near chance."""
    from dataclasses import replace

    from relulab.model.lessons.playground import PlaygroundState

    s = PlaygroundState()
    s = s.with_data(replace(s.dataset, n_per_class=100)).with_hidden((32, 32, 32))
    s = s.with_random_labels(True).with_training(learning_rate=0.01)
    X, y = s.training_points()
    true = s.points.train()[1]
    assert sorted(y) == sorted(true) and np.mean(y == true) < 0.65  # shuffled, balanced as before
    Xt, yt = s.points.held_out()
    t = Trainer(s.network, X, y, Xt, yt, s.training.config())
    snap = t.advance(500)
    while snap.train_accuracy < 0.95 and snap.step < 4000:
        snap = t.advance(500)
    assert snap.train_accuracy >= 0.95
    assert abs(snap.test_accuracy - 0.5) <= 0.15
    honest = Trainer(s.network, *s.points.train(), Xt, yt, s.training.config()).advance(snap.step)
    assert honest.test_accuracy >= 0.9  # the same net on the true labels generalises


def test_class_boundaries_lead_over_the_best_other_class_ties_included():
    """The lead of class k is its score less the best other score: the second best
    where k wins (the best when classes tie), the best elsewhere."""
    from relulab.model.fitting.classify import boundary_segments, class_boundary_segments

    rng = np.random.default_rng(4)
    xs = ys = np.linspace(-1.0, 1.0, 9)
    S = rng.integers(-2, 3, size=(4, 9, 9)).astype(float)  # many ties
    S[2] = S[1]                                            # two classes tied everywhere

    def reference(S):
        winner = np.argmax(S, axis=0)
        second, top = np.partition(S, -2, axis=0)[-2:]
        parts = []
        for k in range(S.shape[0] - 1):
            wins = winner == k
            w = (wins[:-1, :-1], wins[:-1, 1:], wins[1:, 1:], wins[1:, :-1])
            some = w[0] | w[1] | w[2] | w[3]
            if some.any():
                cells = some & ~(w[0] & w[1] & w[2] & w[3])
                parts.append(boundary_segments(S[k] - np.where(wins, second, top), xs, ys,
                                               cells=cells))
        return np.concatenate(parts) if parts else np.zeros((0, 2))

    for scores in (S, rng.normal(size=(6, 9, 9)), S[:2]):
        assert np.array_equal(class_boundary_segments(scores, xs, ys), reference(scores))
