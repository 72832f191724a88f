"""The Hinges panel's state: the target and its domain, the hinges, the mode and the view.

The mathematics it shows (fits, interpolation, the convergence study) is in
:mod:`relulab.model.fitting.hinges`, with the limits of the panel's controls.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from relulab.model.core.fields import Fields
from relulab.model.fitting.hinges import (
    COEFFICIENT_LIMIT,
    DOMAIN_LIMIT,
    MAX_HINGES,
    MAX_POINTS,
    MIN_POINTS,
    MIN_WIDTH,
    MODES,
    TARGET_LIMIT,
    evaluate_hinges,
    evenly_spaced_kinks,
)


def _clamp(v: float, limit: float = COEFFICIENT_LIMIT) -> float:
    return min(max(float(v), -limit), limit)


def by_position(kinks) -> list[int]:
    """The hinges' indices left to right (equal kinks in the order given): the one
    numbering a learner sees, in the readout, the table and the Tab order."""
    return sorted(range(len(kinks)), key=lambda i: (float(kinks[i]), i))


def position_of(kinks, i: int) -> int:
    """Hinge i's place from the left, 0 for the leftmost (see :func:`by_position`)."""
    return by_position(kinks).index(i)


@dataclass(frozen=True)
class HingesState:
    """What the Hinges panel shows. ``coefficients``, ``intercept`` and ``slope`` are
    the hand-set values of Free mode (least squares and interpolation compute their
    own); ``interpolation_n`` is the number of neurons of the interpolation."""

    mode: str = "least squares"
    target: str = "sin(2x) + 0.3x²"
    a: float = -3.0
    b: float = 3.0
    points: int = 400
    kinks: tuple[float, ...] = tuple(evenly_spaced_kinks(-3.0, 3.0, 6))
    coefficients: tuple[float, ...] = (0.0,) * 6
    intercept: float = 0.0
    slope: float = 0.0
    interpolation_n: int = 6
    selected: int | None = None
    show_components: bool = False
    show_residual: bool = True
    show_convergence: bool = True

    def to_dict(self) -> dict:
        return {
            "mode": self.mode, "target": self.target, "a": self.a, "b": self.b,
            "points": self.points, "kinks": list(self.kinks),
            "coefficients": list(self.coefficients), "intercept": self.intercept,
            "slope": self.slope, "interpolation_n": self.interpolation_n,
            "selected": self.selected, "show_components": self.show_components,
            "show_residual": self.show_residual, "show_convergence": self.show_convergence,
        }

    @classmethod
    def from_dict(cls, d: dict) -> HingesState:
        """Validate every field (ValueError naming it) and build the state. Ranges are
        those of the panel's controls; the target must parse and be finite on [a, b]."""
        from relulab.model.data.expression import MAX_LENGTH, ExpressionError
        from relulab.model.data.targets import target_from_text

        f = Fields(d, defaults=cls().to_dict())
        mode = f.choice("mode", MODES)
        target = f.text("target", MAX_LENGTH).strip()
        a, b = f.number("a", -DOMAIN_LIMIT, DOMAIN_LIMIT), f.number("b", -DOMAIN_LIMIT, DOMAIN_LIMIT)
        if not a < b:
            raise ValueError(f"b: the domain [{a:g}, {b:g}] is empty (a must be below b)")
        if b - a < MIN_WIDTH:
            raise ValueError(f"b: the domain [{a:g}, {b:g}] is narrower than {MIN_WIDTH:g}")
        try:
            t = target_from_text(target, a, b)
        except ExpressionError as e:
            raise ValueError(f"target: {e}") from None
        biggest = float(np.max(np.abs(t(np.linspace(a, b, 4001)))))
        if biggest > TARGET_LIMIT:
            raise ValueError(f"target: values up to {biggest:.3g} on [{a:g}, {b:g}]; targets "
                             f"within ±{TARGET_LIMIT:g} are drawn")
        kinks = f.numbers("kinks", MAX_HINGES, lo=-COEFFICIENT_LIMIT, hi=COEFFICIENT_LIMIT)
        coefficients = f.numbers("coefficients", MAX_HINGES, count=len(kinks),
                                 lo=-COEFFICIENT_LIMIT, hi=COEFFICIENT_LIMIT)
        state = cls(mode, target, a, b, f.integer("points", MIN_POINTS, MAX_POINTS), kinks,
                    coefficients, f.number("intercept", -COEFFICIENT_LIMIT, COEFFICIENT_LIMIT),
                    f.number("slope", -COEFFICIENT_LIMIT, COEFFICIENT_LIMIT),
                    f.integer("interpolation_n", 1, MAX_HINGES),
                    f.optional_integer("selected", 0, len(kinks) - 1),
                    f.flag("show_components"), f.flag("show_residual"), f.flag("show_convergence"))
        f.done()
        return state

    # -- edits (each returns a new state) ---------------------------------------------
    def with_kinks(self, kinks, coefficients=None, selected: int | None = -1) -> HingesState:
        kinks = tuple(_clamp(k) for k in kinks)
        if coefficients is None:
            coefficients = (0.0,) * len(kinks)
        coefficients = tuple(_clamp(c) for c in coefficients)
        if selected == -1:
            selected = self.selected
        if selected is not None and not 0 <= selected < len(kinks):
            selected = None
        return replace(self, kinks=kinks, coefficients=coefficients, selected=selected)

    def with_domain(self, a: float, b: float) -> HingesState:
        """The same hinges on the domain [a, b]: each kink mapped by the affine map that
        takes the old domain onto the new one, so kinks inside the old domain land
        inside the new one (evenly spaced ones stay evenly spaced) and the handles, the
        errors and the convergence study speak of the same hinges."""
        a, b = float(a), float(b)
        if (a, b) == (self.a, self.b):
            return self
        ratio = (b - a) / (self.b - self.a)
        kinks = tuple(_clamp(a + (k - self.a) * ratio) for k in self.kinks)
        return replace(self, a=a, b=b, kinks=kinks)

    def spread_evenly(self, n: int | None = None) -> HingesState:
        n = len(self.kinks) if n is None else int(n)
        n = min(max(n, 1), MAX_HINGES)
        return self.with_kinks(evenly_spaced_kinks(self.a, self.b, n), None, None)

    def add_kink(self, k: float, c: float = 0.0) -> HingesState:
        """A new hinge at k (clamped to [a, b]), selected. No-op at the maximum count."""
        if len(self.kinks) >= MAX_HINGES:
            return self
        k = min(max(float(k), self.a), self.b)
        return self.with_kinks((*self.kinks, k), (*self.coefficients, float(c)),
                               len(self.kinks))

    def remove_kink(self, i: int) -> HingesState:
        if not 0 <= i < len(self.kinks):
            return self
        kinks = self.kinks[:i] + self.kinks[i + 1:]
        coefficients = self.coefficients[:i] + self.coefficients[i + 1:]
        sel = min(i, len(kinks) - 1) if kinks else None
        return self.with_kinks(kinks, coefficients, sel)

    def move_kink(self, i: int, k: float) -> HingesState:
        k = min(max(float(k), self.a), self.b)
        kinks = list(self.kinks)
        kinks[i] = k
        return replace(self, kinks=tuple(kinks))

    def set_coefficient(self, i: int, c: float) -> HingesState:
        cs = list(self.coefficients)
        cs[i] = _clamp(c)
        return replace(self, coefficients=tuple(cs))

    def raise_kink(self, i: int, dy: float) -> HingesState:
        """Free mode: the corner of f̂ at kink i raised by ``dy``, the sum at the
        neighbouring kinks (or the domain's ends, where it has no neighbour inside
        [a, b]) unchanged. It adds dy times the hat that is 1 at kᵢ and 0 at those
        neighbours L and R: the slope changes at L, kᵢ and R change (at an end, the
        line a + s·x takes L's part), so a handle dragged up or down stays under the
        pointer. Unchanged where kᵢ sits on a neighbour or outside (a, b): no corner
        of its own to raise there."""
        k = self.kinks[i]
        others = [j for j in range(len(self.kinks)) if j != i]
        left = [j for j in others if self.a <= self.kinks[j] <= k]
        right = [j for j in others if k <= self.kinks[j] <= self.b]
        lo = max((self.kinks[j] for j in left), default=self.a)
        hi = min((self.kinks[j] for j in right), default=self.b)
        if not (self.a <= lo < k < hi <= self.b) or dy == 0:
            return self
        up, down = dy / (k - lo), dy / (hi - k)
        cs = list(self.coefficients)
        cs[i] -= up + down
        intercept, slope = self.intercept, self.slope
        if left:
            j = max(left, key=lambda j: (self.kinks[j], j))
            cs[j] += up
        else:  # ReLU(x − a) = x − a on the domain: the line takes the left ramp
            slope += up
            intercept -= up * self.a
        if right:
            j = min(right, key=lambda j: (self.kinks[j], -j))
            cs[j] += down
        return replace(self, coefficients=tuple(_clamp(c) for c in cs),
                       intercept=_clamp(intercept), slope=_clamp(slope))

    def height(self, x: float) -> float:
        """The hand-set sum of hinges of Free mode at x."""
        return float(evaluate_hinges(x, self.intercept, self.slope, self.kinks,
                                     self.coefficients))

    def with_line(self, intercept: float, slope: float) -> HingesState:
        """The hand-set line a + s·x of Free mode."""
        return replace(self, intercept=_clamp(intercept), slope=_clamp(slope))

    def select_next(self, step: int = 1) -> HingesState:
        """Select the next (step = 1) or previous (−1) hinge in order along x."""
        if not self.kinks:
            return replace(self, selected=None)
        order = by_position(self.kinks)
        if self.selected is None:
            pos = 0 if step > 0 else len(order) - 1
        else:
            pos = (order.index(self.selected) + step) % len(order)
        return replace(self, selected=order[pos])
