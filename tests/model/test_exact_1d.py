"""Exact means certified (issue 12): 1-D kinks and least widths that hold in any units.

Every case the issue lists, and a property test against the exact rational reference
in tests/model/exact_reference.py (written independently of the model's code).
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relulab.model.networks.exact import (
    BeyondExact,
    ExactNet,
    as_scaled_integers,
    exact_line,
    filtered_sign,
    to_fraction,
)
from relulab.model.networks.mlp import MLP
from relulab.model.pieces.piecewise import (
    CERTIFIED_FLOAT,
    CERTIFIED_LATTICE,
    EXACT_RATIONAL,
    piecewise_linear,
)
from relulab.model.shallow.construction import EXHAUSTIVE_KINKS, convert, shallow_1d, to_shallow
from tests.model.exact_reference import kinks as ref_kinks
from tests.model.exact_reference import least_width, reference


def units(net, s, t=0.0):
    """x ↦ net(s·x + t) exactly: a first layer ReLU(s x + t) − ReLU(−s x − t) = s x + t
    in front of the network (so no rounding enters, whatever s and t are)."""
    (W, b), rest = net.layers[0], net.layers[1:]
    first = ([[s], [-s]], [t, -t])
    second = (np.column_stack([W[:, 0], -W[:, 0]]), b)
    return MLP([first, second, *list(rest)])


def folded_units(net, s):
    """The same with s folded into the first layer's weights (exact for a power of 2)."""
    (W, b), rest = net.layers[0], net.layers[1:]
    return MLP([(W * s, b), *list(rest)])


# --- the cases of the issue ---------------------------------------------------------
def test_a_kink_beside_a_huge_slope_is_kept():
    f = MLP([([[1.0], [1.0]], [0.0, -1.0]), ([[1.0, 1e12]], [0.0])])
    pl = piecewise_linear(f)
    np.testing.assert_array_equal(pl.kinks, [0.0, 1.0])
    np.testing.assert_array_equal(pl.jumps, [1.0, 1e12])
    assert to_shallow(f)(np.array([-1.0]))[0] == 0.0
    assert convert(f).verify().ok()


@pytest.mark.parametrize("s", [1.0, 1e-12, 1e-6, 1e10, 1e12, 1e13])
def test_input_units_do_not_change_the_kinks(s):
    g = MLP.random([1, 6, 6, 1], seed=3)
    want = len(ref_kinks(reference(g))[0])
    assert want == 15
    assert piecewise_linear(units(g, s)).n_kinks == want
    assert piecewise_linear(units(g, s, 1e10)).n_kinks == want
    # folded into the first layer the network is a slightly different one; its own
    # exact count is what must come out
    h = folded_units(g, s)
    assert piecewise_linear(h).n_kinks == len(ref_kinks(reference(h))[0])


def test_kinks_1e13_apart_stay_apart():
    g = MLP([([[1.0], [1.0], [1.0]], [0.0, -1e-13, -1.0]), ([[1.0, 1.0, -3.0]], [0.0])])
    pl = piecewise_linear(g)
    assert pl.n_kinks == 3
    f = units(MLP.random([1, 6, 6, 1], seed=3), 1e13)
    pl = piecewise_linear(f)
    x = np.concatenate([pl.kinks + 1e-14, pl.kinks[-1:] + np.array([1e-12, 1.0])])
    np.testing.assert_allclose(pl(x), f(x), rtol=1e-9, atol=1e-9)


def test_width_two_is_not_proven_for_a_small_linear_term():
    f = MLP([([[1.0], [-1.0], [1.0], [1.0]], [0.0, 0.0, 0.0, -1.0]),
             ([[1e-4, -1e-4, 1e6, -1e6]], [0.0])])
    one = shallow_1d(f)
    assert (one.width, one.least_width_proven) == (3, True)
    assert one.net(np.array([-1e6]))[0] == pytest.approx(-100.0, rel=1e-12)
    g = MLP([([[-1.0], [1.0]], [0.0, 0.0]), ([[1.0, 5e-10]], [0.0])])  # ReLU(−x) + 5e-10 ReLU(x)
    one = shallow_1d(g)
    assert (one.width, one.least_width_proven) == (2, True)
    x = np.array([-3.0, -1e-3, 0.0, 2.0, 1e9])
    np.testing.assert_allclose(one.net(x), g(x), rtol=1e-15, atol=1e-300)


def test_exact_subset_sums_find_width_k():
    left = MLP([([[-1.0]], [0.0]), ([[3.0]], [1.0])])  # 3 ReLU(−x) + 1: s₀ = −3, jump 3
    assert (shallow_1d(left).width, shallow_1d(left).least_width_proven) == (1, True)
    # jumps 0.1 and 0.2 against s₀ = −0.3: in doubles 0.1 + 0.2 ≠ 0.3, exactly too
    net = MLP([([[1.0], [1.0], [-1.0]], [0.0, -1.0, 2.0]), ([[0.1, 0.2, 0.30000000000000004]],
                                                             [0.0])])
    one = shallow_1d(net)
    ref = reference(net)
    assert one.width == least_width(ref, 1)


@pytest.mark.parametrize("m", [1, 2, 5])
def test_one_hidden_neuron_stays_one(m):
    rng = np.random.default_rng(m)
    for w in (2.5, -0.75):
        net = MLP([([[w]], [0.3]), (rng.normal(size=(m, 1)), rng.normal(size=m))])
        one = shallow_1d(net)
        assert (one.width, one.least_width_proven) == (1, True)
        x = np.linspace(-5, 5, 101)
        np.testing.assert_allclose(one.net(x).reshape(len(x), -1), net(x).reshape(len(x), -1),
                                   atol=1e-12)


def test_several_outputs_share_their_kinks():
    net = MLP.random([1, 8, 8, 3], seed=0)
    one = shallow_1d(net)
    ref = reference(net)
    union = len(ref["knots"])
    assert len(one.kinks) == union
    assert one.width in (union, union + 1)
    assert one.width == least_width(ref, 3, exhaustive=EXHAUSTIVE_KINKS) or union > EXHAUSTIVE_KINKS
    assert one.width < sum(
        shallow_1d(MLP([*list(net.layers[:-1]),
                        (net.layers[-1][0][i:i + 1], net.layers[-1][1][i:i + 1])])).width
        for i in range(3))
    x = np.random.default_rng(1).normal(0, 3, 2000)
    np.testing.assert_allclose(one.net(x), net(x), atol=1e-12)


def test_shared_kink_with_opposite_needs_of_two_outputs():
    # output 1: 2 ReLU(−x) needs its neuron to face left; output 2: ReLU(x) needs it to
    # face right; one neuron cannot do both, so the least width is 2 (proven)
    net = MLP([([[1.0], [-1.0]], [0.0, 0.0]), ([[0.0, 2.0], [1.0, 0.0]], [0.0, 0.0])])
    one = shallow_1d(net)
    assert (len(one.kinks), one.width, one.least_width_proven) == (1, 2, True)
    # ReLU(−x) and 2 ReLU(−x): one left-facing neuron serves both
    net = MLP([([[-1.0]], [0.0]), ([[1.0], [2.0]], [0.0, 0.0])])
    assert (shallow_1d(net).width, shallow_1d(net).least_width_proven) == (1, True)
    # affine outputs only: two neurons, or none when all are constant
    net = MLP([([[1.0]], [0.0]), ([[0.0], [0.0]], [1.0, 2.0])])
    assert shallow_1d(net).width == 0
    lines = MLP([([[1.0], [-1.0]], [0.0, 0.0]), ([[1.0, -1.0], [2.0, -2.0]], [0.0, 1.0])])
    assert (shallow_1d(lines).width, shallow_1d(lines).least_width_proven) == (2, True)


def test_past_the_exhaustive_size_the_width_is_not_proven():
    net = MLP.random([1, 12, 12, 1], seed=5)
    one = shallow_1d(net)
    if len(one.kinks) > EXHAUSTIVE_KINKS and one.width == len(one.kinks) + 1:
        assert not one.least_width_proven and "not proven" in one.rule


def test_huge_weights_are_exact_or_refused():
    big = MLP([([[1e308], [1.0]], [0.0, -1.0]), ([[1e308, 1.0]], [0.0])])
    with pytest.raises(ValueError, match="range of doubles"):
        piecewise_linear(big)
    tiny = MLP([([[1e-300], [1.0]], [1e-300, -1.0]), ([[1e300, 1.0]], [0.0])])
    pl = piecewise_linear(tiny)
    np.testing.assert_array_equal(pl.kinks, [-1.0, 1.0])


# --- helpers of relulab.model.networks.exact ---------------------------------------------------
def test_exact_helpers():
    M, s = as_scaled_integers([0.5, -3.0, 1e-3])
    assert [Fraction(int(v), 2 ** s) for v in M] == [Fraction(0.5), Fraction(-3.0), Fraction(1e-3)]
    assert to_fraction(0.1) == Fraction(3602879701896397, 36028797018963968)
    np.testing.assert_array_equal(filtered_sign([1.0, -1.0, 0.0, 1e-20, 0.0],
                                                [0.5, 0.5, 0.0, 1e-19, 1e-30]), [1, -1, 0, 2, 2])
    net = MLP([([[2.0], [-1.0]], [-1.0, 0.5]), ([[1.0, 3.0]], [0.25])])
    ex = ExactNet(net)
    maps = ex.affine_maps([np.array([True, False])])
    A, C = maps[-1]
    S = ex.shifts[-1]
    assert (Fraction(int(A[0]), 2 ** S), Fraction(int(C[0]), 2 ** S)) == (2, Fraction(-3, 4))
    line = exact_line(net)
    assert line.knots == [Fraction(1, 2)]
    with pytest.raises(BeyondExact):
        exact_line(MLP.random([1, 8, 8, 1], seed=0), max_knots=3)


def test_how_the_kinks_were_certified():
    from relulab.model.pieces.folding import tent_network

    assert piecewise_linear(tent_network(6)).certificate == CERTIFIED_LATTICE
    assert piecewise_linear(MLP.random([1, 8, 8, 1], seed=0)).certificate == CERTIFIED_FLOAT
    pl = piecewise_linear(MLP.random([1, 8, 8, 1], seed=0), exact=True)
    assert pl.certificate == EXACT_RATIONAL and pl.exact is not None
    stats = {}
    piecewise_linear(MLP.random([1, 8, 8, 1], seed=0), stats=stats)
    assert stats["path"] == "float"


# --- the property test ----------------------------------------------------------------
@st.composite
def deep_nets(draw):
    depth = draw(st.integers(2, 8))
    widths = [draw(st.integers(1, 32)) for _ in range(depth)]
    while sum(widths) > 96:  # keeps the exact reference within a second
        widths = [max(1, w // 2) for w in widths]
    decades = draw(st.floats(0.0, 12.0))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    sizes = [1, *widths, 1]
    layers = []
    for a, b in itertools.pairwise(sizes):
        spread = 10.0 ** rng.uniform(-decades / 2, decades / 2, (b, a + 1))
        M = rng.normal(size=(b, a + 1)) * spread / np.sqrt(a)
        layers.append((M[:, :-1], M[:, -1]))
    return MLP(layers)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deep_nets(), st.sampled_from([1e-12, 3e-7, 1.0, 7e4, 1e12]),
       st.sampled_from([0.0, -2.5, 1e10, -1e10]))
def test_kinks_counts_and_shallow_agree_with_the_exact_reference(net, s, t):
    ref = reference(net)
    want, jumps = ref_kinks(ref)
    pl = piecewise_linear(net)
    assert pl.n_kinks == len(want)
    # each kink within its certified error bound of the exact one
    assert all(abs(Fraction(float(k)) - w) <= Fraction(float(e))
               for k, w, e in zip(pl.kinks, want, pl.kink_errors))
    assert np.all(np.sign(pl.jumps) == [np.sign(float(c)) for c in jumps])
    # the shallow network: the least width, and equal to the network up to rounding
    one = shallow_1d(net)
    best = least_width(ref, 1, exhaustive=12)
    if best is not None:
        assert one.width == best and one.least_width_proven
    else:
        assert one.width in (len(want), len(want) + 1)
    assert convert(net).verify().ok()
    # the same network in other units: the same count
    assert piecewise_linear(units(net, s, t)).n_kinks == len(want)


def test_nets_spanning_eight_decades_lose_no_kinks():
    """The issue's survey: random deep nets whose weights span 8 decades, each against
    the exact reference (the old tolerances lost kinks in about a quarter of them)."""
    rng = np.random.default_rng(8)
    for _ in range(40):
        sizes = [1, *list(rng.integers(2, 9, rng.integers(2, 5))), 1]
        layers = []
        for a, b in itertools.pairwise(sizes):
            M = rng.normal(size=(b, a + 1)) * 10.0 ** rng.uniform(-4, 4, (b, a + 1))
            layers.append((M[:, :-1], M[:, -1]))
        net = MLP(layers)
        want, _jumps = ref_kinks(reference(net))
        pl = piecewise_linear(net)
        assert pl.n_kinks == len(want)
        assert all(abs(Fraction(float(k)) - w) <= Fraction(float(e))
                   for k, w, e in zip(pl.kinks, want, pl.kink_errors))


def test_end_slopes_are_checked_against_the_proven_weight_errors():
    """Found by the property test: a 1-2-2-9-10-13-12-1 network whose left ray has
    slope 0.66 beside jumps of 10⁵. The output weights come from jumps that cancel, so
    the left slope read off them is off by 6e-12 (within their proven error, 2e-9):
    the verification must say equal; a weight really off must still be caught."""
    from pathlib import Path

    from relulab.io.networks import load_network

    net = load_network(Path(__file__).parents[1] / "fixtures" / "end-slopes-cancel.json")
    conv = convert(net)
    v = conv.verify()
    assert v.end_slopes_agree and v.ok()
    (W1, b1), (W2, b2) = conv.shallow.layers
    EV = conv.one_d.weight_errors[1]
    left = np.flatnonzero(W1[:, 0] < 0)[0]
    W2 = W2.copy()
    W2[0, left] += 1e3 * EV[0, left] + 1e-6
    conv.shallow = MLP([(W1, b1), (W2, b2)])
    assert not conv._end_slopes_agree()
