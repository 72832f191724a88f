"""L1 and L2 weight penalties in the classifier's trainer (``TrainConfig.regularization``)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from relulab.model.data.datasets import make_dataset
from relulab.model.fitting.classify import TrainConfig, Trainer, weight_penalty
from relulab.model.networks.mlp import MLP

RATES = (0.0, 0.001, 0.003, 0.01, 0.03)


def _trained(seed: int, regularization, rate: float, steps: int = 600):
    X, y = make_dataset("circles", seed)
    net = MLP.random([2, 8, 1], seed=seed)
    config = TrainConfig("gd", 0.5, regularization=regularization, regularization_rate=rate)
    return Trainer(net, X, y, config=config).advance(steps)


def _weight_norm(net: MLP) -> float:
    return float(np.sqrt(sum((W * W).sum() for W, _ in net.layers)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_l2_shrinks_the_weight_norm_monotonically_in_its_rate(seed):
    norms = [_weight_norm(_trained(seed, "l2", r).net) for r in RATES]
    assert all(a > b for a, b in pairwise(norms)), norms
    assert norms[-1] < 0.5 * norms[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_l1_makes_weights_exactly_zero_more_of_them_as_the_rate_grows(seed):
    # the proximal step (soft thresholding) sets weights to exactly 0.0, not near it
    zeros = [sum(int((W == 0).sum()) for W, _ in _trained(seed, "l1", r).net.layers)
             for r in RATES]
    assert zeros[0] == 0 and zeros[-1] >= 12, zeros  # of the 8·2 + 8 = 24 weights
    assert all(a <= b for a, b in pairwise(zeros)), zeros


def test_biases_are_not_penalised():
    snap = _trained(0, "l1", 1.0, steps=50)  # a rate that clears every weight
    assert all(not W.any() for W, _ in snap.net.layers)
    assert snap.net.layers[-1][1][0] != 0  # the output's bias still fits the classes' share
    assert snap.penalty == 0.0


@pytest.mark.parametrize("regularization", ["l1", "l2"])
def test_train_loss_includes_the_penalty_and_test_loss_does_not(regularization):
    X, y = make_dataset("circles", 0)
    net = MLP.random([2, 8, 1], seed=0)
    cfg = TrainConfig("gd", 0.5, regularization=regularization, regularization_rate=0.01)
    plain = Trainer(net, X[:150], y[:150], X[150:], y[150:]).snapshot()
    reg = Trainer(net, X[:150], y[:150], X[150:], y[150:], config=cfg).snapshot()
    Ws = [W for W, _ in net.layers]
    expected = (0.01 * sum(np.abs(W).sum() for W in Ws) if regularization == "l1"
                else 0.01 * 0.5 * sum((W * W).sum() for W in Ws))
    assert reg.penalty == pytest.approx(expected, rel=1e-12) and reg.penalty > 0
    assert weight_penalty(net, regularization, 0.01) == reg.penalty
    assert reg.train_loss == pytest.approx(plain.train_loss + reg.penalty, rel=1e-12)
    assert reg.train_data_loss == pytest.approx(plain.train_loss, rel=1e-12)
    assert reg.test_loss == plain.test_loss


def test_l2_step_is_gradient_descent_on_the_penalised_loss():
    X, y = make_dataset("xor", 1)
    net = MLP.random([2, 5, 1], seed=3)
    cfg = TrainConfig("gd", 0.1, regularization="l2", regularization_rate=0.05)
    t = Trainer(net, X, y, config=cfg)
    grads = t.gradients(X, y)
    before = [P.copy() for P in t.params]
    t.run(1)
    for i, (P0, G, P1) in enumerate(zip(before, grads, t.params)):
        extra = 0.05 * P0 if i % 2 == 0 else 0.0  # weights only
        np.testing.assert_allclose(P1, P0 - 0.1 * (G + extra), rtol=0, atol=1e-14)


def test_no_regularization_is_the_old_trainer_exactly():
    X, y = make_dataset("circles", 2)
    net = MLP.random([2, 6, 1], seed=2)
    a = Trainer(net, X, y, config=TrainConfig("adam", 0.05)).advance(100)
    b = Trainer(net, X, y, config=TrainConfig("adam", 0.05, regularization="l2",
                                              regularization_rate=0.0)).advance(100)
    assert a.train_loss == b.train_loss and a.penalty == b.penalty == 0.0
    assert all(np.array_equal(Wa, Wb) for (Wa, _), (Wb, _) in zip(a.net.layers, b.net.layers))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"regularization": "l3"}, "regularization must be None, 'l1' or 'l2'"),
    ({"regularization": "l2", "regularization_rate": -1}, "regularization rate must be"),
    ({"regularization": "l2", "regularization_rate": float("nan")}, "regularization rate must be"),
])
def test_bad_regularization_is_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**kwargs)
