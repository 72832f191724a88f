"""The Playground's noise slider (beside the noise spin box) and the View tab's
toggles after TensorFlow Playground's: "show test data" and "discretize output".
Kept apart from :class:`~relulab.ui.panels.playground.controls.PlaygroundControls`
so that it stays small."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QHBoxLayout, QSlider, QWidget

from relulab.ui.panels.base import named, signals_blocked

#: The slider's steps per unit of noise (the spin box's range is 0 … 1).
NOISE_STEPS = 100


class NoiseSlider:
    """A slider tied to the noise spin box: the slider sets the spin box when released
    (each new noise draws the data again, so not at every pixel of a drag), and shows
    whatever the spin box holds (``show``). ``row`` holds both."""

    def __init__(self, spin: QDoubleSpinBox):
        self.spin = spin
        self.slider = named(QSlider(Qt.Orientation.Horizontal), "playground-noise-slider",
                            "Noise (standard deviation), 0 to 1",
                            "Noise (standard deviation), 0 to 1")
        self.slider.setRange(0, round(spin.maximum() * NOISE_STEPS))
        self.slider.setPageStep(NOISE_STEPS // 10)
        self.slider.setTracking(False)
        self.slider.valueChanged.connect(lambda v: self.spin.setValue(v / NOISE_STEPS))
        spin.valueChanged.connect(self.show)
        self.row = QWidget()
        line = QHBoxLayout(self.row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.slider, 1)
        line.addWidget(spin, 0)

    def show(self, noise: float) -> None:
        with signals_blocked(self.slider):
            self.slider.setValue(round(noise * NOISE_STEPS))


class ViewToggles:
    """"Show test data", "Discretize output" and "Map in feature space" (the last
    enabled by the panel when exactly two features are on, one of them nonlinear)."""

    def __init__(self):
        self.test_check = named(QCheckBox("Show test data"), "playground-show-test",
                                "Show the test points",
                                "Draw the held-out test points (hollow); hidden, they are "
                                "still held out and still tested")
        self.discrete_check = named(QCheckBox("Discretize output"), "playground-discretize",
                                    "Discretize the output's map",
                                    "Colour the output's map by the predicted class alone, "
                                    "without shading by how sure the network is")
        self.space_check = named(QCheckBox("Map in feature space"), "playground-feature-space",
                                 "Draw the map in feature space",
                                 "With two feature inputs, one nonlinear: the map shows the "
                                 "feature space, where the network is piecewise linear, with its "
                                 "exact regions and boundary and the points' features")

    @property
    def widgets(self) -> tuple[QCheckBox, ...]:
        return (self.test_check, self.discrete_check, self.space_check)

    def show(self, view) -> None:
        """Show ``view``'s toggles (signals are blocked by the caller)."""
        self.test_check.setChecked(view.show_test)
        self.discrete_check.setChecked(view.discretize)
        self.space_check.setChecked(view.feature_space)
