"""Drawing a piecewise-linear function with millions of pieces: its exact extremes per column.

A tent of depth 24 has 16.7 million pieces; a plot is a few thousand pixels wide.
:func:`column_extremes` splits [a, b] into equal columns and gives, for each, the
smallest and the largest value of f on it. f is linear between its kinks, so those
are attained at the kinks inside the column or at its two edges: the values are
exact, and every peak and valley shows. When there are fewer kinks than columns the
breakpoints themselves are returned (the exact polyline).
"""

from __future__ import annotations

import numpy as np

from relulab.model.pieces.piecewise import PiecewiseLinear


def column_extremes(pl: PiecewiseLinear, a: float, b: float,
                    columns: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) that draws f = ``pl`` on [a, b]: per column its minimum then its maximum
    (x at the column's middle, twice), or the breakpoints when those are fewer than
    2·``columns``. O(columns + kinks in [a, b]), without copying the kinks."""
    a, b = float(a), float(b)
    i, j = np.searchsorted(pl.kinks, [a, b], side="right")
    if j - i <= 2 * columns:
        return pl.breakpoints(a, b)
    edges = np.linspace(a, b, columns + 1)
    at_edges = pl(edges)
    low = np.minimum(at_edges[:-1], at_edges[1:])
    high = np.maximum(at_edges[:-1], at_edges[1:])
    # kinks[first[c]:first[c + 1]] lie in column c (edges included on the left)
    first = np.searchsorted(pl.kinks, edges, side="left")
    first[-1] = np.searchsorted(pl.kinks, b, side="right")
    filled = np.flatnonzero(first[1:] > first[:-1])
    if filled.size:
        values = pl.values[:first[-1]]  # a view: reduceat's last group ends at b
        starts = first[filled]
        low[filled] = np.minimum(low[filled], np.minimum.reduceat(values, starts))
        high[filled] = np.maximum(high[filled], np.maximum.reduceat(values, starts))
    middles = 0.5 * (edges[:-1] + edges[1:])
    x = np.repeat(middles, 2)
    y = np.empty(2 * columns)
    y[0::2], y[1::2] = low, high
    return x, y
