"""``relulab render``: draws offscreen; exit code and one line on error."""

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from relulab.ui.panels import PANEL_NAMES

ROOT = Path(__file__).resolve().parents[1]


def render(*args, tmp_path):
    # a display that does not exist: the command must not need one
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=":4711", HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "relulab", "render", *map(str, args)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_default_state_of_a_panel(tmp_path):
    out = tmp_path / "folding.png"
    r = render("-o", out, "--panel", "folding", "--size", "640x400", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert png_size(out) == (640, 400)
    assert r.stdout.strip() == str(out)


def test_a_scene_picks_its_current_panel(tmp_path):
    scene = tmp_path / "s.relulab.json"
    scene.write_text(json.dumps({"format": "relulab-scene", "version": 1, "current": "converter",
                                 "panels": {"converter": {}}}))
    out = tmp_path / "s.png"
    r = render(scene, "-o", out, "--size", "320x240", "--lecture", "--theme", "dark", "--zoom", "1.5",
               tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert png_size(out) == (320, 240)


@pytest.mark.slow
def test_a_saved_scene_renders_every_panel(tmp_path):
    """What the window saves, the command draws (real panels once they exist)."""
    code = (
        "import os, sys; os.environ['QT_QPA_PLATFORM']='offscreen'\n"
        "from relulab.app import build_main_window\n"
        f"w = build_main_window(); w.session.save({str(tmp_path / 'all.relulab.json')!r}); w.close()\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120,
                   env=dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "c")))
    for name in PANEL_NAMES:
        out = tmp_path / f"{name}.png"
        r = render(tmp_path / "all.relulab.json", "-o", out, "--panel", name, "--size", "400x300",
                   tmp_path=tmp_path)
        assert r.returncode == 0, r.stderr
        assert png_size(out) == (400, 300)


@pytest.mark.parametrize(("args", "code", "words"), [
    (["-o", "{tmp}/x.png", "--size", "12x"], 2, "--size: '12x' is not WIDTHxHEIGHT"),
    (["-o", "{tmp}/x.png", "--size", "10x10"], 2, "between 64 and 8192"),
    (["-o", "{tmp}/x.png", "--panel", "nope"], 2, "invalid choice: 'nope'"),
    (["-o", "{tmp}/x.jpg"], 2, "must end in .png or .svg"),
    ([], 2, "required: -o/--output"),
    (["-o", "{tmp}/no/such/x.png"], 1, "does not exist"),
    (["{tmp}/missing.relulab.json", "-o", "{tmp}/x.png"], 1, "missing.relulab.json does not exist"),
    (["{tmp}/broken.relulab.json", "-o", "{tmp}/x.png"], 1, "file: not valid JSON"),
    (["{tmp}/newer.relulab.json", "-o", "{tmp}/x.png"], 1, "version: this file was written by a newer"),
    (["-o", "{tmp}/x.png", "--zoom", "9"], 2, "--zoom 9.0: must be between"),
])
def test_bad_input_gives_an_exit_code_and_one_line(args, code, words, tmp_path):
    (tmp_path / "broken.relulab.json").write_text('{"format": "relulab-scene", "vers')
    (tmp_path / "newer.relulab.json").write_text(
        json.dumps({"format": "relulab-scene", "version": 7, "panels": {}}))
    r = render(*[a.format(tmp=tmp_path) for a in args], tmp_path=tmp_path)
    assert r.returncode == code
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("relulab render: ") and words in lines[0]
    assert not (tmp_path / "x.png").exists()


def test_in_process_main_returns_the_code(tmp_path, capsys):
    from relulab.commands.render import main

    assert main(["-o", str(tmp_path / "x.gif")]) == 2
    assert "must end in .png or .svg" in capsys.readouterr().err


def test_one_plot_alone_and_a_plot_that_does_not_exist(tmp_path):
    from relulab.ui.panels import PANELS

    name = PANELS[0].name
    out = tmp_path / "plot.png"
    r = render("-o", out, "--panel", name, "--size", "500x300", "--plot", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert png_size(out) == (500, 300)
    r = render("-o", out, "--panel", name, "--plot=no-such-plot", tmp_path=tmp_path)
    assert r.returncode == 1 and "has no such plot (it has: " in r.stderr
    svg = tmp_path / "plot.svg"
    r = render("-o", svg, "--panel", name, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "<svg" in svg.read_text()
