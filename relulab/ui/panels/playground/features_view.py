"""The Playground's feature inputs: the Network tab's check boxes (x₁, x₂, x₁², x₂²,
x₁x₂, sin x₁, sin x₂, at least one on) and what the panel draws of a network that
takes them.

With x₁ and x₂ alone (in any order, or one of them) the features are a linear image
of the plane, and :func:`plane_network` writes the network as one of the point
(x₁, x₂) (each first-layer column moved to its coordinate, not computed), so the
exact regions, the decision boundary, the hover's affine maps and Deep → shallow are
those of the network drawn. With any other feature the network g is piecewise linear
in the features, not in the plane: the plane's map and its boundary are sampled on
the picture's grid, and one line says so with what is exact, the number of g's
linear pieces in the box the data's features span (``jobs.feature_count``, up to
``MAX_COUNTED_FEATURES`` features). With exactly two features, one nonlinear, the
View tab's "Map in feature space" draws that box instead: g's exact regions, its
exact boundary and the points' features φ(x), by the same overlay as the plane's.

:class:`PlaygroundFeatures` is a mixin of the panel: it uses its ``_state``,
``controls``, ``strip``, ``pictures``, ``overlay``, ``diagram``, ``data_map``,
``info_label`` and ``_try``. It also tells the pictures whether the output is a
regression's prediction, and answers the View tab's toggles (show test data,
discretize output, feature space).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QCheckBox, QGridLayout, QWidget

from relulab.model.fitting.features import FEATURE_LABELS, FEATURE_NAMES, FeatureMap
from relulab.model.networks.mlp import MLP
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.panels.playground.jobs import (
    affine_map_text,
    feature_affine_text,
    feature_box,
    sampled_value_text,
)

#: The map's axes in the plane.
PLANE_LABELS = ("x₁", "x₂")
#: What a left click in feature space says: a point there has no point of the plane.
NO_ADDING = "Points are added in the plane (View: clear \"Map in feature space\")."
#: Why Deep → shallow refuses a network with nonlinear features.
NOT_SENT = ("Deep → shallow takes ReLU networks of the point (x₁, x₂); this one takes nonlinear "
            "features, so it is not sent.")


def plane_network(net: MLP, features: FeatureMap) -> MLP | None:
    """``net`` (whose first layer takes ``features``) as a network of the point
    (x₁, x₂), computing the same function (the weights moved, not computed; a sum of
    two products may round in another order); ``net`` itself for (x₁, x₂); None when
    a feature is nonlinear."""
    if features.is_identity:
        return net
    if not features.is_linear:
        return None
    W, b = net.layers[0]
    A = np.zeros((W.shape[0], 2))
    for i, name in enumerate(features.names):
        A[:, 0 if name == "x1" else 1] = W[:, i]  # no repeats: each coordinate copied once
    return MLP([(A, b), *net.layers[1:]], net.activation)


def space_allowed(features: FeatureMap) -> bool:
    """Whether the map can show the feature space: two features, one nonlinear (with
    x₁ and x₂ alone the plane is the feature space)."""
    return len(features) == 2 and not features.is_linear


class FeatureChecks:
    """One check box per feature, in TensorFlow Playground's order; ``row`` holds them."""

    def __init__(self):
        self.row = QWidget()
        grid = QGridLayout(self.row)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(0)
        self.checks: dict[str, QCheckBox] = {}
        for k, name in enumerate(FEATURE_NAMES):
            label = FEATURE_LABELS[name]
            box = named(QCheckBox(label), f"playground-feature-{name}", f"Feature input {label}",
                        f"Give the network the input {label} (at least one input is on)")
            self.checks[name] = box
            grid.addWidget(box, k // 4, k % 4)

    def chosen(self) -> tuple[str, ...]:
        return tuple(n for n in FEATURE_NAMES if self.checks[n].isChecked())

    def show(self, names) -> None:
        with signals_blocked(*self.checks.values()):
            for n, box in self.checks.items():
                box.setChecked(n in names)


class PlaygroundFeatures:
    """The feature inputs' edit and what the panel draws from them (a mixin of the panel)."""

    _plane_cache: tuple = (None, None)

    @property
    def features(self) -> FeatureMap:
        return self._state.architecture.feature_map

    @property
    def sampled(self) -> bool:
        """True when a feature is nonlinear: the plane's pictures are sampled."""
        return not self.features.is_linear

    def drawn_network(self, net: MLP) -> MLP:
        """What the plane's pictures take: ``net`` as a network of (x₁, x₂) when the
        features are linear (the same object for the same ``net``, so that the overlay
        knows a network it drew), else ``net`` itself, pictured through the features."""
        cached_for, plane = self._plane_cache
        if cached_for is net:
            return plane
        plane = plane_network(net, self.features)
        plane = net if plane is None else plane
        self._plane_cache = (net, plane)
        return plane

    @property
    def in_feature_space(self) -> bool:
        """The map shows the feature space: chosen in the View tab, and allowed."""
        return self._state.view.feature_space and space_allowed(self.features)

    @property
    def feature_pieces(self) -> int | None:
        """The exact number of linear pieces in feature space over the data's feature
        box, when counted (the regions in view, when the map shows that box)."""
        if self.in_feature_space:
            return self.strip.region_label.value if self.overlay.polygons or \
                self.overlay.decisions is not None else None
        done = self.overlay.pieces
        return None if done is None or not self.sampled else done.count

    def map_points(self, X) -> np.ndarray:
        """Where the map draws points ``X`` of the plane: φ(X) in feature space."""
        return self.features.apply(X) if self.in_feature_space else X

    def _show_inputs(self, state) -> None:
        """What the pictures need to know of a new state's inputs, view and task: the
        features (pictured through them when nonlinear and the plane is shown), the
        space the map shows and its box, and whether the output is a regression's
        prediction (no classes: its zero line, not a decision boundary)."""
        features, regress = state.architecture.feature_map, state.dataset.regress
        self._plane_cache = (None, None)
        allowed = space_allowed(features)
        self.controls.toggles.space_check.setEnabled(allowed)
        if allowed and state.view.feature_space:
            box, labels = feature_box(features, state.points.x, self.box), features.labels
            self.pictures.features = None  # the network's own inputs: exact in this box
            self.pictures.names = labels
        else:
            box, labels = self.box, PLANE_LABELS
            self.pictures.features = None if features.is_linear else features
            self.pictures.names = None
        self.pictures.box = self.overlay.box = box
        self.data_map.set_space(box, labels)
        self.overlay.whole_name = ("In the whole plane" if labels == PLANE_LABELS
                                   else "In the whole feature plane")
        self.pictures.regress = regress
        self.overlay.boundary_name = "Zero line z = 0" if regress else "Decision boundary"
        self.diagram.regress = regress
        self.diagram.set_space(box if allowed and state.view.feature_space else None)
        self.diagram.set_inputs(features)

    # -- the View tab's toggles (kept here: the panel's class is at its size limit) ------
    def _on_show_test(self, on: bool) -> None:
        self._state = self._state.with_view(show_test=bool(on))
        self.data_map.set_show_test(bool(on))

    def _on_discretize(self, on: bool) -> None:
        self._state = self._state.with_view(discretize=bool(on))
        self.pictures.discrete = bool(on)
        self._draw_picture(self.drawn_network(self.net))

    def _on_feature_space(self, on: bool) -> None:
        self._state = self._state.with_view(feature_space=bool(on))
        self._show_inputs(self._state)
        self.overlay.forget()
        self.redraw()

    def _on_add_refused(self) -> None:
        self.strip.message(NO_ADDING, error=True)

    def _draw_regions(self, net: MLP, final: bool) -> None:
        if self.sampled and not self.in_feature_space:
            self.overlay.show_sampled(net, feature_box(self.features, self.points.x, self.box),
                                      final)
        else:
            self.overlay.draw(net, final, self._state.view.show_regions, self.trainer.step)

    def _show_hover(self, net: MLP) -> None:
        """The map under the last hover position, for ``net``: each frame says it again
        for the network that frame draws, so that it follows training (one forward
        pass of one point, a few microseconds)."""
        point = self._hover_point
        if point is None:
            return
        if self.in_feature_space:
            text = feature_affine_text(net, point, self.shown_neuron(), self.features)
        elif self.sampled:
            text = sampled_value_text(net, point, self.shown_neuron(), self.features)
        else:
            text = affine_map_text(net, point, self.shown_neuron())
        self.info_label.setText(text)

    def set_features(self, names) -> None:
        """Other feature inputs: a new run from the weights seed (an undo step); none on
        is refused, and the boxes show the features as they were."""
        names = tuple(names)
        if not names:
            self.controls.features.show(self._state.architecture.features)
            self.strip.message("At least one input stays on.", error=True)
            return
        self._try(lambda: self.state.with_features(names), "change the inputs")

    def _on_feature_toggled(self, *_args) -> None:
        self.set_features(self.controls.features.chosen())
