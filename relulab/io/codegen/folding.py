"""The Folding panel's experiment as a script: the tent network and the user's fold
composed with itself, built with the app's own double weights, and their kinks found
with exact rational arithmetic (``fractions.Fraction``), as the panel counts them."""

from __future__ import annotations

from relulab.io.codegen.sources import Section
from relulab.model.lessons.folding import FoldingState

_NETWORKS = '''def fold_network(w, b, a, c, depth):
    """u(x) = Σ aᵢ·ReLU(wᵢx + bᵢ) + c composed ``depth`` times, as the app builds it:
    layers (W, b) with W of shape (out, in); the maps between copies merge into
    W = w aᵀ and b = w c + b (computed in doubles, as the app does)."""
    w = np.asarray(w, dtype=float)[:, None]
    b = np.asarray(b, dtype=float)
    a = np.asarray(a, dtype=float)[None, :]
    layers = [(w, b)]
    for _ in range(depth - 1):
        layers.append((w @ a, w[:, 0] * c + b))
    layers.append((a, np.array([c])))
    return layers


def tent(peak):
    """The tent with its top at p: (1/p) ReLU(x) − (1/p + 1/(1 − p)) ReLU(x − p)."""
    p = float(peak)
    return (1.0, 1.0), (0.0, -p), (1.0 / p, -(1.0 / p + 1.0 / (1.0 - p))), 0.0'''

EXACT_KINKS = '''def exact_layers(layers):
    """The network's double weights as exact fractions."""
    return [([[Fraction(float(v)) for v in row] for row in W], [Fraction(float(v)) for v in bias])
            for W, bias in layers]


def pre_activations(layers, x, upto):
    """The pre-activations of layer ``upto`` (from 0) at the input x, exactly."""
    h = [x]
    for i, (W, bias) in enumerate(layers[:upto + 1]):
        z = [sum((wij * hj for wij, hj in zip(row, h)), Fraction(0)) + bi
             for row, bi in zip(W, bias)]
        if i < upto:
            h = [max(v, Fraction(0)) for v in z]
    return z


def segments(knots):
    """Points that bound the line's pieces between the knots, rays included: the
    network is affine between consecutive ones (it is continuous)."""
    if not knots:
        return [Fraction(0), Fraction(1)]
    return [knots[0] - 1, *knots, knots[-1] + 1]


def kinks(layers):
    """The exact kinks of a network of one input: layer by layer, every neuron's zero
    crossings on the pieces the earlier layers make are added as knots; then the knots
    where the output's slope changes are the kinks."""
    knots = []
    for layer in range(len(layers) - 1):
        points = segments(knots)
        values = [pre_activations(layers, x, layer) for x in points]
        found = set(knots)
        last = len(points) - 2
        for j, (x0, x1, z0, z1) in enumerate(zip(points, points[1:], values, values[1:])):
            for u, v in zip(z0, z1):
                if u == v:
                    continue  # constant on this piece: no zero crossing
                t = x0 + (x1 - x0) * u / (u - v)  # where the neuron's z is 0
                if not knots:
                    found.add(t)  # one affine piece: the whole line
                elif (j == 0 and t < x1) or (j == last and t > x0) or x0 < t < x1:
                    found.add(t)  # on a ray, or inside an interval
        knots = sorted(found)
    points = segments(knots)
    out = [pre_activations(layers, x, len(layers) - 1) for x in points]
    slopes = [[(v1 - v0) / (x1 - x0) for v0, v1 in zip(y0, y1)]
              for x0, x1, y0, y1 in zip(points, points[1:], out, out[1:])]
    return [t for t, left, right in zip(knots, slopes, slopes[1:]) if left != right]  # any output


def counts(layers):
    """(pieces on [0, 1], kinks on the whole line), exactly."""
    ks = kinks(layers)
    return 1 + sum(1 for t in ks if 0 < t < 1), len(ks)'''


def sections(state: FoldingState) -> list[Section]:
    f = state.fold
    depth = state.depth
    run = (f"DEPTH = {depth}\nPEAK = {state.peak!r}\n"
           f"FOLD = ({list(f.w)!r}, {list(f.b)!r}, {list(f.a)!r}, {f.c!r})\n\n"
           "pieces, n_kinks = counts(exact_layers(fold_network(*tent(PEAK), DEPTH)))\n"
           "print(f\"tent at peak {PEAK:g}, depth {DEPTH}: {pieces} pieces on [0, 1], \"\n"
           "      f\"{n_kinks} kinks on the line, {2 * DEPTH} neurons; one hidden layer needs \"\n"
           "      f\"{max(pieces - 1, 0)}\")\n"
           "print(f\"tent_pieces = {pieces}\")\nprint(f\"tent_kinks = {n_kinks}\")\n"
           "for depth in range(1, DEPTH + 1):\n"
           "    pieces, n_kinks = counts(exact_layers(fold_network(*FOLD, depth)))\n"
           "    print(f\"your fold composed {depth} times: {pieces} pieces on [0, 1], \"\n"
           "          f\"{n_kinks} kinks on the line\")\n"
           "    print(f\"fold_pieces[{depth}] = {pieces}\")\n"
           "    print(f\"fold_kinks[{depth}] = {n_kinks}\")")
    return [
        Section("Imports", "", "from fractions import Fraction\n\nimport numpy as np"),
        Section("Networks", "One small ReLU layer u composed with itself: the tent, and "
                "the fold in the panel's table.", _NETWORKS),
        Section("Exact kinks", "Every count is exact: the weights are the app's doubles, "
                "the arithmetic rational. The work grows with the pieces (2^depth for the "
                "tent): deep tents take long here, where the app uses faster certified "
                "doubles.", EXACT_KINKS),
        Section("Run", "The tent's and the fold's counts, as the panel shows them.", run),
    ]


def header(state: FoldingState) -> str:
    return ("The ReLU Lab Folding panel's experiment, exported: the tent and your fold\n"
            f"composed up to {state.depth} times, their pieces on [0, 1] and kinks on the\n"
            "line counted exactly with fractions, numpy only for the weights.")
