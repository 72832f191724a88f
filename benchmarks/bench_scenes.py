"""Scene files: validation costs little next to JSON itself; saving and the
unsaved-changes check stay far below a frame; the window opens a scene quickly."""

import os
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.common import Row, median_time, small
from relulab.io.scenes import Scene, dump_scene, parse_scene, write_scene

PANELS = ["hinges", "training", "folding", "converter", "playground"]


def _big_scene() -> Scene:
    """About 1 MB: a 2-D data set, a deep network and training histories (a few kB in
    a smoke run)."""
    rng = np.random.default_rng(0)
    n = small(2000, 50)
    return Scene(current="playground", panels={
        "playground": {"points": rng.normal(size=(n, 2)).tolist(),
                       "labels": rng.integers(0, 2, n).tolist()},
        "converter": {"layers": [{"W": rng.normal(size=(32, 32)).tolist(),
                                  "b": rng.normal(size=32).tolist()} for _ in range(8)]},
        "training": {"history": rng.random((6, n)).tolist()},
        "hinges": {"kinks": np.linspace(-3, 3, 24).tolist()},
        "folding": {"depth": 8},
    })


def run() -> list[Row]:
    import json

    scene = _big_scene()
    text = dump_scene(scene)
    size = len(text.encode()) / 1e6
    parse = median_time(lambda: parse_scene(text, PANELS), repeat=10)
    plain = median_time(lambda: json.loads(text), repeat=10)
    dump = median_time(lambda: dump_scene(scene), repeat=10)
    plain_dump = median_time(lambda: json.dumps(scene.panels, indent=1, ensure_ascii=False), repeat=10)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.relulab.json"
        save = median_time(lambda: write_scene(path, scene), repeat=10)
        raw = median_time(lambda: path.write_text(text), repeat=10)
    rows = [
        Row(f"read + validate a {size:.1f} MB scene", parse, "json.loads of the same text", plain,
            min_ratio=1 / 3, note="with the nesting and size bounds of relulab.io.scenes "
                                  "(the same target as bench_files' scene row)"),
        Row(f"write a {size:.1f} MB scene (checked, atomic, fsync)", save,
            "the same text written plainly (no checks, no fsync)", raw, max_seconds=0.05),
        Row("scene → JSON text with checks", dump, "json.dumps, same indent, no checks", plain_dump,
            min_ratio=1 / 3),
    ]
    rows += _window_rows()
    return rows


def _window_rows() -> list[Row]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from relulab.app import build_main_window

    window = build_main_window()
    for name in window.panels:  # a scene of every panel, each created
        window.panel(name)
    saved = dump_scene(window.session.capture())
    modified = median_time(window.session.is_modified, repeat=20)
    naive = median_time(lambda: dump_scene(window.session.capture()) != saved, repeat=20)
    scene = window.session.capture()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.relulab.json"
        write_scene(path, scene)
        opened = median_time(lambda: window.open_scene(path), repeat=5)

        def load_plainly():  # the same states, panel by panel: no snapshots, no checks
            for name, state in parse_scene(path.read_text(), list(window.panels)).panels.items():
                window.panel(name).load_state(state)

        plainly = median_time(load_plainly, repeat=5)
    window.close()
    return [
        Row("unsaved-changes check of the real window", modified,
            "the whole scene written as text and compared", naive, max_seconds=0.008,
            note="runs on every undo step"),
        Row("open a scene of every panel in the window", opened,
            "the same states loaded panel by panel (no rollback snapshots)", plainly,
            max_seconds=0.3, note="one click; the panels redraw"),
    ]
