"""The Deep → shallow panel (key ``converter``): a deep ReLU network and the shallow one
that computes exactly the same function. The mathematics is in
:mod:`relulab.model.shallow`; the panel's state is
:class:`relulab.model.lessons.converter.ConverterState`.

The panel is titled "Deep → shallow"; ``converter`` is its key in scenes, settings and
``window.panel("converter")``. Its files:

- ``panel``: the panel class, the state and the wiring between the parts below;
- ``sources``: where the deep network comes from (random, sent, tent map, file, example);
- ``slicing``: the slice of a network with many inputs, and its points file;
- ``controls``: the left column and the slice bar;
- ``plots``: the main and the difference plot, the region map, the details column;
- ``slices``: the pictures of a slice on the main plot;
- ``words``: what the panel says (verdict, sizes, explanation, tables), without Qt;
- ``jobs``: what the workers compute (numpy, the model and the file formats, no Qt).

``python -m relulab.ui.panels.converter`` runs it alone. ``ConverterPanel`` is imported
on first use (PEP 562), so that the registry's ``relulab.ui.panels.converter`` still
names it while ``relulab.ui.panels.converter.jobs`` can be imported (by benchmarks and
tests) without Qt.
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
