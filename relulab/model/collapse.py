"""The linear collapse: with the identity activation, stacked layers are one layer.

Two layers give W₂(W₁x + b₁) + b₂ = (W₂W₁)x + (W₂b₁ + b₂); by induction L layers
give one affine map x ↦ Ax + c with

    A = W_L ⋯ W₂ W₁,   c = W_L(⋯(W₂b₁ + b₂)⋯) + b_L.

With ReLU the equivalence breaks: the lesson's W₁ = [[1, 2], [3, −1]],
W₂ = [[2, 1]] (no biases) give 3 at (0, 1) without activation and 4 with ReLU.
"""

from __future__ import annotations

import numpy as np

from relulab.model.mlp import MLP

#: Seed 002's worked example (one row per neuron).
LESSON_W1 = np.array([[1.0, 2.0], [3.0, -1.0]])
LESSON_W2 = np.array([[2.0, 1.0]])


def lesson_network(activation: str = "identity") -> MLP:
    """The lesson's 2-2-1 network with zero biases: f(0, 1) = 3 (identity), 4 (ReLU)."""
    return MLP([(LESSON_W1, np.zeros(2)), (LESSON_W2, np.zeros(1))], activation)


def _affine_through(net: MLP, n_layers: int) -> tuple[np.ndarray, np.ndarray]:
    A = np.eye(net.n_in)
    c = np.zeros(net.n_in)
    for W, b in net.layers[:n_layers]:
        A = W @ A
        c = W @ c + b
    return A, c


def collapse(net: MLP) -> tuple[np.ndarray, np.ndarray]:
    """``(A, c)`` with A = W_L ⋯ W₁ and c = W_L(⋯(W₂b₁ + b₂)⋯) + b_L, so that
    net(x) = A x + c for every x when the activation is the identity.

    Raises ValueError for any other activation, where no such map exists.
    """
    if net.activation != "identity":
        raise ValueError(
            f"only identity networks collapse into one affine map; this one uses {net.activation}")
    return _affine_through(net, len(net.layers))


def collapsed_network(net: MLP) -> MLP:
    """The one-layer network x ↦ A x + c equal to the identity network ``net``."""
    A, c = collapse(net)
    return MLP([(A, c)], "identity")


def collapse_error(net: MLP, X=None) -> float:
    """max |net(x) − (A x + c)| over the points X (default: a 21 × 21 grid on [−3, 3]²
    plus the corners of [−100, 100]^n for 2-D input). Floating-point size, ≈ 1e-15."""
    A, c = collapse(net)
    if X is None:
        if net.n_in == 2:
            g = np.linspace(-3, 3, 21)
            X = np.c_[np.repeat(g, 21), np.tile(g, 21)]
            X = np.vstack([X, [[-100, -100], [-100, 100], [100, -100], [100, 100]]])
        else:
            X = np.random.default_rng(0).normal(size=(256, net.n_in))
    X = np.asarray(X, float).reshape(-1, net.n_in)
    return float(np.max(np.abs(net(X) - (X @ A.T + c)), initial=0.0))


def neuron_affine_map(net: MLP, layer: int, index: int) -> tuple[np.ndarray, float]:
    """For an identity network, neuron ``index`` of layer ``layer`` (1-based, the
    output layer is ``len(net.layers)``) computes x ↦ a·x + c: returns ``(a, c)``."""
    if net.activation != "identity":
        raise ValueError("a neuron has one affine map only in an identity network")
    _check_neuron(net, layer, index)
    A, c = _affine_through(net, layer)
    return A[index].copy(), float(c[index])


def neuron_values(net: MLP, X, layer: int, index: int, activated: bool = True) -> np.ndarray:
    """What neuron ``index`` of layer ``layer`` (1-based) outputs at the points X:
    φ(z) for hidden neurons when ``activated`` (else the pre-activation z); the
    output neuron's z."""
    _check_neuron(net, layer, index)
    zs = net.forward(X)
    z = zs[layer - 1][:, index]
    if activated and layer < len(net.layers):
        from relulab.model.activations import get_activation

        return get_activation(net.activation)(z)
    return z


def _check_neuron(net: MLP, layer: int, index: int) -> None:
    if not (1 <= layer <= len(net.layers)):
        raise ValueError(f"layer must be between 1 and {len(net.layers)}, got {layer}")
    width = net.layers[layer - 1][0].shape[0]
    if not (0 <= index < width):
        raise ValueError(f"layer {layer} has {width} neurons; no neuron {index}")


def format_affine(a, c: float, digits: int = 3) -> str:
    """'1.234·x₁ − 0.5·x₂ + 0.1' for a map x ↦ a·x + c."""
    subs = "₁₂₃₄₅₆₇₈₉"
    parts = []
    for i, w in enumerate(np.atleast_1d(a)):
        name = f"x{subs[i]}" if i < len(subs) else f"x{i + 1}"
        sign = "−" if w < 0 else "+"
        term = f"{abs(w):.{digits}g}·{name}"
        parts.append(("−" + term) if (not parts and w < 0) else (term if not parts else f"{sign} {term}"))
    sign = "−" if c < 0 else "+"
    parts.append(f"{sign} {abs(c):.{digits}g}")
    return " ".join(parts)
