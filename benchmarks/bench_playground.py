"""Playground refresh: the 200 × 200 decision map, its boundary and the exact region
overlay for a 2-8-8-8-1 network, against naive ways of drawing the same picture."""

from __future__ import annotations

import importlib.util

import numpy as np

from benchmarks.common import Row, median_time
from relulab.model.classify import DEFAULT_BOX, boundary_segments, decision_map, grid_axes
from relulab.model.mlp import MLP

RES = 200


def _grid_points():
    xs, ys = grid_axes(DEFAULT_BOX, RES)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.c_[gx.ravel(), gy.ravel()]


def run() -> list[Row]:
    import pyqtgraph as pg

    net = MLP.random([2, 8, 8, 8, 1], seed=0)
    xs, ys, pts = _grid_points()
    rows = []

    fast = median_time(lambda: decision_map(net, DEFAULT_BOX, RES, np.float32), repeat=15)
    few = pts[:: 20]  # a per-pixel loop over every 20th pixel, scaled up
    per_pixel = median_time(lambda: [net(p[None, :]) for p in few], repeat=1, warmup=0) * 20
    rows.append(Row("heat map 200×200, 2-8-8-8-1 (neuron-major float32 grid)", fast,
                    "one network call per pixel", per_pixel, "≪ 30 ms"))
    forward = median_time(lambda: net(pts), repeat=15)
    rows.append(Row("heat map 200×200, 2-8-8-8-1 (neuron-major float32 grid)", fast,
                    "net(points) on a (40000, 2) array", forward, "faster than net(points)"))
    exact = median_time(lambda: decision_map(net, DEFAULT_BOX, RES), repeat=15)
    rows.append(Row("the same grid in float32", fast, "the same grid in float64", exact,
                    "float32 for pictures"))

    Z = decision_map(net, DEFAULT_BOX, RES)
    seg = median_time(lambda: boundary_segments(Z, xs, ys), repeat=15)
    iso = median_time(lambda: pg.isocurve(Z, 0.0, connected=False), repeat=5)
    rows.append(Row("boundary z = 0, vectorised marching squares", seg,
                    "pyqtgraph isocurve", iso, "a few ms"))

    if importlib.util.find_spec("relulab.model.regions") is None:
        return rows
    from relulab.model.regions import linear_regions, region_polygons, regions_in_box
    from relulab.ui.panels.playground import polygon_outline

    def refresh():
        Zr = decision_map(net, DEFAULT_BOX, RES, np.float32)
        boundary_segments(Zr, xs, ys)
        polygon_outline(region_polygons(net, DEFAULT_BOX))

    def naive_refresh():
        Zr = net(pts)[:, 0].reshape(RES, RES)
        pg.isocurve(Zr, 0.0, connected=False)
        polygon_outline(regions_in_box(linear_regions(net), DEFAULT_BOX))

    ours = median_time(refresh, repeat=15)
    naive = median_time(naive_refresh, repeat=5)
    n = len(region_polygons(net, DEFAULT_BOX))
    rows.append(Row("refresh: heat map + boundary + exact regions in view (model)", ours,
                    "net(points) + isocurve + regions of R² clipped", naive,
                    note=f"2-8-8-8-1, seed 0: {n} regions in view", max_seconds=0.030))
    heat = median_time(lambda: decision_map(net, DEFAULT_BOX, RES, np.float32), repeat=15)
    overlay = median_time(lambda: polygon_outline(region_polygons(net, DEFAULT_BOX)), repeat=15)
    rows.append(Row("region overlay alone (exact regions in view + outline)", overlay,
                    "the heat map 200×200 float32", heat, "overlay + heat map ≤ 30 ms",
                    holds=overlay + heat <= 0.030))
    trained = MLP.random([2, 8, 8, 8, 1], seed=3)  # a busier picture: more regions in view
    n3 = len(region_polygons(trained, DEFAULT_BOX))
    overlay3 = median_time(lambda: polygon_outline(region_polygons(trained, DEFAULT_BOX)), repeat=15)
    rows.append(Row(f"region overlay, 2-8-8-8-1 seed 3 ({n3} regions in view)", overlay3,
                    "the heat map 200×200 float32", heat, "overlay + heat map ≤ 30 ms",
                    holds=overlay3 + heat <= 0.030))

    from relulab.app import ensure_application
    from relulab.ui.panels.playground import PlaygroundPanel

    ensure_application()
    panel = PlaygroundPanel()
    panel.receive("network", net)
    def redraw_with_overlay():
        panel._regions_for = None  # as if the weights had moved: enumerate again
        panel.redraw(points=False)

    in_frame = median_time(redraw_with_overlay, repeat=15)
    panel.timer.start()  # "playing": the overlay goes to the worker thread
    panel.timer.blockSignals(True)  # no ticks: only the redraw is timed
    frame = median_time(lambda: panel.redraw(points=False), repeat=15)
    panel.timer.stop()
    panel.shutdown()
    panel.deleteLater()
    rows.append(Row("training frame: panel redraw incl. Qt items, overlay in a worker", frame,
                    "the same redraw with the overlay in the frame", in_frame,
                    note="the worker's overlay is as old as one region enumeration (row above)",
                    max_seconds=0.030))
    return rows
