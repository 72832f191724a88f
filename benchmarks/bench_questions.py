"""The Questions panel's experiments, each against the plain way of computing it:

* double descent, 26 widths up to 20n, 10 seeds, n = 100, d = 20: nested features and
  one n × n eigendecomposition per width, against an independent ``np.linalg.lstsq``
  per width and seed (the same features), within 2 s;
* the oracle ridge over its 17-value grid, against 17 runs of double descent;
* the lottery, 10 draws at 20n, against ``np.linalg.lstsq`` per draw;
* the spirals sweep (widths 2 … 64, 10 seeds, 2,000 Adam steps) batched over seeds,
  against the classifier ``Trainer`` one net at a time (two widths of it, scaled);
* pruning one net of width 128, against training it with ``Trainer``;
* lazy training (widths 16 … 4,096, 3 seeds) against steps that form the Jacobian;
* part 2: sparsemax on many rows against a row-by-row sort; the parity race (10 seeds
  batched, within 1.5× of one seed at a time, which stops each seed at its own end);
  the 2-16-16-1 fits (10 seeds batched) against the classifier ``Trainer`` one net at a
  time; the deep square's exact error against Fractions at its kinks; GELU against
  ReLU (seeds batched) against one seed at a time; the lottery tickets (seed by seed,
  where a batch is slower) against one seed, scaled;
* the window while each page's experiment runs (in a fresh process): its tab clicked,
  then a control changed as a user does (the n slider's arrow key, a seed count typed
  and Return), until the last result is drawn; the longest gap of the event loop,
  against the longest gap of the same window idle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import Row, best_time, small

N, D, NOISE = small(100, 20), 20, 0.5
SEEDS = small(10, 1)
#: training steps of the spirals sweep and lazy training
STEPS_RUN = small(None, 20)
LAZY_WIDTHS = small((16, 64, 256, 1024, 4096), (16, 64))


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

    widths = default_widths(N, count=small(24, 4))
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
    rows.append(Row(f"lottery, 10 draws at H = 20n (n = {N})", draws, "lstsq per draw", base,
                    max_seconds=1.5, min_ratio=1 / 1.5))
    return rows


def _training_rows() -> list[Row]:
    from relulab.model.data.datasets import make_dataset
    from relulab.model.fitting.classify import TrainConfig, Trainer
    from relulab.model.networks.mlp import MLP
    from relulab.model.questions.lazy import jacobian, lazy_data, lazy_training, net
    from relulab.model.questions.overparam import STEPS, pruning, spirals_by_width

    widths = small((2, 4, 8, 16, 32, 64), (2, 4))
    steps = STEPS if STEPS_RUN is None else STEPS_RUN
    X, y = make_dataset("spirals", 0)
    sweep = best_time(lambda: spirals_by_width(widths, SEEDS, steps=steps), repeat=1)

    def trainer(width, seeds):
        for s in range(seeds):
            Trainer(MLP.random([2, width, 1], seed=s), X, y,
                    config=TrainConfig("adam", 0.03)).run(steps)

    t0 = time.perf_counter()
    trainer(4, small(2, 1))
    trainer(64, small(2, 1))
    # Two of ten seeds at the narrowest-but-one and the widest width: a lower bound
    # on the time of all 60 nets is 5 × this × 6 / 2.
    base = (time.perf_counter() - t0) * 5 * len(widths) / 2
    rows = [Row(f"spirals sweep, widths {widths[0]} … {widths[-1]}, {SEEDS} seeds, {steps:,} steps", sweep,
                "Trainer per net (estimated)", base, max_seconds=8.0, min_ratio=2.0)]
    prune = best_time(lambda: pruning(128, 0), repeat=3)
    base = best_time(lambda: trainer(128, 1), repeat=1)
    rows.append(Row("pruning one net of width 128 (train + 28 fractions)", prune,
                    "Trainer, training only", base, max_seconds=2.0, min_ratio=1.0))

    lazy_steps = small(1000, 20)
    lazy = best_time(lambda: lazy_training(LAZY_WIDTHS, steps=lazy_steps), repeat=1)

    def jacobian_steps():
        x, target = lazy_data(12)
        for m in LAZY_WIDTHS:
            for s in range(3):
                theta = np.random.default_rng([s, m]).standard_normal((3, m))
                for _ in range(lazy_steps):
                    r = net(theta, x) - target
                    theta = theta - 0.5 * (jacobian(theta, x).T @ r / 12).reshape(theta.shape)

    base = best_time(jacobian_steps, repeat=1, warmup=0)
    rows.append(Row(f"lazy training, widths {LAZY_WIDTHS[0]} … {LAZY_WIDTHS[-1]:,}, 3 seeds, "
                    f"{lazy_steps:,} steps", lazy,
                    "steps forming the Jacobian", base, max_seconds=5.0, min_ratio=1.0))
    return rows


def _part_two_rows() -> list[Row]:
    from relulab.model.questions.parity import parity_race
    from relulab.model.questions.simplex import sparsemax
    from relulab.model.questions.why_deep import deep_square, exact_max_error, hidden_layer_fits

    rows_n = small(100_000, 100)
    Z = np.random.default_rng(0).normal(size=(rows_n, 10))

    def one_row_at_a_time():
        for z in Z:
            s = np.sort(z)[::-1]
            c = np.cumsum(s) - 1
            j = np.nonzero(s * np.arange(1, 11) > c)[0][-1]
            np.maximum(z - c[j] / (j + 1), 0)

    ours = best_time(lambda: sparsemax(Z), repeat=3)
    base = best_time(one_row_at_a_time, repeat=1, warmup=0)
    rows = [Row(f"sparsemax of {rows_n:,} rows of 10 logits", ours, "a sort per row", base,
                max_seconds=0.5, min_ratio=10.0)]

    seeds, k, steps = small(10, 2), small(2, 2), small(1000, 20)
    race = best_time(lambda: parity_race(30, k, steps=steps, seeds=seeds), repeat=1)
    one = best_time(lambda: [parity_race(30, k, steps=steps, seeds=[s]) for s in range(2)],
                    repeat=1)
    rows.append(Row(f"parity race, 30 bits, k = {k}, {seeds} seeds batched, up to {steps:,} "
                    "steps", race, "one seed at a time (2 timed, scaled)", one * seeds / 2,
                    max_seconds=5.0, min_ratio=1 / 1.5,
                    note="the steps' matmuls dominate: batching saves little; a batch "
                         "runs until its slowest seed arrives"))

    fit_steps = small(1000, 20)
    fits = best_time(lambda: hidden_layer_fits(seeds=seeds, steps=fit_steps), repeat=1)

    def trainer_fits():
        from relulab.model.data.datasets import make_dataset
        from relulab.model.fitting.classify import TrainConfig, Trainer
        from relulab.model.networks.mlp import MLP

        for name in ("xor", "circles", "spirals", "gaussians"):
            X, y = make_dataset(name, 0)
            Trainer(MLP.random([2, 16, 16, 1], seed=0), X, y,
                    config=TrainConfig("adam", 0.03)).run(fit_steps)

    base = best_time(trainer_fits, repeat=1, warmup=0) * seeds
    rows.append(Row(f"2-16-16-1 fits, 4 datasets, {seeds} seeds, {fit_steps:,} steps", fits,
                    "Trainer per net (one seed timed, scaled)", base, max_seconds=15.0,
                    min_ratio=1.5))

    from relulab.model.questions.gelu import gelu_vs_relu
    from relulab.model.questions.lottery_ticket import lottery_tickets

    g_steps = small(3000, 20)
    ours = best_time(lambda: gelu_vs_relu(seeds=seeds, steps=g_steps), repeat=1)
    one = best_time(lambda: gelu_vs_relu(seeds=[0], steps=g_steps), repeat=1)
    rows.append(Row(f"GELU against ReLU, 2 targets, {seeds} seeds, {g_steps:,} steps", ours,
                    "one seed at a time (1 timed, scaled)", one * seeds, max_seconds=10.0,
                    min_ratio=1.5))
    l_steps = small(2000, 20)
    ours = best_time(lambda: lottery_tickets(seeds, steps=l_steps), repeat=1)
    one = best_time(lambda: lottery_tickets([0], steps=l_steps), repeat=1)
    rows.append(Row(f"lottery tickets, 2-128-1, {seeds} seeds, 4 × {l_steps:,} steps", ours,
                    "one seed (1 timed, scaled)", one * seeds, max_seconds=20.0,
                    min_ratio=1 / 1.2, note="a background run with progress"))

    depth = small(8, 3)
    exact = best_time(lambda: exact_max_error(deep_square(depth)), repeat=1)

    def fractions_at_the_dyadic_points():
        from fractions import Fraction

        net = deep_square(depth)
        for j in range(2 ** (depth + 1) + 1):
            h = [Fraction(j, 2 ** (depth + 1))]
            for i, (W, b) in enumerate(net.layers):
                z = [sum(Fraction(w) * v for w, v in zip(r, h)) + Fraction(c) for r, c in zip(W, b)]
                h = z if i == len(net.layers) - 1 else [max(v, Fraction(0)) for v in z]

    base = best_time(fractions_at_the_dyadic_points, repeat=1, warmup=0)
    rows.append(Row(f"deep square's exact max error, depth {depth} ({2 ** depth} pieces)",
                    exact, "Fractions at the kinks and midpoints", base, max_seconds=5.0,
                    min_ratio=1 / 3))
    return rows


# -- the window while the experiments run (a child process) ----------------------------

GAP = 0.05  # the interactive budget: no gap of the event loop above 50 ms
#: the pages measured, and the seeds their experiments run (the smoke run: the fewest)
LIVE_PAGES = small(None, ("targets",))
LIVE_SEEDS = small(None, 3)
#: how long the idle window is watched before each page
IDLE_SECONDS = small(1.0, 0.1)
#: what the user changes on each page: (words, the control's object name, what is typed)
ACTIONS = {"double-descent": ("the n slider's → key", "questions-dd-n", None),
           "overparametrisation": ("seeds typed 4 + Return", "questions-over-seeds", "4"),
           "infinite-width": ("seeds typed 4 + Return", "questions-lazy-seeds", "4"),
           "parity": ("seeds typed 4 + Return", "questions-parity-seeds", "4"),
           "simplex": ("data seed typed 1 + Return", "questions-simplex-seed", "1"),
           "why-deep": ("seeds typed 4 + Return", "questions-deep-seeds", "4"),
           "gelu": ("seeds typed 4 + Return", "questions-gelu-seeds", "4"),
           "targets": ("seeds typed 4 + Return", "questions-targets-seeds", "4"),
           "tickets": ("seeds typed 4 + Return", "questions-tickets-seeds", "4")}


def _live_probe() -> dict:
    """In the child: the panel at 1280 × 800, each page's tab clicked and its control
    changed; per page the longest gap, the idle window's, and whether it finished."""
    from dataclasses import fields, replace

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QAbstractSlider, QSpinBox

    from benchmarks.common import event_loop_delays
    from relulab.model.lessons.questions import PAGES
    from relulab.ui.application import ensure_application
    from relulab.ui.panels.questions import QuestionsPanel
    from relulab.ui.worker import freeze_long_lived_objects

    ensure_application()
    freeze_long_lived_objects()  # as relulab's main() does
    panel = QuestionsPanel()
    panel.resize(1280, 800)
    panel.show()
    if LIVE_SEEDS is not None:  # every page at its fewest seeds
        state = panel.state
        for f in fields(state):
            s = getattr(state, f.name)
            if hasattr(s, "seeds"):
                state = replace(state, **{f.name: replace(s, seeds=LIVE_SEEDS)})
        panel.apply_state(state)
    panel.wait_until_idle(300)
    bar = panel.pages.tabBar()

    def idle() -> bool:
        return not any(w.busy for w in panel._workers.values()) and not panel.drawing_pending()

    def act(page: str) -> None:
        _words, name, typed = ACTIONS[page]
        control = panel.findChild(QAbstractSlider, name) or panel.findChild(QSpinBox, name)
        control.setFocus()
        if typed is None:
            QTest.keyClick(control, Qt.Key.Key_Right)
            return
        control.selectAll()
        QTest.keyClicks(control, typed)
        QTest.keyClick(control, Qt.Key.Key_Return)

    out = {}
    for page in LIVE_PAGES or PAGES:
        quiet = float(event_loop_delays(lambda: None, None, IDLE_SECONDS).max())
        click = float(event_loop_delays(lambda page=page: QTest.mouseClick(
            bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(PAGES.index(page)).center()),
            idle, 300).max())
        shown = panel.state.page == page and panel.result(page) is not None
        before = panel.state
        change = float(event_loop_delays(lambda page=page: act(page), idle, 300).max())
        ok = shown and panel.state != before and panel.result(page) is not None
        out[page] = {"tab": click, "action": change, "idle": quiet, "ok": ok,
                     "load": os.getloadavg()[0]}
    panel.shutdown()
    return out


def live_main() -> None:
    print(json.dumps(_live_probe()), flush=True)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: nothing of it is measured


def _live_rows() -> list[Row]:
    from relulab.ui.panels.questions.panel import PAGE_TITLES

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=home,
                   RELULAB_DATA_DIR=str(Path(home) / "data"), PYTHONPATH=str(root))
        done = subprocess.run([sys.executable, "-c", "from benchmarks.bench_questions import "
                               "live_main; live_main()"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"the Questions window probe failed:\n{done.stderr[-2000:]}")
    pages = json.loads(done.stdout.strip().splitlines()[-1])
    rows = []
    for page, m in pages.items():
        words = ACTIONS[page][0]
        seeds = f" ({LIVE_SEEDS} seeds)" if LIVE_SEEDS is not None else ""
        rows.append(Row(f"Questions, {PAGE_TITLES[page]}: tab click + {words}{seeds}, "
                        "longest gap", max(m["tab"], m["action"]),
                        f"the idle window, longest gap over {IDLE_SECONDS:g} s", m["idle"],
                        max_seconds=GAP, holds=bool(m["ok"]),
                        note=f"tab click {1e3 * m['tab']:.0f} ms, {words} "
                             f"{1e3 * m['action']:.0f} ms; load average {m['load']:.1f}"
                             + ("" if m["ok"] else "; the page did not finish as expected")))
    return rows


def run() -> list[Row]:
    return _double_descent_rows() + _training_rows() + _part_two_rows() + _live_rows()
