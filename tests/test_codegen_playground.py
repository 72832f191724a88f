"""The Playground exported as a script: run in a fresh interpreter (``python -I``, no
relulab on the path), it prints the readouts the panel's trainer reports for the same
seeds, to 1e-9."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from importlib.resources import files

import numpy as np
import pytest

from relulab.io.codegen import CodeExportError, notebook_for, script_for
from relulab.model.fitting.classify import Trainer
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.networks.mlp import MLP

KEYS = ("step", "train_loss", "train_accuracy", "test_loss", "test_accuracy")


def run_script(text: str, tmp_path) -> dict[str, float]:
    """Run ``text`` in an isolated interpreter; the ``key = value`` readouts it prints."""
    path = tmp_path / "experiment.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    out = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" = ")
        if key in KEYS:
            out[key] = float(value)
    out["stdout"] = done.stdout  # type: ignore[assignment]
    return out


def app_readouts(state: PlaygroundState, steps: int):
    """What the panel's trainer reports after ``steps`` steps from the run's first weights."""
    (X, y), (Xt, yt) = state.training_points(), state.points.held_out()
    trainer = Trainer(state.initial, X, y, Xt, yt, state.training.config())
    return trainer.advance(steps)


def assert_same(printed: dict, snap) -> None:
    assert printed["step"] == snap.step
    for key in KEYS[1:]:
        want = getattr(snap, key)
        if math.isnan(want):
            assert math.isnan(printed[key]), key
        else:
            # the script repeats the app's arithmetic: equal to the last bit (1e-9 asked)
            assert printed[key] == want, key


def circles_scene() -> dict:
    text = (files("relulab.resources") / "lectures" / "09-circles.relulab.json").read_text()
    return json.loads(text)["panels"]["playground"]


def test_circles_lesson_scene_prints_the_panels_readouts(tmp_path):
    d = circles_scene()
    state = PlaygroundState.from_dict(d)
    text = script_for("playground", d)
    assert "relulab" not in text.split('"""', 2)[2]  # no import of the app, only its header
    printed = run_script(text, tmp_path)
    snap = app_readouts(state, state.training.step)
    assert_same(printed, snap)
    assert printed["train_accuracy"] == 1.0  # the guide's "accuracy 1.0 on the training points"
    assert "Step 2000 · gradient descent, rate 0.5, cross-entropy" in printed["stdout"]


def test_adam_mini_batches_three_classes_and_random_labels(tmp_path):
    state = PlaygroundState()
    state = state.with_data(replace(state.dataset, name="spirals", classes=3, n_per_class=40,
                                    seed=7, random_labels=True, test_fraction=0.25))
    state = state.with_hidden([8, 5]).with_layer_activation(2, "tanh")
    state = state.with_training(optimizer="adam", learning_rate=0.02, batch_size=16, step=150)
    printed = run_script(script_for("playground", state.to_dict()), tmp_path)
    snap = app_readouts(state, 150)
    assert_same(printed, snap)
    assert 0 < snap.test_accuracy < 1  # the test points are really there


def test_points_edited_by_hand_and_weights_from_elsewhere(tmp_path):
    state = PlaygroundState()
    state = state.with_points(state.points.adding(0.3, -0.2, 1).removing(0))
    net = MLP([(0.5 * W, b) for W, b in state.network.layers], "leaky_relu")
    state = state.with_network(net).with_training(optimizer="gd", learning_rate=0.3, step=40)
    assert state.points != state.dataset.points()
    text = script_for("playground", state.to_dict())
    assert "he_network" not in text
    assert_same(run_script(text, tmp_path), app_readouts(state, 40))


def test_a_state_the_panel_would_refuse_is_refused_in_one_line():
    with pytest.raises(CodeExportError, match=r"^panels\.playground: ") as e:
        script_for("playground", {"architecture": {"hidden": [99]}})
    assert "\n" not in str(e.value)
    with pytest.raises(CodeExportError, match="cannot be exported"):
        script_for("nonsense", {})


RUN_CELLS = """
import json, sys
cells = json.load(open(sys.argv[1], encoding="utf-8"))["cells"]
namespace = {"__name__": "__main__"}
for cell in cells:
    if cell["cell_type"] == "code":
        exec("".join(cell["source"]), namespace)
"""


def test_the_notebook_validates_and_its_cells_print_the_same(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    d = circles_scene()
    text = notebook_for("playground", d)
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[1].cell_type == "markdown" and nb.cells[1].source.startswith("# Playground")
    path = tmp_path / "experiment.ipynb"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", "-c", RUN_CELLS, str(path)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    script = run_script(script_for("playground", d), tmp_path)
    assert done.stdout == script["stdout"]
    state = PlaygroundState.from_dict(d)
    assert f"train_loss = {app_readouts(state, 2000).train_loss!r}" in done.stdout


@pytest.mark.parametrize("regularization", ["l2", "l1"])
def test_features_and_regularisation_follow_the_trainer(tmp_path, regularization):
    """A state whose network takes x₁², x₂² and whose training penalises the weights
    (as the Playground's Network and Training tabs set them) prints what the model's
    Trainer reports with the same features and penalty."""
    from relulab.model.fitting.features import FeatureMap

    state = PlaygroundState().with_hidden([]).with_features(("x1^2", "x2^2")).with_training(
        step=200, optimizer="adam", learning_rate=0.05, regularization=regularization,
        regularization_rate=0.01)
    config = state.training.config()
    fmap = FeatureMap(("x1^2", "x2^2"))
    text = script_for("playground", state.to_dict())  # the features come from the scene
    assert "feature_names = ['x1^2', 'x2^2']" in text
    printed = run_script(text, tmp_path)
    (X, y), (Xt, yt) = state.training_points(), state.points.held_out()
    snap = Trainer(state.initial, X, y, Xt, yt, config, features=fmap).advance(200)
    assert_same(printed, snap)
    assert snap.penalty > 0  # the penalty is in the train loss the script printed


def _script_of(state: PlaygroundState) -> str:
    from relulab.io.codegen import playground
    from relulab.io.codegen.sources import script

    return script(playground.header(state), playground.sections(state))


def test_the_typed_regression_target_is_written_as_code_from_its_parse(tmp_path):
    """f(x₁, x₂) typed in the panel: the script rebuilds the same targets from numpy code
    written from the parse tree (no string evaluated), and prints the trainer's readouts."""
    from relulab.model.lessons.playground import DataSettings

    state = PlaygroundState().with_data(DataSettings(
        name="regress_formula", formula="sin(x₁) * x2 + arctan(1/0) * x1^2", n_per_class=120,
        noise=0.05, seed=3, test_fraction=0.25)).with_training(step=60)
    text = script_for("playground", state.to_dict())
    assert "np.sin(x1)" in text and "X_all = np.array" not in text  # made, not listed
    body = text.split('"""', 2)[2]
    assert "eval(" not in body and "exec(" not in body and "relulab" not in body
    namespace: dict = {}
    data_code = text.split("# -- Network")[0]
    # the script's data part, as the script runs it (no __future__ from this module)
    exec(compile(data_code, "script", "exec", dont_inherit=True), namespace)  # noqa: S102
    np.testing.assert_array_equal(namespace["X_all"], state.points.x)
    np.testing.assert_array_equal(namespace["y_all"], state.points.label)
    assert_same(run_script(text, tmp_path), app_readouts(state, 60))


def test_the_plane_regression_script_runs(tmp_path):
    from relulab.model.lessons.playground import DataSettings

    state = PlaygroundState().with_data(DataSettings(name="regress_plane")).with_training(step=30)
    assert_same(run_script(script_for("playground", state.to_dict()), tmp_path),
                app_readouts(state, 30))
