"""Readouts: labels that show a value and give it to tests, scripts and screen readers.

A readout shows what a sighted user reads (rich text allowed) and keeps three things
in step with it:

* its **value**, as data: a number, a text or None (``readout.value``, the Qt property
  ``value``), which :meth:`Panel.readouts() <relulab.ui.panels.base.Panel.readouts>`
  maps the readout's ``key`` to;
* its **accessible name**: what it is ("RMSE"), fixed;
* its **accessible description**: the text shown, as plain text ("RMSE 0.1022"),
  renewed with every change, so that AT-SPI and UIA clients read the value too.

A QLabel with an accessible name hides its text from screen readers (the name
replaces it); the description gives it back.

``setText(text)`` makes the value the plain text shown (messages, statuses);
``set_value(value, text)`` shows ``text`` and makes the value ``value`` (a number a
test can compare without parsing the text).
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtGui
from PySide6.QtCore import Property, Qt, Signal
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QLabel, QWidget

# Spaces a formatted number may hold (no-break, thin, narrow no-break) read as spaces;
# a zero-width space (a place to wrap a long 64-64-64 list) and a word joiner (keeping a
# sign with its number) read as nothing.
_SPACES = str.maketrans({"\xa0": " ", "\u2009": " ", "\u202f": " ", "\u200b": None,
                         "\u2060": None})


def plain_text(text: str, text_format: Qt.TextFormat = Qt.TextFormat.AutoText) -> str:
    """What a rich text label shows, as plain text (tags dropped, entities decoded)."""
    # (mightBeRichText lives in QtGui's Qt namespace, not QtCore's)
    rich = (text_format == Qt.TextFormat.RichText
            or (text_format == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)))
    if rich:
        text = QTextDocumentFragment.fromHtml(text).toPlainText()
    return text.translate(_SPACES).strip()


def readout_key(object_name: str) -> str:
    """The default key of a readout in ``readouts()``: its object name without the
    panel's prefix, with underscores (``hinges-max-error`` → ``max_error``)."""
    _, _, rest = object_name.partition("-")
    return (rest or object_name).replace("-", "_")


class Readout(QLabel):
    """A label showing a value; see the module's docstring.

    ``name`` is the object name (``<panel>-<what>``), ``accessible`` the accessible
    name, ``key`` the name in ``readouts()`` (default: :func:`readout_key`).
    ``valueChanged(value)`` is emitted when the value changes.
    """

    valueChanged = Signal(object)

    def __init__(self, name: str, accessible: str, key: str | None = None, *,
                 text: str = "", wrap: bool = False, selectable: bool = False,
                 text_format: Qt.TextFormat = Qt.TextFormat.AutoText,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.setAccessibleName(accessible)
        self.key = key or readout_key(name)
        self._value: Any = None
        self._shown = ""
        self.setTextFormat(text_format)
        self.setWordWrap(wrap)
        if selectable:
            self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setText(text)

    # -- showing -------------------------------------------------------------------
    def setText(self, text: str) -> None:
        """Show ``text``; the value becomes the plain text shown."""
        self._show(text)
        self._set_value(self._shown or None)

    def set_value(self, value: Any, text: str | None = None, spoken: str | None = None) -> None:
        """Make ``value`` (a number, a text or None) the readout's value and show
        ``text`` (default: the value as text). ``spoken`` replaces the plain text as
        the accessible description where that reads badly (a table)."""
        self._show(("" if value is None else str(value)) if text is None else text, spoken)
        self._set_value(value)

    def clear(self) -> None:
        self.setText("")

    def _show(self, text: str, spoken: str | None = None) -> None:
        super().setText(text)
        shown = plain_text(text, self.textFormat()) if spoken is None else spoken
        if shown != self._shown:
            self._shown = shown
            self.setAccessibleDescription(shown)

    def _set_value(self, value: Any) -> None:
        old = self._value
        self._value = value
        if type(old) is not type(value) or not _same(old, value):
            self.valueChanged.emit(value)

    # -- reading ---------------------------------------------------------------------
    def _get_value(self) -> Any:
        return self._value

    def _get_shown(self) -> str:
        return self._shown

    #: The value (a number, a text or None); also readable as the Qt property "value".
    value = Property(object, _get_value, notify=valueChanged)
    #: The text shown, as plain text (the accessible description); Qt property "shownText".
    shownText = Property(str, _get_shown)

    @property
    def shown_text(self) -> str:
        return self._shown


class Note(Readout):
    """A fixed text (help, a plot's key, a caption) that screen readers read like a
    readout (accessible name = what it is, description = the text), but not a value:
    it is not in ``readouts()``."""

    def __init__(self, name: str, accessible: str, text: str = "", *, wrap: bool = True,
                 parent: QWidget | None = None):
        super().__init__(name, accessible, text=text, wrap=wrap, parent=parent)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) or (a != a and b != b)  # NaN is NaN
    except (TypeError, ValueError):  # arrays and other values without a plain ==
        return a is b


def readouts_of(root: QWidget) -> dict[str, Any]:
    """Every readout under ``root`` (notes aside) by key → value."""
    return {r.key: r.value for r in root.findChildren(Readout) if not isinstance(r, Note)}
