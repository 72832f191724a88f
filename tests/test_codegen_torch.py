"""The PyTorch versions (run only where torch is importable): the Playground's trains to
the app's accuracy within 0.02, the Training panel's restarts to its RMSE within 1e-3
(torch's Adam and the app's differ in rounding only)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from relulab.io.codegen import script_for
from relulab.model.fitting.classify import Trainer
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.lessons.training import TrainingState, replay


def run(text: str, tmp_path) -> dict[str, float]:
    path = tmp_path / "torch_version.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    return {k: float(v) for k, _, v in (line.partition(" = ") for line in done.stdout.splitlines())
            if _}


def test_the_scripts_compile_without_torch():
    for panel, state in (("playground", PlaygroundState()), ("training", TrainingState())):
        text = script_for(panel, state.to_dict(), torch=True)
        compile(text, f"{panel}.py", "exec")
        assert "import torch" in text


def test_the_playground_in_torch_reaches_the_apps_accuracy(tmp_path):
    pytest.importorskip("torch")
    state = PlaygroundState().with_training(optimizer="adam", learning_rate=0.03, step=300)
    state = state.with_data(replace(state.dataset, name="xor", n_per_class=100, seed=3))
    printed = run(script_for("playground", state.to_dict(), torch=True), tmp_path)
    (X, y), (Xt, yt) = state.training_points(), state.points.held_out()
    snap = Trainer(state.initial, X, y, Xt, yt, state.training.config()).advance(300)
    assert abs(printed["train_accuracy"] - snap.train_accuracy) <= 0.02
    assert abs(printed["test_accuracy"] - snap.test_accuracy) <= 0.02


def test_the_training_panel_in_torch_reaches_the_apps_rmse(tmp_path):
    pytest.importorskip("torch")
    state = TrainingState(steps=500, restarts=3)
    printed = run(script_for("training", state.to_dict(), torch=True), tmp_path)
    rmse = np.array([printed[f"rmse[{r}]"] for r in range(3)])
    np.testing.assert_allclose(rmse, replay(replace(state, step=500)).snapshot().rmse, atol=1e-3)
