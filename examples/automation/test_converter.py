"""Deep → shallow: load a network file without the dialog and read the verdict."""
from relulab.io.networks import save_network
from relulab.model.networks.mlp import MLP
from relulab.testing import finished


def test_load_a_network(relulab_window, tmp_path):
    path = tmp_path / "deep.json"
    save_network(MLP.random([1, 8, 8, 1], seed=4), path)
    converter = relulab_window.show_panel("converter")
    with finished(converter, "conversion"):
        assert converter.load_file(path)
    result = converter.readouts()
    assert result["verdict"] == "equal" and result["largest_difference"] < 1e-9
    assert result["shallow_neurons"] == result["kinks"] > 0
