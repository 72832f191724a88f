"""Hinges: drag a kink handle on the plot, then undo the drag with Ctrl+Z."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from relulab.testing import drag


def test_drag_a_hinge_and_undo(relulab_window):
    hinges = relulab_window.show_panel("hinges")
    before = hinges.readouts()
    kinks = hinges.state.kinks
    x, y = hinges.handle_positions()[2]  # handle 2 sits at (kink 2, f̂(kink 2))
    drag(hinges.plots()["main"], (x, y), (x + 0.4, y))
    assert hinges.state.kinks[2] == pytest.approx(x + 0.4, abs=0.02)
    assert hinges.readouts()["rmse"] != before["rmse"]
    QTest.keyClick(relulab_window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert hinges.state.kinks == kinks and hinges.readouts() == before
