"""The Questions panel's one-hot page: the one-hot classifier's probabilities and the
students' accuracy, computed on the page's worker seed by seed, stated by their own
numbers; it claims nothing for label smoothing or hierarchy-aware labels."""

from __future__ import annotations

import numpy as np
import pytest

from relulab.model import one_hot_similarity, soft_targets
from relulab.model.lessons.questions import DoubleDescentSettings, QuestionsState, TargetsSettings
from relulab.ui.panels.questions.jobs import number
from tests.ui.questions_pages import settle_questions

FAST = QuestionsState(page="targets", targets=TargetsSettings(seeds=3),
                      double_descent=DoubleDescentSettings(n=50, seeds=3))


def settle(panel) -> None:
    settle_questions(panel)


@pytest.fixture
def panel(questions_panel):
    return questions_panel(FAST)


def test_the_targets_settings_round_trip_and_refuse_what_is_wrong():
    s = QuestionsState(page="targets", targets=TargetsSettings(seeds=10))
    assert QuestionsState.from_dict(s.to_dict()) == s
    with pytest.raises(ValueError, match=r"targets\.seeds"):
        QuestionsState.from_dict({"targets": {"seeds": 1}})


def test_seed_by_seed_equals_the_model_s_run_of_all_seeds(panel):
    """The job runs one seed at a time (progress, stopping); each seed's numbers do not
    depend on the seeds run with it."""
    run = panel.result()
    sim, st = one_hot_similarity(3), soft_targets(3, n_per_class=2)
    np.testing.assert_array_equal(run.lookalike, sim.lookalike)
    np.testing.assert_array_equal(run.others, sim.others)
    np.testing.assert_array_equal(run.one_hot, st.one_hot)
    np.testing.assert_array_equal(run.soft, st.soft)


def test_the_verdict_states_the_run_s_own_numbers(panel):
    run = panel.result()
    gain = run.soft - run.one_hot
    verdict = panel.views["targets"].verdict.shown_text
    assert (f"gives a point of class 1 a probability {number(np.median(run.lookalike))} of "
            f"its look-alike class 2 against {number(np.median(run.others))} of each far "
            "class (medians of 3 seeds)") in verdict
    assert (gain > 0).all() and np.median(run.lookalike) > 50 * np.median(run.others)
    assert (f"scores higher with them in all 3 seeds (median {100 * np.median(gain):+.1f} "
            "points)") in verdict
    assert panel.readouts()["targets_verdict"] == "soft targets help"
    for words in ("smoothing improve", "hierarchy-aware labels help", "better than one-hot"):
        assert words not in verdict
    np.testing.assert_array_equal(panel.figures["targets"].soft.getData()[1], run.soft)


def test_seeds_run_on_the_worker_and_export(panel, qtbot):
    panel.page_controls["targets"].seeds.setValue(4)
    assert panel.result() is None and panel.progress.isVisibleTo(panel)
    with qtbot.waitSignal(panel.finished, timeout=60_000):
        pass
    assert len(panel.result().soft) == 4
    panel.undo_stack.undo()
    settle(panel)
    assert panel.state.targets.seeds == 3 and len(panel.result().soft) == 3
    assert list(panel.plots()) == ["main", "students"]
    assert len(panel.data_tables()["targets"][1]) == 3
    quote = panel.views["targets"].quote.shown_text
    assert "when some classes are more similar than others?" in quote
