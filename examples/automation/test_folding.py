"""Folding: go to depth 10 with the ] key and read the certified piece count."""
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from relulab.testing import finished


def test_fold_to_depth_10(relulab_window):
    folding = relulab_window.show_panel("folding")
    folding.set_depth(9)
    with finished(folding, "counts"):
        QTest.keyClick(QApplication.focusWidget(), "]")  # one layer deeper
    counts = folding.readouts()
    assert counts["depth"] == 10 and counts["neurons"] == 20
    assert counts["pieces"] == 2 ** 10 and counts["exact"] is True
    assert counts["shallow_neurons"] == 2 ** 10 - 1
