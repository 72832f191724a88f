"""Over-parametrisation on the two spirals: the batched training is the classifier
Trainer's, wide nets find the spirals where narrow ones do not, and pruning's readouts
follow their definitions."""

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.data.datasets import make_dataset
from relulab.model.fitting.classify import TrainConfig, Trainer, accuracy
from relulab.model.networks.mlp import MLP
from relulab.model.questions.overparam import (
    FOUND,
    TOLERANCE,
    _Batch,
    pruning,
    spirals_by_width,
)


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """As the app runs (``relulab.app.limit_blas_threads``): one BLAS thread, which on
    a shared machine is also the fastest for these small matrices."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield


def test_the_batched_steps_are_the_trainers_adam():
    X, y = make_dataset("spirals", 0)
    nets = [MLP.random([2, 12, 1], seed=s) for s in (3, 4)]
    batch = _Batch(nets, X, y, 0.03)
    for _ in range(60):
        batch.step()
    for net, ours in zip(nets, batch.nets()):
        theirs = Trainer(net, X, y, config=TrainConfig("adam", 0.03)).advance(60).net
        for (W, b), (V, c) in zip(ours.layers, theirs.layers):
            np.testing.assert_allclose(W, V, atol=1e-10)
            np.testing.assert_allclose(b, c, atol=1e-10)
        assert batch.accuracy()[nets.index(net)] == accuracy(ours, X, y)


def test_four_units_never_find_the_spirals_and_sixteen_always_do():
    result = spirals_by_width((4, 16), 10)
    assert list(result.found_count()) == [0, 10]
    assert np.array_equal(result.found, result.train_accuracy >= FOUND)
    assert result.to_dict()["found"] == [0, 10]


def test_the_sweep_reports_progress_and_stops():
    seen = []
    spirals_by_width((2, 3), 2, steps=500, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (1000, 1000) and len(seen) == 4
    calls = []
    with pytest.raises(Cancelled):
        spirals_by_width((2, 3), 2, steps=500, should_stop=lambda: calls.append(1) or len(calls) > 2)


def _pruned_accuracy(net, X, y, fraction):
    """Zero the ⌊fraction·N⌋ weights of least |w| over both weight matrices."""
    (W1, b1), (W2, b2) = net.layers
    flat = np.r_[W1.ravel(), W2.ravel()]
    order = np.argsort(np.abs(flat), kind="stable")
    flat[order[:int(np.floor(fraction * flat.size + 1e-9))]] = 0.0
    pruned = MLP([(flat[:W1.size].reshape(W1.shape), b1), (flat[W1.size:].reshape(W2.shape), b2)])
    return accuracy(pruned, X, y)


def test_pruning_readouts_follow_their_definitions():
    result = pruning(128, 1)
    X, y = make_dataset("spirals", 0)
    for i in (0, 5, 12, 20):
        assert result.accuracy[i] == pytest.approx(
            _pruned_accuracy(result.net, X, y, result.fractions[i]))
    ok = result.accuracy >= result.accuracy[0] - TOLERANCE
    assert result.prunable() == result.fractions[ok].max()
    assert result.fractions[-1] == pytest.approx(0.99) and result.accuracy[-1] <= 0.6


def test_real_labels_survive_more_pruning_than_memorised_ones():
    for seed in (0, 1, 2):
        real, shuffled = pruning(128, seed), pruning(128, seed, shuffled=True)
        assert real.unpruned == 1.0 and shuffled.unpruned < 0.9
        assert real.prunable() >= shuffled.prunable() + 0.05
