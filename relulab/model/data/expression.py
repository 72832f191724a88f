"""Typed target functions: a small parser for expressions in x, or in x1 and x2.

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

The variables are ``x`` by default; ``parse_expression(text, ("x1", "x2"))`` reads a
function of the plane's two coordinates (``x₁`` and ``x₂`` are read as ``x1`` and
``x2``). :meth:`Expression.python` writes a parsed expression back as numpy code that
computes the same numbers, for exported scripts (they never evaluate a string).
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
#: Each function as numpy code of its argument(s) ``{0}``, ``{1}``: what FUNCTIONS computes.
NUMPY_CODE = {
    **{name: f"np.{name}({{0}})" for name in ("sin", "cos", "tan", "exp", "log", "sqrt", "abs",
                                               "tanh", "sinh", "cosh", "arctan", "sign", "floor")},
    "relu": "np.maximum({0}, 0.0)",
    "step": "np.where({0} >= 0, 1.0, 0.0)",
    "min": "np.minimum({0}, {1})",
    "max": "np.maximum({0}, {1})",
}
#: The variables of an expression in x, and of one in the plane's coordinates.
ONE_VARIABLE = ("x",)
TWO_VARIABLES = ("x1", "x2")
#: Subscript digits typed for the coordinates (x₁, x₂), read as plain digits.
_SUBSCRIPTS = str.maketrans("₁₂", "12")
#: The signs the app itself writes (sin(3·x₁)·x₂, −2, 2×x), read as the ASCII ones.
_SIGNS = str.maketrans("·×−", "**-")

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


# A parsed tree is made of nested tuples: ("num", v) | ("x", i) (variable i) | ("neg", a)
# | ("bin", op, a, b) | ("call", name, args).

class _Parser:
    def __init__(self, tokens: list[_Token], variables: tuple[str, ...] = ONE_VARIABLE):
        self.variables = variables
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
            if name in self.variables:
                return ("x", self.variables.index(name))
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
            hint = f" (the variables are {' and '.join(self.variables)})" \
                if len(self.variables) > 1 else ""
            raise ExpressionError(f"unknown name '{name}'{hint}", t.column)
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


def _evaluate(tree, x: tuple[np.ndarray, ...]) -> np.ndarray | np.float64:
    kind = tree[0]
    if kind == "num":
        # a numpy scalar: broadcast for free, and it overflows to inf (a Python float raises)
        return np.float64(tree[1])
    if kind == "x":
        return x[tree[1]]
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


def _has_variable(tree) -> bool:
    kind = tree[0]
    if kind == "x":
        return True
    if kind == "neg":
        return _has_variable(tree[1])
    if kind == "bin":
        return _has_variable(tree[2]) or _has_variable(tree[3])
    return kind == "call" and any(_has_variable(a) for a in tree[2])


def _number_code(v: float, scalar: bool) -> str:
    text = repr(float(v)) if np.isfinite(v) else "np.inf"
    # Between two numbers a Python float would raise where numpy gives inf (1/0,
    # 10.0**400): numbers whose operation has no variable stay numpy scalars, as here.
    return f"np.float64({text})" if scalar else text


def _python(tree, names: tuple[str, ...], scalar: bool = False) -> str:
    """``tree`` as numpy code: every operation in parentheses, so precedence is the tree's."""
    kind = tree[0]
    if kind == "num":
        return _number_code(tree[1], scalar)
    if kind == "x":
        return names[tree[1]]
    constant = not _has_variable(tree)
    if kind == "neg":
        return f"(-{_python(tree[1], names, constant)})"
    if kind == "bin":
        op = "**" if tree[1] == "^" else tree[1]
        return f"({_python(tree[2], names, constant)} {op} {_python(tree[3], names, constant)})"
    return NUMPY_CODE[tree[1]].format(*(_python(a, names) for a in tree[2]))


@dataclass(frozen=True, eq=False)
class Expression:
    """A parsed expression in its ``variables`` (x, or x1 and x2); call it on arrays of
    their values, one array each."""

    text: str
    _tree: tuple
    variables: tuple[str, ...] = ONE_VARIABLE

    def __call__(self, *xs) -> np.ndarray:
        """Values at ``xs`` (one array per variable; a float array of their broadcast
        shape); may contain inf/nan."""
        if len(xs) != len(self.variables):
            raise TypeError(f"the expression takes {len(self.variables)} variable(s) "
                            f"({', '.join(self.variables)}), got {len(xs)}")
        arrays = tuple(np.asarray(x, dtype=float) for x in xs)
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        with np.errstate(all="ignore"):
            y = _evaluate(self._tree, arrays)
        if np.ndim(y) == 0 or np.shape(y) != shape:
            y = np.broadcast_to(np.asarray(y, dtype=float), shape).copy()
        return np.asarray(y)

    def python(self, names: tuple[str, ...] | None = None) -> str:
        """Numpy code (``np``, and the variables under ``names``, by default their own)
        that computes the same numbers as calling this expression, where the values stay
        finite; written from the parse tree, never from the text."""
        return _python(self._tree, tuple(names or self.variables))

    def check_finite_square(self, lo: float = -1.0, hi: float = 1.0, samples: int = 201) -> None:
        """Raise ExpressionError unless the values of an expression in (x1, x2) are
        finite on a samples × samples grid of the square [lo, hi]²."""
        t = np.linspace(lo, hi, samples)
        a, b = np.meshgrid(t, t, indexing="ij")
        self.check_finite_at(np.c_[a.ravel(), b.ravel()], f"in the square [{lo:g}, {hi:g}]²")

    def check_finite_at(self, X, where: str = "") -> None:
        """Raise ExpressionError unless the values at the points ``X`` (N, 2) are finite."""
        X = np.asarray(X, float).reshape(-1, 2)
        ys = self(X[:, 0], X[:, 1])
        bad = ~np.isfinite(ys)
        if bad.any():
            i = int(np.argmax(bad))
            what = "not a number" if np.isnan(ys[i]) else "infinite"
            raise ExpressionError(f"the value is {what} at (x₁, x₂) = ({X[i, 0]:.3g}, "
                                  f"{X[i, 1]:.3g}){' ' + where if where else ''}")

    def check_finite(self, a: float, b: float, samples: int = 2001) -> None:
        """Raise ExpressionError unless the values are finite on [a, b]."""
        xs = np.linspace(a, b, samples)
        ys = self(xs)
        bad = ~np.isfinite(ys)
        if bad.any():
            where = float(xs[np.argmax(bad)])
            what = "not a number" if np.isnan(ys[bad][0]) else "infinite"
            raise ExpressionError(f"the value is {what} at x = {where:.6g} on [{a:g}, {b:g}]")


def parse_expression(text: str, variables: tuple[str, ...] = ONE_VARIABLE) -> Expression:
    """Parse ``text`` into an :class:`Expression` in ``variables`` (x; or
    TWO_VARIABLES, x1 and x2, also typed x₁ and x₂) or raise :class:`ExpressionError`.

    Limits: at most 500 characters and 50 levels of nesting, so hostile input
    fails fast instead of exhausting the stack.
    """
    if not isinstance(text, str):
        raise ExpressionError("the expression must be text")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise ExpressionError("the expression is empty")
    variables = tuple(variables)
    # one character for one: the columns in messages stay the typed ones
    read = text.translate(_SIGNS)
    read = read.translate(_SUBSCRIPTS) if "x1" in variables else read
    tree = _Parser(_tokenise(read), variables).parse()
    return Expression(text.strip(), tree, variables)
