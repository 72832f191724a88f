"""Target functions on an interval: named presets and typed expressions."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from relulab.model.data.expression import Expression, ExpressionError, parse_expression


@dataclass(frozen=True)
class Target:
    """A function f on the domain [a, b], given by its expression text.

    ``smooth`` is False for targets with a jump or a corner, where the
    interpolation bound (b − a)²M/(8n²) does not apply.
    """

    text: str
    a: float = -3.0
    b: float = 3.0
    name: str = ""
    smooth: bool = True
    _expr: Expression = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not (np.isfinite(self.a) and np.isfinite(self.b)):
            raise ExpressionError("the domain ends must be finite numbers")
        if not self.a < self.b:
            raise ExpressionError(f"the domain [{self.a:g}, {self.b:g}] is empty: a must be below b")
        expr = parse_expression(self.text)
        expr.check_finite(self.a, self.b)
        object.__setattr__(self, "_expr", expr)

    def __call__(self, x) -> np.ndarray:
        return self._expr(x)

    @property
    def label(self) -> str:
        return self.name or self.text

    def sample(self, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
        """n equally spaced points on [a, b] and the target's values there."""
        x = np.linspace(self.a, self.b, int(n))
        return x, self(x)

    def with_domain(self, a: float, b: float) -> Target:
        return Target(self.text, a, b, self.name, self.smooth)


#: Presets: the notebook's curve sin(2x) + 0.3x² first.
PRESETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("sin(2*x) + 0.3*x^2", -3.0, 3.0, "sin(2x) + 0.3x²"),
        Target("x^2", -1.0, 1.0, "x²"),
        Target("abs(x)", -1.0, 1.0, "|x|", smooth=False),
        Target("step(x)", -1.0, 1.0, "unit step", smooth=False),
        Target("1/(1 + 25*x^2)", -1.0, 1.0, "Runge 1/(1 + 25x²)"),
    )
}
DEFAULT_TARGET = PRESETS["sin(2x) + 0.3x²"]


def target_from_text(text: str, a: float, b: float) -> Target:
    """A target from a preset name or a typed expression; raises ExpressionError."""
    if text in PRESETS:
        return PRESETS[text].with_domain(a, b)
    return Target(text, float(a), float(b))
