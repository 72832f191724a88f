"""The Playground panel, in files by what they show: ``controls`` (the left column),
``data_map`` (the plane: the network's picture, the regions, the points),
``diagram`` (the network), ``curves`` (loss and accuracy), ``depth_study`` (regions
against depth), ``readouts`` (the strip under the map) and ``panel`` (the state and
the wiring between them). ``python -m relulab.ui.panels.playground`` runs it alone."""

from relulab.ui.panels.playground.panel import PlaygroundPanel

__all__ = ["PlaygroundPanel"]
