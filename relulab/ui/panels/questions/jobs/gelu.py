"""The GELU page's job and words (numpy and the model, no Qt).

The job fits 1-16-1 ReLU and GELU nets (the same initialisations, 3,000 full-batch
Adam steps) to a smooth target, sin(πx), and to a kink, |x|: about 1.5 s with five
seeds. The twin needs no job: ``twin`` builds the GELU net within 0.17/a·Σ|w| of a
ReLU net (the 1-16-1 net ``MLP.random`` draws from seed 0) at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np

from relulab.model.lessons.questions import GeluSettings
from relulab.ui.panels.questions.jobs import Job, _run_steps, model, number

#: Where the twin is drawn and its gap measured.
TWIN_X = np.linspace(-1.0, 1.0, 1001)


@dataclass(frozen=True)
class GeluRun:
    settings: GeluSettings
    fits: Any        # relulab.model.questions.GeluVsRelu


def experiment(s: GeluSettings) -> GeluSettings:
    """What the job depends on: the seeds, not the twin's scale."""
    return replace(s, scale=GeluSettings.scale)


def run_gelu(s: GeluSettings, should_stop=None) -> Job:
    fits = yield from _run_steps(model("gelu_vs_relu"), (), {"seeds": s.seeds}, should_stop)
    return GeluRun(experiment(s), fits)


@dataclass(frozen=True)
class Twin:
    scale: int
    relu: np.ndarray     # the ReLU net at TWIN_X
    gelu: np.ndarray     # its GELU twin at TWIN_X
    gap: float           # max |gelu − relu| on TWIN_X
    bound: float         # 0.17/a · Σ|w_out|


@cache  # five scales, each drawn on every change of state
def twin(scale: int) -> Twin:
    from relulab.model.networks.mlp import MLP
    from relulab.model.questions.gelu import relu_as_gelu, relu_as_gelu_bound

    net = MLP.random([1, 16, 1], seed=0)
    x = TWIN_X[:, None]
    relu = net.forward(x)[-1][:, 0]
    gelu = relu_as_gelu(net, scale).forward(x)[-1][:, 0]
    return Twin(scale, relu, gelu, float(np.max(np.abs(gelu - relu))),
                relu_as_gelu_bound(net, scale))


def twin_text(t: Twin) -> str:
    return (f"a = {t.scale}: the GELU net is within <b>{number(t.gap)}</b> of the ReLU net "
            f"(bound 0.17/a·Σ|w| = {number(t.bound)})")


def gelu_numbers(run: GeluRun) -> dict:
    f = run.fits
    seeds = len(f.seeds)
    out = {"seeds": seeds, "width": f.width, "steps": f.steps}
    for act in f.activations:
        for target in f.targets:
            out[f"{act}_{target}"] = f.median(act, target)
    out["gelu_wins_smooth"] = f.wins("gelu", "smooth")
    out["relu_wins_kink"] = f.wins("relu", "kink")
    out["verdict"] = ("each wins its own target" if out["gelu_wins_smooth"] == seeds
                      and out["relu_wins_kink"] == seeds else "no clear difference")
    return out


def gelu_verdict(run: GeluRun) -> str:
    v = gelu_numbers(run)
    return (f"Neither is more expressive in practice: a GELU net comes within 0.17/a of any "
            f"ReLU net of the same width, and trained alike each wins where its shape fits. "
            f"On the smooth sin(πx) GELU has the smaller error in {v['gelu_wins_smooth']} of "
            f"{v['seeds']} seeds (median {number(v['gelu_smooth'])} vs "
            f"{number(v['relu_smooth'])}); on the kink |x| ReLU in {v['relu_wins_kink']} of "
            f"{v['seeds']} ({number(v['relu_kink'])} vs {number(v['gelu_kink'])}).")


def gelu_details(run: GeluRun) -> str:
    v = gelu_numbers(run)
    return (f"1-{v['width']}-1 nets, the same initialisations, {v['steps']:,} full-batch Adam "
            "steps on 64 points of [−1, 1], test MSE on a finer grid. A GELU net has no "
            "linear regions: the region counts of the other panels do not apply to it.")


def gelu_table(run: GeluRun) -> dict:
    f = run.fits
    rows = [[act, target, int(s), float(f.mse[i, j, k])]
            for i, act in enumerate(f.activations) for j, target in enumerate(f.targets)
            for k, s in enumerate(f.seeds)]
    return {"fits": (["activation", "target", "seed", "test MSE"], rows)}


def twin_table(t: Twin) -> tuple[list, list]:
    return (["x", "ReLU net", f"GELU twin, a = {t.scale}"],
            [[float(x), float(r), float(g)] for x, r, g in zip(TWIN_X, t.relu, t.gelu)])
