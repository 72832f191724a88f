"""The Folding panel exported as a script: run in a fresh interpreter, it prints the
tent's and the fold's counts exactly as the panel computes them (pieces on [0, 1],
kinks on the line), from the app's double weights in exact arithmetic."""

from __future__ import annotations

import subprocess
import sys

import pytest

from relulab.io.codegen import script_for
from relulab.model.lessons.folding import FoldingState
from relulab.model.pieces.folding import FOLD_PRESETS, Fold, fold_counts, tent_network, tent_pieces
from relulab.model.pieces.piecewise import piecewise_linear


def printed(state: FoldingState, tmp_path) -> dict[str, int]:
    path = tmp_path / "folding.py"
    path.write_text(script_for("folding", state.to_dict()), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    return {k: int(v) for k, _, v in (line.partition(" = ") for line in done.stdout.splitlines())
            if _}


@pytest.mark.parametrize("state", [
    FoldingState(),  # the zigzag to depth 4: 81 pieces
    FoldingState(depth=5, peak=0.3, fold=FOLD_PRESETS["tent, zero outside [0, 1] (3 neurons)"]),
    FoldingState(depth=3, peak=0.5, fold=Fold(w=(1.0, -2.0), b=(0.1, 0.7), a=(1.5, -0.25), c=0.2)),
], ids=["zigzag", "peak-0.3", "a-fold-of-ones-own"])
def test_the_counts_are_the_panels_exactly(tmp_path, state):
    out = printed(state, tmp_path)
    tent = fold_counts(tent_pieces(state.depth, state.peak), state.depth, 2,
                       tent_network(state.depth, state.peak))
    assert tent.exact
    assert (out["tent_pieces"], out["tent_kinks"]) == (tent.pieces_unit, tent.kinks_line)
    for depth in range(1, state.depth + 1):
        net = state.fold.network(depth)
        c = fold_counts(piecewise_linear(net, exact=True), depth, state.fold.n_neurons, net)
        assert (out[f"fold_pieces[{depth}]"], out[f"fold_kinks[{depth}]"]) == (
            c.pieces_unit, c.kinks_line), depth
    if state == FoldingState():
        assert out["fold_pieces[4]"] == 81
