"""What a command will build, before it builds it: parameters, bytes on disk and a rough
time, and a proven lower bound on the regions of a network that costs no enumeration.

Sizes are counted from the shapes the construction and the file formats use
(:func:`relulab.model.shallow.extended.shallow_from_regions`,
:func:`relulab.io.networks.network_to_bytes`): the parameters and an NPZ's bytes
exactly, JSON's bytes as a bound below (no weight is shorter than ``0.0``, five bytes
with its separator; no scale shorter than ``0``, three) and as an estimate.
Times are rough: the costs per unit of work below are the CPU time the work took on
the project's machine, what a quiet machine takes (a busy one takes longer: the
README's plane, stated "about 60 s", took 44 s of CPU and 4.5 min of wall time on
two cores shared at a load of 8); a row of ``python -m benchmarks commands`` compares
the estimate with the work itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

#: An NPZ member's bytes beyond its numbers and twice its name: the .npy header (128
#: bytes for these arrays), the zip file's local header with its zip64 field and its
#: central directory entry.
NPZ_MEMBER_BYTES = 128 + 30 + 20 + 46 + 8
#: No weight in our JSON is shorter than 0.0: five bytes with ", "; no scale (0, "inf",
#: "-inf") shorter than 0: three.
JSON_MIN_NUMBER_BYTES = 5
JSON_MIN_SCALE_BYTES = 3
#: A weight that is not 0 or ±1 is written with up to 17 significant digits: about
#: twenty bytes with its sign, point, exponent and separator.
JSON_LONG_NUMBER_BYTES = 22
#: Seconds per unit of work (see the module's docstring).
SECONDS_PER_DENSE_ENTRY = 1e-7            # building the extended network's matrices
SECONDS_PER_POINT_NEURON = 5e-8           # the check: one point through one neuron
SECONDS_PER_NPZ_BYTE = 1.5e-9
SECONDS_PER_JSON_NUMBER = 2e-7


@dataclass(frozen=True)
class Layout:
    """The arrays a network is written as: per layer its shape (outputs, inputs), whether
    it has ±∞ rows (then S, V and v are written too) and how many of them; plus how many
    of its numbers are long decimals in JSON (the rest are 0 or ±1)."""

    layers: tuple[tuple[int, int, int], ...]   # (outputs, inputs, infinite rows)
    long_numbers: int

    @property
    def sizes(self) -> list[int]:
        return [self.layers[0][1], *(out for out, _, _ in self.layers)]

    @property
    def parameters(self) -> int:
        """Counted as ``MLP.n_params`` and ``ExtendedNetwork.n_params`` count them: weights
        and biases, and for every infinite row its bracket and its scale."""
        return sum(o * i + o + inf * (i + 2) for o, i, inf in self.layers)

    def arrays(self) -> list[tuple[str, int]]:
        """(name, number of entries) of every array an NPZ of the network holds."""
        out = []
        for l, (o, i, inf) in enumerate(self.layers, start=1):
            out += [(f"W{l}", o * i), (f"b{l}", o)]
            if inf:
                out += [(f"S{l}", o), (f"V{l}", o * i), (f"v{l}", o)]
        return out

    @property
    def numbers(self) -> int:
        """Every number the file holds (a finite layer of an extended network has no
        S, V, v; an infinite one has them for all its rows)."""
        return sum(n for _, n in self.arrays())

    @property
    def dense_entries(self) -> int:
        return sum(o * i * (2 if inf else 1) for o, i, inf in self.layers)

    def npz_bytes(self) -> int:
        arrays = [*self.arrays(), ("activation", 2)]
        return sum(8 * n + NPZ_MEMBER_BYTES + 2 * len(name) for name, n in arrays) + 22

    def json_bytes_at_least(self) -> int:
        scales = sum(o for o, _, inf in self.layers if inf)
        return JSON_MIN_NUMBER_BYTES * (self.numbers - scales) + JSON_MIN_SCALE_BYTES * scales

    def json_bytes_about(self) -> int:
        return self.json_bytes_at_least() + (JSON_LONG_NUMBER_BYTES - JSON_MIN_NUMBER_BYTES) \
            * self.long_numbers

    def bytes_about(self, fmt: str) -> int:
        """Bytes on disk as ``fmt`` (ONNX holds float64 like NPZ)."""
        return self.json_bytes_about() if fmt == "json" else self.npz_bytes()

    def write_seconds(self, fmt: str) -> float:
        if fmt == "json":
            return SECONDS_PER_JSON_NUMBER * self.numbers
        return SECONDS_PER_NPZ_BYTE * self.npz_bytes()


def mlp_layout(sizes: Sequence[int]) -> Layout:
    """An ordinary network of layer sizes ``sizes``, every weight a long decimal."""
    layers = tuple((b, a, 0) for a, b in pairwise(sizes))
    return Layout(layers, sum(o * i + o for o, i, _ in layers))


def extended_layout(n: int, k: int, p: int, m: int, strict: int) -> Layout:
    """The three-hidden-layer network of n inputs, k constraints (``strict`` of them
    strict), p regions and m outputs (:func:`shallow_from_regions`'s shapes)."""
    from relulab.model.shallow.construction import corollary_terms

    w1, w2, w3 = corollary_terms(n, k, p, m)
    layers = ((w1, n, strict), (w2, w1, p), (w3, w2, 0), (m, w3, 0))
    # long decimals: each constraint's normal and offset; each region's affine map
    # (A_r and c_r, in both senses), the rest being 0 and ±1
    return Layout(layers, k * (n + 1) + w3 * (2 * n + 1))


def big_m_layout(layout: Layout) -> Layout:
    """The finite big-M stand-in of an extended network: the same shapes, no S, V, v."""
    return Layout(tuple((o, i, 0) for o, i, _ in layout.layers), layout.long_numbers)


def bytes_text(n: float) -> str:
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("kB", 1024)):
        if n >= size:
            return f"{n / size:.1f} {unit}" if n < 100 * size else f"{n / size:.0f} {unit}"
    return f"{n:.0f} bytes"


def check_points(p: int, facets: int, n_random: int) -> int:
    """How many points the conversion's check evaluates: a witness for each region, a
    point on each stored constraint of each region, and the random ones."""
    return p + facets + n_random


def build_seconds(layout: Layout) -> float:
    return SECONDS_PER_DENSE_ENTRY * layout.dense_entries


def verify_seconds(layout: Layout, points: int) -> float:
    return SECONDS_PER_POINT_NEURON * points * sum(o for o, _, _ in layout.layers)


# ---------------------------------------------------------------------------
# a lower bound on the regions, without the region engine
# ---------------------------------------------------------------------------
#: What :func:`regions_at_least` may look at: lines, knots along one, points in all.
BOUND_LINES = 128
BOUND_KNOTS = 20_000
BOUND_POINTS = 200_000


def regions_at_least(net, should_stop=None, lines: int = BOUND_LINES,
                     points: int = BOUND_POINTS, advance=None) -> int:
    """A proven lower bound on the number of activation regions of ``net`` (2 or more
    inputs), found without enumerating them: the distinct activation patterns at points
    where floating point proves every neuron's sign
    (:func:`relulab.model.regions.activation.certified_patterns`). Each such pattern is
    a region of its own, so the count never exceeds the true one.

    The points lie on lines just beside each first-layer hyperplane (regions crowd
    along them), one point between each two consecutive knots of the network along the
    line and one beyond each end, the knots found in floating point (a knot misplaced
    by rounding costs at most a region missed: nothing is counted unproven).
    ``advance()`` is called once a line."""
    from relulab.model.pieces.piecewise import line_pieces
    from relulab.model.regions.activation import certified_patterns

    W, b = (np.asarray(a, dtype=float) for a in net.layers[0])
    n = net.n_in
    norms = np.linalg.norm(W, axis=1)
    rows = [int(i) for i in np.flatnonzero(np.isfinite(norms) & (norms > 0))]
    found: set[bytes] = set()
    batch: list[np.ndarray] = []
    used = 0

    def count(P) -> None:
        pattern, proven = certified_patterns(net, P)
        for row in np.packbits(pattern[proven.all(axis=1)], axis=1):
            found.add(row.tobytes())

    directions_per_row = 2 * (n - 1)
    for i in rows[:max(1, lines // directions_per_row)]:
        if used >= points:
            break
        if should_stop is not None and should_stop():
            break
        u = W[i] / norms[i]
        foot = -b[i] / norms[i] * u
        # an orthonormal basis of the hyperplane's directions
        basis = np.linalg.svd(u[None, :])[2][1:]
        shift = 1e-6 * max(1.0, float(np.abs(foot).max()))
        for d in basis:
            for side in (-1.0, 1.0):
                origin = foot + side * shift * u
                try:
                    knots = np.asarray(line_pieces(net.restrict(origin, d), certify=False,
                                                   max_knots=BOUND_KNOTS).knots, dtype=float)
                except (ValueError, ArithmeticError, FloatingPointError):
                    continue  # too many knots, or values beyond doubles: another line
                knots = knots[np.isfinite(knots)]
                if len(knots):
                    reach = max(1.0, float(knots[-1] - knots[0]))
                    t = np.concatenate([[knots[0] - reach], (knots[1:] + knots[:-1]) / 2,
                                        [knots[-1] + reach]])
                else:
                    t = np.zeros(1)
                batch.append(origin + t[:, None] * d[None, :])
                used += len(t)
                if advance is not None:
                    advance()
        if sum(len(B) for B in batch) > 20_000:
            count(np.concatenate(batch))
            batch = []
    if batch:
        count(np.concatenate(batch))
    return max(1, len(found))


def lines_for_bound(net, lines: int = BOUND_LINES) -> int:
    """How many lines :func:`regions_at_least` walks at most (for a progress bar)."""
    W = np.asarray(net.layers[0][0], dtype=float)
    n = net.n_in
    rows = int(np.count_nonzero(np.linalg.norm(W, axis=1) > 0))
    per_row = 2 * (n - 1)
    return min(rows, max(1, lines // per_row)) * per_row
