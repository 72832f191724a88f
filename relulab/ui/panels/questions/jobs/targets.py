"""The targets page's job and words (numpy and the model, no Qt).

Four Gaussian blobs, classes 1 and 2 close together (the look-alikes), 3 and 4 far
away. The job, seed by seed (each seed's numbers do not depend on the others): a
softmax classifier trained on one-hot labels, and the probabilities it gives points of
class 1; a student of ``STUDENT_POINTS`` points a class trained on their one-hot labels
and on a teacher's probabilities. About 3 s with five seeds.

Not claimed, because it does not hold reliably (4–7 of 10 seeds in the prototypes):
that hierarchy-aware labels or label smoothing improve on one-hot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relulab.model.lessons.questions import TargetsSettings
from relulab.ui.panels.questions.jobs import Job

#: The students' points a class (the setting the model's tests measure over 10 seeds).
STUDENT_POINTS = 2


@dataclass(frozen=True)
class TargetsRun:
    settings: TargetsSettings
    lookalike: np.ndarray    # per seed: mean probability of the look-alike class
    others: np.ndarray       # per seed: mean probability of each far class
    one_hot: np.ndarray      # per seed: the student's test accuracy on one-hot labels
    soft: np.ndarray         # the same on the teacher's soft targets


def run_targets(s: TargetsSettings, should_stop=None) -> Job:
    from relulab.model.core.cancel import check
    from relulab.model.questions.targets import one_hot_similarity, soft_targets

    total = 2 * s.seeds
    look, far, hard, soft = [], [], [], []
    for i in range(s.seeds):
        yield 2 * i, total
        check(should_stop, "training")
        sim = one_hot_similarity([i])
        look.append(float(sim.lookalike[0]))
        far.append(float(sim.others[0]))
        yield 2 * i + 1, total
        check(should_stop, "training")
        st = soft_targets([i], n_per_class=STUDENT_POINTS)
        hard.append(float(st.one_hot[0]))
        soft.append(float(st.soft[0]))
    yield total, total
    return TargetsRun(s, *(np.array(v) for v in (look, far, hard, soft)))


def targets_numbers(run: TargetsRun) -> dict:
    gain = run.soft - run.one_hot
    seeds = len(gain)
    helped = int(np.sum(gain > 0))
    return {"seeds": seeds, "lookalike": float(np.median(run.lookalike)),
            "others": float(np.median(run.others)),
            "lookalike_min": float(run.lookalike.min()), "others_max": float(run.others.max()),
            "gain": float(np.median(gain)), "helped": helped,
            "one_hot": float(np.median(run.one_hot)), "soft": float(np.median(run.soft)),
            "verdict": "soft targets help" if helped == seeds else "no clear difference"}


def targets_verdict(run: TargetsRun) -> str:
    from relulab.ui.panels.questions.jobs import number

    v = targets_numbers(run)
    head = (f"One-hot labels do not hide similarity: trained on them, the classifier gives a "
            f"point of class 1 a probability {number(v['lookalike'])} of its look-alike class "
            f"2 against {number(v['others'])} of each far class (medians of {v['seeds']} "
            "seeds): it learns which classes look alike on its own. ")
    if v["verdict"] == "soft targets help":
        tail = (f"A teacher's soft targets still add: a student of {STUDENT_POINTS} points a "
                f"class scores higher with them in all {v['seeds']} seeds (median "
                f"{100 * v['gain']:+.1f} points).")
    else:
        tail = (f"A teacher's soft targets raise a student of {STUDENT_POINTS} points a class "
                f"in {v['helped']} of {v['seeds']} seeds only (median "
                f"{100 * v['gain']:+.1f} points).")
    return head + tail


def targets_details(run: TargetsRun) -> str:
    v = targets_numbers(run)
    return (f"The student's test accuracy, medians: {v['one_hot']:.3f} on one-hot labels, "
            f"{v['soft']:.3f} on soft targets (the teacher: the same classifier trained on "
            "500 points a class). Hierarchy-aware labels or label smoothing are not shown: "
            "they help in only some seeds.")


def targets_table(run: TargetsRun) -> dict:
    rows = [[i, float(a), float(b), float(c), float(d)] for i, (a, b, c, d) in enumerate(
        zip(run.lookalike, run.others, run.one_hot, run.soft))]
    return {"targets": (["seed", "p(look-alike)", "p(each far class)",
                         "student, one-hot", "student, soft targets"], rows)}
