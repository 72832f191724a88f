"""The Playground panel, in files by what they show or do:

- ``panel``: the panel class, built from the parts below and wired to its state;
- ``edits``: the undoable edits of the state (the data, the points, the network);
- ``training``: Play, Pause and Step on the shared training driver, the live settings;
- ``controls``: the left column;
- ``data_map``: the plane (the network's picture, the regions, the points) and its key;
- ``picture``: when the map's picture is made (at once, or paced on a worker);
- ``overlay``: the exact linear regions and decision boundary on the map, and their counts;
- ``diagram``: the network; ``hidden_view``: the points as a hidden layer sees them;
- ``curves``: loss and accuracy; ``depth_study``: regions against depth;
- ``readouts``: the strip beside the map;
- ``jobs``: what the workers compute (numpy and the model, no Qt).

``python -m relulab.ui.panels.playground`` runs it alone. ``PlaygroundPanel`` is
imported on first use (PEP 562), so that the registry's ``relulab.ui.panels.playground``
still names it while ``relulab.ui.panels.playground.jobs`` can be imported (by
benchmarks and tests) without Qt.
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
