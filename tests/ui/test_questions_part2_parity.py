"""The Questions panel's parity page: the race of parity against majority runs on the
page's worker, its sentences state the result's own numbers, its settings are undoable
and round-trip, and export has its plots and data."""

from __future__ import annotations

import numpy as np
import pytest

from relulab.model import nearest_neighbour_parity
from relulab.model.lessons.questions import (
    PAGES,
    DoubleDescentSettings,
    OverparametrisationSettings,
    ParitySettings,
    QuestionsState,
)
from relulab.ui.panels.questions.jobs.parity import RACE_STEPS
from tests.ui.questions_pages import settle_questions

#: Two relevant bits and three seeds: the race is done in well under a second.
FAST = QuestionsState(page="parity", parity=ParitySettings(k=2, seeds=3),
                      double_descent=DoubleDescentSettings(n=50, seeds=3),
                      overparametrisation=OverparametrisationSettings(seeds=3, prune_width=32))


def settle(panel) -> None:
    settle_questions(panel)


@pytest.fixture
def panel(questions_panel):
    return questions_panel(FAST)


def test_the_parity_settings_round_trip_and_refuse_what_is_wrong():
    s = QuestionsState(page="parity", parity=ParitySettings(k=4, seeds=10))
    assert QuestionsState.from_dict(s.to_dict()) == s
    assert "parity" in PAGES and QuestionsState.from_dict({}).parity == ParitySettings()
    for bad, words in (({"parity": {"k": 5}}, r"parity\.k"), ({"parity": {"seeds": 1}}, "seeds"),
                       ({"parity": {"n": 1}}, "unknown")):
        with pytest.raises(ValueError, match=words):
            QuestionsState.from_dict(bad)


def test_the_verdict_states_the_race_s_own_numbers(panel):
    run = panel.result()
    race = run.race
    assert (race.n_bits, race.k, race.seeds, race.steps) == (30, 2, (0, 1, 2), RACE_STEPS)
    par, maj = np.array(race.parity_steps, float), np.array(race.majority_steps, float)
    assert (par > maj).all()
    nearest = [nearest_neighbour_parity(10, s) for s in range(3)]
    assert list(run.nearest) == nearest
    verdict = panel.views["parity"].verdict.shown_text
    assert verdict == (
        f"Parity of 2 bits is slower than their majority in all 3 seeds: 95% test accuracy "
        f"after a median {np.median(par):,.0f} steps against {np.median(maj):,.0f}. On full "
        f"10-bit parity, 1-nearest-neighbour scores {np.median(nearest):.0%} on unseen "
        f"strings, a net {np.median(run.mlp):.0%}: what fails is similarity, and for SGD "
        f"sparse parity.")
    details = panel.views["parity"].details.shown_text
    assert "seed by seed: " + ", ".join(f"{int(p):,}" for p in par) in details
    r = panel.readouts()
    assert r["parity_verdict"] == "parity is slower"
    assert r["parity_median_parity"] == np.median(par) and r["parity_nearest"] == 0.0
    assert r["parity_mlp_min"] == min(run.mlp) >= 0.9


def test_a_seed_that_never_reaches_95_is_said_so():
    """Four bits within a race of 60 steps: no seed gets there, and the page says so."""
    from relulab.model.questions.parity import parity_race
    from relulab.ui.panels.questions.jobs import parity as jobs

    race = parity_race(30, 4, steps=60, seeds=3)
    run = jobs.ParityRun(ParitySettings(k=4, seeds=3), race, (0.0,) * 3, (0.95,) * 3)
    v = jobs.parity_numbers(run)
    assert v["parity_reached"] == 0 and v["median_parity"] == np.inf
    assert "3 seeds do not reach 95% within 3,000 steps" in jobs.parity_verdict(run)
    assert "more than 3,000" in jobs.parity_details(run)


def test_the_plots_show_each_seed_s_curve_and_steps(panel):
    f = panel.figures["parity"]
    race = panel.result().race
    for curve, row in zip(f.parity_curves, race.parity_accuracy):
        keep = np.isfinite(row)
        np.testing.assert_array_equal(curve.getData()[1], row[keep])
        np.testing.assert_array_equal(curve.getData()[0], race.checkpoints[keep])
    _x, y = f.parity_points.getData()  # log units: the axis is logarithmic
    np.testing.assert_allclose(y, np.log10(race.parity_steps))
    (_x0, x1), _ = f.plot.getViewBox().viewRange()
    assert x1 < 2 * max(race.parity_steps)  # the race's end, not its 3,000 steps
    (y0, y1) = f.race_plot.getViewBox().viewRange()[1]
    assert y0 < np.log10(min(race.majority_steps)) and np.log10(max(race.parity_steps)) < y1


def test_a_change_of_k_runs_on_the_worker_and_undo_brings_it_back(panel, qtbot):
    box = panel.page_controls["parity"].k
    box.setCurrentIndex(box.findData(3))
    box.activated.emit(box.currentIndex())
    assert panel.state.parity.k == 3 and panel.result() is None
    assert panel.progress.isVisibleTo(panel)
    assert panel.views["parity"].verdict.shown_text == "Running the parity race…"
    with qtbot.waitSignal(panel.finished, timeout=60_000) as blocker:
        pass
    assert blocker.args == ["parity"] and panel.result().race.k == 3
    panel.undo_stack.undo()
    settle(panel)
    assert panel.state.parity.k == 2 and box.currentData() == 2
    assert panel.result().race.k == 2


def test_scenes_export_and_the_page_quote(panel):
    saved = panel.state_dict()
    assert saved["parity"] == {"k": 2, "seeds": 3}
    with pytest.raises(ValueError, match=r"parity\.k"):
        panel.load_state({**saved, "parity": {"k": 7, "seeds": 3}})
    assert panel.state_dict() == saved
    assert list(panel.plots()) == ["main", "race"]
    tables = panel.data_tables()
    cols, rows = tables["race"]
    assert cols[:3] == ["seed", "majority: steps to 95%", "parity: steps to 95%"]
    assert [r[2] for r in rows] == list(panel.result().race.parity_steps)
    assert tables["test accuracy"][1][0][0] == 0
    quote = panel.views["parity"].quote.shown_text
    assert "Flip any single input bit and the label flips. Why is that hard?" in quote
    assert "Before NN101" in quote and "seed" not in quote
