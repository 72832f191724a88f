"""The Deep → shallow panel's network as a script: its weights, and for one input the
exact kinks (Fraction arithmetic, as in the Folding export) and a one-hidden-layer sum
of hinges checked equal to it exactly. The least-width choice of the app's 1-D
construction and the n-D construction (exact region enumeration) are not redone: the
script says so."""

from __future__ import annotations

from relulab.io.codegen.folding import EXACT_KINKS
from relulab.io.codegen.sources import Section, literal
from relulab.model.lessons.converter import ConverterState

_ONE_D = '''exact = exact_layers(layers)
ks = kinks(exact)


def deep(x):
    return pre_activations(exact, Fraction(x), len(exact) - 1)


# the shallow network: f(t₁) + s₀·(x − t₁) + Σ cᵢ·ReLU(x − tᵢ), per output, exactly
points = segments(ks)
values = [deep(x) for x in points]
slopes = [[(v1 - v0) / (x1 - x0) for v0, v1 in zip(y0, y1)]
          for x0, x1, y0, y1 in zip(points, points[1:], values, values[1:])]
jumps = [[r - s for s, r in zip(left, right)] for left, right in zip(slopes, slopes[1:])]
start = points[1] if ks else points[0]
base = deep(start)


def shallow(x):
    x = Fraction(x)
    return [b + s * (x - start) + sum((c[o] * max(x - t, Fraction(0)) for t, c in zip(ks, jumps)),
                                      Fraction(0))
            for o, (b, s) in enumerate(zip(base, slopes[0]))]


checks = [*ks, *(p for p in points)]
equal = all(deep(x) == shallow(x) for x in checks) and slopes[-1] == [
    s + sum(c[o] for c in jumps) for o, s in enumerate(slopes[0])]
print(f"1-D: K = {len(ks)} kinks, exactly; the sum of {len(ks)} hinges and a line equals "
      f"the deep network: {equal}")
print(f"kinks = {len(ks)}")
print(f"equal = {equal}")'''

_N_D = '''rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, (5, layers[0][0].shape[1]))
h = X
for i, (W, b) in enumerate(layers):
    z = h @ W.T + b
    h = np.maximum(z, 0.0) if i < len(layers) - 1 else z
print("the deep network at five random points:")
print(h)
# Not redone here: the app enumerates the exact activation regions of the input space
# (relulab.model.regions) and builds the extended three-hidden-layer shallow network
# from them (relulab.model.shallow); that needs the region engine, not plain numpy.'''


def sections(state: ConverterState) -> list[Section]:
    net = state.network
    rows = ",\n    ".join(f"({literal(W)}, {literal(b)})" for W, b in net.layers)
    network = f"layers = [\n    {rows},\n]  # (W, b) per layer, W of shape (out, in); ReLU between"
    one_d = net.n_in == 1
    imports = "from fractions import Fraction\n\nimport numpy as np" if one_d else "import numpy as np"
    out = [Section("Imports", "", imports),
           Section("Network", f"The {'-'.join(map(str, net.sizes))} ReLU network in the panel "
                   "(from " + state.source + ").", network)]
    if one_d:
        out += [Section("Exact kinks", "The kinks of a network of one input, in rational "
                        "arithmetic from its double weights.", EXACT_KINKS),
                Section("Run", "The kinks, and a one-hidden-layer network equal to the deep "
                        "one (not always of the least width: the app chooses the neurons' "
                        "directions to save one).", _ONE_D)]
    else:
        out.append(Section("Run", "For more than one input the conversion is not redone "
                           "here (see the comment); the script evaluates the network.", _N_D))
    return out


def header(state: ConverterState) -> str:
    net = state.network
    return ("The ReLU Lab Deep → shallow panel's network, exported: its weights and, for one\n"
            "input, its exact kinks and an equal one-hidden-layer network, checked in\n"
            f"fractions. This network: {'-'.join(map(str, net.sizes))}"
            + ("" if net.n_in == 1 else " (its conversion is not redone here)") + ".")
