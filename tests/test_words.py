"""The app's own words in one number format, and no raw LaTeX.

Thousands are grouped with a comma (16,777,216; 20,000), as Python's ``f"{n:,}"``
writes them, never with a space, a no-break space or a thin space: a space inside a
number reads as two numbers once a line wraps there, and the app, its guides, its
lecture and its documentation should say a number one way.

Formulas are written in Unicode (x², W₁, Σ, ≤), never in LaTeX (``_{…}``, ``^{…}``,
``\\frac``, ``$…$``): nothing here renders LaTeX, so a learner would read the markup.

Read: README.md, docs/*.md, the guides (relulab/resources/guides/*.md), the built-in
lecture's titles and captions (relulab/resources/lectures/*.json), and every string
literal of relulab/ (with ``ast``; docstrings are for developers and left out), where
a number's comma replaced by a space (``.replace(",", "\\u2009")``) counts too.

A finding in a file others are fixing (a guide, a caption, a panel's code) is a strict
xfail naming the file; it fails once the file is fixed, so that it is taken away.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: A digit, a space of any kind, three digits: "16 777 216", "20 000".
SPACE_GROUPED = re.compile(r"\d[ \u00a0\u2009\u202f]\d{3}\b")
#: LaTeX markup: sub- and superscript groups, fractions, inline maths ("$x^2$"; a "$"
#: followed by a space, as in "$ pip install", opens nothing, as in TeX and pandoc).
LATEX = re.compile(r"_\{|\^\{|\\frac|\$[^\s$](?:[^$\n]*[^\s$])?\$")
#: Spaces a thousands separator may have been turned into.
SPACES = (" ", "\u00a0", "\u2009", "\u202f")

def _problems(text: str) -> list[str]:
    found = [f"number grouped with a space: {m.group()!r}" for m in SPACE_GROUPED.finditer(text)]
    found += [f"LaTeX: {m.group()!r}" for m in LATEX.finditer(text)]
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
            and isinstance(node.body[0].value.value, str)}


def _comma_to_space(node: ast.AST) -> bool:
    """``….replace(",", <a space>)``: a number's separator turned into a space."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "replace" and len(node.args) == 2
            and all(isinstance(a, ast.Constant) for a in node.args)
            and node.args[0].value == "," and node.args[1].value in SPACES)


#: Spellings of older files, read and turned into today's (never shown): the keys of
#: ``relulab.model.fitting.training.OLD_SPEED_LABELS``.
OLDER_FILES = {"1 000 steps/s", "10 000 steps/s"}


def python_problems(source: str) -> list[str]:
    """What the string literals of a Python file (docstrings and the spellings of older
    files aside) break."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                and node.value not in OLDER_FILES):
            found += [f"line {node.lineno}: {p}" for p in _problems(node.value)]
        elif _comma_to_space(node):
            found.append(f"line {node.lineno}: a comma replaced by a space")
    return found


def lecture_problems(document) -> list[str]:
    """What the titles and captions of a scene or playlist file break."""
    found = []

    def walk(value, where: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("title", "caption") and isinstance(item, str):
                    found.extend(f"{where}{key}: {p}" for p in _problems(item))
                else:
                    walk(item, f"{where}{key}.")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{where}{i}.")

    walk(document, "")
    return found


def problems(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return python_problems(text)
    if path.suffix == ".json":
        return lecture_problems(json.loads(text))
    return [f"line {i}: {p}" for i, line in enumerate(text.splitlines(), 1)
            for p in _problems(line)]


def texts() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "relulab" / "resources" / "guides").glob("*.md")),
            *sorted((ROOT / "relulab" / "resources" / "lectures").glob("*.json")),
            *sorted((ROOT / "relulab").rglob("*.py"))]


def _params():
    return [pytest.param(path, id=path.relative_to(ROOT).as_posix()) for path in texts()]


def test_the_rules_see_what_they_are_for():
    assert _problems("16,777,216 pieces; 20,000 steps; 1366 × 768; 0.1022") == []
    assert len(_problems("16 777 216 and 20\u2009000 and 3\u202f000 and 4\u00a0000")) == 4
    assert _problems("z_{l,i}")[0].startswith("LaTeX") and _problems("2^{k}")
    assert _problems(r"\frac{1}{2}") and _problems("the map $x^2$ here")
    assert _problems("$ pip install relulab; cost $5 and $6") == []
    assert python_problems('x = f"{n:,}".replace(",", "\\u2009")\n')
    assert python_problems('"""A docstring: h_{l−1}, 1 000."""\nx = 1\n') == []
    assert lecture_problems({"scenes": [{"caption": "after 20 000 steps",
                                         "panels": {"speed": "1 000 steps/s"}}]})


def test_every_text_is_read():
    names = {p.relative_to(ROOT).as_posix() for p in texts()}
    assert {"README.md", "relulab/resources/guides/welcome.md",
            "relulab/resources/lectures/playlist.json", "relulab/ui/main_window.py"} <= names


@pytest.mark.parametrize("path", _params())
def test_one_number_format_and_no_latex(path):
    found = problems(path)
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(found)


def test_the_exact_walk_s_budget_in_the_docs_is_the_model_s():
    from relulab.model.pieces.piecewise import EXACT_KNOTS

    text = " ".join((ROOT / "docs" / "deep-to-shallow.md").read_text(encoding="utf-8").split())
    assert f"Past a budget of {EXACT_KNOTS:,} knots" in text


def test_the_older_spellings_are_only_read():
    """The exemption above holds only what the model turns into today's spelling."""
    from relulab.model.fitting.training import OLD_SPEED_LABELS, SPEEDS

    assert set(OLD_SPEED_LABELS) == OLDER_FILES
    assert set(OLD_SPEED_LABELS.values()) <= set(SPEEDS)
