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

# role -> colour per theme
_SCHEMES = {
    "light": {
        "background": "#FFFFFF", "foreground": "#1A1A1A", "grid": "#D0D0D0",
        "target": "#000000", "approx": OKABE_ITO["vermillion"], "accent": OKABE_ITO["blue"],
        "second": OKABE_ITO["green"], "muted": "#8A8A8A", "handle": OKABE_ITO["blue"],
        "selected": OKABE_ITO["orange"], "error": OKABE_ITO["purple"],
        "class0": OKABE_ITO["blue"], "class1": OKABE_ITO["orange"],
        "class2": OKABE_ITO["green"], "class3": OKABE_ITO["vermillion"],
        "class4": OKABE_ITO["purple"], "class5": OKABE_ITO["sky"],
    },
    "dark": {
        "background": "#1E1E1E", "foreground": "#EDEDED", "grid": "#4A4A4A",
        "target": "#FFFFFF", "approx": OKABE_ITO["orange"], "accent": OKABE_ITO["sky"],
        "second": OKABE_ITO["green"], "muted": "#9A9A9A", "handle": OKABE_ITO["sky"],
        "selected": OKABE_ITO["yellow"], "error": OKABE_ITO["purple"],
        "class0": OKABE_ITO["sky"], "class1": OKABE_ITO["orange"],
        "class2": OKABE_ITO["green"], "class3": OKABE_ITO["vermillion"],
        "class4": OKABE_ITO["purple"], "class5": OKABE_ITO["yellow"],
    },
    "high-contrast": {
        "background": "#000000", "foreground": "#FFFFFF", "grid": "#808080",
        "target": "#FFFFFF", "approx": OKABE_ITO["yellow"], "accent": OKABE_ITO["sky"],
        "second": OKABE_ITO["green"], "muted": "#C0C0C0", "handle": OKABE_ITO["sky"],
        "selected": OKABE_ITO["yellow"], "error": OKABE_ITO["purple"],
        "class0": OKABE_ITO["sky"], "class1": OKABE_ITO["yellow"],
        "class2": "#00C08B", "class3": OKABE_ITO["vermillion"],
        "class4": "#E08AC0", "class5": OKABE_ITO["orange"],
    },
}
#: The classes a classifier may have, each with a colour role per theme (Okabe–Ito:
#: told apart by colour-blind viewers too; the points also differ by symbol). In the
#: light theme yellow is left out (too pale on white), in the dark ones blue (too dark
#: on black); high contrast lightens green and purple for a projector.
CLASS_COLOURS = 6
THEMES = tuple(_SCHEMES)

#: Line styles paired with the series colours, so that curves differ without colour.
SERIES_STYLES = (
    Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine, Qt.PenStyle.DashDotDotLine,
)
SERIES_COLOURS = ("vermillion", "blue", "green", "orange", "purple", "sky", "yellow")

ZOOM_MIN, ZOOM_MAX, ZOOM_STEP = 0.6, 3.0, 1.2
BASE_POINT_SIZE = 10.0


class Theme(QObject):
    """The current theme name and zoom factor; ``changed`` fires after either moves."""

    changed = Signal()

    def __init__(self, name: str = "light", zoom: float = 1.0, parent=None):
        super().__init__(parent)
        self._name = name if name in _SCHEMES else "light"
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

    def class_color(self, k: int) -> QColor:
        """The colour of class k (0 … CLASS_COLOURS − 1)."""
        return self.color(f"class{k % CLASS_COLOURS}")

    def series_color(self, i: int) -> QColor:
        return self.color(SERIES_COLOURS[i % len(SERIES_COLOURS)])

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
    def apply_to_application(self) -> None:
        """Font size and widget palette for the whole application."""
        app = QApplication.instance()
        if app is None:
            return
        font = app.font()
        font.setPointSizeF(self.point_size())
        app.setFont(font)
        pal = QPalette()
        if self._name != "light":
            bg, fg = self.color("background"), self.color("foreground")
            # high contrast: fields and check boxes a shade off the black window, or an
            # empty check box is black on black
            base = QColor(bg).lighter(130) if self._name == "dark" else QColor("#262626")
            for role, colour in (
                (QPalette.ColorRole.Window, bg), (QPalette.ColorRole.WindowText, fg),
                (QPalette.ColorRole.Base, base), (QPalette.ColorRole.AlternateBase, bg),
                (QPalette.ColorRole.Text, fg), (QPalette.ColorRole.Button, QColor(bg).lighter(150)),
                (QPalette.ColorRole.ButtonText, fg), (QPalette.ColorRole.ToolTipBase, bg),
                (QPalette.ColorRole.ToolTipText, fg), (QPalette.ColorRole.Highlight, self.color("accent")),
                (QPalette.ColorRole.HighlightedText, QColor("#000000")),
                (QPalette.ColorRole.PlaceholderText, self.color("muted")),
            ):
                pal.setColor(role, colour)
        app.setPalette(pal)

    def style_plot(self, plot: pg.PlotWidget | pg.PlotItem, title: str | None = None) -> None:
        """Background, axes, fonts and grid of a plot, for the current theme and zoom."""
        item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
        if isinstance(plot, pg.PlotWidget):
            plot.setBackground(self.color("background"))
        fg = self.color("foreground")
        tick_font = self.font(9)
        for name in ("left", "bottom", "right", "top"):
            axis = item.getAxis(name)
            axis.setPen(pg.mkPen(fg, width=max(1.0, self._zoom)))
            axis.setTextPen(pg.mkPen(fg))
            axis.setStyle(tickFont=tick_font, tickTextOffset=int(4 * self._zoom))
            if axis.label is not None:
                axis.label.setFont(self.font(10))
            # ticks in plain numbers: an SI factor in the label ("(x0.001)") reads as part of the name
            axis.enableAutoSIPrefix(False)
            # pyqtgraph 0.14 still picks a factor for the range of the moment as it switches
            # the prefix off, and then scales the ticks by it for good (0.15 shown as 150)
            axis.autoSIPrefixScale, axis.labelUnitPrefix = 1.0, ""
        item.showGrid(x=True, y=True, alpha=0.25)
        if title is not None:
            item.setTitle(title, color=fg.name(), size=f"{self.point_size(11):.0f}pt")


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
