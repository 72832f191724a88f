"""Colours, line widths and zoom, shared by every plot and control.

One :class:`Theme` object lives for the whole application. Panels style their
plots through it and listen to ``changed`` so that a zoom or theme switch reaches
every font, pen and handle at once, without a restart.

Colours are Okabe–Ito (safe for colour-blind viewers); series also differ by
line style so nothing depends on colour alone.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette, QPen
from PySide6.QtWidgets import QApplication

from relulab.ui.view_choices import DEFAULT_THEME, THEMES, ZOOM_MAX, ZOOM_MIN

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}

#: Lines and markers need a contrast of 3:1 with the plot's background (WCAG's bound
#: for graphics), text 4.5:1. On white, Okabe–Ito's orange, sky and yellow reach only
#: 1.3–2.3: the light theme uses the same hues darkened to 3.1 (yellow is left out of
#: its series), and the dark ones use sky where the others use blue (3.2 on #1E1E1E).
LIGHT_DATA = {"orange": "#C28600", "sky": "#1D99E0", "purple": "#B8689A",
              "yellow": "#9E940D"}

# role -> colour per theme (each of THEMES)
_SCHEMES = {
    "light": {
        "background": "#FFFFFF", "foreground": "#1A1A1A", "grid": "#D0D0D0",
        "target": "#000000", "approx": OKABE_ITO["vermillion"], "accent": OKABE_ITO["blue"],
        "second": OKABE_ITO["green"], "muted": "#7A7A7A", "handle": OKABE_ITO["blue"],
        "selected": LIGHT_DATA["orange"], "error": LIGHT_DATA["purple"],
        # the classes keep Okabe–Ito's hues, told apart from each other: their points
        # are outlined (filled ones in the foreground colour, hollow ones darkened)
        "class0": OKABE_ITO["blue"], "class1": OKABE_ITO["orange"],
        "class2": OKABE_ITO["green"], "class3": OKABE_ITO["vermillion"],
        "class4": OKABE_ITO["purple"], "class5": OKABE_ITO["sky"],
        # text: the window and its fields; errors in words
        "window": "#EFEFEF", "field": "#FFFFFF", "button": "#E2E2E2",
        "disabled_text": "#707070", "error_text": "#B3261E",
        **LIGHT_DATA,
    },
    "dark": {
        "background": "#1E1E1E", "foreground": "#EDEDED", "grid": "#4A4A4A",
        "target": "#FFFFFF", "approx": OKABE_ITO["orange"], "accent": OKABE_ITO["sky"],
        "second": OKABE_ITO["green"], "muted": "#9A9A9A", "handle": OKABE_ITO["sky"],
        "selected": OKABE_ITO["yellow"], "error": OKABE_ITO["purple"],
        "class0": OKABE_ITO["sky"], "class1": OKABE_ITO["orange"],
        "class2": OKABE_ITO["green"], "class3": OKABE_ITO["vermillion"],
        "class4": OKABE_ITO["purple"], "class5": OKABE_ITO["yellow"],
        "window": "#1E1E1E", "field": "#2B2B2B", "button": "#363636",
        "disabled_text": "#999999", "error_text": "#FF8A80",
        "blue": OKABE_ITO["sky"],
    },
    "high-contrast": {
        "background": "#000000", "foreground": "#FFFFFF", "grid": "#808080",
        "target": "#FFFFFF", "approx": OKABE_ITO["yellow"], "accent": OKABE_ITO["sky"],
        "second": OKABE_ITO["green"], "muted": "#C0C0C0", "handle": OKABE_ITO["sky"],
        "selected": OKABE_ITO["yellow"], "error": OKABE_ITO["purple"],
        "class0": OKABE_ITO["sky"], "class1": OKABE_ITO["yellow"],
        "class2": "#00C08B", "class3": OKABE_ITO["vermillion"],
        "class4": "#E08AC0", "class5": OKABE_ITO["orange"],
        "window": "#000000", "field": "#262626", "button": "#1A1A1A",
        "disabled_text": "#9A9A9A", "error_text": "#FF9E9E",
        "blue": OKABE_ITO["sky"],
    },
}
#: How many classes have a colour of their own: the roles ``class0`` … ``class5`` of
#: each theme (class k takes k mod N_CLASS_COLOURS). Okabe–Ito: told apart by
#: colour-blind viewers too; the points also differ by symbol. In the light theme
#: yellow is left out (too pale on white), in the dark ones blue (too dark on black);
#: high contrast lightens green and purple for a projector.
N_CLASS_COLOURS = 6

#: Line styles paired with the series colours, so that curves differ without colour.
SERIES_STYLES = (
    Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine, Qt.PenStyle.DashDotDotLine,
)
#: Series colours in order, per theme (each reaches 3:1 on the theme's background).
SERIES_COLOURS = {
    "light": ("vermillion", "blue", "green", "orange", "purple", "sky", "black"),
    "dark": ("vermillion", "sky", "green", "orange", "purple", "yellow", "target"),
    "high-contrast": ("vermillion", "sky", "green", "orange", "purple", "yellow", "target"),
}
#: What a sentence calls the colour of a role, per theme: words that explain a plot
#: ("the black curve") must name the colour the reader sees in the theme in use.
COLOUR_WORDS = {
    "light": {"target": "black", "approx": "orange", "second": "green", "muted": "grey"},
    "dark": {"target": "white", "approx": "orange", "second": "green", "muted": "grey"},
    "high-contrast": {"target": "white", "approx": "yellow", "second": "green",
                      "muted": "grey"},
}
#: Roles drawn as lines and markers on a plot (held to 3:1 against its background; the
#: classes' points are outlined, see the Playground's data map).
DATA_ROLES = ("target", "approx", "accent", "second", "muted", "handle", "selected", "error")
#: The smallest contrasts: text against its background, and lines and markers against
#: the plot's (WCAG 2.2, 1.4.3 and 1.4.11).
TEXT_CONTRAST, DATA_CONTRAST = 4.5, 3.0


def relative_luminance(colour) -> float:
    """WCAG's relative luminance of an opaque colour (0 black … 1 white)."""
    c = QColor(colour)

    def linear(v: int) -> float:
        v /= 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(c.red()) + 0.7152 * linear(c.green()) + 0.0722 * linear(c.blue())


def over(colour, background) -> QColor:
    """``colour`` with its alpha painted over an opaque ``background``: what is seen."""
    c, b = QColor(colour), QColor(background)
    a = c.alphaF()
    return QColor(round(c.red() * a + b.red() * (1 - a)), round(c.green() * a + b.green() * (1 - a)),
                  round(c.blue() * a + b.blue() * (1 - a)))


def contrast_ratio(colour, background) -> float:
    """WCAG's contrast ratio (1 … 21) of ``colour`` (its alpha painted over
    ``background``) against the opaque ``background``."""
    a = relative_luminance(over(colour, background))
    b = relative_luminance(background)
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


#: One step of View ▸ Zoom in or Zoom out.
ZOOM_STEP = 1.2
BASE_POINT_SIZE = 10.0
#: Plot titles and legends, in points at zoom 1 (both grow with the zoom).
TITLE_POINT_SIZE = 11.0
LEGEND_POINT_SIZE = 9.5


class Theme(QObject):
    """The current theme name and zoom factor; ``changed`` fires after either moves."""

    changed = Signal()

    def __init__(self, name: str = DEFAULT_THEME, zoom: float = 1.0, parent=None):
        super().__init__(parent)
        self._name = name if name in _SCHEMES else DEFAULT_THEME
        self._zoom = min(max(float(zoom), ZOOM_MIN), ZOOM_MAX)

    # -- state ---------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def zoom(self) -> float:
        return self._zoom

    def set_name(self, name: str) -> None:
        if name not in _SCHEMES:
            raise ValueError(f"unknown theme {name!r} (known: {', '.join(THEMES)})")
        if name != self._name:
            self._name = name
            self.apply_to_application()
            self.changed.emit()

    def set_zoom(self, zoom: float) -> None:
        zoom = min(max(float(zoom), ZOOM_MIN), ZOOM_MAX)
        if abs(zoom - self._zoom) > 1e-9:
            self._zoom = zoom
            self.apply_to_application()
            self.changed.emit()

    def zoom_in(self) -> None:
        self.set_zoom(self._zoom * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self._zoom / ZOOM_STEP)

    def reset_zoom(self) -> None:
        self.set_zoom(1.0)

    # -- values --------------------------------------------------------------
    def color(self, role: str) -> QColor:
        scheme = _SCHEMES[self._name]
        return QColor(scheme.get(role) or OKABE_ITO.get(role) or role)

    def colour_word(self, role: str) -> str:
        """The word for the colour of ``role`` in this theme (for texts about plots)."""
        return COLOUR_WORDS[self._name][role]

    def class_color(self, k: int) -> QColor:
        """The colour of class k (0 … N_CLASS_COLOURS − 1)."""
        return self.color(f"class{k % N_CLASS_COLOURS}")

    def series_color(self, i: int) -> QColor:
        colours = SERIES_COLOURS[self._name]
        return self.color(colours[i % len(colours)])

    def least_alpha(self, colour, contrast: float = DATA_CONTRAST) -> int:
        """The lowest alpha (0 … 255) at which ``colour`` drawn on the plot background
        still reaches ``contrast`` (255 when only opaque does): lines faded to show a
        lesser weight stay visible."""
        bg, c = self.color("background"), QColor(colour)
        lo, hi = 0, 255
        while lo < hi:
            mid = (lo + hi) // 2
            c.setAlpha(mid)
            if contrast_ratio(c, bg) >= contrast:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def series_style(self, i: int) -> Qt.PenStyle:
        return SERIES_STYLES[i % len(SERIES_STYLES)]

    def width(self, base: float) -> float:
        """A line width or handle size scaled by the zoom."""
        return base * self._zoom

    def handle_size(self, base: float = 12.0) -> float:
        """The size in pixels of a draggable handle (a kink, a point), scaled by the zoom
        together with fonts and lines so that everything grows as one on a projector."""
        return base * self._zoom

    def pen(self, role: str = "foreground", width: float = 2.0,
            style: Qt.PenStyle = Qt.PenStyle.SolidLine, alpha: int = 255) -> QPen:
        c = self.color(role)
        c.setAlpha(alpha)
        p = pg.mkPen(c, width=self.width(width), style=style)
        p.setCosmetic(True)
        return p

    def series_pen(self, i: int, width: float = 2.0, alpha: int = 255) -> QPen:
        c = self.series_color(i)
        c.setAlpha(alpha)
        p = pg.mkPen(c, width=self.width(width), style=self.series_style(i))
        p.setCosmetic(True)
        return p

    def point_size(self, base: float = BASE_POINT_SIZE) -> float:
        return base * self._zoom

    def font(self, base: float = BASE_POINT_SIZE, bold: bool = False) -> QFont:
        f = QFont()
        f.setPointSizeF(self.point_size(base))
        f.setBold(bold)
        return f

    # -- applying ------------------------------------------------------------
    def palette(self) -> QPalette:
        """The widgets' colours: window, fields, buttons and their text, and the same
        dimmed for disabled controls (a disabled field loses its white and its text
        greys, in every theme)."""
        pal = QPalette()
        fg, disabled = self.color("foreground"), self.color("disabled_text")
        window, field, button = self.color("window"), self.color("field"), self.color("button")
        Role, Group = QPalette.ColorRole, QPalette.ColorGroup
        for role, colour in (
            (Role.Window, window), (Role.WindowText, fg), (Role.Base, field),
            (Role.AlternateBase, window), (Role.Text, fg), (Role.Button, button),
            (Role.ButtonText, fg), (Role.ToolTipBase, field), (Role.ToolTipText, fg),
            (Role.Highlight, self.color("accent")), (Role.BrightText, self.color("error_text")),
            (Role.HighlightedText, QColor("#FFFFFF" if self._name == "light" else "#000000")),
            (Role.PlaceholderText, disabled), (Role.Link, self.color("accent")),
            (Role.Light, button.lighter(130)), (Role.Midlight, button.lighter(115)),
            (Role.Mid, button.darker(130)), (Role.Dark, button.darker(160)),
            (Role.Shadow, QColor("#000000")),
        ):
            pal.setColor(role, colour)
        for role in (Role.WindowText, Role.Text, Role.ButtonText, Role.PlaceholderText):
            pal.setColor(Group.Disabled, role, disabled)
        pal.setColor(Group.Disabled, Role.Base, window)
        pal.setColor(Group.Disabled, Role.Button, window)
        return pal

    def apply_to_application(self) -> None:
        """Font size and widget palette for the whole application; pyqtgraph's default
        text colour (titles and legends made before they are styled) is the theme's."""
        pg.setConfigOptions(foreground=self.color("foreground"),
                            background=self.color("background"))
        app = QApplication.instance()
        if app is None:
            return
        font = app.font()
        font.setPointSizeF(self.point_size())
        app.setFont(font)
        app.setPalette(self.palette())

    def style_legend(self, legend: pg.LegendItem | None, base: float = LEGEND_POINT_SIZE) -> None:
        """A legend's text in the foreground colour at the zoomed size, on a nearly
        opaque background; labels made before are restyled too."""
        if legend is None:
            return
        fg, size = self.color("foreground"), f"{self.point_size(base):.1f}pt"
        legend.setLabelTextColor(fg)
        legend.setLabelTextSize(size)
        bg = self.color("background")
        bg.setAlpha(225)
        legend.setBrush(pg.mkBrush(bg))
        legend.setPen(self.pen("grid", 1.0))
        for _sample, label in legend.items:
            label.setText(label.text, color=fg, size=size)

    def set_title(self, plot: pg.PlotWidget | pg.PlotItem, text: str,
                  base: float = TITLE_POINT_SIZE) -> None:
        """A plot's title in the foreground colour at ``base`` points times the zoom
        (remembered, so a theme or zoom change restyles it)."""
        item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
        item._relulab_title_size = base
        if text:
            item.setTitle(text, color=self.color("foreground").name(),
                          size=f"{self.point_size(base):.1f}pt")
        else:
            item.setTitle(None)

    def style_plot(self, plot: pg.PlotWidget | pg.PlotItem, title: str | None = None) -> None:
        """Background, axes, fonts, grid, legend and title of a plot, for the current
        theme and zoom. Axis numbers are never rescaled (no SI prefix)."""
        item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
        if isinstance(plot, pg.PlotWidget):
            plot.setBackground(self.color("background"))
        fg = self.color("foreground")
        tick_font = self.font(9)
        for name in ("left", "bottom", "right", "top"):
            axis = item.getAxis(name)
            axis.setPen(pg.mkPen(fg, width=max(1.0, self._zoom)))
            axis.setTextPen(pg.mkPen(fg))
            # major and minor ticks only: a third level adds 50 grid lines at 4%
            # opacity that one can barely see, and translucent lines are slow to
            # draw (7 ms an axis, each time its range changes)
            axis.setStyle(tickFont=tick_font, tickTextOffset=int(4 * self._zoom), maxTickLevel=1)
            plain_numbers(axis)
            # An axis replays its grid and numbers at every repaint of its plot, 3-16 ms
            # each, and a result's layout repaints a plot several times in one pass:
            # kept as a picture, it is drawn again only when it changes (exports draw
            # it afresh, as lines and text: relulab.ui.export).
            axis.setCacheMode(axis.CacheMode.DeviceCoordinateCache)
            if axis.label is not None:
                axis.label.setFont(self.font(10))
        item.showGrid(x=True, y=True, alpha=0.25)
        self.style_legend(item.legend)
        if title is not None:
            self.set_title(item, title)
        elif item.titleLabel.text:
            self.set_title(item, item.titleLabel.text,
                           getattr(item, "_relulab_title_size", TITLE_POINT_SIZE))


def plain_numbers(axis: pg.AxisItem) -> None:
    """Ticks in plain numbers: pyqtgraph's SI prefix would show 0.15 as 150 with a
    factor in the label ("(x0.001)", cut off in a small plot) that reads as part of
    the name. pyqtgraph 0.14 still picks a factor for the range of the moment as it
    switches the prefix off, and then scales the ticks by it for good: reset that too."""
    axis.enableAutoSIPrefix(False)
    axis.autoSIPrefixScale, axis.labelUnitPrefix = 1.0, ""


_theme: Theme | None = None


def current_theme() -> Theme:
    """The application's theme (made on first use)."""
    global _theme
    if _theme is None:
        _theme = Theme()
    return _theme


def set_current_theme(theme: Theme) -> None:
    global _theme
    _theme = theme
