"""Dragging a kink: one least-squares refit plus redraw per mouse move.

Measured through the real Hinges panel (offscreen) with synthetic mouse events, at
100 hinges and 1000 sample points, side by side with the same panel solving the
dense 1000 × 102 least-squares problem (np.linalg.lstsq) on every move.
"""

from __future__ import annotations

import os
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

from benchmarks.common import Row, median_time, small

HINGES, POINTS, MOVES = small(100, 10), small(1000, 100), small(60, 8)
FRAME = 0.008  # a drag fits in a frame: model work plus redraw, median per move


def _drag_times(method: str) -> tuple[float, float]:
    """Median wall time and median CPU time (this process, all threads) per move."""
    import pyqtgraph as pg
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QApplication

    from relulab.app import ensure_application
    from relulab.testing import mouse
    from relulab.ui.panels.hinges import HingesPanel

    ensure_application()
    pg.setConfigOption("mouseRateLimit", -1)
    panel = HingesPanel()
    try:
        panel.resize(1280, 800)
        panel.show()
        panel.convergence_check.setChecked(False)  # measure the drag, not the study
        panel.points_spin.setValue(POINTS)
        panel.count_spin.setValue(HINGES)
        panel._fit_method = method
        QApplication.processEvents()
        view = panel.plot
        view.scene().minDragTime = 0
        i = HINGES // 2
        k = panel.fit.kinks[i]
        start = mouse.data_to_viewport(view, k, float(panel.fit.predict(np.array([k]))[0]))
        mouse.move(view, start)
        mouse.press(view, start)
        QApplication.processEvents()
        times, cpu = [], []
        for step in range(1, MOVES + 1):
            # back and forth across a few neighbouring kinks
            dx = 40.0 * np.sin(step / 6.0)
            pos = QPointF(start.x() + dx, start.y())
            c0, t0 = time.process_time(), time.perf_counter()
            mouse.move(view, pos, mouse.LEFT)
            QApplication.processEvents()  # the redraw
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        mouse.release(view, pos)
        QApplication.processEvents()
        assert panel.undo_stack.count() >= 1, "the drag did not register"
        return statistics.median(times[5:]), statistics.median(cpu[5:])
    finally:
        panel.shutdown()
        panel.deleteLater()


def run() -> list[Row]:
    from relulab.model.fitting.hinges import evenly_spaced_kinks, fit_hinges

    ours, ours_cpu = _drag_times("auto")
    dense, dense_cpu = _drag_times("dense")
    x = np.linspace(-3, 3, POINTS)
    y = np.sin(2 * x) + 0.3 * x ** 2
    kinks = evenly_spaced_kinks(-3, 3, HINGES)
    fit_fast = median_time(lambda: fit_hinges(x, y, kinks), repeat=30)
    fit_dense = median_time(lambda: fit_hinges(x, y, kinks, method="dense"), repeat=10)
    threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    return [
        Row(f"drag a kink: refit + redraw per move ({HINGES} hinges, {POINTS} points)", ours,
            f"same panel, dense lstsq {POINTS}×{HINGES + 2} per move", dense, max_seconds=FRAME,
            note=f"median of {MOVES - 5} synthetic mouse moves through the real panel, "
                 f"offscreen, BLAS threads: {threads}, load average {os.getloadavg()[0]:.1f}"),
        Row("the same drag, CPU time per move (less sensitive to a busy machine)", ours_cpu,
            "same panel, dense lstsq, CPU time", dense_cpu, max_seconds=FRAME),
        Row(f"fit_hinges, hat basis O(n + K) ({HINGES} hinges, {POINTS} points)", fit_fast,
            "np.linalg.lstsq on the dense design matrix (the same fit)", fit_dense, min_ratio=5.0),
    ]
