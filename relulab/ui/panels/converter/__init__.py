"""The Deep → shallow panel (key ``converter``): a deep ReLU network and the shallow one
that computes exactly the same function. The mathematics is in
:mod:`relulab.model.shallow`; the panel's state is
:class:`relulab.model.lessons.converter.ConverterState`.

Its files: ``panel`` (the state and the wiring between it and the views), ``slices``
(the slice of a network with many inputs: the bar that chooses it and its pictures).
``python -m relulab.ui.panels.converter`` runs the panel alone.

The panel class is imported on first use, so that importing ``jobs`` imports no Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relulab.ui.panels.converter.panel import ConverterPanel

__all__ = ["ConverterPanel"]


def __getattr__(name: str) -> Any:
    if name == "ConverterPanel":
        from relulab.ui.panels.converter.panel import ConverterPanel

        return ConverterPanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
