"""Dense feed-forward networks: x ↦ W_L φ_{L−1}(… φ₁(W₁x + b₁) …) + b_L.

Hidden layer l applies its activation φ_l (one name for every layer, or one name per
hidden layer); the last layer is linear.

A network has one dict form, :meth:`MLP.to_dict` and :meth:`MLP.from_dict`: the JSON
document of docs/network-format.md. Network files, scenes and every panel state that
holds a network write it and read it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from relulab.model.core.fields import Fields
from relulab.model.networks.activations import ACTIVATIONS, get_activation

#: The dict form's ``format`` and ``version`` (docs/network-format.md); a dict without
#: them is read as this version.
NETWORK_FORMAT = "relulab-network"
NETWORK_VERSION = 1
#: What :meth:`MLP.from_dict` takes unless the caller asks for less, the same limits as
#: a network file: 4,000,000 parameters are about 80 MB of JSON, and weights up to
#: 1e100 stay far inside a double through a few layers.
MAX_LAYERS = 10_000
MAX_PARAMETERS = 4_000_000
MAX_WEIGHT = 1e100

#: An activation as given: one name, or one name per hidden layer.
ActivationSpec = str | Sequence[str]


def _as_layer(W: ArrayLike, b: ArrayLike, index: int) -> tuple[np.ndarray, np.ndarray]:
    weights = np.array(W, dtype=float, copy=True)
    biases = np.array(b, dtype=float, copy=True)
    if weights.ndim == 1:
        weights = weights[None, :]
    if weights.ndim != 2:
        raise ValueError(f"layer {index + 1}: weights must be a matrix, got {weights.ndim} "
                         "dimensions")
    biases = biases.reshape(-1)
    # a layer of no neurons, or a network of no inputs, computes nothing the lessons
    # show (a constant at best), and every analysis takes maxima over the neurons
    if weights.shape[0] == 0:
        raise ValueError(f"layer {index + 1}: 0 neurons; every layer needs at least one")
    if weights.shape[1] == 0:
        raise ValueError(f"layer {index + 1}: 0 inputs; every neuron needs at least one")
    if biases.shape[0] != weights.shape[0]:
        raise ValueError(
            f"layer {index + 1}: {weights.shape[0]} neurons but {biases.shape[0]} biases"
        )
    weights.setflags(write=False)
    biases.setflags(write=False)
    return weights, biases


def normalise_activation(activation: ActivationSpec, n_hidden: int) -> str | tuple[str, ...]:
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


def activation_field(f: Fields, n_hidden: int,
                     names: Collection[str] = tuple(ACTIVATIONS)) -> str | tuple[str, ...]:
    """The ``activation`` field of a dict read through ``f``: one of ``names``, or a list
    of one per hidden layer (its length checked before its names); normalised as
    :func:`normalise_activation` does. ValueError naming the field otherwise."""
    v = f.get("activation")
    if isinstance(v, str):
        return f.choice("activation", list(names))
    where = f.name("activation")
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{where}: expected a name or a list of one name per hidden layer, "
                         f"got {type(v).__name__}")
    if len(v) != n_hidden:
        raise ValueError(f"{where}: {len(v):,} names for {n_hidden} hidden layers")
    for i, name in enumerate(v):
        if not isinstance(name, str) or name not in names:
            shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:37] + "…"
            raise ValueError(f"{where}[{i}]: expected one of {', '.join(names)}, got {shown}")
    return normalise_activation(tuple(v), n_hidden)


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

    def __init__(self, layers: Iterable[tuple[ArrayLike, ArrayLike]],
                 activation: ActivationSpec = "relu"):
        checked = tuple(_as_layer(W, b, i) for i, (W, b) in enumerate(layers))
        if not checked:
            raise ValueError("a network needs at least one layer")
        for i, ((W_prev, _), (W, _)) in enumerate(pairwise(checked), start=1):
            if W.shape[1] != W_prev.shape[0]:
                raise ValueError(
                    f"layer {i + 1} expects {W.shape[1]} inputs but layer {i} "
                    f"has {W_prev.shape[0]} neurons"
                )
        object.__setattr__(self, "layers", checked)
        object.__setattr__(self, "activation", normalise_activation(activation, len(checked) - 1))

    # -- construction -------------------------------------------------------
    @classmethod
    def random(cls, sizes: Sequence[int], seed: int | Sequence[int] | None = None,
               activation: ActivationSpec = "relu", init: str = "he") -> MLP:
        """A network with layer sizes ``sizes`` = [n_in, n_1, …, n_out].

        ``init="he"``: W ~ N(0, 2/fan_in), b ~ U(−0.5, 0.5) so that kinks and
        region boundaries fall near the origin rather than all through it.
        ``init="uniform"``: W, b ~ U(−1, 1).
        """
        sizes = [int(s) for s in sizes]
        if len(sizes) < 2 or min(sizes) < 1:
            raise ValueError(f"sizes must list at least two positive layer sizes, got {sizes}")
        rng = np.random.default_rng(seed)
        layers: list[tuple[np.ndarray, np.ndarray]] = []
        for n_in, n_out in pairwise(sizes):
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
    def _inputs(self, x: ArrayLike) -> tuple[np.ndarray, bool]:
        a = np.asarray(x, dtype=float)
        flat = False
        if a.ndim == 0:
            a = a.reshape(1, 1) if self.n_in == 1 else a.reshape(1, -1)
            flat = self.n_in == 1
        elif a.ndim == 1 and self.n_in == 1:
            a = a[:, None]
            flat = True
        elif a.ndim == 1 and a.shape[0] == self.n_in:
            a = a[None, :]
        if a.ndim != 2 or a.shape[1] != self.n_in:
            raise ValueError(f"expected inputs of shape (N, {self.n_in}), got {np.shape(a)}")
        return a, flat

    def forward(self, x: ArrayLike) -> list[np.ndarray]:
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

    def __call__(self, x: ArrayLike) -> np.ndarray:
        """Outputs for inputs ``x`` of shape (N, n_in), or (N,) when n_in = 1.

        A 1-D input with one output gives a 1-D result.
        """
        xx, flat = self._inputs(x)
        out = self.forward(xx)[-1]
        if flat and self.n_out == 1:
            return out[:, 0]
        return out

    def activation_patterns(self, x: ArrayLike) -> np.ndarray:
        """Boolean (N, hidden neurons): neuron on where its pre-activation is > 0."""
        zs = self.forward(x)[:-1]
        if not zs:
            return np.zeros((len(np.atleast_1d(np.asarray(x))), 0), dtype=bool)
        return np.concatenate([z > 0 for z in zs], axis=1)

    # -- slices ---------------------------------------------------------------
    def restrict(self, origin: ArrayLike, directions: ArrayLike) -> MLP:
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

    # -- the dict form ------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The network as the JSON document of docs/network-format.md: ``format``,
        ``version``, ``activation`` (a name, or a list of one per hidden layer) and
        ``layers``, each ``{"weights": rows of W, "biases": b}``, input side first.
        Floats are written as they are, so :meth:`from_dict` gives back the same bits."""
        return {"format": NETWORK_FORMAT, "version": NETWORK_VERSION,
                "activation": self.activation if isinstance(self.activation, str)
                else list(self.activation),
                "layers": [{"weights": W.tolist(), "biases": b.tolist()} for W, b in self.layers]}

    @classmethod
    def from_dict(cls, d: Any, *, where: str = "network", min_layers: int = 1,
                  max_layers: int = MAX_LAYERS, max_parameters: int = MAX_PARAMETERS,
                  max_weight: float = MAX_WEIGHT, activations: Collection[str] = tuple(ACTIVATIONS),
                  sizes: Sequence[int] | None = None) -> MLP:
        """The network of a :meth:`to_dict` document, every field checked before anything
        is built; ValueError naming the field (``network.layers[1].weights[0][2]: …``)
        otherwise. ``format``, ``version`` and ``activation`` may be missing (a
        hand-written file: ``relu``).

        The keywords say what the caller takes: ``min_layers`` to ``max_layers`` layers,
        at most ``max_parameters`` weights and biases, each within ±``max_weight``, the
        hidden ``activations`` named; ``sizes`` the layer sizes expected ([n_in, …,
        n_out]). The cheap checks come first (the number of layers and the names before
        any weight), and weights are read against the parameter budget, so an oversized
        dict is refused before anything large is converted.
        """
        f = Fields(d, {"format": NETWORK_FORMAT, "version": NETWORK_VERSION, "activation": "relu"},
                   where)
        f.choice("format", [NETWORK_FORMAT])
        f.integer("version", 1, NETWORK_VERSION)
        raw = f.get("layers")
        if not isinstance(raw, (list, tuple)):
            raise ValueError(f"{where}.layers: expected a list of {min_layers} to {max_layers:,} "
                             f"layers, got {type(raw).__name__}")
        if sizes is not None and len(raw) != len(sizes) - 1:
            raise ValueError(f"{where}.layers: {len(raw):,} layers do not match the architecture "
                             f"{'-'.join(map(str, sizes))}")
        if not min_layers <= len(raw) <= max_layers:
            raise ValueError(f"{where}.layers: expected a list of {min_layers} to {max_layers:,} "
                             f"layers, got {len(raw):,}")
        activation = activation_field(f, len(raw) - 1, activations)
        f.done()
        layers = []
        width = None if sizes is None else int(sizes[0])
        budget = max_parameters
        for i, layer in enumerate(raw):
            g = Fields(layer, where=f"{where}.layers[{i}]")
            if budget < 1:
                raise ValueError(f"{g.where}: the network has more than {max_parameters:,} "
                                 "weights and biases")
            rows = None if sizes is None else int(sizes[i + 1])
            W = g.array("weights", (rows, width), budget, -max_weight, max_weight)
            if W.size == 0:
                raise ValueError(f"{g.name('weights')}: expected a row of weights for each neuron, "
                                 f"and a weight for each input, got shape "
                                 f"{'×'.join(map(str, W.shape))}")
            biases = g.get("biases")
            if isinstance(biases, (list, tuple)) and len(biases) != W.shape[0]:
                raise ValueError(f"{g.name('biases')}: {len(biases):,} biases for {W.shape[0]} rows "
                                 "of weights")
            b = g.array("biases", (W.shape[0],), W.shape[0], -max_weight, max_weight)
            g.done()
            budget -= W.size + b.size
            if budget < 0:
                raise ValueError(f"{g.where}: the network has more than {max_parameters:,} weights "
                                 "and biases")
            layers.append((W, b))
            width = W.shape[0]
        return cls(layers, activation)

    # -- helpers ------------------------------------------------------------
    def with_activation(self, activation: ActivationSpec) -> MLP:
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


def same_network(a: MLP, b: MLP) -> bool:
    """Equal sizes, activation and weights (MLP objects compare by identity)."""
    return a is b or (a.activation == b.activation and len(a.layers) == len(b.layers) and all(
        np.array_equal(Wa, Wb) and np.array_equal(ba, bb)
        for (Wa, ba), (Wb, bb) in zip(a.layers, b.layers, strict=True)))
