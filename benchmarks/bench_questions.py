"""The Questions panel's experiments, each against the plain way of computing it:

* double descent, 26 widths up to 20n, 10 seeds, n = 100, d = 20: nested features and
  one n × n eigendecomposition per width, against an independent ``np.linalg.lstsq``
  per width and seed (the same features), within 2 s;
* the oracle ridge over its 17-value grid, against 17 runs of double descent;
* the lottery, 10 draws at 20n, against ``np.linalg.lstsq`` per draw;
* the spirals sweep (widths 2 … 64, 10 seeds, 2,000 Adam steps) batched over seeds,
  against the classifier ``Trainer`` one net at a time (two widths of it, scaled);
* pruning one net of width 128, against training it with ``Trainer``;
* lazy training (widths 16 … 4,096, 3 seeds) against steps that form the Jacobian.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.common import Row, best_time

N, D, NOISE, SEEDS = 100, 20, 0.5, 10


def _lstsq_double_descent(widths) -> np.ndarray:
    from relulab.model.questions.double_descent import _draw_data, _feature_rows

    out = np.empty((SEEDS, len(widths)))
    for s in range(SEEDS):
        data = _draw_data(D, N, NOISE, 1000, s)
        for j, H in enumerate(widths):
            rows = _feature_rows(D, int(H), [s, 1])
            P, Pt = (np.maximum(X @ rows[:, :D].T, 0) / np.sqrt(H) for X in (data.X, data.X_test))
            a = np.linalg.lstsq(P, data.y, rcond=None)[0]
            out[s, j] = np.mean((Pt @ a - data.y_test) ** 2)
    return out


def _double_descent_rows() -> list[Row]:
    from relulab.model.questions.double_descent import (
        RIDGE_GRID,
        default_widths,
        double_descent,
        lottery,
        tuned_ridge,
    )

    widths = default_widths(N)
    got = []
    ours = best_time(lambda: got.append(double_descent(D, N, NOISE, widths, SEEDS)), repeat=3)
    ref = []
    base = best_time(lambda: ref.append(_lstsq_double_descent(widths)), repeat=1, warmup=0)
    same = bool(np.allclose(got[-1].test_mse, ref[-1], rtol=1e-6))
    rows = [Row(f"double descent, {len(widths)} widths, {SEEDS} seeds, n = {N}, d = {D}", ours,
                "lstsq per width and seed", base, max_seconds=2.0, min_ratio=1.0, holds=same,
                note="" if same else "test MSE differs from lstsq")]
    tuned = best_time(lambda: tuned_ridge(D, N, NOISE, widths, SEEDS), repeat=1)
    rows.append(Row(f"oracle ridge over {len(RIDGE_GRID)} ridges", tuned,
                    f"{len(RIDGE_GRID)} × double descent", len(RIDGE_GRID) * ours, min_ratio=2.0))

    def lottery_lstsq():
        from relulab.model.questions.double_descent import _draw_data, _feature_rows

        data = _draw_data(D, N, NOISE, 1000, 0)
        for k in range(10):
            rows = _feature_rows(D, 20 * N, [0, 1] if k == 0 else [0, k, 1])
            P, Pt = (np.maximum(X @ rows[:, :D].T, 0) for X in (data.X, data.X_test))
            Pt @ np.linalg.lstsq(P, data.y, rcond=None)[0]

    draws = best_time(lambda: lottery(D, N, NOISE, 20 * N), repeat=3)
    base = best_time(lottery_lstsq, repeat=3)
    rows.append(Row("lottery, 10 draws at H = 20n", draws, "lstsq per draw", base,
                    max_seconds=1.5, min_ratio=1 / 1.5))
    return rows


def _training_rows() -> list[Row]:
    from relulab.model.data.datasets import make_dataset
    from relulab.model.fitting.classify import TrainConfig, Trainer
    from relulab.model.networks.mlp import MLP
    from relulab.model.questions.lazy import jacobian, lazy_data, lazy_training, net
    from relulab.model.questions.overparam import STEPS, pruning, spirals_by_width

    widths = (2, 4, 8, 16, 32, 64)
    X, y = make_dataset("spirals", 0)
    sweep = best_time(lambda: spirals_by_width(widths, SEEDS), repeat=1)

    def trainer(width, seeds):
        for s in range(seeds):
            Trainer(MLP.random([2, width, 1], seed=s), X, y,
                    config=TrainConfig("adam", 0.03)).run(STEPS)

    t0 = time.perf_counter()
    trainer(4, 2)
    trainer(64, 2)
    # Two of ten seeds at the narrowest-but-one and the widest width: a lower bound
    # on the time of all 60 nets is 5 × this × 6 / 2.
    base = (time.perf_counter() - t0) * 5 * len(widths) / 2
    rows = [Row(f"spirals sweep, widths 2 … 64, {SEEDS} seeds, {STEPS} steps", sweep,
                "Trainer per net (estimated)", base, max_seconds=8.0, min_ratio=2.0)]
    prune = best_time(lambda: pruning(128, 0), repeat=3)
    base = best_time(lambda: trainer(128, 1), repeat=1)
    rows.append(Row("pruning one net of width 128 (train + 28 fractions)", prune,
                    "Trainer, training only", base, max_seconds=2.0, min_ratio=1.0))

    lazy = best_time(lambda: lazy_training(), repeat=1)

    def jacobian_steps():
        x, target = lazy_data(12)
        for m in (16, 64, 256, 1024, 4096):
            for s in range(3):
                theta = np.random.default_rng([s, m]).standard_normal((3, m))
                for _ in range(1000):
                    r = net(theta, x) - target
                    theta = theta - 0.5 * (jacobian(theta, x).T @ r / 12).reshape(theta.shape)

    base = best_time(jacobian_steps, repeat=1, warmup=0)
    rows.append(Row("lazy training, widths 16 … 4,096, 3 seeds, 1,000 steps", lazy,
                    "steps forming the Jacobian", base, max_seconds=5.0, min_ratio=1.0))
    return rows


def run() -> list[Row]:
    return _double_descent_rows() + _training_rows()
