"""What a learner and a lecturer see on the Playground: readouts that follow the
network as it trains, keys that hide no data, plots that keep their size and their axis
labels on a laptop and on a projector, and no pyqtgraph button left unexplained."""

import pytest
from PySide6.QtCore import QPointF

from relulab.testing import mouse
from relulab.ui.panels.playground import PlaygroundPanel
from relulab.ui.panels.playground.jobs import affine_map_text


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def test_the_hover_readout_follows_the_network_while_it_trains(panel, qtbot):
    """The map under a still cursor changes as the network trains: the readout says the
    map of the network drawn, on each frame, not the one the cursor first found."""
    point = (0.31, -0.42)
    panel.data_map.hovered.emit(point)
    before = panel.info_label.text()
    assert before == affine_map_text(panel.net, point, None)
    panel.controls.play_button.setChecked(True)
    qtbot.waitUntil(lambda: panel.info_label.text() != before, timeout=20_000)
    assert panel.is_playing()
    panel.controls.play_button.setChecked(False)
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20_000)
    panel.driver.draw_all()
    assert panel.trainer.step > 0
    assert panel.info_label.text() == affine_map_text(panel.net, point, None)
    panel.step_once()
    panel.driver.draw_all()
    assert panel.info_label.text() == affine_map_text(panel.net, point, None)


def test_no_plot_shows_pyqtgraphs_auto_range_button(panel):
    """pyqtgraph's "A" appears in a corner once a drag leaves the auto range, and says
    nothing to a learner: no plot of the panel shows it, after a real drag and with the
    mouse over it."""
    panel.step_once()
    panel.driver.draw_all()
    for name, plot in panel.plots().items():
        item = plot.getPlotItem()
        if plot.isVisible():
            box = mouse.view_box(plot).sceneBoundingRect()
            mouse.drag(plot, box.center(), box.center() + QPointF(30, 20))
        item.vb.disableAutoRange()  # as a drag does, where the plot takes no drag
        item.mouseHovering = True
        item.updateButtons()
        assert not item.autoBtn.isVisible(), name


def _covered(plot) -> list[str]:
    """The curves of ``plot`` with a point under a legend drawn on it."""
    item = plot.getPlotItem()
    legend = item.legend
    if legend is None or not legend.isVisible() or not legend.items:
        return []
    drawn = legend.mapRectToScene(legend.boundingRect())
    vb = item.getViewBox()
    found = []
    for curve in item.listDataItems():
        x, y = curve.getData()
        if not curve.isVisible() or x is None:
            continue
        for px, py in zip(x, y):
            if drawn.contains(vb.mapViewToScene(QPointF(px, py))):
                found.append(f"{curve.name() or 'a curve'} at ({px:g}, {py:g})")
                break
    return found


@pytest.mark.parametrize("setting", ["start", "random labels", "replay"])
def test_no_key_covers_the_curves(panel, setting):
    """The newest values are at the right end of the loss and accuracy curves, where
    the legends were: a key lies where it covers no data, early in a run, with random
    labels (accuracies near chance), and with the run before a Replay."""
    if setting == "random labels":
        panel.set_random_labels(True)
    for _ in range(3):
        panel.step_once()
    if setting == "replay":
        panel.replay()
        panel.step_once()
    panel.driver.draw_all()
    for name in ("loss", "accuracy"):
        plot = panel.plots()[name]
        assert not _covered(plot), (name, _covered(plot))
    key = panel.curves.key.plain_text()
    assert "train" in key and "test" in key
    assert ("run before" in key) == (setting == "replay")


@pytest.mark.parametrize("activation", ["relu", "identity", "tanh", "sigmoid", "gelu", "leaky_relu"])
def test_the_activation_plots_key_covers_no_curve(panel, activation):
    panel.set_activation(activation)
    panel.controls.tabs.setCurrentIndex(1)
    assert not _covered(panel.controls.activation_plot)


def test_the_hover_readout_of_many_classes_says_the_two_highest_scores():
    """Six classes' six affine maps filled six lines at zoom 1.6 and pushed the controls
    off a projector's screen: the readout says the two highest scores at the point, the
    two whose tie is the boundary nearby, each the network's own score there."""
    import numpy as np

    from relulab.model.networks.collapse import format_affine, local_affine_map
    from relulab.model.networks.mlp import MLP

    net = MLP.random([2, 8, 6], seed=5)
    point = (0.3, -0.4)
    text = affine_map_text(net, point, None)
    scores = net(np.array([point]))[0]
    first, second = np.argsort(-scores)[:2]
    A, c, _exact = local_affine_map(net, np.array(point))
    assert text.count(" = ") == 2 and "the two highest of 6" in text
    for k in (first, second):
        assert f"s{k} = {format_affine(A[k], float(c[k]))}" in text


def _text_rect(label):
    return label.mapRectToScene(label.boundingRect())


@pytest.mark.parametrize("zoom", [1.0, 1.6])
def test_the_diagrams_names_and_biases_stand_apart_and_whole(shown_panel, theme, zoom):
    """Seen at zoom 1.6 with six layers: the layers' names ran into one another
    ("identityidentity…") and the output biases were cut off at the plot's right edge.
    Each name stands clear of the others and each bias lies inside the plot."""
    theme.set_zoom(zoom)
    panel = shown_panel(PlaygroundPanel, size=(1100, 700))
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("spirals"))
    c.classes_spin.setValue(6)
    for _ in range(3):
        panel.add_layer()
    panel.set_activation("identity")
    panel.driver.draw_all()
    diagram = panel.diagram
    assert len(diagram.layer_labels) == 6 and len(diagram.bias_labels) == 6
    names = [_text_rect(label) for label in diagram.layer_labels]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not a.intersects(b), [label.toPlainText() for label in diagram.layer_labels]
    inside = diagram.plot.getPlotItem().getViewBox().sceneBoundingRect()
    for label in diagram.bias_labels:
        assert inside.contains(_text_rect(label)), label.toPlainText()
