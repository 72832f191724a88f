"""The panels of the main window, registered in one list, and created on first use.

Adding a panel means writing its module (a ``Panel`` subclass) and one line here.
This module imports no Qt (the command line reads the panel names before Qt starts).
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PanelSpec:
    name: str
    title: str
    module: str
    class_name: str
    summary: str
    #: "module:Class" of the panel's state class (its ``state_class``, a test checks):
    #: a panel starts in ``Class()``, known without importing the panel's module.
    #: None for a panel without one: the window must create it to know its state.
    state: str | None = None

    def load(self):
        """The panel class (its module is imported now, not at start-up)."""
        return getattr(importlib.import_module(self.module), self.class_name)

    def state_class(self):
        """The panel's state class, or None (imports only the model module)."""
        if self.state is None:
            return None
        module, name = self.state.split(":")
        return getattr(importlib.import_module(module), name)


PANELS: list[PanelSpec] = [
    PanelSpec("hinges", "Hinges", "relulab.ui.panels.hinges", "HingesPanel",
              "drag hinged rulers and watch least squares refit; interpolation and its error bound.",
              "relulab.model.lessons.hinges:HingesState"),
    PanelSpec("training", "Training", "relulab.ui.panels.training", "TrainingPanel",
              "Adam trains a one-hidden-layer network from many random starts, "
              "against the least-squares optimum.",
              "relulab.model.lessons.training:TrainingState"),
    PanelSpec("folding", "Folding", "relulab.ui.panels.folding", "FoldingPanel",
              "the tent map composed layer by layer doubles the pieces each time; certified counts.",
              "relulab.model.lessons.folding:FoldingState"),
    PanelSpec("converter", "Deep → shallow", "relulab.ui.panels.converter", "ConverterPanel",
              "any deep ReLU network turned into an exactly equal shallow one, verified.",
              "relulab.model.lessons.converter:ConverterState"),
    PanelSpec("playground", "Playground", "relulab.ui.panels.playground", "PlaygroundPanel",
              "2-D classification, activations, linear collapse and exact linear regions.",
              "relulab.model.lessons.playground:PlaygroundState"),
    PanelSpec("questions", "Questions", "relulab.ui.panels.questions", "QuestionsPanel",
              "the blog's open questions run live: double descent, over-parametrisation, "
              "infinite width.",
              "relulab.model.lessons.questions:QuestionsState"),
]
PANEL_NAMES = [p.name for p in PANELS]


def spec(name: str) -> PanelSpec:
    for p in PANELS:
        if p.name == name:
            return p
    raise KeyError(f"unknown panel {name!r} (known: {', '.join(PANEL_NAMES)})")


class PanelMap(Mapping):
    """A window's panels by name; a panel is created the first time it is asked for.

    ``panels[name]`` creates the panel (with ``create(spec)``) if needed. Scenes and
    the unsaved-changes check ask for states, not panels: a panel not created yet is
    in its initial state, so :meth:`state_dict` answers from its state class and
    :meth:`load_state` of that same state needs no panel. A panel without a state
    class in the registry (``PanelSpec.state``) is created to be asked.
    """

    def __init__(self, create: Callable[[PanelSpec], Any]):
        self._create = create
        self._panels: dict[str, Any] = {}
        self._initial: dict[str, dict | None] = {}

    def __getitem__(self, name: str):
        panel = self._panels.get(name)
        if panel is None:
            if name not in PANEL_NAMES:
                raise KeyError(name)
            panel = self._panels[name] = self._create(spec(name))
        return panel

    def __iter__(self) -> Iterator[str]:
        return iter(PANEL_NAMES)

    def __len__(self) -> int:
        return len(PANEL_NAMES)

    def __contains__(self, name) -> bool:
        return name in PANEL_NAMES

    def created(self) -> dict[str, Any]:
        """The panels created so far, in tab order (nothing is created)."""
        return {n: self._panels[n] for n in PANEL_NAMES if n in self._panels}

    def initial_state_dict(self, name: str) -> dict | None:
        """What a panel just created shows (its state class's default), or None."""
        if name not in self._initial:
            state_class = spec(name).state_class()
            self._initial[name] = None if state_class is None else state_class().to_dict()
        initial = self._initial[name]
        return None if initial is None else copy.deepcopy(initial)

    def state_dict(self, name: str) -> dict:
        """The panel's ``state_dict()``, without creating it when it has not been."""
        if name not in self._panels:
            initial = self.initial_state_dict(name)
            if initial is not None:
                return initial
        return self[name].state_dict()

    def load_state(self, name: str, state: dict) -> None:
        """The panel's ``load_state(state)``; a panel not created yet that would only
        get its initial state back stays uncreated."""
        if name not in self._panels and state == self.initial_state_dict(name):
            return
        self[name].load_state(state)
