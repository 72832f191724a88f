"""The Playground's regression problems (TensorFlow Playground's plane and
multi-Gaussian): the dataset list, the loss, the output's colour map with its exact
pieces, the test MSE, and scenes."""

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from relulab.model.data.datasets import REGRESSION_DATASETS
from relulab.model.fitting.classify import grid_layers, logits
from relulab.model.lessons.playground import PlaygroundState
from relulab.ui.panels.playground import PlaygroundPanel


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def settled(qtbot, panel):
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20_000)
    for w in (panel._regions_worker, panel._picture_worker, panel._plane_worker):
        assert w.wait(20)
    QApplication.processEvents()
    panel.driver.draw_all()
    return panel


def choose_dataset(panel, name):
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData(name))


def test_regression_problems_are_listed_and_train_on_mse(panel):
    c = panel.controls
    listed = [c.dataset_combo.itemData(i) for i in range(c.dataset_combo.count())]
    assert set(REGRESSION_DATASETS) <= set(listed)
    choose_dataset(panel, "regress_gaussians")
    assert panel.state.dataset.name == "regress_gaussians"
    assert panel.trainer.config.loss == "mse" and panel.net.n_out == 1
    assert [c.loss_combo.itemData(i) for i in range(c.loss_combo.count())] == ["mse"]
    assert panel.points.real and not np.isin(panel.points.label, [0.0, 1.0]).all()
    assert "mean squared error" in c.output_label.text()
    # back to classes: cross-entropy again
    choose_dataset(panel, "circles")
    assert panel.trainer.config.loss == "cross_entropy"
    assert [c.loss_combo.itemData(i) for i in range(c.loss_combo.count())] == [
        "cross_entropy", "squared"]


def test_readouts_give_the_test_mse(panel):
    choose_dataset(panel, "regress_plane")
    panel.step_once()
    panel.driver.draw_all()
    assert panel.trainer.step > 0
    snap = panel.trainer.snapshot()
    Xt, yt = panel.state.points.held_out()
    mse = float(np.mean((logits(panel.net, Xt) - yt) ** 2))
    assert snap.test_loss == pytest.approx(mse, rel=1e-12)
    text = panel.strip.status_label.text()
    assert f"Test ({len(yt)}): MSE {mse:.3g}" in text and "accuracy" not in text
    assert panel.readouts()["test_loss"] == pytest.approx(mse, rel=1e-12)


def test_output_is_a_colour_map_with_its_exact_pieces(panel, qtbot):
    choose_dataset(panel, "regress_gaussians")
    panel.step_once()
    settled(qtbot, panel)
    picture = panel.data_map.picture
    z = grid_layers(panel.net, panel.box, 200)[-1][0]
    assert picture.levels == (-1.0, 1.0)
    assert np.allclose(picture.image, z.T, atol=1e-5)  # the prediction itself, not σ(z)
    # ReLU with the point as input: the exact linear pieces are drawn
    assert len(panel.overlay.polygons) > 1
    # no classes: the thick line is the output's zero line, and the output layer is z
    assert panel.strip.decision_label.text().startswith("Zero line z = 0: exact")
    assert panel.diagram.layer_labels[-1].toPlainText() == "z"
    assert [e.text for e in panel.key.entries][:2] == ["target ≤ 0", "target > 0"]
    # the points are coloured by their target's sign
    p = panel.points
    shown = sum(len(item.data) for (c, _t), item in panel.data_map.point_items.items() if c == 1)
    assert shown == int((p.label > 0).sum())


def test_regression_scene_round_trips_and_a_wrong_loss_is_refused(panel):
    choose_dataset(panel, "regress_plane")
    d = panel.state_dict()
    back = PlaygroundState.from_dict(d)
    assert back.points.real and back.training.loss == "mse"
    assert np.array_equal(back.points.label, panel.points.label)
    with pytest.raises(ValueError, match=r"training\.loss"):
        PlaygroundState.from_dict({**d, "training": {**d["training"], "loss": "cross_entropy"}})
    panel.undo_stack.undo()
    assert panel.state.dataset.name == "circles" and panel.trainer.config.loss == "cross_entropy"


def test_a_regression_shows_no_classes_and_no_accuracy(panel):
    """A regression has targets, not classes: no Classes row, "Points" (not per
    class), and no accuracy plot (the loss, its MSE, takes the room)."""
    c = panel.controls
    form = c._data_form
    choose_dataset(panel, "regress_plane")
    assert not form.isRowVisible(c.classes_spin)
    assert form.labelForField(c.points_spin).text() == "Points"
    assert panel.curves.accuracy_plot.isHidden() and not panel.curves.loss_plot.isHidden()
    choose_dataset(panel, "circles")
    assert form.isRowVisible(c.classes_spin)
    assert form.labelForField(c.points_spin).text() == "Points per class"
    assert not panel.curves.accuracy_plot.isHidden()
