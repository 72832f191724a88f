"""The Hinges panel's experiment as a script: the target's samples, the sum of hinges
f̂(x) = a + s·x + Σ cᵢ·ReLU(x − kᵢ) of the panel's mode (hand-set, least squares
through the app's own hat-basis solve, or the interpolation), and its errors."""

from __future__ import annotations

import numpy as np

from relulab.io.codegen.sources import Section, constants, literal, source
from relulab.model.data.targets import target_from_text
from relulab.model.fitting import hinges as h
from relulab.model.lessons.hinges import HingesState
from relulab.model.networks import activations as act

_LEAST_SQUARES = '''def least_squares(x, y, kinks):
    """The minimum-norm least-squares (a, s, c) over the columns [1, x, ReLU(x − kᵢ)],
    as the app solves it (the hat basis, a dense solve when that cannot)."""
    kinks = np.array(kinks, dtype=float).reshape(-1)
    if x.size > 1 and np.any(np.diff(x) < 0):
        order = np.argsort(x, kind="stable")
        params = _fast_fit(x[order], y[order], kinks)
    else:
        params = _fast_fit(x, y, kinks)
    if params is None:
        params = (*_dense_fit(x, y, kinks), "dense")
    return params[0], params[1], np.asarray(params[2], dtype=float)'''


def sections(state: HingesState) -> list[Section]:
    target = target_from_text(state.target, state.a, state.b)
    x = np.linspace(state.a, state.b, state.points)
    y = target(x)
    funcs = [act._floats, act.relu, h.evaluate_hinges, h._errors]
    data = f"x = np.linspace({state.a!r}, {state.b!r}, {state.points!r})\ny = {literal(y)}"
    text = (f"The target {target.label} at {state.points} equally spaced points of "
            f"[{state.a:g}, {state.b:g}] (the values as numbers: the app parses the formula "
            "itself).")
    extra = ""
    if state.mode == "free":
        fit = (f"kinks = {list(state.kinks)!r}\ncoefficients = {list(state.coefficients)!r}\n"
               f"intercept, slope = {state.intercept!r}, {state.slope!r}")
        what = "The hinges as set by hand (Free mode)."
    elif state.mode == "least squares":
        funcs += [h.design_matrix, h._dense_fit, h._schoenberg_whitney, h._hat_normal_equations,
                  h._solve_tridiagonal_spd, h._hat_fit, h._compressed_fit, h._merge_close,
                  h._fast_fit]
        extra = constants(MERGE_TOLERANCE=h.MERGE_TOLERANCE) + "\n\n\n"
        fit = (f"kinks = {list(state.kinks)!r}\n"
               "intercept, slope, coefficients = least_squares(x, y, kinks)")
        what = "The best coefficients for the kinks where they are: least squares."
    else:
        n = state.interpolation_n
        t = np.linspace(state.a, state.b, n + 1)
        grid = np.linspace(state.a, state.b, n * 64 + 1)
        fit = (f"t = np.linspace({state.a!r}, {state.b!r}, {n + 1})  # the knots\n"
               f"v = {literal(target(t))}  # the target at the knots\n"
               "s = np.diff(v) / np.diff(t)\n"
               "kinks, coefficients = t[:-1], np.concatenate(([s[0]], np.diff(s)))\n"
               "intercept, slope = v[0], 0.0\n"
               f"fine_x = np.linspace({state.a!r}, {state.b!r}, {n * 64 + 1})  # every midpoint\n"
               f"fine_y = {literal(target(grid))}\n"
               "fine = evaluate_hinges(fine_x, intercept, slope, kinks, coefficients)\n"
               "print(f\"interpolation_max_error = {_errors(fine, fine_y)[1]!r}\")")
        what = (f"The interpolation with {n} neurons: f̂ equals the target at the knots "
                "t_k = a + k·h.")
    run = (fit + "\n\npred = evaluate_hinges(x, intercept, slope, kinks, coefficients)\n"
           "rmse, worst, residual = _errors(pred, y)\n"
           "print(f\"RMSE {rmse:.3g}, largest error {worst:.3g}\")\n"
           "print(f\"rmse = {rmse!r}\")\nprint(f\"max_error = {worst!r}\")")
    return [
        Section("Imports", "", "import numpy as np"),
        Section("Data", text, data),
        Section("Sums of hinges", "f̂(x) = a + s·x + Σ cᵢ·ReLU(x − kᵢ) and its errors, as "
                "the app computes them.", extra + source(*funcs)
                + ("\n\n\n" + _LEAST_SQUARES if state.mode == "least squares" else "")),
        Section("Run", what, run),
    ]


def header(state: HingesState) -> str:
    return ("The ReLU Lab Hinges panel's experiment, exported: the target's samples and\n"
            f"the sum of {len(state.kinks) if state.mode != 'interpolation' else state.interpolation_n} "
            f"hinges in {state.mode} mode with numpy alone, and its RMSE and largest error.")
