"""The optimisers the trainers know: one table of names and the labels the panels show.

Each trainer says which of them it supports, in the order its controls list them
(:data:`relulab.model.fitting.classify.OPTIMIZERS`,
:data:`relulab.model.fitting.training.OPTIMIZERS`).
"""

from __future__ import annotations

#: every optimiser's name (what scene files store) -> its label
LABELS: dict[str, str] = {
    "adam": "Adam",
    "gd": "gradient descent",
    "momentum": "momentum",
}


def supported(*names: str) -> dict[str, str]:
    """name -> label for each of ``names``, in that order (KeyError for a name the table
    does not know)."""
    return {name: LABELS[name] for name in names}
