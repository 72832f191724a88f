"""Training: set the number of steps, press Space (the panel has the keys once shown)
and wait for training to finish."""
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QSpinBox

from relulab.testing import finished


def test_train(relulab_window):
    training = relulab_window.show_panel("training")
    training.findChild(QSpinBox, "training-steps").setValue(3000)
    with finished(training, "training"):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    done = training.readouts()
    assert done["step"] == done["steps"] == 3000
    assert done["best_rmse"] < 0.2 and done["status"] == "Finished 3,000 steps."
