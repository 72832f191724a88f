"""Activation functions and their derivatives, vectorised over numpy arrays.

Conventions follow the lesson on layers: ReLU'(0) = 0, so a neuron exactly at its
kink passes no gradient. A float32 array stays float32 (pictures of the plane are drawn
from float32 grids, ten times cheaper); anything else is computed in float64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

LEAKY_SLOPE = 0.01


def erf(z):
    """The error function, from scipy when GELU is first used (not at start-up)."""
    from scipy.special import erf as scipy_erf

    return scipy_erf(z)

_SQRT2 = np.sqrt(2.0)
_SQRT2PI = np.sqrt(2.0 * np.pi)


def _floats(z) -> np.ndarray:
    z = np.asarray(z)
    return z if z.dtype == np.float32 else z.astype(float, copy=False)


def relu(z):
    """ReLU(z) = max(0, z)."""
    z = _floats(z)
    return np.maximum(z, z.dtype.type(0))


def relu_prime(z):
    """ReLU'(z) = 1 for z > 0, else 0 (0 at the kink by convention)."""
    z = _floats(z)
    return (z > 0).astype(z.dtype)


def identity(z):
    """identity(z) = z: with it, stacked layers collapse into one affine map."""
    return _floats(z)


def identity_prime(z):
    """identity'(z) = 1."""
    return np.ones_like(_floats(z))


def leaky_relu(z):
    """leaky_relu(z) = z for z > 0, else 0.01·z."""
    z = _floats(z)
    return np.where(z > 0, z, z.dtype.type(LEAKY_SLOPE) * z)


def leaky_relu_prime(z):
    """leaky_relu'(z) = 1 for z > 0, else 0.01."""
    z = _floats(z)
    return np.where(z > 0, z.dtype.type(1), z.dtype.type(LEAKY_SLOPE))


def tanh(z):
    """tanh(z)."""
    return np.tanh(_floats(z))


def tanh_prime(z):
    """tanh'(z) = 1 − tanh²(z) ≤ 1."""
    t = np.tanh(_floats(z))
    return 1 - t * t


def sigmoid(z):
    """σ(z) = 1 / (1 + e^(−z)), computed without overflow for large |z|."""
    z = _floats(z)
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1 / (1 + e), e / (1 + e))


def sigmoid_prime(z):
    """σ'(z) = σ(z)(1 − σ(z)) ≤ ¼."""
    s = sigmoid(z)
    return s * (1 - s)


def gelu(z):
    """GELU(z) = z·Φ(z), Φ the standard normal distribution function (exact, via erf)."""
    z = _floats(z)
    return z * (0.5 * (1 + erf(z / z.dtype.type(_SQRT2))))


def gelu_prime(z):
    """GELU'(z) = Φ(z) + z·φ(z)."""
    z = _floats(z)
    return (0.5 * (1 + erf(z / z.dtype.type(_SQRT2)))
            + z * np.exp(z * z * z.dtype.type(-0.5)) / z.dtype.type(_SQRT2PI))


# The derivative given also the output h = φ(z), where that is cheaper than from z alone:
# backpropagation keeps h from the forward pass, so σ, tanh and ReLU need no second exp,
# tanh or compare, and GELU no second erf (Φ(z) = h / z, and Φ(0) = ½).
def _relu_prime_given(z, h):
    return (h > 0).astype(h.dtype)


def _sigmoid_prime_given(z, h):
    return h * (1 - h)


def _tanh_prime_given(z, h):
    return 1 - h * h


def _gelu_prime_given(z, h):
    phi = np.divide(h, z, out=np.full_like(h, 0.5), where=z != 0)
    return phi + z * np.exp(z * z * z.dtype.type(-0.5)) / z.dtype.type(_SQRT2PI)


@dataclass(frozen=True)
class Activation:
    """An activation φ with its derivative φ' and a label for people."""

    name: str
    label: str
    f: Callable[[np.ndarray], np.ndarray]
    df: Callable[[np.ndarray], np.ndarray]
    piecewise_linear: bool
    #: φ'(z) from z and h = φ(z), when knowing h makes it cheaper (None otherwise)
    df_given_output: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None

    def derivative(self, z: np.ndarray, h: np.ndarray) -> np.ndarray:
        """φ'(z), given also h = φ(z) (from the forward pass)."""
        return self.df(z) if self.df_given_output is None else self.df_given_output(z, h)

    def __call__(self, z):
        return self.f(z)


ACTIVATIONS: dict[str, Activation] = {
    a.name: a
    for a in (
        Activation("relu", "ReLU", relu, relu_prime, True, _relu_prime_given),
        Activation("identity", "identity", identity, identity_prime, True),
        Activation("leaky_relu", "leaky ReLU", leaky_relu, leaky_relu_prime, True),
        Activation("tanh", "tanh", tanh, tanh_prime, False, _tanh_prime_given),
        Activation("sigmoid", "sigmoid", sigmoid, sigmoid_prime, False, _sigmoid_prime_given),
        Activation("gelu", "GELU", gelu, gelu_prime, False, _gelu_prime_given),
    )
}


def get_activation(name: str) -> Activation:
    """The activation called ``name``; a ValueError lists the known names otherwise."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        known = ", ".join(ACTIVATIONS)
        raise ValueError(f"unknown activation {name!r} (known: {known})") from None
