"""The registry of the Questions panel's pages that are built from one module each
(``page_<name>.py``): what the panel needs of a page, so that adding one touches its
own module, its settings in relulab.model.lessons.questions and this list only.

A page's ``controls()`` is a widget with ``show_state(settings)`` and an ``edited``
signal carrying a dict of changed fields; its ``figure(theme)`` has ``plots`` (name →
plot, for export), ``key``, ``draw(run, numbers)``, ``clear()`` and ``apply_theme()``;
a figure of several plots gives ``stages(run, numbers)`` instead of ``draw``, a callable
a plot, which the panel runs a pass of the event loop each (plots._Figure).
``run(settings, should_stop)`` is the job (a generator of progress, :mod:`.jobs`);
``numbers(run)`` the numbers it states, with the short answer under "verdict";
``verdict`` and ``details`` its sentences; ``table`` its data for export. A figure
that shows something of the settings without the job (the simplex page's logit
vector) has ``show_settings(settings)``, called when they change, and may
add ``tables()`` of what it draws to the export.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Page:
    name: str                  # one of relulab.model.lessons.questions.PAGES
    title: str                 # the tab's text
    short: str                 # object names: questions-<short>-…
    field: str                 # the QuestionsState field holding its settings
    question: str              # the source's words, quoted exactly
    source: str
    work: str                  # what its experiment is called in the progress
    run: Callable[..., Any]
    numbers: Callable[[Any], dict]
    verdict: Callable[[Any], str]
    details: Callable[[Any], str]
    table: Callable[[Any], dict]
    figure: Callable[[Any], Any]
    controls: Callable[[], Any]
    #: The part of the settings the job depends on (what only changes the view, left
    #: at its default, reuses the result): all of them unless told.
    experiment: Callable[[Any], Any] | None = None


def registered() -> dict[str, Page]:
    """The pages built from their own modules, by name, in the order of PAGES."""
    from relulab.ui.panels.questions import (
        page_gelu,
        page_parity,
        page_simplex,
        page_targets,
        page_tickets,
        page_why_deep,
    )

    return {p.name: p for p in (page_parity.PAGE, page_simplex.PAGE, page_why_deep.PAGE,
                                page_gelu.PAGE, page_targets.PAGE, page_tickets.PAGE)}
