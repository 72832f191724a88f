"""Parameter budgets and the regions-against-depth experiment."""

import pytest

from relulab.model.networks.mlp import MLP
from relulab.model.regions.depth import (
    budget_architectures,
    parameter_count,
    regions_against_depth,
    summarise,
    width_for_budget,
)


def test_parameter_counts():
    assert parameter_count([2, 8, 8, 8, 1]) == 177 == MLP.random([2, 8, 8, 8, 1]).n_params
    assert parameter_count([2, 6, 1]) == 25
    with pytest.raises(ValueError):
        parameter_count([2])


def test_budget_177_gives_three_exact_shapes():
    archs = budget_architectures(177, (1, 2, 3))
    assert archs == [[2, 44, 1], [2, 11, 11, 1], [2, 8, 8, 8, 1]]
    assert all(parameter_count(a) == 177 for a in archs)
    assert width_for_budget(1, 1) == 1


def test_experiment_uses_the_counter_on_each_network():
    seen = []

    def fake_count(net, box):
        seen.append((tuple(net.sizes), box))
        return len(seen)

    samples = list(regions_against_depth(50, (1, 2), seeds=range(3), count=fake_count))
    assert [s.depth for s in samples] == [1, 1, 1, 2, 2, 2]
    assert seen[0] == ((2, 12, 1), (-1.0, 1.0, -1.0, 1.0))
    assert summarise(samples) == [(1, 2.0, 1, 3), (2, 5.0, 4, 6)]


def test_real_counts_are_exact_region_counts():
    from math import comb

    from relulab.model.regions.activation import linear_regions, region_polygons, regions_in_box

    box = (-1.0, 1.0, -1.0, 1.0)
    samples = list(regions_against_depth(30, (1, 2), seeds=range(2), box=box))
    for s in samples:
        net = MLP.random(list(s.sizes), seed=s.seed + 1000 * s.depth)
        assert s.regions == len(region_polygons(net, box))
        assert s.regions == len(regions_in_box(linear_regions(net), box))  # clipped from R²
        if s.depth == 1:  # n lines cut the plane into at most 1 + n + C(n, 2) pieces
            n = s.sizes[1]
            assert s.regions <= 1 + n + comb(n, 2)
