"""The Questions panel's lottery-ticket page: the pruning and retraining run in the
background with progress, and the page claims only what holds in every seed (the mask
matters), never that the rewound ticket wins."""

from __future__ import annotations

import numpy as np
import pytest

from relulab.model.lessons.questions import DoubleDescentSettings, QuestionsState, TicketsSettings
from relulab.ui.panels.questions.jobs.tickets import STEPS
from tests.ui.questions_pages import settle_questions

FAST = QuestionsState(page="tickets", tickets=TicketsSettings(seeds=3),
                      double_descent=DoubleDescentSettings(n=50, seeds=3))


def settle(panel) -> None:
    settle_questions(panel, 180)


@pytest.fixture
def panel(questions_panel):
    return questions_panel(FAST, 180)


def test_the_tickets_settings_round_trip_and_refuse_what_is_wrong():
    s = QuestionsState(page="tickets", tickets=TicketsSettings(seeds=10))
    assert QuestionsState.from_dict(s.to_dict()) == s
    with pytest.raises(ValueError, match=r"tickets\.seeds"):
        QuestionsState.from_dict({"tickets": {"seeds": 0}})


def test_the_verdict_claims_only_the_mask(panel):
    t = panel.result().tickets
    assert (t.width, t.keep, t.steps, t.seeds) == (128, 0.1, STEPS, (0, 1, 2))
    acc = np.asarray(t.accuracy)  # dense, ticket, random mask, re-initialised
    margin = acc[1] - acc[2]
    beats = int(np.sum(acc[1] > acc[3]))
    verdict = panel.views["tickets"].verdict.shown_text
    assert (margin > 0).all()
    assert verdict.startswith(
        "The mask matters: keeping the 10% largest weights of a trained net and retraining "
        f"from its start beats a random mask of the same size in all 3 seeds (by "
        f"{100 * margin.min():.1f} to {100 * margin.max():.1f} points).")
    assert (f"it beats a fresh initialisation of the same mask in {beats} of 3 seeds."
            in verdict)
    assert "not reliably a winning ticket" in verdict
    assert "winning ticket beats" not in verdict
    r = panel.readouts()
    assert r["tickets_verdict"] == "the mask matters" and r["tickets_ticket_beats_reinit"] == beats
    f = panel.figures["tickets"]
    np.testing.assert_array_equal(f.mask_margin.getData()[1], margin)
    np.testing.assert_array_equal(f.phases["ticket"].getData()[1], acc[1])


def test_more_seeds_run_in_the_background_and_export(panel, qtbot):
    seen = []
    panel._workers["tickets"].progress.connect(seen.append)
    panel.page_controls["tickets"].seeds.setValue(4)
    assert panel.result() is None and panel.progress.isVisibleTo(panel)
    assert panel.views["tickets"].verdict.shown_text == "Running the lottery tickets…"
    with qtbot.waitSignal(panel.finished, timeout=120_000):
        pass
    assert len(panel.result().tickets.seeds) == 4 and len(seen) > 4
    assert list(panel.plots()) == ["main", "margins"]
    cols, rows = panel.data_tables()["lottery tickets"]
    assert cols[0] == "seed" and len(rows) == 4
    quote = panel.views["tickets"].quote.shown_text
    assert "lottery ticket hypothesis" in quote and "Any Deep ReLU Network Is Shallow" in quote
