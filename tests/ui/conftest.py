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
