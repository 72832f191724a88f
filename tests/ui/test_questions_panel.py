"""The Questions panel: each page runs its experiment on the worker and states what the
result's numbers support; settings are undoable, scenes round-trip, the latest wins."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from relulab.model.lessons.questions import (
    PAGES,
    DoubleDescentSettings,
    OverparametrisationSettings,
    QuestionsState,
)
from relulab.ui.panels.questions import QuestionsPanel
from relulab.ui.panels.questions.jobs import dd_widths, number

#: A small sweep that keeps the regimes of the issue's (benign at d = 20, catastrophic
#: at d = 2): n = 50, three seeds, a few seconds on a busy machine.
SMALL = QuestionsState(double_descent=DoubleDescentSettings(n=50, seeds=3),
                       overparametrisation=OverparametrisationSettings(seeds=3, prune_width=32))


@pytest.fixture
def panel(shown_panel, qtbot):
    p = shown_panel(QuestionsPanel)
    p.load_state(SMALL.to_dict())  # the default sweep, started on creation, is cancelled
    settle(p)
    return p


def settle(panel) -> None:
    assert panel.wait_until_idle(120)
    QApplication.processEvents()


def test_the_state_round_trips_and_refuses_what_is_wrong():
    s = QuestionsState(page="infinite-width",
                       double_descent=DoubleDescentSettings(d=2, n=50, tuned_ridge=True))
    assert QuestionsState.from_dict(s.to_dict()) == s
    assert QuestionsState.from_dict({}) == QuestionsState()
    for bad, words in (({"page": "nope"}, "page"), ({"double_descent": {"d": 3}}, r"double_descent\.d"),
                       ({"double_descent": {"n": 60}}, "multiple of 25"),
                       ({"double_descent": {"ridge": 0.5}}, "ridge"),
                       ({"double_descent": {"extra": 1}}, "unknown"),
                       ({"overparametrisation": {"prune_width": 7}}, "prune_width")):
        with pytest.raises(ValueError, match=words):
            QuestionsState.from_dict(bad)


def test_the_verdict_states_the_result_s_own_numbers(panel):
    """d = 20, noise 0.5: every number of the sentence is read from the result object,
    here recomputed from its arrays."""
    run = panel.result()
    sweep = run.sweep
    test = np.median(np.asarray(sweep.test_mse), axis=0)
    small = np.asarray(sweep.widths) < 50
    best_small = float(test[small].min())
    wins = int(np.sum(np.asarray(sweep.test_mse)[:, -1]
                      < np.asarray(sweep.test_mse)[:, small].min(axis=1)))
    r = panel.readouts()
    assert r["dd_regime"] == sweep.regime() == "benign"
    assert r["dd_wins"] == wins and r["dd_best_small"] == pytest.approx(best_small)
    verdict = panel.views["double-descent"].verdict.shown_text
    assert verdict.startswith("benign: the widest model (H = 1,000) beats the best small one")
    assert f"in {wins} of 3 seeds (median {number(test[-1])} vs {number(best_small)})" in verdict
    details = panel.views["double-descent"].details.shown_text
    at_n = float(test[list(sweep.widths).index(50)])
    assert f"At H = n = 50 the median test error is {number(at_n)}" in details
    assert f"the kernel limit H = ∞ gives {number(np.median(sweep.kernel_mse))}" in details
    assert f"range {number(run.lottery.spread)}× (max/min)" in details


def test_the_plot_shows_the_median_band_threshold_and_kernel_limit(panel):
    f = panel.figures["double-descent"]
    sweep = panel.result().sweep
    x, y = f.test.getOriginalDataset()  # as given: getData() is in log units
    np.testing.assert_array_equal(x, dd_widths(50))
    np.testing.assert_allclose(y, np.median(np.asarray(sweep.test_mse), axis=0))
    lo, _hi = sweep.band("test_mse")
    np.testing.assert_allclose(f.band_lo.getOriginalDataset()[1], lo)
    assert f.threshold.value() == pytest.approx(np.log10(50))
    assert f.kernel.value() == pytest.approx(np.log10(np.median(sweep.kernel_mse)))
    assert f.plot.getPlotItem().getAxis("bottom").logMode


def test_a_change_of_d_reruns_and_undo_brings_back_the_benign_case(panel, qtbot):
    box = panel.controls.dd.d
    box.setCurrentIndex(box.findData(2))
    box.activated.emit(box.currentIndex())
    assert panel.state.double_descent.d == 2 and panel.result() is None
    view = panel.views["double-descent"]
    assert panel.progress.isVisibleTo(panel) and panel.readouts()["dd_verdict"] is None
    with qtbot.waitSignal(panel.finished, timeout=60_000) as blocker:
        pass
    assert blocker.args == ["double-descent"]
    assert not panel.progress.isVisibleTo(panel)
    assert panel.readouts()["dd_regime"] == "catastrophic"
    assert view.verdict.shown_text.startswith("catastrophic:")
    panel.undo_stack.undo()
    settle(panel)
    assert panel.state.double_descent.d == 20 and panel.readouts()["dd_regime"] == "benign"
    assert box.currentData() == 20


def test_the_latest_request_wins(panel, qtbot):
    panel.set_double_descent(d=2)
    panel.set_double_descent(d=5)
    panel.set_double_descent(d=10, noise=1.0)
    settle(panel)
    run = panel.result()
    assert (run.settings.d, run.settings.noise) == (10, 1.0)
    assert panel.undo_stack.count() == 3


def test_a_change_of_view_redraws_without_running_again(panel):
    sweep = panel.result().sweep
    panel.set_double_descent(view="weight norm")
    assert not any(w.busy for w in panel._workers.values())
    f = panel.figures["double-descent"]
    np.testing.assert_allclose(f.test.getOriginalDataset()[1], sweep.median("weight_norm"))
    assert f.plot.getPlotItem().getAxis("left").labelText.startswith("output-weight norm")
    assert not f.kernel.isVisible()
    x = f.train.getOriginalDataset()[0]
    assert x is None or len(x) == 0  # the train error is an error, not a norm
    panel.set_double_descent(view="condition")
    np.testing.assert_allclose(f.test.getOriginalDataset()[1], sweep.median("condition"))


def test_the_tuned_ridge_is_labelled_an_oracle(panel):
    assert "oracle" in panel.controls.dd.tuned.text()
    panel.set_double_descent(tuned_ridge=True)
    settle(panel)
    run = panel.result()
    assert run.tuned is not None and run.tuned.oracle
    assert "oracle" in panel.views["double-descent"].verdict.shown_text
    assert not panel.controls.dd.ridge.isEnabled()


def test_the_second_scale_gives_two_peaks(panel):
    panel.set_double_descent(second_scale=True)
    settle(panel)
    peaks = [int(w) for w in panel.result().sweep.peaks()]
    assert len(peaks) >= 2
    assert f"{len(peaks)} peaks, at H = " in panel.views["double-descent"].details.shown_text


def test_each_page_quotes_the_blog_and_says_its_answer(panel):
    quote = panel.views["double-descent"].quote.shown_text
    assert "Will there be multiple descents?" in quote and "Before NN101" in quote
    assert "seed" not in quote.replace("seeds", "")
    for page, key in (("overparametrisation", "over_prunable_real"),
                      ("infinite-width", "lazy_movement_widest")):
        panel.pages.setCurrentIndex(["double-descent", "overparametrisation",
                                     "infinite-width"].index(page))
        assert panel.state.page == page
        settle(panel)
        assert panel.readouts()[key] is not None
        assert panel.views[page].verdict.shown_text
    panel.undo_stack.undo()
    assert panel.state.page == "overparametrisation" and panel.pages.currentIndex() == 1


def test_scenes_round_trip_and_a_bad_one_changes_nothing(panel):
    panel.set_double_descent(d=5, lottery_ratio=20)
    saved = panel.state_dict()
    with pytest.raises(ValueError, match=r"double_descent\.d"):
        panel.load_state({**saved, "double_descent": {**saved["double_descent"], "d": 7}})
    assert panel.state_dict() == saved
    panel.load_state(QuestionsState().to_dict())
    panel.load_state(saved)
    assert panel.state.double_descent.d == 5 and panel.controls.dd.d.currentData() == 5
    assert panel.controls.dd.lottery_at.currentData() == 20


def test_export_has_the_plots_and_their_data(panel):
    plots = panel.plots()
    assert list(plots) == ["main", "lottery"]
    tables = panel.data_tables()
    cols, rows = tables["double descent"]
    assert cols[0] == "H" and [r[0] for r in rows] == list(dd_widths(50))
    assert len(tables["lottery"][1]) == 10  # the draws


def test_the_lottery_draws_lie_inside_their_plot(panel):
    """Seen: the draws drawn at their raw values on a log axis, above its top; only a
    PlotDataItem follows the plot's log mode."""
    f = panel.figures["double-descent"]
    errors = np.asarray(panel.result().lottery.test_mse)
    _x, y = f.draws.getData()  # as drawn: log units
    np.testing.assert_allclose(y, np.log10(errors))
    (x0, x1), (y0, y1) = f.lottery_plot.getViewBox().viewRange()
    assert x0 < 1 and x1 > len(errors)
    assert y0 < y.min() and y.max() < y1
    assert f.ensemble.value() == pytest.approx(np.log10(panel.result().lottery.ensemble_mse))


def test_the_keys_step_pages_and_dimensions(panel, qtbot):
    from PySide6.QtCore import Qt

    panel.take_focus()
    qtbot.keyClick(panel.focus_target(), Qt.Key.Key_D)
    assert panel.state.double_descent.d == 50
    qtbot.keyClick(panel.focus_target(), Qt.Key.Key_O)
    assert panel.state.double_descent.tuned_ridge
    qtbot.keyClick(panel.focus_target(), Qt.Key.Key_BracketRight)
    assert panel.state.page == "overparametrisation" and panel.pages.currentIndex() == 1
    panel.step_page(-2)  # round the pages: from the second back to the last
    assert panel.state.page == PAGES[-1]
