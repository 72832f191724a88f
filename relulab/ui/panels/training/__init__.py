"""The Training panel, in files by what they do: ``controls`` (the left column and the
readouts), ``plots`` (the four plots and what draws on them), ``jobs`` (what runs off
the GUI thread, and what the plots show computed from a snapshot, without Qt) and
``panel`` (the state and the wiring between them). ``python -m
relulab.ui.panels.training`` runs it alone.

The panel class is imported on first use (PEP 562), so that ``import
relulab.ui.panels.training.jobs`` imports no Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relulab.ui.panels.training.panel import TrainingPanel

__all__ = ["TrainingPanel"]


def __getattr__(name: str) -> Any:
    if name == "TrainingPanel":
        from relulab.ui.panels.training.panel import TrainingPanel

        globals()[name] = TrainingPanel  # looked up once
        return TrainingPanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
