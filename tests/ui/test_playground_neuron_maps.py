"""Each hidden neuron's map in the Playground's diagram is shown by itself when the
diagram has room for it (at most FIT_NEURONS neurons a layer, each map at least THUMB
pixels a side), on a 1366 × 768 laptop and on a 1280 × 720 projector at zoom 1.6; the
toggle still shows and hides them, and a choice made is kept in the scene."""

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from relulab.model.lessons.playground import PlaygroundState
from relulab.ui.main_window import default_size
from relulab.ui.panels.playground.diagram import FIT_NEURONS, THUMB

SETTINGS = {"laptop": (QSize(1366, 768), 1.0), "projector at zoom 1.6": (QSize(1280, 720), 1.6)}


@pytest.fixture(params=list(SETTINGS))
def playground(main_window, theme, request):
    screen, zoom = SETTINGS[request.param]
    theme.set_zoom(zoom)
    main_window.resize(default_size(screen))
    panel = main_window.show_panel("playground")
    settle(panel)
    return panel


def settle(panel) -> None:
    panel.wait_until_idle(60)
    panel.driver.draw_all()
    for _ in range(3):
        QApplication.processEvents()


def test_the_maps_are_on_by_default_where_they_fit(playground):
    panel = playground
    diagram = panel.diagram
    assert panel.state.view.thumbnails is None  # no choice made
    assert max(diagram._sizes) <= FIT_NEURONS
    side = diagram.map_side()
    assert side >= THUMB, f"a map is {side:.1f} px a side at the window's size"
    assert diagram.thumbnails and all(t.isVisible() for t in diagram.tiles)
    assert panel.controls.thumbnails_check.isChecked()
    # measured on screen: the first hidden layer's pictures are as large as said
    vb = diagram.plot.getPlotItem().getViewBox()
    rect = vb.mapViewToDevice(diagram.tiles[1].mapRectToView(diagram.tiles[1].boundingRect()))
    assert rect.boundingRect().width() >= THUMB - 0.5


def test_too_many_neurons_turn_them_off_and_fewer_on_again(playground):
    panel = playground
    panel.set_hidden((16,))
    settle(panel)
    assert not panel.diagram.thumbnails and not any(t.isVisible() for t in panel.diagram.tiles)
    assert not panel.controls.thumbnails_check.isChecked()
    panel.set_hidden((5, 5))
    settle(panel)
    assert panel.diagram.thumbnails and panel.controls.thumbnails_check.isChecked()


def test_the_toggle_still_works_and_its_choice_is_kept(playground):
    panel = playground
    check = panel.controls.thumbnails_check
    check.setChecked(False)
    assert panel.state.view.thumbnails is False and not panel.diagram.thumbnails
    panel.set_hidden((4,))
    settle(panel)
    assert not panel.diagram.thumbnails  # a choice made stays, room or not
    check.setChecked(True)
    panel.set_hidden((20,))
    settle(panel)
    assert panel.diagram.thumbnails  # asked for: shown, even where they are small
    back = PlaygroundState.from_dict(panel.state_dict())
    assert back.view.thumbnails is True


def test_the_decision_is_the_diagrams_geometry(qtbot, theme):
    """A diagram too small for maps of THUMB pixels leaves them off by itself, and turns
    them on when it grows (a resize is enough)."""
    from relulab.model.networks.mlp import MLP
    from relulab.ui.panels.playground.diagram import NetworkDiagram

    diagram = NetworkDiagram(lambda _t: None, theme)
    qtbot.addWidget(diagram)
    diagram.apply_theme()
    diagram.set_thumbnails(None)
    diagram.resize(160, 140)
    diagram.show()
    diagram.show_network(MLP.random([2, 6, 6, 1], seed=0))
    qtbot.waitUntil(lambda: diagram.plot.getPlotItem().getViewBox().width() > 0)
    assert 0 < diagram.map_side() < THUMB and not diagram.thumbnails
    shown = []
    diagram.thumbnails_changed.connect(shown.append)
    diagram.resize(420, 420)
    qtbot.waitUntil(lambda: diagram.thumbnails, timeout=5000)
    assert diagram.map_side() >= THUMB and shown == [True]
    assert all(t.isVisible() for t in diagram.tiles)
