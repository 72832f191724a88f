"""Double descent with random ReLU features: the regimes over seeds 0–9, each width
against an independent least-norm solution, and the infinite width against a very wide
draw."""

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.questions.double_descent import (
    RCOND,
    RIDGE_GRID,
    _draw_data,
    _feature_rows,
    _Setup,
    default_widths,
    double_descent,
    double_descent_steps,
    lottery,
    run_steps,
    tuned_ridge,
)

N = 100
WIDTHS = default_widths(N)


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """As the app runs (``relulab.app.limit_blas_threads``): one BLAS thread, which on
    a shared machine is also the fastest for these small matrices."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def d20():
    return double_descent(20, N, 0.5, WIDTHS, 10)


def _at(result, width):
    return float(result.median()[list(result.widths).index(width)])


def test_wide_inputs_are_benign_in_every_seed(d20):
    assert d20.regime() == "benign" and d20.wins() == 10
    assert 10 < _at(d20, N) < 200             # the peak at H = n (57 measured)
    assert 0.25 < _at(d20, 4 * N) < 0.4       # 0.33
    assert 0.15 < _at(d20, 20 * N) < 0.25     # 0.20
    assert 0.35 < d20.best_small() < 0.55     # 0.45, at H = 38
    assert d20.ratio() < 1
    assert list(d20.peaks()) == [N]


def test_train_error_vanishes_past_the_threshold(d20):
    past = d20.widths >= N
    assert np.all(d20.train_mse[:, past] < 1e-10)
    assert np.all(d20.train_mse[:, ~past] > 1e-3)


def test_two_inputs_are_catastrophic_and_mid_sizes_tempered():
    assert double_descent(2, N, 0.5, WIDTHS, 10).regime() == "catastrophic"
    for d, low, high in ((10, 1.2, 3), (5, 2, 5)):      # ratios 1.84 and 3.82 measured
        tempered = double_descent(d, N, 0.5, WIDTHS, 10)
        assert tempered.regime() == "tempered" and low < tempered.ratio() < high


def test_a_second_scale_gives_two_peaks():
    result = double_descent(20, N, 0.5, WIDTHS, 10, second_scale=0.01)
    # Scale-1 features fill the n conditions at H = n, all features at 5H = n.
    assert list(result.peaks()) == [N // 5, N]


def _independent(d, noise, width, seed, bias=0.0):
    """The least-norm solution of the same problem, from the SVD of Φ (np.linalg.pinv)."""
    data = _draw_data(d, N, noise, 1000, seed)
    rows = _feature_rows(d, width, [seed, 1])

    def phi(X):
        return np.maximum(X @ rows[:, :d].T + bias * rows[:, d], 0.0) / np.sqrt(width)

    a = np.linalg.pinv(phi(data.X), rcond=RCOND) @ data.y
    return (np.mean((phi(data.X_test) @ a - data.y_test) ** 2),
            np.mean((phi(data.X) @ a - data.y) ** 2), np.linalg.norm(a))


# In two dimensions Φ has singular values down to 1e-17 of the largest: the solution
# depends on which ones count as zero, and the SVD and the Gram matrix see those near
# the cut a little differently.
@pytest.mark.parametrize(("d", "bias", "rtol"), [(20, 0.0, 1e-6), (5, 1.0, 1e-6), (2, 0.0, 5e-2)])
def test_every_width_is_the_least_norm_solution(d, bias, rtol):
    widths = [10, 60, 100, 130, 700]
    result = double_descent(d, N, 0.5, widths, [3, 4], bias=bias)
    for i, seed in enumerate(result.seeds):
        for j, width in enumerate(widths):
            test, train, norm = _independent(d, 0.5, width, seed, bias)
            assert result.test_mse[i, j] == pytest.approx(test, rel=rtol)
            assert result.train_mse[i, j] == pytest.approx(train, rel=rtol, abs=1e-8)
            assert result.weight_norm[i, j] == pytest.approx(norm, rel=rtol)


def test_ridge_is_the_mean_square_ridge_solution():
    d, lam, width, seed = 20, 1e-3, 150, 2
    result = double_descent(d, N, 0.5, [width], [seed], ridge=lam)
    data = _draw_data(d, N, 0.5, 1000, seed)
    rows = _feature_rows(d, width, [seed, 1])
    P, Pt = (np.maximum(X @ rows[:, :d].T, 0) / np.sqrt(width) for X in (data.X, data.X_test))
    a = np.linalg.solve(P.T @ P / N + lam * np.eye(width), P.T @ data.y / N)
    assert result.test_mse[0, 0] == pytest.approx(np.mean((Pt @ a - data.y_test) ** 2), rel=1e-8)
    assert result.weight_norm[0, 0] == pytest.approx(np.linalg.norm(a), rel=1e-8)


def test_condition_is_that_of_the_feature_matrix():
    d, seed = 20, 1
    result = double_descent(d, N, 0.5, [40, 300], [seed])
    data = _draw_data(d, N, 0.5, 1000, seed)
    for j, width in enumerate((40, 300)):
        rows = _feature_rows(d, width, [seed, 1])
        P = np.maximum(data.X @ rows[:, :d].T, 0) / np.sqrt(width)
        assert result.condition[0, j] == pytest.approx(np.linalg.cond(P), rel=1e-6)


@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_the_kernel_is_the_limit_of_a_very_wide_draw(bias):
    d, width = 20, 20_000
    setup = _Setup(d, N, 0.5, bias, None, 4, 200)
    data = _draw_data(d, N, 0.5, 200, 0)
    P, _ = setup.features(data, width, [0])
    gram = P @ P.T / width
    assert np.abs(gram - setup.kernel(data.X, data.X)).max() < 0.05 * np.abs(gram).max()
    wide = double_descent(d, N, 0.5, [width], [0, 1], bias=bias, test_points=200)
    np.testing.assert_allclose(wide.test_mse[:, 0], wide.kernel_mse, rtol=0.1)


def test_steps_report_seeds_and_stop_when_asked():
    steps = double_descent_steps(20, 30, 0.5, [5, 30, 60], 3, test_points=50)
    seen = []
    result = run_steps(steps, lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert result.test_mse.shape == (3, 3)
    calls = []
    with pytest.raises(Cancelled):
        double_descent(20, 30, 0.5, [5, 30, 60], 3, test_points=50,
                       should_stop=lambda: calls.append(1) or len(calls) > 4)


def test_result_is_read_only_and_plain(d20):
    with pytest.raises(ValueError):
        d20.test_mse[0, 0] = 1.0
    as_dict = d20.to_dict()
    assert as_dict["test_target"] == "noiseless" and as_dict["oracle"] is False
    assert as_dict["widths"] == [int(w) for w in WIDTHS]
    assert isinstance(as_dict["test_mse"][0][0], float)
    lo, hi = d20.band("test_mse")
    assert np.all(lo <= d20.median()) and np.all(d20.median() <= hi)


@pytest.fixture(scope="module")
def tuned():
    return tuned_ridge(20, N, 0.5, WIDTHS, 10)


def test_the_oracle_ridge_removes_the_peak(d20, tuned):
    assert tuned.oracle and tuned.to_dict()["oracle"] is True
    assert list(tuned.peaks()) == [] and _at(tuned, N) < 0.3 < 10 < _at(d20, N)
    assert tuned.regime() == "benign" and np.all(tuned.median() <= d20.median() + 1e-12)


def test_the_oracle_picks_the_lowest_median_of_its_grid(tuned):
    j = list(WIDTHS).index(N)
    chosen = float(tuned.ridge_per_width[j])
    assert chosen in RIDGE_GRID
    for lam in RIDGE_GRID[::4]:
        at = double_descent(20, N, 0.5, [N], 10, ridge=lam)
        if lam == chosen:
            np.testing.assert_allclose(at.test_mse[:, 0], tuned.test_mse[:, j], rtol=1e-10)
        assert np.median(at.test_mse) >= _at(tuned, N) - 1e-12


def test_the_lottery_is_wild_at_the_threshold_and_calm_when_wide(d20):
    at_n = lottery(20, N, 0.5, N, draws=10, data_seed=0)
    wide = lottery(20, N, 0.5, 20 * N, draws=10, data_seed=0)
    assert at_n.spread > 100 and wide.spread < 1.3       # 410 and 1.12 measured
    assert at_n.spread == pytest.approx(at_n.test_mse.max() / at_n.test_mse.min())
    # Draw 0 is double descent's draw for the same seed (its Gram matrix summed in
    # another order: at H = n, condition 1e4, equal to 1e-6).
    for result in (at_n, wide):
        j = list(WIDTHS).index(result.width)
        assert result.test_mse[0] == pytest.approx(d20.test_mse[0, j], rel=1e-6)
        # The average of the predictions beats the average draw (the square is convex).
        assert result.ensemble_mse < result.test_mse.mean()
    assert wide.to_dict()["spread"] == wide.spread


def test_the_ensemble_is_the_average_prediction():
    d, H, draws = 20, 30, 3
    result = lottery(d, N, 0.5, H, draws=draws, data_seed=5, test_points=300)
    data = _draw_data(d, N, 0.5, 300, 5)
    preds = []
    for stream in ([5], [5, 1], [5, 2]):
        rows = _feature_rows(d, H, [*stream, 1])
        P, Pt = (np.maximum(X @ rows[:, :d].T, 0) for X in (data.X, data.X_test))
        preds.append(Pt @ np.linalg.lstsq(P, data.y, rcond=None)[0])
    want = np.mean((np.mean(preds, axis=0) - data.y_test) ** 2)
    assert result.ensemble_mse == pytest.approx(want, rel=1e-8)
