"""Regenerate the example that ships with the app: a digits classifier and its data.

    python packaging/make_examples.py          (needs scikit-learn: pip install 'relulab[examples]')

Writes, under relulab/resources/examples/:

* ``digits-rows.npz``: scikit-learn's bundled 8×8 digits (1,797 pictures, pixel values
  0 to 16): ``X`` (rows, 8, 8) as bytes and ``y`` their digits (a points file, see
  docs/network-format.md);
* ``digits-classifier.json``: a 64-32-32-10 ReLU network trained here with numpy
  (Adam on the softmax cross-entropy, full batch, fixed seed) on the first 1,500
  pictures; its inputs are the raw pixel values (the scaling by 1/16 used in training
  is folded into the first layer, exactly: a power of two).

The app reads these files with the ordinary readers (relulab.io.networks and
relulab.io.points) and never needs scikit-learn. Everything is seeded, so running
the script again on the same machine writes the same files.
"""

from __future__ import annotations

import io
import itertools
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "relulab" / "resources" / "examples"
SIZES = (64, 32, 32, 10)
TRAIN = 1500
STEPS = 3000
SEED = 0


def digits() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("make_examples.py needs scikit-learn: pip install 'relulab[examples]'")
    d = load_digits()
    return d.images.astype(np.uint8), d.target.astype(np.int64)


def train(X: np.ndarray, y: np.ndarray, seed: int = SEED):
    """A ReLU classifier trained with Adam on the softmax cross-entropy (full batch)."""
    rng = np.random.default_rng(seed)
    layers = []
    for n_in, n_out in itertools.pairwise(SIZES):
        layers.append([rng.normal(0.0, np.sqrt(2.0 / n_in), (n_out, n_in)),
                       rng.uniform(-0.1, 0.1, n_out)])
    params = [p for layer in layers for p in layer]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, b1, b2, eps, decay = 3e-3, 0.9, 0.999, 1e-8, 1e-4
    Y = np.eye(SIZES[-1])[y]
    for step in range(1, STEPS + 1):
        hs, zs = [X], []
        for i, (W, b) in enumerate(layers):
            z = hs[-1] @ W.T + b
            zs.append(z)
            if i < len(layers) - 1:
                hs.append(np.maximum(z, 0.0))
        z = zs[-1] - zs[-1].max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - Y) / len(X)
        grads = []
        for i in range(len(layers) - 1, -1, -1):
            W, _ = layers[i]
            grads = [g.T @ hs[i] + decay * W, g.sum(axis=0), *grads]
            if i > 0:
                g = (g @ W) * (zs[i - 1] > 0)
        for k, (param, grad) in enumerate(zip(params, grads)):
            m[k] = b1 * m[k] + (1 - b1) * grad
            v[k] = b2 * v[k] + (1 - b2) * grad * grad
            param -= lr * (m[k] / (1 - b1 ** step)) / (np.sqrt(v[k] / (1 - b2 ** step)) + eps)
    return layers


def accuracy(layers, X, y) -> float:
    h = X
    for i, (W, b) in enumerate(layers):
        h = h @ W.T + b
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return float(np.mean(np.argmax(h, axis=1) == y))


def main() -> int:
    images, y = digits()
    X = images.reshape(len(images), -1).astype(float)
    layers = train(X[:TRAIN] / 16.0, y[:TRAIN])
    layers[0][0] = layers[0][0] / 16.0  # exact: the network now reads raw pixel values
    train_acc, test_acc = accuracy(layers, X[:TRAIN], y[:TRAIN]), accuracy(layers, X[TRAIN:], y[TRAIN:])
    OUT.mkdir(parents=True, exist_ok=True)
    doc = {"format": "relulab-network", "version": 1, "activation": "relu",
           "layers": [{"weights": W.tolist(), "biases": b.tolist()} for W, b in layers]}
    (OUT / "digits-classifier.json").write_text(json.dumps(doc) + "\n")
    buf = io.BytesIO()
    np.savez_compressed(buf, X=images, y=y.astype(np.uint8))
    (OUT / "digits-rows.npz").write_bytes(buf.getvalue())
    print(f"64-32-32-10 digits classifier: accuracy {train_acc:.3f} on the {TRAIN} training "
          f"pictures, {test_acc:.3f} on the other {len(X) - TRAIN}")
    for name in ("digits-classifier.json", "digits-rows.npz"):
        print(f"  {OUT / name}: {(OUT / name).stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
