"""The Folding panel's state: the tent's depth and peak, the view, and the user's fold.

The mathematics (the fold, the tent, the counts) and the limits of the panel's
controls are in :mod:`relulab.model.pieces.folding`.
"""

from __future__ import annotations

from dataclasses import dataclass

from relulab.model.core.fields import Fields
from relulab.model.pieces.folding import (
    FOLD_LIMIT,
    FOLD_PRESETS,
    MAX_DEPTH,
    MAX_FOLD_NEURONS,
    PEAK_RANGE,
    Fold,
    _check_depth,
)


@dataclass(frozen=True)
class FoldingState:
    """What the Folding panel shows: the tent's depth and peak, the view, the user's fold."""

    depth: int = 4  # 16 pieces, and 81 for the three-fold zigzag: every tooth in sight
    peak: float = 0.5
    whole_line: bool = False
    fold: Fold = FOLD_PRESETS["zigzag: three folds (3 neurons)"]
    show_fold: bool = True

    def __post_init__(self):
        depth = _check_depth(self.depth)
        if depth > MAX_DEPTH:
            raise ValueError(f"depth must be at most {MAX_DEPTH}, got {depth}")
        lo, hi = PEAK_RANGE
        peak = float(self.peak)
        if not lo <= peak <= hi:
            raise ValueError(f"peak must lie in [{lo}, {hi}], got {peak}")
        f = self.fold
        for name, values in (("w", f.w), ("b", f.b), ("a", f.a), ("c", (f.c,))):
            for i, v in enumerate(values):
                if not -FOLD_LIMIT <= v <= FOLD_LIMIT:
                    where = "c" if name == "c" else f"{name}[{i + 1}]"
                    raise ValueError(f"fold: {where} = {v:g} is outside "
                                     f"[{-FOLD_LIMIT:g}, {FOLD_LIMIT:g}]")
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "peak", peak)

    def to_dict(self) -> dict:
        return {"depth": self.depth, "peak": self.peak, "whole_line": self.whole_line,
                "fold": self.fold.to_dict(), "show_fold": self.show_fold}

    @classmethod
    def from_dict(cls, d) -> FoldingState:
        """Validate everything first; a ValueError names the field that is wrong."""
        default = cls()
        f = Fields(d, defaults=default.to_dict(), where="")
        depth = f.integer("depth", 1, MAX_DEPTH)
        peak = f.number("peak", *PEAK_RANGE)
        whole_line, show_fold = f.flag("whole_line"), f.flag("show_fold")
        g = Fields(f.get("fold"), defaults={"c": 0.0}, where="fold")
        w = g.numbers("w", MAX_FOLD_NEURONS, lo=-FOLD_LIMIT, hi=FOLD_LIMIT)
        if not w:
            raise ValueError(f"fold.w: needs 1 to {MAX_FOLD_NEURONS} neurons")
        b, a = (g.numbers(k, MAX_FOLD_NEURONS, count=len(w), lo=-FOLD_LIMIT, hi=FOLD_LIMIT)
                for k in ("b", "a"))
        fold = Fold(w, b, a, g.number("c", -FOLD_LIMIT, FOLD_LIMIT))
        g.done()
        f.done()
        return cls(depth=depth, peak=peak, whole_line=whole_line, fold=fold, show_fold=show_fold)
