"""The Training panel's experiment as a script: the target's samples, every restart's
first weights from its seed, the numpy reference of the training step (copied from
:mod:`relulab.model.fitting._training_kernels`), and each restart's RMSE."""

from __future__ import annotations

from relulab.io.codegen.sources import Section, constants, literal, source
from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.training import INITS, HingeNetTrainer, init_hinge_net
from relulab.model.lessons.training import TrainingState


def steps_of(state: TrainingState) -> int:
    """The steps the panel made, or (none yet) all its steps."""
    return state.step or state.steps


def sections(state: TrainingState) -> list[Section]:
    target = state.target_function()
    x, y = target.sample(state.points)
    data = (f"x = {literal(x)}\ny = {literal(y)}\n"
            f"DOMAIN = ({float(target.a)!r}, {float(target.b)!r})")
    net = constants(INITS=INITS) + "\n\n\n" + source(init_hinge_net)
    kernel = (constants(OPTIMIZERS=kernels.OPTIMIZERS, _OPT_CODE=kernels._OPT_CODE) + "\n\n\n"
              + source(kernels.advance_numpy, kernels.evaluate_sorted))
    batch = "    " + source(HingeNetTrainer._batches).replace("\n", "\n    ")
    trainer = f'''class Restarts:
    """Every restart's parameters P = [w, b, a, c] (one row each), trained together."""

    def __init__(self, x, y, hidden, seeds, lr, optimizer, batch_size, init, domain):
        order = np.argsort(x, kind="stable")
        self.x, self.y = np.ascontiguousarray(x[order]), np.ascontiguousarray(y[order])
        self.hidden, self.seeds, self.optimizer, self.lr = hidden, tuple(seeds), optimizer, lr
        self.batch_size = None if not batch_size or batch_size >= x.size else batch_size
        R, H = len(self.seeds), hidden
        self.P = np.zeros((R, 3 * H + 1))
        self._rngs = []
        for r, s in enumerate(self.seeds):
            w, b, a, c, rng = init_hinge_net(s, H, domain, init)
            self.P[r, :H], self.P[r, H:2 * H], self.P[r, 2 * H:3 * H], self.P[r, 3 * H] = w, b, a, c
            self._rngs.append(rng)
        self.m, self.v = np.zeros_like(self.P), np.zeros_like(self.P)
        self.diverged_at = np.full(R, -1, dtype=np.int64)
        self._order_left = [np.empty(0, dtype=np.int64) for _ in self.seeds]
        self.step = 0

{batch}

    def run(self, n):
        losses = np.empty((len(self.seeds), n))
        advance_numpy(self.x, self.y, self._batches(n), self.P, self.m, self.v, self.diverged_at,
                      losses, 0, self.step, n, self.hidden, self.optimizer, self.lr,
                      {0.9!r}, {0.999!r}, {1e-8!r}, {0.9!r})
        self.step += n

    def rmse(self):
        H = self.hidden
        P = self.P
        with np.errstate(over="ignore", invalid="ignore"):
            fitted = evaluate_sorted(self.x, P[:, :H], P[:, H:2 * H], P[:, 2 * H:3 * H], P[:, 3 * H])
            rmse = np.sqrt(np.mean((fitted - self.y) ** 2, axis=1))
        rmse[~np.isfinite(rmse)] = np.inf
        return rmse'''
    steps = steps_of(state)
    run = (f"STEPS = {steps}\n"
           f"restarts = Restarts(x, y, {state.hidden!r}, range({state.restarts!r}), {state.lr!r}, "
           f"{state.optimizer!r}, {state.batch_size!r}, {state.init!r}, DOMAIN)\n"
           "restarts.run(STEPS)\n"
           "rmse = restarts.rmse()\n"
           "best = int(np.argmin(np.where((restarts.diverged_at >= 0) | ~np.isfinite(rmse), "
           "np.inf, rmse)))\n"
           f"print(f\"step {{restarts.step:,}} / {state.steps:,}\")\n"
           "print(f\"best: restart {best + 1} of {len(rmse)}, RMSE {rmse[best]:.4f}\")\n"
           "for r, value in enumerate(rmse):\n"
           "    print(f\"rmse[{r}] = {float(value)!r}\")")
    return [
        Section("Imports", "", "import numpy as np"),
        Section("Data", f"The target {target.label} at {state.points} equally spaced points of "
                f"[{target.a:g}, {target.b:g}], as the panel samples it (the values as "
                "numbers: the app parses the formula itself).", data),
        Section("Network", "One hidden layer of ReLU hinges, f(x) = Σ aᵢ·ReLU(wᵢx + bᵢ) + c; "
                "each restart's first weights come from its seed.", net),
        Section("Training step", "The mean squared error and its gradient by prefix sums "
                "over the sorted points, every restart at once (the app's numpy reference; "
                "its compiled loop computes the same to rounding).", kernel),
        Section("Restarts", "", trainer),
        Section("Run", f"Train every restart for {steps} steps and print the RMSE of each.",
                run),
    ]


def header(state: TrainingState) -> str:
    return ("The ReLU Lab Training panel's experiment, exported: it rebuilds the samples,\n"
            f"the {state.restarts} restarts of a 1-{state.hidden}-1 ReLU network and their "
            f"training\nwith numpy alone, and prints each restart's RMSE after "
            f"{steps_of(state)} steps.")
