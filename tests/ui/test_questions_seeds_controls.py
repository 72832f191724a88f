"""The Questions pages whose only setting is the seeds share one control: a "Seeds"
spin box named after the page, which says what changed and shows a state."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QSpinBox

from relulab.model.lessons.questions import SEEDS_RANGE, TargetsSettings, TicketsSettings
from relulab.ui.panels.questions.controls import QuestionsControls, SeedsControls
from relulab.ui.panels.questions.pages import registered


@pytest.mark.parametrize(("page", "short", "settings"), [
    ("targets", "targets", TargetsSettings(seeds=7)), ("tickets", "tickets", TicketsSettings(seeds=4))])
def test_the_targets_and_tickets_pages_use_the_one_seeds_control(qtbot, page, short, settings):
    controls = registered()[page].controls()
    qtbot.addWidget(controls)
    assert type(controls) is SeedsControls
    spin = controls.findChild(QSpinBox, f"questions-{short}-seeds")
    assert spin is controls.seeds and (spin.minimum(), spin.maximum()) == SEEDS_RANGE
    assert [w.text() for w in controls.findChildren(QLabel)] == ["Seeds"]
    controls.show_state(settings)
    assert spin.value() == settings.seeds
    with qtbot.waitSignal(controls.edited) as edited:
        spin.setValue(settings.seeds + 1)
    assert edited.args == [{"seeds": settings.seeds + 1}]


def test_showing_a_state_says_nothing_and_the_lazy_page_shares_the_control(qtbot):
    controls = QuestionsControls()
    qtbot.addWidget(controls.widget)
    assert type(controls.lazy) is SeedsControls
    assert controls.lazy.seeds.objectName() == "questions-lazy-seeds"
    seen = []
    controls.lazy.edited.connect(seen.append)
    controls.lazy.show_state(TargetsSettings(seeds=6))
    assert controls.lazy.seeds.value() == 6 and seen == []
