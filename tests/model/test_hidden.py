"""The hidden space: XOR becomes linearly separable in a 2-2-1 network's hidden layer."""

import numpy as np
import pytest

from relulab.model.data.datasets import make_dataset
from relulab.model.fitting.classify import TrainConfig, Trainer, predict
from relulab.model.networks.hidden import hidden_space, separating_map
from relulab.model.networks.mlp import MLP


def test_xor_becomes_separable_in_the_hidden_space():
    """The open questions: the four XOR points, a 2-2-1 ReLU net, the Playground's default training
    (Adam at 0.03): not separable by a line in the input, nor at first in the hidden
    layer; after training a line separates them there, and it is the output layer's."""
    X, y = make_dataset("xor_corners")
    assert separating_map(X, y) is None  # XOR: no line in the input plane
    t = Trainer(MLP.random([2, 2, 1], seed=0), X, y, config=TrainConfig("adam", 0.03))
    before = hidden_space(t.net, X, 1, 0, 1)
    assert before.linear and separating_map(before.points, y) is None
    snap = t.advance(500)
    after = hidden_space(snap.net, X, 1, 0, 1)
    line = separating_map(after.points, y)
    assert line is not None and snap.train_accuracy == 1.0
    w, b = line
    assert np.all((after.points @ w + b > 0) == (y == 1))
    # the output layer's own line separates them too: its logit, read in these coordinates
    z = after.points @ after.A[0] + after.c[0]
    assert np.all((z > 0) == (y == 1)) and np.allclose(z, snap.net(X)[:, 0])


def test_hidden_space_says_when_the_boundary_is_not_a_line():
    X, _ = make_dataset("circles", 0)
    deep = MLP.random([2, 4, 2, 1], seed=0)
    first = hidden_space(deep, X, 1, 0, 3)
    assert not first.linear and "Later layers" in first.note and first.A is None
    assert first.points.shape == (len(X), 2)
    assert np.allclose(first.points, np.maximum(deep.forward(X)[0][:, [0, 3]], 0))
    last = hidden_space(deep, X, 2, 1, 0)
    assert last.linear and last.A.shape == (1, 2)
    wide = hidden_space(MLP.random([2, 5, 3], seed=1), X, 1, 0, 1)
    assert not wide.linear and "other 3 neuron(s)" in wide.note
    for args, message in (((3, 0, 1), "no hidden layer 3"), ((1, 0, 4), "no neuron 5"),
                          ((1, 2, 2), "two different")):
        with pytest.raises(ValueError, match=message):
            hidden_space(deep, X, *args)


def test_a_three_class_bottleneck_is_an_affine_argmax():
    X, y = make_dataset("gaussians", 0, classes=3)
    net = Trainer(MLP.random([2, 8, 2, 3], seed=0), X, y, config=TrainConfig("adam", 0.03)).advance(400).net
    h = hidden_space(net, X, 2, 0, 1)
    assert h.linear and h.A.shape == (3, 2)
    assert np.array_equal(np.argmax(h.points @ h.A.T + h.c, axis=1), predict(net, X))


def test_separating_map_for_several_classes_and_degenerate_points():
    X, y = make_dataset("gaussians", 0, classes=4, noise=0.0)
    W, c = separating_map(X, y, classes=4) or (None, None)
    assert W is not None and np.array_equal(np.argmax(X @ W.T + c, axis=1), y)
    X, y = make_dataset("spirals", 0, classes=3)
    assert separating_map(X, y, classes=3) is None
    same = np.array([[0.5, 0.5], [0.5, 0.5]])
    assert separating_map(same, [0, 1]) is None  # one place, two classes
    assert separating_map(same, [1, 1]) is not None
    # units: tiny, huge and shifted coordinates separate alike
    X, y = make_dataset("gaussians", 1, noise=0.0)
    for scale, shift in ((1e-12, 0.0), (1e12, 0.0), (1.0, 1e10)):
        assert separating_map(X * scale + shift, y) is not None
