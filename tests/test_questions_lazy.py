"""Lazy training: the weights move less as the width grows, and the trained net
approaches its trained linearisation; each readout against its definition."""

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.questions.lazy import (
    gradient_step,
    init_params,
    jacobian,
    lazy_data,
    lazy_training,
    linearised,
    net,
)


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """As the app runs (``relulab.app.limit_blas_threads``): one BLAS thread, which on
    a shared machine is also the fastest for these small matrices."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield


def test_the_jacobian_and_the_step_are_the_derivatives():
    theta, (x, y) = init_params(7, 1), lazy_data(5)
    J, eps = jacobian(theta, x), 1e-6
    for k in (0, 9, 17):
        bumped = theta.copy().ravel()
        bumped[k] += eps
        fd = (net(bumped.reshape(theta.shape), x) - net(theta, x)) / eps
        np.testing.assert_allclose(J[:, k], fd, atol=1e-5)
    want = theta - 0.3 * (J.T @ (net(theta, x) - y) / len(x)).reshape(theta.shape)
    np.testing.assert_allclose(gradient_step(theta, x, y, 0.3), want, atol=1e-14)


def test_the_closed_form_is_gradient_descent_on_the_linear_model():
    theta0, (x, y) = init_params(20, 2), lazy_data(8)
    grid = np.linspace(-1, 1, 31)
    J, f0 = jacobian(theta0, x), net(theta0, x)
    delta = np.zeros(J.shape[1])
    for _ in range(40):
        delta -= 0.5 * J.T @ (f0 + J @ delta - y) / len(x)
    want = net(theta0, grid) + jacobian(theta0, grid) @ delta
    np.testing.assert_allclose(linearised(theta0, x, y, grid, 0.5, 40), want, atol=1e-10)


def test_readouts_are_their_definitions():
    result = lazy_training((24,), [4], n=6, steps=30, grid_points=41)
    x, y = lazy_data(6)
    theta0 = theta = init_params(24, 4)
    for _ in range(30):
        theta = gradient_step(theta, x, y, 0.5)
    grid = np.linspace(-1, 1, 41)
    assert result.movement[0, 0] == pytest.approx(
        np.linalg.norm(theta - theta0) / np.linalg.norm(theta0))
    lin = linearised(theta0, x, y, grid, 0.5, 30)
    assert result.distance[0, 0] == pytest.approx(np.sqrt(np.mean((net(theta, grid) - lin) ** 2)))
    assert result.train_mse[0, 0] == pytest.approx(np.mean((net(theta, x) - y) ** 2))


def test_wide_nets_train_lazily():
    result = lazy_training((16, 256, 4096), 3)
    movement, distance = result.median("movement"), result.median("distance")
    assert movement[0] > 0.7 and movement[-1] < 0.07        # 1.05 and 0.047 measured
    assert np.all(np.diff(movement) < 0) and distance[-1] < distance[0] / 4
    assert np.all(result.train_mse < 0.05)


def test_progress_and_stop():
    seen, calls = [], []
    lazy_training((4, 8), 2, steps=10, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    with pytest.raises(Cancelled):
        lazy_training((4, 8), 2, steps=10, should_stop=lambda: calls.append(1) or len(calls) > 2)
