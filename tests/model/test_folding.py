"""The tent map and other folds composed with themselves: exact piece counts."""

from itertools import pairwise

import numpy as np
import pytest

from relulab.model.networks.exact import BeyondExact
from relulab.model.pieces.folding import (
    FOLD_PRESETS,
    PEAK_RANGE,
    SLIVER_SHARE,
    Fold,
    exact_tent_depth,
    fold_counts,
    fold_frame,
    grid_piece_count,
    tent_counts_formula,
    tent_network,
    tent_peak_value,
    tent_pieces,
    tent_slivers,
)
from relulab.model.pieces.piecewise import piecewise_linear


def test_tent_network_is_the_seed_tent():
    net = tent_network(1)
    assert net.sizes == [1, 2, 1]
    x = np.linspace(-1, 2, 301)
    np.testing.assert_allclose(net(x), 2 * np.maximum(x, 0) - 4 * np.maximum(x - 0.5, 0))
    deep = tent_network(5)
    assert deep.sizes == [1, 2, 2, 2, 2, 2, 1]
    assert deep.n_hidden_neurons == 10


def test_composition_equals_applying_the_layer_again_and_again():
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.5, 1.5, 500)
    for fold in [*FOLD_PRESETS.values(), Fold.tent(0.3),
                 Fold(w=(0.5, -1.2, 2.0), b=(0.1, 0.3, -0.4), a=(1.0, 0.7, -0.9), c=0.2)]:
        y = x.copy()
        for depth in range(1, 6):
            y = fold(y)
            np.testing.assert_allclose(fold.network(depth)(x), y, atol=1e-9)


@pytest.mark.parametrize("depth", range(1, 21))
def test_tent_counts_are_exact_up_to_depth_20(depth):
    pl = piecewise_linear(tent_network(depth))
    counts = fold_counts(pl, depth, 2)
    assert counts.pieces_unit == 2 ** depth
    assert counts.kinks_line == (2 if depth == 1 else 2 ** depth + 1)
    assert (counts.pieces_unit, counts.kinks_line) == tent_counts_formula(depth)
    assert counts.neurons == 2 * depth
    assert counts.shallow_neurons == 2 ** depth - 1
    # the kinks on [0, 1] are exactly j / 2^k
    np.testing.assert_array_equal(pl.restrict(0, 1).kinks,
                                  np.arange(1, 2 ** depth) / 2.0 ** depth)
    if depth >= 2:
        assert pl.kinks[0] == 0.0 and pl.kinks[-1] == 1.0
        # outside [0, 1] the tent is clipped by the next layer: flat zero
        assert pl.slopes[0] == 0.0 and pl.slopes[-1] == 0.0


def test_tent_values_at_the_kinks_alternate_between_0_and_1():
    pl = piecewise_linear(tent_network(10)).restrict(0, 1)
    np.testing.assert_array_equal(pl.values, np.arange(1, 2 ** 10) % 2)


def test_the_seeds_grid_count_breaks_past_depth_12():
    for depth in range(1, 13):
        assert grid_piece_count(depth) == 2 ** depth
    for depth in range(13, 17):
        exact = fold_counts(piecewise_linear(tent_network(depth)), depth, 2).pieces_unit
        assert exact == 2 ** depth
        assert grid_piece_count(depth) != exact
    assert grid_piece_count(13) == 1  # every sample lands on a zero of g^(13)


@pytest.mark.parametrize("peak", [0.2, 0.3, 0.45, 0.62, 0.75])
def test_an_asymmetric_tent_is_counted_exactly(peak):
    """1/p is not a double: the network's exact count is the ideal tent's only when its
    top is exactly 1 or just below; a top a hair above 1 folds once more."""
    from tests.model.exact_reference import kinks, reference

    high, _ = tent_peak_value(peak)
    for depth in range(1, 6):
        pl = tent_pieces(depth, peak)
        counts = fold_counts(pl, depth, 2, tent_network(depth, peak))
        assert counts.exact
        assert counts.kinks_line == len(kinks(reference(tent_network(depth, peak)))[0])
        if high <= 0:
            assert (counts.pieces_unit, counts.kinks_line) == tent_counts_formula(depth), depth
    four = fold_counts(tent_pieces(4, 0.45), 4, 2, tent_network(4, 0.45))
    assert (four.pieces_unit > 16) == (tent_peak_value(0.45)[0] > 0)
    top = piecewise_linear(tent_network(1, peak))
    np.testing.assert_allclose(top.kinks, [0.0, peak])
    assert top(peak) == pytest.approx(1.0)


def _pieces_on_the_unit_interval(pl):
    """The exact widths and slopes of the pieces of ``pl`` on [0, 1] (from its exact
    rational walk)."""
    from fractions import Fraction

    ex = pl.exact
    jumps = ex.jumps(pl.output)
    kinks = [(k, t) for k, (t, c) in enumerate(zip(ex.knots, jumps)) if c != 0 and 0 < t < 1]
    ends = [Fraction(0), *(t for _, t in kinks), Fraction(1)]
    first = next((k for k, t in enumerate(ex.knots) if t > 0), len(ex.knots))
    slopes = [ex.slopes[first][pl.output], *(ex.slopes[k + 1][pl.output] for k, _ in kinks)]
    return [b - a for a, b in pairwise(ends)], slopes


PEAKS = [round(i / 100, 2) for i in range(round(PEAK_RANGE[0] * 100), round(PEAK_RANGE[1] * 100) + 1)]


@pytest.mark.parametrize("peak", PEAKS)
def test_every_piece_past_the_ideal_tents_is_a_flat_sliver(peak):
    """At every peak the panel offers and every depth to 8: the pieces wider than
    SLIVER_SHARE × min(p, 1 − p)^k are exactly the ideal tent's 2^k, at least that
    narrowest ideal width; the others are flat (a ReLU cut a dip below 0) and narrower
    than 1e-9 of it, so the share cannot misplace a piece."""
    for depth in range(1, 9):
        pl = tent_pieces(depth, peak)
        counts = fold_counts(pl, depth, 2, tent_network(depth, peak))
        slivers = tent_slivers(pl, depth, peak)
        assert counts.pieces_unit - slivers.count == 2 ** depth, (peak, depth)
        smallest = min(peak, 1 - peak) ** depth
        exact = pl if pl.exact is not None else piecewise_linear(tent_network(depth, peak),
                                                                  exact=True)
        widths, slopes = _pieces_on_the_unit_interval(exact)
        thin = [(w, s) for w, s in zip(widths, slopes) if w < SLIVER_SHARE * smallest]
        assert len(thin) == slivers.count
        assert all(s == 0 for _, s in thin), (peak, depth)
        assert all(w < 1e-9 * smallest for w, _ in thin), (peak, depth)
        assert all(w >= (1 - 1e-9) * smallest for w in widths if w >= SLIVER_SHARE * smallest)
        if thin:
            assert slivers.narrowest == float(min(w for w, _ in thin))
            assert slivers.widest == float(max(w for w, _ in thin))


def test_the_slivers_at_peak_0_38():
    """The panel's example: g^(3) at peak 0.38 has 10 pieces on [0, 1], the ideal 8 and
    two slivers 7.6e-17 and 1.6e-16 wide; at peak ½ the network is the ideal tent."""
    pl = tent_pieces(3, 0.38)
    assert fold_counts(pl, 3, 2, tent_network(3, 0.38)).pieces_unit == 10
    slivers = tent_slivers(pl, 3, 0.38)
    assert slivers.count == 2
    assert f"{slivers.narrowest:.1e}" == "7.6e-17" and f"{slivers.widest:.1e}" == "1.6e-16"
    assert tent_slivers(tent_pieces(20, 0.5), 20, 0.5).count == 0
    assert tent_slivers(piecewise_linear(tent_network(17, 0.38), certify=False), 17, 0.38) is None


@pytest.mark.parametrize("peak", [0.2, 0.5])
def test_deep_tents_are_certified_or_said_to_be_beyond(peak):
    depth = 18
    if peak == 0.5:
        pl = tent_pieces(depth, peak)
        assert fold_counts(pl, depth, 2) == fold_counts(pl, depth, 2)
        assert fold_counts(pl, depth, 2).pieces_unit == 2 ** depth
        assert exact_tent_depth(peak) >= 24
    else:
        assert exact_tent_depth(peak) < depth
        with pytest.raises(BeyondExact):
            tent_pieces(depth, peak)
        uncertified = piecewise_linear(tent_network(depth, peak), certify=False)
        assert not fold_counts(uncertified, depth, 2).exact


def test_other_folds_have_their_own_exact_counts():
    zigzag = FOLD_PRESETS["zigzag: three folds (3 neurons)"]
    for depth in range(1, 8):
        counts = fold_counts(piecewise_linear(zigzag.network(depth)), depth, 3)
        assert counts.pieces_unit == 3 ** depth
    zero_outside = FOLD_PRESETS["tent, zero outside [0, 1] (3 neurons)"]
    for depth in range(1, 10):
        pl = piecewise_linear(zero_outside.network(depth))
        np.testing.assert_array_equal(pl.kinks, np.arange(2 ** depth + 1) / 2.0 ** depth)
    ramp = FOLD_PRESETS["ramp: no folding (2 neurons)"]
    for depth in range(1, 6):
        assert fold_counts(piecewise_linear(ramp.network(depth)), depth, 2).pieces_unit == 1


def test_fold_validation_names_the_field():
    with pytest.raises(ValueError, match="b has 1 entries"):
        Fold(w=(1, 2), b=(0,), a=(1, 1))
    with pytest.raises(ValueError, match=r"a\[2\] must be a finite number"):
        Fold(w=(1, 2), b=(0, 0), a=(1, np.nan))
    with pytest.raises(ValueError, match="1 to 8 neurons"):
        Fold(w=(), b=(), a=())
    with pytest.raises(ValueError, match="peak"):
        tent_network(3, peak=0.0)
    with pytest.raises(ValueError, match="depth"):
        tent_network(0)
    with pytest.raises(ValueError, match="depth"):
        tent_network(2.5)


def test_fold_round_trips_through_a_dict():
    fold = Fold(w=(1, -2), b=(0.5, 0), a=(3, 1), c=-1)
    assert Fold.from_dict(fold.to_dict()).to_dict() == fold.to_dict()
    with pytest.raises(ValueError, match="w must be a list"):
        Fold.from_dict({"w": "1, 2", "b": [0, 0], "a": [1, 1]})
    with pytest.raises(ValueError, match="c must be a number"):
        Fold.from_dict({"w": [1], "b": [0], "a": [1], "c": "x"})
    with pytest.raises(ValueError, match="expected an object"):
        Fold.from_dict([1, 2])


def test_fold_frames_go_from_one_layer_to_the_next():
    before = piecewise_linear(tent_network(2))
    after = piecewise_linear(tent_network(3))
    x, y0 = fold_frame(before, after, 0.0)
    np.testing.assert_array_equal(x, np.arange(9) / 8)
    np.testing.assert_allclose(y0, before(x))
    _, y1 = fold_frame(before, after, 1.0)
    np.testing.assert_allclose(y1, after(x))
    _, yh = fold_frame(before, after, 0.5)
    np.testing.assert_allclose(yh, (before(x) + after(x)) / 2)
    x, first = fold_frame(None, piecewise_linear(tent_network(1)), 0.0)
    np.testing.assert_allclose(first, x)  # g^(0) is the identity
    with pytest.raises(ValueError):
        fold_frame(before, after, 1.5)


def test_folding_state_round_trip_and_validation():
    from relulab.model.lessons.folding import FoldingState

    s = FoldingState(depth=7, peak=0.35, whole_line=True, fold=Fold.tent(0.4), show_fold=False)
    assert FoldingState.from_dict(s.to_dict()) == s
    assert FoldingState.from_dict({}) == FoldingState()
    for bad, field in [({"depth": 25}, "depth"), ({"depth": "3"}, "depth"), ({"peak": 0.9}, "peak"),
                       ({"peak": None}, "peak"), ({"whole_line": "yes"}, "whole_line"),
                       ({"fold": {"w": [1], "b": [], "a": [1]}}, "fold"), ({"colour": 1}, "colour")]:
        with pytest.raises(ValueError, match=field):
            FoldingState.from_dict(bad)


@pytest.mark.parametrize(("fold", "where"), [
    ({"w": [1e308, 1], "b": [0, 0], "a": [1, 1]}, r"fold\.w\[0\]"),
    ({"w": [1, 1], "b": [0, 0], "a": [1, -1e308]}, r"fold\.a\[1\]"),
    ({"w": [1], "b": [0], "a": [1], "c": 1e5}, r"fold\.c"),
    ({"w": [], "b": [], "a": []}, r"fold\.w"),
    ({"w": [1] * 9, "b": [0] * 9, "a": [1] * 9}, r"fold\.w"),
    ({"w": [1], "b": [0], "a": [1], "d": 2}, "unknown"),
])
def test_folding_state_refuses_folds_that_would_overflow(fold, where):
    """±1e308 weights used to be accepted and then raise from a timer and from undo."""
    from relulab.model.lessons.folding import FoldingState

    with pytest.raises(ValueError, match=where):
        FoldingState.from_dict({"fold": fold})
