"""Per-column extremes of a piecewise-linear function: exact, every peak kept."""

import itertools

import numpy as np
import pytest

from relulab.model.networks.mlp import MLP
from relulab.model.pieces.envelope import column_extremes
from relulab.model.pieces.folding import tent_network
from relulab.model.pieces.piecewise import piecewise_linear


def brute_force(pl, a, b, columns):
    """Per column: the values at the edges and at every kink inside, min and max."""
    edges = np.linspace(a, b, columns + 1)
    low, high = [], []
    for lo, hi in itertools.pairwise(edges):
        inside = pl.kinks[(pl.kinks >= lo) & (pl.kinks <= hi)]
        y = pl(np.concatenate([[lo, hi], inside]))
        low.append(y.min())
        high.append(y.max())
    return np.array(low), np.array(high)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("a", "b", "columns"), [(-3.0, 3.0, 7), (-0.1, 0.2, 16), (-50.0, 50.0, 3)])
def test_extremes_match_the_kinks_and_edges_of_each_column(seed, a, b, columns):
    net = MLP.random([1, 24, 24, 1], seed=seed)
    pl = piecewise_linear(net)
    x, y = column_extremes(pl, a, b, columns)
    if pl.restrict(a, b).n_kinks <= 2 * columns:
        bx, by = pl.breakpoints(a, b)
        np.testing.assert_array_equal(x, bx)
        np.testing.assert_array_equal(y, by)
        return
    low, high = brute_force(pl, a, b, columns)
    np.testing.assert_array_equal(y[0::2], low)
    np.testing.assert_array_equal(y[1::2], high)
    assert np.all(np.diff(x) >= 0) and x[0] > a and x[-1] < b


def test_a_deep_tent_keeps_every_peak_and_valley():
    pl = piecewise_linear(tent_network(14))  # 16 384 pieces
    x, y = column_extremes(pl, 0.0, 1.0, 1000)
    assert len(x) == 2000
    assert np.all(y[0::2] == 0.0) and np.all(y[1::2] == 1.0)
    x, y = column_extremes(pl, -0.5, 1.5, 1000)
    inside = (x > 0.001) & (x < 0.999)
    assert np.all(y[1::2][inside[1::2]] == 1.0)
    assert np.all(y[x < 0] == 0.0) and np.all(y[x > 1] == 0.0)
