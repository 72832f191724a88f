"""The Playground's controls after TensorFlow Playground's: the weight penalty and
its rate, the learning rate's presets, the noise slider and the test data and
discretised output toggles, driven through the panel's own widgets."""

import numpy as np
import pytest

from relulab.model.fitting.classify import grid_axes, predict, weight_penalty
from relulab.model.lessons.playground import (
    LEARNING_RATES,
    REGULARIZATION_RATES,
    PlaygroundState,
)
from relulab.ui.panels.playground import PlaygroundPanel


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def choose(combo, data):
    at = combo.findData(data)
    assert at >= 0, data
    combo.setCurrentIndex(at)


# -- the weight penalty ------------------------------------------------------------------

def test_penalty_combo_offers_none_l1_l2_and_rates_a_decade_apart(panel):
    p = panel.controls.penalty
    combo, rates = p.regularization_combo, p.regularization_rate_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["none", "L1", "L2"]
    offered = [rates.itemData(i) for i in range(rates.count())]
    assert offered == list(REGULARIZATION_RATES)
    # two presets make a decade: 0.001, 0.003, 0.01, …, 10
    assert np.allclose(np.array(offered[3::2]) / np.array(offered[1:-2:2]), 10.0)
    assert not rates.isEnabled()  # no penalty, no rate to choose


def test_l2_penalty_trains_and_the_loss_readout_includes_it(panel):
    p = panel.controls.penalty
    choose(p.regularization_combo, "l2")
    choose(p.regularization_rate_combo, 0.03)
    assert p.regularization_rate_combo.isEnabled()
    config = panel.trainer.config
    assert (config.regularization, config.regularization_rate) == ("l2", 0.03)
    assert panel.state.training.regularization == "l2"
    panel.step_once()
    panel.driver.draw_all()
    snap = panel.trainer.snapshot()
    assert snap.step > 0
    P = weight_penalty(snap.net, "l2", 0.03)
    assert P > 0 and snap.penalty == pytest.approx(P)
    text = panel.strip.status_label.text()
    assert f"loss {snap.train_loss:.3g}" in text       # data loss + P
    assert f"Train loss includes L2 penalty {P:.3g}" in text
    assert f"loss {snap.test_loss:.3g}" in text
    choose(p.regularization_combo, "none")
    assert panel.trainer.config.regularization is None
    assert "penalty" not in panel.strip.status_label.text()


def test_penalty_round_trips_through_the_state_and_old_scenes_load(panel):
    p = panel.controls.penalty
    choose(p.regularization_combo, "l1")
    choose(p.regularization_rate_combo, 0.3)
    d = panel.state_dict()
    assert d["training"]["regularization"] == "l1"
    assert d["training"]["regularization_rate"] == 0.3
    fresh = PlaygroundState.from_dict(d)
    assert fresh.training.config().regularization == "l1"
    # a scene saved before the penalty existed has no such fields: no penalty
    del d["training"]["regularization"], d["training"]["regularization_rate"]
    old = PlaygroundState.from_dict(d)
    assert old.training.regularization is None and old.training.regularization_rate == 0.0
    # a rate off the list is shown as it is, not rounded to a preset
    panel.apply_state(fresh.with_training(regularization_rate=0.02))
    assert p.regularization_rate_combo.currentData() == 0.02
    assert p.regularization_rate_combo.currentText() == "0.02"
    with pytest.raises(ValueError, match="regularization_rate"):
        PlaygroundState.from_dict({**d, "training": {**d["training"], "regularization_rate": 11}})


def test_l1_penalty_thins_the_diagrams_lines(panel):
    """With a strong L1 penalty the proximal step zeroes weights: their lines go (the
    diagram draws a weight's width by |w| over its layer's largest)."""
    p = panel.controls.penalty
    choose(p.regularization_combo, "l1")
    choose(p.regularization_rate_combo, 0.1)
    panel.trainer.run(300)
    net = panel.trainer.net
    zero = sum(int((W == 0).sum()) for W, _b in net.layers)
    assert zero > 0
    panel.driver.draw_all()
    panel.diagram.show_network(net)
    drawn_lines = sum(int(np.isfinite(np.asarray(item.getData()[0], float)).sum())
                      for item in panel.diagram.edges.values()
                      if item.getData()[0] is not None) // 2
    total = sum(W.size for W, _b in net.layers)
    assert drawn_lines <= total - zero


# -- learning rate presets, noise slider, test data and discretised output -------------------

def test_learning_rate_presets_set_the_spin_box_and_the_trainer(panel):
    c = panel.controls
    presets = c.lr_presets.combo
    offered = [presets.itemData(i) for i in range(1, presets.count())]
    assert offered == list(LEARNING_RATES)
    assert np.allclose(np.array(offered[3::2]) / np.array(offered[1:-2:2]), 10.0)
    assert presets.parentWidget() is c.lr_spin.parentWidget()  # beside the spin box
    presets.activated.emit(presets.findData(0.3))
    assert c.lr_spin.value() == 0.3 and panel.trainer.config.learning_rate == 0.3
    c.lr_spin.setValue(0.25)  # any rate: the combo no longer names a preset
    assert presets.currentIndex() == 0 and panel.trainer.config.learning_rate == 0.25


def test_noise_slider_sets_the_noise_and_follows_the_spin_box(panel):
    c = panel.controls
    before = panel.points.x.copy()
    c.noise_slider.slider.setValue(40)
    assert c.noise_spin.value() == pytest.approx(0.4)
    assert panel.state.dataset.noise == pytest.approx(0.4)
    assert not np.array_equal(panel.points.x, before)  # the data drawn again
    c.noise_spin.setValue(0.15)
    assert c.noise_slider.slider.value() == 15


def test_show_test_data_hides_the_test_points_but_keeps_them_held_out(panel):
    c = panel.controls
    n_test = int(panel.points.test.sum())
    assert n_test > 0 and c.toggles.test_check.isChecked()
    c.toggles.test_check.setChecked(False)
    assert panel.state.view.show_test is False
    shown = [item for (_c, test), item in panel.data_map.point_items.items() if test]
    assert not any(item.isVisible() for item in shown)
    assert len(panel.trainer.y_test) == n_test  # still tested
    assert PlaygroundState.from_dict(panel.state_dict()).view.show_test is False
    c.toggles.test_check.setChecked(True)
    assert all(item.isVisible() for item in shown)


def test_discretize_output_colours_the_map_by_the_predicted_class(panel):
    c = panel.controls
    panel.trainer.run(50)
    panel.driver.draw_all()
    smooth = panel.data_map.picture.image
    assert len(np.unique(smooth)) > 2
    c.toggles.discrete_check.setChecked(True)
    assert panel.state.view.discretize is True
    image = panel.data_map.picture.image
    assert set(np.unique(image)) <= {0.0, 1.0}
    xs, ys = grid_axes(panel.box, image.shape[0])
    X = np.stack(np.meshgrid(xs, ys, indexing="ij"), axis=-1).reshape(-1, 2)
    agree = (predict(panel.net, X).reshape(image.shape) == image).mean()
    assert agree > 0.999  # float32 grid against float64 at the boundary
    c.toggles.discrete_check.setChecked(False)
    assert len(np.unique(panel.data_map.picture.image)) > 2
