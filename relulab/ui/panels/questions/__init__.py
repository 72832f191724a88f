"""The Questions panel, in files by what they do: ``panel`` (the state and the wiring),
``controls`` (each page's column of controls, and what a page shows above its plots),
``plots`` (each page's two plots) and ``jobs`` (what the worker runs and the words the
pages say about it: numpy and the model, no Qt).
``python -m relulab.ui.panels.questions`` runs it alone.

``QuestionsPanel`` is imported on first use, so that ``relulab.ui.panels.questions.jobs``
can be imported (by benchmarks and tests) without Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relulab.ui.panels.questions.panel import QuestionsPanel

__all__ = ["QuestionsPanel"]


def __getattr__(name: str):
    if name == "QuestionsPanel":
        from relulab.ui.panels.questions.panel import QuestionsPanel

        return QuestionsPanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
