"""Experiments exported as code: a panel's state (a scene's panel dict) turned into a
self-contained Python script (numpy only, no relulab import) that rebuilds the data,
the network and the training and prints the panel's readouts, or into a Jupyter
notebook of the same code with the panel's guide as its text.

Qt-free; ``relulab export-code`` and File ▸ Export use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from relulab.io.codegen import notebook, playground, training
from relulab.io.codegen.sources import Section, script
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.lessons.training import TrainingState


class CodeExportError(ValueError):
    """A panel or state that cannot be exported, in one line."""


def _playground(d: Any) -> tuple[str, list[Section]]:
    state = PlaygroundState.from_dict(d)
    return playground.header(state), playground.sections(state)


def _training(d: Any) -> tuple[str, list[Section]]:
    state = TrainingState.from_dict(d)
    return training.header(state), training.sections(state)


#: panel name -> its state dict to (header, sections)
EXPORTERS: dict[str, Callable[[Any], tuple[str, list[Section]]]] = {
    "playground": _playground,
    "training": _training,
}


def sections_for(panel: str, state: Any) -> tuple[str, list[Section]]:
    """The header and sections of ``panel``'s experiment in the state dict ``state``."""
    if panel not in EXPORTERS:
        raise CodeExportError(f"the {panel} panel cannot be exported as code yet "
                              f"(these can: {', '.join(EXPORTERS)})")
    try:
        return EXPORTERS[panel](state)
    except ValueError as e:
        raise CodeExportError(f"panels.{panel}: {e}") from None


def script_for(panel: str, state: Any) -> str:
    """A self-contained numpy script of ``panel``'s experiment."""
    return script(*sections_for(panel, state))


def notebook_for(panel: str, state: Any) -> str:
    """A Jupyter notebook (JSON text) of ``panel``'s experiment: the script's code in
    cells, with the panel's guide as its text."""
    return notebook.notebook(panel, *sections_for(panel, state))


def code_for(panel: str, state: Any, suffix: str, torch: bool = False) -> str:
    """The script (``.py``) or notebook (``.ipynb``) text of ``panel``'s experiment."""
    if torch:
        raise CodeExportError("a PyTorch version is made for the Playground and the Training "
                              "panel only")
    if suffix == ".ipynb":
        return notebook_for(panel, state)
    if suffix == ".py":
        return script_for(panel, state)
    raise CodeExportError(f"the output must end in .py or .ipynb, not {suffix or 'nothing'!r}")
