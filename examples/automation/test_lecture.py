"""Lecture: start the built-in lecture and step it with PageDown, as a clicker does."""
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from relulab.testing import waiting_for


def test_step_the_lecture(relulab_window):
    lecture = relulab_window.lecture
    assert lecture.start_builtin()
    with waiting_for(lecture.stepped) as stepped:
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_PageDown)
    assert stepped.args == (1,)  # the second scene (counted from 0)
    shown = lecture.readouts()
    assert shown["position"] == 2 and shown["caption"] == lecture.scene.caption
    lecture.end()
    assert lecture.readouts()["position"] is None
