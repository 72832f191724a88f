"""Keys under a plot: one line that says what each colour and marker means.

A pyqtgraph legend sits on the plot and hides data; a small plot has no room for one.
A :class:`KeyLabel` sits under the plot instead: coloured symbols (the colours of the
theme in use) followed by a few words each. It restyles itself with the theme and the
zoom like the plots.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from relulab.ui.theme import Theme, current_theme

#: Keys' text, in points at zoom 1.
KEY_POINT_SIZE = 9.0


#: Entries of at most this many words never wrap inside: a line break falls between
#: entries, never between a marker and what it means.
UNBROKEN_WORDS = 3


def _unbroken(text: str) -> str:
    return escape(text).replace(" ", "&nbsp;")


def _marker(symbol: str) -> str:
    # dashes allow a break after them: a word joiner after each mark holds a marker
    # and its first word together
    return "".join(_unbroken(c) + "\u2060" for c in symbol)


def key_html(entries, one_per_line: bool = False) -> str:
    """``(colour, symbol, text)`` triples as one rich-text line that wraps only between
    entries (and inside an entry's long text): a symbol of several marks ("‒ ‒") and
    its first word stay together, and so does every entry of UNBROKEN_WORDS words.
    ``one_per_line``: a column, for a key beside a plot."""
    parts = []
    for colour, symbol, text in entries:
        words = text.split(" ")
        shown = (_unbroken(text) if len(words) <= UNBROKEN_WORDS
                 else _unbroken(" ".join(words[:2])) + " " + escape(" ".join(words[2:])))
        parts.append(f'<span style="color:{QColor(colour).name()}"><b>{_marker(symbol)}</b>'
                     f"</span>&nbsp;{shown}")
    return ("<br>" if one_per_line else "&nbsp;&nbsp; ").join(parts)


@dataclass(frozen=True)
class Entry:
    """``symbol`` drawn in ``colour`` (a theme role, or a function of the theme),
    then ``text``."""

    colour: str | Callable[[Theme], QColor]
    symbol: str
    text: str

    def color(self, theme: Theme) -> QColor:
        return theme.color(self.colour) if isinstance(self.colour, str) else self.colour(theme)


class KeyLabel(QLabel):
    """A key for a plot: entries separated by wide spaces, wrapped when narrow."""

    def __init__(self, name: str, accessible: str, entries=(), tip: str = "", parent=None,
                 one_per_line: bool = False):
        super().__init__(parent)
        self.one_per_line = one_per_line
        self.setObjectName(name)
        self.setAccessibleName(accessible)
        if tip:
            self.setToolTip(tip)
        self.setWordWrap(not one_per_line)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.entries: tuple[Entry, ...] = tuple(entries)
        self.theme = current_theme()
        self.theme.changed.connect(self.apply_theme)
        self.apply_theme()

    def sizeHint(self):
        # a wrapped label hints the height of its narrowest guess (several lines); once
        # laid out, it needs only the lines of its width, so the plots keep the rest
        hint = super().sizeHint()
        if self.width() > 0 and self.isVisible():
            hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # another width, another number of lines

    def set_entries(self, entries) -> None:
        self.entries = tuple(entries)
        self.apply_theme()

    def apply_theme(self) -> None:
        th = self.theme
        self.setFont(th.font(KEY_POINT_SIZE))
        self.setText(key_html(((e.color(th), e.symbol, e.text) for e in self.entries),
                              self.one_per_line))

    def plain_text(self) -> str:
        """The key without its colours (for tests and screen readers)."""
        return "  ".join(f"{e.symbol} {e.text}" for e in self.entries)
