"""The Deep → shallow panel exported as a script: for one input its exact kink count
is the conversion's and the one-hidden-layer sum it builds equals the deep network
exactly; for more inputs it evaluates the network and says what it does not redo."""

from __future__ import annotations

import subprocess
import sys

from relulab.io.codegen import script_for
from relulab.model.lessons.converter import ConverterState
from relulab.model.networks.mlp import MLP
from relulab.model.shallow.construction import convert


def run(state: ConverterState, tmp_path) -> str:
    path = tmp_path / "converter.py"
    path.write_text(script_for("converter", state.to_dict()), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_one_input_the_kinks_are_the_conversions(tmp_path):
    net = MLP.random([1, 5, 4, 2], seed=3)
    state = ConverterState(source="received", architecture=(1, 5, 4, 2), network=net)
    out = run(state, tmp_path)
    assert f"kinks = {len(convert(net).one_d.kinks)}" in out
    assert "equal = True" in out


def test_more_inputs_says_what_it_does_not_redo(tmp_path):
    state = ConverterState()
    assert state.network.n_in == 2
    text = script_for("converter", state.to_dict())
    assert "Not redone here" in text
    assert "the deep network at five random points" in run(state, tmp_path)
