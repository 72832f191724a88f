"""Where the Deep → shallow panel's network comes from: a random network of the typed
architecture and seed, a network sent by another panel, the tent map, a file (opened
or dropped on the panel), or the digits classifier that ships with the app.

:class:`SourceChoice` listens to the controls
(:class:`~relulab.ui.panels.converter.controls.ConverterControls`) and takes the same
requests from scripts and other panels. It turns each into the changes of one undo
step, ``chosen(text, changes)`` (the panel commits ``replace(state, **changes)``),
and says why when it refuses one, ``said(text, error)``; ``restore()`` asks the panel
to put its state back on the controls (a refused choice left them showing it), and
``seed_kept(seed)`` keeps a seed for the next random network without an undo step;
``typed()`` says a typed architecture was taken (the panel's keys may have the focus
back: N typed after Enter went into the box).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from relulab.model.lessons.converter import (
    MAX_SEED,
    MAX_TENT_DEPTH,
    ConverterState,
    needs_slice,
    network_problem,
    parse_architecture,
    tent,
)
from relulab.model.networks.mlp import MLP
from relulab.ui import dialogs
from relulab.ui.panels.converter import jobs
from relulab.ui.panels.converter.controls import ConverterControls
from relulab.ui.panels.converter.jobs import EXAMPLE, EXAMPLE_ROWS
from relulab.ui.panels.converter.slicing import SliceChoice

NETWORK_SUFFIXES = (".json", ".npz", ".onnx")  # what relulab.io.networks reads


def dropped_path(event) -> str | None:
    """The one local file dragged or dropped with ``event`` (None: none, or several)."""
    md = event.mimeData()
    if not md.hasUrls():
        return None
    urls = [u for u in md.urls() if u.isLocalFile()]
    if len(urls) != 1:
        return None
    return urls[0].toLocalFile()


class SourceChoice(QObject):
    """The sources of the panel ``parent``, whose state is ``state()``; ``slicing``
    chooses the slice a network of many inputs is shown on. See the module's
    docstring."""

    chosen = Signal(str, object)   # (the undo step's text, the changes to the state)
    said = Signal(str, bool)       # (a message, whether it is an error)
    restore = Signal()
    seed_kept = Signal(int)
    typed = Signal()

    def __init__(self, parent: QWidget, controls: ConverterControls, slicing: SliceChoice,
                 state: Callable[[], ConverterState]):
        super().__init__(parent)
        self.controls = controls
        self.slicing = slicing
        self._panel_state = state
        self.received: MLP | None = None  # the last network another panel sent
        controls.source_box.activated.connect(self.choose_source)
        controls.arch_edit.returnPressed.connect(self.architecture_entered)
        controls.seed_spin.valueChanged.connect(self._on_seed)
        controls.random_button.clicked.connect(self.new_random)
        controls.tent_spin.valueChanged.connect(self.set_tent_depth)
        controls.open_button.clicked.connect(self.open_dialog)

    def _change(self, text: str, **changes) -> None:
        self.chosen.emit(text, changes)

    def choose_source(self, index: int) -> None:
        """The source at ``index`` of the controls' list."""
        key = self.controls.source_box.itemData(index)
        s = self._panel_state()
        if key == "random":
            self._use_random(s.architecture, s.seed, "random network")
        elif key == "received":
            if self.received is None:
                self.said.emit("No network has been sent here yet: use 'Send to converter' "
                               "in the Training or Playground panel.", True)
                self.restore.emit()
                return
            self._change("network from another panel", source="received", network=self.received,
                         slice=self.slicing.slice_for(self.received))
        elif key == "tent":
            self.set_tent_depth(s.tent_depth)
        elif key == "file":
            self.restore.emit()
            self.open_dialog()
        elif key == "example":
            self.open_example()

    def architecture_entered(self) -> None:
        """A random network of the architecture typed (Enter); a problem is shown."""
        try:
            sizes = parse_architecture(self.controls.arch_edit.text())
        except ValueError as e:
            self.said.emit(f"Architecture: {e}", True)
            return
        self._use_random(sizes, self._panel_state().seed, f"architecture {'-'.join(map(str, sizes))}")
        self.typed.emit()

    def _on_seed(self, value: int) -> None:
        if self._panel_state().source == "random":
            self._use_random(self._panel_state().architecture, value, f"seed {value}")
        else:  # kept for the next random network; the network on screen stays
            self.seed_kept.emit(value)

    def _use_random(self, sizes, seed, text) -> None:
        net = MLP.random(sizes, seed=seed)
        self.said.emit("", False)
        self._change(text, source="random", architecture=tuple(sizes), seed=int(seed), network=net,
                     file=None, slice=self.slicing.slice_for(net))

    def new_random(self) -> None:
        """A new random network of the current architecture (next seed)."""
        s = self._panel_state()
        sizes = s.architecture
        if s.source == "random":
            try:
                sizes = parse_architecture(self.controls.arch_edit.text())
            except ValueError as e:
                self.said.emit(f"Architecture: {e}", True)
                return
        seed = (s.seed + 1) % (MAX_SEED + 1)
        self._use_random(sizes, seed, f"random network, seed {seed}")

    def set_tent_depth(self, depth: int) -> None:
        """The tent map composed ``depth`` times."""
        self.said.emit("", False)
        self._change(f"tent map, depth {depth}", source="tent", tent_depth=int(depth),
                     network=tent(int(depth)), file=None, slice=None)

    def receive(self, kind: str, payload) -> bool:
        """Take ``"network"`` (an MLP) or ``"tent"`` (an MLP, or {"network": MLP, "depth": k})."""
        if kind not in ("network", "tent"):
            return False
        net, depth = payload, None
        if isinstance(payload, dict):
            net, depth = payload.get("network"), payload.get("depth")
        problem = network_problem(net)
        if problem:
            self.said.emit(f"Received network not taken: {problem}.", True)
            return False
        self.said.emit("", False)
        if kind == "tent":
            changes = {"source": "tent", "network": net, "file": None}
            if isinstance(depth, int) and not isinstance(depth, bool) and 1 <= depth <= MAX_TENT_DEPTH:
                changes["tent_depth"] = depth
            self._change("tent map from the Folding panel", slice=self.slicing.slice_for(net),
                         **changes)
        else:
            self.received = net
            self._change("network from another panel", source="received", network=net, file=None,
                         slice=self.slicing.slice_for(net))
        return True

    def load_file(self, path) -> bool:
        """Read a deep network from a file; on any problem say so and keep the current one."""
        from relulab.io.limits import one_line
        from relulab.io.networks import NetworkFileError, load_network

        path = Path(path)
        try:
            net = load_network(path)
        except NetworkFileError as e:
            self.said.emit(str(e), True)
            return False
        except Exception as e:  # a file from anyone is refused in one line, never with
            # the error dialog's traceback (a reader's bug included)
            self.said.emit(one_line(f"{path.name}: cannot be read ({type(e).__name__}: {e})"),
                           True)
            return False
        if not isinstance(net, MLP):
            self.said.emit(f"{path.name}: already an extended (±∞) shallow network, "
                           "not a deep one", True)
            return False
        problem = network_problem(net)
        if problem:
            self.said.emit(f"{path.name}: {problem}", True)
            return False
        more = (f" {net.n_in} inputs: shown on a slice (choose it below)."
                if needs_slice(net) else "")
        self.said.emit(f"Opened {path.name}.{more}", False)
        self._change(f"open {path.name}", source="file", network=net, file=str(path),
                     slice=self.slicing.slice_for(net))
        return True

    def open_dialog(self) -> None:
        filters = "Networks (*.json *.npz *.onnx);;All files (*)"
        path, _ = dialogs.open_file_name(self.parent(), "Open a deep network", "", filters,
                                         instead="window.panel('converter').load_file(path)")
        if path:
            self.load_file(path)

    def open_example(self) -> bool:
        """Open the digits classifier that ships with the app, sliced by the plane
        through three of its pictures."""
        from relulab.io.networks import NetworkFileError

        try:
            net = jobs.example_network()
            rows = jobs.read_rows(f"example:{EXAMPLE}")
        except (NetworkFileError, ValueError, OSError) as e:
            self.said.emit(f"The example could not be read: {e}", True)
            self.restore.emit()
            return False
        self.slicing.use_rows(rows, f"example:{EXAMPLE}")
        self.said.emit("Example: a 64-32-32-10 classifier of 8×8 digits, on the plane "
                       "through three of its pictures.", False)
        self._change("example: digits classifier", source="example", network=net, file=None,
                     slice=self.slicing.rows_slice("plane", EXAMPLE_ROWS))
        return True
