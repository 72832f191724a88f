"""The why-deep page's job and words (numpy and the model, no Qt).

The job scores a classifier on the single feature x1·x2 and a 2-16-16-1 ReLU net
(Adam, 2,000 full-batch steps, the Playground's settings) on the Playground's XOR,
circles, spirals and Gaussian blobs, on fresh test points: about 5 s with five seeds.
The deep square needs no job: ``square`` builds Yarotsky's net of depth m and its
exact error at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from relulab.model.lessons.questions import WhyDeepSettings
from relulab.ui.panels.questions.jobs import Job, _scaled


@dataclass(frozen=True)
class WhyDeepRun:
    settings: WhyDeepSettings
    feature: Any     # relulab.model.questions.FeatureScores, the feature x1·x2
    net: Any         # the same for the 2-16-16-1 nets


def experiment(s: WhyDeepSettings) -> WhyDeepSettings:
    """What the job depends on: the seeds, not the depth of the square shown."""
    return replace(s, m=WhyDeepSettings.m)


def run_why_deep(s: WhyDeepSettings, should_stop=None) -> Job:
    from relulab.model.questions import why_deep as wd

    yield 0, 100
    feature = wd.product_feature(wd.DATASETS, s.seeds)
    net = yield from _scaled(wd.hidden_layer_fits_steps(wd.DATASETS, s.seeds,
                                                        should_stop=should_stop), 5, 95, 100)
    yield 100, 100
    return WhyDeepRun(experiment(s), feature, net)


@dataclass(frozen=True)
class Square:
    m: int
    net: Any             # relulab.model.MLP, 1 → 3 → … → 3 → 1
    error: Fraction      # max over [0, 1] of |f_m − x²|, exactly
    neurons: int


@cache  # a few depths, each drawn on every change of state
def square(m: int) -> Square:
    from relulab.model.questions.why_deep import deep_square, exact_max_error

    net = deep_square(m)
    return Square(m, net, exact_max_error(net), int(net.n_hidden_neurons))


#: The datasets' names as the page writes them (the model's "gaussians" are blobs).
DATASET_NAMES = {"xor": "XOR", "circles": "circles", "spirals": "spirals",
                 "gaussians": "blobs"}


def square_text(sq: Square) -> str:
    layers = "layer" if sq.m == 1 else "layers"
    return (f"m = {sq.m}: {sq.neurons} ReLUs in {sq.m} {layers}, max |f<sub>m</sub> − x²| = "
            f"<b>{sq.error}</b> = {float(sq.error)!r} = 4<sup>−{sq.m + 1}</sup> exactly")


def why_deep_numbers(run: WhyDeepRun) -> dict:
    from relulab.model.questions.why_deep import SOLVED

    names = run.net.datasets
    feature = {n: run.feature.median(n) for n in names}
    net = {n: run.net.median(n) for n in names}
    solved = [n for n in names if net[n] >= SOLVED]
    feature_fails = [n for n in names if feature[n] < SOLVED]
    out = {f"feature_{n}": v for n, v in feature.items()}
    out.update({f"net_{n}": v for n, v in net.items()})
    out.update(seeds=len(run.net.seeds), net_solves=len(solved), datasets=len(names),
               feature_fails=len(feature_fails), net_lowest=min(net.values()),
               verdict="the net solves all four" if len(solved) == len(names) and feature_fails
               else "no clear difference")
    return out


def why_deep_verdict(run: WhyDeepRun) -> str:
    v = why_deep_numbers(run)
    head = (f"The feature x1·x2 alone scores {v['feature_xor']:.3f} on XOR but "
            f"{v['feature_circles']:.3f} on the circles and {v['feature_spirals']:.3f} on the "
            f"spirals: it suits one dataset. ")
    if v["net_solves"] == v["datasets"]:
        body = (f"A 2-16-16-1 net learns its own features and scores at least "
                f"{v['net_lowest']:.3f} on all four (medians of {v['seeds']} seeds). ")
    else:
        body = (f"A 2-16-16-1 net reaches 0.9 on {v['net_solves']} of the {v['datasets']} "
                f"datasets here. ")
    return head + body + ("Depth can make the product itself: m layers of 3 ReLUs compute "
                          "x² within 4⁻⁽ᵐ⁺¹⁾.")


def why_deep_details(run: WhyDeepRun) -> str:
    v = why_deep_numbers(run)
    names = run.net.datasets
    rows = "; ".join(f"{DATASET_NAMES.get(n, n)}: {v[f'feature_{n}']:.3f} vs "
                     f"{v[f'net_{n}']:.3f}" for n in names)
    return (f"Test accuracy on fresh points, x1·x2 vs the net (medians): {rows}. With "
            "x·y = ((x + y)² − x² − y²)/2, the square gives the product.")


def why_deep_table(run: WhyDeepRun) -> dict:
    rows = [[n, int(s), float(run.feature.accuracy[i, j]), float(run.net.accuracy[i, j])]
            for i, n in enumerate(run.net.datasets) for j, s in enumerate(run.net.seeds)]
    return {"accuracy": (["dataset", "seed", "x1·x2 alone", "2-16-16-1 net"], rows)}


def square_table(sq: Square, points: int = 257) -> tuple[list, list]:
    x = np.linspace(0.0, 1.0, points)
    y = sq.net.forward(x[:, None])[-1][:, 0]
    return ["x", "x²", f"f_{sq.m}(x)"], [[float(a), float(a * a), float(b)] for a, b in zip(x, y)]
