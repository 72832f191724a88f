"""The Hinges panel tells the truth and stays legible: kinks follow a new domain, one
numbering of the hinges, "no hinge selected" when none is, plots that keep their
height on a laptop and a projector, one number format, themes switched while it is
open, no auto-range button, exports without instructions."""

import itertools
import re

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from relulab.model.data.targets import PRESETS, target_from_text
from relulab.model.fitting.hinges import convergence_study, evenly_spaced_kinks
from relulab.testing import mouse
from relulab.ui.main_window import default_size
from relulab.ui.panels.hinges import HingesPanel


@pytest.fixture
def panel(shown_panel):
    return shown_panel(HingesPanel, (1200, 760))


def choose_preset(panel, name):
    index = panel.preset_box.findText(name)
    panel.preset_box.setCurrentIndex(index)
    panel.preset_box.activated.emit(index)


# -- a preset with another domain --------------------------------------------------
@pytest.mark.parametrize("mode", ["least squares", "free"])
def test_a_preset_with_another_domain_brings_the_kinks_into_it(panel, qtbot, mode):
    """Seen: 24 kinks on [−3, 3], then the unit step on [−1, 1]: 16 kinks stayed
    outside, 8 handles showed, RMSE 0.0952 where the convergence plot said 0.0548."""
    panel.count_spin.setValue(24)
    panel.set_mode(mode)
    choose_preset(panel, "unit step")
    s = panel.state
    assert (s.a, s.b) == (PRESETS["unit step"].a, PRESETS["unit step"].b) == (-1.0, 1.0)
    np.testing.assert_allclose(s.kinks, evenly_spaced_kinks(-1, 1, 24), atol=1e-12)
    hx, _ = panel.handles.getData()
    assert len(hx) == 24 and np.all((hx > -1) & (hx < 1))
    qtbot.waitUntil(lambda: panel.convergence_done, timeout=20000)
    row = next(r for r in panel.convergence_rows if r.n == 24)
    expected = next(r for r in convergence_study(target_from_text("unit step", -1, 1), -1, 1,
                                                 (24,), s.points))
    assert row.ls_rmse == pytest.approx(expected.ls_rmse)
    if mode == "least squares":
        assert panel.rmse_label.text() == f"RMSE <b>{row.ls_rmse:.4f}</b>"
    else:  # Free starts from the least-squares slopes of the new target
        assert panel.fit.rmse == pytest.approx(row.ls_rmse, rel=1e-6)
    assert panel.conv_now.value() == pytest.approx(np.log10(24))
    panel.undo_stack.undo()
    assert (panel.state.a, panel.state.b) == (-3.0, 3.0)
    np.testing.assert_allclose(panel.state.kinks, evenly_spaced_kinks(-3, 3, 24), atol=1e-12)


def test_a_new_domain_typed_maps_the_kinks_too(panel):
    panel.b_spin.setValue(0.0)
    assert panel.state.b == 0.0
    np.testing.assert_allclose(panel.state.kinks, evenly_spaced_kinks(-3, 0, 6), atol=1e-12)


# -- the selected hinge ----------------------------------------------------------------
def test_with_no_hinge_selected_the_slope_change_box_says_so(panel):
    panel.set_mode("free")
    panel.select(2)
    assert panel.coefficient_spin.text() == f"{panel.state.coefficients[2]:.4f}"
    panel.select(None)
    assert panel.coefficient_spin.text() == "no hinge selected"
    assert not panel.coefficient_spin.isEnabled()
    panel.select(4)
    assert panel.coefficient_spin.text() == f"{panel.state.coefficients[4]:.4f}"
    panel.set_mode("least squares")  # no selection is kept across the mode switch …
    panel.select(1)
    panel._leave_plot()  # … and Esc drops it
    assert panel.coefficient_spin.text() == "no hinge selected"
    panel.set_mode("interpolation")
    assert panel.coefficient_spin.text() == "no hinge selected"


def test_hinges_are_numbered_left_to_right_everywhere(panel, qtbot):
    """Seen: a hinge added by a double-click was "Hinge 7 of 7" in the middle of the
    others, while Tab went left to right. One numbering: by position."""
    mouse.double_click(panel.plot, mouse.data_to_viewport(panel.plot, 1.7, -0.6))
    assert len(panel.state.kinks) == 7 and panel.state.selected == 6
    # kinks at ±0.429, ±1.286, ±2.143 and the new one at 1.7: the sixth from the left
    # a pixel of the plot is about 0.01 in x: the kink lands within 0.02 of 1.7
    assert panel.selected_label.text().startswith("Hinge 6 of 7: kink ")
    assert panel.state.kinks[6] == pytest.approx(1.7, abs=0.02)
    assert panel.readouts()["selected_hinge"] == 6
    rows = panel.data_tables()["hinges"][1]
    assert [r[0] for r in rows[2:]] == [f"hinge {n}" for n in range(1, 8)]
    assert [r[1] for r in rows[2:]] == sorted(panel.state.kinks)
    assert rows[2 + 5][1] == pytest.approx(panel.state.kinks[6])
    panel.select_step(1)  # Tab: the next to the right
    assert panel.selected_label.text().startswith("Hinge 7 of 7: kink 2.143")
    panel.select_step(-1)
    panel.select_step(-1)
    assert panel.selected_label.text().startswith("Hinge 5 of 7: kink 1.286")


# -- sizes -------------------------------------------------------------------------------
SIZES = {"laptop": (QSize(1366, 768), 1.0), "projector": (QSize(1280, 720), 1.6)}
#: The least height of every plot's data area, in pixels.
MIN_PLOT_HEIGHT = 120


def _inside(text, outer: pg.GraphicsObject) -> bool:
    """The text item's text (its rectangle less the document's empty margin) lies
    inside ``outer``."""
    m = text.document().documentMargin()
    box = outer.mapRectToScene(outer.boundingRect()).adjusted(-1, -1, 1, 1)
    return box.contains(text.mapRectToScene(text.boundingRect().adjusted(m, m, -m, -m)))


def _view(plot: pg.PlotWidget):
    return plot.getPlotItem().getViewBox()


@pytest.mark.parametrize("lecture", [False, True], ids=["controls", "lecture layout"])
@pytest.mark.parametrize("screen", SIZES, ids=SIZES.keys())
def test_every_plot_keeps_its_height_and_nothing_is_clipped(main_window, theme, screen,
                                                            lecture):
    """Seen at 1280 × 720, zoom 1.6, outside the lecture layout: the convergence plot a
    strip, its title cut ("… · slop"), its axis label cut, its numbers run together,
    its key over its axis. Each plot's data area keeps MIN_PLOT_HEIGHT; titles, axis
    labels and keys lie whole inside their plots and over nothing else."""
    size, zoom = SIZES[screen]
    window = main_window
    theme.set_zoom(zoom)
    window.resize(default_size(size))
    panel = window.show_panel("hinges")
    window.set_lecture_layout(lecture)
    QApplication.processEvents()
    panel.wait_until_idle(30)
    QApplication.processEvents()
    assert window.size() == default_size(size)
    panel.select(0)  # the longest readout line
    QApplication.processEvents()
    for name, plot in panel.plots().items():
        assert plot.isVisible(), name
        assert _view(plot).size().height() >= MIN_PLOT_HEIGHT, (name, _view(plot).size())
        item = plot.getPlotItem()
        for axis in ("left", "bottom"):
            label = item.getAxis(axis).label
            if item.getAxis(axis).isVisible() and label.toPlainText():
                assert _inside(label, item), (name, axis, label.toPlainText())
        if item.titleLabel.text:
            assert item.titleLabel.item.boundingRect().width() <= item.width(), name
    for box in (panel.main_box, panel.convergence_box):
        plot_rect = box.plot.geometry()
        key_rect = box.key.geometry()
        assert key_rect.top() >= plot_rect.bottom(), box.key.objectName()
        assert key_rect.height() >= box.key.heightForWidth(key_rect.width()), box.key.objectName()
    ticks = panel.convergence_plot.getPlotItem().getAxis("bottom")
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        rects = [r for r, _flags, _text in ticks.generateDrawSpecs(painter)[2]]
    finally:
        painter.end()
    assert len(rects) >= 4  # 1, 4, 16, 64 at least
    for a, b in itertools.pairwise(rects):
        assert not a.intersects(b), "tick numbers overprint"
    for label in (panel.rmse_label, panel.max_label, panel.selected_label):
        assert label.height() >= label.heightForWidth(label.width()) or not label.wordWrap()
    window.set_lecture_layout(False)
    theme.set_zoom(1.0)


def test_no_plot_has_the_auto_range_button(panel):
    """pyqtgraph shows an "A" in a plot's corner once its view is dragged and the mouse
    is over it; the panel sets its ranges itself."""
    for name, plot in panel.plots().items():
        item = plot.getPlotItem()
        item.getViewBox().translateBy(x=0.5)  # as after a drag of the view …
        item.mouseHovering = True  # … with the mouse over the plot
        item.updateButtons()
        assert item.autoBtn is None or not item.autoBtn.isVisible(), name


# -- one number format --------------------------------------------------------------------
SPACED_GROUPS = re.compile(r"\d[ \u00a0\u2009\u202f]\d{3}(?!\d)")


def _visible_texts(panel) -> list[str]:
    from relulab.ui.readout import plain_text

    texts = [plain_text(w.text()) for w in panel.findChildren(QLabel) if w.text()]
    texts += [w.text() for w in panel.findChildren(pg.QtWidgets.QAbstractSpinBox)]
    texts += [w.toolTip() for w in panel.findChildren(pg.QtWidgets.QWidget) if w.toolTip()]
    for plot in panel.plots().values():
        item = plot.getPlotItem()
        texts.append(item.titleLabel.text or "")
        texts += [item.getAxis(a).labelText for a in ("left", "bottom")]
    return texts


def test_thousands_are_written_with_a_comma(panel, qtbot):
    from relulab.ui.help import guide_markdown

    panel.points_spin.setValue(20000)
    qtbot.waitUntil(lambda: panel.convergence_done, timeout=60000)
    assert panel.points_spin.text() == "20,000"
    assert panel.max_label.text().endswith("on 20,000 samples")
    for text in [*_visible_texts(panel), guide_markdown("hinges"), guide_markdown("welcome")]:
        assert not SPACED_GROUPS.search(text), text


# -- themes at run time -------------------------------------------------------------------
def _label_colour(label: QLabel) -> str:
    found = re.search(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{6})", label.styleSheet())
    if found:
        return found.group(1).lower()
    return label.palette().color(QPalette.ColorRole.WindowText).name()


def test_every_label_and_plot_item_restyles_on_a_theme_switch(main_window, theme):
    panel = main_window.show_panel("hinges")
    panel.select(1)
    panel.set_target("step(x)")  # the caveat shows
    panel.controls.show_error("An error")
    panel.components_check.setChecked(True)
    QApplication.processEvents()
    for name in ("dark", "high-contrast", "light"):
        theme.set_name(name)
        QApplication.processEvents()
        fg = theme.color("foreground").name()
        for label in panel.findChildren(QLabel):
            expected = (theme.color("error_text").name() if label is panel.expression_error
                        else fg)
            assert _label_colour(label) == expected, (name, label.objectName() or label.text())
        for key in (panel.main_key, panel.convergence_key):
            colours = set(re.findall(r"color:(#[0-9a-f]{6})", key.text()))
            allowed = {theme.color(r).name() for r in ("target", "approx", "handle", "muted",
                                                       "foreground")}
            allowed |= {theme.series_color(i).name() for i in range(3)}
            assert colours and colours <= allowed, (name, key.objectName(), colours)
        pens = {"target_curve": "target", "approx_curve": "approx", "components_curve": "muted",
                "residual_curve": "error", "conv_bound": "muted", "conv_guide": "foreground"}
        for attr, role in pens.items():
            pen = getattr(panel, attr).opts["pen"]
            assert pen.color().name() == theme.color(role).name(), (name, attr)
        for i, attr in enumerate(("conv_ls_rmse", "conv_ls_max", "conv_interp")):
            item = getattr(panel, attr)
            assert item.opts["pen"].color().name() == theme.series_color(i).name(), (name, attr)
            assert item.opts["symbolBrush"].color().name() == theme.series_color(i).name()
        assert panel.residual_zero.pen.color().name() == theme.color("muted").name()
        assert panel.conv_now.pen.color().name() == theme.color("selected").name()
        assert panel.handles.opts["brush"].color().name() == theme.color("handle").name()
        assert panel.slope_text.color.name() == fg
        for plot in panel.plots().values():
            item = plot.getPlotItem()
            assert plot.backgroundBrush().color().name() == theme.color("background").name()
            for a in ("left", "bottom"):
                assert item.getAxis(a).textPen().color().name() == fg, (name, a)
                assert item.getAxis(a).labelStyle["color"] == fg, (name, a)
            if item.titleLabel.text:
                assert item.titleLabel.opts["color"] == fg, name


# -- exports -------------------------------------------------------------------------------
def test_the_exported_plot_holds_no_instruction(main_window, tmp_path):
    """What File ▸ Export writes is the main plot: no "click", "drag" or "Tab" in it,
    even with a hinge selected (its slope change is shown over it)."""
    panel = main_window.show_panel("hinges")
    panel.select(2)
    QApplication.processEvents()
    [path] = main_window.export_current("svg", tmp_path / "hinges.svg")
    text = re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")).lower()
    assert " 0 " in text  # the axis numbers are there, as text, and no instruction
    for words in ("click", "drag", "tab ", "press", "scroll"):
        assert words not in text, words
