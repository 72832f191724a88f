"""Why deep: Yarotsky's deep square has max error exactly 4^−(m+1) on [0, 1] (exact
rational arithmetic on the net's pieces), the single feature x1·x2 separates XOR but
not the circles, and a 2-16-16-1 net fits all four datasets (seeds 0–9)."""

from fractions import Fraction

import numpy as np
import pytest

from relulab.model import deep_square
from relulab.model.core.cancel import Cancelled
from relulab.model.networks.exact import exact_line
from relulab.model.networks.mlp import MLP
from relulab.model.questions.why_deep import (
    exact_max_error,
    hidden_layer_fits,
    product_feature,
    square_error_bound,
)


@pytest.mark.parametrize("m", range(7))
def test_deep_square_error_is_exactly_a_quarter_to_the_m_plus_one(m):
    net = deep_square(m)
    assert net.sizes == [1, *([3] * m), 1]
    assert exact_max_error(net) == square_error_bound(m) == Fraction(1, 4 ** (m + 1))


@pytest.mark.parametrize("m", [1, 3, 5])
def test_deep_square_interpolates_x_squared_at_the_dyadic_points(m):
    """Independent of the piece walk: the net at j/2^m is (j/2^m)² exactly, in
    Fractions from its dyadic weights, and its kinks on (0, 1) are those points."""
    net = deep_square(m)

    def exact(x: Fraction) -> Fraction:
        h = [x]
        for i, (W, b) in enumerate(net.layers):
            z = [sum(Fraction(w) * v for w, v in zip(row, h)) + Fraction(c)
                 for row, c in zip(W, b)]
            h = z if i == len(net.layers) - 1 else [max(v, Fraction(0)) for v in z]
        return h[0]

    n = 2 ** m
    for j in range(n + 1):
        x = Fraction(j, n)
        assert exact(x) == x * x
        # the midpoint of each piece is the worst point: the chord lies 1/(4 n²) above
        if j < n:
            mid = Fraction(2 * j + 1, 2 * n)
            assert exact(mid) - mid * mid == Fraction(1, 4 * n * n)
    ex = exact_line(net)
    kinks = [t for t, c in zip(ex.knots, ex.jumps()) if c != 0 and 0 < t < 1]
    assert kinks == [Fraction(j, n) for j in range(1, n)]


def test_deep_square_rejects_negative_depth():
    with pytest.raises(ValueError):
        deep_square(-1)


def test_the_product_feature_separates_xor_not_the_circles():
    """Measured (fresh test points): noiseless XOR 0.995–1.000 (median 1.000), the
    circles 0.48–0.64 (median 0.58; the issue's prototype: 0.537)."""
    xor = product_feature(("xor",), 10, noise=0.0)
    assert xor.median("xor") == 1.0 and xor.accuracy.min() >= 0.99
    circles = product_feature(("circles",), 10)
    assert np.median(circles.accuracy) < 0.62 and circles.accuracy.max() < 0.7
    assert circles.to_dict()["kind"] == "x1·x2"


def test_a_2_16_16_1_net_fits_all_four_datasets():
    """Measured at 1,000 Adam steps: every dataset and seed ≥ 0.956 on fresh points,
    where the product feature stays below 0.7 on the circles."""
    fits = hidden_layer_fits(seeds=10, steps=1000)
    assert fits.kind == "2-16-16-1"
    assert fits.accuracy.shape == (4, 10) and fits.accuracy.min() >= 0.93
    for name in fits.datasets:
        assert fits.median(name) >= 0.96


def test_the_batched_steps_are_the_trainers_adam():
    from relulab.model.data.datasets import make_dataset
    from relulab.model.fitting.classify import TrainConfig, Trainer
    from relulab.model.questions.why_deep import _Adam

    data = [make_dataset("circles", s) for s in (3, 4)]
    nets = [MLP.random([2, 16, 16, 1], seed=s) for s in (3, 4)]
    batch = _Adam(nets, np.array([X for X, _ in data]), np.array([y for _, y in data]), 0.03)
    for _ in range(40):
        batch.step()
    for s, (net, (X, y)) in enumerate(zip(nets, data)):
        theirs = Trainer(net, X, y, config=TrainConfig("adam", 0.03)).advance(40).net
        for i, (W, b) in enumerate(theirs.layers):
            np.testing.assert_allclose(batch.W[i][s], W.T, atol=1e-10)
            np.testing.assert_allclose(batch.b[i][s], b, atol=1e-10)


def test_hidden_layer_fits_reports_progress_and_stops():
    seen = []
    hidden_layer_fits(("xor",), [0], steps=300, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (300, 300)
    with pytest.raises(Cancelled):
        hidden_layer_fits(("xor",), [0], steps=300, should_stop=lambda: True)


def test_the_readme_quotes_the_deep_squares_error():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text().replace("\n", " ")
    assert "error exactly 4^−(m+1)" in readme
    assert all(exact_max_error(deep_square(m)) == Fraction(1, 4 ** (m + 1)) for m in range(4))
