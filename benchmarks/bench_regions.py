"""Exact activation regions: the certified engine against regioncam, the degenerate
networks that used to fall off a cliff, and n-D against the linear programs of before.

regioncam (a Rust package, ``pip install regioncam``) is the peer: it partitions a
square in float32, the fastest region enumeration we know of. It is optional; its rows
say "not installed" without it. It is not exact: where lines meet exactly it can leave
zero-area slivers, and the counts differ (the rows say so).

Besides the counts, what the panels and the converter read: ``region_polygons`` (every
polygon in the box with its pattern and affine map) at most 2× regioncam's time, and
``linear_regions`` of the whole plane (every region of R² with its map, stored
constraints, pieces and a proven witness) at most 3×, regioncam's time being its
partition of [−3, 3]² (it has no whole plane, and reads nothing out). Both return
sequences kept as whole arrays, an object per region made when asked for; the notes
give the time to read every one.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from benchmarks.common import Row, best_time, fmt_time, longest_wait_beside, median_time, small
from benchmarks.lp_regions import lp_region_count
from relulab.model.core.rows import count_nonzero, unique_rows
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import count_linear_regions, linear_regions, region_polygons
from relulab.model.regions.arrangement import arrangement_2d

BOX = (-3.0, 3.0, -3.0, 3.0)
NAN = float("nan")


def _regioncam():
    if importlib.util.find_spec("regioncam") is None:
        return None
    import regioncam

    def count(net, size=3.0):
        """regioncam's number of faces of ``net`` in [−size, size]²."""
        rc = regioncam.Regioncam(size)
        for W, b in net.layers[:-1]:
            rc.linear(np.ascontiguousarray(W.T, dtype=np.float32), np.asarray(b, dtype=np.float32))
            rc.relu()
        return rc.num_faces

    return count


def _arch(net) -> str:
    return "-".join(map(str, net.sizes))


def _peer(rc, net):
    """(regioncam's count, its best time) or "not installed"."""
    if rc is None:
        return None, NAN, "regioncam: not installed (pip install regioncam)"
    n = rc(net)
    return n, best_time(lambda: rc(net), repeat=9), "regioncam, box count"


def _concurrent(m):
    a = np.array([[i, m - i] for i in range(m)], dtype=float)
    return MLP([(a, np.zeros(m)), (np.ones((1, m)), [0.0])])


def _grid_with_diagonals():
    """Lines x = 3i, y = 3i and the diagonals x ± y = 3k (all weights times 3, so in
    doubles every crossing of three or four lines is exact)."""
    rows, bias = [], []
    for i in range(-3, 4):
        rows += [[3, 0], [0, 3]]
        bias += [-3 * i, -3 * i]
    for k in range(-5, 6):
        rows += [[3, -3], [3, 3]]
        bias += [-3 * k, -3 * k]
    return MLP([(np.array(rows, float), np.array(bias, float)), (np.ones((1, len(rows))), [0.0])])


def _readout_rows(net, peer: str, peer_t: float, have: bool) -> list[Row]:
    """region_polygons in [−3, 3]² (≤ 2× the peer) and linear_regions of the plane (≤ 3×)."""
    n_poly = len(region_polygons(net, BOX))
    poly_t = best_time(lambda: region_polygons(net, BOX), repeat=9)
    read_poly = best_time(lambda: list(region_polygons(net, BOX)), repeat=3)
    stats: dict = {}
    n_plane = len(linear_regions(net, stats=stats))
    plane_t = best_time(lambda: linear_regions(net), repeat=9)
    read_plane = best_time(lambda: list(linear_regions(net)), repeat=3)
    return [
        Row(f"region polygons {_arch(net)} in [-3,3]²: {n_poly} polygons with their maps",
            poly_t, peer, peer_t, min_ratio=0.5 if have else None,
            note=f"reading every polygon as an object too: {fmt_time(read_poly)}"),
        Row(f"whole-plane regions {_arch(net)} with maps, constraints and witnesses: {n_plane} "
            f"regions of R², {stats['exact']} exact signs", plane_t, peer, peer_t,
            min_ratio=1 / 3 if have else None,
            note=f"reading every region as an object too: {fmt_time(read_plane)}"),
    ]


def run() -> list[Row]:
    rc = _regioncam()
    rows = []
    for sizes in small(([2, 8, 8, 1], [2, 16, 16, 1], [2, 32, 32, 1], [2, 32, 32, 32, 1]),
                       ([2, 6, 6, 1],)):
        net = MLP.random(sizes, seed=0)
        ours_n = count_linear_regions(net, BOX)
        plane_n = count_linear_regions(net)
        peer_n, peer_t, peer = _peer(rc, net)
        box_t = best_time(lambda: count_linear_regions(net, BOX), repeat=9)
        plane_t = best_time(lambda: count_linear_regions(net), repeat=9)
        same = "" if peer_n is None else \
            (" = " if peer_n == ours_n else " ≠ ") + f"regioncam {peer_n}"
        have = peer_n is not None
        rows.append(Row(f"box count {_arch(net)} in [-3,3]²: {ours_n} regions{same}", box_t,
                        peer, peer_t, min_ratio=1.0 if have else None,
                        holds=(peer_n == ours_n) if have else None))
        rows.append(Row(f"whole-plane count {_arch(net)}: {plane_n} regions of R² (lines and "
                        "points included)", plane_t, peer, peer_t,
                        min_ratio=0.5 if have else None))
        rows += _readout_rows(net, peer, peer_t, have)

    # distinct activation keys on a worker, the GUI thread waiting beside it
    n_keys, tries = small(200_000, 2000), small(3, 1)
    keys = np.random.default_rng(0).integers(0, 3, size=(n_keys, 6))
    ours = min(longest_wait_beside(lambda: unique_rows(keys)) for _ in range(tries))
    numpy_wait = min(longest_wait_beside(lambda: np.unique(keys, axis=0, return_index=True,
                                                           return_inverse=True))
                     for _ in range(tries))
    rows.append(Row(f"distinct rows of {n_keys:,} activation keys on a worker: longest wait of "
                    "the thread beside it", ours, "np.unique(axis=0) on the worker", numpy_wait,
                    max_seconds=0.01,
                    note="np.unique sorts rows as records, giving the interpreter up and "
                         "back at every comparison; a waiting thread never gets it"))
    # the non-zeros of a conversion's layer block counted on a worker (its proof reads them)
    block = np.zeros(small((4096, 8192), (64, 128)))
    block[::7, ::5] = 1.0
    ours = min(longest_wait_beside(lambda: count_nonzero(block)) for _ in range(tries))
    whole = min(longest_wait_beside(lambda: np.count_nonzero(block)) for _ in range(tries))
    rows.append(Row(f"non-zeros of a {block.shape[0]:,} × {block.shape[1]:,} layer block on a "
                    "worker: longest wait of the thread beside it", ours,
                    "np.count_nonzero on the worker", whole, max_seconds=0.01,
                    note="np.count_nonzero holds the interpreter for its whole array; "
                         "counted a block of rows at a time, it is given up between blocks"))
    # the readout runs in the compiled pass, without the interpreter, and whole-array numpy
    big = MLP.random(small([2, 32, 32, 32, 1], [2, 6, 6, 6, 1]), seed=0)
    plane_wait = min(longest_wait_beside(lambda: linear_regions(big)) for _ in range(tries))
    count_wait = min(longest_wait_beside(lambda: count_linear_regions(big)) for _ in range(tries))
    rows.append(Row(f"whole-plane regions {_arch(big)} with their readout on a worker: longest "
                    "wait of the thread beside it", plane_wait, "the count alone on the worker",
                    count_wait, max_seconds=0.01))

    # degenerate networks on all of R², against the same sizes in general position
    rng = np.random.default_rng(0)
    lines = small(100, 10)
    fan = _concurrent(lines)
    fan_generic = MLP([(fan.layers[0][0], rng.uniform(-1, 1, lines)), fan.layers[1]])
    generic = MLP.random(small([2, 32, 32, 1], [2, 6, 6, 1]), seed=0)
    zero = MLP([(W, np.zeros_like(b)) for W, b in generic.layers])
    for name, net, base, before in (
            (f"{lines} lines through one point", fan, fan_generic, "65 s and 9,702 LPs"),
            (f"{_arch(generic)} with zero biases (all lines through 0)", zero, generic,
             "23 s and 4,135 LPs")):
        stats = {}
        p = len(linear_regions(net, stats=stats))
        t = best_time(lambda: linear_regions(net), repeat=5)
        p_base = len(linear_regions(base))
        t_base = best_time(lambda: linear_regions(base), repeat=5)
        rows.append(Row(f"{name}: {p} regions of R², {stats['lps']} LPs, {stats['exact']} exact "
                        "signs", t, f"the same sizes in general position ({p_base} regions)",
                        t_base, note=f"before the engine: {before}", max_seconds=0.5))
    grid = _grid_with_diagonals()
    g_box = (-3.5, 3.5, -3.5, 3.5)
    n_grid = count_linear_regions(grid, g_box)
    exact = arrangement_2d(grid, box=g_box).stats["exact"]
    t = best_time(lambda: count_linear_regions(grid, g_box), repeat=9)
    if rc is None:
        peer, peer_t, note = "regioncam: not installed (pip install regioncam)", NAN, ""
    else:
        peer_n = rc(grid, 3.5)
        peer_t = best_time(lambda: rc(grid, 3.5), repeat=9)
        peer = "regioncam, box count"
        note = (f"regioncam counts {peer_n}" + ("" if peer_n == n_grid else
                ": where 3 or 4 lines meet exactly, float32 leaves slivers"))
    rows.append(Row(f"grid ×3 with diagonals through its crossings in [-3.5,3.5]²: {n_grid} "
                    f"regions ({exact} signs by integers)", t, peer, peer_t,
                    "216, the exact count", note, holds=n_grid == 216))

    # n-D: cones of rays against the linear programs of before
    for sizes, budget in small((([3, 8, 8, 1], 1.0), ([4, 8, 8, 1], 5.0)), (([3, 4, 4, 1], 1.0),)):
        net = MLP.random(sizes, seed=0)
        stats = {}
        p = len(linear_regions(net, stats=stats))
        t = median_time(lambda: linear_regions(net), repeat=3)
        lp_t = median_time(lambda: lp_region_count(net), repeat=1, warmup=0)
        lp_p, lps = lp_region_count(net)
        rows.append(Row(f"exact regions {_arch(net)} on all of R{'³⁴'[sizes[0] - 3]}: {p} regions "
                        f"({lp_p} by the LPs)", t, f"LP splitting of before ({lps} LPs)", lp_t,
                        max_seconds=budget, holds=p == lp_p))
    return rows
