"""The Deep → shallow panel's state: validated field by field, networks as in the file format."""

import math

import numpy as np
import pytest

from relulab.io.networks import network_from_dict, network_to_dict
from relulab.model.lessons.converter import (
    MAX_INPUTS,
    ConverterState,
    check_network_size,
    network_problem,
    parse_architecture,
)
from relulab.model.networks.mlp import MLP


def test_round_trip_and_defaults():
    s = ConverterState()
    assert s.network.sizes == [2, 8, 8, 1]
    back = ConverterState.from_dict(s.to_dict())
    assert back.to_dict() == s.to_dict()
    net = MLP.random([1, 5, 3, 2], seed=7)
    s = ConverterState(source="file", architecture=(1, 5, 3, 2), seed=7, tent_depth=4,
                       file="/tmp/deep.npz", network=net, selected_region=3)
    back = ConverterState.from_dict(s.to_dict())
    assert back.to_dict() == s.to_dict()
    x = np.linspace(-3, 3, 50)
    assert np.array_equal(back.network(x[:, None]), net(x[:, None]))


def test_a_missing_network_is_the_random_one_of_the_architecture_and_seed():
    s = ConverterState.from_dict({"architecture": [2, 4, 1], "seed": 3})
    X = np.random.default_rng(0).normal(size=(20, 2))
    assert np.array_equal(s.network(X), MLP.random([2, 4, 1], seed=3)(X))


def test_the_network_is_the_file_formats_json_both_ways():
    """A scene's network reads with relulab.io.networks, and a network document written
    by it reads as a state field: one format, two readers that agree."""
    net = MLP.random([2, 6, 6, 1], seed=1)
    state = ConverterState(network=net)
    X = np.random.default_rng(2).normal(size=(30, 2))
    assert np.array_equal(network_from_dict(state.to_dict()["network"])(X), net(X))
    back = ConverterState.from_dict(state.to_dict() | {"network": network_to_dict(net)})
    assert np.array_equal(back.network(X), net(X))


def bad_network(**change):
    doc = network_to_dict(MLP.random([2, 3, 1], seed=0))
    doc.update(change)
    return doc


@pytest.mark.parametrize(("change", "field"), [
    ({"source": "web"}, "^source"),
    ({"seed": -1}, "^seed"), ({"seed": True}, "^seed"), ({"seed": 10 ** 400}, "^seed"),
    ({"architecture": [2, "a", 1]}, "^architecture"),
    ({"architecture": "2-8-1"}, "^architecture"),
    ({"architecture": [5, 4, 11]}, "^architecture: 11 outputs: up to 10 on a slice"),
    ({"architecture": [784, 4096, 1, 1]}, "^architecture: 4097 hidden neurons"),
    ({"architecture": [2, 40, 40, 1]}, "^architecture: 80 hidden neurons"),
    ({"tent_depth": 99}, "^tent_depth"),
    ({"file": 3}, "^file"), ({"file": "x" * 5000}, "^file"),
    ({"selected_region": 1.5}, "^selected_region"),
    ({"network": {"layers": []}}, r"^network\.layers"),
    ({"network": bad_network(activation="tanh")}, r"^network\.activation"),
    ({"network": bad_network(format="onnx")}, r"^network\.format"),
    ({"network": bad_network(version=2)}, r"^network\.version"),
    ({"network": bad_network(layers=[{"weights": [[1.0, 2.0]], "biases": [0.0]}])},
     r"^network\.layers: expected a list of 2"),
    ({"network": bad_network(layers=[{"weights": [[math.nan, 1.0]], "biases": [0.0]},
                                     {"weights": [[1.0]], "biases": [0.0]}])},
     r"^network\.layers\[0\]\.weights"),
    ({"network": bad_network(layers=[{"weights": [[1e300, 1.0]], "biases": [0.0]},
                                     {"weights": [[1.0]], "biases": [0.0]}])},
     r"^network\.layers\[0\]\.weights"),
    ({"network": bad_network(layers=[{"weights": [[1.0, 1.0]], "biases": [0.0]},
                                     {"weights": [[1.0, 2.0]], "biases": [0.0]}])},
     r"^network\.layers\[1\]\.weights: expected shape"),
    ({"network": bad_network(layers=[{"weights": [[1.0] * 5], "biases": [0.0]},
                                     {"weights": [[1.0]], "biases": [0.0]}]),
      "slice": {"kind": "line", "points": [[0, 0], [1, 0]]}}, r"^slice\.points: expected shape 2×5"),
    ({"slice": {"kind": "line", "points": [[0, 0], [1, 0]], "mode": "web"}}, r"^slice\.mode"),
    ({"slice": {"kind": "plane", "points": [[0, 0], [1, 0], [2, 0]]}}, "lie on one line"),
    ({"network": bad_network(layers=[{"weights": [[1.0, 1.0]], "biases": [0.0], "x": 1},
                                     {"weights": [[1.0]], "biases": [0.0]}])}, "unknown"),
    ({"colour": "red"}, "unknown field"),
])
def test_bad_fields_are_named(change, field):
    with pytest.raises(ValueError, match=field):
        ConverterState.from_dict(ConverterState().to_dict() | change)


def test_sizes_and_networks_the_converter_takes():
    assert parse_architecture("1-512-512-1") == (1, 512, 512, 1)
    assert parse_architecture(" 2, 8 8-1 ") == (2, 8, 8, 1)
    for text, needle in (("2-1", "at least one hidden"), ("2-x-1", "whole numbers"),
                         ("2-0-1", "at least one neuron"), ("1-1025-1", "1025 hidden"),
                         ("2-4-5", "5 outputs"), ("2-" + "9" * 400 + "-1", "whole numbers")):
        with pytest.raises(ValueError, match=needle):
            parse_architecture(text)
    check_network_size([MAX_INPUTS, 4, 1])
    # more inputs: looked at on a slice, with the slices' limits
    check_network_size([MAX_INPUTS + 1, 4, 1])
    check_network_size([784, 256, 256, 10])
    for sizes, needle in (([784, 4000, 200, 10], "4200 hidden neurons"),
                          ([100_000, 64, 10], "6,400,714 parameters"), ([64, 8, 11], "11 outputs")):
        with pytest.raises(ValueError, match=needle):
            check_network_size(sizes)
    assert network_problem(MLP.random([2, 3, 1], seed=0)) is None
    assert "ReLU" in network_problem(MLP.random([2, 3, 1], seed=0).with_activation("tanh"))
    assert "no hidden layer" in network_problem(MLP([([[1.0, 2.0]], [0.0])]))
    assert "beyond" in network_problem(MLP([([[1e16]], [0.0]), ([[1.0]], [0.0])]))
    assert "expected a network" in network_problem("2-8-1")


def test_a_network_with_many_inputs_is_kept_with_its_slice():
    from relulab.model.lessons.converter import needs_slice

    net = MLP.random([64, 8, 8, 10], seed=1)
    s = ConverterState(source="file", network=net, file="d.json")
    assert needs_slice(net) and s.sliced and s.slice.kind == "plane" and s.slice.mode == "random"
    back = ConverterState.from_dict(s.to_dict())
    assert back.slice == s.slice and back.to_dict() == s.to_dict()
    X = np.random.default_rng(0).normal(size=(5, 64))
    assert np.array_equal(back.network(X), net(X))
    # a scene without a slice gets the random plane of seed 0 again
    d = s.to_dict()
    d.pop("slice")
    assert ConverterState.from_dict(d).slice == s.slice
    # small networks are converted whole: no slice unless one is given
    assert not ConverterState().sliced
    with pytest.raises(ValueError, match="one input is not sliced"):
        ConverterState.from_dict(ConverterState(network=MLP.random([1, 3, 1], seed=0)).to_dict()
                                 | {"slice": {"kind": "line", "points": [[0.0], [1.0]]}})


def test_the_state_keeps_its_network_in_the_one_dict_form():
    net = MLP.random([2, 5, 1], seed=4)
    assert ConverterState(network=net).to_dict()["network"] == net.to_dict()
    hand_written = {"layers": net.to_dict()["layers"]}  # format, version and activation left out
    back = ConverterState.from_dict(ConverterState().to_dict() | {"network": hand_written})
    assert back.network.to_dict() == net.to_dict()
