"""The window's controls by object name, for tests, scripts and docs/automation.md.

``python -m relulab.ui.automation`` prints the tables of docs/automation.md: every
menu action with its shortcut, every control, plot and named readout of each panel
with its accessible name, and each panel's ``readouts()`` keys.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMenuBar,
    QPlainTextEdit,
    QScrollBar,
    QTabBar,
    QTextEdit,
    QWidget,
)

#: Widgets a person or a script operates.
INTERACTIVE = (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox, QLineEdit,
               QTextEdit, QPlainTextEdit, QAbstractItemView)
#: Composite widgets whose inner parts are Qt's, not ours (a spin box's line edit, a
#: table's headers …).
COMPOSITE = (QAbstractSpinBox, QComboBox, QTabBar, QMenu, QMenuBar, QDialog, QAbstractItemView)


@dataclass(frozen=True)
class Control:
    panel: str          # the panel it belongs to, or "window"
    object_name: str
    kind: str           # the Qt class
    accessible_name: str


def _is_plot(w: QWidget) -> bool:
    try:
        import pyqtgraph as pg
    except ImportError:  # pragma: no cover
        return False
    return isinstance(w, pg.GraphicsView)


def ours(w: QWidget, root: QWidget) -> bool:
    """False for the inner parts of Qt's composite widgets (a spin box's line edit, a
    tab bar's scroll buttons, scroll bars) and Qt's own named helpers. Widgets inside a
    scroll area's viewport or a tab widget's stack are ours."""
    if isinstance(w, QScrollBar) or w.objectName().startswith("qt_"):
        return False
    p = w.parentWidget()
    while p is not None and p is not root:
        if isinstance(p, COMPOSITE):
            return False
        p = p.parentWidget()
    return True


def interactive_widgets(root: QWidget) -> list[QWidget]:
    """Every control and plot under ``root`` that needs a name (hidden ones too)."""
    found = []
    for w in root.findChildren(QWidget):
        if (isinstance(w, INTERACTIVE) or _is_plot(w)) and ours(w, root):
            found.append(w)
    return found


def unnamed(root: QWidget) -> list[str]:
    """Descriptions of the controls missing an object name or an accessible name."""
    bad = []
    for w in interactive_widgets(root):
        if not w.objectName() or not w.accessibleName():
            parent = w.parentWidget()
            where = []
            while parent is not None and parent is not root:
                if parent.objectName():
                    where.append(parent.objectName())
                parent = parent.parentWidget()
            text = getattr(w, "text", lambda: "")()
            bad.append(f"{type(w).__name__} {w.objectName() or '(no object name)'} "
                       f"{('“' + text + '”') if text else ''} accessible="
                       f"{w.accessibleName()!r} in {' < '.join(where) or 'window'}")
    return bad


def without_accessible_name(root: QWidget) -> list[str]:
    """Descriptions of the widgets that have an object name (ours: Qt's own parts
    aside) but no accessible name, ``root`` included: a screen reader would announce
    them by their text or not at all."""
    return [f"{type(w).__name__} {w.objectName()}"
            for w in [root, *root.findChildren(QWidget)]
            if w.objectName() and not w.objectName().startswith("qt_") and not w.accessibleName()]


def _panel_of(w: QWidget, window) -> str:
    for name, panel in window.panels.items():
        if panel is w or panel.isAncestorOf(w):
            return name
    return "window"


def inventory(window) -> list[Control]:
    """The window's controls, plots and named readouts, panel by panel (every panel
    is created for it: the window creates them only when first shown)."""
    for name in window.panels:
        window.panel(name)
    seen = set()
    out = []
    containers = [window.tabs, *window.panels.values()] + [
        w for p in window.panels.values()
        for w in p.findChildren(QWidget, f"{p.name}-controls")]
    widgets = containers + interactive_widgets(window) + [
        w for w in window.findChildren(QLabel) if w.objectName() and ours(w, window)]
    for w in widgets:
        if id(w) in seen:
            continue
        seen.add(id(w))
        out.append(Control(_panel_of(w, window), w.objectName(), type(w).__name__,
                           w.accessibleName()))
    order = {name: i for i, name in enumerate(["window", *window.panels])}
    return sorted(out, key=lambda c: (order.get(c.panel, 99), c.object_name))


def actions(window) -> list[tuple[str, str, str]]:
    """(object name, text, shortcuts) of every named menu action."""
    from PySide6.QtGui import QAction, QKeySequence

    rows = []
    for a in window.findChildren(QAction):
        if a.objectName().startswith("action-"):
            keys = ", ".join(s.toString(QKeySequence.SequenceFormat.PortableText)
                             for s in a.shortcuts())
            rows.append((a.objectName(), a.text().replace("&", ""), keys))
    return sorted(set(rows))


def readout_rows(window) -> list[tuple[str, str, str, str]]:
    """(panel, key, object name or "", accessible name or "") for every key of every
    panel's ``readouts()`` and of the lecture's."""
    from relulab.ui.readout import Note, Readout

    rows = []
    sources = [("lecture", window.lecture.readouts(), window.lecture.bar)] + [
        (name, window.panel(name).readouts(), window.panel(name)) for name in window.panels]
    for owner, values, root in sources:
        widgets = {r.key: r for r in root.findChildren(Readout) if not isinstance(r, Note)}
        for key in values:
            w = widgets.get(key)
            rows.append((owner, key, w.objectName() if w else "", w.accessibleName() if w else ""))
    return rows


def markdown(window) -> str:
    lines = ["### Menu actions", "", "| object name | menu text | shortcut |", "|---|---|---|"]
    lines += [f"| `{n}` | {t} | {k} |" for n, t, k in actions(window)]
    current = None
    for c in inventory(window):
        if c.panel != current:
            current = c.panel
            title = "Window" if c.panel == "window" else f"Panel `{c.panel}`"
            lines += ["", f"### {title}", "", "| object name | kind | accessible name |",
                      "|---|---|---|"]
        lines.append(f"| `{c.object_name}` | {c.kind} | {c.accessible_name} |")
    current = None
    for owner, key, name, accessible in readout_rows(window):
        if owner != current:
            current = owner
            title = ("the lecture (`window.lecture.readouts()`)" if owner == "lecture"
                     else f"panel `{owner}`")
            lines += ["", f"### Readouts of {title}", "",
                      "| key | object name | accessible name |", "|---|---|---|"]
        lines.append(f"| `{key}` | {f'`{name}`' if name else '(shown within another readout)'} | "
                     f"{accessible} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from relulab.ui.application import build_main_window

    window = build_main_window()
    sys.stdout.write(markdown(window))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
