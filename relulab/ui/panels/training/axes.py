"""Axes whose numbers never overprint, for the Training panel's small plots.

pyqtgraph spaces major ticks by the length of the axis alone, so in a small plot at a
projector's zoom "5000 10000 15000" run into each other, and a log axis labels minor
ticks ("6 5 4 3") between its decades. A :class:`ReadableAxis` spaces its labelled
ticks by the room their labels take at the font in use, labels only those, writes
thousands with a comma (20,000), and on a log scale labels whole decades only, as
powers of ten (10⁻⁶ … 1 … 10³).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF

#: Nice steps between labelled ticks, times a power of ten.
NICE = (1.0, 2.0, 5.0)
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def nice_step(least: float) -> float:
    """The smallest 1, 2 or 5 × 10ⁿ that is at least ``least`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(least))
    for m in (*NICE, 10.0):
        if m * power >= least * (1 - 1e-9):
            return m * power
    return 10.0 * power


def decade_text(n: int) -> str:
    """10ⁿ as it is written on a log axis: 1 and 10 plainly, 10⁻⁶, 10³ otherwise."""
    if n == 0:
        return "1"
    if n == 1:
        return "10"
    return "10" + str(n).translate(_SUPERSCRIPT)


def plain_text(value: float, spacing: float) -> str:
    """A tick's number: whole numbers with a comma between thousands, others with
    the decimals the spacing needs."""
    if spacing >= 1:
        return f"{value:,.0f}"
    places = max(0, math.ceil(-math.log10(spacing)))
    return f"{value:,.{places}f}"


class ReadableAxis(pg.AxisItem):
    """An axis that labels only ticks far enough apart for their labels (see module)."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.setStyle(maxTextLevel=0)  # minor ticks unlabelled: they have no room
        self._names: dict[float, str] | None = None

    def set_names(self, names: list[tuple[float, str]] | None) -> None:
        """Name the ticks at whole positions (bars) instead of numbering the axis; as
        many named as have room, the others unlabelled ticks. None: numbers again."""
        names = dict(names) if names else None
        if names != self._names:
            self._names = names
            self.picture = None
            self.update()

    def _named_ticks(self, lo: float, hi: float, size: float):
        shown = sorted(v for v in self._names if lo - 1e-9 <= v <= hi + 1e-9)
        if not shown or size <= 0:
            return []
        per_unit = size / max(hi - lo, 1e-9)
        every = max(1, math.ceil(self.label_room([self._names[v] for v in shown]) / per_unit))
        return [(float(every), shown[::every]), (1.0, [v for i, v in enumerate(shown) if i % every])]

    def _metrics(self) -> QFontMetricsF:
        font = self.style.get("tickFont") or QFont()
        return QFontMetricsF(font)

    def label_room(self, texts: list[str], gap: float = 3.0) -> float:
        """Pixels along the axis that one of ``texts`` takes, with the gap before the
        next: the widest and ``gap`` digits on a horizontal axis, 1.6 lines' height on
        an upright one."""
        fm = self._metrics()
        if self.orientation in ("left", "right"):
            return 1.6 * fm.height()
        return max(fm.horizontalAdvance(t) for t in texts) + gap * fm.horizontalAdvance("0")

    def tickSpacing(self, minVal: float, maxVal: float, size: float):
        if self._tickSpacing is not None:
            return self._tickSpacing
        dif = abs(maxVal - minVal)
        if dif == 0 or size <= 0:
            return []
        rough = nice_step(dif / 4)
        texts = [plain_text(v, rough) for v in (minVal, maxVal, minVal + rough, maxVal - rough)]
        fits = max(1.0, size / self.label_room(texts))  # labels that fit along the axis
        step = nice_step(dif / fits)
        if dif / step < 3:  # the ends only, whose labels may not fit: closer, one digit apart
            step = nice_step(dif / max(1.0, size / self.label_room(texts, gap=1.0)))
        mantissa = round(step / 10 ** math.floor(math.log10(step)))
        return [(step, 0.0), (step / {1: 5, 2: 4, 5: 5}[mantissa], 0.0)]

    def tickStrings(self, values, scale, spacing):
        if self._names is not None:
            return [self._names.get(float(round(v)), "") for v in values]
        if self.logMode:
            return self.logTickStrings(values, scale, spacing)
        return [plain_text(v * scale, spacing * scale) for v in values]

    def tickValues(self, minVal: float, maxVal: float, size: float):
        if self._names is not None:
            return self._named_ticks(*sorted((minVal, maxVal)), size)
        if not self.logMode:
            return super().tickValues(minVal, maxVal, size)
        lo, hi = sorted((minVal, maxVal))
        first, last = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
        if last < first or size <= 0:
            return []
        texts = [decade_text(first), decade_text(last)]
        per_decade = size / max(hi - lo, 1e-9)
        step = max(1, int(nice_step(self.label_room(texts) / per_decade)))
        start = math.ceil(first / step) * step
        labelled = [float(n) for n in range(start, last + 1, step)]
        decades = [float(n) for n in range(first, last + 1) if n % step]
        return [(float(step), labelled), (1.0, decades)]

    def logTickStrings(self, values, scale, spacing):
        return [decade_text(round(v)) for v in values]
