"""A JSON network file is the network's one dict form, MLP.to_dict: written by it, and
read to the same networks by relulab.io.networks and by MLP.from_dict."""

import copy
import json

import numpy as np
import pytest

from relulab.io.networks import (
    NetworkFileError,
    network_from_bytes,
    network_from_dict,
    network_to_bytes,
    network_to_dict,
)
from relulab.model.networks.mlp import MLP, same_network

NETWORKS = [
    MLP.random([2, 6, 6, 1], seed=0),
    MLP.random([3, 5, 4, 2, 2], seed=1, activation=["relu", "tanh", "gelu"]),
    MLP.random([1, 4, 3, 1], seed=2, activation=["leaky_relu", "identity"]),
    MLP.random([4, 2], seed=3),
]


@pytest.mark.parametrize("net", NETWORKS, ids=["relu", "mixed", "leaky-identity", "affine"])
def test_the_file_is_the_dict_form_both_ways(net):
    doc = net.to_dict()
    assert network_to_dict(net) == doc
    assert json.loads(network_to_bytes(net, "json")) == doc
    assert same_network(network_from_dict(doc), net)
    assert same_network(network_from_bytes(network_to_bytes(net, "json"), "json"), net)
    assert same_network(MLP.from_dict(network_to_dict(net)), net)


def test_a_file_written_before_reads_the_same_through_both():
    """What the file writer wrote before MLP.to_dict existed, byte for byte."""
    text = ('{"format": "relulab-network", "version": 1, "activation": ["relu", "tanh"], '
            '"layers": [{"weights": [[1.0, -2.0], [0.5, 0.25]], "biases": [0.0, 1.0]}, '
            '{"weights": [[3.0, 1.0], [0.0, -1.0]], "biases": [0.5, 0.0]}, '
            '{"weights": [[1.0, 1.0]], "biases": [-0.125]}]}\n')
    from_file = network_from_bytes(text.encode(), "json", "older.json")
    from_dict = MLP.from_dict(json.loads(text))
    assert same_network(from_file, from_dict) and from_dict.activations == ("relu", "tanh")
    assert from_dict.to_dict() == json.loads(text)
    assert from_dict(np.array([[1.0, 1.0]]))[0, 0] == pytest.approx(np.tanh(2.25) - np.tanh(1.75) - 0.125)


GOOD = NETWORKS[0].to_dict()


def _changed(path, value):
    doc = copy.deepcopy(GOOD)
    *keys, last = path
    target = doc
    for k in keys:
        target = target[k]
    target[last] = value
    return doc


@pytest.mark.parametrize("doc", [
    [GOOD],
    _changed(["format"], "onnx"),
    _changed(["version"], 2),
    _changed(["activation"], "swish"),
    _changed(["activation"], ["relu"]),
    _changed(["layers"], []),
    _changed(["layers", 0, "weights", 0, 1], float("nan")),
    _changed(["layers", 0, "weights", 0, 1], "1"),
    _changed(["layers", 1, "biases"], [0.0]),
    _changed(["layers", 1, "weights"], [[1.0, 2.0]]),
    _changed(["layers", 0, "weights", 0, 1], 1e300),
    _changed(["layers", 0, "comment"], "x"),
], ids=["list", "format", "version", "activation", "activation-list", "no-layers", "nan",
        "string", "biases", "columns", "huge", "unknown-key"])
def test_both_readers_refuse_the_same_hostile_dicts(doc):
    before = copy.deepcopy(doc)
    with pytest.raises(NetworkFileError):
        network_from_dict(doc)
    with pytest.raises(ValueError):
        MLP.from_dict(doc)
    assert repr(doc) == repr(before)
