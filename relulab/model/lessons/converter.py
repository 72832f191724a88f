"""What the Deep → shallow panel converts: the network's source, the sizes it takes,
and the panel's state (Qt-free, as every panel's state).

The network comes from a random initialisation (architecture and seed), the tent
map (depth), another panel, a file or an example that ships with the app; the state
keeps the network itself too, so a scene file brings back exactly the weights that
were on screen. It keeps it in the network's one dict form (:meth:`MLP.to_dict`, the
network file format of docs/network-format.md), so a scene's network can also be read
by ``relulab.io.networks``.

A network with more than MAX_INPUTS inputs is looked at on a slice, a line or a plane
through chosen points (:mod:`relulab.model.regions.slices`); the state then holds the slice
too, and what is converted is the restricted network of 1 or 2 inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np

from relulab.model.core.fields import Fields
from relulab.model.networks.mlp import MLP
from relulab.model.regions.slices import ParsedPoint, SliceState, random_points, slice_state

SOURCES = ("random", "received", "tent", "file", "example")
#: Region enumeration grows quickly with the input dimension: the converter (the
#: panel and ``relulab convert``) takes networks with 1 to MAX_INPUTS inputs.
MAX_INPUTS = 4
DEFAULT_ARCHITECTURE = (2, 8, 8, 1)
MAX_OUTPUTS = 4
#: Hidden neurons for 1-D input (the exact kinks are quick) and for 2 to 4 inputs
#: (the exact region map of 64 neurons stays around a second).
MAX_NEURONS_1D = 1024
MAX_NEURONS_ND = 64
MAX_SEED = 999_999
MAX_TENT_DEPTH = 8
#: Networks with more than MAX_INPUTS inputs are sliced: the restricted network has 1
#: or 2 inputs and the same hidden layers, so its size limits are these (a 784-256-
#: 256-10 classifier of MNIST's pictures is 512 neurons and 269,322 parameters).
MAX_SLICED_NEURONS = 4096
MAX_SLICED_PARAMETERS = 4_000_000
MAX_SLICED_OUTPUTS = 10
#: The shallow network of 2 to 4 inputs is built up to this many parameters, by the
#: panel and by ``relulab convert`` (which builds larger ones with --force). The
#: construction is dense: 2pm·(2n + p) weights in its third layer, 68 million for the
#: digits classifier's plane through a 0, a 1 and a 7 (1,751 regions, 10 outputs).
MAX_SLICE_SHALLOW_PARAMETERS = 20_000_000
#: Weights beyond this are refused: values of a few layers of them stay far inside
#: double precision, and nothing a learner builds comes near.
WEIGHT_LIMIT = 1e15


def parse_architecture(text: str) -> tuple[int, ...]:
    """'2-8-8-1' → (2, 8, 8, 1); raises ValueError saying what is wrong."""
    parts = [p.strip() for p in text.replace(",", "-").replace(" ", "-").split("-") if p.strip()]
    if len(parts) < 3:
        raise ValueError("write inputs-hidden…-outputs with at least one hidden layer, e.g. 2-8-8-1")
    if any(len(p) > 9 for p in parts):
        raise ValueError(f"{text!r}: layer sizes must be whole numbers up to {MAX_NEURONS_1D}")
    try:
        sizes = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"{text!r}: layer sizes must be whole numbers") from None
    if min(sizes) < 1:
        raise ValueError("every layer needs at least one neuron")
    check_network_size(sizes)
    return sizes


def check_network_size(sizes: Sequence[int]) -> None:
    """ValueError unless the converter takes a network of layer sizes ``sizes``
    (more than MAX_INPUTS inputs: on a slice, with the slices' limits)."""
    n, hidden = sizes[0], sum(sizes[1:-1])
    if n > MAX_INPUTS:
        check_sliced_size(sizes)
        return
    limit = MAX_NEURONS_1D if n == 1 else MAX_NEURONS_ND
    if hidden > limit:
        raise ValueError(f"{hidden} hidden neurons: up to {limit} for {n}-D input here "
                         "(use relulab convert for bigger ones)")
    if sizes[-1] > MAX_OUTPUTS:
        raise ValueError(f"{sizes[-1]} outputs: up to {MAX_OUTPUTS} here")


def check_sliced_size(sizes: Sequence[int], where: str | None = None) -> None:
    """ValueError unless a network of layer sizes ``sizes`` is within the limits of one
    looked at on a slice (MAX_SLICED_*): the panel's largest, and what ``relulab slice``
    and ``relulab convert`` take without --force. ``where`` ends the message (the
    panel's words when not given)."""
    hidden = sum(sizes[1:-1])
    params = sum((a + 1) * b for a, b in pairwise(sizes))
    if hidden > MAX_SLICED_NEURONS:
        raise ValueError(f"{hidden} hidden neurons: up to {MAX_SLICED_NEURONS} "
                         f"{where or 'for a network looked at on a slice'}")
    if params > MAX_SLICED_PARAMETERS:
        raise ValueError(f"{params:,} parameters: up to {MAX_SLICED_PARAMETERS:,} "
                         f"{where or 'for a network looked at on a slice'}")
    if sizes[-1] > MAX_SLICED_OUTPUTS:
        raise ValueError(f"{sizes[-1]} outputs: up to {MAX_SLICED_OUTPUTS} {where or 'on a slice'}")


def needs_slice(net: MLP) -> bool:
    """True when ``net`` has too many inputs to convert whole: it is looked at on a
    line or a plane (:mod:`relulab.model.regions.slices`)."""
    return net.n_in > MAX_INPUTS


def default_slice(net: MLP, seed: int = 0) -> SliceState:
    """A random plane through the origin for a network that needs a slice: its
    points 0 and s·d₁, s·d₂ with s = √n / 4 (with He-initialised weights, a neuron's
    kink lies at a distance of about √n / 3 from the origin: the box around the points
    holds the nearer ones, some ten thousand regions for 784-256-256-10)."""
    n = net.n_in
    P = random_points(n, "plane", seed, scale=max(1.0, float(np.sqrt(n)) / 4))
    names = ("0", "s·d₁", "s·d₂")
    return slice_state("plane", [ParsedPoint(x, name) for x, name in zip(P, names)], "random",
                       seed=seed)


def network_problem(net: object) -> str | None:
    """Why the converter cannot take ``net`` (None when it can)."""
    if not isinstance(net, MLP):
        return f"expected a network, got {type(net).__name__}"
    if net.activation != "relu":
        return f"the converter needs ReLU hidden layers, this network uses {net.activation}"
    if len(net.layers) < 2:
        return "the network has no hidden layer: it is already shallow"
    if not net.is_finite():
        return "the network has NaN or infinite weights"
    try:
        check_network_size(net.sizes)
    except ValueError as e:
        return str(e)
    biggest = max(max(float(np.abs(W).max()), float(np.abs(b).max(initial=0.0)))
                  for W, b in net.layers)
    if biggest > WEIGHT_LIMIT:
        return f"a weight of size {biggest:.3g} is beyond {WEIGHT_LIMIT:g}"
    return None


def tent(depth: int) -> MLP:
    """The tent map composed ``depth`` times (the Folding panel's network)."""
    from relulab.model.pieces.folding import tent_network

    return tent_network(depth)


def _network_from_dict(d: Any, where: str = "network") -> MLP:
    """A network the converter takes, from its dict form (:meth:`MLP.to_dict`): ReLU, at
    least one hidden layer, within the sizes above; ValueError naming the field
    (``network.layers[1].weights``, …) otherwise."""
    net = MLP.from_dict(d, where=where, min_layers=2, max_layers=MAX_NEURONS_1D + 1,
                        max_parameters=MAX_SLICED_PARAMETERS, max_weight=WEIGHT_LIMIT,
                        activations=("relu",))
    problem = network_problem(net)
    if problem:
        raise ValueError(f"{where}: {problem}")
    return net


def _default_network() -> MLP:
    return MLP.random(DEFAULT_ARCHITECTURE, seed=0)


@dataclass(frozen=True)
class ConverterState:
    """What the Deep → shallow panel shows: the network, where it came from, and the
    selected region (−1: none; the panel drops it when the network has fewer regions).
    ``architecture`` and ``seed`` are kept for the random source, ``tent_depth`` for the
    tent, ``file`` for a network read from a file."""

    source: str = "random"
    architecture: tuple[int, ...] = DEFAULT_ARCHITECTURE
    seed: int = 0
    tent_depth: int = 3
    file: str | None = None
    network: MLP = field(default_factory=_default_network)
    selected_region: int = -1
    slice: SliceState | None = None

    def __post_init__(self) -> None:
        if needs_slice(self.network) and self.slice is None:
            object.__setattr__(self, "slice", default_slice(self.network))

    @property
    def sliced(self) -> bool:
        """True when the view shows a slice of the network rather than all of it."""
        return self.slice is not None

    def to_dict(self) -> dict:
        return {"source": self.source, "architecture": list(self.architecture),
                "seed": self.seed, "tent_depth": self.tent_depth, "file": self.file,
                "network": self.network.to_dict(), "selected_region": self.selected_region,
                "slice": None if self.slice is None else self.slice.to_dict()}

    @classmethod
    def from_dict(cls, d: Any) -> ConverterState:
        """Validate every field (ValueError naming it) and build the state. A missing
        network is the random one of ``architecture`` and ``seed``."""
        default = cls()
        f = Fields(d, defaults={k: v for k, v in default.to_dict().items() if k != "network"})
        # (a missing "slice" is None: a network that needs one gets a random plane)
        source = f.choice("source", SOURCES)
        arch = f.get("architecture")
        if not isinstance(arch, list) or not all(isinstance(a, int) and not isinstance(a, bool)
                                                 for a in arch):
            raise ValueError("architecture: expected a list of whole numbers, e.g. [2, 8, 8, 1]")
        try:
            architecture = parse_architecture("-".join(map(str, arch)))
        except ValueError as e:
            raise ValueError(f"architecture: {e}") from None
        seed = f.integer("seed", 0, MAX_SEED)
        tent_depth = f.integer("tent_depth", 1, MAX_TENT_DEPTH)
        file = None if f.get("file") is None else f.text("file", 4096)
        selected = f.integer("selected_region", -1, 10 ** 9)
        if "network" in d:
            network = _network_from_dict(f.get("network"))
        else:
            network = MLP.random(architecture, seed=seed)
        cut = None if f.get("slice") is None else \
            SliceState.from_dict(f.get("slice"), network.n_in, where="slice")
        if cut is not None and network.n_in < 2:
            raise ValueError("slice: a network with one input is not sliced")
        f.done()
        return cls(source, architecture, seed, tent_depth, file, network, selected, cut)
