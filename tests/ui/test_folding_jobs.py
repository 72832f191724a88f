"""The Folding panel's jobs, called without a widget: each result is checked against
the model (the tent's pieces, their counts, their pictures), and the module loads
without Qt."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.pieces.envelope import column_extremes
from relulab.model.pieces.folding import (
    FOLD_PRESETS,
    exact_tent_depth,
    fold_counts,
    tent_counts_formula,
    tent_network,
    tent_pieces,
)
from relulab.model.pieces.piecewise import piecewise_linear
from relulab.ui.panels.folding.jobs import (
    COLUMNS,
    EXACT_SYNC_DEPTH,
    FOLD_EXACT_KNOTS,
    FOLD_MAX_KNOTS,
    KINK_TABLE_ROWS,
    LINE,
    SYNC_DEPTH,
    UNIT,
    compute_tent,
    fold_compositions,
    fold_messages,
    plain_count,
    sync_depth,
    warm_tents,
)


def test_the_jobs_import_no_qt():
    """Benchmarks and tests load the jobs without a window: neither PySide6, pyqtgraph
    nor the panel's module comes with them."""
    code = ("import sys\n"
            "import relulab.ui.panels.folding.jobs\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')"
            " or m == 'relulab.ui.panels.folding.panel'))\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_the_panel_is_exported_from_the_package():
    """The registry loads ``relulab.ui.panels.folding`` and asks it for FoldingPanel."""
    import relulab.ui.panels.folding as package
    from relulab.ui.panels import spec

    assert spec("folding").load() is package.FoldingPanel
    assert package.FoldingPanel.__module__ == "relulab.ui.panels.folding.panel"
    with pytest.raises(AttributeError):
        package.NoSuchPanel  # noqa: B018


def test_shallow_tents_are_computed_at_once_and_deeper_ones_on_a_worker():
    assert sync_depth(0.5) == SYNC_DEPTH
    assert sync_depth(0.4) == EXACT_SYNC_DEPTH < SYNC_DEPTH


def test_a_shallow_tent_keeps_its_pieces_and_matches_the_model():
    result = compute_tent(6, 0.5)
    pl = tent_pieces(6, 0.5)
    assert (result.depth, result.peak) == (6, 0.5)
    assert (result.counts.pieces_unit, result.counts.kinks_line) == tent_counts_formula(6)
    assert result.counts == fold_counts(pl, 6, 2, tent_network(6, 0.5))
    assert result.counts.exact
    assert result.pl is not None and result.n_kinks == pl.n_kinks == 65
    np.testing.assert_array_equal(result.pl.kinks, pl.kinks)
    table = result.kink_table()
    assert table.shape == (pl.n_kinks, 3)
    np.testing.assert_array_equal(table[:, 0], pl.kinks)
    np.testing.assert_array_equal(table[:, 1], pl.values)
    np.testing.assert_array_equal(table[:, 2], pl.slopes[1:])
    for view in (UNIT, LINE):
        x, y = result.curve(view)
        want_x, want_y = column_extremes(pl, *view, COLUMNS)
        np.testing.assert_array_equal(x, want_x)
        np.testing.assert_array_equal(y, want_y)


def test_a_deep_tent_keeps_its_pictures_and_table_and_lets_its_pieces_go():
    """Past the depth computed at once the worker draws both views from their
    extremes in COLUMNS columns and keeps the first KINK_TABLE_ROWS kinks for the
    table; the pieces (131 073 kinks at depth 17) are not kept."""
    depth, peak = SYNC_DEPTH + 1, 0.5
    result = compute_tent(depth, peak)
    pl = tent_pieces(depth, peak)
    assert result.pl is None
    assert result.counts == fold_counts(pl, depth, 2, tent_network(depth, peak))
    assert result.n_kinks == pl.n_kinks == KINK_TABLE_ROWS + 1
    table = result.kink_table()
    assert table is result.table and table.shape == (KINK_TABLE_ROWS, 3)
    np.testing.assert_array_equal(table[:, 0], pl.kinks[:KINK_TABLE_ROWS])
    np.testing.assert_array_equal(table[:, 2], pl.slopes[1:KINK_TABLE_ROWS + 1])
    for view in (UNIT, LINE):
        x, y = result.curve(view)
        want_x, want_y = column_extremes(pl, *view, COLUMNS)
        np.testing.assert_array_equal(x, want_x)
        np.testing.assert_array_equal(y, want_y)


def test_a_tent_beyond_exact_arithmetic_is_counted_in_floating_point():
    """At peak 0.4 exact rationals are tried to depth 15 (they certify depth 14: its
    slivers pass the budget at 15); depth 16 is counted in doubles and says so."""
    depth = exact_tent_depth(0.4) + 1
    result = compute_tent(depth, 0.4)
    assert not result.counts.exact
    pl = piecewise_linear(tent_network(depth, 0.4), certify=False)
    assert result.n_kinks == pl.n_kinks
    assert result.counts.kinks_line == pl.n_kinks


def test_a_tent_no_longer_wanted_stops():
    with pytest.raises(Cancelled):
        compute_tent(SYNC_DEPTH + 1, 0.5, should_stop=lambda: True)


def test_the_warm_job_yields_the_tents_it_was_asked_for_in_order():
    results = list(warm_tents([3, 1, 2], 0.5))
    assert [(r.depth, r.peak) for r in results] == [(3, 0.5), (1, 0.5), (2, 0.5)]
    assert [r.counts.pieces_unit for r in results] == [8, 2, 4]


def test_the_tent_fold_composes_to_its_knot_budget_then_says_why_not():
    """The 2-neuron tent doubles its pieces at every depth until its kinks pass
    FOLD_MAX_KNOTS (depth 17); that depth and every deeper one give the reason."""
    fold = FOLD_PRESETS["tent (2 neurons)"]
    out = dict(fold_compositions(fold))
    assert sorted(out) == list(range(1, 25))
    for depth in (1, 5, 16):
        pl, counts = out[depth]
        net = fold.network(depth)
        want = piecewise_linear(net)
        np.testing.assert_array_equal(pl.kinks, want.kinks)
        assert counts == fold_counts(want, depth, fold.n_neurons, net)
        assert counts.pieces_unit == 2 ** depth
    reason = (f"not computed from u⁽¹⁷⁾ on: it has over {plain_count(FOLD_MAX_KNOTS)} kinks, "
              "this panel's budget; u⁽¹⁾ to u⁽¹⁶⁾ are counted exactly")
    assert all(out[depth] == reason for depth in range(17, 25))


def test_a_fold_beyond_exact_arithmetic_says_so_at_every_deeper_depth():
    """The zigzag's 3^8 kinks cannot be certified in doubles and pass the exact
    walk's budget of this panel. The reason says which compositions it is about and
    which are exact: "depth 8 is beyond exact arithmetic here" read as a contradiction
    beside the tent's exact count at depth 8."""
    out = dict(fold_compositions(FOLD_PRESETS["zigzag: three folds (3 neurons)"]))
    assert out[7][1].pieces_unit == 3 ** 7 and out[7][1].exact
    reason = out[8]
    assert reason == ("not computed from u⁽⁸⁾ on: doubles cannot certify its kinks, and this "
                      f"panel stops exact rational arithmetic at {plain_count(FOLD_EXACT_KNOTS)} "
                      "knots, fewer than it needs; u⁽¹⁾ to u⁽⁷⁾ are counted exactly")
    assert "beyond exact arithmetic" not in reason
    assert all(out[depth] == reason for depth in range(8, 25))


def test_the_fold_messages_name_their_fold():
    fold = FOLD_PRESETS["ramp: no folding (2 neurons)"]
    messages = list(fold_messages(fold))
    assert [depth for _, depth, _ in messages] == list(range(1, 25))
    assert all(m[0] is fold for m in messages)
    assert all(pieces[1].pieces_unit == 1 for _, _, pieces in messages)


def test_counts_are_written_with_a_comma_for_thousands():
    """One number format in the app's text: 1,048,576, never spaces."""
    assert plain_count(1_048_576) == "1,048,576"
    assert plain_count(2500) == "2,500"
    assert plain_count(999) == "999"
