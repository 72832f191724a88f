"""What the Deep → shallow panel looks like: every label and plot item in the colours
of the theme in use after a switch at run time, the key under the plot, the autorange
button hidden, exports without on-screen hints, and one number format."""

from __future__ import annotations

import re

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel

from relulab.ui.items.path_item import PathItem
from relulab.ui.panels.converter import ConverterPanel
from relulab.ui.panels.converter.slices import SLICE_CLASS_COLOURS

#: The theme's roles a label or a plot item of the panel may be drawn in.
ROLES = ("background", "foreground", "grid", "target", "approx", "accent", "second", "muted",
         "handle", "selected", "error", "error_text")
THEME_ORDER = ("dark", "high-contrast", "light")


def _wait(panel):
    assert panel.wait_until_idle(60)


@pytest.fixture
def panel(qtbot, theme):
    theme.apply_to_application()  # the palette of a fresh light theme, whatever ran before
    p = ConverterPanel()
    qtbot.addWidget(p)
    p.resize(1366, 740)
    p.show()
    _wait(p)
    yield p
    p.shutdown()


def _rgb(colour) -> str:
    return QColor(colour).name()


def _allowed(theme) -> set[str]:
    colours = {_rgb(theme.color(r)) for r in ROLES}
    colours |= {_rgb(theme.series_color(i)) for i in range(7)}
    colours |= {_rgb(theme.class_color(k)) for k in range(6)}
    return colours | {_rgb(c) for c in SLICE_CLASS_COLOURS}


def label_colour(label: QLabel) -> QColor:
    """The colour a label's text is drawn in: its style sheet's, else its palette's."""
    found = re.search(r"color:\s*(#[0-9a-fA-F]{6})", label.styleSheet())
    return QColor(found.group(1)) if found else label.palette().color(label.foregroundRole())


def label_problems(panel, theme) -> list[str]:
    """Every label of the panel in the theme's text colours (errors in its error colour),
    and every colour a rich-text label writes one of the theme's."""
    text = {_rgb(theme.color("foreground")), _rgb(theme.color("error_text"))}
    found = []
    for label in panel.findChildren(QLabel):
        name = label.objectName() or f"{type(label).__name__} '{label.text()[:20]}'"
        if _rgb(label_colour(label)) not in text:
            found.append(f"{theme.name}: {name} in {_rgb(label_colour(label))}")
        for colour in re.findall(r"color:\s*(#[0-9a-fA-F]{6})", label.text()):
            if _rgb(colour) not in _allowed(theme):
                found.append(f"{theme.name}: {name} writes in {colour}")
    return found


def _item_colours(item) -> list[QColor]:
    if isinstance(item, pg.PlotDataItem):
        pen = item.opts["pen"]
        return [] if pen is None else [pg.mkPen(pen).color()]
    if isinstance(item, pg.ScatterPlotItem):
        return [pg.mkPen(item.opts["pen"]).color(), pg.mkBrush(item.opts["brush"]).color()]
    if isinstance(item, pg.TextItem):
        return [QColor(item.color)]
    if isinstance(item, pg.InfiniteLine):
        label = getattr(item, "label", None)
        return [item.pen.color()] + ([QColor(label.color)] if label is not None else [])
    if isinstance(item, PathItem):
        drawn = []
        if item.pen().style() != Qt.PenStyle.NoPen:
            drawn.append(item.pen().color())
        if item.brush().style() != Qt.BrushStyle.NoBrush:
            drawn.append(item.brush().color())
        return drawn
    return []


def plot_problems(panel, theme) -> list[str]:
    """The plots' backgrounds, axes and titles in the theme's colours, the curves in
    their roles', and every item drawn on them in one of the theme's colours."""
    fg, bg = _rgb(theme.color("foreground")), _rgb(theme.color("background"))
    allowed = _allowed(theme)
    found = []
    for plot in (panel.main_plot, panel.diff_plot):
        name, item = plot.objectName(), plot.getPlotItem()
        if _rgb(plot.backgroundBrush().color()) != bg:
            found.append(f"{theme.name}: {name}'s background")
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            if _rgb(axis.pen().color()) != fg or _rgb(axis.textPen().color()) != fg:
                found.append(f"{theme.name}: {name}'s {side} axis")
        title = item.titleLabel
        if title.text and _rgb(title.opts.get("color")) != fg:
            found.append(f"{theme.name}: {name}'s title in {title.opts.get('color')}")
        for gi in item.getViewBox().addedItems:
            for colour in _item_colours(gi):
                if colour.alpha() and _rgb(colour) not in allowed:
                    found.append(f"{theme.name}: {name}: {type(gi).__name__} in {_rgb(colour)}")
    for curve, role in ((panel.deep_curve, "target"), (panel.shallow_curve, "approx"),
                        (panel.diff_curve, "error")):
        if _rgb(_item_colours(curve)[0]) != _rgb(theme.color(role)):
            found.append(f"{theme.name}: a curve not in {role}")
    for gi in panel.slice_drawing.items:
        if (isinstance(gi, pg.TextItem) and panel.slice_view.cut.kind != "line"
                and _rgb(gi.color) != fg):
            found.append(f"{theme.name}: the map's label {gi.toPlainText()!r} in {_rgb(gi.color)}")
    return found


def _cycle(panel, theme) -> list[str]:
    problems = label_problems(panel, theme) + plot_problems(panel, theme)
    for name in THEME_ORDER:
        theme.set_name(name)
        QApplication.processEvents()  # the application's palette reaches the widgets
        _wait(panel)
        problems += label_problems(panel, theme) + plot_problems(panel, theme)
    return problems


def test_a_theme_switch_restyles_the_region_map(panel, theme):
    assert not _cycle(panel, theme)


def test_a_theme_switch_restyles_the_curves_and_an_error(panel, theme):
    panel.set_tent_depth(4)
    _wait(panel)
    panel.load_file("no-such-file.json")  # an error message, in the error colour
    assert panel.message.text()
    assert not _cycle(panel, theme)


def test_a_theme_switch_restyles_the_digits_slice_and_its_words(panel, theme):
    """Seen: after a switch the verdict ("The shallow network is not built here: …")
    and the example's caption kept the old theme's text colour, black on dark."""
    assert panel.open_example()
    _wait(panel)
    assert "not built here" in panel.verdict.text() and "digits" in panel.message.text()
    assert not _cycle(panel, theme)
    panel.slicing.choose_kind("line")  # the kinks of the ten outputs along A → B
    _wait(panel)
    assert panel.state.slice.kind == "line"
    assert not _cycle(panel, theme)


def _points_under(rect, plot, items) -> int:
    """How many data points of ``items`` (curves, markers) are drawn inside ``rect``
    (scene coordinates) of ``plot``."""
    vb = plot.getPlotItem().getViewBox()
    under = 0
    for item in items:
        x, y = item.getData()
        for xi, yi in zip(x[::7], y[::7]):
            if rect.contains(vb.mapViewToScene(pg.Point(float(xi), float(yi)))):
                under += 1
    return under


def test_the_key_of_the_curves_lies_under_the_plot_and_covers_no_data(qtbot, panel):
    """Seen: the legend in the plot's corner covered the kinks of the tent map."""
    panel.set_tent_depth(4)
    _wait(panel)
    plot = panel.main_plot
    legends = [gi for gi in plot.scene().items()
               if isinstance(gi, pg.LegendItem) and gi.isVisible()]
    data = (panel.deep_curve, panel.shallow_curve, panel.kink_marks)
    for legend in legends:
        assert _points_under(legend.sceneBoundingRect(), plot, data) == 0
    key = panel.key
    assert key.isVisible() and key.y() >= plot.y() + plot.height()
    assert key.x() < plot.x() + plot.width() and key.width() > 0
    assert "deep" in key.plain_text() and "shallow" in key.plain_text() and "kinks" in key.plain_text()
    for colour in ("target", "approx", "accent"):
        assert panel.theme.color(colour).name() in key.text().lower()
    panel.arch_edit.setText("2-4-1")
    panel._on_architecture()
    _wait(panel)
    assert not key.isVisible()  # a map's colours are explained in words


def test_the_autorange_button_never_shows(qtbot, panel):
    """pyqtgraph's "A" button appears after a drag, over the plot's corner."""
    panel.set_tent_depth(2)
    _wait(panel)
    for plot in (panel.main_plot, panel.diff_plot):
        item = plot.getPlotItem()
        item.getViewBox().translateBy(x=0.5)  # a drag: auto-range is off
        item.mouseHovering = True
        item.updateButtons()
        assert not all(item.getViewBox().autoRangeEnabled())
        assert not item.autoBtn.isVisible(), plot.objectName()


def _svg_text(plot, tmp_path) -> str:
    from relulab.ui.export import export_svg

    path = export_svg(plot, tmp_path / f"{plot.objectName()}.svg")
    return re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))


def test_exported_pictures_keep_no_instructions(qtbot, panel, tmp_path):
    """File ▸ Export of the map, the curves and the digits plane: what a click or the
    keys do is said beside the plot on screen, never in the picture."""
    hints = re.compile(r"click|scroll|press|drag", re.IGNORECASE)
    assert panel.result.conversion.n_in == 2
    pictures = [_svg_text(panel.main_plot, tmp_path)]
    panel.set_tent_depth(3)
    _wait(panel)
    pictures += [_svg_text(panel.main_plot, tmp_path), _svg_text(panel.diff_plot, tmp_path)]
    assert panel.open_example()
    _wait(panel)
    pictures.append(_svg_text(panel.main_plot, tmp_path))
    assert "regions" in pictures[0] and "deep" in pictures[1]
    for text in pictures:
        assert not hints.search(text), hints.search(text).group(0)


# -- one number format: thousands with a comma ---------------------------------------
#: Digits grouped by a space (of any width): "16 777 216", "3 000".
SPACED = re.compile(r"\d[ \u00a0\u2009\u202f]\d{3}(?!\d)")
#: A count of four digits or more written without its comma (not a decimal's digits,
#: not part of a name).
BARE = re.compile(r"(?<![\d.,\w])\d{4,}(?![\d.,])")


def shown_texts(panel) -> list[str]:
    """Every text the panel shows: labels (and the verdict's tooltip), plot titles and
    axis labels, the map's labels, the kink table."""
    from relulab.ui.readout import plain_text

    texts = [plain_text(label.text(), label.textFormat()) for label in panel.findChildren(QLabel)
             if label.isVisibleTo(panel)]
    texts.append(panel.verdict.toolTip())
    for plot in (panel.main_plot, panel.diff_plot):
        item = plot.getPlotItem()
        texts.append(plain_text(item.titleLabel.text))
        texts += [plain_text(item.getAxis(side).labelText) for side in ("left", "bottom")]
    texts += [gi.toPlainText() for gi in panel.slice_drawing.items if isinstance(gi, pg.TextItem)]
    model = panel.kinks
    texts += [model.data(model.index(r, c)) for r in range(model.rowCount())
              for c in range(model.columnCount())]
    return texts


def number_problems(texts) -> list[str]:
    found = []
    for text in texts:
        text = re.sub(r"pattern [01|]+", "pattern", text)  # a region's on/off bits
        for pattern in (SPACED, BARE):
            found += [f"{m.group(0)!r} in {text[:70]!r}" for m in pattern.finditer(text)]
    return found


def test_the_panel_writes_thousands_with_a_comma(panel):
    """One format for the app's numbers (16,777,216; 20,000): seen, "at 1263 region
    witnesses … 2000 random points", "widths 1840, 1755, 35020", "p = 1751"."""
    problems = []
    assert panel.result.conversion.shallow.n_params >= 1000  # the sizes table has thousands
    panel.select_region(0)
    problems += number_problems(shown_texts(panel))
    panel.arch_edit.setText("1-40-40-1")  # more than a thousand parameters
    panel._on_architecture()
    _wait(panel)
    problems += number_problems(shown_texts(panel))
    assert panel.open_example()
    _wait(panel)
    panel.select_region(0)
    texts = shown_texts(panel)
    assert any("1,751" in t for t in texts) and any("68,310,819" in t for t in texts)
    problems += number_problems(texts)
    assert not problems, "\n".join(problems)


def test_the_guide_writes_thousands_with_a_comma():
    from relulab.ui.help import guide_markdown

    assert not number_problems(guide_markdown("converter").splitlines())
