"""Experiments exported as code: a panel's state (a scene's panel dict) turned into a
self-contained Python script (numpy only, no relulab import) that rebuilds the data,
the network and the training and prints the panel's readouts, or into a Jupyter
notebook of the same code with the panel's guide as its text.

Qt-free; ``relulab export-code`` and File ▸ Export use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from relulab.io.codegen import (
    converter,
    folding,
    hinges,
    notebook,
    playground,
    questions,
    torch_version,
    training,
)
from relulab.io.codegen.sources import Section, script
from relulab.model.lessons.converter import ConverterState
from relulab.model.lessons.folding import FoldingState
from relulab.model.lessons.hinges import HingesState
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.lessons.questions import QuestionsState
from relulab.model.lessons.training import TrainingState


class CodeExportError(ValueError):
    """A panel or state that cannot be exported, in one line."""


def _playground(d: Any) -> tuple[str, list[Section]]:
    state = PlaygroundState.from_dict(d)
    return playground.header(state), playground.sections(state)


def _training(d: Any) -> tuple[str, list[Section]]:
    state = TrainingState.from_dict(d)
    return training.header(state), training.sections(state)


def _folding(d: Any) -> tuple[str, list[Section]]:
    state = FoldingState.from_dict(d)
    return folding.header(state), folding.sections(state)


def _hinges(d: Any) -> tuple[str, list[Section]]:
    state = HingesState.from_dict(d)
    return hinges.header(state), hinges.sections(state)


def _converter(d: Any) -> tuple[str, list[Section]]:
    state = ConverterState.from_dict(d)
    return converter.header(state), converter.sections(state)


def _questions(d: Any) -> tuple[str, list[Section]]:
    state = QuestionsState.from_dict(d)
    return questions.header(state), questions.sections(state)


def _playground_torch(d: Any) -> tuple[str, list[Section]]:
    state = PlaygroundState.from_dict(d)
    return (playground.header(state) + "\nThis version trains with PyTorch (pip install torch).",
            torch_version.playground_sections(state))


def _training_torch(d: Any) -> tuple[str, list[Section]]:
    state = TrainingState.from_dict(d)
    return (training.header(state) + "\nThis version trains with PyTorch (pip install torch).",
            torch_version.training_sections(state))


#: panel name -> its state dict to (header, sections) of the PyTorch version
TORCH_EXPORTERS: dict[str, Callable[[Any], tuple[str, list[Section]]]] = {
    "playground": _playground_torch,
    "training": _training_torch,
}

#: panel name -> its state dict to (header, sections)
EXPORTERS: dict[str, Callable[[Any], tuple[str, list[Section]]]] = {
    "playground": _playground,
    "training": _training,
    "folding": _folding,
    "hinges": _hinges,
    "converter": _converter,
    "questions": _questions,
}


def sections_for(panel: str, state: Any, torch: bool = False) -> tuple[str, list[Section]]:
    """The header and sections of ``panel``'s experiment in the state dict ``state``
    (with ``torch``, its PyTorch version)."""
    if panel not in EXPORTERS:
        raise CodeExportError(f"the {panel} panel cannot be exported as code yet "
                              f"(these can: {', '.join(EXPORTERS)})")
    if torch and panel not in TORCH_EXPORTERS:
        raise CodeExportError("a PyTorch version is made for the Playground and the Training "
                              "panel only")
    try:
        return (TORCH_EXPORTERS if torch else EXPORTERS)[panel](state)
    except ValueError as e:
        raise CodeExportError(f"panels.{panel}: {e}") from None


def script_for(panel: str, state: Any, torch: bool = False) -> str:
    """A self-contained numpy script of ``panel``'s experiment (``torch``: trained with
    PyTorch instead)."""
    return script(*sections_for(panel, state, torch))


def notebook_for(panel: str, state: Any, torch: bool = False) -> str:
    """A Jupyter notebook (JSON text) of ``panel``'s experiment: the script's code in
    cells, with the panel's guide as its text."""
    return notebook.notebook(panel, *sections_for(panel, state, torch))


def code_for(panel: str, state: Any, suffix: str, torch: bool = False) -> str:
    """The script (``.py``) or notebook (``.ipynb``) text of ``panel``'s experiment."""
    if suffix == ".ipynb":
        return notebook_for(panel, state, torch)
    if suffix == ".py":
        return script_for(panel, state, torch)
    raise CodeExportError(f"the output must end in .py or .ipynb, not {suffix or 'nothing'!r}")
