"""File ▸ Export ▸ Python script… / Jupyter notebook…: the visible panel's experiment
written as code, by the menu (through its save dialog) and by ``window.export_code``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from relulab.io.codegen import CodeExportError


def test_the_menu_writes_the_playgrounds_script_and_notebook(main_window, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog

    main_window.show_panel("playground")
    answers = iter([str(tmp_path / "pg"), str(tmp_path / "pg.ipynb")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (next(answers), "")))
    main_window.menu_actions["action-export-script"].trigger()
    main_window.menu_actions["action-export-notebook"].trigger()
    script, notebook = tmp_path / "pg.py", tmp_path / "pg.ipynb"
    done = subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    panel = main_window.current_panel()
    snap = panel.trainer.snapshot()
    assert f"Train ({len(panel.state.training_points()[1])}): " in done.stdout
    assert f"step = {snap.step}" in done.stdout
    assert json.loads(notebook.read_text(encoding="utf-8"))["nbformat"] == 4
    assert "Exported" in main_window.statusBar().currentMessage()


def test_every_panel_exports_and_another_suffix_is_refused_in_one_line(main_window, tmp_path):
    from relulab.ui.panels import PANEL_NAMES

    for name in PANEL_NAMES:
        main_window.show_panel(name)
        path = main_window.export_code(tmp_path / f"{name}.py")
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    with pytest.raises(CodeExportError, match=r"must end in \.py or \.ipynb") as e:
        main_window.export_code(tmp_path / "x.txt")
    assert "\n" not in str(e.value)
    assert not (tmp_path / "x.txt").exists()
