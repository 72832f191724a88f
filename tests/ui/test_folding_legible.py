"""What a learner sees on the Folding panel is true and legible: a count that is not
the formula's says why, in the model's numbers; what is exact and what is floating
point is said of the depth and peak shown; nothing of the depth shown before passes
for the one being computed; the wheel stretches x only; one number format; exports
keep no instruction."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QLabel

from relulab.model.pieces.folding import (
    EXACT_KNOTS,
    tent_counts_formula,
    tent_peak_value,
    tent_pieces,
    tent_slivers,
)
from relulab.testing.mouse import data_to_viewport, graphics_view
from relulab.ui.export import export_svg
from relulab.ui.panels.folding import FoldingPanel


@pytest.fixture
def panel(shown_panel):
    return shown_panel(FoldingPanel, size=(1366, 740))


def settle(panel, qtbot):
    """A guard against a hang, not a speed test (two busy cores)."""
    qtbot.waitUntil(lambda: not panel.computing(), timeout=120_000)


def visible_texts(panel) -> list[str]:
    """Every text the panel shows: its labels, the plots' titles and the words on
    the plots, as plain text."""
    texts = [label.text() for label in panel.findChildren(QLabel) if label.isVisible()]
    for pw in panel.plots().values():
        item = pw.getPlotItem()
        texts.append(item.titleLabel.text or "")
        texts += [i.textItem.toPlainText() for i in item.items
                  if hasattr(i, "textItem") and i.isVisible()]
    return texts


def digits(text: str) -> str:
    """The text with digit groups joined: 16 384, 16 384 and 16,384 all read 16384."""
    return re.sub(r"(?<=\d)[,\s\u2009\u202f\xa0](?=\d{3})", "", text)


# -- 1. a count that is not the formula's says why ---------------------------------
def test_ten_pieces_against_a_picture_of_eight_say_why(panel, qtbot):
    """At peak 0.38 the network composed 3 times has 10 pieces on [0, 1]: the picture,
    the formula 2ᵏ and the chart show the ideal tent's 8. The count says how many are
    visible and that the others are slivers; the note names the formula and the chart
    and gives the top, the end and the widths, all the model's numbers."""
    panel.set_peak(0.38)
    panel.set_depth(3)
    pl = tent_pieces(3, 0.38)
    slivers = tent_slivers(pl, 3, 0.38)
    top, end = (float(v) for v in tent_peak_value(0.38))
    pieces, kinks = tent_counts_formula(3)
    assert slivers.count == 2 and panel.readouts()["pieces"] == pieces + slivers.count
    count = panel.count_label.text()
    assert (f"<b>10</b> pieces on [0, 1] ({pieces} visible, {slivers.count} slivers narrower "
            f"than 1.6e-16: 1/p is rounded)") in count
    assert slivers.widest < 1.6e-16
    note = panel.precision_label.text()
    assert (f"The formula 2<sup>k</sup> and the chart count the ideal tent: {pieces} pieces "
            f"on [0, 1], {kinks} kinks.") in note
    assert f"tops out at 1 + {top:.1e} and ends at −{-end:.1e}" in note
    assert (f"{slivers.count} slivers, {slivers.narrowest:.1e} to {slivers.widest:.1e} wide"
            in note)
    _x, y = panel.deep_marker.getData()  # the chart: the ideal tent's 2^k, and it says so
    assert 10 ** y[0] == pytest.approx(pieces)
    assert "2ᵏ (ideal)" in panel.figures.chart_key.plain_text()
    panel.set_peak(0.5)  # the ideal tent itself: nothing to explain
    assert "(8 visible" not in panel.count_label.text() and panel.precision_label.text() == ""


# -- 2. what is exact and what is floating point, at that depth and peak ------------
def test_a_floating_point_count_says_what_is_exact_at_that_depth_and_peak(panel, qtbot):
    """At peak 0.38 depth 15 passes the exact walk's budget (its slivers add knots):
    "Exact to depth 15" beside "depth 15 is beyond exact arithmetic" contradicted
    itself. The note says that this depth's count and picture are floating point and
    why, and that the neuron counts are exact."""
    panel.set_peak(0.38)
    panel.set_depth(15)
    settle(panel, qtbot)
    assert not panel.readouts()["exact"]
    assert "(floating point only, not certified)" in panel.count_label.text()
    note = panel.precision_label.text()
    assert "At peak 0.38, g<sup>(15)</sup> is counted in floating point only" in note
    assert f"exact rational arithmetic passed its budget of {EXACT_KNOTS:,} knots" in note
    assert "Its count and picture are floating point; the neuron counts are exact." in note
    assert "beyond exact arithmetic" not in note and "Exact to depth" not in note


def test_your_fold_says_which_of_its_compositions_are_exact(panel, qtbot):
    """The tent is exact at depth 8 (peak ½); the zigzag composed 8 times is not
    computed: the reason names your fold's compositions, not "depth 8"."""
    panel.set_depth(8)
    settle(panel, qtbot)
    assert "(exact)" in panel.count_label.text()
    text = panel.fold_count_label.text()
    assert "Your fold u<sup>(8)</sup>: not computed from u⁽⁸⁾ on" in text
    assert "u⁽¹⁾ to u⁽⁷⁾ are counted exactly" in text
    assert "depth 8 is beyond" not in text
    panel.set_depth(7)
    settle(panel, qtbot)
    assert f"<b>{3 ** 7:,}</b> pieces on [0, 1], {3 ** 7:,} kinks on the line (exact)" in (
        panel.fold_count_label.text())


# -- 3. nothing of the depth before passes for the one being computed ---------------
def test_while_a_deep_tent_is_computed_the_old_depths_numbers_are_gone(panel, qtbot):
    panel.set_depth(14)  # at once: a band of 16,384 pieces and its note
    QApplication.processEvents()
    assert panel.tent_view.dense and any("16384" in digits(t) for t in visible_texts(panel))
    panel.set_depth(20)
    assert panel.computing()
    shown = [digits(t) for t in visible_texts(panel)]
    assert not any("16384" in t for t in shown), shown
    assert "computing depth 20…" in panel.count_label.text()
    title = panel.plot.getPlotItem().titleLabel.text
    assert "g<sup>(20)</sup>" in title and "computing" in title
    x, _y = panel.curve.getData()
    assert x is None or len(x) == 0
    assert panel.readouts()["pieces"] is None
    settle(panel, qtbot)
    assert f"<b>{2 ** 20:,}</b> pieces on [0, 1]" in panel.count_label.text()
    assert "computing" not in panel.plot.getPlotItem().titleLabel.text


# -- 4. the wheel stretches x; y stays the curve's -----------------------------------
def _wheel(plot, x: float, y: float, steps: int = 3) -> None:
    view = graphics_view(plot)
    pos = data_to_viewport(plot, x, y)
    global_pos = QPointF(view.viewport().mapToGlobal(pos.toPoint()))
    event = QWheelEvent(pos, global_pos, QPoint(0, 0), QPoint(0, 120 * steps),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), event)


@pytest.mark.parametrize("name", ["main", "fold"])
def test_the_wheel_zooms_x_only(panel, qtbot, name):
    panel.set_depth(12)
    settle(panel, qtbot)
    plot = panel.plots()[name]
    vb = plot.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    _wheel(plot, 0.5, 0.5)
    (a, b), (c, d) = vb.viewRange()
    assert b - a < 0.8 * (x1 - x0)  # zoomed in on x
    assert (c, d) == pytest.approx((y0, y1))  # the teeth keep their height


def test_no_auto_range_button_on_any_plot(panel, qtbot):
    """pyqtgraph's "A" shows once a zoom leaves auto-range, while the mouse is over
    the plot: never here."""
    panel.set_depth(12)
    settle(panel, qtbot)
    _wheel(panel.plot, 0.5, 0.5)
    for name, plot in panel.plots().items():
        item = plot.getPlotItem()
        item.mouseHovering = True
        item.updateButtons()
        assert not item.autoBtn.isVisible(), name
        assert item.buttonsHidden, name


# -- exports ----------------------------------------------------------------------
def test_an_exported_picture_keeps_the_note_but_not_the_instruction(panel, qtbot, tmp_path):
    panel.set_depth(12)
    QApplication.processEvents()
    view = panel.tent_view
    assert view.dense
    svg = export_svg(panel.plot, tmp_path / "tent.svg").read_text()
    assert "Scroll" not in svg
    assert "pieces: about" in svg  # what the band is stays
    assert view.hint.isVisible() and "Scroll on the plot" in view.hint.toPlainText()


# -- one number format -------------------------------------------------------------
SPACED = re.compile(r"\d[ \u2009\u202f\xa0]\d{3}(?!\d)")


def test_every_number_has_a_comma_for_thousands(panel, qtbot):
    """16,384 and 2,500, never 16 384 (thin or plain spaces), on the panel (its guide:
    test_folding_guide.py)."""
    seen = []
    for depth, peak in ((14, 0.5), (20, 0.5), (12, 0.5), (9, 0.38)):
        panel.set_peak(peak)
        panel.set_depth(depth)
        settle(panel, qtbot)
        QApplication.processEvents()
        seen += visible_texts(panel)
    text = "\n".join(seen)
    assert "16,384" in text and "1,048,576" in text and "2,500" in text
    assert not SPACED.findall(text), SPACED.findall(text)
