"""Exact kinks of 1-D ReLU networks: piecewise_linear against the network itself."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relulab.model.networks.mlp import MLP
from relulab.model.pieces.piecewise import PiecewiseLinear, piecewise_linear

RANDOM_ARCHITECTURES = [
    [1, 1, 1],
    [1, 3, 1],
    [1, 8, 1],
    [1, 4, 4, 1],
    [1, 6, 5, 1],
    [1, 3, 3, 3, 1],
    [1, 8, 8, 8, 1],
    [1, 5, 5, 5, 5, 5, 1],
    [1, 2, 2, 2, 2, 2, 2, 2, 2, 1],
    [1, 16, 2, 16, 1],
]


def tent(depth):
    """g(x) = 2 ReLU(x) − 4 ReLU(x − ½) composed ``depth`` times, written out by hand."""
    layers = [(np.array([[1.0], [1.0]]), np.array([0.0, -0.5]))]
    for _ in range(depth - 1):
        layers.append((np.array([[2.0, -4.0], [2.0, -4.0]]), np.array([0.0, -0.5])))
    layers.append((np.array([[2.0, -4.0]]), np.array([0.0])))
    return MLP(layers)


def interpolate(pl: PiecewiseLinear, x):
    """Independent of pl.__call__: np.interp through the kinks, the rays by their slopes."""
    t, v, s = pl.kinks, pl.values, pl.slopes
    y = np.interp(x, t, v)
    y = np.where(x < t[0], v[0] + s[0] * (x - t[0]), y)
    return np.where(x > t[-1], v[-1] + s[-1] * (x - t[-1]), y)


def dense_grid(pl, extra=3.0, n=20001):
    lo, hi = (pl.kinks[0], pl.kinks[-1]) if pl.n_kinks else (-1.0, 1.0)
    span = max(hi - lo, 1.0)
    x = np.linspace(lo - extra * span, hi + extra * span, n)
    # also every kink, the midpoints between kinks and points just beside each kink
    mids = (pl.kinks[1:] + pl.kinks[:-1]) / 2 if pl.n_kinks > 1 else np.empty(0)
    return np.sort(np.concatenate([x, pl.kinks, mids, pl.kinks - 1e-7, pl.kinks + 1e-7]))


@pytest.mark.parametrize("sizes", RANDOM_ARCHITECTURES, ids=lambda s: "-".join(map(str, s)))
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("init", ["he", "uniform"])
def test_interpolation_through_kinks_equals_the_network(sizes, seed, init):
    net = MLP.random(sizes, seed=seed, init=init)
    pl = piecewise_linear(net)
    x = dense_grid(pl)
    y = net(x)
    tol = 1e-9 * max(1.0, np.max(np.abs(y)))
    np.testing.assert_allclose(pl(x), y, rtol=0, atol=tol)
    if pl.n_kinks:
        np.testing.assert_allclose(interpolate(pl, x), y, rtol=0, atol=tol)
    # far out on the rays too: the ray slopes are right, not only near the kinks
    far = np.array([-1e4, -1e3, 1e3, 1e4]) + (pl.kinks.mean() if pl.n_kinks else 0.0)
    np.testing.assert_allclose(pl(far), net(far), rtol=1e-9, atol=tol)


@pytest.mark.parametrize("sizes", RANDOM_ARCHITECTURES, ids=lambda s: "-".join(map(str, s)))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_kink_is_a_real_slope_change(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    pl = piecewise_linear(net)
    assert np.all(np.diff(pl.kinks) > 0), "kinks sorted and distinct"
    assert pl.slopes.shape == (pl.n_kinks + 1,)
    assert pl.values.shape == (pl.n_kinks,)
    np.testing.assert_allclose(pl.values, net(pl.kinks), atol=1e-9 * max(1, np.abs(pl.values).max(initial=0)))
    edges = np.concatenate([[pl.kinks[0] - 2.0] if pl.n_kinks else [-1.0],
                            np.sort(np.concatenate([pl.kinks, pl.non_kink_boundaries])),
                            [pl.kinks[-1] + 2.0] if pl.n_kinks else [1.0]])
    for t, jump in zip(pl.kinks, pl.jumps):
        k = np.searchsorted(edges, t)
        gap = min(t - edges[k - 1], edges[k + 1] - t)
        if gap < 1e-6:
            continue  # too narrow for finite differences to be trusted
        h = gap / 4
        left = (net(np.array([t - h])) - net(np.array([t - 2 * h])))[0] / h
        right = (net(np.array([t + 2 * h])) - net(np.array([t + h])))[0] / h
        scale = max(abs(left), abs(right), 1.0)
        assert abs(right - left) > 1e-7 * scale, f"no slope change at {t}"
        assert right - left == pytest.approx(jump, rel=1e-5, abs=1e-7 * scale)


@pytest.mark.parametrize("sizes", RANDOM_ARCHITECTURES, ids=lambda s: "-".join(map(str, s)))
def test_kink_count_within_the_product_bound(sizes):
    for seed in range(5):
        pl = piecewise_linear(MLP.random(sizes, seed=seed))
        bound = int(np.prod([n + 1 for n in sizes[1:-1]])) - 1
        assert pl.n_kinks <= bound
        assert pl.region_boundaries.size <= bound


def test_absolute_value_has_two_pieces():
    net = MLP([([[1.0], [-1.0]], [0.0, 0.0]), ([[1.0, 1.0]], [0.0])])
    pl = piecewise_linear(net)
    assert pl.n_pieces == 2
    np.testing.assert_array_equal(pl.kinks, [0.0])
    np.testing.assert_array_equal(pl.slopes, [-1.0, 1.0])
    np.testing.assert_array_equal(pl.jumps, [2.0])
    np.testing.assert_array_equal(pl([-2.0, 0.0, 3.0]), [2.0, 0.0, 3.0])


def test_abs_plus_one_has_a_point_region_at_zero():
    # |x| + 1 as ReLU(x) + ReLU(−x) + 1: at x = 0 both neurons are off, a region {0}
    net = MLP([([[1.0], [-1.0]], [0.0, 0.0]), ([[1.0, 1.0]], [1.0])])
    pl = piecewise_linear(net)
    np.testing.assert_array_equal(pl.region_boundaries, [0.0])
    assert pl(0.0) == 1.0


def test_region_boundary_without_a_kink():
    # ReLU(x) − ReLU(x) + ReLU(x − 1): the neurons at 0 switch, the slope does not change
    net = MLP([([[1.0], [1.0], [1.0]], [0.0, 0.0, -1.0]), ([[1.0, -1.0, 1.0]], [0.0])])
    pl = piecewise_linear(net)
    np.testing.assert_array_equal(pl.kinks, [1.0])
    np.testing.assert_array_equal(pl.non_kink_boundaries, [0.0])
    np.testing.assert_array_equal(pl.region_boundaries, [0.0, 1.0])


def test_a_dead_second_layer_neuron_leaves_boundaries_without_kinks():
    # the second-layer neuron switches at x = 2 but its output weight is 0
    net = MLP([([[1.0]], [0.0]), ([[1.0], [1.0]], [0.0, -2.0]), ([[1.0, 0.0]], [0.0])])
    pl = piecewise_linear(net)
    np.testing.assert_array_equal(pl.kinks, [0.0])
    np.testing.assert_array_equal(pl.non_kink_boundaries, [2.0])


def test_coinciding_neurons_make_one_kink():
    net = MLP([([[1.0], [2.0], [-3.0]], [0.0, 0.0, 0.0]), ([[1.0, 1.0, 1.0]], [0.0])])
    pl = piecewise_linear(net)
    np.testing.assert_array_equal(pl.kinks, [0.0])
    np.testing.assert_array_equal(pl.slopes, [-3.0, 3.0])


def test_constant_and_affine_networks_have_no_kinks():
    constant = MLP([([[0.0], [0.0]], [1.0, -1.0]), ([[2.0, 5.0]], [0.5])])
    pl = piecewise_linear(constant)
    assert pl.n_kinks == 0 and pl.n_pieces == 1
    np.testing.assert_array_equal(pl([-5.0, 0.0, 7.0]), [2.5, 2.5, 2.5])
    affine = MLP([([[2.0]], [10.0]), ([[3.0]], [1.0])])  # on for x > −5 only
    pl = piecewise_linear(affine)
    np.testing.assert_array_equal(pl.kinks, [-5.0])
    linear = MLP([([[2.0]], [1.0])])  # no hidden layer at all
    pl = piecewise_linear(linear)
    assert pl.n_kinks == 0
    np.testing.assert_array_equal(pl([0.0, 1.0]), [1.0, 3.0])


def test_identity_and_leaky_relu_networks():
    net = MLP.random([1, 6, 6, 1], seed=4)
    assert piecewise_linear(net.with_activation("identity")).n_kinks == 0
    leaky = net.with_activation("leaky_relu")
    pl = piecewise_linear(leaky)
    x = dense_grid(pl)
    np.testing.assert_allclose(pl(x), leaky(x), atol=1e-9 * max(1, np.abs(leaky(x)).max()))


@pytest.mark.parametrize(("depth", "kinks"), [(1, 2), (2, 5), (3, 9), (4, 17), (6, 65)])
def test_tent_counts_on_the_whole_line_and_on_the_unit_interval(depth, kinks):
    pl = piecewise_linear(tent(depth))
    assert pl.n_kinks == kinks
    on_unit = pl.restrict(0.0, 1.0)
    assert on_unit.n_pieces == 2 ** depth
    np.testing.assert_array_equal(on_unit.kinks, np.arange(1, 2 ** depth) / 2 ** depth)


def test_restrict_to_an_interval():
    pl = piecewise_linear(tent(3))
    part = pl.restrict(0.2, 0.6)
    np.testing.assert_array_equal(part.kinks, [0.25, 0.375, 0.5])
    assert part.n_pieces == 4
    assert part.domain == (0.2, 0.6)
    np.testing.assert_array_equal(part.slopes, pl.slopes[2:6])
    x = np.linspace(0.2, 0.6, 101)
    np.testing.assert_array_equal(part(x), pl(x))
    assert np.isnan(part(0.1)) and np.isnan(part(0.7))
    bx, by = part.breakpoints()
    np.testing.assert_array_equal(bx, [0.2, 0.25, 0.375, 0.5, 0.6])
    np.testing.assert_allclose(by, pl(bx))
    inner = part.restrict(0.3, 0.4)
    np.testing.assert_array_equal(inner.kinks, [0.375])
    with pytest.raises(ValueError, match="a < b"):
        pl.restrict(1.0, 0.0)


def test_callable_on_scalars_and_arrays():
    pl = piecewise_linear(tent(2))
    assert float(pl(0.25)) == 1.0
    np.testing.assert_array_equal(pl(np.array([[0.0, 0.125], [0.5, 2.0]])), [[0.0, 0.5], [0.0, 0.0]])
    assert pl.kinks.flags.writeable is False


def test_rejects_what_it_cannot_handle():
    with pytest.raises(ValueError, match="one input"):
        piecewise_linear(MLP.random([2, 3, 1], seed=0))
    with pytest.raises(ValueError, match="one output"):
        piecewise_linear(MLP.random([1, 3, 2], seed=0))
    with pytest.raises(ValueError, match="piecewise-linear activation"):
        piecewise_linear(MLP.random([1, 3, 1], seed=0, activation="tanh"))
    with pytest.raises(TypeError):
        piecewise_linear("not a network")


def test_knot_budget_and_stopping():
    from relulab.model.pieces.piecewise import Stopped, TooManyKnots

    with pytest.raises(TooManyKnots, match="after layer 6"):
        piecewise_linear(tent(8), max_knots=40)
    assert piecewise_linear(tent(8), max_knots=10_000).n_kinks == 257
    calls = []

    def stop_at_third():
        calls.append(1)
        return len(calls) >= 3

    with pytest.raises(Stopped, match="layer 3"):
        piecewise_linear(tent(8), should_stop=stop_at_third)


# Small integer and half-integer weights make the awkward cases common: neurons that
# are exactly zero at an existing knot, coinciding kinks, dead and constant neurons.
_weights = st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])


@st.composite
def degenerate_nets(draw):
    sizes = [1, *draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)), 1]
    layers = []
    for n_in, n_out in itertools.pairwise(sizes):
        W = [[draw(_weights) for _ in range(n_in)] for _ in range(n_out)]
        b = [draw(_weights) for _ in range(n_out)]
        layers.append((W, b))
    return MLP(layers)


@settings(max_examples=150, deadline=None)
@given(degenerate_nets())
def test_degenerate_networks_are_still_exact(net):
    pl = piecewise_linear(net)
    x = dense_grid(pl, n=2001)
    y = net(x)
    np.testing.assert_allclose(pl(x), y, rtol=0, atol=1e-9 * max(1.0, np.abs(y).max()))
    assert np.all(np.diff(pl.kinks) > 0)
    assert np.all(np.abs(pl.jumps) > 0)
    # every kink lies on a region boundary, and the two lists do not overlap
    assert set(pl.kinks.tolist()) <= set(pl.region_boundaries.tolist())
    assert not set(pl.kinks.tolist()) & set(pl.non_kink_boundaries.tolist())
