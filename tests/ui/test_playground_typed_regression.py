"""The Playground's typed regression problem f(x₁, x₂) (the Data tab's field, its
one-line errors, undo and scenes) and what a click on the map adds in a regression
problem: a point on the problem's own function."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from relulab.model.data.datasets import bumps_target
from relulab.model.lessons.playground import PlaygroundState
from relulab.ui.panels.playground import PlaygroundPanel
from relulab.ui.panels.playground.data_map import CLICK_TIPS


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def choose_dataset(panel, name):
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData(name))


def type_formula(panel, text):
    edit = panel.controls.formula_edit
    edit.setFocus()
    edit.setText(text)  # typed (QTest types ASCII only: x₁ would stop the test run)
    QTest.keyClick(edit, Qt.Key.Key_Return)


def test_the_field_is_shown_for_the_typed_problem_only(panel):
    c = panel.controls
    assert not c._data_form.isRowVisible(c.formula_edit)
    choose_dataset(panel, "regress_formula")
    assert c._data_form.isRowVisible(c.formula_edit)
    assert c.formula_edit.text() == "sin(3*x1) * x2"
    assert not c._data_form.isRowVisible(c.formula_error)
    assert panel.trainer.config.loss == "mse"
    # a regression problem's click adds no class: the class row goes
    assert not c._data_form.isRowVisible(c.click_class_combo)


def test_a_typed_formula_makes_the_targets_and_is_one_undo_step(panel):
    choose_dataset(panel, "regress_formula")
    before = panel.state
    type_formula(panel, "x₁^2 - x2")
    s = panel.state
    assert s.dataset.formula == "x₁^2 - x2"
    X0, _ = before.points.x, before.points.label
    np.testing.assert_array_equal(s.points.x, X0)  # the same points (seed), new targets
    np.testing.assert_array_equal(s.points.label, X0[:, 0] ** 2 - X0[:, 1])
    panel.undo_stack.undo()
    assert panel.state.dataset.formula == "sin(3*x1) * x2"
    assert panel.controls.formula_edit.text() == "sin(3*x1) * x2"
    panel.undo_stack.redo()
    assert panel.state.dataset.formula == "x₁^2 - x2"
    # the scene keeps it
    back = PlaygroundState.from_dict(panel.state_dict())
    assert back.dataset.formula == "x₁^2 - x2" and back.points == panel.state.points


@pytest.mark.parametrize(("text", "said"), [
    ("sin(x) * x2", "unknown name 'x' (the variables are x1 and x2) at column 5"),
    ("x1 +", "the expression ends too early"),
    ("1/x1", "the value is infinite at (x₁, x₂) = (0, -1) in the square [-1, 1]²"),
    ("sqrt(x2)", "the value is not a number at (x₁, x₂)"),
])
def test_bad_input_is_said_in_one_line_and_changes_nothing(panel, text, said):
    choose_dataset(panel, "regress_formula")
    type_formula(panel, "x1 - x2")
    before = panel.state
    steps = panel.undo_stack.count()
    type_formula(panel, text)
    c = panel.controls
    assert said in c.formula_error.text() and "\n" not in c.formula_error.text()
    assert c._data_form.isRowVisible(c.formula_error)
    assert panel.state == before and panel.undo_stack.count() == steps  # the last good f stays
    assert c.formula_edit.text() == text  # left to be corrected
    type_formula(panel, "x1 * x2")
    assert panel.state.dataset.formula == "x1 * x2" and c.formula_error.text() == ""
    assert not c._data_form.isRowVisible(c.formula_error)


def click_map(panel, x, y, button=Qt.MouseButton.LeftButton):
    """A real click on the map at the plane's point (x, y)."""
    vb = panel.data_map.getPlotItem().getViewBox()
    pos = panel.data_map.mapFromScene(vb.mapViewToScene(QPointF(x, y)))
    QTest.mouseClick(panel.data_map.viewport(), button, Qt.KeyboardModifier.NoModifier, pos)


@pytest.mark.parametrize(("name", "target"), [
    ("regress_plane", lambda x, y: 0.6 * (x + y)),
    ("regress_gaussians", lambda x, y: float(bumps_target([[x, y]])[0])),
    ("regress_formula", lambda x, y: np.sin(3 * x) * y),
])
def test_a_click_in_regression_adds_a_point_on_the_problems_function(panel, qtbot, name, target):
    choose_dataset(panel, name)
    n = len(panel.points)
    click_map(panel, -0.55, 0.4)
    qtbot.waitUntil(lambda: len(panel.points) == n + 1, timeout=5000)
    (x, y), label = panel.points.x[-1], panel.points.label[-1]
    assert abs(x + 0.55) < 0.05 and abs(y - 0.4) < 0.05  # where the click was
    assert label == pytest.approx(target(x, y), abs=1e-12)  # its function there, no noise
    assert not panel.points.test[-1]
    assert panel.data_map.toolTip() == CLICK_TIPS[True]
    panel.undo_stack.undo()
    assert len(panel.points) == n


def test_a_click_in_classification_still_adds_the_chosen_class(panel, qtbot):
    assert panel.data_map.toolTip() == CLICK_TIPS[False]
    n = len(panel.points)
    panel.controls.click_class_combo.setCurrentIndex(1)
    click_map(panel, 0.2, 0.3)
    qtbot.waitUntil(lambda: len(panel.points) == n + 1, timeout=5000)
    assert panel.points.label[-1] == 1.0


def test_the_formulas_noise_moves_the_points_not_the_targets(panel):
    choose_dataset(panel, "regress_formula")
    type_formula(panel, "x1 + 2x2")
    panel.controls.noise_spin.setValue(0.1)
    s = panel.state
    assert s.dataset.noise == pytest.approx(0.1)
    clean = s.dataset.__class__(**{**s.dataset.__dict__, "noise": 0.0}).points()
    np.testing.assert_array_equal(s.points.label, clean.x[:, 0] + 2 * clean.x[:, 1])
    assert not np.array_equal(s.points.x, clean.x)


def test_the_error_line_follows_the_zoom(panel, theme):
    """Seen at zoom 1.6: the line under f(x₁, x₂) kept the type size it was shown at."""
    choose_dataset(panel, "regress_formula")
    type_formula(panel, "x1 +")
    c = panel.controls
    theme.set_zoom(1.6)
    QApplication.processEvents()
    label = c._data_form.labelForField(c.formula_edit)
    assert c.formula_error.font().pointSizeF() == pytest.approx(label.font().pointSizeF())
    assert c.formula_error.text() == "the expression ends too early at column 5"
