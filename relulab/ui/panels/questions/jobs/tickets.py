"""The lottery-ticket page's job and words (numpy and the model, no Qt).

One round of magnitude pruning per seed on the two spirals: a dense 2-128-1 net,
10% of each layer's weights kept, three sparse nets retrained from scratch for
``STEPS`` Adam steps (the setting the model's tests measure over 10 seeds): about 2 s
a seed, in the background with progress.

What the page claims is only what holds in every seed: the mask matters (the pruned
mask beats a random mask of the same size). The rewound ticket against a fresh
initialisation of the same mask is a coin toss (3 of 10 seeds at 1,000 steps, 7 of 10
at 2,000): the page shows the count and never calls it a win.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from relulab.model.lessons.questions import TicketsSettings
from relulab.ui.panels.questions.jobs import Job, _run_steps, model

STEPS = 1000
PHASE_NAMES = {"dense": "dense net", "ticket": "ticket (mask, rewound)",
               "random_mask": "random mask", "reinit": "mask, new initialisation"}


@dataclass(frozen=True)
class TicketsRun:
    settings: TicketsSettings
    tickets: Any      # relulab.model.questions.LotteryTickets


def run_tickets(s: TicketsSettings, should_stop=None) -> Job:
    tickets = yield from _run_steps(model("lottery_tickets"), (s.seeds,), {"steps": STEPS},
                                    should_stop)
    return TicketsRun(s, tickets)


def tickets_numbers(run: TicketsRun) -> dict:
    t = run.tickets
    margin = t.mask_margin()
    seeds = len(t.seeds)
    mask_wins = int(np.sum(margin > 0))
    return {"seeds": seeds, "width": t.width, "keep": t.keep, "steps": t.steps,
            "mask_wins": mask_wins, "margin": float(np.median(margin)),
            "margin_min": float(margin.min()), "margin_max": float(margin.max()),
            "ticket_beats_reinit": t.ticket_beats_reinit(),
            "dense": float(np.median(t.of("dense"))), "ticket": float(np.median(t.of("ticket"))),
            "random_mask": float(np.median(t.of("random_mask"))),
            "reinit": float(np.median(t.of("reinit"))),
            "verdict": "the mask matters" if mask_wins == seeds else "no clear difference"}


def tickets_verdict(run: TicketsRun) -> str:
    v = tickets_numbers(run)
    if v["verdict"] == "the mask matters":
        head = (f"The mask matters: keeping the {v['keep']:.0%} largest weights of a trained "
                f"net and retraining from its start beats a random mask of the same size in "
                f"all {v['seeds']} seeds (by {100 * v['margin_min']:.1f} to "
                f"{100 * v['margin_max']:.1f} points). ")
    else:
        head = (f"The pruned mask beats a random mask of the same size in {v['mask_wins']} of "
                f"{v['seeds']} seeds only (median {100 * v['margin']:+.1f} points). ")
    return head + (f"The rewound initialisation is not reliably a winning ticket: it beats a "
                   f"fresh initialisation of the same mask in {v['ticket_beats_reinit']} of "
                   f"{v['seeds']} seeds.")


def tickets_details(run: TicketsRun) -> str:
    v = tickets_numbers(run)
    return (f"Two spirals, a 2-{v['width']}-1 net, {v['steps']:,} Adam steps each. Test "
            f"accuracy, medians: dense {v['dense']:.3f}, ticket {v['ticket']:.3f}, random "
            f"mask {v['random_mask']:.3f}, mask with a new initialisation {v['reinit']:.3f}.")


def tickets_table(run: TicketsRun) -> dict:
    t = run.tickets
    rows = [[int(s), *(float(t.of(p)[i]) for p in PHASE_NAMES)] for i, s in enumerate(t.seeds)]
    return {"lottery tickets": (["seed", *PHASE_NAMES.values()], rows)}
