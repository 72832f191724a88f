"""An exported experiment as a Jupyter notebook (nbformat 4): the panel's guide as
the first markdown cell, then each section's text and its code cell, in the script's
order. Written as plain JSON; the tests validate it with nbformat."""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib.resources import files

from relulab.io.codegen.sources import Section


def guide_text(panel: str) -> str:
    """The panel's guide (``relulab/resources/guides/<panel>.md``), or "" without one."""
    path = files("relulab.resources") / "guides" / f"{panel}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _lines(text: str) -> list[str]:
    """Text as nbformat's list of lines, each but the last ending in a newline."""
    lines = text.splitlines(keepends=True)
    if lines and lines[-1].endswith("\n"):
        lines[-1] = lines[-1][:-1]
    return lines


def _markdown(i: int, text: str) -> dict:
    return {"cell_type": "markdown", "id": f"text-{i}", "metadata": {}, "source": _lines(text)}


def _code(i: int, code: str) -> dict:
    return {"cell_type": "code", "id": f"code-{i}", "metadata": {}, "execution_count": None,
            "outputs": [], "source": _lines(code.strip())}


def notebook(panel: str, header: str, sections: Iterable[Section]) -> str:
    """The notebook's JSON text."""
    cells = [_markdown(0, header.strip())]
    guide = guide_text(panel)
    if guide:
        cells.append(_markdown(1, guide.strip()))
    for i, s in enumerate(sections, start=2):
        if s.text:
            cells.append(_markdown(i, f"### {s.title}\n\n{s.text}"))
        cells.append(_code(i, s.code))
    nb = {"cells": cells, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
