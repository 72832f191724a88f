"""The model's own functions as source text, for the exported scripts.

An exported script must compute what the app computes, bit for bit: where a model
function is pure numpy its source is copied with :func:`inspect.getsource` (so the
script and the app cannot drift apart); numbers are written with ``repr``, which
reads back as the same float.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Section:
    """One step of an exported experiment: a title, a paragraph for people (the
    notebook's markdown cell, the script's comment) and the code."""

    title: str
    text: str
    code: str


def source(*functions: Any) -> str:
    """The source of ``functions``, dedented, separated by blank lines."""
    return "\n\n\n".join(textwrap.dedent(inspect.getsource(f)).rstrip() for f in functions)


def constants(**values: Any) -> str:
    """``NAME = repr(value)`` lines."""
    return "\n".join(f"{name} = {value!r}" for name, value in values.items())


def literal(a: Any) -> str:
    """A numpy array as ``np.array(...)`` text that reads back equal (floats via repr)."""
    arr = np.asarray(a)
    if arr.dtype == bool:
        return f"np.array({arr.tolist()!r}, dtype=bool)"
    return f"np.array({_floats(arr.astype(float).tolist())}, dtype=float).reshape{arr.shape!r}"


def _floats(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_floats(e) for e in v) + "]"
    return repr(float(v))


def comment(text: str, width: int = 88) -> str:
    """``text`` as ``#`` comment lines."""
    lines: list[str] = []
    for para in text.strip().split("\n\n"):
        lines += ["# " + line for line in textwrap.wrap(" ".join(para.split()), width - 2)]
        lines.append("#")
    return "\n".join(lines[:-1])


def script(header: str, sections: Iterable[Section]) -> str:
    """A whole script: a docstring, then each section under its title."""
    parts = [f'"""{header.strip()}\n"""\n']
    for s in sections:
        parts.append(f"# -- {s.title} " + "-" * max(3, 80 - len(s.title)) + "\n"
                     + (comment(s.text) + "\n" if s.text else "") + s.code.strip() + "\n")
    return "\n\n".join(parts)
