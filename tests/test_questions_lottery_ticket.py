"""Lottery tickets on the spirals (seeds 0–9): the pruned mask beats a random mask of
the same size in every seed; the rewound ticket against a re-initialised mask is not a
reliable win, and nothing here claims it."""

import numpy as np
import pytest

from relulab.model import lottery_tickets
from relulab.model.core.cancel import Cancelled
from relulab.model.questions.lottery_ticket import _magnitude_masks, _random_masks


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield


def test_masks_keep_the_largest_weights_per_layer():
    rng = np.random.default_rng(0)
    params = [rng.normal(size=(3, 2, 10)), None, rng.normal(size=(3, 10)), None]
    m1, m2 = _magnitude_masks(params, 0.2)
    assert m1.sum(axis=(1, 2)).tolist() == [4, 4, 4] and m2.sum(axis=1).tolist() == [2, 2, 2]
    for s in range(3):
        kept, dropped = np.abs(params[0][s][m1[s]]), np.abs(params[0][s][~m1[s]])
        assert kept.min() >= dropped.max()
    r1, r2 = _random_masks((m1, m2), [0, 1, 2])
    assert r1.sum() == m1.sum() and r2.sum() == m2.sum()


def test_the_mask_matters_the_ticket_is_a_coin_toss():
    """Measured (2-128-1, 10% of each layer kept, 1,000 Adam steps): the ticket beats
    the random mask by 1.5–24 points in 10/10 seeds (median 7; the issue's prototype:
    17–28 points); it beats the re-initialised mask in 3/10 (prototype: 6–7/10)."""
    r = lottery_tickets(10, steps=1000)
    assert np.all(r.of("dense") >= 0.99)
    assert np.all(r.mask_margin() > 0) and np.median(r.mask_margin()) > 0.04
    assert 1 <= r.ticket_beats_reinit() <= 8
    assert r.to_dict()["phases"] == ["dense", "ticket", "random_mask", "reinit"]


def test_progress_and_stopping():
    seen = []
    lottery_tickets([0], width=8, steps=250, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (1000, 1000)  # 4 phases × 250 steps, one seed
    with pytest.raises(Cancelled):
        lottery_tickets([0], should_stop=lambda: True)
    with pytest.raises(ValueError):
        lottery_tickets([0], keep=1.0)
