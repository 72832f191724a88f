"""GELU against ReLU: a GELU net of the same width comes within GAP/a·Σ|w| of any ReLU
net of one hidden layer, and fitted the same way over seeds 0–9 GELU wins on a smooth
target, ReLU on a kink."""

import numpy as np
import pytest

from relulab.model import gelu_vs_relu
from relulab.model.core.cancel import Cancelled
from relulab.model.networks.mlp import MLP
from relulab.model.questions.gelu import GAP, _Fits, _gap, relu_as_gelu, relu_as_gelu_bound


def test_the_gap_between_gelu_and_relu():
    """|GELU(t) − ReLU(t)| = |t|Φ(−|t|) for t < 0 (t·Φ(t) − t for t > 0): its maximum,
    by scipy's scalar optimiser on the closed form, is GAP."""
    from scipy.optimize import minimize_scalar
    from scipy.stats import norm

    res = minimize_scalar(lambda t: t * norm.cdf(t), bounds=(-3, 0), method="bounded",
                          options={"xatol": 1e-10})
    assert -res.fun == pytest.approx(GAP, abs=1e-5)
    assert _gap() == pytest.approx(GAP, abs=1e-5)


@pytest.mark.parametrize("seed", range(10))
def test_a_gelu_net_approximates_any_relu_net(seed):
    net = MLP.random([1, 8, 1], seed=seed)
    x = np.linspace(-4, 4, 40_001)[:, None]
    errors = []
    for a in (1.0, 10.0, 100.0, 1000.0):
        g = relu_as_gelu(net, a)
        assert g.activation == "gelu" and g.sizes == net.sizes
        err = float(np.max(np.abs(g(x) - net(x))))
        assert err <= relu_as_gelu_bound(net, a) + 1e-12
        errors.append(err)
    # the error falls like 1/a
    assert errors[-1] < errors[0] / 300


def test_the_batched_fit_follows_the_gradient():
    """One Adam step's first move is −lr·sign(gradient): the gradient checked against
    finite differences of the MSE through the MLP itself."""
    net = MLP.random([1, 5, 1], seed=3).with_activation("gelu")
    x = np.linspace(-1, 1, 9)
    y = np.sin(3 * x)
    fits = _Fits([net], "gelu", 1e-3)
    np.testing.assert_allclose(fits(x)[0], net(x[:, None])[:, 0], atol=1e-12)
    before = [p.copy() for p in fits.p]
    fits.step(x, y)
    W, b = net.layers[0]

    def mse(W1):
        return np.mean((MLP([(W1, b), net.layers[1]], "gelu")(x[:, None])[:, 0] - y) ** 2)

    for h in range(5):
        e = np.zeros_like(W)
        e[h, 0] = 1e-6
        g = (mse(W + e) - mse(W - e)) / 2e-6
        assert np.sign(before[0][0, h] - fits.p[0][0, h]) == np.sign(g)


def test_gelu_wins_on_smooth_relu_on_kinks():
    """Measured (1-16-1, 3,000 Adam steps): on sin(πx) GELU's test MSE median 2.6e-6
    against ReLU's 1.1e-4; on |x| ReLU's 1.3e-6 against GELU's 1.2e-4; each 10/10."""
    r = gelu_vs_relu(seeds=10)
    assert r.wins("gelu", "smooth") == 10 and r.wins("relu", "kink") == 10
    assert r.median("gelu", "smooth") * 10 < r.median("relu", "smooth")
    assert r.median("relu", "kink") * 10 < r.median("gelu", "kink")
    assert r.to_dict()["activations"] == ["relu", "gelu"]


def test_progress_and_stopping():
    seen = []
    gelu_vs_relu(("kink",), [0], steps=300, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (600, 600)
    with pytest.raises(Cancelled):
        gelu_vs_relu(should_stop=lambda: True)
    with pytest.raises(ValueError):
        gelu_vs_relu(("wiggle",))


def test_the_readme_quotes_the_gap():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text().replace("\n", " ")
    assert f"within {GAP:.2f}/a·Σ|w| of a ReLU net" in readme
