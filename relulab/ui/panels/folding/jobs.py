"""What the Folding panel's workers compute: the tent network composed k times, the
cache of shallower tents, and the compositions of the user's fold. numpy and the
model only (no Qt): benchmarks and tests call these without a window, and a worker
hands their results to the GUI thread as they are.

Each job takes ``should_stop`` (see :mod:`relulab.model.core.cancel`) so that a
request the user no longer waits for ends at the next check.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from relulab.model.core.cancel import check
from relulab.model.networks.exact import BeyondExact
from relulab.model.pieces.envelope import column_extremes
from relulab.model.pieces.folding import (
    MAX_DEPTH,
    Fold,
    FoldCounts,
    Slivers,
    fold_counts,
    tent_network,
    tent_pieces,
    tent_slivers,
)
from relulab.model.pieces.piecewise import PiecewiseLinear, TooManyKnots, piecewise_linear

#: Up to this depth the tent is computed at once (a few ms) and kept in a cache;
#: deeper ones go to a worker so the slider never waits.
SYNC_DEPTH = 16
#: At peaks other than ½ the counts come from exact rationals (slower): at once only
#: to this depth.
EXACT_SYNC_DEPTH = 9
#: The exact walk for the user's fold stops here (a tenth of a second or so).
FOLD_EXACT_KNOTS = 2500
#: The user's fold is computed only while its knots stay under this budget.
FOLD_MAX_KNOTS = 2 ** 17
KINK_TABLE_ROWS = 2 ** 17
#: A deep tent is drawn from its extremes in this many columns: zoomed 64× into
#: [0, 1] the pieces of depth 16 still show one by one.
COLUMNS = 2 ** 16
#: The two x ranges the main plot shows: [0, 1] and the whole line around it.
UNIT, LINE = (0.0, 1.0), (-0.5, 1.5)


def plain_count(n: int) -> str:
    """A count as the app writes every number: thousands with a comma (1,048,576)."""
    return f"{n:,}"


_SUPERSCRIPTS = str.maketrans("0123456789()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾")


def composed(name: str, depth: int) -> str:
    """u⁽⁸⁾: ``name`` composed ``depth`` times, in plain text (the reasons below are
    read as plain text too, by screen readers and in ``readouts()``)."""
    return name + f"({depth})".translate(_SUPERSCRIPTS)


def sync_depth(peak: float) -> int:
    """The deepest tent computed at once at ``peak``; deeper ones go to a worker."""
    return SYNC_DEPTH if peak == 0.5 else EXACT_SYNC_DEPTH


class TentResult:
    """One tent network's counts (certified, or floating point only when exact
    arithmetic is beyond the budget), its first kinks (for the CSV table) and what
    draws it. A shallow tent keeps its pieces (the fold animation needs them); a deep
    one keeps only its two pictures, computed on the worker, and lets the 16.7 million
    pieces of depth 24 go."""

    __slots__ = ("_curves", "counts", "depth", "n_kinks", "peak", "pl", "slivers", "table")

    def __init__(self, depth: int, peak: float, pl: PiecewiseLinear, should_stop=None):
        self.depth, self.peak = depth, peak
        self.counts: FoldCounts = fold_counts(pl, depth, 2, tent_network(depth, peak))
        #: the pieces a rounded 1/p adds to the ideal tent's (None: floating point only)
        self.slivers: Slivers | None = tent_slivers(pl, depth, peak)
        self.n_kinks = pl.n_kinks
        self.pl: PiecewiseLinear | None = pl
        self.table = None
        self._curves: dict[tuple[float, float], tuple[np.ndarray, np.ndarray]] = {}
        if depth > sync_depth(peak):
            self.table = self.kink_table()
            for view in (UNIT, LINE):
                check(should_stop, "drawing the tent")
                self._curves[view] = column_extremes(pl, *view, COLUMNS)
            self.pl = None

    def kink_table(self) -> np.ndarray:
        """Rows (x, g(x), slope to the right) of the first KINK_TABLE_ROWS kinks (a CSV
        of 16.7 million rows helps nobody)."""
        if self.table is not None:
            return self.table
        pl, n = self.pl, min(self.n_kinks, KINK_TABLE_ROWS)
        return np.column_stack([pl.kinks[:n], pl.values[:n], pl.slopes[1:n + 1]])

    def curve(self, view: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) that draws the tent on ``view`` (exact breakpoints or extremes per column)."""
        if view not in self._curves:
            self._curves[view] = column_extremes(self.pl, *view, COLUMNS)
        return self._curves[view]


def compute_tent(depth: int, peak: float, should_stop=None) -> TentResult:
    try:
        pl = tent_pieces(depth, peak, should_stop=should_stop)
    except BeyondExact:  # drawn and counted in floating point, and labelled so
        pl = piecewise_linear(tent_network(depth, peak), certify=False, should_stop=should_stop)
    return TentResult(depth, peak, pl, should_stop)


def warm_tents(depths: Iterable[int], peak: float, should_stop=None) -> Iterator[TentResult]:
    """The tents of ``depths`` at ``peak``, one yield each: the idle worker fills the
    panel's cache with them, so that later slider steps only redraw."""
    for depth in depths:
        yield compute_tent(depth, peak, should_stop)


def fold_compositions(fold: Fold, should_stop=None):
    """(depth, (pieces, counts) or why not) for the user's fold composed 1, 2, …
    MAX_DEPTH times; past the knot budget, exact arithmetic or double precision every
    deeper one says so too. Every count yielded is certified (exact); a reason names
    the first depth not computed and why, and the depths before it that are exact."""
    reason = None
    for depth in range(1, MAX_DEPTH + 1):
        if reason is None:
            try:
                net = fold.network(depth)
                with np.errstate(over="raise", invalid="raise"):
                    pl = piecewise_linear(net, max_knots=FOLD_MAX_KNOTS, should_stop=should_stop,
                                          exact_knots=FOLD_EXACT_KNOTS)
                    counts = fold_counts(pl, depth, fold.n_neurons, net)
                yield depth, (pl, counts)
                continue
            except TooManyKnots:
                why = f"it has over {plain_count(FOLD_MAX_KNOTS)} kinks, this panel's budget"
            except BeyondExact:
                why = ("doubles cannot certify its kinks, and this panel stops exact rational "
                       f"arithmetic at {plain_count(FOLD_EXACT_KNOTS)} knots, fewer than it needs")
            except (FloatingPointError, ValueError):
                why = "its numbers pass the range of doubles"
            exact = (f"; {composed('u', 1)} to {composed('u', depth - 1)} are counted exactly"
                     if depth > 2 else f"; {composed('u', 1)} is counted exactly" if depth == 2
                     else "")
            reason = f"not computed from {composed('u', depth)} on: {why}{exact}"
        yield depth, reason


def fold_messages(fold: Fold, should_stop=None):
    """(fold, depth, pieces or why not) per depth, as :func:`fold_compositions`: each
    message names its fold, so one that arrives after the fold was edited is dropped."""
    return ((fold, depth, pieces) for depth, pieces in fold_compositions(fold, should_stop))
