"""The Playground's network files and networks from other panels: Export saves the
network with the features it takes (JSON and NPZ record them), Open reads a file back
with them (a file that records none takes x₁, x₂), and a network sent from another
panel takes x₁, x₂. :class:`PlaygroundNetworkFiles` is a mixin of
:class:`~relulab.ui.panels.playground.panel.PlaygroundPanel`: it uses the panel's
``net``, ``state``, ``_state``, ``trainer``, ``strip`` and ``_try``."""

from __future__ import annotations

from pathlib import Path

from relulab.io.networks import NetworkFileError, load_network_and_features, save_network
from relulab.model.lessons.playground import MAX_HIDDEN_LAYERS, MAX_WIDTH
from relulab.model.networks.mlp import MLP
from relulab.ui import dialogs

#: The network file formats Export and Open offer.
NETWORK_FILTER = "JSON network (*.json);;NumPy arrays (*.npz);;ONNX (*.onnx)"


class PlaygroundNetworkFiles:
    """Network files in and out, and networks received (a mixin of the panel)."""

    def export_network(self, path) -> bool:
        """Save the network as it is now (JSON, NPZ or ONNX by the extension) with the
        features it takes; a file that cannot be written is said, and nothing else changes."""
        try:
            save_network(self.net, path, self._state.architecture.features)
        except NetworkFileError as e:
            self.strip.message(str(e), error=True)
            return False
        self.strip.message(f"Saved the network ({'-'.join(map(str, self.net.sizes))}, step "
                              f"{self.trainer.step}) to {Path(path).name}.")
        return True

    def _export_network_dialog(self) -> None:
        path, chosen = dialogs.save_file_name(
            self, "Export the network", "network.json", NETWORK_FILTER,
            instead="window.panel('playground').export_network(path)")
        if path:
            if not Path(path).suffix:
                path += "." + chosen.rsplit("*.", 1)[-1].rstrip(")")
            self.export_network(path)

    def open_network(self, path) -> bool:
        """A network file's weights, and the features its inputs are (a file that records
        none takes x₁, x₂); a file the Playground cannot take is said in one line."""
        try:
            net, features = load_network_and_features(path)
        except NetworkFileError as e:
            self.strip.message(str(e), error=True)
            return False
        if not isinstance(net, MLP):
            self.strip.message(f"{Path(path).name}: a network with infinite rows is the "
                               "converter's; open it in Deep → shallow.", error=True)
            return False
        return self._take_network(net, features, f"open {Path(path).name}")

    def _open_network_dialog(self) -> None:
        path, _ = dialogs.open_file_name(self, "Open a network", "", NETWORK_FILTER,
                                         instead="window.panel('playground').open_network(path)")
        if path:
            self.open_network(path)

    def receive(self, kind: str, payload) -> bool:
        if kind != "network" or not isinstance(payload, MLP):
            return False
        return self._take_network(payload, None, "receive a network")

    def _take_network(self, net: MLP, features, text: str) -> bool:
        n_in = 2 if features is None else len(features)
        if net.n_in != n_in:
            self.strip.message(f"The playground takes networks of {n_in} inputs; that one has "
                               f"{net.n_in}.", error=True)
            return False
        if len(net.hidden_sizes) > MAX_HIDDEN_LAYERS or max(net.hidden_sizes, default=0) > MAX_WIDTH:
            self.strip.message(
                f"The playground draws and trains at most {MAX_HIDDEN_LAYERS} hidden layers of "
                f"{MAX_WIDTH} neurons; that network is {'-'.join(map(str, net.sizes))}.", error=True)
            return False
        return self._try(lambda: self.state.with_network(net, features), text)
