"""Checking the fields of a panel state read from a file, one field at a time.

Every panel's state object has ``from_dict(d)``: it validates everything before
anything changes and raises ``ValueError`` naming the field and the problem, and a
state it accepts can never make the panel raise later (values are finite, sizes are
within what the panel draws quickly). :class:`Fields` holds the rules they share::

    f = Fields(d, defaults=FoldingState().to_dict(), where="folding")
    depth = f.integer("depth", 1, MAX_DEPTH)
    peak = f.number("peak", 0.2, 0.8)
    f.done()                      # unknown fields are refused too

A missing field takes its default (older files stay readable).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

#: the type of a choice's options (names, or None for "off")
C = TypeVar("C")


class Fields:
    """Typed, range-checked access to the fields of one mapping read from a file."""

    def __init__(self, d: Any, defaults: dict | None = None, where: str = ""):
        if not isinstance(d, dict):
            raise ValueError(f"{where or 'state'}: expected an object, got {type(d).__name__}")
        self.d = d
        self.defaults = defaults or {}
        self.where = where
        self._read: set[str] = set()

    def name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def get(self, key: str) -> Any:
        self._read.add(key)
        if key in self.d:
            return self.d[key]
        if key in self.defaults:
            return self.defaults[key]
        raise ValueError(f"{self.name(key)}: missing")

    def done(self, also: Iterable[str] = ()) -> None:
        """Refuse fields nobody asked for (a typo or a newer file)."""
        unknown = set(self.d) - self._read - set(also)
        if unknown:
            raise ValueError(f"{self.where or 'state'}: unknown field(s) "
                             f"{', '.join(sorted(map(str, unknown)))}")

    # -- scalars ---------------------------------------------------------------
    def number(self, key: str, lo: float = -1e12, hi: float = 1e12) -> float:
        v = self.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{self.name(key)}: expected a number, got {_show(v)}")
        try:
            v = float(v)
        except OverflowError:
            raise ValueError(f"{self.name(key)}: {_show(v)} is too large") from None
        if not math.isfinite(v):
            raise ValueError(f"{self.name(key)}: expected a finite number, got {v}")
        if not lo <= v <= hi:
            raise ValueError(f"{self.name(key)}: {v:g} is outside [{lo:g}, {hi:g}]")
        return v

    def integer(self, key: str, lo: int, hi: int) -> int:
        v = self.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{self.name(key)}: expected a whole number, got {_show(v)}")
        if not lo <= v <= hi:
            raise ValueError(f"{self.name(key)}: {_show(v)} is outside {lo}…{hi}")
        return int(v)

    def optional_integer(self, key: str, lo: int, hi: int) -> int | None:
        """A whole number in lo…hi, or None (null in the file)."""
        if self.get(key) is None:
            return None
        return self.integer(key, lo, hi)

    def flag(self, key: str) -> bool:
        v = self.get(key)
        if not isinstance(v, bool):
            raise ValueError(f"{self.name(key)}: expected true or false, got {_show(v)}")
        return v

    def choice(self, key: str, options: Sequence[C]) -> C:
        v = self.get(key)
        if v not in options:
            raise ValueError(f"{self.name(key)}: expected one of {', '.join(map(str, options))}, "
                             f"got {_show(v)}")
        return v

    def text(self, key: str, max_length: int = 1000) -> str:
        v = self.get(key)
        if not isinstance(v, str):
            raise ValueError(f"{self.name(key)}: expected text, got {_show(v)}")
        if len(v) > max_length:
            raise ValueError(f"{self.name(key)}: longer than {max_length} characters")
        return v

    # -- sequences ---------------------------------------------------------------
    def numbers(self, key: str, max_count: int, count: int | None = None,
                lo: float = -1e12, hi: float = 1e12) -> tuple[float, ...]:
        """A list of finite numbers in [lo, hi], at most ``max_count`` of them."""
        v = self.get(key)
        if not isinstance(v, (list, tuple)):
            raise ValueError(f"{self.name(key)}: expected a list of numbers")
        if len(v) > max_count:
            raise ValueError(f"{self.name(key)}: at most {max_count} values, got {len(v)}")
        if count is not None and len(v) != count:
            raise ValueError(f"{self.name(key)}: expected {count} values, got {len(v)}")
        return tuple(_number(e, f"{self.name(key)}[{i}]", lo, hi) for i, e in enumerate(v))

    def array(self, key: str, shape: tuple[int | None, ...], max_size: int,
              lo: float = -1e12, hi: float = 1e12) -> np.ndarray:
        """A nested list of finite numbers as a float array of the given shape (None:
        any length on that axis), at most ``max_size`` numbers, checked before it is
        converted (a list of a million strings is refused at its first element)."""
        return finite_array(self.get(key), self.name(key), shape, max_size, lo, hi)


def finite_array(v: Any, name: str, shape: tuple[int | None, ...], max_size: int,
                 lo: float = -1e12, hi: float = 1e12) -> np.ndarray:
    """``v`` (nested lists or an array) as a float array of ``shape``, every entry a
    finite number in [lo, hi]; ValueError naming ``name`` otherwise."""
    a = v if isinstance(v, np.ndarray) else _nested_to_array(v, name, shape, max_size)
    if a.ndim != len(shape) or any(want is not None and got != want
                                   for got, want in zip(a.shape, shape)):
        want = "×".join("n" if s is None else str(s) for s in shape)
        raise ValueError(f"{name}: expected shape {want}, got {'×'.join(map(str, a.shape))}")
    if a.size > max_size:
        raise ValueError(f"{name}: at most {max_size:,} numbers, got {a.size:,}")
    if a.dtype.kind not in "iuf":
        raise ValueError(f"{name}: expected numbers")
    a = a.astype(float)
    bad = ~np.isfinite(a) | (a < lo) | (a > hi)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}{list(idx)}: {a[idx]:g} is not a finite number in [{lo:g}, {hi:g}]")
    return a


def _nested_to_array(v: Any, name: str, want: tuple[int | None, ...], max_size: int) -> np.ndarray:
    # Walk the nesting by hand first: np.asarray on hostile data (ragged lists, strings,
    # huge integers, objects) would raise bare errors or build object arrays.
    ndim = len(want)
    if ndim == 0:
        return np.asarray(_number(v, name, -math.inf, math.inf))
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{name}: expected a list")
    flat: list[float] = []
    shape: list[int] = []

    def walk(x, depth, path):
        if depth == ndim:
            flat.append(_number(x, f"{name}{path}", -math.inf, math.inf))
            if len(flat) > max_size:
                raise ValueError(f"{name}: more than {max_size:,} numbers")
            return
        if not isinstance(x, (list, tuple)):
            raise ValueError(f"{name}{path}: expected a list")
        if len(shape) <= depth:
            shape.append(len(x))
        elif shape[depth] != len(x):
            raise ValueError(f"{name}{path}: rows of different lengths ({len(x)} and {shape[depth]})")
        for i, e in enumerate(x):
            walk(e, depth + 1, f"{path}[{i}]")

    walk(v, 0, "")
    while len(shape) < ndim:  # an empty list has no inner lengths to read
        shape.append(want[len(shape)] or 0)
    return np.asarray(flat, dtype=float).reshape(shape)


def _number(v: Any, name: str, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name}: expected a number, got {_show(v)}")
    try:
        f = float(v)
    except OverflowError:
        raise ValueError(f"{name}: {_show(v)} is too large") from None
    if not math.isfinite(f) or not lo <= f <= hi:
        raise ValueError(f"{name}: {f:g} is not a finite number in [{lo:g}, {hi:g}]")
    return f


def _show(v: Any) -> str:
    """A short rendering of a bad value for a message (a 400-digit integer or a long
    string must not fill the screen)."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10**15:
        return f"an integer of {len(str(abs(v)))} digits"
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "…"
