"""Identity layers at the edges of the doubles, against exact references.

* The regions of a network with identity layers are those of the network as built:
  counted by a slow exact reference (Fractions, every pattern of its ReLU neurons,
  Fourier–Motzkin), never through a product W₂W₁ rounded in doubles, which moves the
  lines (three lines through one point become a sliver: 7 regions for 6).
* The collapse check's rounding bound holds where the values are subnormal (a product
  there is off by up to 2⁻¹⁰⁷⁵ whatever its size), and its words give the difference
  and the bound of the one point they judge.
"""

from fractions import Fraction
from itertools import pairwise, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relulab.model.networks import collapse as collapse_module
from relulab.model.networks.collapse import (
    _merged_with_errors,
    _rounding_bound,
    collapse_check,
    collapse_identity_layers,
    relu_form,
)
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import count_linear_regions
from relulab.model.regions.decisions import decision_regions
from relulab.ui.panels.playground.jobs import plane_count, regions_in_view
from tests.model.exact_regions_reference import _feasible

BOX = (-4.0, 4.0, -4.0, 4.0)


# -- exact references --------------------------------------------------------------------------

def exact_outputs(net: MLP, x) -> list[Fraction]:
    """``net`` (its double weights) evaluated exactly at the point x."""
    h = [Fraction(float(v)) for v in x]
    acts = net.activations
    for i, (W, b) in enumerate(net.layers):
        z = [sum((Fraction(float(W[r, k])) * h[k] for k in range(len(h))), Fraction(float(b[r])))
             for r in range(W.shape[0])]
        if i < len(acts):
            a = acts[i]
            h = [v if a == "identity" or v > 0 else
                 (Fraction(0) if a == "relu" else Fraction(0.01) * v) for v in z]
        else:
            h = z
    return h


def exact_regions_as_built(net: MLP, box=None) -> int:
    """The number of non-empty activation regions of ``net`` (ReLU and identity hidden
    layers) on all of R² (lower-dimensional ones included), or of those with area inside
    ``box``: every on/off pattern of its ReLU neurons tried, the identity neurons passing
    their exact affine maps on unchanged; nothing merged, nothing rounded."""
    n = net.n_in
    layers = [([[Fraction(float(w)) for w in row] for row in W], [Fraction(float(v)) for v in b])
              for W, b in net.layers[:-1]]
    acts = net.activations
    n_relu = sum(W.shape[0] for (W, _), a in zip(net.layers, acts) if a == "relu")
    extra = []
    if box is not None:
        x0, x1, y0, y1 = (Fraction(float(v)) for v in box)
        one, zero = Fraction(1), Fraction(0)
        extra = [((one, zero), -x0, True), ((-one, zero), x1, True),
                 ((zero, one), -y0, True), ((zero, -one), y1, True)]
    count = 0
    for bits in product((False, True), repeat=n_relu):
        H = [[Fraction(int(i == j)) for j in range(n)] + [Fraction(0)] for i in range(n)]
        rows, g = [], 0
        for (W, b), a in zip(layers, acts):
            Z = []
            for row, bias in zip(W, b):
                z = [sum((w * h[d] for w, h in zip(row, H)), Fraction(0)) for d in range(n + 1)]
                z[n] += bias
                Z.append(z)
            if a == "identity":
                H = Z
                continue
            H = []
            for z in Z:
                on = bits[g]
                g += 1
                rows.append((tuple(z[:n]), z[n], True) if on else
                            (tuple(-v for v in z[:n]), -z[n], False))
                H.append(z if on else [Fraction(0)] * (n + 1))
        if box is not None:
            strict = [(a, c, s or any(a)) for a, c, s in rows]
            count += _feasible(strict + extra)
        else:
            count += _feasible(rows)
    return count


# -- item 3: the regions of identity layers as built -------------------------------------------

#: The ReLU layer the sliver case puts behind an identity layer: three lines of the
#: identity layer's outputs y through y = (1, 1) whose normals (1, 0), (0, 1), (1, 1)
#: lie in a half-plane, so there are 6 regions (all off is one of them).
THROUGH_ONE_POINT = (np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([-1.0, -1.0, -2.0]))
OUT = (np.array([[1.0, -2.0, 1.5]]), np.zeros(1))


def sliver_case() -> MLP:
    """An identity layer y = W₁x + b₁ (W₁ invertible) before THROUGH_ONE_POINT: in x the
    three lines still meet in one point, W₁⁻¹((1, 1) − b₁); the rounded W₂W₁ misses it."""
    W1 = np.array([[0.1257302210933933, -0.1321048632913019],
                   [0.6404226504432821, 0.10490011715303971]])
    b1 = np.array([-0.535669373161111, 0.36159505490948474])
    return MLP([(W1, b1), THROUGH_ONE_POINT, OUT], ["identity", "relu"])


def test_three_lines_through_one_point_behind_an_identity_layer_are_six_regions():
    net = sliver_case()
    assert exact_regions_as_built(net) == 6
    # the identity layer is an affine bijection of the plane: the regions are those of
    # the ReLU layer on y, counted by the engine on weights that are all small integers
    assert count_linear_regions(MLP([THROUGH_ONE_POINT, OUT], "relu")) == 6
    # merged in doubles the lines no longer meet in one point: a sliver, 7 regions
    assert count_linear_regions(collapse_identity_layers(net)) == 7
    assert plane_count(net).count == 6
    meet = np.linalg.solve(net.layers[0][0], np.ones(2) - net.layers[0][1])
    box = (meet[0] - 1, meet[0] + 1, meet[1] - 1, meet[1] + 1)
    found = regions_in_view(net, 0, box)
    assert len(found.decisions.regions) == exact_regions_as_built(net, box) == 6
    assert len(decision_regions(net, box).regions) == 6  # the model's own entry point
    # the regions drawn tile the box: their areas add up to the box's
    assert sum(r.area for r in found.decisions.regions) == pytest.approx(4.0, rel=1e-9)


def test_an_exact_merge_is_kept_and_a_rounded_one_is_not():
    W = np.array([[1.0, 2.0], [3.0, -1.0]])
    integers = MLP([(W, np.array([0.5, 1.0])), (np.array([[2.0, 1.0], [1.0, 1.0]]), np.zeros(2)),
                    (np.array([[1.0, 1.0]]), np.zeros(1))], ["identity", "relu"])
    form = relu_form(integers)
    assert form.merged == (1,) and form.paired == () and form.net.sizes == [2, 2, 1]
    assert form.net.layers[0][0].tolist() == [[5.0, 3.0], [4.0, 1.0]]
    assert form.net.layers[0][1].tolist() == [2.0, 1.5]
    form = relu_form(sliver_case())
    assert form.merged == () and form.paired == (1,) and form.net.sizes == [2, 4, 3, 1]
    assert form.own.tolist() == [False] * 4 + [True] * 3
    assert relu_form(MLP.random([2, 3, 1], seed=0, activation="identity")) is None
    assert relu_form(MLP.random([2, 3, 1], seed=0, activation="tanh")) is None


@st.composite
def identity_and_relu_networks(draw):
    """2-input networks of 2 or 3 hidden layers, each ReLU or identity (one ReLU at
    least, at most 6 ReLU neurons for the reference), the first layer's weights in
    units from 1e-6 to 1e6; half of them with the sliver case's degeneracy: an identity
    layer of width 2, and the ReLU layer after it three lines of its outputs through
    the point (1, 1), with small integer weights."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    degenerate = draw(st.booleans())
    if degenerate:
        acts = draw(st.sampled_from([["identity", "relu"], ["identity", "relu", "relu"],
                                     ["relu", "identity", "relu"], ["identity", "identity", "relu"],
                                     ["identity", "relu", "identity"]]))
        widths = [2 if a == "identity" else 3 if i and acts[i - 1] == "identity" else 2
                  for i, a in enumerate(acts)]
        if acts == ["identity", "relu", "relu"]:
            widths[2] = 2
    else:
        acts = [draw(st.sampled_from(["relu", "identity"])) for _ in range(draw(st.integers(2, 3)))]
        if "relu" not in acts:
            acts[draw(st.integers(0, len(acts) - 1))] = "relu"
        widths = [draw(st.integers(1, 3)) for _ in acts]
    sizes = [2, *widths, 1]
    units = 10.0 ** draw(st.integers(-6, 6))
    layers = []
    for i in range(len(sizes) - 1):
        W = rng.normal(size=(sizes[i + 1], sizes[i]))
        b = rng.normal(size=sizes[i + 1])
        if i == 0:
            W = W / units
        if degenerate and 0 < i < len(acts) and acts[i - 1] == "identity" and acts[i] == "relu":
            W = rng.integers(-2, 3, size=W.shape).astype(float)
            W[np.all(W == 0, axis=1), 0] = 1.0
            b = -W @ np.ones(W.shape[1])  # every line through the point of ones
        layers.append((W, b))
    return MLP(layers, acts)


@settings(max_examples=60, deadline=None)
@given(identity_and_relu_networks())
def test_identity_layers_mixed_with_relu_have_the_regions_as_built(net):
    assert plane_count(net).count == exact_regions_as_built(net)


@settings(max_examples=25, deadline=None)
@given(identity_and_relu_networks(), st.integers(0, 10_000))
def test_identity_layers_mixed_with_relu_in_view(net, seed):
    # a box around a point of the input where the lines of the second layer meet
    centre = np.random.default_rng(seed).normal(size=2)
    W, b = net.layers[0]
    if W.shape == (2, 2) and abs(np.linalg.det(W)) > 1e-300:
        centre = np.linalg.solve(W, np.ones(2) - b)
    r = float(np.max(np.abs(centre))) + 1.0
    box = (centre[0] - r, centre[0] + r, centre[1] - r, centre[1] + r)
    found = regions_in_view(net, 0, box)
    assert len(found.decisions.regions) == exact_regions_as_built(net, box)
    # the pieces joined into each region still tile the box
    area = sum(q.area for q in found.decisions.regions)
    assert area == pytest.approx((box[1] - box[0]) * (box[3] - box[2]), rel=1e-6)


@settings(max_examples=60, deadline=None)
@given(identity_and_relu_networks(), st.integers(0, 10_000))
def test_the_relu_form_is_the_same_function_exactly(net, seed):
    form = relu_form(net)
    for x in np.random.default_rng(seed).normal(size=(4, 2)) * 10.0 ** (seed % 7 - 3):
        assert exact_outputs(form.net, x) == exact_outputs(net, x)


# -- item 6: the collapse check near the subnormals ---------------------------------------------

def test_an_identity_network_near_1e_310_is_equal():
    # the adversary's kind (issue 32, item 6): all identity, points near 1e-310,
    # biases as small; the exact collapse is the same function by algebra
    rng = np.random.default_rng(1)
    net = MLP.random([2, 5, 7, 2], seed=3, activation="identity")
    net = MLP([(W, b * 1e-310) for W, b in net.layers], "identity")
    X = rng.normal(size=(20, 2)) * 1e-310
    err, equal, words = collapse_check(net, X)
    assert err > 0 and equal is True and words.endswith(": equal"), words
    whole = [(W, b, np.zeros_like(W), np.zeros_like(b)) for W, b in net.layers]
    merged, kept = _merged_with_errors(net)
    bound_whole = _rounding_bound(whole, net.activations, X)
    bound_merged = _rounding_bound(merged, kept, X)
    got, flat = net(X), collapse_identity_layers(net)(X)
    for p, x in enumerate(X):
        for o, v in enumerate(exact_outputs(net, x)):
            assert abs(Fraction(float(got[p, o])) - v) <= Fraction(float(bound_whole[p, o]))
            assert abs(Fraction(float(flat[p, o])) - v) <= Fraction(float(bound_merged[p, o]))


def _subnormal_cases(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    acts = [draw(st.sampled_from(["identity", "relu", "leaky_relu"])) for _ in range(draw(st.integers(1, 3)))]
    if "identity" not in acts:
        acts[0] = "identity"
    sizes = [2, *[int(rng.integers(1, 6)) for _ in acts], int(rng.integers(1, 3))]
    scale = 10.0 ** draw(st.integers(-320, -290))
    layers = [(rng.normal(size=(o, i)) * 10.0 ** draw(st.integers(-3, 3)),
               rng.normal(size=o) * scale) for i, o in pairwise(sizes)]
    X = rng.normal(size=(5, 2)) * scale
    return MLP(layers, acts), X


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_rounding_bound_holds_among_the_subnormals(data):
    net, X = _subnormal_cases(data.draw)
    whole = [(W, b, np.zeros_like(W), np.zeros_like(b)) for W, b in net.layers]
    merged, kept = _merged_with_errors(net)
    bound_whole = _rounding_bound(whole, net.activations, X)
    bound_merged = _rounding_bound(merged, kept, X)
    got, flat = net(X), collapse_identity_layers(net)(X)
    for p, x in enumerate(X):
        for o, v in enumerate(exact_outputs(net, x)):
            assert abs(Fraction(float(got[p, o])) - v) <= Fraction(float(bound_whole[p, o]))
            assert abs(Fraction(float(flat[p, o])) - v) <= Fraction(float(bound_merged[p, o]))
    assert collapse_check(net, X)[1] is True


def _numbers_in(words: str) -> tuple[float, float]:
    """The difference and the bound a verdict's words give."""
    import re

    found = re.findall(r"(\d\.\d+e[-+]\d+)", words)
    return float(found[-2]), float(found[-1])


def test_the_words_give_the_judged_points_difference_and_its_bound(monkeypatch):
    net = MLP.random([2, 6, 6, 1], seed=3, activation=["identity", "identity"])
    honest = collapse_module.collapse_identity_layers

    def bias_off(n):  # the bias 1e-12 relatively off: beyond rounding near the origin only
        (W, b), = honest(n).layers
        return MLP([(W, b * (1 + 1e-12))], "identity")

    monkeypatch.setattr(collapse_module, "collapse_identity_layers", bias_off)
    X = np.array([[1e6, -2e6], [0.5, 0.25]])
    _err, equal, words = collapse_module.collapse_check(net, X)
    assert equal is False and words.endswith("NOT equal"), words
    merged, kept = _merged_with_errors(net)
    whole = [(W, b, np.zeros_like(W), np.zeros_like(b)) for W, b in net.layers]
    bound = _rounding_bound(whole, net.activations, X) + _rounding_bound(merged, kept, X)
    diff = np.abs(net(X) - bias_off(net)(X))
    # the far point's bound is larger than every difference: the old words printed it
    # beside the verdict ("… is beyond 3.9e-15")
    assert bound[0, 0] > diff.max() and diff[1, 0] > bound[1, 0]
    d, b = _numbers_in(words)
    assert words.startswith("at (0.5, 0.25) ")
    assert d == float(f"{diff[1, 0]:.1e}") and b == float(f"{bound[1, 0]:.1e}") and d > b
    monkeypatch.undo()
    _err, equal, words = collapse_check(net, X)
    assert equal is True
    d, b = _numbers_in(words)
    assert d <= b


def test_a_difference_just_beyond_its_bound_is_printed_so():
    assert collapse_module._numbers(2.241e-16, 2.24e-16) == ("2.241e-16", "2.240e-16")
    assert collapse_module._numbers(2.24e-16, 2.241e-16) == ("2.2e-16", "2.2e-16")
    assert collapse_module._numbers(2.2e-16, 3.9e-15) == ("2.2e-16", "3.9e-15")
