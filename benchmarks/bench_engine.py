"""The compiled loops on first use: compiled into an empty numba cache (what a user's
very first run pays, on a worker thread) against loaded from the disk cache (every
later run); and the Playground opened on an empty cache, whose window must answer
while the region engine compiles beside it.

Each measurement runs in a fresh process with its own empty cache folder
(``NUMBA_CACHE_DIR``), so nothing compiled by this process or an earlier run counts.
A smoke run uses numba's usual cache instead (filled by the tests before it, or by
its own first child): the same children, without their minutes of compiling.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from benchmarks import common
from benchmarks.common import Row, fmt_time

# code run in a child process; each prints one JSON object
_REGIONS = """
import json, time
from relulab.model.regions.arrangement import engine_status, warm_up
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import count_linear_regions
net = MLP.random({sizes}, seed=0)
t = time.perf_counter()
n = count_linear_regions(net)
print(json.dumps({{"seconds": time.perf_counter() - t, "status": engine_status(net.n_in),
                   "regions": n}}))
"""

_TRAINING = """
import json, time
t = time.perf_counter()
from relulab.model.fitting import _training_kernels as k
ok = k.compiled_available()
print(json.dumps({"seconds": time.perf_counter() - t, "status": "ok" if ok else k._compile_error}))
"""

_PLAYGROUND = """
import json, time
from relulab.app import ensure_application
from benchmarks.common import event_loop_delays
from PySide6.QtWidgets import QApplication
ensure_application()
from relulab.ui.panels.playground import PlaygroundPanel
from relulab.model.networks.mlp import MLP
panel = PlaygroundPanel()
panel.show()
app = QApplication.instance()
settle = time.perf_counter() + 0.5  # on screen and idle, as a user first sees it
while time.perf_counter() < settle:
    app.processEvents()
labels = panel.strip
said = set()
nets = [MLP.random([2, 8, 8, 1], seed=seed) for seed in range(40)]
sent = [time.perf_counter(), 0]
def done():
    # a new network every 0.25 s: the panel redraws all through the compilation
    said.add(labels.region_label.text())
    if labels.region_label.text().endswith("(exact)"):
        return True
    if time.perf_counter() - sent[0] > 0.25:
        sent[0], sent[1] = time.perf_counter(), sent[1] + 1
        panel.receive("network", nets[sent[1] % len(nets)])
    return False
t = time.perf_counter()
delays = event_loop_delays(lambda: panel.receive("network", nets[0]), done=done, seconds=120.0)
print(json.dumps({"max_delay": float(delays.max()), "seconds": time.perf_counter() - t,
                  "networks": sent[1] + 1,
                  "preparing": any("preparing" in s for s in said),
                  "label": labels.region_label.text()}))
panel.close()
"""


def _child(code: str, cache: str | None) -> dict:
    """Run ``code`` in a fresh process with numba's cache in ``cache`` (None: numba's
    usual place) and return the JSON object it printed last."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cold_and_warm(code: str) -> tuple[dict, dict]:
    if common.SMOKE:  # one child: with numba's usual cache, the next run is the same
        done = _child(code, None)
        return done, done
    with tempfile.TemporaryDirectory() as cache:
        return _child(code, cache), _child(code, cache)


def run() -> list[Row]:
    rows = []
    empty = "numba's usual cache (smoke run)" if common.SMOKE else "an empty numba cache"
    for sizes, kind in (([2, 8, 8, 1], "2-D"), ([3, 8, 8, 1], "n-D")):
        cold, warm = _cold_and_warm(_REGIONS.format(sizes=sizes))
        rows.append(Row(f"region engine {kind}: first region count on {empty} "
                        f"(engine {cold['status']})", cold["seconds"],
                        "the same, the next run", warm["seconds"],
                        note=f"next run: engine {warm['status']}"))
        rows.append(Row(f"region engine {kind}: first region count, the next run (from the "
                        "disk cache)", warm["seconds"], "—", float("nan"), max_seconds=1.0,
                        holds=warm["status"].startswith("loaded from the disk cache"),
                        note=f"engine {warm['status']}"))
    cold, warm = _cold_and_warm(_TRAINING)
    rows.append(Row(f"training loop: compiled on {empty}", cold["seconds"],
                    "loaded from the disk cache", warm["seconds"],
                    note=f"compiled: {cold['status']}; loaded: {warm['status']}"))
    if common.SMOKE:
        shown = _child(_PLAYGROUND, None)
    else:
        with tempfile.TemporaryDirectory() as cache:
            shown = _child(_PLAYGROUND, cache)
    rows.append(Row(f"Playground on {empty}: event loop delay, max, until the "
                    "overlay is drawn", shown["max_delay"], "—", float("nan"), max_seconds=0.05,
                    holds=shown["preparing"],
                    note=f"'{shown['label']}' after {fmt_time(shown['seconds'])} and "
                         f"{shown['networks']} networks, one every 0.25 s; "
                         f"said it was preparing the engine: {shown['preparing']}"))
    return rows
