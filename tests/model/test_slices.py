"""Slices: restriction is composition, points are parsed (never evaluated), the slice
through points is orthonormal and refuses degenerate points, and the exact tools give
on a slice what an independent computation gives."""

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from relulab.model.networks.mlp import MLP
from relulab.model.pieces.piecewise import line_pieces
from relulab.model.regions.activation import count_linear_regions, region_polygons
from relulab.model.regions.slices import (
    InputRows,
    SliceState,
    parse_point,
    parse_points,
    random_points,
    slice_state,
    slice_through,
    split_points,
)
from tests.model.exact_regions_reference import exact_regions


# -- restriction ------------------------------------------------------------------
@pytest.mark.parametrize("n", [5, 17, 64, 300, 784])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_restriction_equals_evaluation_on_the_slice(n, k):
    rng = np.random.default_rng(n + 10 * k)
    net = MLP.random([n, 24, 16, 3], seed=n)
    o = rng.normal(size=n)
    D = rng.normal(size=(k, n))
    r = net.restrict(o, D)
    assert r.sizes == [k, 24, 16, 3]
    for (W, b), (W2, b2) in zip(net.layers[1:], r.layers[1:]):
        assert np.array_equal(W, W2) and np.array_equal(b, b2)
    t = rng.normal(size=(200, k)) * 3
    X = o + t @ D
    got, want = r(t), net(X)
    # the first layer is rounded once; what follows is the same arithmetic
    scale = np.abs(net.layers[-1][0]).sum() * (np.abs(X).max() + 1) * np.abs(net.layers[0][0]).max()
    assert np.abs(got - want).max() <= 64 * n * 2.0 ** -53 * scale


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 60), seed=st.integers(0, 10 ** 6), spread=st.sampled_from([1e-12, 1.0, 1e12]),
       shift=st.sampled_from([0.0, 1e10]))
def test_restriction_at_any_scale(n, seed, spread, shift):
    assume(spread >= 1e-4 * shift)  # 1e10 + 1e-12·x is 1e10: one point, not three
    rng = np.random.default_rng(seed)
    net = MLP.random([n, 8, 2], seed=seed)
    P = shift + spread * rng.normal(size=(3, n))
    cut = slice_through(P)
    r = cut.restrict(net)
    t = cut.coords
    X = cut.to_input(t)
    size = (np.abs(net.layers[0][0]) @ np.abs(X).T).max() + np.abs(net.layers[0][1]).max()
    bound = 256 * n * 2.0 ** -53 * size * np.abs(net.layers[1][0]).sum()
    assert np.abs(r(t) - net(P)).max() <= bound + 1e-300


def test_restrict_keeps_the_activation_and_refuses_bad_shapes():
    net = MLP.random([6, 4, 1], seed=0, activation="leaky_relu")
    r = net.restrict(np.zeros(6), np.eye(6)[:1])
    assert r.activation == "leaky_relu" and r.n_in == 1
    with pytest.raises(ValueError, match="origin has 5 coordinates"):
        net.restrict(np.zeros(5), np.eye(6)[:2])
    with pytest.raises(ValueError, match=r"shape \(k, 6\)"):
        net.restrict(np.zeros(6), np.eye(5)[:2])
    with pytest.raises(ValueError, match="finite"):
        net.restrict(np.full(6, np.nan), np.eye(6)[:2])


# -- the slice through points ------------------------------------------------------
def test_plane_through_three_points_is_orthonormal_and_keeps_distances():
    rng = np.random.default_rng(0)
    P = rng.uniform(0, 16, size=(3, 64))
    cut = slice_through(P, ["a", "b", "c"])
    D = cut.directions
    assert np.allclose(D @ D.T, np.eye(2), atol=1e-15)
    assert np.array_equal(cut.coords[0], [0.0, 0.0])
    assert cut.coords[1, 0] > 0 and abs(cut.coords[1, 1]) < 1e-12 and cut.coords[2, 1] > 0
    # distances on the slice are distances in input space
    for i in range(3):
        for j in range(3):
            assert np.linalg.norm(cut.coords[i] - cut.coords[j]) == pytest.approx(
                np.linalg.norm(P[i] - P[j]), rel=1e-13)
    assert np.allclose(cut.to_input(cut.coords), P, rtol=0, atol=1e-12)
    x0, x1, y0, y1 = cut.box()
    assert x1 - x0 == pytest.approx(y1 - y0)
    assert all(x0 < x < x1 and y0 < y < y1 for x, y in cut.coords)


@pytest.mark.parametrize(("points", "message"), [
    ([[1, 2, 3], [1, 2, 3]], "same point"),
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], "lie on one line"),
    ([[0, 0, 0], [1, 1, 1], [1, 1, 1]], "same point"),
    ([[0, 0, 0], [1, 0, 0], [np.nan, 0, 0]], "not a finite number"),
    ([[0, 0, 0], [1, 0, 0], [np.inf, 0, 0]], "not a finite number"),
    ([[0, 0, 0], [1e200, 0, 0]], "beyond"),
    ([[0, 0, 0]], "2 points"),
    ([[0, 0], [1, 0], [0, 1], [1, 1]], "2 points"),
])
def test_degenerate_points_are_refused(points, message):
    with pytest.raises(ValueError, match=message):
        slice_through(np.array(points, dtype=float))


def test_collinear_up_to_rounding_is_told_apart_from_collinear():
    a, b = np.array([0.1, 0.2, 0.3]), np.array([0.7, -0.4, 0.9])
    c = a + (b - a) / 3  # rounded: not exactly on the line, but within rounding of it
    with pytest.raises(ValueError, match="collinear up to rounding"):
        slice_through([a, b, c])
    with pytest.raises(ValueError, match="lie on one line"):
        slice_through([[0.5, 1, 2], [1.5, 2, 3], [3.5, 4, 5]])  # exact: C − A = 3(B − A)
    # far apart but not collinear at all, at tiny and huge scales
    for s in (1e-200, 1e-12, 1e12, 1e90):
        cut = slice_through(s * np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]))
        assert np.allclose(cut.directions @ cut.directions.T, np.eye(2), atol=1e-15)


def test_random_points_span_orthonormal_directions():
    P = random_points(50, "plane", seed=3, centre=np.ones(50), scale=2.0)
    cut = slice_through(P)
    assert np.allclose(cut.coords, [[0, 0], [2, 0], [0, 2]], atol=1e-12)
    assert random_points(50, "line", seed=3).shape == (2, 50)
    with pytest.raises(ValueError, match="at least 2 inputs"):
        random_points(1, "plane", seed=0)


# -- parsing points -----------------------------------------------------------------
def test_points_are_rows_vectors_or_names():
    rows = InputRows(np.arange(12.0).reshape(4, 3), ("a", "b", "c", "d"), None, "data.csv")
    assert np.array_equal(parse_point("2", 3, rows).x, [6, 7, 8])
    assert parse_point("2", 3, rows).label == "row 2, label c" and parse_point("2", 3, rows).row == 2
    assert np.array_equal(parse_point("[1, -2.5e-3, 3]", 3).x, [1, -2.5e-3, 3])
    assert np.array_equal(parse_point("1,2 ,3", 3).x, [1, 2, 3])
    assert np.array_equal(parse_point(" 1 2 3 ", 3).x, [1, 2, 3])
    assert np.array_equal(parse_point("zeros", 3).x, [0, 0, 0])
    assert np.array_equal(parse_point("ONES", 3).x, [1, 1, 1])
    assert np.array_equal(parse_point("e2", 3).x, [0, 0, 1])
    assert np.array_equal(parse_point("mean", 3, rows).x, [4.5, 5.5, 6.5])
    assert split_points(" 0; e1 ;; [1,2,3] ") == ["0", "e1", "[1,2,3]"]
    assert [p.label for p in parse_points(["0", "zeros", "e1"], 3, rows)] == \
        ["row 0, label a", "0", "e1"]


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"), ("7", "rows 0 to 3"), ("e3", "inputs 0 to 2"), ("1,2", "2 number"),
    ("1,2,3,4", "4 number"), ("1,2,nan", "not a finite number"), ("1,inf,2", "not a finite"),
    ("1,2,__import__('os')", "not a number"), ("1e400,0,0", "beyond"), ("[1,2,3", "bracket"),
    ("1,2,0x10", "not a number"), ("[]", "no numbers"), ("-", "not a number"),
])
def test_bad_points_get_one_line_messages(text, message):
    rows = InputRows(np.zeros((4, 3)), None, None, "data.csv")
    with pytest.raises(ValueError, match=message) as e:
        parse_point(text, 3, rows, name="B")
    assert "\n" not in str(e.value)


def test_rows_need_a_points_file_of_the_right_width():
    with pytest.raises(ValueError, match="needs a points file"):
        parse_point("3", 3)
    with pytest.raises(ValueError, match="needs a points file"):
        parse_point("mean", 3)
    with pytest.raises(ValueError, match="rows of 4 numbers; the network has 3 inputs"):
        parse_point("0", 3, InputRows(np.zeros((2, 4))))


def test_a_huge_typed_vector_is_parsed_not_evaluated():
    text = ",".join(["1"] * 784)
    assert parse_point(text, 784).x.sum() == 784
    with pytest.raises(ValueError, match="longer than"):
        parse_point("1," * 3_000_000, 784)


# -- the state ----------------------------------------------------------------------
def test_slice_state_round_trips_and_validates():
    rows = InputRows(np.random.default_rng(0).normal(size=(5, 6)), None, (2, 3), "d.npz")
    points = parse_points(["0", "1", "4"], 6, rows)
    state = slice_state("plane", points, "rows", data="d.npz", image_shape=(2, 3))
    d = json.loads(json.dumps(state.to_dict()))
    back = SliceState.from_dict(d, 6)
    assert back == state
    assert back.rows == (0, 1, 4) and back.labels[0] == "A: row 0"
    bad = dict(d, points=[d["points"][0], d["points"][0], d["points"][2]])
    with pytest.raises(ValueError, match=r"^slice.points: points A and B are the same"):
        SliceState.from_dict(bad, 6)
    with pytest.raises(ValueError, match=r"^slice.points: expected shape 3×7"):
        SliceState.from_dict(d, 7)
    with pytest.raises(ValueError, match=r"^slice.image_shape"):
        SliceState.from_dict(dict(d, image_shape=[4, 4]), 6)
    with pytest.raises(ValueError, match=r"^slice.kind"):
        SliceState.from_dict(dict(d, kind="cube"), 6)
    with pytest.raises(ValueError, match=r"^slice: unknown field"):
        SliceState.from_dict(dict(d, extra=1), 6)
    line = dict(d, kind="line", points=d["points"][:2], labels=[], rows=[])
    assert SliceState.from_dict(line, 6).slice().kind == "line"


# -- exact tools on a slice, against independent computations --------------------
def test_plane_slice_counts_equal_an_independent_enumeration():
    """The regions of a slice, by the engine, against every activation pattern tried
    in exact rationals (tests/model/exact_regions_reference.py): in the box around the
    points and on the whole plane."""
    net = MLP.random([10, 5, 4, 3], seed=4)
    P = np.random.default_rng(4).normal(size=(3, 10))
    cut = slice_through(P)
    r = cut.restrict(net)
    box = cut.box()
    n = count_linear_regions(r, box)
    assert n == len(region_polygons(r, box)) == len(exact_regions(r, box))
    assert count_linear_regions(r) == len(exact_regions(r))


def test_line_slice_kinks_are_where_the_patterns_change():
    net = MLP.random([12, 8, 8, 3], seed=2)
    rng = np.random.default_rng(2)
    cut = slice_through(rng.normal(size=(2, 12)))
    r = cut.restrict(net)
    lp = line_pieces(r)
    # every knot is a change of the activation pattern along the line, and between
    # knots the pattern does not change
    knots = np.asarray(lp.knots)
    mids = np.concatenate([[knots[0] - 1], (knots[1:] + knots[:-1]) / 2, [knots[-1] + 1]])
    pats = net.activation_patterns(cut.to_input(mids[:, None]))
    assert all(not np.array_equal(pats[i], pats[i + 1]) for i in range(len(pats) - 1))
