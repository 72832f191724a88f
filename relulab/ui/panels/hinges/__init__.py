"""The Hinges panel, in files by what they do: ``panel`` (the state and the wiring
between it and the view). ``python -m relulab.ui.panels.hinges`` runs it alone.

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
