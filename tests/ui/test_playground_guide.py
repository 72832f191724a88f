"""The Playground's guide: plain text a learner reads as written (no LaTeX source in
any guide), and every number it quotes about the app's own results computed again
from the model for the setting it names."""

import re
from importlib.resources import files

import pytest

import relulab

GUIDES = sorted(p.name for p in (files(relulab) / "resources" / "guides").iterdir()
                if p.name.endswith(".md"))
#: What LaTeX source looks like where a Markdown viewer shows it raw: sub- and
#: superscript braces, commands, dollar-delimited maths, a letter's underscore subscript.
LATEX = (r"_\{", r"\^\{", r"\\[A-Za-z]+", r"\$", r"[A-Za-z0-9]_[A-Za-z0-9]")


def _guide(name: str) -> str:
    return (files(relulab) / "resources" / "guides" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", GUIDES)
def test_no_guide_shows_latex_source(name):
    text = _guide(name)
    found = [m.group(0) for pattern in LATEX for m in re.finditer(pattern, text)]
    assert not found, f"{name}: {found}"
