"""Playground: the 200 × 200 picture, its boundary and the exact region overlay against
naive ways of drawing the same, a training frame with six classes and each neuron's
picture in the diagram, and how the event loop answers while the panel trains,
pauses, draws the overlay, counts the regions of the whole plane and runs the depth
study, at the largest settings its controls allow; loading the largest scene."""

from __future__ import annotations

import json
import time

import numpy as np

from benchmarks.common import Row, click_latency, event_loop_delays, fmt_time, median_time, small
from relulab.model.fitting.classify import DEFAULT_BOX, boundary_segments, decision_map, grid_axes
from relulab.model.lessons.playground import (
    DEPTH_BUDGETS,
    DEPTH_MAX_SEEDS,
    HISTORY_LIMIT,
    MAX_HIDDEN_LAYERS,
    MAX_POINTS,
    MAX_WIDTH,
    History,
    PlaygroundState,
    Points,
)
from relulab.model.networks.mlp import MLP

RES = 200
LARGEST = small((MAX_WIDTH,) * MAX_HIDDEN_LAYERS, (4, 4))
#: the most points, moments of history, and networks per depth the controls allow
POINTS, HISTORY, DEPTH_SEEDS = (small(MAX_POINTS, 200), small(HISTORY_LIMIT, 20),
                                small(DEPTH_MAX_SEEDS, 1))
#: the depth study's parameter budget: its largest (its smallest in a smoke run)
DEPTH_BUDGET = small(DEPTH_BUDGETS[1], DEPTH_BUDGETS[0])
#: clicks on Pause per measurement
CLICKS = small(5, 1)
#: The costliest activation per step and per picture (erf in GELU).
COSTLIEST = "gelu"


def _grid_points():
    xs, ys = grid_axes(DEFAULT_BOX, RES)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.c_[gx.ravel(), gy.ravel()]


def model_rows() -> list[Row]:
    import pyqtgraph as pg

    from relulab.model.regions.activation import linear_regions, region_polygons, regions_in_box
    from relulab.ui.panels.playground.data_map import polygon_outline

    net = MLP.random([2, 8, 8, 8, 1], seed=0)
    xs, ys, pts = _grid_points()
    rows = []
    fast = median_time(lambda: decision_map(net, DEFAULT_BOX, RES, np.float32), repeat=15)
    few = pts[:: 20]  # a per-pixel loop over every 20th pixel, scaled up
    per_pixel = median_time(lambda: [net(p[None, :]) for p in few], repeat=1, warmup=0) * 20
    rows.append(Row("picture 200×200, 2-8-8-8-1 (neuron-major float32 grid)", fast,
                    "one network call per pixel", per_pixel, min_ratio=100.0))
    forward = median_time(lambda: net(pts), repeat=15)
    rows.append(Row("picture 200×200, 2-8-8-8-1 (neuron-major float32 grid)", fast,
                    "net(points) on a (40000, 2) array", forward, min_ratio=1.0))
    exact = median_time(lambda: decision_map(net, DEFAULT_BOX, RES), repeat=15)
    rows.append(Row("the same grid in float32", fast, "the same grid in float64", exact,
                    min_ratio=1.0))
    Z = decision_map(net, DEFAULT_BOX, RES)
    seg = median_time(lambda: boundary_segments(Z, xs, ys), repeat=15)
    iso = median_time(lambda: pg.isocurve(Z, 0.0, connected=False), repeat=5)
    rows.append(Row("boundary z = 0, vectorised marching squares", seg,
                    "pyqtgraph isocurve", iso, max_seconds=0.005, min_ratio=1.0))

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
    rows.append(Row("refresh: picture + boundary + exact regions in view (model)", ours,
                    "net(points) + isocurve + regions of R² clipped", naive, max_seconds=0.03,
                    min_ratio=1.0, note=f"2-8-8-8-1, seed 0: {n} regions in view"))
    largest = MLP.random([2, *LARGEST, 1], seed=0)
    n_big = len(region_polygons(largest, DEFAULT_BOX))
    overlay = median_time(lambda: polygon_outline(region_polygons(largest, DEFAULT_BOX)), repeat=3)
    whole = median_time(lambda: len(linear_regions(largest)), repeat=1)
    rows.append(Row(f"region overlay of the largest network, 2-{'-'.join(map(str, LARGEST))}-1 "
                    f"({n_big} regions in view), on a worker", overlay,
                    "its exact regions of all of R² (the whole-plane count)", whole,
                    max_seconds=2.0, min_ratio=1.0))
    return rows


def _frame_time(panel, repeat: int = small(15, 1)) -> float:
    """Median wall time of one training frame drawn whole: every piece (the map's
    picture and boundary, the curves and readouts, the diagram with its pictures), then
    a synchronous paint of the panel. A few training steps between frames, untimed, so
    that each frame draws another network, as while training."""
    import statistics

    times = []
    for k in range(repeat + 2):
        panel.trainer.run(5)
        t0 = time.perf_counter()
        for piece in panel._frame(final=False):
            piece()
        panel.repaint()
        if k >= 2:  # the first frames size the items
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def frame_rows() -> list[Row]:
    """A training frame with 6 classes (one output each), 8 neurons per hidden layer and
    each neuron's picture in the diagram, against the frame of the two-class network of
    the same layers without the pictures (what a frame drew before)."""
    from dataclasses import replace

    from relulab.ui.panels.playground import PlaygroundPanel

    rows = []
    frames = {}
    for label, classes, thumbnails in (("6 classes, pictures on", 6, True),
                                       ("2 classes, pictures off", 2, False)):
        s = PlaygroundState()
        s = s.with_data(replace(s.dataset.switched_to("gaussians"), classes=classes))
        s = s.with_hidden((8, 8, 8)).with_view(thumbnails=thumbnails)
        panel = PlaygroundPanel()
        panel.resize(1366, 740)
        panel.show()
        panel.load_state(s.to_dict())
        _settle(panel)
        frames[label] = (_frame_time(panel), panel.net.sizes)
        _close(panel)
    (ours, sizes), (base, base_sizes) = frames["6 classes, pictures on"], frames["2 classes, pictures off"]
    rows.append(Row(f"training frame, {'-'.join(map(str, sizes))}, 6 classes, each neuron's picture "
                    "in the diagram (pieces + paint)", ours,
                    f"the frame of {'-'.join(map(str, base_sizes))}, 2 classes, no pictures", base,
                    max_seconds=0.03))
    return rows


def _panel(points: int = POINTS, hidden=LARGEST, activation: str = "relu"):
    from relulab.ui.panels.playground import PlaygroundPanel

    panel = PlaygroundPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.load_state(largest_state(points, hidden, activation).to_dict())
    _settle(panel)
    return panel


def largest_state(points: int = POINTS, hidden=LARGEST, activation: str = "relu",
                  history: int = 0) -> PlaygroundState:
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.2, 1.2, (points, 2))
    label = (np.sin(3 * x[:, 0]) > x[:, 1]).astype(float)
    s = PlaygroundState().with_points(Points(x, label, rng.uniform(size=points) < 0.3))
    s = s.with_hidden(hidden).with_activation(activation).with_training(speed="as fast as possible")
    if history:
        steps = np.arange(1, history + 1) * 10.0
        h = History().recording(steps, np.tile([0.5, 0.6, 0.8, 0.7], (history, 1)))
        s = s.with_progress(s.network, int(steps[-1]), h)
    return s


def _settle(panel, seconds: float = 60.0) -> None:
    busy = (panel._picture_worker, panel._regions_worker, panel._plane_worker)
    event_loop_delays(lambda: None, done=lambda: not panel.driver.busy and not any(w.busy for w in busy),
                      seconds=seconds)


def _close(panel) -> None:
    from PySide6.QtWidgets import QApplication

    panel.shutdown()
    panel.close()
    panel.deleteLater()
    QApplication.processEvents()


def panel_rows() -> list[Row]:
    rows = []
    size = f"{POINTS} points, 2-{'-'.join(map(str, LARGEST))}-1"
    for activation in ("relu", COSTLIEST):
        panel = _panel(activation=activation)
        idle = float(event_loop_delays(lambda: None, seconds=1.0).max())
        busy = event_loop_delays(panel.controls.play_button.click, seconds=3.0)
        steps = panel.trainer.step
        latencies, gaps = [], []
        for _ in range(CLICKS):
            lat, gap = click_latency(panel.controls.play_button.click, lambda: panel.driver.busy)
            latencies.append(lat)
            gaps.append(gap)
            event_loop_delays(panel.controls.play_button.click, seconds=0.5)
        panel.controls.play_button.click() if panel.is_playing() else None
        _close(panel)
        print(f"  playground {activation}, {size}: {steps} steps in 3 s, probe max "
              f"{fmt_time(busy.max())}; pause {', '.join(fmt_time(v) for v in latencies)}")
        rows.append(Row(f"event loop delay while training, max ({activation}, {size})",
                        float(busy.max()), "the same probe, panel idle (max)", idle,
                        max_seconds=0.05, note=f"{steps / 3:,.0f} steps/s; 95th percentile "
                                               f"{fmt_time(np.percentile(busy, 95))}"))
        rows.append(Row(f"pause: click to training stopped, median of {CLICKS} ({activation}, "
                        f"{size})", float(np.median(latencies)), "the same probe, panel idle (max)",
                        idle, max_seconds=0.05,
                        note=f"worst of {CLICKS}: {fmt_time(max(latencies))}"))
        rows.append(Row(f"pause: event loop delay until the final frame is drawn ({activation})",
                        float(np.median(gaps)), "the same probe, panel idle (max)", idle,
                        max_seconds=0.05, note=f"worst of {CLICKS}: {fmt_time(max(gaps))}"))
    rows += _worker_rows(size)
    rows += _load_rows()
    return rows


def _worker_rows(size: str) -> list[Row]:
    """The overlay, the whole-plane count and the depth study at their largest: the
    window answers while the workers compute, and while the results are drawn."""
    rows = []
    panel = _panel()
    check = panel.controls.regions_check
    check.setChecked(False)
    _settle(panel)
    idle = float(event_loop_delays(lambda: None, seconds=1.0).max())
    labels = panel.strip
    t0 = time.perf_counter()
    overlay = event_loop_delays(lambda: check.setChecked(True),
                                done=lambda: labels.region_label.text().endswith("(exact)"),
                                seconds=60.0)
    t_overlay = time.perf_counter() - t0
    plane = event_loop_delays(lambda: None, done=lambda: "regions (exact)" in labels.plane_label.text(),
                              seconds=120.0)
    t_plane = time.perf_counter() - t0
    rows.append(Row(f"region overlay, {size}: event loop delay, max", float(overlay.max()),
                    "the same probe, panel idle (max)", idle, max_seconds=0.05,
                    note=f"{labels.region_label.text()} after {fmt_time(t_overlay)}"))
    rows.append(Row("the whole-plane count of the same network: event loop delay, max",
                    float(plane.max()), "the same probe, panel idle (max)", idle, max_seconds=0.05,
                    note=f"{labels.plane_label.text()} after {fmt_time(t_plane)}"))
    study = panel.depth_study
    study.budget.setValue(DEPTH_BUDGET)
    study.seeds.setValue(DEPTH_SEEDS)
    t0 = time.perf_counter()
    depth = event_loop_delays(panel.run_depth_experiment, done=lambda: not panel.depth_running(),
                              seconds=120.0)
    rows.append(Row(f"depth study, budget {DEPTH_BUDGET}, {DEPTH_SEEDS} networks per depth: "
                    "event loop delay, max", float(depth.max()), "the same probe, panel idle (max)",
                    idle, max_seconds=0.05,
                    note=f"{len(panel.state.depth.samples)} networks in "
                         f"{fmt_time(time.perf_counter() - t0)}"))
    _close(panel)
    return rows


def _load_rows() -> list[Row]:
    """The largest scene the panel accepts, opened in the window; a 10,000-layer one,
    refused."""
    import tempfile
    from pathlib import Path

    from relulab.app import build_main_window
    from relulab.io.scenes import SCENE_FORMAT

    big = largest_state(POINTS, LARGEST, COSTLIEST, history=HISTORY)
    text = json.dumps({"format": SCENE_FORMAT, "version": 1, "current": "playground",
                       "panels": {"playground": big.to_dict()}})
    window = build_main_window(panel="playground")
    window.show()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "largest.relulab.json"
        path.write_text(text)
        t0 = time.perf_counter()
        ok = window.open_scene(path)
        opened = time.perf_counter() - t0
        parse = median_time(lambda: json.loads(path.read_text()), repeat=5)
    window.close()
    window.deleteLater()
    rows = [Row(f"open the largest playground scene ({len(text) / 1e6:.1f} MB: {POINTS} points, "
                f"2-{'-'.join(map(str, LARGEST))}-1, {HISTORY} moments of history)", opened,
                "json.loads of the same file", parse, max_seconds=2.0, holds=ok)]
    huge = big.to_dict()
    huge["architecture"] = {**huge["architecture"], "hidden": [8] * 10_000}
    huge["network"] = {"activation": "gelu", "layers": [{"W": [[0.0] * 8] * 8, "b": [0.0] * 8}] * 10_000}

    def refuse():
        try:
            PlaygroundState.from_dict(huge)
        except ValueError:
            return True
        return False

    refused = refuse()
    rows.append(Row("refuse a 10,000-layer playground state", median_time(refuse, repeat=5),
                    "accept the largest allowed state", median_time(
                        lambda: PlaygroundState.from_dict(big.to_dict()), repeat=3),
                    max_seconds=0.01, holds=refused))
    return rows


def run() -> list[Row]:
    from relulab.app import ensure_application

    ensure_application()
    return model_rows() + frame_rows() + panel_rows()
