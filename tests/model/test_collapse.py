"""The linear collapse: seed 002's numbers and any identity network, equal to 1e-12."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from relulab.model.collapse import (
    collapse, collapse_error, collapsed_network, format_affine, lesson_network,
    neuron_affine_map, neuron_values,
)
from relulab.model.mlp import MLP


def test_lesson_numbers():
    A, c = collapse(lesson_network())
    assert A.tolist() == [[5.0, 3.0]] and c.tolist() == [0.0]
    lin, relu = lesson_network("identity"), lesson_network("relu")
    for x, no_act, with_relu in (([2, 1], 13, 13), ([1, 0], 5, 5), ([0, 1], 3, 4)):
        assert lin([x])[0, 0] == no_act
        assert (A @ x)[0] == no_act
        assert relu([x])[0, 0] == with_relu


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=0, max_size=5), st.integers(1, 3), st.integers(1, 3),
       st.integers(0, 10_000))
def test_any_identity_network_collapses(hidden, n_in, n_out, seed):
    net = MLP.random([n_in] + hidden + [n_out], seed=seed, activation="identity")
    X = np.random.default_rng(seed).uniform(-3, 3, (200, n_in))
    one = collapsed_network(net)
    assert len(one.layers) == 1
    assert np.max(np.abs(net(X) - one(X))) <= 1e-12
    # collapse_error also looks at the corners of [−100, 100]²: rounding there is
    # relative to the size of the outputs, not an absolute 1e-12
    A, c = collapse(net)
    scale = 1.0 + 100.0 * float(np.abs(A).sum(axis=1).max()) + float(np.abs(c).max())
    assert collapse_error(net) <= 1e-14 * scale


def test_relu_does_not_collapse():
    with pytest.raises(ValueError, match="identity"):
        collapse(lesson_network("relu"))


def test_neuron_maps():
    net = MLP.random([2, 3, 4, 1], seed=1, activation="identity")
    X = np.random.default_rng(0).normal(size=(50, 2))
    for layer in (1, 2, 3):
        for i in range(net.sizes[layer]):
            a, c = neuron_affine_map(net, layer, i)
            assert np.allclose(X @ a + c, neuron_values(net, X, layer, i), atol=1e-12)
    relu = net.with_activation("relu")
    assert np.all(neuron_values(relu, X, 1, 0) >= 0)
    with pytest.raises(ValueError, match="no neuron 4"):
        neuron_values(net, X, 1, 4)
    with pytest.raises(ValueError, match="layer must be"):
        neuron_values(net, X, 0, 0)


def test_format_affine():
    assert format_affine([5, 3], 0) == "5·x₁ + 3·x₂ + 0"
    assert format_affine([-1.5, 2], -0.25) == "−1.5·x₁ + 2·x₂ − 0.25"
