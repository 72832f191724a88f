"""The window answers on a busy machine, driven the way a user drives it.

Each measurement is the longest event-loop gap (``event_loop_delays``, a 10 ms timer)
while a panel does what a user asked, asked as the user asks: an architecture typed
into Deep → shallow and Return pressed (``QTest.keyClicks`` + ``Key_Return``), the
Folding depth slider's End key, a number of points typed into Hinges, a kink dragged,
the main window's tabs clicked. Every probe runs in a fresh Python process.

"With one core busy": the probe starts a process that runs a pure-Python loop (one
other program computing) before the user acts, and ends it after; its baseline is the
same probe, in the same run, on the machine as it is (no busy process started). The
typed architectures' baseline is the longest gap of the same window left idle for a
second (what the event loop costs with nothing to do). The budget is the interactive
one: no gap above 50 ms.

Deep → shallow's architectures: a representative list across the panel's limits
(:data:`TYPED`): 1 to 4 inputs, 1 to 4 outputs, one to eight hidden layers, up to
1,024 hidden neurons for one input and up to 64 for more.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import SMOKE, Row, small

ROOT = Path(__file__).resolve().parents[1]
GAP = 0.05
#: the rows the issue names, measured with one core busy
BUSY_ARCHITECTURES = small(("1-512-512-1", "1-256-256-256-1"), ("1-8-1",))
#: what a user can type into Deep → shallow, across its limits (MAX_INPUTS 4,
#: MAX_OUTPUTS 4, MAX_NEURONS_1D 1,024, MAX_NEURONS_ND 64)
TYPED = small(("1-8-1", "1-1024-1", "1-512-512-1", "1-256-256-256-1",
               "1-64-64-64-64-64-64-64-64-1", "1-100-100-4", "2-48-1", "2-20-20-20-1",
               "2-64-4", "3-10-10-1", "4-8-8-1"), ("1-8-1", "2-6-1"))
FOLDING_DEPTH = small(24, 17)
HINGES_POINTS = small(20_000, 200)


# -- the probes (each runs in its own process) ----------------------------------------

class Busy:
    """One core kept busy by a child running a pure-Python loop, while in the block."""

    def __init__(self, on: bool):
        self.on, self.proc = on, None

    def __enter__(self):
        if self.on:
            self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(0.3)  # it is running before the user acts
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def _app():
    """The application as ``relulab`` makes it (its garbage collector's freeze too)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from relulab.ui.application import ensure_application
    from relulab.ui.worker import freeze_long_lived_objects

    app = ensure_application()
    freeze_long_lived_objects()
    return app


def _gap(start, done, seconds: float = 300.0) -> float:
    """The longest event-loop gap after ``start()``, the window set up as the app's is
    when a user first acts: what lived before its loop started is frozen."""
    from benchmarks.common import event_loop_delays
    from relulab.ui.worker import freeze_what_lives_now

    freeze_what_lives_now()
    return float(event_loop_delays(start, done, seconds).max())


def _type_and_return(edit, text: str) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, Qt.Key.Key_Return)


def probe_converter(busy: bool, archs: str) -> dict:
    from relulab.ui.panels.converter import ConverterPanel

    _app()
    panel = ConverterPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.wait_until_idle(300)
    gaps, ok, seconds = {}, {}, {}
    for arch in archs.split(","):
        with Busy(busy):
            t = time.perf_counter()
            gaps[arch] = _gap(lambda a=arch: _type_and_return(panel.arch_edit, a),
                              lambda: not panel.busy)
            seconds[arch] = time.perf_counter() - t
        ok[arch] = ("-".join(map(str, panel.net.sizes)) == arch
                    and panel.verdict.text().startswith("Equal"))
    panel.shutdown()
    return {"gaps": gaps, "ok": ok, "seconds": seconds}


def probe_folding(busy: bool, depth: str = "24") -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from relulab.ui.panels.folding import FoldingPanel

    _app()
    panel = FoldingPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.wait_until_idle(300)
    QTest.mouseClick(panel.whole_line, Qt.MouseButton.LeftButton)
    panel.wait_until_idle(300)
    slider = panel.depth_slider
    # one key, as a user presses it: End to the deepest, else Up from one shallower
    key = Qt.Key.Key_End if int(depth) == slider.maximum() else Qt.Key.Key_Up
    if key == Qt.Key.Key_Up:
        panel.set_depth(int(depth) - 1)
        panel.wait_until_idle(300)

    def press():
        slider.setFocus()
        QTest.keyClick(slider, key)

    with Busy(busy):
        gap = _gap(press, lambda: not panel.computing() and panel.warmed_up())
    seen = {"whole line": panel.whole_line.isChecked(), "depth": slider.value(),
            "count": f"{2 ** int(depth):,}</b> pieces" in panel.count_label.text(),
            "done": not panel.computing() and panel.warmed_up()}
    panel.shutdown()
    return {"gap": gap, "ok": all(seen.values()) and seen["depth"] == int(depth),
            "seen": seen}


def probe_hinges(busy: bool, points: str = "") -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from relulab.model.fitting.hinges import DEFAULT_COUNTS, MAX_HINGES, MAX_POINTS
    from relulab.ui.panels.hinges import HingesPanel

    _app()
    panel = HingesPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.count_spin.setValue(MAX_HINGES)
    panel.wait_until_idle(300)
    target = int(points or MAX_POINTS)
    spin = panel.points_spin

    def type_points():
        spin.setFocus()
        spin.selectAll()
        QTest.keyClicks(spin, str(target))
        QTest.keyClick(spin, Qt.Key.Key_Return)

    with Busy(busy):
        gap = _gap(type_points, lambda: panel.convergence_done and panel.state.points == target)
    ok = panel.state.points == target and len(panel.convergence_rows) == len(DEFAULT_COUNTS)
    panel.shutdown()
    return {"gap": gap, "ok": ok}


def probe_hinges_drag(busy: bool, _arg: str = "") -> dict:
    from benchmarks.bench_panels import probe_hinges_drag as drag

    with Busy(busy):
        out = drag(0.0)
    return {"gap": out["gap"], "ok": out["ok"]}


def _idle(panel) -> bool:
    from relulab.ui.worker import Worker

    return not any(w.busy for w in panel.findChildren(Worker)) and not panel.drawing_pending()


def probe_tabs(busy: bool, _arg: str = "") -> dict:
    """Each tab of the main window clicked in turn (every panel made and idle first)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from relulab.app import build_main_window
    from relulab.ui.panels import PANEL_NAMES

    _app()
    window = build_main_window(panel="hinges")
    window.resize(1280, 800)
    window.show()
    for name in PANEL_NAMES:
        window.show_panel(name).wait_until_idle(300)
    window.show_panel(PANEL_NAMES[0])
    bar = window.tabs.tabBar()
    gaps = {}
    with Busy(busy):
        order = [*range(1, len(PANEL_NAMES)), 0]  # from the first tab round to it again
        for i in order:
            name = PANEL_NAMES[i]
            def click(i=i):
                QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())

            gaps[name] = _gap(click, lambda i=i: window.tabs.currentIndex() == i
                              and _idle(window.current_panel()), 60)
    ok = window.tabs.currentIndex() == 0
    window.session.confirm_close = False
    window.close()
    return {"gap": max(gaps.values()), "gaps": gaps, "ok": ok}


def probe_idle(busy: bool, _arg: str = "") -> dict:
    """The Deep → shallow window left idle for a second: the event loop's own gaps."""
    from relulab.ui.panels.converter import ConverterPanel

    _app()
    panel = ConverterPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.wait_until_idle(300)
    with Busy(busy):
        gap = _gap(lambda: None, None, 1.0)
    panel.shutdown()
    return {"gap": gap, "ok": True}


def probe_collection(busy: bool, _arg: str = "") -> dict:
    """A full garbage collection on the GUI thread with the Deep → shallow window made and
    a conversion drawn: as the app runs it (what outlived a quiet full collection frozen
    by the GUI collector) and without the freeze (the baseline); CPU time of the thread."""
    import gc

    from relulab.ui import worker
    from relulab.ui.panels.converter import ConverterPanel

    _app()
    worker.freeze_long_lived_objects(False)  # the baseline first: nothing frozen
    panel = ConverterPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.wait_until_idle(300)
    _type_and_return(panel.arch_edit, "2-20-20-1")
    panel.wait_until_idle(300)

    def full() -> float:
        t = time.thread_time()
        gc.collect()
        return time.thread_time() - t

    unfrozen = min(full() for _ in range(3))
    worker.freeze_long_lived_objects()
    collector = worker._collector
    assert collector is not None
    collector._idle_since = time.monotonic() - 2 * collector.QUIET  # quiet for a while
    collector._waiting_since = None
    while gc.get_freeze_count() == 0:  # one quiet full collection, as the timer makes it
        gc.collect(1)
        for _ in range(gc.get_threshold()[2] + 1):
            gc.collect(1)
        collector.check()
    _type_and_return(panel.arch_edit, "2-24-24-1")  # more made after the freeze
    panel.wait_until_idle(300)
    frozen = min(full() for _ in range(3))
    panel.shutdown()
    return {"gap": frozen, "baseline": unfrozen, "ok": gc.get_freeze_count() > 0}


PROBES = {
    "converter": probe_converter,
    "folding": probe_folding,
    "hinges": probe_hinges,
    "hinges-drag": probe_hinges_drag,
    "tabs": probe_tabs,
    "idle": probe_idle,
    "collection": probe_collection,
}


# -- running them -------------------------------------------------------------------------

def _probe(name: str, busy: bool, arg: str = "") -> dict:
    """One probe in a fresh interpreter with fresh settings; its answer."""
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=home,
                   RELULAB_DATA_DIR=str(Path(home) / "data"), PYTHONPATH=str(ROOT))
        code = "from benchmarks.bench_busy import main; main()\n"
        out = subprocess.run([sys.executable, "-c", code, name, "1" if busy else "0", arg],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        raise RuntimeError(f"probe {name} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    name, busy, arg = sys.argv[1], sys.argv[2] == "1", sys.argv[3] if len(sys.argv) > 3 else ""
    print(json.dumps(PROBES[name](busy, *([arg] if arg else []))), flush=True)
    os._exit(0)  # skip interpreter teardown: nothing of it is measured


def _row(what: str, app: dict, base: dict, baseline: str, key: str = "gap",
         smoke: bool = False) -> Row:
    ok = bool(app["ok"])
    return Row(what, app[key], baseline, base[key], max_seconds=None if smoke else GAP,
               holds=ok, note="" if ok else f"the work did not finish as expected {app.get('seen', '')}")


QUIET = "the same, no busy process"


def run(smoke: bool | None = None) -> list[Row]:
    """Every row; ``smoke``: each probe once on tiny sizes, no timing judged. A probe
    that fails costs its own rows only (its error is printed); each row is printed to
    stderr as soon as it is measured."""
    smoke = SMOKE if smoke is None else smoke
    rows: list[Row] = []

    def add(row: Row) -> None:
        rows.append(row)
        print(f"  {row.name}: {row.seconds * 1e3:.0f} ms ({row.baseline}: "
              f"{row.baseline_seconds * 1e3:.0f} ms) {row.note}", file=sys.stderr, flush=True)

    def both(name: str, arg: str = "") -> tuple[dict, dict]:
        """The probe with one core busy, then on the machine as it is."""
        return _probe(name, True, arg), _probe(name, False, arg)

    def busy_converter() -> None:
        archs = BUSY_ARCHITECTURES
        app, quiet = both("converter", ",".join(archs))
        for arch in archs:
            add(_row(f"one core busy: Deep → shallow, {arch} typed + Return, longest gap",
                     {"gap": app["gaps"][arch], "ok": app["ok"][arch]},
                     {"gap": quiet["gaps"][arch]}, QUIET, smoke=smoke))
            rows[-1].note = (rows[-1].note + "; " if rows[-1].note else "") + (
                f"drawn after {app['seconds'][arch]:.2f} s ({quiet['seconds'][arch]:.2f} s "
                "without the busy process)")

    def typed() -> None:
        app = _probe("converter", False, ",".join(TYPED))
        idle = _probe("idle", False)
        for arch in TYPED:
            add(_row(f"Deep → shallow, {arch} typed + Return, longest gap",
                     {"gap": app["gaps"][arch], "ok": app["ok"][arch]}, idle,
                     "the window idle for 1 s", smoke=smoke))
            rows[-1].note = f"drawn after {app['seconds'][arch]:.2f} s"

    def folding() -> None:
        depth = str(FOLDING_DEPTH)
        add(_row(f"one core busy: Folding, depth {depth} on the whole line (slider key), "
                 "longest gap", *both("folding", depth), QUIET, smoke=smoke))

    def hinges() -> None:
        points = HINGES_POINTS
        add(_row(f"one core busy: Hinges, {points:,} points typed + Return "
                 "(convergence study), longest gap", *both("hinges", str(points)), QUIET,
                 smoke=smoke))

    def drag() -> None:
        add(_row("one core busy: Hinges, a kink dragged at 20,000 points and 200 hinges, "
                 "longest gap", *both("hinges-drag"), QUIET, smoke=smoke))

    def tabs() -> None:
        app, quiet = both("tabs")
        add(_row("one core busy: the main window's tabs clicked in turn, longest gap",
                 app, quiet, QUIET, smoke=smoke))
        rows[-1].note = "per tab (ms): " + ", ".join(
            f"{k} {v * 1e3:.0f}" for k, v in app["gaps"].items())

    def collection() -> None:
        out = _probe("collection", False)
        add(_row("a full garbage collection on the GUI thread, Deep → shallow made and drawn "
                 "(CPU time)", out, {"gap": out["baseline"]}, "nothing frozen", smoke=smoke))

    sections = [collection, busy_converter, folding, hinges, typed]
    if not smoke:  # every panel made, and a second of drag: minutes on a loaded machine
        sections += [drag, tabs]
    failed = []
    for section in sections:
        try:
            section()
        except Exception as exc:
            print(exc, file=sys.stderr, flush=True)
            failed.append(exc)
    if failed and not rows:
        raise failed[0]
    if failed:
        rows.append(Row(f"bench_busy: {len(failed)} probe(s) failed", float("nan"), "", float("nan"),
                        holds=False, note="; ".join(str(e).splitlines()[0] for e in failed)))
    return rows
