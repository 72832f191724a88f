"""Regions against depth: random ReLU networks of one parameter budget, from wide and
shallow to narrow and deep, and the exact number of linear regions each carves out
of a box (the open questions' third clue).

A dense network with sizes n₀, n₁, …, n_L has Σ_{l=1}^{L} (n_{l−1} + 1)·n_l
parameters. For input 2, output 1 and ``depth`` hidden layers of width w that is

    P(w) = 3w + (depth − 1)(w + 1)w + (w + 1),

and :func:`width_for_budget` picks the w whose P(w) is closest to the budget.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from relulab.model.networks.mlp import MLP


def parameter_count(sizes: Sequence[int]) -> int:
    """Σ (n_{l−1} + 1)·n_l: 177 for [2, 8, 8, 8, 1], 25 for [2, 6, 1]."""
    sizes = [int(s) for s in sizes]
    if len(sizes) < 2 or min(sizes) < 1:
        raise ValueError(f"sizes must list at least two positive layer sizes, got {sizes}")
    return sum((a + 1) * b for a, b in itertools.pairwise(sizes))


def width_for_budget(budget: int, depth: int, n_in: int = 2, n_out: int = 1) -> int:
    """The width w ≥ 1 of ``depth`` equal hidden layers whose parameter count is
    closest to ``budget`` (the smaller w on a tie)."""
    if depth < 1:
        raise ValueError(f"depth must be ≥ 1, got {depth}")
    best, best_gap = 1, None
    w = 1
    while True:
        p = parameter_count([n_in] + [w] * depth + [n_out])
        gap = abs(p - budget)
        if best_gap is None or gap < best_gap:
            best, best_gap = w, gap
        if p > budget:
            return best
        w += 1


def budget_architectures(budget: int, depths: Sequence[int] = (1, 2, 3, 4),
                         n_in: int = 2, n_out: int = 1) -> list[list[int]]:
    """For each depth, the sizes [n_in, w, …, w, n_out] nearest to the budget."""
    return [[n_in] + [width_for_budget(budget, d, n_in, n_out)] * d + [n_out] for d in depths]


@dataclass(frozen=True)
class DepthSample:
    """One random network of the experiment and its exact region count."""

    depth: int
    sizes: tuple[int, ...]
    params: int
    seed: int
    regions: int


def count_regions_in_box(net: MLP, box) -> int:
    """The number of activation regions of ``net`` with area inside ``box``, from the
    exact region engine (``relulab.model.regions.activation.count_linear_regions``)."""
    from relulab.model.regions.activation import count_linear_regions

    return count_linear_regions(net, tuple(float(v) for v in box))


def regions_against_depth(budget: int = 80, depths: Sequence[int] = (1, 2, 3, 4),
                          seeds: Sequence[int] = range(5), box=(-1.0, 1.0, -1.0, 1.0),
                          count: Callable[[MLP, tuple], int] | None = None) -> Iterator[DepthSample]:
    """Yield one :class:`DepthSample` per (depth, seed): a He-initialised random ReLU
    network (``MLP.random(sizes, seed)``) of about ``budget`` parameters, and the exact
    number of its linear (activation) regions meeting ``box`` = (x_min, x_max, y_min, y_max),
    counted by the region enumeration, never by sampling."""
    counter = count or count_regions_in_box
    for sizes in budget_architectures(budget, depths):
        depth = len(sizes) - 2
        for seed in seeds:
            net = MLP.random(sizes, seed=int(seed) + 1000 * depth)
            yield DepthSample(depth, tuple(sizes), parameter_count(sizes), int(seed),
                              counter(net, tuple(box)))


def summarise(samples: Sequence[DepthSample]) -> list[tuple[int, float, int, int]]:
    """Per depth: (depth, mean regions, min, max)."""
    out = []
    for d in sorted({s.depth for s in samples}):
        counts = np.array([s.regions for s in samples if s.depth == d])
        out.append((d, float(counts.mean()), int(counts.min()), int(counts.max())))
    return out
