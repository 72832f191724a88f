"""The Playground panel, in files by what they show: ``controls`` (the left column),
``data_map`` (the plane: the network's picture, the regions, the points),
``diagram`` (the network), ``curves`` (loss and accuracy), ``depth_study`` (regions
against depth), ``readouts`` (the strip under the map), ``jobs`` (what the workers
compute: numpy and the model, no Qt) and ``panel`` (the state and the wiring between
them). ``python -m relulab.ui.panels.playground`` runs it alone.

``PlaygroundPanel`` is imported on first use (PEP 562), so that the registry's
``relulab.ui.panels.playground`` still names it while ``relulab.ui.panels.playground.jobs``
can be imported (by benchmarks and tests) without Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relulab.ui.panels.playground.panel import PlaygroundPanel

__all__ = ["PlaygroundPanel"]


def __getattr__(name: str):
    if name == "PlaygroundPanel":
        from relulab.ui.panels.playground.panel import PlaygroundPanel

        return PlaygroundPanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
