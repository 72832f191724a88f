"""Why parity is hard: over seeds 0–9, majority of 3 of 30 bits is learnt in tens of
steps, sparse parity after a plateau at chance that grows steeply with k; 1-NN on full
10-bit parity scores (nearly) 0 on unseen strings, against a brute force."""

import numpy as np
import pytest

from relulab.model import nearest_neighbour_parity, parity_race
from relulab.model.core.cancel import Cancelled
from relulab.model.questions.parity import _labels, _Nets, all_strings

SEEDS = range(10)


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """As the app runs: one BLAS thread."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield


def _brute_nearest_neighbour(n_bits, seed):
    """1-NN by explicit loops over Python ints: Hamming distance by bit counts, the
    first stored string of least distance wins (the same split as the model's)."""
    order = np.random.default_rng([seed, 28]).permutation(2 ** n_bits)
    cut = 2 ** (n_bits - 1)
    train, test = [int(i) for i in order[:cut]], [int(i) for i in order[cut:]]
    parity = [bin(i).count("1") % 2 for i in range(2 ** n_bits)]
    right = 0
    for t in test:
        best = min(train, key=lambda s: bin(s ^ t).count("1"))
        right += parity[best] == parity[t]
    return right / len(test)


def test_nearest_neighbour_fails_on_full_parity():
    """Measured: 0 of 512 unseen strings right in 8 seeds, 1 of 512 in 2 (a string
    whose ten neighbours at distance 1 all fell in the test half)."""
    scores = [nearest_neighbour_parity(10, s) for s in SEEDS]
    assert scores == [_brute_nearest_neighbour(10, s) for s in SEEDS]
    assert max(scores) <= 2 / 512 and np.median(scores) == 0


def test_labels_and_strings():
    X = all_strings(3)
    assert X.shape == (8, 3) and len({tuple(r) for r in X}) == 8
    np.testing.assert_array_equal(_labels("parity", X, 2), X[:, 0] * X[:, 1])
    np.testing.assert_array_equal(_labels("majority", X, 3), np.sign(X.sum(1)))


def test_the_batched_step_is_the_gradient():
    """The hand-written SGD step against finite differences of the hinge loss."""
    nets = _Nets(5, 7, [0])
    rng = np.random.default_rng(1)
    X = rng.choice([-1.0, 1.0], (1, 16, 5))
    y = _labels("parity", X, 2)

    def loss(W1):
        h = np.maximum(X[0] @ W1 + nets.b1[0], 0)
        return np.mean(np.maximum(0, 1 - y[0] * (h @ nets.w2[0] + nets.b2[0])))

    W1 = nets.W1[0].copy()
    num = np.zeros_like(W1)
    for idx in np.ndindex(W1.shape):
        e = np.zeros_like(W1)
        e[idx] = 1e-7
        num[idx] = (loss(W1 + e) - loss(W1 - e)) / 2e-7
    nets.step(X, y, lr=1.0, weight_decay=0.0)
    np.testing.assert_allclose(W1 - nets.W1[0], num, atol=1e-6)


@pytest.fixture(scope="module")
def races():
    return {k: parity_race(30, k, steps=3000, seeds=10) for k in (2, 3)}


def test_majority_is_learnt_at_once_parity_after_a_plateau(races):
    """Measured (30 bits, 30-256-1, hinge loss, SGD lr 0.1, batch 32, decay 0.01):
    majority of 3 bits 20–30 steps (median 30; the issue's prototype: 30); parity of
    2 bits 100–120 (median 110; prototype 140), of 3 bits 880–1,520 (median 1,205;
    prototype 790)."""
    two, three = races[2], races[3]
    assert all(s is not None and s <= 60 for s in three.majority_steps)
    assert all(s is not None for s in two.parity_steps + three.parity_steps)
    for s in range(10):
        assert three.majority_steps[s] * 2 < two.parity_steps[s]
        assert two.parity_steps[s] * 4 < three.parity_steps[s]
    assert three.median_majority() <= 40
    assert 80 <= two.median_parity() <= 160 and 700 <= three.median_parity() <= 2000


def test_parity_shows_hidden_progress(races):
    """Test accuracy stays at chance for half the steps parity needs, then rises."""
    race = races[3]
    for s in range(10):
        i = race.parity_steps[s] // 10
        assert race.parity_accuracy[s, i // 2] < 0.6
        assert race.parity_accuracy[s, i] >= 0.95


def test_not_reached_is_none_and_stopping():
    race = parity_race(30, 4, steps=50, seeds=[0, 1], tasks=("parity",))
    assert race.parity_steps == (None, None) and race.median_parity() == np.inf
    assert race.to_dict()["parity_steps"] == [None, None]
    seen = []
    parity_race(10, 2, steps=200, seeds=[0], progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (400, 400)
    with pytest.raises(Cancelled):
        parity_race(10, 2, steps=2000, seeds=[0], should_stop=lambda: True)
    with pytest.raises(ValueError):
        parity_race(10, 11)


def test_a_net_learns_full_parity_where_nearest_neighbours_fail():
    """Measured (10-256-1, 2,000 SGD steps on the same half of all strings): 0.93–0.97
    on the unseen half (the issue's prototype: 95%), against 1-NN's 0–0.2%."""
    from relulab.model.questions.parity import mlp_full_parity

    acc = mlp_full_parity(10, 10)
    assert acc.shape == (10,) and acc.min() >= 0.9
    assert all(a > 100 * (nearest_neighbour_parity(10, s) + 0.002) for s, a in enumerate(acc))
