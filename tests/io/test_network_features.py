"""Network files record the features a network's inputs are (the Playground's feature
inputs): JSON and NPZ write and read them back, ONNX refuses other inputs than the
point's, old files read as (x₁, x₂), and what gives a network the point's coordinates
refuses a network taking other features, in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from relulab.io.networks import (
    NetworkFileError,
    load_network,
    load_network_and_features,
    network_from_bytes,
    save_network,
)
from relulab.model.networks.mlp import MLP

NET = MLP.random([3, 4, 1], seed=2)
FEATURES = ("x1^2", "x2^2", "x1*x2")


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_features_are_written_and_read_back(tmp_path, suffix):
    path = tmp_path / f"net{suffix}"
    save_network(NET, path, FEATURES)
    net, features = load_network_and_features(path)
    assert features == FEATURES
    assert all(np.array_equal(a, b) for la, lb in zip(net.layers, NET.layers) for a, b in zip(la, lb))
    if suffix == ".json":
        assert json.loads(path.read_text())["features"] == list(FEATURES)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_old_files_have_no_features_and_read_everywhere(tmp_path, suffix):
    path = tmp_path / f"net{suffix}"
    net2 = MLP.random([2, 3, 1], seed=0)
    save_network(net2, path)
    assert load_network_and_features(path)[1] is None
    assert load_network(path).sizes == [2, 3, 1]
    save_network(net2, path, ("x1", "x2"))  # the point itself, recorded: read everywhere too
    assert load_network_and_features(path)[1] == ("x1", "x2")
    assert load_network(path).sizes == [2, 3, 1]


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_a_reader_of_the_point_refuses_other_features_in_one_line(tmp_path, suffix):
    path = tmp_path / f"net{suffix}"
    save_network(NET, path, FEATURES)
    with pytest.raises(NetworkFileError) as info:
        load_network(path)
    message = str(info.value)
    assert message == (f"net{suffix}: the network takes the features x₁², x₂², x₁x₂, not the "
                       "point (x₁, x₂); open it in the Playground")
    with pytest.raises(NetworkFileError, match="not the point"):
        network_from_bytes(path.read_bytes(), suffix[1:], path.name)


def test_onnx_records_no_features_and_refuses_others(tmp_path):
    pytest.importorskip("onnx")
    with pytest.raises(NetworkFileError, match="ONNX records no feature inputs"):
        save_network(NET, tmp_path / "net.onnx", FEATURES)
    assert not (tmp_path / "net.onnx").exists()
    net2 = MLP.random([2, 3, 1], seed=0)
    save_network(net2, tmp_path / "net.onnx", ("x1", "x2"))
    assert load_network_and_features(tmp_path / "net.onnx")[1] is None


@pytest.mark.parametrize(("features", "message"), [
    (["x1^2", "x2^2"], "2 features for a network of 3 inputs"),
    (["x1^2", "x2^2", "x3"], "unknown feature 'x3'"),
    (["x1", "x1", "x2"], "names a feature twice"),
    ("x1", "must be a list of feature names"),
    ([1, 2, 3], "must be a list of feature names"),
])
def test_bad_feature_lists_are_named(tmp_path, features, message):
    doc = {**NET.to_dict(), "features": features}
    path = tmp_path / "net.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(NetworkFileError, match=message) as info:
        load_network_and_features(path)
    assert str(info.value).startswith("net.json: ") and "\n" not in str(info.value)
