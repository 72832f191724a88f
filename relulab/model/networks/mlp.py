"""Dense feed-forward networks: x ↦ W_L φ_{L−1}(… φ₁(W₁x + b₁) …) + b_L.

Hidden layer l applies its activation φ_l (one name for every layer, or one name per
hidden layer); the last layer is linear.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from relulab.model.networks.activations import get_activation


def _as_layer(W, b, index: int) -> tuple[np.ndarray, np.ndarray]:
    W = np.array(W, dtype=float, copy=True)
    b = np.array(b, dtype=float, copy=True)
    if W.ndim == 1:
        W = W[None, :]
    if W.ndim != 2:
        raise ValueError(f"layer {index + 1}: weights must be a matrix, got {W.ndim} dimensions")
    b = b.reshape(-1)
    if b.shape[0] != W.shape[0]:
        raise ValueError(
            f"layer {index + 1}: {W.shape[0]} neurons but {b.shape[0]} biases"
        )
    W.setflags(write=False)
    b.setflags(write=False)
    return W, b


def normalise_activation(activation, n_hidden: int):
    """One name, or a tuple of one name per hidden layer; a list whose names are all the
    same is that one name (the same network), an empty one is ``"relu"``. ValueError for
    unknown names or a list of the wrong length."""
    if isinstance(activation, str):
        get_activation(activation)
        return activation
    try:
        names = tuple(activation)
    except TypeError:
        raise ValueError(f"activation must be a name or a list of names, got {activation!r}") from None
    for name in names:
        if not isinstance(name, str):
            raise ValueError(f"activation names must be text, got {name!r}")
        get_activation(name)
    if len(names) != n_hidden:
        raise ValueError(f"{len(names)} activations for {n_hidden} hidden layers: give one name, "
                         "or one per hidden layer")
    if len(set(names)) <= 1:
        return names[0] if names else "relu"
    return names


@dataclass(frozen=True, eq=False)
class MLP:
    """A multilayer perceptron with layers ``(W, b)``, ``W`` of shape (out, in).

    ``f(x) = W_L h_{L−1} + b_L`` with ``h_0 = x`` and ``h_l = φ_l(W_l h_{l−1} + b_l)``.
    ``activation`` is one name (every hidden layer) or a tuple of one name per hidden
    layer; ``activations`` always lists one per hidden layer. The arrays are read-only:
    a network is a value, edits make a new one.
    """

    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    activation: str | tuple[str, ...] = "relu"

    def __init__(self, layers: Iterable[tuple[Sequence, Sequence]],
                 activation: str | Sequence[str] = "relu"):
        checked = tuple(_as_layer(W, b, i) for i, (W, b) in enumerate(layers))
        if not checked:
            raise ValueError("a network needs at least one layer")
        for i in range(1, len(checked)):
            if checked[i][0].shape[1] != checked[i - 1][0].shape[0]:
                raise ValueError(
                    f"layer {i + 1} expects {checked[i][0].shape[1]} inputs but layer {i} "
                    f"has {checked[i - 1][0].shape[0]} neurons"
                )
        object.__setattr__(self, "layers", checked)
        object.__setattr__(self, "activation", normalise_activation(activation, len(checked) - 1))

    # -- construction -------------------------------------------------------
    @classmethod
    def random(cls, sizes: Sequence[int], seed=None, activation: str | Sequence[str] = "relu",
               init: str = "he") -> MLP:
        """A network with layer sizes ``sizes`` = [n_in, n_1, …, n_out].

        ``init="he"``: W ~ N(0, 2/fan_in), b ~ U(−0.5, 0.5) so that kinks and
        region boundaries fall near the origin rather than all through it.
        ``init="uniform"``: W, b ~ U(−1, 1).
        """
        sizes = [int(s) for s in sizes]
        if len(sizes) < 2 or min(sizes) < 1:
            raise ValueError(f"sizes must list at least two positive layer sizes, got {sizes}")
        rng = np.random.default_rng(seed)
        layers = []
        for n_in, n_out in zip(sizes[:-1], sizes[1:]):
            if init == "he":
                W = rng.normal(0.0, np.sqrt(2.0 / n_in), (n_out, n_in))
                b = rng.uniform(-0.5, 0.5, n_out)
            elif init == "uniform":
                W = rng.uniform(-1, 1, (n_out, n_in))
                b = rng.uniform(-1, 1, n_out)
            else:
                raise ValueError(f"unknown initialisation {init!r}")
            layers.append((W, b))
        return cls(layers, activation)

    # -- shape --------------------------------------------------------------
    @property
    def sizes(self) -> list[int]:
        """[n_in, n_1, …, n_out]."""
        return [self.layers[0][0].shape[1]] + [W.shape[0] for W, _ in self.layers]

    @property
    def n_in(self) -> int:
        return self.layers[0][0].shape[1]

    @property
    def n_out(self) -> int:
        return self.layers[-1][0].shape[0]

    @property
    def hidden_sizes(self) -> list[int]:
        return self.sizes[1:-1]

    @property
    def n_params(self) -> int:
        """Σ (n_{l−1} + 1)·n_l: 177 for 2-8-8-8-1."""
        return sum(W.size + b.size for W, b in self.layers)

    @property
    def n_hidden_neurons(self) -> int:
        return sum(self.hidden_sizes)

    @property
    def activations(self) -> tuple[str, ...]:
        """The activation of each hidden layer, input side first."""
        if isinstance(self.activation, str):
            return (self.activation,) * (len(self.layers) - 1)
        return self.activation

    def uses_only(self, *names: str) -> bool:
        """True when every hidden layer's activation is one of ``names`` (vacuously
        true without hidden layers)."""
        return all(a in names for a in self.activations)

    # -- evaluation ---------------------------------------------------------
    def _inputs(self, x) -> tuple[np.ndarray, bool]:
        x = np.asarray(x, dtype=float)
        flat = False
        if x.ndim == 0:
            x = x.reshape(1, 1) if self.n_in == 1 else x.reshape(1, -1)
            flat = self.n_in == 1
        elif x.ndim == 1 and self.n_in == 1:
            x = x[:, None]
            flat = True
        elif x.ndim == 1 and x.shape[0] == self.n_in:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.n_in:
            raise ValueError(f"expected inputs of shape (N, {self.n_in}), got {np.shape(x)}")
        return x, flat

    def forward(self, x) -> list[np.ndarray]:
        """Pre-activations z_1 … z_L (the last one is the output), each (N, n_l)."""
        h, _ = self._inputs(x)
        phis = [get_activation(a) for a in self.activations]
        zs = []
        for i, (W, b) in enumerate(self.layers):
            z = h @ W.T + b
            zs.append(z)
            if i < len(phis):
                h = phis[i](z)
        return zs

    def __call__(self, x) -> np.ndarray:
        """Outputs for inputs ``x`` of shape (N, n_in), or (N,) when n_in = 1.

        A 1-D input with one output gives a 1-D result.
        """
        xx, flat = self._inputs(x)
        out = self.forward(xx)[-1]
        if flat and self.n_out == 1:
            return out[:, 0]
        return out

    def activation_patterns(self, x) -> np.ndarray:
        """Boolean (N, hidden neurons): neuron on where its pre-activation is > 0."""
        zs = self.forward(x)[:-1]
        if not zs:
            return np.zeros((len(np.atleast_1d(x)), 0), dtype=bool)
        return np.concatenate([z > 0 for z in zs], axis=1)

    # -- slices ---------------------------------------------------------------
    def restrict(self, origin, directions) -> MLP:
        """The network on the affine subspace x = o + Σᵢ tᵢ·dᵢ, as a network of the k
        coordinates t = (t₁ … t_k), k = len(directions).

        Slicing is composition with an affine map: only the first layer changes,
        W₁ ↦ W₁·D and b₁ ↦ W₁·o + b₁ (D the n × k matrix of the directions as columns);
        every later layer and the activations stay as they are. The two products are
        computed in floating point, so the restricted network is the slice up to the
        rounding of its first layer (a few units in the last place of each entry):
        its kinks and regions, computed exactly, are those of the slice through that
        rounding. ``directions`` need not be orthonormal (orthonormal ones keep
        distances: |t − t'| is the distance between the two points in input space).
        """
        W, b = self.layers[0]
        o = np.asarray(origin, dtype=float).reshape(-1)
        D = np.asarray(directions, dtype=float)
        if D.ndim == 1:
            D = D[None, :]
        if o.shape[0] != self.n_in:
            raise ValueError(f"the origin has {o.shape[0]} coordinates, the network "
                             f"{self.n_in} inputs")
        if D.ndim != 2 or D.shape[1] != self.n_in or D.shape[0] < 1:
            raise ValueError(f"expected directions of shape (k, {self.n_in}) with k ≥ 1, "
                             f"got {np.shape(directions)}")
        if not (np.all(np.isfinite(o)) and np.all(np.isfinite(D))):
            raise ValueError("the origin and the directions must be finite")
        first = (W @ D.T, W @ o + b)
        return MLP((first, *self.layers[1:]), self.activation)

    # -- helpers ------------------------------------------------------------
    def with_activation(self, activation: str | Sequence[str]) -> MLP:
        """The same weights with another activation (one name, or one per hidden layer)."""
        return MLP(self.layers, activation)

    def is_finite(self) -> bool:
        return all(np.all(np.isfinite(W)) and np.all(np.isfinite(b)) for W, b in self.layers)

    def __repr__(self) -> str:
        arch = "-".join(str(s) for s in self.sizes)
        act = self.activation if isinstance(self.activation, str) else list(self.activation)
        return f"MLP({arch}, activation={act!r}, params={self.n_params})"


def compose(first: MLP, second: MLP) -> MLP:
    """The network x ↦ second(first(x)).

    Because the last layer of ``first`` is linear and the first layer of ``second``
    is affine, the two merge into one affine layer: W = W₂ᶠ·W_Lᵉ, b = W₂ᶠ·b_Lᵉ + b₂ᶠ.
    The hidden layers keep their activations: ``first``'s, then ``second``'s.
    """
    if first.n_out != second.n_in:
        raise ValueError(f"cannot feed {first.n_out} outputs into {second.n_in} inputs")
    (Wl, bl), (Wf, bf) = first.layers[-1], second.layers[0]
    merged = (Wf @ Wl, Wf @ bl + bf)
    hidden = first.activations + second.activations
    return MLP([*list(first.layers[:-1]), merged, *list(second.layers[1:])],
               hidden if hidden else first.activation)
