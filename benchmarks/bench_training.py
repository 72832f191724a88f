"""Training speed: the notebook's experiment against the notebook's loop, the cost of a step
against the dense formulation, and how the event loop answers while the Training panel
trains, pauses and replays at the largest settings its controls allow."""

from __future__ import annotations

import time

import numpy as np

from benchmarks.common import Row, click_latency, event_loop_delays, fmt_time, median_time, small
from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.training import (
    MAX_POINTS,
    MAX_RESTARTS,
    MAX_STEPS,
    MAX_WIDTH,
    HingeNetTrainer,
    train_hinge_net,
)
from relulab.model.lessons.training import TrainingState

#: the largest settings the Training panel's controls allow (small ones in a smoke run)
RESTARTS, WIDTH, POINTS = small(MAX_RESTARTS, 2), small(MAX_WIDTH, 8), small(MAX_POINTS, 100)
LARGEST = {"restarts": RESTARTS, "hidden": WIDTH, "points": POINTS}
#: the notebook's Adam steps per restart
STEPS = small(20_000, 200)
#: clicks on Pause per measurement
CLICKS = small(5, 1)
#: the replayed state's step
REPLAY = small(2000, 50)


def relu(z):
    return np.maximum(0, z)


def notebook_train(x, target, seed, hidden=12, learning_rate=0.01, steps=STEPS):
    """The notebook's per-restart loop, as it writes it (the baseline)."""
    rng = np.random.default_rng(seed)
    w = rng.choice([-1, 1], hidden) * rng.uniform(0.5, 1.5, hidden)
    params = [w, -w * rng.uniform(-3, 3, hidden), rng.normal(0, 0.1, hidden), np.zeros(1)]
    m, v = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        z = x[:, None] * params[0] + params[1]
        h = relu(z)
        error = h @ params[2] + params[3][0] - target
        d_out = 2 * error / len(x)
        d_hidden = d_out[:, None] * params[2] * (z > 0)
        grads = [(d_hidden * x[:, None]).sum(axis=0), d_hidden.sum(axis=0), h.T @ d_out,
                 np.array([d_out.sum()])]
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g ** 2
            params[i] -= learning_rate * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    return np.sqrt(np.mean(error ** 2)), params


def dense_step_factory(x, y, hidden, restarts):
    """One Adam step of the dense restarts × points × hidden formulation, vectorised in numpy."""
    rng = np.random.default_rng(0)
    w = rng.choice([-1, 1], (restarts, hidden)) * rng.uniform(0.5, 1.5, (restarts, hidden))
    P = [w, -w * rng.uniform(-3, 3, (restarts, hidden)), rng.normal(0, 0.1, (restarts, hidden)),
         np.zeros((restarts, 1))]
    m = [np.zeros_like(p) for p in P]
    v = [np.zeros_like(p) for p in P]
    state = {"t": 0}

    def step():
        state["t"] += 1
        t = state["t"]
        z = x[None, :, None] * P[0][:, None, :] + P[1][:, None, :]       # (R, N, H)
        h = relu(z)
        err = np.einsum("rnh,rh->rn", h, P[2]) + P[3] - y
        d_out = 2 * err / x.size
        d_hidden = d_out[:, :, None] * P[2][:, None, :] * (z > 0)
        grads = [np.einsum("rnh,n->rh", d_hidden, x), d_hidden.sum(axis=1),
                 np.einsum("rnh,rn->rh", h, d_out), d_out.sum(axis=1, keepdims=True)]
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g ** 2
            P[i] -= 0.01 * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)

    return step


def per_step(trainer: HingeNetTrainer, steps: int) -> float:
    return median_time(lambda: trainer.run(steps), repeat=3) / steps


def model_rows() -> list[Row]:
    x = np.linspace(-3, 3, 400)
    y = np.sin(2 * x) + 0.3 * x ** 2
    t0 = time.perf_counter()
    ours = train_hinge_net(x, y, hidden=12, seeds=range(6), steps=STEPS, lr=0.01)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    reference = train_hinge_net(x, y, hidden=12, seeds=range(6), steps=STEPS, lr=0.01,
                                backend="numpy")
    t_numpy = time.perf_counter() - t0
    t0 = time.perf_counter()
    base = [notebook_train(x, y, s)[0] for s in range(6)]
    t_base = time.perf_counter() - t0
    print(f"  final RMSE, compiled: {np.round(ours.rmse, 4)}")
    print(f"  final RMSE, numpy:    {np.round(reference.rmse, 4)}")
    print(f"  final RMSE, notebook: {np.round(base, 4)}")
    rows = [Row(f"the notebook's 6 restarts × {STEPS:,} Adam steps (compiled prefix sums)", t_ours,
                "notebook's per-restart numpy loop", t_base, min_ratio=10.0),
            Row("the notebook's run: the same, numpy prefix-sum reference (no numba)", t_numpy,
                "notebook's per-restart numpy loop", t_base, min_ratio=1.0)]
    x4 = np.linspace(-3, 3, POINTS)
    y4 = np.sin(2 * x4) + 0.3 * x4 ** 2
    for hidden, target in small(((12, 3.0), (64, 10.0), (MAX_WIDTH, 30.0)), ((12, 3.0),)):
        trainer = HingeNetTrainer(x4, y4, hidden=hidden, seeds=range(6), lr=0.01)
        ours = per_step(trainer, small(200 if hidden < 256 else 100, 10))
        dense = median_time(dense_step_factory(x4, y4, hidden, 6), repeat=5)
        rows.append(Row(f"one step, H = {hidden}, {POINTS} points, 6 restarts", ours,
                        "dense restarts × points × hidden numpy step", dense, min_ratio=target))
    return rows


def _panel(restarts, hidden, points):
    from relulab.ui.panels.training import TrainingPanel

    panel = TrainingPanel()
    panel.resize(1280, 800)
    panel.show()
    panel.load_state(TrainingState(restarts=restarts, hidden=hidden, points=points,
                                   steps=MAX_STEPS).to_dict())
    panel.driver.draw_all()
    return panel


def _close(panel) -> None:
    from PySide6.QtWidgets import QApplication

    panel.shutdown()
    panel.close()
    panel.deleteLater()
    QApplication.processEvents()


def panel_rows() -> list[Row]:
    rows = []
    for restarts, hidden, points in small(((6, 12, 400), (RESTARTS, WIDTH, POINTS)),
                                          ((RESTARTS, WIDTH, POINTS),)):
        panel = _panel(restarts, hidden, points)
        idle = event_loop_delays(lambda: None, seconds=1.0)
        busy = event_loop_delays(panel.play, seconds=3.0)
        steps = panel.trainer.step
        latencies, gaps = [], []
        for _ in range(CLICKS):
            lat, gap = click_latency(panel.pause, lambda: panel.driver.busy)
            latencies.append(lat)
            gaps.append(gap)
            event_loop_delays(panel.play, seconds=0.5)
        panel.pause()
        panel.driver.draw_all()
        _close(panel)
        size = f"{restarts} × H {hidden}, {points} pts"
        print(f"  panel, {size}: {steps:,} steps in 3 s; probe delay median "
              f"{fmt_time(np.median(busy))}, 95th percentile {fmt_time(np.percentile(busy, 95))}, "
              f"max {fmt_time(busy.max())}; pause {', '.join(fmt_time(v) for v in latencies)}")
        rows.append(Row(f"event loop delay while training, max ({size})", float(busy.max()),
                        "the same probe, panel idle (max)", float(idle.max()), max_seconds=0.05,
                        note=f"95th percentile {fmt_time(np.percentile(busy, 95))}; "
                             f"{steps / 3:,.0f} steps/s"))
        rows.append(Row(f"pause: click to training stopped, median of {CLICKS} ({size})",
                        float(np.median(latencies)), "the same probe, panel idle (max)",
                        float(idle.max()), max_seconds=0.05,
                        note=f"worst of {CLICKS}: {fmt_time(max(latencies))}"))
        rows.append(Row(f"pause: event loop delay until the final frame is drawn ({size})",
                        float(np.median(gaps)), "the same probe, panel idle (max)",
                        float(idle.max()), max_seconds=0.05,
                        note=f"worst of {CLICKS}: {fmt_time(max(gaps))}"))
    rows.append(_throughput_row())
    rows.append(_replay_row())
    return rows


def _throughput_row() -> Row:
    """Steps per second in the panel at the largest settings, against the trainer alone:
    what drawing and the event loop cost."""
    panel = _panel(RESTARTS, WIDTH, POINTS)
    event_loop_delays(panel.play, seconds=0.5)
    start, t0 = panel.trainer.step, time.perf_counter()
    event_loop_delays(lambda: None, seconds=3.0)
    in_panel = (time.perf_counter() - t0) / max(1, panel.trainer.step - start)
    panel.pause()
    trainer = TrainingState(**LARGEST).trainer()
    alone = per_step(trainer, small(50, 10))
    _close(panel)
    return Row(f"training in the panel, seconds per step ({RESTARTS} × H {WIDTH}, "
               f"{POINTS} pts)", in_panel, "the trainer alone, no drawing", alone,
               min_ratio=0.4, note="a tick trains for 8 of its 10 ms, less while a frame is drawn")


def _replay_row() -> Row:
    """Loading a state whose steps take seconds to replay: the worker replays them while
    the window answers."""
    panel = _panel(RESTARTS, WIDTH, POINTS)
    state = TrainingState(**LARGEST, steps=MAX_STEPS, step=REPLAY).to_dict()
    t0 = time.perf_counter()
    delays = event_loop_delays(lambda: panel.load_state(state),
                               done=lambda: panel.trainer.step == REPLAY and not panel.driver.busy,
                               seconds=60.0)
    took = time.perf_counter() - t0
    done = panel.trainer.step == REPLAY
    _close(panel)
    return Row(f"load a state of {REPLAY} steps at the largest settings: event loop delay, max",
               float(delays.max()), "—", float("nan"), max_seconds=0.05,
               note=f"replayed on a worker in {fmt_time(took)}" if done else "not replayed in 60 s",
               holds=done)


def run() -> list[Row]:
    from relulab.app import ensure_application

    kernels.compiled_available()  # compile (or load the cache) before timing
    ensure_application()
    return model_rows() + panel_rows()
