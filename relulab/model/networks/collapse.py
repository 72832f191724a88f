"""The linear collapse: with the identity activation, stacked layers are one layer.

Two layers give W₂(W₁x + b₁) + b₂ = (W₂W₁)x + (W₂b₁ + b₂); by induction L layers
give one affine map x ↦ Ax + c with

    A = W_L ⋯ W₂ W₁,   c = W_L(⋯(W₂b₁ + b₂)⋯) + b_L.

With ReLU the equivalence breaks: the lesson's W₁ = [[1, 2], [3, −1]],
W₂ = [[2, 1]] (no biases) give 3 at (0, 1) without activation and 4 with ReLU.

With an activation per layer, identity on some hidden layers collapses just those
layers: an identity layer and the layer after it are one affine layer
(:func:`collapse_identity_layers`). Merged in doubles, W₂W₁ is rounded: the same
function up to rounding (:func:`collapse_check` bounds it), but not the same lines,
so regions are counted on :func:`relu_form`, a ReLU network equal to the one built
exactly (identity layers merged only where the exact products are doubles, and
otherwise written as ReLU pairs, h = ReLU(z) − ReLU(−z)). With piecewise-linear activations (ReLU, leaky
ReLU, identity) every neuron is affine on each activation region; :func:`local_affine_map`
gives that map around a point.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from relulab.model.networks.activations import get_activation
from relulab.model.networks.exact import U, as_scaled_integers, gamma
from relulab.model.networks.mlp import MLP

#: The lesson's worked example (one row per neuron).
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
    if not net.uses_only("identity"):
        raise ValueError("only networks whose every hidden layer is the identity collapse into "
                         f"one affine map; this one uses {_uses(net)}")
    return _affine_through(net, len(net.layers))


def _uses(net: MLP) -> str:
    acts = net.activations
    if len(set(acts)) == 1:
        return acts[0]
    return ", ".join(f"{a} on layer {i}" for i, a in enumerate(acts, start=1) if a != "identity")


def identity_layers(net: MLP) -> list[int]:
    """The hidden layers (counted from 1) whose activation is the identity."""
    return [i for i, a in enumerate(net.activations, start=1) if a == "identity"]


def collapse_identity_layers(net: MLP) -> MLP:
    """The same function with every identity hidden layer merged into the layer after it:
    W_{l+1}(W_l h + b_l) + b_{l+1} = (W_{l+1} W_l) h + (W_{l+1} b_l + b_{l+1}). The other
    layers and their activations stay; a network without identity layers comes back as it
    is, an all-identity one as one affine layer (as :func:`collapsed_network`)."""
    acts = net.activations
    if "identity" not in acts:
        return net
    layers, kept = [], []
    W, b = net.layers[0]
    for i in range(1, len(net.layers)):
        W2, b2 = net.layers[i]
        if acts[i - 1] == "identity":
            W, b = W2 @ W, W2 @ b + b2
        else:
            layers.append((W, b))
            kept.append(acts[i - 1])
            W, b = W2, b2
    layers.append((W, b))
    return MLP(layers, tuple(kept) if kept else "identity")


@dataclass(frozen=True, eq=False)
class ReluForm:
    """A ReLU network ``net`` that computes exactly, in exact arithmetic on its double
    weights, what the network as built computes: ``own`` marks, among its hidden
    neurons, those that are the built network's ReLU neurons (the others are the two
    halves of an identity neuron); ``merged`` and ``paired`` list the identity layers
    (counted from 1) merged into the next layer exactly, and written as ReLU pairs.
    The built network's activation regions are those of ``net`` told apart by the
    ``own`` neurons alone: each of its regions is convex, so a pattern of the own
    neurons seen in any of ``net``'s regions is exactly one of them."""

    net: MLP
    own: np.ndarray
    merged: tuple[int, ...]
    paired: tuple[int, ...]


@lru_cache(maxsize=16)  # networks are values: the panel asks several times for one
def relu_form(net: MLP) -> ReluForm | None:
    """The ReLU network equal to ``net`` (ReLU and identity hidden layers) for its
    regions: an identity layer is merged into the next one when every entry of the
    exact W₂W₁ and W₂b₁ + b₂ is a double (then nothing is rounded), and written as a
    ReLU pair [W₁; −W₁], [b₁; −b₁] feeding [W₂, −W₂] otherwise (negation is exact,
    and ReLU(z) − ReLU(−z) = z). None when another activation is on a hidden layer
    or no ReLU layer is left (the outputs are then one affine map)."""
    acts = net.activations
    if not net.uses_only("relu", "identity") or "relu" not in acts:
        return None
    if "identity" not in acts:
        return ReluForm(net, np.ones(net.n_hidden_neurons, dtype=bool), (), ())
    layers, own, merged, paired = [], [], [], []
    W, b = net.layers[0]
    for i in range(1, len(net.layers)):
        W2, b2 = net.layers[i]
        if acts[i - 1] == "relu":
            layers.append((W, b))
            own += [True] * W.shape[0]
            W, b = W2, b2
            continue
        exact = _exact_merge(W2, b2, W, b)
        if exact is not None:
            merged.append(i)
            W, b = exact
        else:
            paired.append(i)
            layers.append((np.vstack([W, -W]), np.concatenate([b, -b])))
            own += [False] * (2 * W.shape[0])
            W, b = np.hstack([W2, -W2]), b2
    layers.append((W, b))
    return ReluForm(MLP(layers, "relu"), np.array(own, dtype=bool), tuple(merged), tuple(paired))


def _exact_merge(W2, b2, W, b) -> tuple[np.ndarray, np.ndarray] | None:
    """(W2·W, W2·b + b2) when every entry of the exact results is a double (computed
    with integers: doubles are integers over a power of two); None otherwise, found at
    the first row that is not (trained weights fail at once)."""
    if not all(np.all(np.isfinite(a)) for a in (W2, b2, W, b)):
        return None
    M2, s2 = as_scaled_integers(W2)
    M1, s1 = as_scaled_integers(np.column_stack([W, b]))
    Mb, t = as_scaled_integers(b2)
    S = max(s1 + s2, t)
    up, den = 1 << (S - s1 - s2), 1 << S
    out = np.zeros((W2.shape[0], M1.shape[1]))
    for r in range(W2.shape[0]):
        row = M2[r].dot(M1) * up if M1.shape[0] else np.zeros(M1.shape[1], dtype=object)
        row[-1] += Mb[r] * (1 << (S - t))
        for k, p in enumerate(row):
            try:
                v = int(p) / den  # correctly rounded
            except OverflowError:
                return None
            num, d = v.as_integer_ratio()
            if d > den or num * (den // d) != p:
                return None
            out[r, k] = v
    return out[:, :-1], out[:, -1]


def collapsed_network(net: MLP) -> MLP:
    """The one-layer network x ↦ A x + c equal to the identity network ``net``."""
    A, c = collapse(net)
    return MLP([(A, c)], "identity")


def neuron_affine_map(net: MLP, layer: int, index: int) -> tuple[np.ndarray, float]:
    """When every hidden layer before layer ``layer`` (1-based, the output layer is
    ``len(net.layers)``) is the identity, the pre-activation of its neuron ``index`` is
    x ↦ a·x + c everywhere: returns ``(a, c)``."""
    _check_neuron(net, layer, index)
    if not all(a == "identity" for a in net.activations[:layer - 1]):
        raise ValueError("a neuron has one affine map only when every layer before it is the "
                         "identity")
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
        return get_activation(net.activations[layer - 1])(z)
    return z


#: Activations that are affine on each side of 0: each neuron is affine on every region.
PIECEWISE_LINEAR = ("relu", "leaky_relu", "identity")


def local_affine_map(net: MLP, x, layer: int | None = None,
                     index: int | None = None) -> tuple[np.ndarray, np.ndarray, bool]:
    """The affine map x ↦ A x + c that the network's outputs (``layer`` None), or the
    pre-activation z of neuron ``index`` of layer ``layer`` (1-based), equal around the
    point ``x``: on its activation region, when every hidden layer before is piecewise
    linear (ReLU, leaky ReLU, identity). Each hidden layer on the way multiplies by its
    slopes at x, D_l = diag(φ'_l(z_l(x))) (a ReLU neuron at z = 0 counts as off, as in
    the activation patterns). Returns ``(A, c, exact)``: A (m, n), c (m,), and ``exact``
    False when a smooth activation on the way makes it only the tangent map at x."""
    x = np.asarray(x, dtype=float).reshape(-1)
    if x.shape[0] != net.n_in:
        raise ValueError(f"expected a point with {net.n_in} coordinates, got {x.shape[0]}")
    upto = len(net.layers) if layer is None else int(layer)
    if layer is not None:
        _check_neuron(net, upto, 0 if index is None else index)
    acts = net.activations
    A, c = np.eye(net.n_in), np.zeros(net.n_in)
    exact = True
    for i in range(upto):
        W, b = net.layers[i]
        A, c = W @ A, W @ c + b
        if i == upto - 1:
            break
        z = A @ x + c
        if acts[i] not in PIECEWISE_LINEAR:
            exact = False
        slope = get_activation(acts[i]).df(z)
        h = get_activation(acts[i]).f(z)
        # the tangent of h at x: slope·(A x' + c) + (h − slope·z), exact on the region
        A, c = slope[:, None] * A, slope * c + (h - slope * z)
    if index is not None:
        A, c = A[index:index + 1], c[index:index + 1]
    return A, c, exact


def _check_neuron(net: MLP, layer: int, index: int) -> None:
    if not (1 <= layer <= len(net.layers)):
        raise ValueError(f"layer must be between 1 and {len(net.layers)}, got {layer}")
    width = net.layers[layer - 1][0].shape[0]
    if not (0 <= index < width):
        raise ValueError(f"layer {layer} has {width} neurons; no neuron {index}")


def format_affine(a, c: float, digits: int = 3) -> str:
    """'1.234·x₁ − 0.5·x₂ + 0.1' for a map x ↦ a·x + c."""
    subs = "₁₂₃₄₅₆₇₈₉"
    parts: list[str] = []
    for i, w in enumerate(np.atleast_1d(a)):
        name = f"x{subs[i]}" if i < len(subs) else f"x{i + 1}"
        sign = "−" if w < 0 else "+"
        term = f"{abs(w):.{digits}g}·{name}"
        parts.append(("−" + term) if (not parts and w < 0) else (term if not parts else f"{sign} {term}"))
    sign = "−" if c < 0 else "+"
    parts.append(f"{sign} {abs(c):.{digits}g}")
    return " ".join(parts)


#: The smallest subnormal double, 2⁻¹⁰⁷⁴: twice the largest absolute error of one
#: product that underflows (fl(a·b) = a·b·(1 + δ) + η with |η| ≤ 2⁻¹⁰⁷⁵; sums of
#: subnormals are exact).
UNDERFLOW = 2.0 ** -1074

#: How far a piecewise-linear activation can stretch a difference of its inputs.
_LIPSCHITZ = {"relu": 1.0, "identity": 1.0, "leaky_relu": 1.0}


def _merged_with_errors(net: MLP):
    """:func:`collapse_identity_layers`' layers as computed in doubles, each with a bound
    (EW, Eb) on how far its computed weights lie from the exact products: a product of
    n terms is off by at most γ_n times the product of the absolute values, plus
    n·2⁻¹⁰⁷⁵ where the products fall among the subnormals (:data:`UNDERFLOW`)."""
    acts = net.activations
    layers, kept = [], []
    W, b = net.layers[0]
    EW, Eb = np.zeros_like(W), np.zeros_like(b)
    for i in range(1, len(net.layers)):
        W2, b2 = net.layers[i]
        if acts[i - 1] == "identity":
            aW2, n = np.abs(W2), W2.shape[1]
            # the merge's n products and the bound's own 2n + 1 may each lose 2⁻¹⁰⁷⁵
            EW = aW2 @ EW + gamma(n) * (aW2 @ np.abs(W)) + (3 * n + 2) * UNDERFLOW
            Eb = aW2 @ Eb + gamma(n + 1) * (aW2 @ np.abs(b) + np.abs(b2)) + (3 * n + 2) * UNDERFLOW
            W, b = W2 @ W, W2 @ b + b2
        else:
            layers.append((W, b, EW, Eb))
            kept.append(acts[i - 1])
            W, b = W2, b2
            EW, Eb = np.zeros_like(W), np.zeros_like(b)
    layers.append((W, b, EW, Eb))
    return layers, kept


def _rounding_bound(layers, acts, X) -> np.ndarray:
    """A bound, per point and output, on |(the network evaluated in doubles) − (the
    network with exact weights, evaluated exactly)|, by running error analysis: each
    layer's z = W h + b is off by |W|·e + |h|·EW + Eb + γ_{n+1}(|W||h| + |b|), where e
    bounds the error of h; ReLU and the identity never stretch it, leaky ReLU's
    0.01·z adds one rounding. Among the subnormals a product is off by up to 2⁻¹⁰⁷⁵
    absolutely, whatever its size (γ·|W||h| underflows to 0 there): each of the
    layer's n products adds that, and so does each product the bound itself takes
    (4n + 2 in all per layer, counted generously). The bound is itself computed in
    doubles, whose own relative error (≈ γ_n) the final factor covers."""
    h = np.asarray(X, float)
    e = np.zeros_like(h)
    for i, (W, b, EW, Eb) in enumerate(layers):
        aW, ah = np.abs(W), np.abs(h)
        z = h @ W.T + b
        n = W.shape[1]
        e = (e @ aW.T + ah @ EW.T + Eb + gamma(n + 1) * (ah @ aW.T + np.abs(b))
             + (4 * n + 2) * UNDERFLOW)
        if i < len(acts):
            h = get_activation(acts[i])(z)
            if acts[i] == "leaky_relu":
                e = e + U * np.abs(h) + UNDERFLOW
    return e * (1.0 + 1e-6)


def collapse_check(net: MLP, X) -> tuple[float, bool | None, str]:
    """How the identity layers' collapse (:func:`collapse_identity_layers`) compares
    with the network on the points X: (max |network − collapsed| in doubles, verdict,
    words for it). The two are equal in exact arithmetic by construction; the verdict
    is True when every difference is within the proven rounding bound of the two
    evaluations, False when one is beyond it (which exact equality rules out), None
    when no bound is proven here: a layer's activation (tanh, sigmoid, GELU) is
    evaluated only approximately, or the values overflow doubles."""
    X = np.asarray(X, float).reshape(-1, net.n_in)
    with np.errstate(all="ignore"):
        flat = collapse_identity_layers(net)
        diff = np.abs(net(X).reshape(len(X), -1) - flat(X).reshape(len(X), -1))
        err = float(np.max(diff, initial=0.0))
        approximate = sorted({a for a in net.activations if a not in _LIPSCHITZ})
        if approximate:
            return err, None, (f"rounding, not bounded here: {', '.join(approximate)} "
                               "is evaluated approximately")
        whole = [(W, b, np.zeros_like(W), np.zeros_like(b)) for W, b in net.layers]
        merged, kept = _merged_with_errors(net)
        bound = _rounding_bound(whole, net.activations, X) + _rounding_bound(merged, kept, X)
    if not (np.all(np.isfinite(diff)) and np.all(np.isfinite(bound))):
        return err, None, "the values overflow doubles: no rounding bound"
    if diff.size == 0:
        return err, None, "no points to check"
    # the words name one point and that point's own bound: the verdict is per point,
    # and the largest bound beside another point's difference would judge nothing
    with np.errstate(all="ignore"):
        ratio = diff / bound  # the point nearest to (or furthest beyond) its bound
    p, o = np.unravel_index(int(np.argmax(np.where(np.isnan(ratio), 0.0, ratio))), diff.shape)
    first, second = _numbers(float(diff[p, o]), float(bound[p, o]))
    if np.all(diff <= bound):
        return err, True, f"tightest point {first} ≤ its proven bound {second}: equal"
    where = ", ".join(f"{v:.3g}" for v in X[p])
    out = f", output {o + 1}" if diff.shape[1] > 1 else ""
    return err, False, (f"at ({where}){out} {first} is beyond its rounding bound {second}: "
                        "NOT equal")


def _numbers(d: float, b: float) -> tuple[str, str]:
    """d and b printed with two significant digits, more when d > b would print as
    equal (printing rounds both the same way, so d ≤ b never prints reversed)."""
    for digits in range(1, 17):
        first, second = f"{d:.{digits}e}", f"{b:.{digits}e}"
        if d <= b or first != second:
            break
    return first, second
