"""The Hinges panel exported as a script: run in a fresh interpreter, it prints the
RMSE and the largest error the panel shows, in each mode, to 1e-9."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from relulab.io.codegen import script_for
from relulab.model.fitting.hinges import fit_hinges, hinge_sum, interpolate_hinges
from relulab.model.lessons.hinges import HingesState


def printed(state: HingesState, tmp_path) -> dict[str, float]:
    path = tmp_path / "hinges.py"
    path.write_text(script_for("hinges", state.to_dict()), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    return {k: float(v) for k, _, v in (line.partition(" = ") for line in done.stdout.splitlines())
            if _}


@pytest.mark.parametrize("state", [
    HingesState(),  # least squares, six even kinks on the notebook's curve sin(2x) + 0.3x²
    HingesState(mode="least squares", target="abs(x)", a=-1.0, b=1.0, points=101,
                kinks=(-2.0, 0.0, 0.0, 0.5), coefficients=(0.0,) * 4),
    HingesState(mode="free", kinks=(-1.0, 0.5), coefficients=(1.5, -2.0), intercept=0.3,
                slope=-0.1),
    HingesState(mode="interpolation", interpolation_n=9),
], ids=["least-squares", "kinks-outside-and-shared", "free", "interpolation"])
def test_the_errors_are_the_panels(tmp_path, state):
    from relulab.model.data.targets import target_from_text

    out = printed(state, tmp_path)
    target = target_from_text(state.target, state.a, state.b)
    x = np.linspace(state.a, state.b, state.points)
    y = target(x)
    if state.mode == "least squares":
        fit = fit_hinges(x, y, state.kinks)
    elif state.mode == "free":
        fit = hinge_sum(x, y, state.intercept, state.slope, state.kinks, state.coefficients)
    else:
        it = interpolate_hinges(target, state.a, state.b, state.interpolation_n)
        f = it.fit
        fit = hinge_sum(x, y, f.intercept, f.slope, f.kinks, f.coefficients)
        assert out["interpolation_max_error"] == it.max_error
    assert out["rmse"] == fit.rmse  # to the last bit
    assert out["max_error"] == fit.max_error
