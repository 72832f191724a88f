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


def test_the_column_is_as_wide_as_the_page_shown_needs(qtbot, theme):
    """Seen at 1280 × 720, zoom 1.6: every page's column was 400 px, a page with one
    Seeds box too, taken from the plots. The column is the page's own need, at least
    WIDTH; nothing in it is cut (its content fits), at zoom 1 and 1.6."""
    from PySide6.QtWidgets import QApplication

    from relulab.model.lessons.questions import PAGES
    from relulab.ui.panels.questions import QuestionsPanel

    panel = QuestionsPanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    try:
        column = panel.controls.widget
        for zoom in (1.0, 1.6):
            theme.set_zoom(zoom)
            widths = {}
            for page in PAGES:
                panel.show_page(page)
                for _ in range(3):
                    QApplication.processEvents()
                shown = panel.controls.stack.currentWidget()
                assert shown.minimumSizeHint().width() <= column.viewport().width(), (zoom, page)
                widths[page] = column.width()
            assert min(widths.values()) == QuestionsControls.WIDTH, (zoom, widths)
            if zoom > 1:  # a Seeds box alone needs less than the double-descent controls
                assert widths["tickets"] < widths["double-descent"] < 400, widths
    finally:
        panel.shutdown()
