"""What ``relulab convert`` and ``relulab slice`` count before building: the parameters
and NPZ bytes of what they will write exactly, JSON's bytes never more than it takes,
and a lower bound on the regions that is never above the exact count."""

import numpy as np
import pytest

from relulab.commands import _plan
from relulab.io.networks import network_to_bytes
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import linear_regions
from relulab.model.shallow.construction import big_m_network, convert, region_constraints


def _degenerate():
    """Lines through one point, duplicate and dead neurons, zero biases."""
    W1 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, -1.0], [0.0, 0.0]])
    W2 = np.array([[1.0, -1.0, 0.5, 0.5, 2.0, 1.0], [0.0, 1.0, -1.0, 0.0, 1.0, 0.0]])
    return MLP([(W1, np.zeros(6)), (W2, np.zeros(2)), (np.ones((1, 2)), np.zeros(1))])


NETWORKS = {
    "2-D": MLP.random([2, 8, 8, 3], seed=2),
    "2-D deep": MLP.random([2, 5, 5, 5, 1], seed=4),
    "3-D": MLP.random([3, 5, 4, 2], seed=0),
    "4-D": MLP.random([4, 4, 4, 1], seed=1),
    "degenerate": _degenerate(),
}


@pytest.mark.parametrize("name", list(NETWORKS))
def test_the_counts_before_building_are_those_of_the_network_built(name):
    net = NETWORKS[name]
    regions = linear_regions(net)
    _, _, strict, _ = region_constraints(regions)
    layout = _plan.extended_layout(net.n_in, len(strict), len(regions), net.n_out,
                                   int(strict.sum()))
    shallow = convert(net, regions=regions).shallow
    assert layout.sizes == shallow.sizes and layout.parameters == shallow.n_params
    assert layout.npz_bytes() == len(network_to_bytes(shallow, "npz"))
    assert layout.json_bytes_at_least() <= len(network_to_bytes(shallow, "json"))
    finite = big_m_network(shallow, 1e4)
    big_m = _plan.big_m_layout(layout)
    assert big_m.parameters == finite.n_params
    assert big_m.npz_bytes() == len(network_to_bytes(finite, "npz"))
    assert big_m.json_bytes_at_least() <= len(network_to_bytes(finite, "json"))
    deep = _plan.mlp_layout(net.sizes)
    assert deep.parameters == net.n_params
    assert deep.npz_bytes() == len(network_to_bytes(net, "npz"))
    # the regions found without the engine: never more than there are
    found = _plan.regions_at_least(net)
    assert 1 <= found <= len(regions)
    assert _plan.extended_layout(net.n_in, 0, found, net.n_out, 0).parameters <= layout.parameters


def test_the_bound_finds_most_regions_of_a_slice():
    """On a plane through a classifier most regions meet a first-layer line, so the
    bound comes near the exact count (what makes the README's refusal immediate)."""
    net = MLP.random([2, 16, 16, 4], seed=0)
    exact = len(linear_regions(net))
    assert 0.7 * exact <= _plan.regions_at_least(net) <= exact


def test_json_estimate_is_near_the_written_size():
    net = MLP.random([2, 6, 6, 2], seed=3)
    regions = linear_regions(net)
    _, _, strict, _ = region_constraints(regions)
    layout = _plan.extended_layout(2, len(strict), len(regions), 2, int(strict.sum()))
    written = len(network_to_bytes(convert(net, regions=regions).shallow, "json"))
    assert 0.9 * written <= layout.json_bytes_about() <= 1.1 * written
