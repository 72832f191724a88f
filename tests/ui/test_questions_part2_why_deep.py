"""The Questions panel's why-deep page: the deep square drawn at once for every depth
with its exact error 4^−(m+1), and the feature x1·x2 against 2-16-16-1 nets scored on
the page's worker, stated by their own numbers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from relulab.model.lessons.questions import (
    DEPTHS,
    DoubleDescentSettings,
    QuestionsState,
    WhyDeepSettings,
)
from relulab.model.questions.why_deep import product_feature
from relulab.ui.panels.questions.page_why_deep import GRID
from tests.ui.questions_pages import settle_questions

FAST = QuestionsState(page="why-deep", why_deep=WhyDeepSettings(seeds=3),
                      double_descent=DoubleDescentSettings(n=50, seeds=3))


def settle(panel) -> None:
    settle_questions(panel)


@pytest.fixture
def panel(questions_panel):
    return questions_panel(FAST)


def test_the_why_deep_settings_round_trip_and_refuse_what_is_wrong():
    s = QuestionsState(page="why-deep", why_deep=WhyDeepSettings(m=6, seeds=10))
    assert QuestionsState.from_dict(s.to_dict()) == s
    for bad, words in (({"why_deep": {"m": 7}}, r"why_deep\.m"),
                       ({"why_deep": {"seeds": 2}}, r"why_deep\.seeds")):
        with pytest.raises(ValueError, match=words):
            QuestionsState.from_dict(bad)


def _brute_max_error(m: int) -> Fraction:
    """The linear interpolation of x² at j/2^m, in exact arithmetic: on [a, a + h]
    its gap to x² is largest at the middle, h²/4 (the same on every piece)."""
    h = Fraction(1, 2 ** m)
    worst = Fraction(0)
    for j in range(2 ** m):
        a = j * h
        mid = a + h / 2
        line = (a * a + (a + h) ** 2) / 2
        worst = max(worst, line - mid * mid)
    return worst


def test_every_depth_is_drawn_at_once_with_its_exact_error(panel):
    c, f = panel.page_controls["why-deep"], panel.figures["why-deep"]
    for m in range(DEPTHS[0], DEPTHS[1] + 1):
        c.m.setValue(m)
        assert panel.state.why_deep.m == m
        assert not any(w.busy for w in panel._workers.values())  # the nets do not rerun
        error = Fraction(1, 4 ** (m + 1))
        assert _brute_max_error(m) == error
        assert c.square.value == float(error)
        assert f"= <b>{error}</b>" in c.square.text()
        x, y = f.approx.getData()
        np.testing.assert_array_equal(x, GRID)
        # on the grid (dyadic points) the net computes the interpolation exactly
        assert np.max(np.abs(y - GRID ** 2)) == pytest.approx(float(error), rel=1e-12)
    panel.undo_stack.undo()
    assert panel.state.why_deep.m == DEPTHS[1] - 1 and c.m.value() == DEPTHS[1] - 1


def test_the_verdict_states_the_scores_own_numbers(panel):
    run = panel.result()
    feature = product_feature(("xor", "circles"), 3)
    assert run.feature.median("xor") == feature.median("xor")
    net = {n: float(np.median(run.net.accuracy[i])) for i, n in enumerate(run.net.datasets)}
    verdict = panel.views["why-deep"].verdict.shown_text
    assert verdict.startswith(
        f"The feature x1·x2 alone scores {feature.median('xor'):.3f} on XOR but "
        f"{feature.median('circles'):.3f} on the circles")
    assert min(net.values()) >= 0.9 and feature.median("circles") < 0.7
    assert (f"scores at least {min(net.values()):.3f} on all four (medians of 3 seeds)"
            in verdict)
    assert panel.readouts()["deep_verdict"] == "the net solves all four"
    heights = panel.figures["why-deep"].net_bars.opts["height"]
    assert list(heights) == [net[n] for n in run.net.datasets]


def test_export_and_the_quote(panel):
    assert list(panel.plots()) == ["main", "accuracy"]
    tables = panel.data_tables()
    assert len(tables["accuracy"][1]) == 4 * 3
    cols, rows = tables["deep square"]
    assert cols == ["x", "x²", "f_3(x)"] and rows[-1] == [1.0, 1.0, 1.0]
    quote = panel.views["why-deep"].quote.shown_text
    assert "Especially when we can simply separate it with a nonlinear boundary" in quote
    assert "Before NN101" in quote
