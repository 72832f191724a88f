"""Activation functions and their derivatives, vectorised over numpy arrays.

Conventions follow the lesson (seed 002): ReLU'(0) = 0, so a neuron exactly at its
kink passes no gradient.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

LEAKY_SLOPE = 0.01


def erf(z):
    """The error function, from scipy when GELU is first used (not at start-up)."""
    from scipy.special import erf as scipy_erf

    return scipy_erf(z)

_SQRT2 = np.sqrt(2.0)
_SQRT2PI = np.sqrt(2.0 * np.pi)


def relu(z):
    """ReLU(z) = max(0, z)."""
    return np.maximum(z, 0.0)


def relu_prime(z):
    """ReLU'(z) = 1 for z > 0, else 0 (0 at the kink by convention)."""
    return (np.asarray(z) > 0).astype(float)


def identity(z):
    """identity(z) = z: with it, stacked layers collapse into one affine map."""
    return np.asarray(z, dtype=float)


def identity_prime(z):
    """identity'(z) = 1."""
    return np.ones_like(np.asarray(z, dtype=float))


def leaky_relu(z):
    """leaky_relu(z) = z for z > 0, else 0.01·z."""
    z = np.asarray(z, dtype=float)
    return np.where(z > 0, z, LEAKY_SLOPE * z)


def leaky_relu_prime(z):
    """leaky_relu'(z) = 1 for z > 0, else 0.01."""
    return np.where(np.asarray(z) > 0, 1.0, LEAKY_SLOPE)


def tanh(z):
    """tanh(z)."""
    return np.tanh(z)


def tanh_prime(z):
    """tanh'(z) = 1 − tanh²(z) ≤ 1."""
    t = np.tanh(z)
    return 1.0 - t * t


def sigmoid(z):
    """σ(z) = 1 / (1 + e^(−z)), computed without overflow for large |z|."""
    z = np.asarray(z, dtype=float)
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def sigmoid_prime(z):
    """σ'(z) = σ(z)(1 − σ(z)) ≤ ¼."""
    s = sigmoid(z)
    return s * (1.0 - s)


def gelu(z):
    """GELU(z) = z·Φ(z), Φ the standard normal distribution function (exact, via erf)."""
    z = np.asarray(z, dtype=float)
    return 0.5 * z * (1.0 + erf(z / _SQRT2))


def gelu_prime(z):
    """GELU'(z) = Φ(z) + z·φ(z)."""
    z = np.asarray(z, dtype=float)
    return 0.5 * (1.0 + erf(z / _SQRT2)) + z * np.exp(-0.5 * z * z) / _SQRT2PI


@dataclass(frozen=True)
class Activation:
    """An activation φ with its derivative φ' and a label for people."""

    name: str
    label: str
    f: Callable[[np.ndarray], np.ndarray]
    df: Callable[[np.ndarray], np.ndarray]
    piecewise_linear: bool

    def __call__(self, z):
        return self.f(z)


ACTIVATIONS: dict[str, Activation] = {
    a.name: a
    for a in (
        Activation("relu", "ReLU", relu, relu_prime, True),
        Activation("identity", "identity", identity, identity_prime, True),
        Activation("leaky_relu", "leaky ReLU", leaky_relu, leaky_relu_prime, True),
        Activation("tanh", "tanh", tanh, tanh_prime, False),
        Activation("sigmoid", "sigmoid", sigmoid, sigmoid_prime, False),
        Activation("gelu", "GELU", gelu, gelu_prime, False),
    )
}


def get_activation(name: str) -> Activation:
    """The activation called ``name``; a ValueError lists the known names otherwise."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        known = ", ".join(ACTIVATIONS)
        raise ValueError(f"unknown activation {name!r} (known: {known})") from None
