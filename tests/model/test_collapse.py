"""The linear collapse: the lesson's numbers and any identity network, equal within the
proven rounding bound."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relulab.model.networks.collapse import (
    collapse,
    collapse_check,
    collapsed_network,
    format_affine,
    lesson_network,
    neuron_affine_map,
    neuron_values,
)
from relulab.model.networks.mlp import MLP


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
    net = MLP.random([n_in, *hidden, n_out], seed=seed, activation="identity")
    X = np.random.default_rng(seed).uniform(-3, 3, (200, n_in))
    one = collapsed_network(net)
    assert len(one.layers) == 1
    # equal up to rounding, by the proven bound of the two evaluations (a fixed
    # tolerance failed on some draws: the rounding scales with the weights)
    corners = np.array([[-100.0] * n_in, [100.0] * n_in])
    _err, equal, words = collapse_check(net, np.vstack([X, corners]))
    assert equal is True, words


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


def test_identity_on_some_layers_collapses_just_those_layers():
    from relulab.model.networks.collapse import collapse_identity_layers, identity_layers

    net = MLP.random([2, 5, 4, 3, 6, 2], seed=4, activation=["relu", "identity", "identity", "tanh"])
    flat = collapse_identity_layers(net)
    assert identity_layers(net) == [2, 3]
    assert flat.sizes == [2, 5, 6, 2] and flat.activations == ("relu", "tanh")
    X = np.random.default_rng(0).normal(size=(50, 2))
    assert np.allclose(flat(X), net(X), rtol=1e-12, atol=1e-12)
    (_W1, _), (W2, _b2), (W3, _b3), (W4, _b4), _ = net.layers
    assert np.allclose(flat.layers[1][0], W4 @ W3 @ W2)
    assert collapse_identity_layers(flat) is flat  # nothing left to merge
    whole = collapse_identity_layers(net.with_activation("identity"))
    assert len(whole.layers) == 1 and np.allclose(whole.layers[0][0],
                                                  collapse(net.with_activation("identity"))[0])
    with pytest.raises(ValueError, match="tanh on layer 4"):
        collapse(net)


def test_a_neuron_after_identity_layers_has_one_map():
    net = MLP.random([2, 3, 4, 2, 1], seed=1, activation=["identity", "identity", "relu"])
    X = np.random.default_rng(2).normal(size=(30, 2))
    a, c = neuron_affine_map(net, 3, 1)  # layer 3's pre-activation: layers 1, 2 identity
    assert np.allclose(X @ a + c, neuron_values(net, X, 3, 1, activated=False))
    with pytest.raises(ValueError, match="every layer before it"):
        neuron_affine_map(net, 4, 0)


@pytest.mark.parametrize("activation", [["relu", "leaky_relu"], ["identity", "relu"], "relu"])
def test_local_affine_map_is_the_network_on_the_region(activation):
    from relulab.model.networks.collapse import local_affine_map

    net = MLP.random([2, 6, 5, 3], seed=7, activation=activation)
    rng = np.random.default_rng(3)
    for x in rng.normal(size=(10, 2)):
        A, c, exact = local_affine_map(net, x)
        assert exact and A.shape == (3, 2)
        # points with the same activation pattern get the same map
        near = x + 1e-7 * rng.normal(size=(20, 2))
        same = np.all(net.activation_patterns(near) == net.activation_patterns(x[None])[0], axis=1)
        assert same.any()
        assert np.allclose(near[same] @ A.T + c, net(near[same]), rtol=1e-10, atol=1e-12)
        a2, c2, _ = local_affine_map(net, x, 2, 4)
        z = net.forward(near[same])[1][:, 4]
        assert np.allclose(near[same] @ a2[0] + c2[0], z, rtol=1e-10, atol=1e-12)


def test_local_map_of_a_smooth_network_is_its_tangent():
    from relulab.model.networks.collapse import local_affine_map

    net = MLP.random([2, 4, 1], seed=0, activation="tanh")
    x = np.array([0.3, -0.2])
    A, c, exact = local_affine_map(net, x)
    assert not exact
    h = 1e-6
    grad = [(net(x + h * e) - net(x - h * e))[0, 0] / (2 * h) for e in np.eye(2)]
    assert np.allclose(A[0], grad, atol=1e-8) and np.isclose(A[0] @ x + c[0], net(x)[0, 0])


# -- the check of a collapse: a proven rounding bound, not a tolerance -----------------

def _exact_outputs(layers, acts, x):
    """The network with these double weights evaluated exactly (Fractions)."""
    from fractions import Fraction

    h = [Fraction(v) for v in x]
    for i, (W, b) in enumerate(layers):
        z = [sum((Fraction(W[r, k]) * h[k] for k in range(len(h))), Fraction(b[r]))
             for r in range(W.shape[0])]
        if i < len(acts):
            a = acts[i]
            h = [v if a == "identity" or v > 0 else (0 * v if a == "relu" else Fraction(0.01) * v)
                 for v in z]
        else:
            h = z
    return h


def test_the_rounding_bound_holds_against_exact_arithmetic():
    from relulab.model.networks.collapse import _rounding_bound

    rng = np.random.default_rng(4)
    for _trial in range(12):
        acts = tuple(rng.choice(["relu", "identity", "leaky_relu"], size=3))
        scales = 10.0 ** rng.integers(-8, 9, size=4)
        net = MLP([(rng.normal(size=(o, i)) * s, rng.normal(size=o) * s)
                   for (i, o), s in zip([(2, 5), (5, 4), (4, 3), (3, 2)], scales)], acts)
        X = rng.normal(size=(6, 2)) * 10.0 ** rng.integers(-6, 7)
        layers = [(W, b, np.zeros_like(W), np.zeros_like(b)) for W, b in net.layers]
        bound = _rounding_bound(layers, net.activations, X)
        got = net(X)
        for p in range(len(X)):
            exact = _exact_outputs(net.layers, net.activations, X[p])
            for o, v in enumerate(exact):
                assert abs(float(got[p, o]) - v) <= bound[p, o]


@pytest.mark.parametrize("scale", [1e-12, 1.0, 1e12])
def test_a_collapse_is_equal_within_the_bound_in_any_units(scale):
    from relulab.model.networks.collapse import collapse_check

    rng = np.random.default_rng(0)
    for acts in (("identity",) * 3, ("relu", "identity", "identity"), ("identity", "leaky_relu", "identity")):
        net = MLP.random([2, 8, 8, 8, 3], seed=int(rng.integers(1000)), activation=list(acts))
        X = (rng.normal(size=(50, 2)) + 1e10 * (scale == 1.0)) * scale
        err, equal, words = collapse_check(net, X)
        assert equal is True and words.endswith(": equal"), (acts, err, words)


def test_a_wrong_collapse_is_caught_beyond_rounding(monkeypatch):
    from relulab.model.networks import collapse as module

    net = MLP.random([2, 6, 6, 1], seed=3, activation=["identity", "identity"])
    honest = module.collapse_identity_layers

    def off_by_an_ulp_too_many(n):  # one weight 1e-9 relatively off: a real bug, tiny
        flat = honest(n)
        (W, b), = flat.layers
        W = W.copy()
        W[0, 0] *= 1 + 1e-9
        return MLP([(W, b)], "identity")

    monkeypatch.setattr(module, "collapse_identity_layers", off_by_an_ulp_too_many)
    err, equal, words = module.collapse_check(net, np.array([[1e3, -2e3], [5.0, 7.0]]))
    assert equal is False and "NOT equal" in words and err > 0


def test_no_verdict_where_no_bound_is_proven():
    from relulab.model.networks.collapse import collapse_check

    smooth = MLP.random([2, 4, 4, 1], seed=1, activation=["identity", "tanh"])
    assert collapse_check(smooth, np.ones((3, 2)))[1] is None
    huge = MLP([(np.full((2, 2), 1e300), np.zeros(2)), (np.full((1, 2), 1e300), np.zeros(1))],
               "identity")
    _err, equal, words = collapse_check(huge, np.ones((2, 2)))
    assert equal is None and "overflow" in words
