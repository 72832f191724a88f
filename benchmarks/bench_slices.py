"""Slices of a network with many inputs: a 784-256-256-10 network (the size of an MNIST
classifier, He-initialised weights) on the plane through three points of [0, 1]⁷⁸⁴.

* restricting the network to the plane (the slice's orthonormal directions and the
  first layer W·D, W·o + b): at most 50 ms;
* the exact regions of the slice in the box around the three points: at most 2 s and
  within 2× of regioncam's plane through the same points, the two counts side by side
  and equal. Both use regioncam's own plane (its origin and orthonormal directions,
  rounded to float32 as regioncam keeps them) and its box, so they count the same
  square. regioncam is optional (``pip install regioncam``); without it the row says so;
* the Deep → shallow panel slicing that network through the three points (read from
  a points file) and drawing its regions: the longest event-loop gap, at most 50 ms.
"""

from __future__ import annotations

import importlib.util
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import Row, best_time, event_loop_delays, small
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import count_linear_regions, region_polygons
from relulab.model.regions.slices import slice_through

SIZES = small([784, 256, 256, 10], [20, 8, 8, 3])
NAN = float("nan")


def _network_and_points():
    net = MLP.random(SIZES, seed=0)
    points = np.random.default_rng(1).uniform(0.0, 1.0, (3, SIZES[0]))
    return net, points


def _regioncam_plane(points, net):
    """regioncam's plane through ``points``: (count, its best time, origin, directions,
    box), or None when regioncam is not installed."""
    if importlib.util.find_spec("regioncam") is None:
        return None
    import regioncam

    P = points.astype(np.float32)
    layers = [(np.ascontiguousarray(W.T, dtype=np.float32), np.asarray(b, dtype=np.float32))
              for W, b in net.layers[:-1]]

    def run():
        rc = regioncam.Regioncam.through_points(P)
        for W, b in layers:
            rc.linear(W, b)
            rc.relu()
        return rc

    rc = run()
    seconds = best_time(run, repeat=3)
    plane = rc.plane
    corners = np.asarray(regioncam.Regioncam.through_points(P).vertex_inputs, dtype=float)
    box = (corners[:, 0].min(), corners[:, 0].max(), corners[:, 1].min(), corners[:, 1].max())
    return (rc.num_faces, seconds, np.asarray(plane.bias, dtype=float),
            np.asarray(plane.weight, dtype=float), box)


def _panel_gap(net, points) -> dict:
    """The longest event-loop gap while the panel slices ``net`` through ``points``."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from relulab.ui.application import ensure_application
    from relulab.ui.panels.converter import ConverterPanel

    ensure_application()
    panel = ConverterPanel()
    panel.resize(1366, 740)
    panel.show()
    panel.wait_until_idle(120)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "three.npz"
        np.savez(path, X=points)
        t0 = time.perf_counter()
        gaps = list(event_loop_delays(lambda: panel.receive("network", net),
                                      lambda: not panel.busy, seconds=120))
        gaps += list(event_loop_delays(lambda: panel.load_points(path),
                                       lambda: not panel.busy and panel.state.slice.mode == "rows",
                                       seconds=120))
        total = time.perf_counter() - t0
    view = panel.slice_view
    drawn = len(view.polygons) if view is not None else 0
    ok = (panel.state.slice.mode == "rows" and drawn > 0
          and len(panel.slice_drawing.items) > 0)
    problem = panel.result.problem if panel.result is not None else "no result"
    panel.shutdown()
    return {"gap": max(gaps), "total": total, "drawn": drawn, "ok": ok, "problem": problem}


def _idle_gap(seconds: float) -> float:
    """The longest event-loop gap with nothing to do, for ``seconds`` (on a busy machine
    the scheduler alone makes gaps: this says how large)."""
    return float(event_loop_delays(lambda: None, None, seconds=min(seconds, 30.0)).max())


def run() -> list[Row]:
    net, points = _network_and_points()
    rows = []

    # the restriction: slice through the points, then W·D and W·o + b
    def restrict():
        cut = slice_through(points)
        return cut.restrict(net)

    t_restrict = best_time(restrict, repeat=9)
    t_eval = best_time(lambda: net(points), repeat=9)
    arch = "-".join(map(str, SIZES))
    rows.append(Row(f"restrict {arch} to the plane through 3 points (directions and "
                    "first layer)", t_restrict, "the network evaluated at the 3 points", t_eval,
                    max_seconds=0.05))

    # the exact regions of the slice in the box, against regioncam on the same plane
    peer = _regioncam_plane(points, net)
    if peer is None:
        cut = slice_through(points)
        box = cut.box()
        n = count_linear_regions(cut.restrict(net), box)
        t = best_time(lambda: count_linear_regions(restrict(), box), repeat=3)
        rows.append(Row(f"regions of the slice in the box around the points: {n}", t,
                        "regioncam: not installed (pip install regioncam)", NAN, max_seconds=2.0))
    else:
        rc_n, rc_t, origin, directions, box = peer

        def ours():
            return count_linear_regions(net.restrict(origin, directions), box)

        n = ours()
        t = best_time(ours, repeat=3)
        t_polys = best_time(lambda: region_polygons(net.restrict(origin, directions), box),
                            repeat=3)
        rows.append(Row(f"regions of the slice in regioncam's box: ours {n:,} | regioncam "
                        f"{rc_n:,} ({'equal' if n == rc_n else 'DIFFERENT'})", t,
                        "regioncam, the plane through the same points", rc_t,
                        max_seconds=2.0, min_ratio=0.5, holds=n == rc_n,
                        note=f"restriction + exact count; the polygons the panel draws take "
                             f"{t_polys:.2f} s"))

    probe = _panel_gap(net, points)
    idle = _idle_gap(probe["total"])
    rows.append(Row(f"Deep → shallow: slice {arch} through 3 points, draw "
                    f"{probe['drawn']:,} regions: longest event-loop gap", probe["gap"],
                    "the event loop idle as long, same process", idle, max_seconds=0.05,
                    holds=bool(probe["ok"]),
                    note=f"picture and conversion attempt done after {probe['total']:.2f} s; "
                         f"conversion: {probe['problem'] or 'built'}"))
    return rows
