"""The Hinges panel, in files by what they show: ``controls`` (the column on the
right, and the keys on the plot), ``readouts`` (the errors above the plot), ``plots``
(the target and the sum of hinges, the residual, the convergence study),
``drags`` (a handle's drag, start to finish), ``jobs`` (what the worker runs,
without Qt) and ``panel`` (the state and the wiring
between them). ``python -m relulab.ui.panels.hinges`` runs it alone.

The panel class is imported on first use (PEP 562), so that the registry's
``relulab.ui.panels.hinges`` still names it while importing the package imports no Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relulab.ui.panels.hinges.panel import HingesPanel

__all__ = ["HingesPanel"]


def __getattr__(name: str):
    if name == "HingesPanel":
        from relulab.ui.panels.hinges.panel import HingesPanel

        return HingesPanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
