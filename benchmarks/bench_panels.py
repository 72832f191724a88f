"""The window answers: start-up, and the event loop under each panel's heaviest work.

Every measurement runs in a fresh Python process (``python -m benchmarks.bench_panels
PROBE`` prints one JSON line), so imports, caches and memory of one do not help or
hurt another:

* first paint of the window (build, show, the current panel's main plot painted),
  side by side with a bare PySide6 + pyqtgraph window of five plots, best of several;
* the longest event-loop gap (``event_loop_delays``, a 10 ms timer) while the panels do
  their heaviest work at the largest settings their controls allow: Return on
  1-512-512-1 in Deep → shallow and on two 2-D networks of 1,300 and 2,000 regions
  (each region's polygon drawn), Folding at depth 24 on the whole line, Hinges with
  20,000 samples and 200 hinges (the convergence study, and a drag), Questions' double
  descent sweep at d = 2 with its lottery. The baseline is
  20,000 samples and 200 hinges (the convergence study, and a drag), a lecture's
  handout written from the window (ten scenes, in a child). The baseline is
  the same work done on the GUI thread (the time the window would freeze);
* RSS over seven conversions of different networks in a row.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row, small
from relulab.model.fitting.hinges import MAX_HINGES, MAX_POINTS

ROOT = Path(__file__).resolve().parents[1]
GAP = 0.05          # the interactive budget: no gap of the event loop above 50 ms
FIRST_PAINT_RUNS = small(5, 1)
SEVEN = small(("1-512-512-1", "2-32-32-1", "3-10-10-1", "1-256-256-256-1", "4-8-8-1",
               "2-16-16-16-1", "2-64-1"), ("1-8-8-1", "2-6-6-1"))
RSS_BUDGET_MB = 300
#: the largest 1-D conversion the panel builds
CONVERTER_LINE = small("1-512-512-1", "1-8-8-1")
#: 2-D conversions with about 1,300 and 2,000 regions: each region's polygon is drawn
CONVERTER_PLANE = small(("2-32-32-1", "2-16-16-16-1"), ("2-6-6-1",))
#: the deepest tent the Folding panel draws on the whole line
FOLDING_DEPTH = small(24, 8)
#: the Hinges panel's largest settings: hinges and samples
HINGES, SAMPLES = small(MAX_HINGES, 10), small(MAX_POINTS, 500)
#: mouse moves in the Hinges drag, one per frame
DRAG_MOVES = small(60, 8)


# -- the probes (each runs in its own process) ------------------------------------------

def _app():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from relulab.ui.application import ensure_application
    from relulab.ui.worker import freeze_long_lived_objects

    app = ensure_application()
    freeze_long_lived_objects()  # as relulab's main() does
    return app


def _paint_time(widget, t0: float) -> float:
    """Seconds from ``t0`` until ``widget`` (a plot) has painted once."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    painted = []

    class Watch(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and not painted:
                painted.append(time.perf_counter())
            return False

    watch = Watch()
    widget.viewport().installEventFilter(watch)
    deadline = time.perf_counter() + 60
    while not painted and time.perf_counter() < deadline:
        QApplication.processEvents()
    return painted[0] - t0 if painted else math.inf


def probe_first_paint_bare(t0: float) -> dict:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QGridLayout, QWidget

    _app()
    window = QWidget()
    grid = QGridLayout(window)
    plots = [pg.PlotWidget() for _ in range(5)]
    for i, p in enumerate(plots):
        p.plot([0, 1, 2], [0, 1, 0])
        grid.addWidget(p, i // 3, i % 3)
    window.resize(1280, 800)
    window.show()
    return {"seconds": _paint_time(plots[0], t0)}


def probe_first_paint_window(t0: float) -> dict:
    from relulab.app import build_main_window

    _app()
    window = build_main_window(panel="hinges")
    window.show()
    seconds = _paint_time(window.current_panel().plots()["main"], t0)
    created = sorted(window.panels.created())
    scipy = "scipy" in sys.modules
    window.close()
    return {"seconds": seconds, "created": created, "scipy": scipy}


def _gap(start, done, seconds: float = 180.0) -> float:
    from benchmarks.common import event_loop_delays

    return float(event_loop_delays(start, done, seconds).max())


def probe_converter(_t0: float, arch: str = "1-512-512-1") -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from relulab.model.networks.mlp import MLP
    from relulab.ui.panels.converter import ConverterPanel
    from relulab.ui.panels.converter.jobs import compute

    _app()
    panel = ConverterPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.wait_until_idle(120)
    panel.arch_edit.setText(arch)
    sizes = [int(s) for s in arch.split("-")]
    t = time.perf_counter()
    gap = _gap(lambda: QTest.keyClick(panel.arch_edit, Qt.Key.Key_Return), lambda: not panel.busy)
    total = time.perf_counter() - t
    ok = panel.net.sizes == sizes and panel.verdict.text().startswith("Equal")
    result = panel.result
    kinks = panel.kink_table.model().rowCount()
    regions = len(result.conversion.regions) if result and sizes[0] > 1 else 0
    net = MLP.random(sizes, seed=panel.seed)
    t = time.perf_counter()
    compute(net)
    blocking = time.perf_counter() - t
    panel.shutdown()
    return {"gap": gap, "baseline": blocking, "total": total, "ok": ok, "kinks": kinks,
            "regions": regions}


def probe_folding(_t0: float) -> dict:
    from relulab.ui.panels.folding import FoldingPanel
    from relulab.ui.panels.folding.jobs import compute_tent

    _app()
    panel = FoldingPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.wait_until_idle(120)
    panel.whole_line.setChecked(True)
    panel.wait_until_idle(120)

    def done():
        return not panel.computing() and panel.warmed_up()

    gap = _gap(lambda: panel.set_depth(FOLDING_DEPTH), done)
    ok = f"{2 ** FOLDING_DEPTH:,}</b> pieces" in panel.count_label.text()
    panel.shutdown()
    t = time.perf_counter()
    compute_tent(FOLDING_DEPTH, 0.5)
    blocking = time.perf_counter() - t
    return {"gap": gap, "baseline": blocking, "ok": ok}


def probe_hinges(_t0: float) -> dict:
    from relulab.model.fitting.hinges import DEFAULT_COUNTS, convergence_study
    from relulab.ui.panels.hinges import HingesPanel

    _app()
    panel = HingesPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.components_check.setChecked(True)
    panel.count_spin.setValue(HINGES)
    panel.wait_until_idle(120)
    gap = _gap(lambda: panel.points_spin.setValue(SAMPLES), lambda: panel.convergence_done)
    ok = len(panel.convergence_rows) == len(DEFAULT_COUNTS)
    s = panel.state
    rows, t = [], time.perf_counter()
    for _ in convergence_study(panel.target, s.a, s.b, DEFAULT_COUNTS, s.points):
        rows.append(time.perf_counter() - t)
        t = time.perf_counter()
    panel.shutdown()
    return {"gap": gap, "baseline": max(rows), "ok": ok}


def probe_hinges_drag(_t0: float) -> dict:
    """A kink dragged for a second at the largest settings (20,000 samples and 200 hinges),
    one move per frame."""
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtCore import QPointF, QTimer

    from relulab.testing import mouse
    from relulab.ui.panels.hinges import HingesPanel

    _app()
    pg.setConfigOption("mouseRateLimit", -1)
    results = {}
    for method in ("auto", "dense"):
        panel = HingesPanel()
        panel.resize(1280, 800)
        panel.show()
        panel.count_spin.setValue(HINGES)
        panel.points_spin.setValue(SAMPLES)
        panel.wait_until_idle(120)
        panel._fit_method = method
        view = panel.plot
        view.scene().minDragTime = 0
        k = panel.fit.kinks[HINGES // 2]
        start = mouse.data_to_viewport(view, k, float(panel.fit.predict(np.array([k]))[0]))
        moves = {"n": 0}
        timer = QTimer()
        timer.setInterval(16)

        def step():
            moves["n"] += 1
            dx = 40.0 * np.sin(moves["n"] / 6.0)
            mouse.move(view, QPointF(start.x() + dx, start.y()), mouse.LEFT)
            if moves["n"] >= DRAG_MOVES:
                timer.stop()

        timer.timeout.connect(step)

        def begin():
            mouse.move(view, start)
            mouse.press(view, start)
            timer.start()

        results[method] = _gap(begin, lambda: moves["n"] >= DRAG_MOVES, 60)
        mouse.release(view, start)
        panel.shutdown()
    return {"gap": results["auto"], "baseline": results["dense"], "ok": True}


def probe_questions(_t0: float) -> dict:
    from relulab.model.lessons.questions import DoubleDescentSettings
    from relulab.model.questions.double_descent import run_steps
    from relulab.ui.panels.questions import QuestionsPanel
    from relulab.ui.panels.questions.jobs import run_double_descent

    _app()
    panel = QuestionsPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.wait_until_idle(180)

    def done():
        return panel.result() is not None and panel.result().settings.d == 2

    gap = _gap(lambda: panel.set_double_descent(d=2), done)
    ok = panel.readouts().get("dd_regime") == "catastrophic"
    panel.shutdown()
    t = time.perf_counter()
    run_steps(run_double_descent(DoubleDescentSettings(d=2)))
    blocking = time.perf_counter() - t
    return {"gap": gap, "baseline": blocking, "ok": ok}


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return math.nan


def probe_seven_conversions(_t0: float) -> dict:
    import gc

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from relulab.ui.panels.converter import ConverterPanel

    _app()
    panel = ConverterPanel()
    panel.resize(1280, 800)
    panel.show()
    rss, t = [], time.perf_counter()
    for arch in SEVEN:
        panel.arch_edit.setText(arch)
        QTest.keyClick(panel.arch_edit, Qt.Key.Key_Return)
        panel.wait_until_idle(600)
        gc.collect()
        rss.append(_rss_mb())
    seconds = time.perf_counter() - t
    ok = panel.verdict.text().startswith("Equal") and "-".join(map(str, panel.net.sizes)) == SEVEN[-1]
    panel.shutdown()
    return {"rss": rss, "seconds": seconds, "ok": ok}


def probe_handout(_t0: float) -> dict:
    """Lecture ▸ Export a handout of the built-in lecture from the window:
    drawn by ``relulab lecture export`` in a child. The baseline draws the same PDF on
    the GUI thread (the time the window stopped for before)."""
    from relulab.io.scenes import builtin_lecture_path, read_playlist
    from relulab.ui.application import build_main_window
    from relulab.ui.lecture.handout import write_handout

    _app()
    window = build_main_window()
    window.resize(1280, 720)
    window.show()
    window.current_panel().wait_until_idle(120)
    _gap(lambda: None, None, 1.0)  # the first paint and what it leaves are not the export's
    playlist = read_playlist(builtin_lecture_path(), list(window.panels))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "handout.pdf"
        ended = []
        window.lecture.handout_written.connect(ended.append)
        window.lecture.handout_failed.connect(ended.append)
        gap = _gap(lambda: window.lecture.export_handout(out, playlist=playlist),
                   lambda: bool(ended))
        ok = ended == [str(out)] and out.exists()
        t = time.perf_counter()
        write_handout(playlist, Path(folder) / "blocking.pdf")
        blocking = time.perf_counter() - t
    window.session.confirm_close = False
    window.close()
    return {"gap": gap, "baseline": blocking, "ok": ok, "scenes": len(playlist.scenes)}


PROBES = {
    "first-paint-bare": probe_first_paint_bare,
    "first-paint-window": probe_first_paint_window,
    "converter": probe_converter,
    "folding": probe_folding,
    "hinges": probe_hinges,
    "hinges-drag": probe_hinges_drag,
    "seven-conversions": probe_seven_conversions,
    "questions": probe_questions,
    "handout": probe_handout,
}


# -- running them -------------------------------------------------------------------------

def _probe(name: str) -> dict:
    """Run one probe in a fresh interpreter with fresh settings; its JSON answer."""
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=home,
                   RELULAB_DATA_DIR=str(Path(home) / "data"), PYTHONPATH=str(ROOT))
        code = ("import time; t0 = time.perf_counter()\n"
                "from benchmarks.bench_panels import main; main(t0)\n")
        out = subprocess.run([sys.executable, "-c", code, name], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"probe {name} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(t0: float) -> None:
    name, *args = sys.argv[1].split(":")   # "converter:2-32-32-1": a probe and its argument
    print(json.dumps(PROBES[name](t0, *args)), flush=True)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: nothing of it is measured


def _gap_row(what: str, probe: dict, baseline: str) -> Row:
    return Row(what, probe["gap"], baseline, probe["baseline"], max_seconds=GAP,
               holds=bool(probe["ok"]),
               note="" if probe["ok"] else "the work did not finish as expected")


def run() -> list[Row]:
    bare, window, created = [], [], []
    for _ in range(FIRST_PAINT_RUNS):  # alternating, so a busy moment hurts both
        bare.append(_probe("first-paint-bare")["seconds"])
        w = _probe("first-paint-window")
        window.append(w["seconds"])
        created, scipy = w["created"], w["scipy"]
    rows = [Row("first paint of the window (import, build, show, the Hinges plot painted)",
                min(window), "bare PySide6 + pyqtgraph window with five plots", min(bare),
                min_ratio=0.5,
                note=f"best of {FIRST_PAINT_RUNS} fresh processes each; panels created at start: "
                     f"{', '.join(created)}; scipy imported: {'yes' if scipy else 'no'}")]
    converter = _probe(f"converter:{CONVERTER_LINE}")
    rows.append(_gap_row(f"Deep → shallow: Return on {CONVERTER_LINE}, longest event-loop gap",
                         converter, "compute() of the same network on the GUI thread"))
    rows[-1].note = (f"{converter['kinks']} kinks; conversion drawn after "
                     f"{converter['total']:.2f} s")
    for arch in CONVERTER_PLANE:
        plane = _probe(f"converter:{arch}")
        rows.append(_gap_row(f"Deep → shallow: Return on {arch} (2-D), longest event-loop gap",
                             plane, "compute() of the same network on the GUI thread"))
        rows[-1].note = (f"{plane['regions']:,} regions, each drawn; conversion drawn after "
                         f"{plane['total']:.2f} s")
    rows.append(_gap_row(f"Folding: depth {FOLDING_DEPTH} on the whole line, longest event-loop "
                         "gap", _probe("folding"),
                         f"the depth-{FOLDING_DEPTH} tent computed on the GUI thread"))
    rows.append(_gap_row(f"Hinges: {SAMPLES:,} samples, {HINGES} hinges, convergence study, "
                         "longest gap", _probe("hinges"), "its slowest row on the GUI thread"))
    rows.append(_gap_row(f"Hinges: a drag at {SAMPLES:,} samples and {HINGES} hinges, longest gap",
                         _probe("hinges-drag"),
                         f"same drag, dense lstsq {SAMPLES:,}×{HINGES + 2} per move"))
    rows.append(_gap_row("Questions: double descent at d = 2 (10 seeds, n = 100), longest gap",
                         _probe("questions"), "the same sweep and lottery on the GUI thread"))
    handout = _probe("handout")
    rows.append(_gap_row(f"Lecture: a handout of the built-in lecture ({handout['scenes']} scenes), "
                         "longest gap", handout, "the same PDF drawn on the GUI thread"))
    seven = _probe("seven-conversions")
    rss = seven["rss"]
    growth = rss[-1] - rss[0]
    rows.append(Row(f"seven conversions in a row ({', '.join(SEVEN)}): RSS growth",
                    seven["seconds"], "RSS after the first conversion", math.nan,
                    holds=growth <= RSS_BUDGET_MB and seven["ok"],
                    note=f"RSS after each (MB): {', '.join(f'{r:.0f}' for r in rss)}; "
                         f"growth {growth:+.0f} MB (budget {RSS_BUDGET_MB} MB); the time is the "
                         "seven conversions'"))
    return rows
