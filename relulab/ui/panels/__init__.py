"""The panels of the main window, registered in one list.

Adding a panel means writing its module (a ``Panel`` subclass) and one line here.
A module that does not exist yet shows a one-line placeholder instead.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class PanelSpec:
    name: str
    title: str
    module: str
    class_name: str
    summary: str

    def load(self):
        """The panel class, or None while its module has not been written."""
        if importlib.util.find_spec(self.module) is None:
            return None
        return getattr(importlib.import_module(self.module), self.class_name)


PANELS: list[PanelSpec] = [
    PanelSpec("hinges", "Hinges", "relulab.ui.panels.hinges", "HingesPanel",
              "drag hinged rulers and watch least squares refit; interpolation and its error bound."),
    PanelSpec("training", "Training", "relulab.ui.panels.training", "TrainingPanel",
              "Adam trains a one-hidden-layer network from many random starts, against the least-squares optimum."),
    PanelSpec("folding", "Folding", "relulab.ui.panels.folding", "FoldingPanel",
              "the tent map composed layer by layer doubles the pieces each time; certified counts."),
    PanelSpec("converter", "Deep → shallow", "relulab.ui.panels.converter", "ConverterPanel",
              "any deep ReLU network turned into an exactly equal shallow one, verified."),
    PanelSpec("playground", "Playground", "relulab.ui.panels.playground", "PlaygroundPanel",
              "2-D classification, activations, linear collapse and exact linear regions."),
]
PANEL_NAMES = [p.name for p in PANELS]


def spec(name: str) -> PanelSpec:
    for p in PANELS:
        if p.name == name:
            return p
    raise KeyError(f"unknown panel {name!r} (known: {', '.join(PANEL_NAMES)})")
