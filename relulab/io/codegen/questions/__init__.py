"""The Questions panel's experiment as a script: the shown page's experiment rerun with
the page's settings, and the numbers the page's verdict states, printed as the panel's
``readouts()`` names them (``dd_*``, ``over_*``, ``lazy_*`` of part 1; ``parity_*``,
``simplex_*``, ``deep_*``, ``gelu_*``, ``targets_*``, ``tickets_*`` of part 2).

The model's modules are pure numpy: their source is copied whole (less their docstring
and their relulab imports, which the script defines itself), and so are the functions
that read the page's numbers off the results (:mod:`.common`), so the script and the
app agree bit for bit. Part 1's pages are :mod:`.part1`, part 2's :mod:`.part2`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from relulab.io.codegen.questions import part1, part2
from relulab.io.codegen.questions.common import (
    imports,
    jobs_source,
    jobs_value,
    module_code,
    top_level_functions,
)
from relulab.io.codegen.sources import Section
from relulab.model.lessons.questions import QuestionsState

__all__ = ["header", "imports", "jobs_source", "jobs_value", "module_code", "sections"]

#: page -> (its settings in the state, its sections, what the header says it is)
_PAGES: dict[str, tuple[str, Callable, str]] = {**part1.PAGES, **part2.PAGES}


def _page(state: QuestionsState) -> tuple[str, Callable, str]:
    if state.page not in _PAGES:
        raise ValueError(f"the {state.page} page cannot be exported as code yet "
                         f"(these can: {', '.join(_PAGES)})")
    return _PAGES[state.page]


def _defined_once(body: list[Section]) -> None:
    """A function or class the script defines twice would replace the first for the
    code copied before it (a model module's helper by a page's of the same name)."""
    seen: set[str] = set()
    for s in body:
        for name in top_level_functions(s.code):
            if name in seen:
                raise ValueError(f"the script would define {name} twice")
            seen.add(name)


def sections(state: QuestionsState) -> list[Section]:
    attr, make, _ = _page(state)
    body = make(getattr(state, attr))
    _defined_once(body)
    return [Section("Imports", "", imports("\n".join(s.code for s in body))), *body]


def header(state: QuestionsState) -> str:
    _, _, what = _page(state)
    return textwrap.fill(
        f"The ReLU Lab Questions panel's experiment, exported: the {state.page} page, {what}, "
        "rerun with numpy alone, and the numbers its verdict states (the same as the app's "
        "for the same seeds).", 84)
