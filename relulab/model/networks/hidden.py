"""The hidden space: the data as a hidden layer sees it.

The open questions: "hidden layers remap the inputs into a space where the problem becomes
linearly separable". Pick hidden layer l and two of its neurons i, j: each point x
goes to (h_{l,i}(x), h_{l,j}(x)), the neurons' outputs after their activation. When l
is the last hidden layer and has exactly these two neurons (a 2-neuron bottleneck),
the output layer reads nothing else, so its scores are an affine map of these
coordinates, s = W_out h + b_out, and its decision boundary there is a line (a few
lines, for several classes): training moves the points until such lines separate
them. Otherwise the picture is a projection: later layers bend the coordinates again,
or other neurons of the layer also feed the output, and no boundary in these two
coordinates exists to draw.

:func:`separating_map` asks a linear program whether some line (some affine argmax,
for several classes) separates labelled points, and checks the answer on every point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relulab.model.networks.activations import get_activation
from relulab.model.networks.mlp import MLP


@dataclass(frozen=True, eq=False)
class HiddenSpace:
    """Points in the coordinates of two hidden neurons, and the output layer there.

    ``points`` (N, 2): (h_i, h_j) of each point. ``linear``: the output scores are
    x ↦ ``A`` h + ``c`` in these coordinates (A (m, 2); m = 1 is a logit); otherwise A
    and c are None and ``note`` says why."""

    layer: int
    neurons: tuple[int, int]
    points: np.ndarray
    linear: bool
    A: np.ndarray | None
    c: np.ndarray | None
    note: str


def hidden_space(net: MLP, X, layer: int, i: int, j: int) -> HiddenSpace:
    """The points ``X`` (N, n_in) in the coordinates of neurons ``i`` and ``j`` (counted
    from 0) of hidden layer ``layer`` (counted from 1), after the layer's activation,
    with the output layer's affine map there when the output depends on these two
    coordinates alone."""
    hidden = net.hidden_sizes
    if not 1 <= layer <= len(hidden):
        raise ValueError(f"the network has {len(hidden)} hidden layer(s); no hidden layer {layer}")
    width = hidden[layer - 1]
    for n in (i, j):
        if not 0 <= n < width:
            raise ValueError(f"hidden layer {layer} has {width} neuron(s); no neuron {n + 1}")
    if i == j:
        raise ValueError("pick two different neurons")
    X = np.asarray(X, dtype=float).reshape(-1, net.n_in)
    z = net.forward(X)[layer - 1]
    h = get_activation(net.activations[layer - 1]).f(z)
    points = np.ascontiguousarray(h[:, [i, j]])
    last = layer == len(hidden)
    if last and width == 2:
        W, b = net.layers[-1]
        return HiddenSpace(layer, (i, j), points, True, W[:, [i, j]].copy(), b.copy(),
                           "The output layer reads these two coordinates alone: its boundary "
                           "here is a line.")
    if not last:
        note = (f"Later layers bend these coordinates again (layer {layer} of {len(hidden)}): "
                "the boundary is a line only in the last hidden layer's space.")
    else:
        note = (f"The output also reads the other {width - 2} neuron(s) of this layer: no "
                "boundary in these two coordinates alone (a 2-neuron last layer has one).")
    return HiddenSpace(layer, (i, j), points, False, None, None, note)


def separating_map(points, labels, classes: int = 2):
    """An affine map that separates labelled points in the plane (or any dimension), or
    None when the linear program finds none.

    Two classes: (w, b) with y_s (w·p_s + b) ≥ 1 for every point (y = ±1): a line with
    class 1 on its positive side. C classes: (W (C, d), c) with
    (W_y − W_k)·p + (c_y − c_k) ≥ 1 for every point and every other class k: argmax
    separates them. The margin 1 fixes the scale (any separating map scaled up has it),
    so the program is feasible exactly when the classes are strictly separable. A
    found map is checked on every point before it is returned; points of different
    classes at the same place make it infeasible."""
    from scipy.optimize import linprog

    P = np.asarray(points, dtype=float)
    P = P.reshape(len(P), -1)
    y = np.asarray(labels).astype(int).reshape(-1)
    if len(P) != len(y):
        raise ValueError(f"{len(P)} points but {len(y)} labels")
    if not np.all(np.isfinite(P)):
        raise ValueError("the points must be finite")
    n, d = P.shape
    present = np.unique(y)
    if len(present) <= 1:  # one class (or none): any map does
        return (np.zeros(d), 1.0) if classes == 2 else (np.zeros((classes, d)), np.zeros(classes))
    # scale the coordinates: the program's tolerances are absolute
    centre = P.mean(axis=0)
    spread = float(np.abs(P - centre).max()) or 1.0
    Q = (P - centre) / spread
    if classes == 2:
        s = np.where(y == 1, 1.0, -1.0)
        A_ub = -s[:, None] * np.c_[Q, np.ones(n)]
        res = linprog(np.zeros(d + 1), A_ub=A_ub, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1),
                      method="highs")
        if res.status != 0:
            return None
        w, b0 = res.x[:d] / spread, float(res.x[d])
        b = b0 - float(w @ centre)
        margin = s * (P @ w + b)
        return (w, b) if np.all(margin > 0) else None
    C = int(classes)
    rows = []
    for k in range(C):
        others = y != k
        # (W_y − W_k)·q + (c_y − c_k) ≥ 1 for the points of another class y
        idx = np.flatnonzero(others)
        R = np.zeros((len(idx), C * (d + 1)))
        for col in range(d + 1):
            vals = Q[idx, col] if col < d else np.ones(len(idx))
            R[np.arange(len(idx)), y[idx] * (d + 1) + col] -= vals
            R[:, k * (d + 1) + col] += vals
        rows.append(R)
    A_ub = np.vstack(rows)
    res = linprog(np.zeros(C * (d + 1)), A_ub=A_ub, b_ub=-np.ones(len(A_ub)),
                  bounds=[(None, None)] * (C * (d + 1)), method="highs")
    if res.status != 0:
        return None
    M = res.x.reshape(C, d + 1)
    W = M[:, :d] / spread
    c = M[:, d] - W @ centre
    scores = P @ W.T + c
    right = scores[np.arange(n), y]
    scores[np.arange(n), y] = -np.inf
    return (W, c) if np.all(right > scores.max(axis=1)) else None
