"""The simplex page's job and words (numpy and the model, no Qt).

The two maps at the user's logit vector are computed at once (three numbers); the
job trains a linear classifier with each link, on the overlapping blobs of the
page's seed (accuracy, zero probabilities, log-loss on the test half) and on the
separable blobs (the weights' norm over training): 3,000 full-batch steps each, the
model tests' settings, about 2 s a run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from relulab.model.lessons.questions import SimplexSettings
from relulab.ui.panels.questions.jobs import Job, _scaled

STEPS = 3000
#: Blobs: the model's learning rate; separable: a larger one, so that the sparsemax
#: fit reaches zero loss well before ``FROM``.
BLOB_LR, SEPARABLE_LR = 0.5, 5.0
#: The step from which the weights' growth is measured.
FROM = 1000
#: Sparsemax "settles" when its weights move less than this share of softmax's growth.
SETTLED = 0.6


@dataclass(frozen=True)
class SimplexRun:
    settings: SimplexSettings
    blobs: tuple[Any, Any]        # LinearFit of softmax, of sparsemax, on the blobs
    separable: tuple[Any, Any]    # the same on the separable blobs


def experiment(s: SimplexSettings) -> SimplexSettings:
    """What the job depends on: the seed, not the logit vector shown."""
    return replace(s, logits=SimplexSettings.logits)


def run_simplex(s: SimplexSettings, should_stop=None) -> Job:
    from relulab.model.questions import simplex as sm

    X, y, Xt, yt = sm.blobs(s.seed)
    Xs, ys = sm.separable(s.seed)
    total, fits = 400, []
    for i, (A, b, kw) in enumerate(((X, y, {"X_test": Xt, "y_test": yt, "lr": BLOB_LR,
                                             "record": [0, STEPS]}),
                                    (Xs, ys, {"lr": SEPARABLE_LR}))):
        for j, link in enumerate(sm.LINKS):
            fit = yield from _scaled(sm.fit_linear_classifier_steps(
                A, b, link, steps=STEPS, should_stop=should_stop, **kw),
                100 * (2 * i + j), 100, total)
            fits.append(fit)
    yield total, total
    return SimplexRun(experiment(s), (fits[0], fits[1]), (fits[2], fits[3]))


def maps(logits) -> dict:
    """Both maps at a logit vector, and how many classes sparsemax gives 0."""
    from relulab.model.questions.simplex import softmax, sparsemax

    soft, sparse = softmax(np.asarray(logits, float)), sparsemax(np.asarray(logits, float))
    return {"softmax": [float(p) for p in soft], "sparsemax": [float(p) for p in sparse],
            "zeros": int(np.sum(sparse == 0))}


def _vector(p) -> str:
    return "(" + ", ".join("0" if v == 0 else f"{v:.2f}".replace("-", "−") for v in p) + ")"


def maps_text(logits) -> str:
    m = maps(logits)
    zeros = {0: "no class", 1: "one class", 2: "two classes"}[m["zeros"]]
    return (f"z = {_vector(logits)}: softmax <b>{_vector(m['softmax'])}</b>, sparsemax "
            f"<b>{_vector(m['sparsemax'])}</b>, {zeros} at exactly 0")


def simplex_numbers(run: SimplexRun) -> dict:
    soft, sparse = run.blobs
    ssoft, ssparse = run.separable
    growth, change = ssoft.growth(FROM), ssparse.change(FROM)
    return {"seed": run.settings.seed, "accuracy_softmax": soft.accuracy,
            "accuracy_sparsemax": sparse.accuracy, "zero_softmax": soft.zero_true,
            "zero_sparsemax": sparse.zero_true, "log_loss_softmax": soft.log_loss,
            "log_loss_sparsemax": sparse.log_loss, "growth_softmax": growth,
            "change_sparsemax": change, "loss_sparsemax": float(ssparse.train_loss[-1]),
            "verdict": "sparsemax settles" if change < SETTLED * growth else "no clear difference"}


def _loss(x: float) -> str:
    return "∞" if not np.isfinite(x) else f"{x:.2f}"


def simplex_verdict(run: SimplexRun) -> str:
    v = simplex_numbers(run)
    head = (f"Both are projections onto the simplex and classify alike (test accuracy "
            f"{v['accuracy_softmax']:.3f} with softmax, {v['accuracy_sparsemax']:.3f} with "
            f"sparsemax); sparsemax gives the true class probability 0 on "
            f"{v['zero_sparsemax']:.1%} of test points, so its log-loss is "
            f"{_loss(v['log_loss_sparsemax'])} (softmax {_loss(v['log_loss_softmax'])}).")
    if v["verdict"] == "sparsemax settles":
        tail = (f" On separable data softmax's weights keep growing ({v['growth_softmax']:+.0%} "
                f"from step {FROM:,} to {STEPS:,}); sparsemax's stop (they move "
                f"{v['change_sparsemax']:.1%}).")
    else:
        tail = (f" On separable data: softmax's weights grow {v['growth_softmax']:+.0%}, "
                f"sparsemax's move {v['change_sparsemax']:.1%}: no clear difference here.")
    return head + tail


def simplex_details(run: SimplexRun) -> str:
    v = simplex_numbers(run)
    return (f"Three Gaussian blobs (seed {v['seed']}), a linear classifier trained {STEPS:,} "
            f"full-batch steps with each link (softmax: cross-entropy; sparsemax: its loss, "
            f"{_loss(v['loss_sparsemax'])} at the end on the separable blobs). Softmax is the "
            "projection in the KL geometry, sparsemax the Euclidean one.")


def simplex_table(run: SimplexRun) -> dict:
    soft, sparse = run.separable
    rows = [[int(t), float(a), float(b)] for t, a, b in zip(soft.record, soft.norms(),
                                                          sparse.norms())]
    v = simplex_numbers(run)
    summary = [[link, v[f"accuracy_{link}"], v[f"zero_{link}"],
                v[f"log_loss_{link}"] if np.isfinite(v[f"log_loss_{link}"]) else "inf"]
               for link in ("softmax", "sparsemax")]
    return {"weights over training": (["step", "|W| softmax", "|W| sparsemax"], rows),
            "blobs": (["link", "test accuracy", "share with p(true) = 0", "log-loss"], summary)}
