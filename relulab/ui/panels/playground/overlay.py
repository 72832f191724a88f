"""The map's overlay of exact linear regions: for a network of ReLU and identity
layers (its regions as built, ``jobs.relu_form``) the outline of every linear region
in view, the decision boundary from the regions' affine maps in place of the
picture's, and in the strip how many regions there are in view and in the whole plane.

Up to QUICK_REGION_NEURONS hidden neurons the regions of a paused network are found
at once; otherwise the panel's regions worker finds them (``jobs.regions_in_view``)
and its plane worker counts the whole plane (``jobs.plane_count``). The panel owns
the workers and hands their results here with what is on screen then.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from relulab.model.networks.activations import ACTIVATIONS
from relulab.model.networks.mlp import MLP
from relulab.model.regions.decisions import DecisionRegions, decision_regions
from relulab.model.regions.engine import engine_ready, start_warm_up
from relulab.ui.panels.playground.data_map import NO_REGIONS, DataMap, polygon_outline
from relulab.ui.panels.playground.jobs import (
    MAX_COUNTED_FEATURES,
    FeatureCount,
    MapPicture,
    feature_count,
    identity_note,
    pieces_text,
    plane_count,
    regions_in_view,
    regions_network,
)
from relulab.ui.panels.playground.readouts import Readouts
from relulab.ui.worker import Worker

#: Up to this many hidden neurons the regions of a paused network are found at once
#: (≤ 10 ms); larger networks use the worker. While training, the overlay follows the
#: network (on the worker) up to this size too; a larger one is drawn when training
#: pauses: enumerating thousands of regions beside the training steps would take the
#: GUI thread's turns at the interpreter (the worker holds it between numpy calls).
QUICK_REGION_NEURONS = 40
GRID_BOUNDARY = "Decision boundary: from the 200 × 200 picture."


class RegionOverlay:
    """The regions drawn on ``data_map`` and counted in ``strip``; ``finished(work)``
    is told when the regions ("regions") or the whole plane's count ("plane_regions")
    are on screen."""

    def __init__(self, data_map: DataMap, strip: Readouts, box, regions_worker: Worker,
                 plane_worker: Worker, finished: Callable[[str], None]):
        self.data_map, self.strip, self.box = data_map, strip, box
        self.regions_worker, self.plane_worker = regions_worker, plane_worker
        self.finished = finished
        self.polygons: list = []
        self.regions_for: MLP | None = None  # the network whose exact regions are drawn
        self.decisions: DecisionRegions | None = None  # its decision regions, when drawn
        #: what the thick line is: a regression's output has no classes, only its zero line
        self.boundary_name = "Decision boundary"
        #: what the whole-space count is of: the plane, or a feature space
        self.whole_name = "In the whole plane"
        #: the pieces in feature space counted last (nonlinear features, the plane shown)
        self.pieces: FeatureCount | None = None
        self.wanted: tuple | None = None  # (network, box) whose pieces the worker counts

    @property
    def grid_text(self) -> str:
        return GRID_BOUNDARY.replace("Decision boundary", self.boundary_name)

    def forget(self) -> None:
        """A new state: whatever network comes next is drawn anew."""
        self.regions_for = None
        self.decisions = None
        self.wanted = None

    def boundary_is_exact(self, picture: MapPicture) -> bool:
        """Whether the exact boundary drawn belongs to ``picture`` (its network's output):
        it then stays, and the picture's grid contour is not drawn."""
        return (self.decisions is not None and picture.neuron is None
                and picture.net is self.regions_for)

    def show_sampled(self, net: MLP, box, final: bool) -> None:
        """No exact regions for the plane (nonlinear features): one line says that the
        plane's picture is sampled and how many linear pieces ``net``, a network of its
        features, has in the feature ``box`` (exact, :func:`jobs.feature_count`): counted
        at once for a small network of two features, else on the plane worker when
        training pauses."""
        self.regions_worker.cancel()
        self.polygons, self.regions_for, self.decisions = [], None, None
        self.data_map.show_regions(NO_REGIONS)
        self.strip.plane_label.setText("")
        self.strip.decision_label.setText("")  # the line says the boundary is sampled
        box = tuple(float(v) for v in box)
        done = self.pieces
        if done is not None and done.net is net and done.box == box:
            self.strip.region_label.set_value(done.count, pieces_text(done))
            return
        k = net.n_in
        self.pieces, self.wanted = None, (net, box)
        small = k == 2 and net.n_hidden_neurons <= QUICK_REGION_NEURONS and engine_ready(2)
        if small or k > MAX_COUNTED_FEATURES or regions_network(net) is None:  # at once
            self.plane_worker.cancel()
            return self._show_pieces(feature_count(net, box))
        if not final:
            self.plane_worker.cancel()
            self.strip.region_label.set_value(None, pieces_text(None).replace(
                "counting…", "counted when training pauses"))
            return
        start_warm_up(k)
        self.strip.region_label.set_value(None, pieces_text(None))
        self.plane_worker.submit(partial(feature_count, net, box))

    def _show_pieces(self, result: FeatureCount) -> None:
        self.pieces = result
        self.strip.region_label.set_value(result.count, pieces_text(result))
        self.finished("plane_regions")

    def draw(self, net: MLP, final: bool, show: bool, step: int) -> None:
        """The exact linear regions of a ReLU network in view (identity layers as built),
        and the decision boundary from their affine maps: found at once for a small
        paused network; on the worker otherwise (while training, the newest network wins
        and the overlay says which step it shows). ``show``: the view's choice;
        ``step``: the training step ``net`` is at."""
        labels = self.strip
        self.wanted = None  # the plane's regions now, not the pieces in feature space
        flat = regions_network(net)
        if not show or flat is None:
            self.regions_worker.cancel()
            self.plane_worker.cancel()
            self.polygons, self.regions_for, self.decisions = [], None, None
            labels.plane_label.setText("")
            labels.decision_label.setText(self.grid_text)
            self.data_map.show_regions(NO_REGIONS)
            if not show:
                labels.region_label.set_value(None, "Linear regions: hidden.")
            elif not net.uses_only("relu", "identity"):
                other = [ACTIVATIONS[a].label for a in dict.fromkeys(net.activations)
                         if a not in ("relu", "identity")]
                labels.region_label.set_value(None, f"Linear regions: shown for ReLU and identity "
                                              f"layers (this network uses {', '.join(other)}).")
            else:  # one affine map: its boundary is exact, one cut of the box
                labels.region_label.set_value(1, "Linear regions: 1 (no ReLU layer: the outputs "
                                              "are affine).")
                self.regions_for, self.decisions = net, decision_regions(net, self.box)
                self.data_map.show_boundary(self.decisions.boundary)
                labels.decision_label.setText(f"{self.boundary_name}: exact, from the one "
                                              "affine map.")
            return
        if net is self.regions_for:  # a hover or a neuron choice: same network, same regions
            return
        labels.decision_label.setText(self.grid_text)
        quick = flat.n_hidden_neurons <= QUICK_REGION_NEURONS
        ready = engine_ready(2)
        if final and quick and ready:
            self.regions_worker.cancel()
            found = regions_in_view(net, step, self.box, outline=polygon_outline)
            self._show(found.decisions, found.outline, net, None, net)
            return
        if not final and not quick:
            if self.polygons:
                self.regions_worker.cancel()
                self.plane_worker.cancel()
                self.polygons, self.regions_for, self.decisions = [], None, None
                self.data_map.show_regions(NO_REGIONS)
                labels.plane_label.setText("")
            labels.region_label.set_value(None, f"Linear regions: drawn when training pauses "
                                          f"({flat.n_hidden_neurons} hidden neurons).")
            return
        if final:
            self.data_map.show_regions(NO_REGIONS)
            labels.region_label.set_value(None, "Linear regions: counting…" if ready else
                                          "Linear regions: preparing the exact region engine "
                                          "(first use only)…")
            labels.plane_label.setText("")
        self.regions_worker.submit(partial(regions_in_view, net, step, self.box,
                                           outline=polygon_outline))

    def show_found(self, result, current: MLP, show: bool, playing: bool) -> None:
        """The regions worker's ``(net, step, decisions, outline)``, with the network on
        screen now (``current``), the view's choice and whether training plays."""
        net, step, decisions, outline = result
        if not (show and regions_network(current) is not None):
            return
        if net is current:  # the network on screen: exact and current
            self._show(decisions, outline, net, None, current)
        elif playing and current.sizes == net.sizes:  # a few steps behind
            self._show(decisions, outline, None, step, current)

    def _show(self, decisions, outline, net: MLP | None, step: int | None, current: MLP) -> None:
        polygons = decisions.regions
        self.polygons, self.regions_for = polygons, net
        self.data_map.show_regions(outline)
        when = "" if step is None else f", step {step}"
        note = identity_note(net if net is not None else current)
        note = f"; {note}" if note else ""
        self.strip.region_label.set_value(
            len(polygons), f"Linear regions in view: {len(polygons)} (exact{when}{note})")
        if net is not None:  # the network on screen: its exact boundary replaces the grid's
            self.decisions = decisions
            self.data_map.show_boundary(decisions.boundary)
            self.strip.decision_label.setText(
                f"{self.boundary_name}: exact, from each region's affine map.")
        else:
            self.decisions = None
            self.strip.decision_label.setText(self.grid_text)
        if net is None:
            self.plane_worker.cancel()
            self.strip.plane_label.setText("")
        else:  # the exact count in all of R², by the region engine, on the worker
            self.strip.plane_label.set_value(None, f"{self.whole_name}: counting…")
            self.plane_worker.submit(partial(plane_count, net))
            self.finished("regions")

    def show_failure(self, exc: Exception) -> None:
        self.strip.region_label.set_value(None, f"Linear regions: {type(exc).__name__}: {exc}")
        self.finished("regions")

    def show_plane_failure(self, exc: Exception) -> None:
        self.strip.plane_label.set_value(None, f"{self.whole_name}: {type(exc).__name__}: {exc}")
        self.finished("plane_regions")

    def show_plane_count(self, result) -> None:
        """The plane worker's result: the whole plane's count, or the pieces in feature space."""
        if isinstance(result, FeatureCount):
            if self.wanted is not None and self.wanted[0] is result.net \
                    and self.wanted[1] == result.box:
                self._show_pieces(result)
            return
        net, count = result
        if net is self.regions_for:
            self.strip.plane_label.set_value(int(count), f"{self.whole_name}: {count} regions "
                                                         "(exact).")
            self.finished("plane_regions")

    def tables(self) -> dict:
        """The regions drawn and their decision pieces, for the CSV export."""
        tables = {}
        if self.polygons:
            tables["linear regions"] = (
                ["region", "vertices", "area"],
                [[i, len(q.vertices), float(q.area)] for i, q in enumerate(self.polygons)])
        if self.decisions is not None:
            tables["decision regions"] = (
                ["piece", "class", "linear region", "vertices", "area"],
                [[i, q.label, q.region, len(q.vertices), float(q.area)]
                 for i, q in enumerate(self.decisions.pieces)])
        return tables
