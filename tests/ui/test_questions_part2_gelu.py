"""The Questions panel's GELU page: the GELU twin of a ReLU net drawn at once for each
scale within its bound, and the fits of both activations, run on the page's worker,
stated by their own numbers."""

from __future__ import annotations

import numpy as np
import pytest

from relulab.model.lessons.questions import (
    GELU_SCALES,
    DoubleDescentSettings,
    GeluSettings,
    QuestionsState,
)
from relulab.model.networks.mlp import MLP
from relulab.ui.panels.questions.jobs import number
from relulab.ui.panels.questions.jobs.gelu import TWIN_X
from tests.ui.questions_pages import settle_questions

FAST = QuestionsState(page="gelu", gelu=GeluSettings(seeds=3),
                      double_descent=DoubleDescentSettings(n=50, seeds=3))


def settle(panel) -> None:
    settle_questions(panel)


@pytest.fixture
def panel(questions_panel):
    return questions_panel(FAST)


def test_the_gelu_settings_round_trip_and_refuse_what_is_wrong():
    s = QuestionsState(page="gelu", gelu=GeluSettings(scale=100, seeds=10))
    assert QuestionsState.from_dict(s.to_dict()) == s
    for bad, words in (({"gelu": {"scale": 4}}, r"gelu\.scale"),
                       ({"gelu": {"seeds": 11}}, r"gelu\.seeds")):
        with pytest.raises(ValueError, match=words):
            QuestionsState.from_dict(bad)


def _gelu(t):
    """GELU by its definition, t·Φ(t), Φ from math.erf."""
    from math import erf, sqrt

    return np.array([v * 0.5 * (1 + erf(v / sqrt(2))) for v in t])


def test_the_twin_is_drawn_at_once_within_its_bound(panel):
    c, f = panel.page_controls["gelu"], panel.figures["gelu"]
    net = MLP.random([1, 16, 1], seed=0)
    (W1, b1), (W2, b2) = net.layers
    gaps = []
    for a in GELU_SCALES:
        c.scale.setCurrentIndex(c.scale.findData(a))
        c.scale.activated.emit(c.scale.currentIndex())
        assert panel.state.gelu.scale == a
        assert not any(w.busy for w in panel._workers.values())  # the fits do not rerun
        z = TWIN_X[:, None] * W1[:, 0] + b1
        gelu = (_gelu((a * z).ravel()).reshape(z.shape) / a) @ W2[0] + b2[0]
        _x, y = f.gelu.getData()
        np.testing.assert_allclose(y, gelu, atol=1e-9)
        gap = np.max(np.abs(gelu - (np.maximum(z, 0) @ W2[0] + b2[0])))
        assert gap <= 0.17 / a * np.abs(W2).sum()
        assert c.twin.value == pytest.approx(gap, rel=1e-6)
        gaps.append(gap)
    assert gaps == sorted(gaps, reverse=True)
    panel.undo_stack.undo()
    assert panel.state.gelu.scale == GELU_SCALES[-2]


def test_the_verdict_states_the_fits_own_numbers(panel):
    fits = panel.result().fits
    mse = np.asarray(fits.mse)  # (activations relu, gelu) × (targets smooth, kink) × seeds
    assert fits.activations == ("relu", "gelu") and fits.targets == ("smooth", "kink")
    gelu_smooth, relu_smooth = np.median(mse[1, 0]), np.median(mse[0, 0])
    wins = int(np.sum(mse[1, 0] < mse[0, 0]))
    verdict = panel.views["gelu"].verdict.shown_text
    assert verdict.startswith("Neither is more expressive in practice")
    assert (f"On the smooth sin(πx) GELU has the smaller error in {wins} of 3 seeds (median "
            f"{number(gelu_smooth)} vs {number(relu_smooth)})") in verdict
    assert wins == 3 and panel.readouts()["gelu_verdict"] == "each wins its own target"
    _x, y = panel.figures["gelu"].points[1].getData()  # log units
    np.testing.assert_allclose(y, np.log10(mse[1, 0]))


def test_export_and_the_quote(panel):
    assert list(panel.plots()) == ["main", "errors"]
    tables = panel.data_tables()
    assert len(tables["fits"][1]) == 2 * 2 * 3 and len(tables["twin"][1]) == len(TWIN_X)
    quote = panel.views["gelu"].quote.shown_text
    assert "GeLU should be more expressible than ReLU. Then why is it only widely used in " \
           "transformers?" in quote and "Before NN101" in quote
