"""The Training panel exported as a script: run in a fresh interpreter (``python -I``,
no relulab on the path), it prints every restart's RMSE as the panel's trainer computes
it for the same seeds, to 1e-9."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from relulab.io.codegen import notebook_for, script_for
from relulab.model.lessons.training import TrainingState, replay


def printed_rmse(text: str, tmp_path, name: str = "training.py") -> tuple[np.ndarray, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [float(line.split(" = ")[1]) for line in done.stdout.splitlines()
            if line.startswith("rmse[")]
    return np.array(rows), done.stdout


@pytest.mark.parametrize("state", [
    TrainingState(steps=400, step=250, restarts=3, batch_size=32),  # Adam on mini-batches
    TrainingState(target="x²", a=-1.0, b=1.0, points=100, hidden=5, lr=0.05, steps=300,
                  restarts=4, optimizer="momentum", init="he"),
    TrainingState(target="abs(x) - 0.5", points=60, hidden=3, lr=0.02, steps=200, restarts=2,
                  optimizer="gd"),
], ids=["adam-mini-batches", "momentum-he", "typed-target-gd"])
def test_the_script_prints_each_restarts_rmse(tmp_path, state):
    rmse, out = printed_rmse(script_for("training", state.to_dict()), tmp_path)
    snap = replay(replace(state, step=state.step or state.steps)).snapshot()  # none yet: all
    np.testing.assert_allclose(rmse, snap.rmse, rtol=0, atol=1e-9)
    assert f"best: restart {snap.best + 1} of {state.restarts}, RMSE {snap.rmse[snap.best]:.4f}" in out
    assert f"step {snap.step:,} / {state.steps:,}" in out


def test_the_notebook_validates_and_prints_the_same(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    state = TrainingState(steps=200, restarts=2)
    text = notebook_for("training", state.to_dict())
    nbformat.validate(nbformat.reads(text, as_version=4))
    cells = nbformat.reads(text, as_version=4).cells
    assert cells[1].source.startswith("# Training")
    code = "\n\n".join(c.source for c in cells if c.cell_type == "code")
    rmse, _ = printed_rmse(code, tmp_path, "cells.py")
    np.testing.assert_allclose(rmse, replay(replace(state, step=200)).snapshot().rmse, rtol=0, atol=1e-9)
