"""The Folding panel, in files by what they do: ``panel`` (the state and the wiring),
``controls`` (the left column and the readouts above the plots), ``plots`` (the tent,
your fold, the small plots of the layers and the pieces-against-neurons chart) and
``jobs`` (what the workers compute: numpy and the model, no Qt).
``python -m relulab.ui.panels.folding`` runs it alone.

``FoldingPanel`` is imported on first use, so that ``relulab.ui.panels.folding.jobs``
can be imported (by benchmarks and tests) without Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relulab.ui.panels.folding.panel import FoldingPanel

__all__ = ["FoldingPanel"]


def __getattr__(name: str):
    if name == "FoldingPanel":
        from relulab.ui.panels.folding.panel import FoldingPanel

        return FoldingPanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
