"""Feature inputs (x₁, x₂, x₁², x₂², x₁x₂, sin x₁, sin x₂) for the classifier's trainer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from relulab.model.data.datasets import make_dataset, train_test_split
from relulab.model.fitting.classify import (
    TrainConfig,
    Trainer,
    decision_map,
    grid_axes,
    logits,
)
from relulab.model.fitting.features import FEATURE_NAMES, FeatureMap
from relulab.model.networks.mlp import MLP

SEEDS = range(10)


def _no_hidden_layer_run(dataset: str, features: list[str], seed: int, steps: int):
    """A features → 1 network (one layer, no hidden neurons), plain GD at rate 3 on the
    cross-entropy, 30 % of the points held out."""
    X, y = make_dataset(dataset, seed)
    Xtr, ytr, Xte, yte = train_test_split(X, y, 0.3, seed)
    net = MLP.random([len(features), 1], seed=seed)
    trainer = Trainer(net, Xtr, ytr, Xte, yte, TrainConfig("gd", 3.0), features=features)
    return trainer.advance(steps)


@pytest.mark.parametrize("seed", SEEDS)
def test_circles_are_linear_in_the_squares(seed):
    snap = _no_hidden_layer_run("circles", ["x1^2", "x2^2"], seed, 2000)
    assert snap.test_accuracy >= 0.97, snap
    assert snap.net.hidden_sizes == [] and snap.features.names == ("x1^2", "x2^2")


def test_circles_are_not_linear_in_the_point_itself():
    # the same network on (x₁, x₂) draws a line: the disc and the ring stay mixed
    snap = _no_hidden_layer_run("circles", ["x1", "x2"], 0, 2000)
    assert snap.test_accuracy < 0.75


@pytest.mark.parametrize("seed", SEEDS)
def test_xor_is_linear_in_the_product(seed):
    snap = _no_hidden_layer_run("xor", ["x1*x2"], seed, 1000)
    assert snap.test_accuracy >= 0.97, snap
    (W, _b), = snap.net.layers
    assert W[0, 0] < 0  # class 1 where x₁x₂ < 0


def test_feature_map_applies_each_feature_in_the_order_given():
    X = np.array([[0.5, -2.0], [1.0, 3.0]])
    fm = FeatureMap(("sin(x2)", "x1*x2", "x1^2", "x2", "x2^2", "x1", "sin(x1)"))
    a, b = X.T
    expected = np.c_[np.sin(b), a * b, a * a, b, b * b, a, np.sin(a)]
    np.testing.assert_array_equal(fm.apply(X), expected)
    assert len(fm) == 7 and set(fm.names) == set(FEATURE_NAMES)
    assert fm.labels[:2] == ("sin x₂", "x₁x₂")


def test_only_x1_and_x2_are_linear():
    assert FeatureMap(("x2", "x1")).is_linear and FeatureMap(("x1",)).is_linear
    assert FeatureMap(("x1", "x2")).is_identity and not FeatureMap(("x2", "x1")).is_identity
    for name in set(FEATURE_NAMES) - {"x1", "x2"}:
        assert not FeatureMap(("x1", "x2", name)).is_linear


def test_feature_map_round_trips_through_json():
    fm = FeatureMap.of(["x1", "x1*x2", "sin(x2)"])
    back = FeatureMap.from_dict(json.loads(json.dumps(fm.to_dict())))
    assert back == fm and back.names == ("x1", "x1*x2", "sin(x2)")
    assert FeatureMap.of(fm) is fm


@pytest.mark.parametrize(("names", "message"), [
    ([], "features: no feature; choose some of x1, x2, x1\\^2"),
    (["x1", "x3"], "features: unknown feature 'x3'; choose some of"),
    (["x1", "x1"], "features: a feature twice; choose some of"),
    (["X1^2"], "unknown feature 'X1\\^2'"),
    ([1], "unknown feature 1"),
    ("x1", "features must be a list of names"),
])
def test_bad_features_are_refused_in_one_line(names, message):
    with pytest.raises(ValueError, match=message) as info:
        FeatureMap.of(names)
    assert "\n" not in str(info.value)


def test_trainer_refuses_a_network_with_another_input_count():
    X, y = make_dataset("xor", 0)
    with pytest.raises(ValueError, match=r"first layer takes 2 inputs but 3 features are on "
                                         r"\(x1, x2, x1\*x2\)"):
        Trainer(MLP.random([2, 4, 1], seed=0), X, y, features=["x1", "x2", "x1*x2"])
    with pytest.raises(ValueError, match=r"training points must have shape \(200, 2\)"):
        Trainer(MLP.random([3, 1], seed=0), np.c_[X, X[:, :1]], y, features=["x1", "x2", "x1*x2"])


def test_identity_features_train_exactly_as_without_features():
    X, y = make_dataset("spirals", 0)
    net = MLP.random([2, 8, 1], seed=1)
    a = Trainer(net, X, y, config=TrainConfig("adam", 0.02)).advance(50)
    b = Trainer(net, X, y, config=TrainConfig("adam", 0.02), features=["x1", "x2"]).advance(50)
    assert a.train_loss == b.train_loss
    assert all(np.array_equal(Wa, Wb) for (Wa, _), (Wb, _) in zip(a.net.layers, b.net.layers))


def test_outputs_and_maps_go_through_the_features():
    fm = FeatureMap(("x1^2", "x2^2", "x1*x2", "sin(x1)"))
    net = MLP.random([4, 5, 1], seed=2)
    X, y = make_dataset("gaussians", 0)
    snap = Trainer(net, X, y, features=fm).snapshot()
    z = logits(net, X, fm)
    np.testing.assert_array_equal(z, logits(net, fm.apply(X)))
    xs, ys = grid_axes(resolution=20)
    Z = decision_map(net, resolution=20, features=fm)
    pts = np.c_[np.tile(xs, 20), np.repeat(ys, 20)]
    np.testing.assert_allclose(Z.ravel(), logits(net, pts, fm), rtol=0, atol=1e-12)
    assert snap.train_accuracy == np.mean((z > 0) == y) and snap.features is fm
