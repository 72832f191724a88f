"""Deep → shallow: 1-D conversion, 2-D region maps, exact regions on all of R², whole
n-D conversions with their proof.

Baselines, measured in the same run: evaluating the deep network on a dense grid
(what a sampled picture would cost, and it still misses regions), the
linear-program enumeration of before (SciPy HiGHS, one program per undecided child)
and the check the region-by-region proof replaced (deep and shallow compared at
every region's witness, its feet on the stored boundaries and 2000 random points:
:func:`sampled_check`). The region engine against its peer, regioncam, is in
bench_regions."""

import itertools
import time

import numpy as np

from benchmarks.common import Row, median_time, small
from benchmarks.lp_regions import lp_region_count
from relulab.model.networks.mlp import MLP
from relulab.model.pieces.piecewise import piecewise_linear
from relulab.model.regions.activation import linear_regions, region_polygons
from relulab.model.shallow.construction import convert, magnitude, shallow_1d

BOX = (-3.0, 3.0, -3.0, 3.0)


def _grid_patterns(net, n=500):
    g = np.linspace(-3, 3, n)
    X = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    return len({row.tobytes() for row in net.activation_patterns(X)})


def _adversarial(seed: int, decades: float = 12.0) -> MLP:
    """A random deep 1-D network whose weights and biases span ``decades`` decades."""
    rng = np.random.default_rng(seed)
    depth = int(rng.integers(2, 9))
    sizes = [1] + [int(w) for w in rng.integers(1, 17, depth)] + [1]
    layers = []
    for a, b in itertools.pairwise(sizes):
        M = rng.normal(size=(b, a + 1)) * 10.0 ** rng.uniform(-decades / 2, decades / 2, (b, a + 1))
        layers.append((M[:, :-1], M[:, -1]))
    return MLP(layers)


def sampled_check(conv, n_random: int = 2000, seed: int = 0) -> tuple[bool, int]:
    """The n-D check before the proof (the baseline): deep and shallow at every
    region's witness, at the witness's foot on each of its stored boundaries and at
    ``n_random`` normal points, equal within 1e-9 of the size of the summed terms.
    Returns (equal, number of points)."""
    deep, shallow = conv.deep, conv.shallow
    pts = [r.witness for r in conv.regions]
    for r in conv.regions:
        for a, c in zip(r.normals, r.offsets):
            pts.append(r.witness - (a @ r.witness + c) * a)
    rng = np.random.default_rng(seed)
    P = np.concatenate([np.array(pts).reshape(-1, deep.n_in),
                        rng.normal(0.0, 2.0 * conv.scale(), (n_random, deep.n_in))])
    diff = np.abs(np.asarray(deep(P)).reshape(len(P), -1) - np.asarray(shallow(P)).reshape(len(P), -1))
    return bool(diff.max() <= 1e-9 * max(1.0, float(magnitude(deep, P).max()))), len(P)


def _proof_rows() -> list[Row]:
    """Whole conversions as the panel and ``relulab convert`` run them (regions,
    construction, check) in ≤ 2 s, against the same with the sampled check."""
    rows = []
    for sizes in small(([4, 8, 8, 1], [2, 32, 32, 1]), ([3, 4, 4, 1], [2, 6, 6, 1])):
        net = MLP.random(sizes, seed=0)
        done = convert(net)
        v = done.verify()

        def proved():
            convert(net).verify()

        def sampled():
            sampled_check(convert(net))

        ours = median_time(proved, repeat=5)
        base = median_time(sampled, repeat=1, warmup=0)
        equal, points = sampled_check(done)
        proof = v.proof
        rows.append(Row(f"{'-'.join(map(str, sizes))} → shallow, proven region by region "
                        f"({done.p} regions)", ours,
                        f"the same, checked at {points:,} sampled points", base,
                        max_seconds=2.0, min_ratio=2.0,
                        note=f"{proof.text()}; the sampled check says "
                        f"{'equal' if equal else 'NOT equal'}",
                        holds=bool(v.ok() and proof.proven and equal)))
    return rows


def _fallback_rate(nets) -> tuple[int, int, float]:
    """How many of ``nets`` needed the exact rational walk, and its total time."""
    exact, seconds = 0, 0.0
    for net in nets:
        stats = {}
        t0 = time.perf_counter()
        piecewise_linear(net, stats=stats)
        if stats["path"] == "exact":
            exact += 1
            seconds += time.perf_counter() - t0
    return exact, len(nets), seconds


def _one_d_rows() -> list[Row]:
    rows = []
    for sizes in small(([1, 16, 16, 16, 1], [1, 64, 64, 64, 64, 1], [1, 32, 32, 32, 32, 32, 32, 1]),
                       ([1, 8, 8, 1],)):
        net = MLP.random(sizes, seed=0)
        certified = median_time(lambda: piecewise_linear(net), repeat=9)
        plain = median_time(lambda: piecewise_linear(net, certify=False), repeat=9)
        rows.append(Row(f"1-D {'-'.join(map(str, sizes))} certified kinks "
                        f"({piecewise_linear(net).n_kinks})", certified,
                        "plain floating point (not certified)", plain, min_ratio=1 / 1.5))
    ordinary = [MLP.random([1] + [w] * d + [1], seed=s, init=init)
                for s in range(small(25, 2)) for (w, d, init) in ((8, 3, "he"), (32, 4, "uniform"))]
    adversarial = [_adversarial(s) for s in range(small(50, 4))]
    n_ord, total_ord, _ = _fallback_rate(ordinary)
    n_adv, total_adv, t_adv = _fallback_rate(adversarial)
    net = _adversarial(3)
    exact = median_time(lambda: piecewise_linear(net, exact=True), repeat=3)
    plain = median_time(lambda: piecewise_linear(net, certify=False), repeat=3)
    rows.append(Row(f"1-D exact rational walk, {'-'.join(map(str, net.sizes))} over 12 decades",
                    exact, "plain floating point (not certified)", plain,
                    "fallback on no ordinary network",
                    f"the exact fallback ran for {n_ord} of {total_ord} ordinary networks and "
                    f"{n_adv} of {total_adv} networks whose weights span 12 decades "
                    f"({t_adv:.2f} s for those)", holds=n_ord == 0))
    return rows


def run() -> list[Row]:
    rows = _one_d_rows()
    deep1 = MLP.random(small([1, 64, 64, 64, 64, 1], [1, 8, 8, 1]), seed=0)
    one = median_time(lambda: shallow_1d(deep1), repeat=7)
    grid1 = median_time(lambda: deep1(np.linspace(-5, 5, 100_000)), repeat=7)
    rows.append(Row(f"1-D {'-'.join(map(str, deep1.sizes))} → one hidden layer "
                    f"({shallow_1d(deep1).width} neurons)",
                    one, "deep net on a 100k-point grid", grid1, max_seconds=0.05))

    for sizes, budget in small((([2, 8, 8, 8, 1], 0.2), ([2, 16, 16, 16, 1], 2.0)),
                               (([2, 4, 4, 1], 0.2),)):
        net = MLP.random(sizes, seed=0)
        t = median_time(lambda: region_polygons(net, BOX), repeat=3)
        g = median_time(lambda: _grid_patterns(net), repeat=3)
        n_poly = len(region_polygons(net, BOX))
        rows.append(Row(f"2-D region map {'-'.join(map(str, sizes))} in [-3,3]² ({n_poly} polygons)",
                        t, f"patterns on a 500² grid ({_grid_patterns(net)} seen)", g,
                        max_seconds=budget))

    net = MLP.random(small([2, 16, 16, 1], [2, 5, 5, 1]), seed=0)
    stats = {}
    exact = median_time(lambda: linear_regions(net, stats=stats), repeat=3)
    p = len(linear_regions(net))
    lp = median_time(lambda: lp_region_count(net), repeat=1, warmup=0)
    lp_p, lps = lp_region_count(net)
    rows.append(Row(f"exact regions on all of R², {'-'.join(map(str, net.sizes))} ({p} regions, "
                    f"{stats['lps']} LPs)",
                    exact, f"LP splitting of before ({lps} LPs, {lp_p} regions)", lp,
                    note="polygons of the projective plane: no bounding box; every sign proven, "
                    f"{stats['exact']} of them by integer arithmetic", max_seconds=5.0,
                    holds=p == lp_p))

    conv = median_time(lambda: convert(net), repeat=3)
    rows.append(Row(f"{'-'.join(map(str, net.sizes))} → three-hidden-layer extended network "
                    "(regions + construction)",
                    conv, "LP splitting alone", lp, max_seconds=5.0))
    net4 = MLP.random(small([4, 8, 8, 1], [3, 4, 4, 1]), seed=0)
    done = convert(net4)
    conv4 = median_time(lambda: convert(net4), repeat=3)
    lp4 = median_time(lambda: lp_region_count(net4), repeat=1, warmup=0)
    rows.append(Row(f"{'-'.join(map(str, net4.sizes))} → three-hidden-layer extended network "
                    f"({done.p} regions + "
                    "construction)", conv4, "LP splitting of the regions alone", lp4,
                    max_seconds=5.0))

    # growth with the number of regions: about the same time per region
    per_region = []
    widths = small((8, 16, 24, 32), (4, 6))
    for w in widths:
        net = MLP.random([2, w, w, 1], seed=1)
        t = median_time(lambda: linear_regions(net), repeat=1)
        p = len(linear_regions(net))
        g = median_time(lambda: _grid_patterns(net, 300), repeat=1)
        per_region.append((p, t / p))
        notes = "; ".join(f"p = {q}: {s * 1e6:.0f} µs per region" for q, s in per_region)
        rows.append(Row(f"exact regions 2-{w}-{w}-1 ({p} regions)", t,
                        "patterns on a 300² grid", g, "≤ 3× the time per region of 2-8-8-1",
                        notes if w == widths[-1] else "",
                        holds=per_region[-1][1] <= 3 * per_region[0][1]))
    # last: their baselines leave hundreds of megabytes behind, which the single
    # measurements above must not meet
    rows.extend(_proof_rows())
    return rows
