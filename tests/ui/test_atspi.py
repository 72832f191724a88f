"""A real screen reader's view: the app on an X server (Xvfb) with Qt's AT-SPI bridge,
read over D-Bus by pyatspi, the Linux accessibility client library that Orca uses.

Needs the Debian packages xvfb, xauth, dbus, at-spi2-core and python3-pyatspi (.ci/run
installs them); without them this test says so and is skipped.
"""

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

LAUNCHER = next((p for p in ("/usr/libexec/at-spi-bus-launcher",
                             "/usr/lib/at-spi2-core/at-spi-bus-launcher") if Path(p).exists()),
                None)
SYSTEM_PYTHON = "/usr/bin/python3"

APP = '''
import os, sys
from PySide6.QtCore import QTimer
from relulab.ui.application import build_main_window, ensure_application
app = ensure_application()
w = build_main_window()
w.show()
for name in w.panels:
    w.panel(name).wait_until_idle(120)
folding = w.show_panel("folding")
folding.set_depth(10)
folding.wait_until_idle(60)
print("READY", flush=True)
QTimer.singleShot(int(sys.argv[1]) * 1000, app.quit)
app.exec()
os._exit(0)
'''

CLIENT = '''
import json, sys, time
import pyatspi

deadline = time.time() + 60
app = None
while app is None and time.time() < deadline:
    app = next((a for a in pyatspi.Registry.getDesktop(0) if a is not None
                and a.name == "ReLU Lab"), None)
    if app is None:
        time.sleep(0.2)
nodes, stack = [], [app] if app is not None else []
while stack:
    acc = stack.pop()
    try:
        parent = acc.parent
        nodes.append({"role": acc.getRoleName(), "name": acc.name,
                      "description": acc.description,
                      "parent": parent.name if parent is not None else ""})
        stack.extend(c for c in (acc.getChildAtIndex(i) for i in range(acc.childCount)) if c)
    except Exception:
        continue
json.dump(nodes, sys.stdout)
'''

RUN = '''
set -u
"$LAUNCHER" --launch-immediately &
launcher=$!
"$APP_PYTHON" app.py 120 > app.log 2>&1 &
app=$!
for i in $(seq 1 600); do grep -q READY app.log && break; kill -0 $app || break; sleep 0.2; done
"$SYSTEM_PYTHON" client.py > tree.json
kill $app $launcher 2>/dev/null
wait 2>/dev/null
'''


def _missing() -> list[str]:
    missing = [tool for tool in ("xvfb-run", "xauth", "dbus-run-session") if not shutil.which(tool)]
    if LAUNCHER is None:
        missing.append("at-spi-bus-launcher (at-spi2-core)")
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True) \
        if Path(SYSTEM_PYTHON).exists() else None
    if probe is None or probe.returncode != 0:
        missing.append("pyatspi (python3-pyatspi)")
    return missing


@pytest.mark.slow
def test_a_screen_reader_reads_names_and_values(tmp_path):
    import sys

    missing = _missing()
    if missing:
        pytest.skip("needs " + ", ".join(missing))
    for name, text in (("app.py", APP), ("client.py", CLIENT), ("run.sh", RUN)):
        (tmp_path / name).write_text(textwrap.dedent(text))
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_")}
    env |= {"QT_QPA_PLATFORM": "xcb", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
            "LAUNCHER": LAUNCHER, "APP_PYTHON": sys.executable, "SYSTEM_PYTHON": SYSTEM_PYTHON,
            "RELULAB_DATA_DIR": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run(["xvfb-run", "-a", "dbus-run-session", "--", "bash", "run.sh"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    tree_file = tmp_path / "tree.json"
    assert tree_file.exists() and tree_file.stat().st_size, (
        out.stderr[-2000:] + (tmp_path / "app.log").read_text()[-2000:])
    nodes = json.loads(tree_file.read_text())
    by_name = {}
    for node in nodes:
        by_name.setdefault(node["name"], node)
    assert len(nodes) > 300
    assert by_name["ReLU Lab"]["role"] == "application"
    # readouts: the name says what it is, the description what it shows, value included
    assert by_name["Piece count"]["role"] == "label"
    assert "1,024 pieces" in by_name["Piece count"]["description"]
    assert by_name["RMSE"]["description"].startswith("RMSE 0.")
    assert by_name["Verdict"]["description"].startswith("Equal")
    assert "restart" in by_name["Best restart"]["description"]
    assert "Linear regions in view" in by_name["Number of linear regions"]["description"]
    # plots say what they show; help texts are read; window parts are named
    assert "handle" in by_name["Target and sum of hinges"]["description"]
    assert "Drag a handle" in by_name["Mouse and keys on the plot"]["description"]
    for part in ("File menu", "Status bar", "Panels"):
        assert part in by_name
    unnamed = [n for n in nodes if not n["name"] and n["role"] in (
        "label", "push button", "check box", "radio button", "combo box", "spin button",
        "slider", "text", "table", "page tab")]
    assert not unnamed, unnamed[:10]
