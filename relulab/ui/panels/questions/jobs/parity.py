"""The parity page's job and words (numpy and the model, no Qt).

The race: parity and majority of the same k of 30 random ±1 bits, a 30-256-1 ReLU net
trained online (the model's defaults: SGD, lr 0.1, batch 32, weight decay 0.01) for at
most ``RACE_STEPS`` steps; then 1-nearest-neighbour and the same kind of net on full
10-bit parity, trained on half of all strings. With the page's defaults (k = 3, five
seeds) a run takes about 4–5 s on one core; ten seeds about 10 s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from relulab.model.lessons.questions import ParitySettings
from relulab.ui.panels.questions.jobs import Job, _run_steps, _scaled, model

N_BITS = 30
#: The race's longest run: parity of 3 or 4 bits reaches 95% in 900–1,600 steps (seeds
#: 0–9); a seed that has not by then is reported as not reaching it.
RACE_STEPS = 3000
#: Full parity: bits, and the share of all 2^10 strings the learners see.
FULL_BITS = 10


@dataclass(frozen=True)
class ParityRun:
    settings: ParitySettings
    race: Any                 # relulab.model.questions.ParityRace
    nearest: tuple[float, ...]  # 1-NN test accuracy on full parity, per seed
    mlp: tuple[float, ...]      # the net's test accuracy on full parity, per seed


def run_parity(s: ParitySettings, should_stop=None) -> Job:
    from relulab.model.questions import parity

    total = 100
    race = yield from _scaled(parity.parity_race_steps(
        N_BITS, s.k, steps=RACE_STEPS, seeds=s.seeds, should_stop=should_stop), 0, 80, total)
    nearest = tuple(parity.nearest_neighbour_parity(FULL_BITS, seed) for seed in range(s.seeds))
    mlp = yield from _scaled(_run_steps(model("mlp_full_parity"), (FULL_BITS, s.seeds), {},
                                        should_stop), 80, 20, total)
    yield total, total
    return ParityRun(s, race, nearest, tuple(float(a) for a in mlp))


def _steps(values) -> list[float]:
    return [np.inf if v is None else float(v) for v in values]


def parity_numbers(run: ParityRun) -> dict:
    """The numbers the page states, read from the run's result objects."""
    race = run.race
    par, maj = _steps(race.parity_steps), _steps(race.majority_steps)
    seeds = len(par)
    reached = sum(np.isfinite(par))
    slower = sum(p > m for p, m in zip(par, maj))
    return {"k": run.settings.k, "bits": N_BITS, "seeds": seeds,
            "median_majority": float(np.median(maj)), "median_parity": float(np.median(par)),
            "fastest_parity": float(min(par)), "slowest_parity": float(max(par)),
            "parity_reached": int(reached), "parity_slower": int(slower),
            "race_steps": RACE_STEPS,
            "nearest": float(np.median(run.nearest)), "nearest_max": float(max(run.nearest)),
            "mlp": float(np.median(run.mlp)), "mlp_min": float(min(run.mlp)),
            "verdict": "parity is slower" if slower == seeds else "no clear difference"}


def _steps_text(x: float) -> str:
    return f"{x:,.0f}" if np.isfinite(x) else f"more than {RACE_STEPS:,}"


def parity_verdict(run: ParityRun) -> str:
    v = parity_numbers(run)
    if v["parity_slower"] == v["seeds"]:
        head = (f"Parity of {v['k']} bits is slower than their majority in all {v['seeds']} "
                f"seeds: 95% test accuracy after a median {_steps_text(v['median_parity'])} "
                f"steps against {_steps_text(v['median_majority'])}")
    else:
        head = (f"Parity of {v['k']} bits is slower than their majority in "
                f"{v['parity_slower']} of {v['seeds']} seeds (medians "
                f"{_steps_text(v['median_parity'])} and {_steps_text(v['median_majority'])} "
                f"steps)")
    if v["parity_reached"] < v["seeds"]:
        head += (f"; {v['seeds'] - v['parity_reached']} seeds do not reach 95% within "
                 f"{RACE_STEPS:,} steps")
    return (head + f". On full {FULL_BITS}-bit parity, 1-nearest-neighbour scores "
            f"{v['nearest']:.0%} on unseen strings, a net {v['mlp']:.0%}: what fails is "
            "similarity, and for SGD sparse parity.")


def parity_details(run: ParityRun) -> str:
    v = parity_numbers(run)
    race = run.race
    per = ", ".join(f"{_steps_text(p)}" for p in _steps(race.parity_steps))
    return (f"Steps to 95% for parity, seed by seed: {per}; its test accuracy stays near "
            f"chance until shortly before (hidden progress). {v['bits']} random ±1 bits, a "
            f"{v['bits']}-{race.hidden}-1 ReLU net, SGD. Full parity: trained on half of all "
            f"{2 ** FULL_BITS:,} strings, the net scores at least {v['mlp_min']:.0%} on the "
            "other half in every seed.")


def parity_table(run: ParityRun) -> dict:
    race = run.race
    rows = [[int(seed), m, p, float(nn), float(a)] for seed, m, p, nn, a in zip(
        race.seeds, race.majority_steps, race.parity_steps, run.nearest, run.mlp)]
    curves = [[int(t), *map(float, race.parity_accuracy[:, i]),
               *map(float, race.majority_accuracy[:, i])]
              for i, t in enumerate(race.checkpoints) if not np.isnan(race.parity_accuracy[:, i]).all()]
    names = [f"parity seed {s}" for s in race.seeds] + [f"majority seed {s}" for s in race.seeds]
    return {"race": (["seed", "majority: steps to 95%", "parity: steps to 95%",
                      "1-NN on full parity", "net on full parity"], rows),
            "test accuracy": (["step", *names], curves)}
