"""A small panel with real state, validation, a plot, data and an animation, standing in
for the real panels in tests of the scene, lecture and export machinery (the fixtures
``fake_panels`` and ``fake_window`` in conftest.py put it in their place)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from relulab.ui.panels import PanelSpec
from relulab.ui.panels.base import Panel

X = np.linspace(-1.0, 1.0, 21)


class FakePanel(Panel):
    """State: a slope ``value`` and a ``label``; the plot shows y = value · x."""

    name = "fake"
    title = "Fake"

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self.value = 1.0
        self.label = "start"
        controls = QWidget(self)
        controls.setObjectName(f"{self.name}-controls")
        self.spin = QDoubleSpinBox(controls)
        self.spin.setObjectName(f"{self.name}-value")
        self.spin.setAccessibleName("Slope")
        self.spin.setRange(-100, 100)
        self.spin.valueChanged.connect(self._on_spin)
        row = QHBoxLayout(controls)
        row.addWidget(self.spin)
        self.readout = QLabel(self)
        self.readout.setObjectName(f"{self.name}-readout")
        self.readout.setAccessibleName("Slope readout")
        self.plot = pg.PlotWidget(self)
        self.plot.setObjectName(f"{self.name}-plot")
        self.plot.setAccessibleName("Plot")
        self.curve = self.plot.plot(X, X)
        layout = QVBoxLayout(self)
        layout.addWidget(controls)
        layout.addWidget(self.readout)
        layout.addWidget(self.plot, 1)
        self.apply_theme()
        self._redraw()

    def _on_spin(self, v):
        self.value = float(v)
        self._redraw()

    def _redraw(self):
        self.curve.setData(X, self.value * X)
        self.readout.setText(f"slope {self.value:g} ({self.label})")
        self.spin.blockSignals(True)
        self.spin.setValue(self.value)
        self.spin.blockSignals(False)

    def set_value(self, v):
        self.value = float(v)
        self._redraw()

    def state_dict(self):
        return {"value": self.value, "label": self.label}

    def load_state(self, d):
        if not isinstance(d, dict):
            raise ValueError("state: expected an object")
        value = d.get("value", 1.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"value: expected a finite number, got {value!r}")
        label = d.get("label", "start")
        if not isinstance(label, str):
            raise ValueError("label: expected text")
        self.value, self.label = float(value), label
        self._redraw()

    def plots(self):
        return {"main": self.plot}

    def data_tables(self):
        return {"curve": (["x", "y"], [[float(x), float(self.value * x)] for x in X]),
                "slope": (["value"], [[self.value]])}

    def animation_frames(self, max_frames=120):
        before = self.value
        try:
            for i in range(min(5, max_frames)):
                self.set_value(before + i + 1)
                yield i
        finally:
            self.set_value(before)

    def apply_theme(self):
        self.theme.style_plot(self.plot)
        self.curve.setPen(self.theme.series_pen(0))


def fake_class(spec: PanelSpec):
    return type(f"Fake_{spec.name}", (FakePanel,), {"name": spec.name, "title": spec.title})


def values(window) -> dict:
    return {name: (p.value, p.label) for name, p in window.panels.items()}
