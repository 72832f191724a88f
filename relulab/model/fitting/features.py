"""Feature inputs: what the network's first layer sees instead of the point (x₁, x₂).

TensorFlow Playground's input nodes: a network may take any of x₁, x₂, x₁², x₂², x₁x₂,
sin x₁, sin x₂ (spelled ``x1``, ``x2``, ``x1^2``, ``x2^2``, ``x1*x2``, ``sin(x1)``,
``sin(x2)``), one input per feature in the order given. A :class:`FeatureMap` names
them and maps points to them (``apply``). With only x₁ and x₂ (``is_linear``) the
features are an affine image of the plane, so a ReLU network stays piecewise linear
in the plane; with any other feature it is piecewise linear in the features, and
its pieces are curved in the plane.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

_FEATURES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "x1": lambda a, b: a,
    "x2": lambda a, b: b,
    "x1^2": lambda a, b: a * a,
    "x2^2": lambda a, b: b * b,
    "x1*x2": lambda a, b: a * b,
    "sin(x1)": lambda a, b: np.sin(a),
    "sin(x2)": lambda a, b: np.sin(b),
}
#: Every feature's name, in the order TensorFlow Playground lists them.
FEATURE_NAMES: tuple[str, ...] = tuple(_FEATURES)
#: Each feature as shown in the app.
FEATURE_LABELS = {"x1": "x₁", "x2": "x₂", "x1^2": "x₁²", "x2^2": "x₂²", "x1*x2": "x₁x₂",
                  "sin(x1)": "sin x₁", "sin(x2)": "sin x₂"}
#: The features that are linear in the point.
LINEAR_FEATURES = frozenset({"x1", "x2"})


@dataclass(frozen=True)
class FeatureMap:
    """An ordered, non-empty choice of features without repeats; the network's
    input i is feature ``names[i]``."""

    names: tuple[str, ...] = ("x1", "x2")

    def __post_init__(self) -> None:
        names = self.names
        if isinstance(names, str) or not isinstance(names, Iterable):
            raise ValueError(f"features must be a list of names ({', '.join(FEATURE_NAMES)}), "
                             f"got {names!r}")
        names = tuple(names)
        object.__setattr__(self, "names", names)
        unknown = [n for n in names if not isinstance(n, str) or n not in _FEATURES]
        if not names or unknown or len(set(names)) < len(names):
            what = ("no feature" if not names else f"unknown feature {unknown[0]!r}" if unknown
                    else "a feature twice")
            raise ValueError(f"features: {what}; choose some of {', '.join(FEATURE_NAMES)}, "
                             "each once")

    @classmethod
    def of(cls, features: FeatureMap | Iterable[str]) -> FeatureMap:
        """``features`` as a FeatureMap (a FeatureMap or a list of names)."""
        return features if isinstance(features, FeatureMap) else cls(features)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.names)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(FEATURE_LABELS[n] for n in self.names)

    @property
    def is_linear(self) -> bool:
        """True when every feature is x₁ or x₂: the network is then piecewise linear in the plane."""
        return set(self.names) <= LINEAR_FEATURES

    @property
    def is_identity(self) -> bool:
        """True for (x₁, x₂) in that order: the features are the point itself."""
        return self.names == ("x1", "x2")

    def apply(self, X) -> np.ndarray:
        """The features of points ``X`` (N, 2): shape (N, len(self)), column i feature i."""
        X = np.asarray(X, float)
        if X.ndim != 2 or X.shape[1] != 2:
            raise ValueError(f"features are computed from points of shape (N, 2), got {X.shape}")
        a, b = X[:, 0], X[:, 1]
        out = np.empty((len(X), len(self.names)))
        for i, name in enumerate(self.names):
            out[:, i] = _FEATURES[name](a, b)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"names": list(self.names)}

    @classmethod
    def from_dict(cls, d: Any) -> FeatureMap:
        if not isinstance(d, dict) or set(d) != {"names"} or not isinstance(d["names"], list):
            raise ValueError("features: expected {\"names\": [feature names]}")
        return cls(tuple(d["names"]))
