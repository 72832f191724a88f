"""Playground: choose XOR, stop at 1,000 steps, train with Space, read the accuracy."""
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QSpinBox

from relulab.testing import finished


def test_train_xor(relulab_window):
    playground = relulab_window.show_panel("playground")
    dataset = playground.findChild(QComboBox, "playground-dataset")
    dataset.setCurrentIndex(dataset.findData("xor"))
    playground.findChild(QSpinBox, "playground-max-steps").setValue(1000)
    with finished(playground, "training"):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    result = playground.readouts()
    assert result["step"] == 1000
    assert result["train_accuracy"] >= 0.95 and result["test_accuracy"] >= 0.9
