"""What the Questions page tests share: a panel brought to a state with its run done."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication


def settle_questions(panel, seconds: float = 120) -> None:
    """Wait for the panel's runs, then for what they draw."""
    assert panel.wait_until_idle(seconds)
    QApplication.processEvents()


def questions_panel_in(shown_panel, state, seconds: float = 120):
    """The Questions panel alone, showing ``state`` with its run done. The default
    sweep, started on creation, is superseded first by ``state``'s own sizes on the
    double-descent page, so that no test waits for the full sweep."""
    from relulab.ui.panels.questions import QuestionsPanel

    panel = shown_panel(QuestionsPanel)
    panel.load_state({**state.to_dict(), "page": "double-descent"})
    panel.load_state(state.to_dict())
    settle_questions(panel, seconds)
    return panel
