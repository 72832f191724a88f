"""Typed target functions: a small parser for expressions in x.

User text is tokenised and parsed by hand into a tree of numpy operations; it is
never given to ``eval``, ``exec`` or ``compile``. Anything outside the grammar is
rejected with the column where it went wrong.

Grammar (``^`` and ``**`` are the same, right-associative; unary minus binds
looser than a power, so ``-x^2`` is ``-(x^2)``; a number directly followed by a
name or a parenthesis multiplies it, so ``0.3x^2`` and ``2(x+1)`` work)::

    sum     := product (('+' | '-') product)*
    product := unary (('*' | '/') unary | implicit)*
    unary   := ('-' | '+') unary | power
    power   := atom (('^' | '**') unary)?
    atom    := number | name | name '(' sum (',' sum)* ')' | '(' sum ')'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MAX_LENGTH = 500
MAX_DEPTH = 50


class ExpressionError(ValueError):
    """A typed expression that cannot be used; ``column`` is 1-based or None."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message if column is None else f"{message} at column {column}")
        self.reason = message
        self.column = column


def _step(x):
    return np.where(x >= 0, 1.0, 0.0)


# name -> (number of arguments, numpy function)
FUNCTIONS: dict[str, tuple[int, Callable]] = {
    "sin": (1, np.sin),
    "cos": (1, np.cos),
    "tan": (1, np.tan),
    "exp": (1, np.exp),
    "log": (1, np.log),
    "sqrt": (1, np.sqrt),
    "abs": (1, np.abs),
    "tanh": (1, np.tanh),
    "sinh": (1, np.sinh),
    "cosh": (1, np.cosh),
    "arctan": (1, np.arctan),
    "relu": (1, lambda x: np.maximum(x, 0.0)),
    "step": (1, _step),
    "sign": (1, np.sign),
    "floor": (1, np.floor),
    "min": (2, np.minimum),
    "max": (2, np.maximum),
}
CONSTANTS = {"pi": np.pi, "e": np.e}

_TOKEN = re.compile(
    r"(?P<space>[ \t]+)"
    r"|(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>\*\*|[-+*/^(),])"
)


@dataclass(frozen=True)
class _Token:
    kind: str  # number, name, op, end
    text: str
    column: int


def _tokenise(text: str) -> list[_Token]:
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            # Reported only when the parser gets here, so that the first problem
            # in reading order is the one named ("unknown name 'os'" before the '.').
            tokens.append(_Token("bad", text[pos], pos + 1))
            return tokens
        kind = m.lastgroup
        assert kind is not None  # every alternative of _TOKEN is a named group
        if kind != "space":
            tokens.append(_Token(kind, m.group(), pos + 1))
        pos = m.end()
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


# A parsed tree is made of nested tuples: ("num", v) | ("x",) | ("neg", a)
# | ("bin", op, a, b) | ("call", name, args).

class _Parser:
    def __init__(self, tokens: list[_Token]):
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> _Token:
        t = self.tokens[self.i]
        if t.kind == "bad":
            shown = repr(t.text) if t.text.isprintable() else f"U+{ord(t.text):04X}"
            raise ExpressionError(f"unexpected character {shown}", t.column)
        return t

    def take(self) -> _Token:
        t = self.tok
        self.i += 1
        return t

    def expect(self, text: str) -> None:
        if self.tok.text != text:
            found = "the end" if self.tok.kind == "end" else repr(self.tok.text)
            raise ExpressionError(f"expected {text!r} but found {found}", self.tok.column)
        self.take()

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionError(f"nested more than {MAX_DEPTH} levels deep", self.tok.column)

    def parse(self):
        if self.tok.kind == "end":
            raise ExpressionError("the expression is empty")
        tree = self.sum()
        if self.tok.kind != "end":
            raise ExpressionError(f"unexpected {self.tok.text!r}", self.tok.column)
        return tree

    def sum(self):
        left = self.product()
        while self.tok.text in ("+", "-"):
            op = self.take().text
            left = ("bin", op, left, self.product())
        return left

    def product(self):
        left = self.unary()
        while True:
            if self.tok.text in ("*", "/"):
                op = self.take().text
                left = ("bin", op, left, self.unary())
            elif self.tok.kind == "name" or self.tok.text == "(":
                # implicit multiplication only right after a number: 0.3x, 2(x+1)
                prev = self.tokens[self.i - 1]
                if prev.kind != "number":
                    return left
                left = ("bin", "*", left, self.power())
            else:
                return left

    def unary(self):
        if self.tok.text in ("-", "+"):
            op = self.take().text
            self.nest()
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if op == "-" else inner
        return self.power()

    def power(self):
        base = self.atom()
        if self.tok.text in ("^", "**"):
            self.take()
            self.nest()
            exponent = self.unary()
            self.depth -= 1
            return ("bin", "^", base, exponent)
        return base

    def atom(self):
        t = self.tok
        if t.kind == "number":
            self.take()
            return ("num", float(t.text))
        if t.kind == "name":
            self.take()
            name = t.text
            if name == "x":
                return ("x",)
            if name in CONSTANTS:
                return ("num", CONSTANTS[name])
            if name in FUNCTIONS:
                if self.tok.text != "(":
                    raise ExpressionError(f"function '{name}' needs parentheses", self.tok.column)
                self.take()
                self.nest()
                args = [self.sum()]
                while self.tok.text == ",":
                    self.take()
                    args.append(self.sum())
                self.expect(")")
                self.depth -= 1
                arity = FUNCTIONS[name][0]
                if len(args) != arity:
                    raise ExpressionError(
                        f"function '{name}' takes {arity} argument{'s' if arity > 1 else ''}, "
                        f"got {len(args)}", t.column)
                return ("call", name, args)
            raise ExpressionError(f"unknown name '{name}'", t.column)
        if t.text == "(":
            self.take()
            self.nest()
            inner = self.sum()
            self.expect(")")
            self.depth -= 1
            return inner
        if t.kind == "end":
            raise ExpressionError("the expression ends too early", t.column)
        raise ExpressionError(f"unexpected {t.text!r}", t.column)


def _evaluate(tree, x: np.ndarray) -> np.ndarray | np.float64:
    kind = tree[0]
    if kind == "num":
        # a numpy scalar: broadcast for free, and it overflows to inf (a Python float raises)
        return np.float64(tree[1])
    if kind == "x":
        return x
    if kind == "neg":
        return -_evaluate(tree[1], x)
    if kind == "bin":
        a, b = _evaluate(tree[2], x), _evaluate(tree[3], x)
        op = tree[1]
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        return a ** b  # the operator fast-paths x**2 as a square
    name, args = tree[1], tree[2]
    return FUNCTIONS[name][1](*(_evaluate(a, x) for a in args))


@dataclass(frozen=True, eq=False)
class Expression:
    """A parsed expression in x; call it on an array of x values."""

    text: str
    _tree: tuple

    def __call__(self, x) -> np.ndarray:
        """Values at ``x`` (float array of the same shape); may contain inf/nan."""
        x = np.asarray(x, dtype=float)
        with np.errstate(all="ignore"):
            y = _evaluate(self._tree, x)
        if np.ndim(y) == 0 or np.shape(y) != x.shape:
            y = np.broadcast_to(np.asarray(y, dtype=float), x.shape).copy()
        return np.asarray(y)

    def check_finite(self, a: float, b: float, samples: int = 2001) -> None:
        """Raise ExpressionError unless the values are finite on [a, b]."""
        xs = np.linspace(a, b, samples)
        ys = self(xs)
        bad = ~np.isfinite(ys)
        if bad.any():
            where = float(xs[np.argmax(bad)])
            what = "not a number" if np.isnan(ys[bad][0]) else "infinite"
            raise ExpressionError(f"the value is {what} at x = {where:.6g} on [{a:g}, {b:g}]")


def parse_expression(text: str) -> Expression:
    """Parse ``text`` into an :class:`Expression` or raise :class:`ExpressionError`.

    Limits: at most 500 characters and 50 levels of nesting, so hostile input
    fails fast instead of exhausting the stack.
    """
    if not isinstance(text, str):
        raise ExpressionError("the expression must be text")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise ExpressionError("the expression is empty")
    tree = _Parser(_tokenise(text)).parse()
    return Expression(text.strip(), tree)
