"""Sums of hinges: least squares, interpolation and its bound, convergence (no Qt)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relulab.model.data.targets import PRESETS
from relulab.model.fitting.hinges import (
    convergence_study,
    design_matrix,
    estimate_curvature,
    evaluate_hinges,
    evenly_spaced_kinks,
    find_jump,
    fit_hinges,
    hinge_sum,
    interpolate_hinges,
    interpolation_bound,
    log_log_slope,
)
from relulab.model.lessons.hinges import HingesState, by_position, position_of

SEED_CURVE = PRESETS["sin(2x) + 0.3x²"]


def seed_data():
    x = np.linspace(-3, 3, 400)
    return x, np.sin(2 * x) + 0.3 * x ** 2


# -- the notebook -------------------------------------------------------------------------

@pytest.mark.parametrize(("n", "rmse", "worst"), [
    (3, 0.5228, 1.1246), (6, 0.1022, 0.2371), (12, 0.0254, 0.0750), (24, 0.0065, 0.0210),
])
def test_notebook_table(n, rmse, worst):
    x, y = seed_data()
    fit = fit_hinges(x, y, evenly_spaced_kinks(-3, 3, n))
    assert round(fit.rmse, 4) == rmse
    assert round(fit.max_error, 4) == worst


def test_notebook_six_coefficients_are_the_slope_changes():
    x, y = seed_data()
    fit = fit_hinges(x, y, evenly_spaced_kinks(-3, 3, 6))
    expected = [-2.3, 2.259, 3.069, -2.04, -1.231, 3.333]
    assert np.round(fit.coefficients, 3).tolist() == expected
    assert np.round(fit.slope_changes(), 3).tolist() == expected
    # measured the notebook's way too: finite-difference slopes two samples either side
    approx = fit.predict(x)
    slope = np.diff(approx) / np.diff(x)
    jumps = [slope[np.searchsorted(x, b) + 2] - slope[np.searchsorted(x, b) - 2] for b in fit.kinks]
    np.testing.assert_allclose(jumps, fit.coefficients, atol=5e-4)


def test_notebook_doubling_divides_by_about_four():
    x, y = seed_data()
    rmse = [fit_hinges(x, y, evenly_spaced_kinks(-3, 3, n)).rmse for n in (6, 12, 24)]
    assert 3.5 < rmse[0] / rmse[1] < 4.5 and 3.5 < rmse[1] / rmse[2] < 4.5


# -- least squares against the dense solution ---------------------------------------------

def test_fast_fit_equals_dense_at_100_hinges_and_1000_points():
    x = np.linspace(-3, 3, 1000)
    y = np.sin(2 * x) + 0.3 * x ** 2
    kinks = np.random.default_rng(1).uniform(-3, 3, 100)
    fast = fit_hinges(x, y, kinks)
    dense = fit_hinges(x, y, kinks, method="dense")
    assert fast.method == "hat basis" and dense.method == "dense"
    np.testing.assert_allclose(fast.predict(x), dense.predict(x), atol=1e-9)
    assert fast.rmse == pytest.approx(dense.rmse, rel=1e-9)
    # coefficients: the dense SVD loses digits on this ill-conditioned basis, ours does not
    A = design_matrix(x, kinks)
    params = np.r_[fast.intercept, fast.slope, fast.coefficients]
    np.testing.assert_allclose(A.T @ (A @ params - y), 0, atol=1e-8)  # normal equations hold


def test_duplicate_kinks_share_the_coefficient_equally():
    x, y = seed_data()
    kinks = [-1.0, 0.5, 0.5, 0.5, 2.0]
    fit = fit_hinges(x, y, kinks)
    dense = fit_hinges(x, y, kinks, method="dense")
    assert fit.coefficients[1] == pytest.approx(fit.coefficients[2]) == pytest.approx(fit.coefficients[3])
    np.testing.assert_allclose(np.r_[fit.intercept, fit.slope, fit.coefficients],
                               np.r_[dense.intercept, dense.slope, dense.coefficients], atol=1e-9)


def test_kinks_outside_the_data_take_the_minimum_norm_share():
    x, y = seed_data()
    kinks = [-5.0, -3.0, 0.0, 3.0, 4.0]  # left of / at the first point, at / right of the last
    fit = fit_hinges(x, y, kinks)
    dense = fit_hinges(x, y, kinks, method="dense")
    assert fit.method == "hat basis"
    assert fit.coefficients[3] == 0 and fit.coefficients[4] == 0  # zero columns
    np.testing.assert_allclose(np.r_[fit.intercept, fit.slope, fit.coefficients],
                               np.r_[dense.intercept, dense.slope, dense.coefficients], atol=1e-9)


def test_fewer_points_than_columns_gives_the_minimum_norm_interpolant():
    x = np.array([0.0, 1.0, 2.0])
    y = np.array([1.0, -1.0, 3.0])
    kinks = [0.5, 1.2, 1.5, 1.7]  # 6 columns, 3 points
    fit = fit_hinges(x, y, kinks)
    assert fit.rmse == pytest.approx(0, abs=1e-12)
    dense_params = np.linalg.pinv(design_matrix(x, kinks)) @ y
    np.testing.assert_allclose(np.r_[fit.intercept, fit.slope, fit.coefficients], dense_params,
                               atol=1e-9)


@pytest.mark.parametrize(("x", "y", "kinks"), [
    ([], [], [0.0]),
    ([1.0], [2.0], [0.0, 1.0, 1.0]),
    ([1.0, 1.0, 1.0], [0.0, 1.0, 2.0], [1.0]),
    (np.linspace(0, 1, 5), np.zeros(5), []),
    (np.linspace(0, 1, 5)[::-1], np.arange(5.0), [0.3, 0.3]),
])
def test_degenerate_inputs_never_raise(x, y, kinks):
    fit = fit_hinges(x, y, kinks)
    assert fit.coefficients.shape == (len(kinks),)
    if len(x):
        assert np.isfinite(fit.rmse)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="x has 3 values but y has 2"):
        fit_hinges([0, 1, 2], [0, 1], [0.5])
    with pytest.raises(ValueError, match="finite"):
        fit_hinges([0, 1, np.nan], [0, 1, 2], [0.5])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 25),
    kinks=st.lists(st.sampled_from([-1.5, -1.0, -0.5, -0.25, 0.0, 0.1, 0.1, 0.5, 0.99, 1.0, 2.0])
                   | st.floats(-1.5, 1.5), max_size=10),
    seed=st.integers(0, 1000),
)
def test_fast_fit_is_the_minimum_norm_least_squares_solution(n, kinks, seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-1, 1, n))
    y = rng.normal(size=n)
    fit = fit_hinges(x, y, kinks)
    pinv = np.linalg.pinv(design_matrix(x, kinks), rcond=1e-12) @ y
    got = np.r_[fit.intercept, fit.slope, fit.coefficients]
    scale = max(1.0, float(np.max(np.abs(pinv))))
    # compare the fitted values always, the parameters when the problem is not ill-conditioned
    np.testing.assert_allclose(fit.predict(x), design_matrix(x, kinks) @ pinv, atol=1e-6 * scale)
    if np.linalg.cond(design_matrix(x, kinks)) < 1e6:
        np.testing.assert_allclose(got, pinv, atol=1e-6 * scale)


def test_evaluate_hinges_matches_the_formula():
    rng = np.random.default_rng(3)
    k, c = rng.uniform(-2, 2, 9), rng.normal(size=9)
    x = np.linspace(-3, 3, 101)
    direct = 0.4 - 1.5 * x + (c[None, :] * np.maximum(x[:, None] - k[None, :], 0)).sum(axis=1)
    np.testing.assert_allclose(evaluate_hinges(x, 0.4, -1.5, k, c), direct, atol=1e-12)
    fit = hinge_sum(x, direct, 0.4, -1.5, k, c)
    assert fit.rmse == pytest.approx(0, abs=1e-12)
    xs, ys = fit.vertices(-3, 3)
    np.testing.assert_allclose(np.interp(x, xs, ys), direct, atol=1e-12)  # the polyline is exact


# -- interpolation -------------------------------------------------------------------

def test_interpolation_equals_f_at_the_knots_and_has_n_neurons():
    f = SEED_CURVE
    it = interpolate_hinges(f, -3, 3, 10)
    assert it.fit.kinks.size == 10
    np.testing.assert_allclose(it.fit.predict(it.knots), f(it.knots), atol=1e-12)


def test_bound_formula():
    assert interpolation_bound(-3, 3, 24, 3.36) == pytest.approx(36 * 3.36 / (8 * 576))
    assert round(interpolation_bound(-3, 3, 24, 3.36), 3) == 0.026  # the lesson's figure


@pytest.mark.parametrize("n", [1, 2, 3, 7, 24, 200])
def test_bound_is_attained_for_x_squared(n):
    it = interpolate_hinges(lambda x: x ** 2, -1, 1, n)
    assert pytest.approx(2, rel=1e-6) == it.curvature.M
    assert it.max_error == pytest.approx(it.bound, rel=1e-6)  # (h/2)² at every midpoint


@pytest.mark.parametrize("name", ["sin(2x) + 0.3x²", "x²", "Runge 1/(1 + 25x²)"])
@pytest.mark.parametrize("n", [1, 3, 6, 17, 50])
def test_bound_holds_for_smooth_targets(name, n):
    t = PRESETS[name]
    it = interpolate_hinges(t, t.a, t.b, n)
    assert it.curvature.bounded
    assert it.max_error <= it.bound * (1 + 1e-6)


def test_curvature_estimate_of_the_seed_curve():
    c = estimate_curvature(SEED_CURVE, -3, 3)
    assert c.bounded and c.estimated
    assert pytest.approx(4.6, rel=1e-5) == c.M  # max |−4 sin 2x + 0.6| at x = π/4


@pytest.mark.parametrize("name", ["|x|", "unit step"])
def test_no_finite_curvature_for_corners_and_jumps(name):
    t = PRESETS[name]
    assert not estimate_curvature(t, t.a, t.b).bounded
    assert interpolate_hinges(t, t.a, t.b, 8).bound is None


def test_jump_found_only_for_the_step():
    step = PRESETS["unit step"]
    size, where = find_jump(step, -1, 1)
    assert size == pytest.approx(1) and abs(where) < 1e-3
    for name in ("|x|", "x²", "sin(2x) + 0.3x²", "Runge 1/(1 + 25x²)"):
        t = PRESETS[name]
        assert find_jump(t, t.a, t.b) is None, name


# -- convergence ---------------------------------------------------------------------

def test_convergence_slope_is_minus_two_for_a_smooth_target():
    rows = list(convergence_study(SEED_CURVE, -3, 3, (6, 12, 24, 48, 96), 400))
    ns = [r.n for r in rows]
    assert log_log_slope(ns, [r.ls_rmse for r in rows]) == pytest.approx(-2, abs=0.15)
    assert log_log_slope(ns, [r.interp_max_error for r in rows]) == pytest.approx(-2, abs=0.1)
    assert rows[2].ls_rmse == pytest.approx(0.0065, abs=5e-5)  # the notebook again


def test_step_target_rmse_falls_but_the_largest_error_does_not():
    step = PRESETS["unit step"]
    rows = list(convergence_study(step, -1, 1, (4, 16, 64, 200), 400))
    assert rows[-1].ls_rmse < rows[0].ls_rmse / 5
    assert all(r.ls_sup_error > 0.4 for r in rows)      # about half the jump, always
    assert all(r.interp_max_error > 0.4 for r in rows)


# -- state ------------------------------------------------------------------------------

def test_state_round_trip_and_validation():
    s = HingesState().add_kink(0.25, 1.5)
    assert HingesState.from_dict(s.to_dict()) == s
    bad = s.to_dict() | {"a": 4.0}
    with pytest.raises(ValueError, match=r"^b: the domain"):
        HingesState.from_dict(bad)
    with pytest.raises(ValueError, match=r"^kinks\[1\]"):
        HingesState.from_dict(s.to_dict() | {"kinks": [0.0, "x"], "coefficients": [0, 0]})
    with pytest.raises(ValueError, match=r"^coefficients"):
        HingesState.from_dict(s.to_dict() | {"coefficients": [1.0]})
    with pytest.raises(ValueError, match=r"^mode"):
        HingesState.from_dict(s.to_dict() | {"mode": "magic"})
    with pytest.raises(ValueError, match=r"unknown field.*colour"):
        HingesState.from_dict(s.to_dict() | {"colour": 1})


@pytest.mark.parametrize(("change", "field"), [
    ({"target": "sin(x"}, "^target"), ({"target": "log(x)"}, "^target"),
    ({"target": 3}, "^target"), ({"a": -1e308}, "^a"), ({"b": float("inf")}, "^b"),
    ({"intercept": 1e300}, "^intercept"), ({"coefficients": [1e308] * 6}, r"^coefficients\[0\]"),
    ({"points": 10**400}, "^points"), ({"selected": 6}, "^selected"), ({"selected": True}, "^selected"),
    ({"kinks": [0.0] * 201, "coefficients": [0.0] * 201}, "^kinks"),
    ({"a": 0.0, "b": 1e-300}, "^b: .*narrower"), ({"target": "1e300*x"}, "^target: values up to"),
])
def test_state_refuses_what_the_panel_could_not_show(change, field):
    """Ranges are the controls' ranges and the target must be finite on the domain: a
    state accepted here can never make the panel raise later."""
    with pytest.raises(ValueError, match=field):
        HingesState.from_dict(HingesState().to_dict() | change)


def test_state_edits():
    s = HingesState().spread_evenly(3)
    assert np.allclose(s.kinks, [-1.5, 0, 1.5]) and s.selected is None
    s = s.add_kink(9.0)  # clamped to the domain, selected
    assert s.kinks[-1] == 3.0 and s.selected == 3
    s = s.select_next(1)
    assert s.selected == 0  # wraps round, in order along x
    s = s.select_next(-1)
    assert s.selected == 3
    s = s.remove_kink(3)
    assert len(s.kinks) == 3 and s.selected == 2
    s = s.move_kink(0, -10)
    assert s.kinks[0] == -3.0


def test_three_kinks_between_two_points_give_the_minimum_norm_solution():
    x = np.linspace(0, 1, 11)
    y = np.cos(3 * x)
    kinks = [0.2, 0.52, 0.55, 0.58, 0.8]  # three kinks in the gap (0.5, 0.6): rank 6 of 7
    fit = fit_hinges(x, y, kinks)
    assert fit.method == "hat basis, rank-deficient"
    A = design_matrix(x, kinks)
    assert np.linalg.matrix_rank(A) == 6
    expected = np.linalg.pinv(A, rcond=1e-10) @ y
    np.testing.assert_allclose(np.r_[fit.intercept, fit.slope, fit.coefficients], expected,
                               atol=1e-8)


def test_crowded_random_kinks_stay_off_the_dense_path():
    x = np.linspace(-3, 3, 1000)
    y = np.sin(2 * x) + 0.3 * x ** 2
    kinks = np.random.default_rng(0).uniform(-3, 3, 100)  # some crowd between two points
    fit = fit_hinges(x, y, kinks)
    dense = fit_hinges(x, y, kinks, method="dense")
    assert fit.method == "hat basis, rank-deficient"
    np.testing.assert_allclose(fit.predict(x), dense.predict(x), atol=1e-7)
    A = design_matrix(x, kinks)
    params = np.r_[fit.intercept, fit.slope, fit.coefficients]
    np.testing.assert_allclose(A.T @ (A @ params - y), 0, atol=1e-7)
    dense_params = np.r_[dense.intercept, dense.slope, dense.coefficients]
    assert np.linalg.norm(params) <= np.linalg.norm(dense_params) * (1 + 1e-6)


# -- the panel's state: a new domain, the numbering, the corner raised -----------------
def test_a_new_domain_maps_the_kinks_onto_it():


    s = HingesState().spread_evenly(24).with_domain(-1.0, 1.0)
    assert (s.a, s.b) == (-1.0, 1.0)
    np.testing.assert_allclose(s.kinks, evenly_spaced_kinks(-1, 1, 24), atol=1e-12)
    odd = HingesState().with_kinks((-3.0, 0.0, 1.5, 3.0)).with_domain(0.0, 12.0)
    np.testing.assert_allclose(odd.kinks, (0.0, 6.0, 9.0, 12.0))
    assert HingesState().with_domain(-3.0, 3.0) == HingesState()


def test_hinges_are_numbered_by_position():

    kinks = (0.5, -1.0, 2.0, 0.5)
    assert by_position(kinks) == [1, 0, 3, 2]
    assert [position_of(kinks, i) for i in range(4)] == [1, 0, 3, 2]


@pytest.mark.parametrize("i", [0, 1, 2])
def test_raising_a_corner_moves_only_it(i):
    """Free mode's vertical drag: f̂(kᵢ) rises by dy; f̂ at the other kinks and at the
    domain's ends does not move; only the slope changes next to kᵢ change."""


    s = HingesState(mode="free").with_kinks((-1.0, 0.5, 2.0), (0.3, -0.7, 1.1))
    s = s.with_line(0.2, -0.4)
    points = np.array([s.a, *s.kinks, s.b])
    before = [s.height(x) for x in points]
    r = s.raise_kink(i, 0.75)
    after = [r.height(x) for x in points]
    expected = list(before)
    expected[1 + i] += 0.75
    np.testing.assert_allclose(after, expected, atol=1e-12)
    fit = hinge_sum([0.0], [0.0], r.intercept, r.slope, r.kinks, r.coefficients)
    assert fit.slope_change(i) < s.coefficients[i]  # a sharper bend down at a raised corner
    # on a neighbour's kink, or outside (a, b): nothing to raise
    assert s.with_kinks((0.5, 0.5)).raise_kink(0, 1.0) == s.with_kinks((0.5, 0.5))
    assert s.with_kinks((s.a,)).raise_kink(0, 1.0) == s.with_kinks((s.a,))


def test_a_singular_fit_needs_no_scipy():
    """Seen: 200 hinges on 200 points (more kinks than points between them, so the hat
    basis is singular) imported scipy.linalg on first use, 0.2 s of the GUI thread
    after Return. The minimum-norm fit uses numpy's solvers; it equals the dense
    least-squares fit, in a fresh interpreter that never loads scipy.linalg."""
    import subprocess
    import sys

    code = """if True:
        import sys
        import numpy as np
        from relulab.model.fitting.hinges import fit_hinges
        rng = np.random.default_rng(3)
        x = np.sort(rng.uniform(-1, 1, 200)); y = np.sin(3 * x)
        kinks = np.sort(rng.uniform(-1.2, 1.2, 200))
        fast, dense = fit_hinges(x, y, kinks), fit_hinges(x, y, kinks, method="dense")
        assert abs(fast.predict(x) - dense.predict(x)).max() < 1e-8
        print("scipy.linalg" in sys.modules)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
