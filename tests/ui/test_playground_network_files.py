"""The Playground's network files: Export writes the features the network takes, Open
reads them back (an old file takes x₁, x₂), and the Deep → shallow panel, which gives a
network the point itself, refuses a network taking other features in one line."""

from __future__ import annotations

import json

import pytest

from relulab.io.networks import load_network_and_features, save_network
from relulab.model.networks.mlp import MLP, same_network
from relulab.ui.panels.playground import PlaygroundPanel


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_export_writes_the_features_and_open_restores_them(panel, tmp_path, suffix):
    panel.set_features(["x1^2", "x2^2", "sin(x1)"])
    panel.step_once()
    trained = panel.net
    path = tmp_path / f"net{suffix}"
    assert panel.export_network(path)
    assert load_network_and_features(path)[1] == ("x1^2", "x2^2", "sin(x1)")
    if suffix == ".json":
        assert json.loads(path.read_text())["features"] == ["x1^2", "x2^2", "sin(x1)"]
    panel.set_features(["x1", "x2"])
    assert panel.state.architecture.features == ("x1", "x2")
    assert panel.open_network(path)
    s = panel.state
    assert s.architecture.features == ("x1^2", "x2^2", "sin(x1)")
    assert same_network(s.network, trained) and s.training.step == 0
    assert tuple(panel.controls.features.chosen()) == ("x1^2", "x2^2", "sin(x1)")
    panel.undo_stack.undo()
    assert panel.state.architecture.features == ("x1", "x2")


def test_an_old_file_opens_as_x1_x2(panel, tmp_path):
    panel.set_features(["x1^2", "x2^2"])
    net = MLP.random([2, 5, 1], seed=4)
    save_network(net, tmp_path / "old.json")  # no features: written before they were recorded
    assert "features" not in json.loads((tmp_path / "old.json").read_text())
    assert panel.open_network(tmp_path / "old.json")
    assert panel.state.architecture.features == ("x1", "x2")
    assert same_network(panel.state.network, net)


def test_a_file_the_playground_cannot_take_is_said_in_one_line(panel, tmp_path):
    before = panel.state_dict()
    save_network(MLP.random([4, 3, 1], seed=0), tmp_path / "four.json")
    assert not panel.open_network(tmp_path / "four.json")
    assert panel.strip.message_label.text() == (
        "The playground takes networks of 2 inputs; that one has 4.")
    (tmp_path / "bad.json").write_text("{")
    assert not panel.open_network(tmp_path / "bad.json")
    assert "bad.json" in panel.strip.message_label.text()
    assert panel.state_dict() == before


def test_onnx_export_of_other_features_is_refused_in_one_line(panel, tmp_path):
    pytest.importorskip("onnx")
    panel.set_features(["x1^2", "x2^2"])
    assert not panel.export_network(tmp_path / "net.onnx")
    text = panel.strip.message_label.text()
    assert "ONNX records no feature inputs" in text and "\n" not in text
    assert not (tmp_path / "net.onnx").exists()


def test_the_converter_refuses_a_network_taking_other_features(main_window, tmp_path):
    playground = main_window.show_panel("playground")
    playground.set_features(["x1^2", "x2^2"])
    path = tmp_path / "squares.json"
    assert playground.export_network(path)
    converter = main_window.show_panel("converter")
    before = converter.state_dict()
    assert not converter.load_file(path)
    assert converter.message.text() == ("squares.json: the network takes the features x₁², x₂², "
                                        "not the point (x₁, x₂); open it in the Playground")
    assert converter.state_dict() == before
    # the same network's file with the point as its inputs opens
    playground.set_features(["x1", "x2"])
    assert playground.export_network(tmp_path / "point.json")
    assert converter.load_file(tmp_path / "point.json")
