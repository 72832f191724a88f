"""Deep → shallow: 1-D conversion, 2-D region maps, exact regions on all of R².

Baselines, measured in the same run: evaluating the deep network on a dense grid
(what a sampled picture would cost, and it still misses regions) and the
linear-program enumeration of before (SciPy HiGHS, one program per undecided child).
The region engine against its peer, regioncam, is in bench_regions."""

import numpy as np

from benchmarks.common import Row, median_time
from benchmarks.lp_regions import lp_region_count
from relulab.model.mlp import MLP
from relulab.model.regions import linear_regions, region_polygons
from relulab.model.shallow import convert, shallow_1d

BOX = (-3.0, 3.0, -3.0, 3.0)


def _grid_patterns(net, n=500):
    g = np.linspace(-3, 3, n)
    X = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    return len({row.tobytes() for row in net.activation_patterns(X)})


def run() -> list[Row]:
    rows = []
    deep1 = MLP.random([1, 64, 64, 64, 64, 1], seed=0)
    one = median_time(lambda: shallow_1d(deep1), repeat=7)
    grid1 = median_time(lambda: deep1(np.linspace(-5, 5, 100_000)), repeat=7)
    rows.append(Row(f"1-D 1-64-64-64-64-1 → one hidden layer ({shallow_1d(deep1).width} neurons)",
                    one, "deep net on a 100k-point grid", grid1, "≤ 50 ms"))

    for sizes, target in (([2, 8, 8, 8, 1], "≤ 200 ms"), ([2, 16, 16, 16, 1], "≤ 2 s")):
        net = MLP.random(sizes, seed=0)
        t = median_time(lambda: region_polygons(net, BOX), repeat=3)
        g = median_time(lambda: _grid_patterns(net), repeat=3)
        n_poly = len(region_polygons(net, BOX))
        rows.append(Row(f"2-D region map {'-'.join(map(str, sizes))} in [-3,3]² ({n_poly} polygons)",
                        t, f"patterns on a 500² grid ({_grid_patterns(net)} seen)", g, target))

    net = MLP.random([2, 16, 16, 1], seed=0)
    stats = {}
    exact = median_time(lambda: linear_regions(net, stats=stats), repeat=3)
    p = len(linear_regions(net))
    lp = median_time(lambda: lp_region_count(net), repeat=1, warmup=0)
    _, lps = lp_region_count(net)
    rows.append(Row(f"exact regions on all of R², 2-16-16-1 ({p} regions, {stats['lps']} LPs)",
                    exact, f"LP splitting of before ({lps} LPs)", lp, "≤ 5 s",
                    "polygons of the projective plane: no bounding box; every sign proven, "
                    f"{stats['exact']} of them by integer arithmetic"))

    conv = median_time(lambda: convert(net), repeat=3)
    rows.append(Row("2-16-16-1 → three-hidden-layer extended network (regions + construction)",
                    conv, "LP splitting alone", lp, "≤ 5 s"))

    # growth with the number of regions
    notes = []
    for w in (8, 16, 24, 32):
        net = MLP.random([2, w, w, 1], seed=1)
        t = median_time(lambda: linear_regions(net), repeat=1)
        p = len(linear_regions(net))
        g = median_time(lambda: _grid_patterns(net, 300), repeat=1)
        notes.append(f"p = {p}: {t * 1e6 / p:.0f} µs per region")
        rows.append(Row(f"exact regions 2-{w}-{w}-1 ({p} regions)", t,
                        "patterns on a 300² grid", g, "grows ~ linearly in p",
                        "; ".join(notes) if w == 32 else ""))
    return rows
