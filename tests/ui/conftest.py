import pyqtgraph as pg
import pytest


@pytest.fixture(autouse=True)
def _pyqtgraph_for_tests(qapp):
    """Mouse moves reach items at once (no rate limit) and drags start at once."""
    pg.setConfigOption("mouseRateLimit", -1)
    yield


@pytest.fixture
def main_window(qtbot, theme):
    from relulab.app import build_main_window

    window = build_main_window()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()


@pytest.fixture
def shown_panel(qtbot, theme):
    """``shown_panel(PanelClass, size=(1280, 800))``: the panel alone, shown and exposed;
    shut down (timers and threads stopped) after the test."""
    made = []

    def make(panel_class, size=(1280, 800)):
        p = panel_class()
        qtbot.addWidget(p)
        p.resize(*size)
        p.show()
        qtbot.waitExposed(p)
        made.append(p)
        return p

    yield make
    for p in made:
        p.shutdown()
