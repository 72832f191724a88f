"""What a screen reader gets: the window's accessible tree, walked from the top-level
window as an AT-SPI or UIA client walks it (QAccessible interfaces, child by child).

Every named widget in it has an accessible name, every readout carries its value in
its accessible description, every plot says what it shows, and nothing named is
missing from the tree.
"""

import math
import re

import pyqtgraph as pg
import shiboken6
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QWidget

from relulab.testing import finished
from relulab.ui.automation import ours
from relulab.ui.readout import Note, Readout

NAME, DESCRIPTION, VALUE = QAccessible.Text.Name, QAccessible.Text.Description, QAccessible.Text.Value
R = QAccessible.Role
CONTROLS = {R.PushButton, R.CheckBox, R.RadioButton, R.ComboBox, R.SpinBox, R.Slider,
            R.EditableText, R.PageTab, R.Table, R.StaticText}
# numbers as the panels print them: 3,000 · 1 048 576 · −0.25 · 1.5e-12 · 42.9 %
NUMBER = re.compile(r"[−-]?(?:\d{1,3}(?:[, ]\d{3})+|\d+)(?:\.\d+)?(?:e[−+-]?\d+)?(?:\s*%)?")


def walk(window):
    """Yield (object, interface) for every node under the window's accessible
    interface, depth first.

    Nothing is kept: an interface's wrapper must not outlive its widget (PySide would
    hand a stale wrapper back for a new object at the same address), so the walk is
    iterative (a recursive closure is a reference cycle, and the app collects cycles
    only on a timer) and the caller drops each interface once it has looked at it."""
    seen = set()
    stack = [QAccessible.queryAccessibleInterface(window)]
    while stack:
        iface = stack.pop()
        if iface is None or not iface.isValid():
            continue
        obj = iface.object()
        key = (address(obj) if obj is not None else address(iface), iface.role())
        if key in seen:
            continue
        seen.add(key)
        stack.extend(iface.child(i) for i in reversed(range(iface.childCount())))
        yield obj, iface


def address(obj) -> int:
    """The C++ object's address: Python wrappers come and go (and their ids are reused)."""
    return shiboken6.getCppPointer(obj)[0]


def numbers_in(text: str) -> list[tuple[float, float]]:
    """(number, half a unit of its last digit) for every number in ``text``."""
    out = []
    for token in NUMBER.findall(text):
        percent = token.endswith("%")
        t = token.rstrip("% ").replace("−", "-").replace(",", "").replace(" ", "")
        mantissa = t.split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = int(t.split("e")[1]) if "e" in t else 0
        value, half = float(t), 0.5 * 10.0 ** (exponent - decimals)
        if percent:
            value, half = value / 100, half / 100
        out.append((value, half))
    return out


def value_problem(readout: Readout, description: str) -> str | None:
    value = readout.value
    if description != readout.shown_text:
        return f"description {description!r} is not what it shows ({readout.shown_text!r})"
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        said = str(value).lower() in description.lower()  # "equal" in "Equal up to rounding"
        return None if said else f"value {value!r} not in {description!r}"
    if not math.isfinite(value):
        return None if "—" in description or "nan" in description.lower() else \
            f"value {value} not said in {description!r}"
    if any(abs(n - value) <= half * (1 + 1e-9) + 1e-12 * abs(value)
           for n, half in numbers_in(description)):
        return None
    return f"value {value!r} not in {description!r}"


def check_tree(window) -> tuple[list[str], set[int]]:
    problems, reached = [], set()
    for obj, iface in walk(window):
        if obj is not None:
            reached.add(address(obj))
        if iface.role() in CONTROLS and not iface.text(NAME):  # named or not, Qt's or ours
            parent = iface.parent()
            problems.append(f"a {iface.role().name} without a name in "
                            f"{parent.text(NAME) if parent is not None else 'the window'}")
        if not isinstance(obj, QWidget) or not obj.objectName() \
                or obj.objectName().startswith("qt_"):
            continue
        name = obj.objectName()
        if not iface.text(NAME) or not obj.accessibleName():
            problems.append(f"{name}: no accessible name")
        if isinstance(obj, pg.GraphicsView) and not iface.text(DESCRIPTION):
            problems.append(f"{name}: a plot without a description of what it shows")
        if isinstance(obj, Readout):
            if isinstance(obj, Note):
                if obj.text() and not iface.text(DESCRIPTION):
                    problems.append(f"{name}: its text is not read")
                continue
            problem = value_problem(obj, iface.text(DESCRIPTION) or iface.text(VALUE))
            if problem:
                problems.append(f"{name}: {problem}")
    return problems, reached


def test_the_accessible_tree_names_every_control_and_reads_every_readout(main_window, qtbot):
    w = main_window
    for name in w.panels:  # every panel, with its background work done
        w.panel(name).wait_until_idle(120)
    problems, reached = check_tree(w)
    assert not problems, "\n".join(problems)
    named = [x for x in [w, *w.findChildren(QWidget)]
             if x.objectName() and not x.objectName().startswith("qt_") and ours(x, w)]
    missing = sorted(x.objectName() for x in named if address(x) not in reached)
    assert not missing, f"named widgets a screen reader cannot reach: {missing}"
    readouts = [r for r in w.findChildren(Readout) if not isinstance(r, Note)]
    assert len(readouts) >= 35  # (the walk reached every one of them: none is missing)
    assert sum(isinstance(r.value, (int, float)) for r in readouts) >= 12


def test_readouts_stay_current_for_screen_readers(main_window, qtbot):
    """After a change, the tree reads the new values (a new depth, a lecture's scene)."""
    w = main_window
    folding = w.show_panel("folding")
    with finished(folding, "counts"):
        folding.set_depth(10)
    count = folding.findChild(Readout, "folding-count")
    iface = QAccessible.queryAccessibleInterface(count)
    assert iface.text(NAME) == "Piece count" and "1,024 pieces" in iface.text(DESCRIPTION)
    w.lecture.start_builtin()
    w.lecture.next()
    problems, _ = check_tree(w)
    assert not problems, "\n".join(problems)
    position = QAccessible.queryAccessibleInterface(w.lecture.bar.position)
    assert position.text(DESCRIPTION) == f"2 / {w.lecture.readouts()['scenes']}"
    assert w.lecture.readouts()["caption"] == w.lecture.scene.caption.strip()


def test_the_check_catches_a_readout_without_its_value(qtbot):
    r = Readout("x-rmse", "RMSE")
    qtbot.addWidget(r)
    r.set_value(0.1022, "RMSE 0.1022")
    assert value_problem(r, r.accessibleDescription()) is None
    r.set_value(0.5, "RMSE 0.1022")  # a value the text does not show
    assert value_problem(r, r.accessibleDescription()) is not None
    r.setAccessibleDescription("")  # a description that fell behind
    assert value_problem(r, "") is not None
    assert numbers_in("step 3,000 / 20,000; 42.9 %; 1 048 576; −1.5e-3") == [
        (3000, 0.5), (20000, 0.5), (0.429, 0.0005), (1048576, 0.5), (-0.0015, 0.00005)]
