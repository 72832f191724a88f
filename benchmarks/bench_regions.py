"""Exact activation regions: the certified engine against regioncam, the degenerate
networks that used to fall off a cliff, and n-D against the linear programs of before.

regioncam (a Rust package, ``pip install regioncam``) is the peer: it partitions a
square in float32, the fastest region enumeration we know of. It is optional; its rows
say "not installed" without it. It is not exact: where lines meet exactly it can leave
zero-area slivers, and the counts differ (the rows say so).
"""

from __future__ import annotations

import importlib.util

import numpy as np

from benchmarks.common import Row, best_time, median_time
from benchmarks.lp_regions import lp_region_count
from relulab.model.mlp import MLP
from relulab.model.regions import count_linear_regions, linear_regions

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
    rows, bias = [], []
    for i in range(-2, 3):
        rows += [[1, 0], [0, 1]]
        bias += [-i, -i]
    for k in range(-3, 4):
        rows += [[1, -1], [1, 1]]
        bias += [-k, -k]
    return MLP([(np.array(rows, float), np.array(bias, float)), (np.ones((1, len(rows))), [0.0])])


def run() -> list[Row]:
    rc = _regioncam()
    rows = []
    for sizes in ([2, 8, 8, 1], [2, 16, 16, 1], [2, 32, 32, 1], [2, 32, 32, 32, 1]):
        net = MLP.random(sizes, seed=0)
        ours_n = count_linear_regions(net, BOX)
        plane_n = count_linear_regions(net)
        peer_n, peer_t, peer = _peer(rc, net)
        box_t = best_time(lambda: count_linear_regions(net, BOX), repeat=9)
        plane_t = best_time(lambda: count_linear_regions(net), repeat=9)
        same = "" if peer_n is None else (" = " if peer_n == ours_n else " ≠ ") + f"regioncam {peer_n}"
        rows.append(Row(f"box count {_arch(net)} in [-3,3]²: {ours_n} regions{same}", box_t,
                        peer, peer_t, "≤ 1× regioncam (ratio ≥ 1)"))
        rows.append(Row(f"whole-plane count {_arch(net)}: {plane_n} regions of R² (lines and "
                        "points included)", plane_t, peer, peer_t,
                        "≤ 2× regioncam's box count (ratio ≥ 0.5)"))

    # degenerate networks: all of R², no linear programs
    fan = _concurrent(100)
    zero = MLP([(W, np.zeros_like(b)) for W, b in MLP.random([2, 32, 32, 1], seed=0).layers])
    for name, net in (("100 lines through one point", fan),
                      ("2-32-32-1 with zero biases (every line through the origin)", zero)):
        stats = {}
        p = len(linear_regions(net, stats=stats))
        t = best_time(lambda: linear_regions(net), repeat=5)
        peer_n, peer_t, peer = _peer(rc, net)
        box_n = count_linear_regions(net, BOX)
        note = "" if peer_n is None else \
            f"in [-3,3]²: {box_n} regions, regioncam {peer_n}" + ("" if peer_n == box_n else
                                                                   " (float32 near the crossing)")
        rows.append(Row(f"{name}: {p} regions of R², {stats['lps']} LPs, {stats['exact']} exact "
                        "signs", t, peer, peer_t, "≤ 0.5 s (was 65 s and 23 s)", note))
    grid = _grid_with_diagonals()
    g_box = (-2.5, 2.5, -2.5, 2.5)
    n_grid = count_linear_regions(grid, g_box)
    t = best_time(lambda: count_linear_regions(grid, g_box), repeat=9)
    if rc is None:
        peer, peer_t, note = "regioncam: not installed (pip install regioncam)", NAN, ""
    else:
        peer_n = rc(grid, 2.5)
        peer_t = best_time(lambda: rc(grid, 2.5), repeat=9)
        peer = "regioncam, box count"
        note = (f"regioncam counts {peer_n}" + ("" if peer_n == n_grid else
                ": zero-area slivers where 3 or 4 lines meet exactly (float32)"))
    rows.append(Row(f"grid with diagonals through its crossings in [-2.5,2.5]²: {n_grid} regions "
                    "(exact)", t, peer, peer_t, "exact where lines meet", note))

    # n-D: cones of rays against the linear programs of before
    for sizes, target in (([3, 8, 8, 1], "≤ 1 s"), ([4, 8, 8, 1], "≤ 5 s")):
        net = MLP.random(sizes, seed=0)
        stats = {}
        p = len(linear_regions(net, stats=stats))
        t = median_time(lambda: linear_regions(net), repeat=3)
        lp_t = median_time(lambda: lp_region_count(net), repeat=1, warmup=0)
        lp_p, lps = lp_region_count(net)
        rows.append(Row(f"exact regions {_arch(net)} on all of R{'³⁴'[sizes[0] - 3]}: {p} regions "
                        f"({lp_p} by the LPs)", t, f"LP splitting of before ({lps} LPs)", lp_t,
                        target))
    return rows
