"""Every theme readable: WCAG contrast of text and data, legends and titles that grow
with the zoom, axis numbers never rescaled.

Text (labels, fields, buttons, legends, titles, axis numbers, disabled and placeholder
text, error messages) is held to 4.5:1 against its background; lines and markers to
3:1 against the plot's (WCAG 2.2, 1.4.3 and 1.4.11). A disabled field must look
disabled: dimmer text than an enabled one, on the window's colour instead of a field's.
The walk over the plots checks the pens and brushes the panels actually use, with the
alpha they are drawn with, so a restart drawn faint or a class drawn near-black fails.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from relulab.ui.items.band import Band
from relulab.ui.panels import PANELS
from relulab.ui.theme import (
    DATA_CONTRAST,
    DATA_ROLES,
    SERIES_COLOURS,
    TEXT_CONTRAST,
    THEMES,
    Theme,
    contrast_ratio,
    current_theme,
    over,
)

Role, Group = QPalette.ColorRole, QPalette.ColorGroup


def test_contrast_ratio_is_wcag():
    assert contrast_ratio(QColor("#000000"), QColor("#FFFFFF")) == pytest.approx(21.0)
    assert contrast_ratio(QColor("#FFFFFF"), QColor("#FFFFFF")) == pytest.approx(1.0)
    assert contrast_ratio(QColor("#767676"), QColor("#FFFFFF")) == pytest.approx(4.54, abs=0.01)
    half = QColor(0, 0, 0, 128)  # half-transparent black over white is mid grey
    assert over(half, QColor("#FFFFFF")).red() == 127
    assert contrast_ratio(half, QColor("#FFFFFF")) < 5


@pytest.mark.parametrize("name", THEMES)
def test_text_of_the_widgets_reaches_4_5_to_1(name, qapp):
    pal = Theme(name).palette()
    for text, background in ((Role.WindowText, Role.Window), (Role.Text, Role.Base),
                             (Role.ButtonText, Role.Button), (Role.ToolTipText, Role.ToolTipBase),
                             (Role.HighlightedText, Role.Highlight),
                             (Role.PlaceholderText, Role.Base), (Role.Text, Role.AlternateBase)):
        ratio = contrast_ratio(pal.color(Group.Active, text), pal.color(Group.Active, background))
        assert ratio >= TEXT_CONTRAST, f"{name}: {text.name} on {background.name}: {ratio:.2f}"


@pytest.mark.parametrize("name", THEMES)
def test_disabled_fields_look_disabled_and_stay_readable(name, qapp):
    pal = Theme(name).palette()
    for text, background in ((Role.Text, Role.Base), (Role.WindowText, Role.Window),
                             (Role.ButtonText, Role.Button)):
        enabled = contrast_ratio(pal.color(Group.Active, text), pal.color(Group.Active, background))
        disabled = contrast_ratio(pal.color(Group.Disabled, text),
                                  pal.color(Group.Disabled, background))
        assert disabled >= 3.0, f"{name}: disabled {text.name} unreadable ({disabled:.2f})"
        assert disabled <= 0.7 * enabled, \
            f"{name}: disabled {text.name} as strong as enabled ({disabled:.2f} / {enabled:.2f})"
    assert pal.color(Group.Disabled, Role.Base) != pal.color(Group.Active, Role.Base)


@pytest.mark.parametrize("name", THEMES)
def test_error_messages_and_plot_text_reach_4_5_to_1(name, qapp):
    t = Theme(name)
    for background in ("window", "field", "background"):
        ratio = contrast_ratio(t.color("error_text"), t.color(background))
        assert ratio >= TEXT_CONTRAST, f"{name}: error text on {background}: {ratio:.2f}"
    assert contrast_ratio(t.color("foreground"), t.color("background")) >= 7.0


@pytest.mark.parametrize("name", THEMES)
def test_every_data_colour_reaches_3_to_1_on_the_plot(name, qapp):
    t = Theme(name)
    bg = t.color("background")
    for role in DATA_ROLES:
        ratio = contrast_ratio(t.color(role), bg)
        assert ratio >= DATA_CONTRAST, f"{name}: {role} {t.color(role).name()}: {ratio:.2f}"
    for i in range(len(SERIES_COLOURS[name])):
        ratio = contrast_ratio(t.series_color(i), bg)
        assert ratio >= DATA_CONTRAST, f"{name}: series {i} {t.series_color(i).name()}: {ratio:.2f}"


def test_every_theme_offered_has_its_own_colours(qapp):
    """The themes the command line, the settings and the View menu offer are the ones
    the theme colours: a name without colours of its own would show the light theme's,
    and the contrast checks above would pass on them."""
    from relulab.ui.theme import COLOUR_WORDS

    for name in THEMES:
        assert Theme(name).name == name
    assert set(SERIES_COLOURS) == set(COLOUR_WORDS) == set(THEMES)


# -- the plots as drawn ------------------------------------------------------------------
def _plots(window):
    for name in window.panels:
        panel = window.panel(name)
        for view in panel.findChildren(pg.PlotWidget):
            yield name, view


def _colour(pen_or_brush):
    c = QColor(pen_or_brush.color())
    return c


def _pen_visible(pen) -> bool:
    return pen is not None and pen.style() != Qt.PenStyle.NoPen and pen.color().alpha() > 0


def _data_problems(panel_name, view, theme) -> list[str]:
    """Lines and markers of one plot below 3:1 (decorations in the grid colour excepted)."""
    bg = theme.color("background")
    grid = theme.color("grid").rgb()
    where = f"{panel_name}/{view.objectName()}"
    problems = []

    def check(colour, what):
        if colour.rgb() == grid:  # zero lines and frames: decorations, not data
            return
        ratio = contrast_ratio(colour, bg)
        if ratio < DATA_CONTRAST:
            problems.append(f"{where}: {what} {colour.name(QColor.NameFormat.HexArgb)} {ratio:.2f}")

    for item in view.getPlotItem().items:
        if isinstance(item, pg.PlotDataItem):
            pen = pg.mkPen(item.opts["pen"])
            if _pen_visible(pen) and item.opts.get("symbol") is None:
                check(_colour(pen), f"curve {item.name() or ''}")
            elif item.opts.get("symbol") is not None:
                fill = pg.mkBrush(item.opts["symbolBrush"]) if item.opts["symbolBrush"] is not None else None
                outline = pg.mkPen(item.opts["symbolPen"]) if item.opts["symbolPen"] is not None else None
                _marker(check, fill, outline, f"markers {item.name() or ''}", bg)
                if _pen_visible(pen):
                    check(_colour(pen), f"curve {item.name() or ''}")
        elif isinstance(item, Band):
            continue  # a shaded area (the band a dense curve fills), like a fill
        elif isinstance(item, pg.PlotCurveItem):
            pen = pg.mkPen(item.opts["pen"])
            if _pen_visible(pen):
                check(_colour(pen), "curve")
        elif isinstance(item, pg.ScatterPlotItem):
            for spot in item.points()[:200]:
                _marker(check, spot.brush(), spot.pen(), "marker", bg)
            if not len(item.points()):
                _marker(check, pg.mkBrush(item.opts["brush"]), pg.mkPen(item.opts["pen"]),
                        "marker", bg)
        elif isinstance(item, pg.InfiniteLine):
            if _pen_visible(item.pen):
                check(_colour(item.pen), "line")
        elif isinstance(item, pg.BarGraphItem):
            brushes = item.opts.get("brushes") or [item.opts.get("brush")]
            for b in brushes:
                if b is not None:
                    check(_colour(pg.mkBrush(b)), "bar")
    return problems


def _marker(check, brush, pen, what, bg):
    """A marker is seen by its fill or its outline: the better of the two must reach 3:1."""
    options = []
    if brush is not None and brush.style() != Qt.BrushStyle.NoBrush and brush.color().alpha():
        options.append(_colour(brush))
    if _pen_visible(pen):
        options.append(_colour(pen))
    if options:
        check(max(options, key=lambda c: contrast_ratio(c, bg)), what)


def _text_problems(panel_name, view, theme) -> list[str]:
    """Axis numbers, legends and titles: the foreground colour, 4.5:1, zoomed sizes."""
    bg = theme.color("background")
    where = f"{panel_name}/{view.objectName()}"
    item = view.getPlotItem()
    problems = []
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        if contrast_ratio(axis.textPen().color(), bg) < TEXT_CONTRAST:
            problems.append(f"{where}: {name} axis text {axis.textPen().color().name()}")
        if axis.autoSIPrefix or axis.autoSIPrefixScale != 1.0:
            problems.append(f"{where}: {name} axis rescales its numbers (SI prefix)")
        if axis.style["tickFont"] is None or \
                axis.style["tickFont"].pointSizeF() < 8.9 * theme.zoom:
            problems.append(f"{where}: {name} axis numbers not zoomed")
    legend = item.legend
    if legend is not None:
        legend_bg = over(legend.opts["brush"].color(), bg) if legend.opts["brush"] else bg
        for _sample, label in legend.items:
            colour = pg.mkColor(label.opts.get("color") or pg.getConfigOption("foreground"))
            if contrast_ratio(colour, legend_bg) < TEXT_CONTRAST:
                problems.append(f"{where}: legend '{label.text}' {colour.name()}")
            size = label.opts.get("size", "")
            if not size.endswith("pt") or float(size[:-2]) < 9.0 * theme.zoom:
                problems.append(f"{where}: legend '{label.text}' {size or 'default size'}")
    title = item.titleLabel
    if title.text:
        colour = pg.mkColor(title.opts.get("color") or pg.getConfigOption("foreground"))
        if contrast_ratio(colour, bg) < TEXT_CONTRAST:
            problems.append(f"{where}: title '{title.text}' {colour.name()}")
        size = title.opts.get("size", "")
        if not size.endswith("pt") or float(size[:-2]) < 8.9 * theme.zoom:
            problems.append(f"{where}: title '{title.text}' {size or 'default size'}")
    return problems


@pytest.mark.parametrize("name", THEMES)
def test_every_plot_is_readable_in_every_theme(name, qtbot, theme):
    """Every panel's plots, after the theme switch and at zoom 1.6: text, legends, titles
    and every line and marker."""
    from relulab.app import build_main_window

    window = build_main_window()
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    for p in PANELS:
        window.show_panel(p.name)
        window.panel(p.name).wait_until_idle(60)
    theme.set_name(name)
    theme.set_zoom(1.6)
    QApplication.processEvents()
    problems = []
    for panel_name, view in _plots(window):
        problems += _text_problems(panel_name, view, theme)
        problems += _data_problems(panel_name, view, theme)
    window.close()
    assert not problems, "\n".join(problems)


def test_the_lecture_scenes_are_readable_too(qtbot, theme):
    """Each built-in scene's plots in high contrast at zoom 1.6 (the projector)."""
    from relulab.app import build_main_window

    window = build_main_window()
    qtbot.addWidget(window)
    window.show()
    theme.set_name("high-contrast")
    theme.set_zoom(1.6)
    assert window.lecture.start_builtin()
    problems = []
    for i in range(len(window.lecture.playlist.scenes)):
        window.lecture.go(i)
        panel = window.current_panel()
        panel.wait_until_idle(60)
        QApplication.processEvents()
        for view in panel.findChildren(pg.PlotWidget):
            problems += [f"scene {i + 1}: {p}" for p in _text_problems(panel.name, view, theme)
                         + _data_problems(panel.name, view, theme)]
    window.lecture.end()
    window.close()
    assert not problems, "\n".join(problems)


def test_the_theme_is_the_application_s(theme):
    assert current_theme() is theme


@pytest.mark.parametrize("name", THEMES)
def test_the_least_alpha_keeps_a_faded_line_at_3_to_1(name, qapp):
    t = Theme(name)
    for role in ("approx", "accent", "second"):
        c = t.color(role)
        a = t.least_alpha(c)
        c.setAlpha(a)
        assert contrast_ratio(c, t.color("background")) >= DATA_CONTRAST
        if a > 0:
            c.setAlpha(a - 1)
            assert contrast_ratio(c, t.color("background")) < DATA_CONTRAST


#: What a colour word may name: (least hue, most hue) in degrees, or a lightness test.
_WORDS = {
    "black": lambda c: c.lightness() < 40,
    "white": lambda c: c.lightness() > 215,
    "grey": lambda c: c.hslSaturation() < 30,
    "orange": lambda c: 15 <= c.hslHue() <= 45,
    "yellow": lambda c: 46 <= c.hslHue() <= 70,
    "green": lambda c: 140 <= c.hslHue() <= 180,
}


@pytest.mark.parametrize("name", THEMES)
def test_words_about_the_plots_name_the_colours_shown(name, main_window, theme):
    """Seen in the high-contrast screenshot: Training's explanation spoke of "the black
    curve" and "thick orange" over a white target and a yellow best restart. Each colour
    word is true of its role in every theme, and the text follows a theme switch."""
    from relulab.ui.theme import COLOUR_WORDS

    for role, word in COLOUR_WORDS[name].items():
        shown = Theme(name).color(role)
        assert _WORDS[word](shown), f"{name}: {role} is {shown.name()}, not {word}"
    panel = main_window.show_panel("training")
    theme.set_name(name)
    QApplication.processEvents()
    text = panel.explain.text()
    assert f"the {theme.colour_word('target')} curve" in text
    assert f"thick {theme.colour_word('approx')}" in text
    assert f"Dashed {theme.colour_word('second')}" in text
