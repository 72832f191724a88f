"""Readouts give their value to scripts (a value, a Qt property) and to screen readers
(accessible name = what it is, accessible description = what is shown)."""

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible

from relulab.ui.readout import Readout, plain_text, readout_key, readouts_of


def _accessible(widget, which):
    return QAccessible.queryAccessibleInterface(widget).text(which)


def test_a_number_is_data_and_the_text_is_read_aloud(qtbot):
    r = Readout("x-rmse", "RMSE")
    qtbot.addWidget(r)
    with qtbot.waitSignal(r.valueChanged) as changed:
        r.set_value(0.10223, "RMSE <b>0.1022</b>")
    assert changed.args == [0.10223]
    assert r.value == 0.10223 and r.property("value") == 0.10223
    assert r.text() == "RMSE <b>0.1022</b>"  # what is on screen is untouched
    assert r.shown_text == "RMSE 0.1022" == r.property("shownText")
    assert _accessible(r, QAccessible.Text.Name) == "RMSE"
    assert _accessible(r, QAccessible.Text.Description) == "RMSE 0.1022"
    r.set_value(0.05, "RMSE <b>0.0500</b>")  # kept current
    assert _accessible(r, QAccessible.Text.Description) == "RMSE 0.0500"
    assert r.key == "rmse"


def test_plain_text_makes_the_value_the_text(qtbot):
    r = Readout("x-status", "Status", key="state")
    qtbot.addWidget(r)
    r.setText("Training…")
    assert r.value == "Training…" and r.key == "state"
    r.setText("")
    assert r.value is None and r.accessibleDescription() == ""
    r.set_value(None, "computing…")
    assert r.value is None and r.shown_text == "computing…"


def test_the_value_signal_fires_on_changes_only(qtbot):
    r = Readout("x-count", "Count")
    qtbot.addWidget(r)
    seen = []
    r.valueChanged.connect(seen.append)
    r.set_value(3, "<b>3</b> pieces")
    r.set_value(3, "<b>3</b> pieces (exact)")
    r.set_value(3.0)  # another type is another value
    r.set_value(math.nan)
    r.set_value(math.nan)
    assert seen[:2] == [3, 3.0] and len(seen) == 3 and math.isnan(seen[2])


def test_rich_text_becomes_plain_text():
    assert plain_text("g<sup>(3)</sup>: <b>8</b>&nbsp;pieces") == "g(3): 8 pieces"
    assert plain_text("1\u2009048\u2009576") == "1 048 576"
    assert plain_text("a <b>", Qt.TextFormat.PlainText) == "a <b>"
    assert plain_text("x &lt; y", Qt.TextFormat.RichText) == "x < y"


def test_keys_and_the_mapping(qtbot):
    from PySide6.QtWidgets import QWidget

    assert readout_key("hinges-max-error") == "max_error"
    assert readout_key("plain") == "plain"
    root = QWidget()
    qtbot.addWidget(root)
    Readout("p-a", "A", parent=root).set_value(1)
    Readout("p-b", "B", key="bee", parent=root).setText("two")
    assert readouts_of(root) == {"a": 1, "bee": "two"}
