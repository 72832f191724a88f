"""Every control in sight on a laptop and a projector, without scrolling.

The window is built at the size it takes on a 1366 × 768 laptop and on a 1280 × 720
projector (the available screen less a window frame, :func:`default_size`), at zoom 1.
For every panel, and every page of every tab widget in it, each visible named control,
plot and readout must lie inside the window and inside every widget that holds it: a
scroll area's viewport, a splitter's pane, a tab page, the window's edge. Scroll areas
are at their start, as a learner first sees them; a control that is only reached by
scrolling lies outside its viewport and fails. Buttons, boxes and sliders must also
have at least their minimum size (a squeezed button hides its text). The panel's
primary controls (``Panel.primary_controls``: Play, Step, Reset …) come first.

In the lecture layout at 1280 × 720 and zoom 1.6, every built-in scene's plots and
readouts must be inside the window, at a size one reads from the back of a room, and
none may lie over another.

New controls of any panel are checked as they come: this is the guard for everyone.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QTabWidget,
    QWidget,
)

from relulab.ui.automation import interactive_widgets
from relulab.ui.main_window import default_size
from relulab.ui.panels import PANELS

SCREENS = {"laptop 1366×768": QSize(1366, 768), "projector 1280×720": QSize(1280, 720)}
#: Controls that must keep at least their minimum size hint.
SIZED = (QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit, QAbstractSlider)
#: In the lecture layout at 1280 × 720, zoom 1.6: the least the data area of a panel's
#: main plot (the first of ``plots()``) and of every other plot may get, in pixels.
LECTURE_MAIN_PLOT = QSize(400, 180)
LECTURE_PLOT = QSize(200, 80)


def _rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def _shown(widget: QWidget, window: QWidget) -> bool:
    return widget.isVisibleTo(window) and widget.width() > 0 and widget.height() > 0


def clipping(widget: QWidget, window: QWidget) -> str | None:
    """Why ``widget`` is not wholly in sight (None when it is): the first ancestor that
    cuts it off, up to the window itself."""
    ancestor = widget.parentWidget()
    while ancestor is not None:
        inside = QRect(QPoint(0, 0), ancestor.size())
        if not inside.contains(_rect_in(widget, ancestor)):
            kind = type(ancestor).__name__
            name = ancestor.objectName() or kind
            if ancestor.parentWidget() is not None and isinstance(ancestor.parentWidget(),
                                                                   QAbstractScrollArea):
                return f"needs scrolling in {ancestor.parentWidget().objectName() or kind}"
            return f"cut off by {name} ({kind})"
        if ancestor is window:
            return None
        ancestor = ancestor.parentWidget()
    return None


def squeezed(widget: QWidget) -> str | None:
    if not isinstance(widget, SIZED):
        return None
    need = widget.minimumSizeHint()
    if widget.width() + 1 < need.width() or widget.height() + 1 < need.height():
        return f"squeezed to {widget.width()}×{widget.height()} (needs {need.width()}×{need.height()})"
    return None


def named_widgets(panel: QWidget) -> list[QWidget]:
    """The panel's controls and plots (automation's list) and its named readouts."""
    found = interactive_widgets(panel)
    seen = {id(w) for w in found}
    for label in panel.findChildren(QLabel):
        if label.objectName() and id(label) not in seen and not label.objectName().startswith("qt_"):
            found.append(label)
    return found


def tab_states(panel: QWidget):
    """Every page of every tab widget in the panel, one after the other (pages inside
    pages too), ending where it started."""
    tabs = list(panel.findChildren(QTabWidget))
    yield "first pages"
    for t in tabs:
        start = t.currentIndex()
        for i in range(t.count()):
            if i == start:
                continue
            t.setCurrentIndex(i)
            QApplication.processEvents()
            yield f"{t.objectName() or 'tabs'} page '{t.tabText(i)}'"
        t.setCurrentIndex(start)
        QApplication.processEvents()


def layout_problems(window, panel) -> list[str]:
    problems = []
    for where in tab_states(panel):
        for scroll in panel.findChildren(QAbstractScrollArea):  # as first seen
            for bar in (scroll.verticalScrollBar(), scroll.horizontalScrollBar()):
                bar.setValue(bar.minimum())
        QApplication.processEvents()
        for w in named_widgets(panel):
            if not _shown(w, window):
                continue
            why = clipping(w, window) or squeezed(w)
            if why:
                problems.append(f"{panel.name} ({where}): {w.objectName() or type(w).__name__} {why}")
    return sorted(set(problems))


def primary_problems(window, panel) -> list[str]:
    primary = [panel.findChild(QWidget, n) for n in panel.primary_controls]
    missing = [n for n, w in zip(panel.primary_controls, primary) if w is None]
    if missing:
        return [f"{panel.name}: primary control {n} not found" for n in missing]
    controls = panel.findChild(QWidget, f"{panel.name}-controls")
    lowest_primary = max(_rect_in(w, window).top() for w in primary)
    problems = []
    for w in interactive_widgets(controls) if controls is not None else []:
        if w in primary or not _shown(w, window) or isinstance(w, pg.GraphicsView):
            continue
        if _rect_in(w, window).bottom() < lowest_primary:
            problems.append(f"{panel.name}: {w.objectName()} comes before the primary controls")
    return problems


@pytest.fixture
def window(qtbot, theme):
    from relulab.app import build_main_window

    w = build_main_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_every_control_is_in_sight_without_scrolling(window, screen):
    size = default_size(screen)
    window.resize(size)
    QApplication.processEvents()
    assert window.size() == size, f"the window cannot be as small as {size.toTuple()}"
    problems = []
    for p in PANELS:
        panel = window.show_panel(p.name)
        panel.wait_until_idle(60)
        QApplication.processEvents()
        problems += layout_problems(window, panel)
        problems += primary_problems(window, panel)
    assert not problems, "\n".join(problems)


def test_the_check_sees_a_control_below_the_fold(window):
    """The test itself: a button pushed under a short window's edge, and one scrolled
    out of a scroll area's viewport, are both reported."""
    from PySide6.QtWidgets import QPushButton, QScrollArea

    window.resize(default_size(QSize(1280, 720)))
    panel = window.show_panel("hinges")
    extra = QPushButton("Extra", panel)
    extra.setObjectName("hinges-extra")
    extra.move(10, window.height() + 50)
    extra.show()
    scroll = QScrollArea(panel)
    scroll.setObjectName("hinges-test-scroll")
    inner = QWidget()
    inner.resize(180, 2000)
    below = QPushButton("Below", inner)
    below.setObjectName("hinges-below")
    below.move(0, 1900)
    scroll.setWidget(inner)
    scroll.setGeometry(0, 0, 200, 200)
    scroll.show()
    QApplication.processEvents()
    problems = "\n".join(layout_problems(window, panel))
    assert "hinges-extra cut off by main-window" in problems or "hinges-extra cut off" in problems
    assert "hinges-below needs scrolling in hinges-test-scroll" in problems
    for w in (extra, scroll):
        w.deleteLater()


def _overlaps(widgets, window) -> list[str]:
    rects = [(w, _rect_in(w, window)) for w in widgets]
    found = []
    for i, (a, ra) in enumerate(rects):
        for b, rb in rects[i + 1:]:
            if a.isAncestorOf(b) or b.isAncestorOf(a):
                continue
            common = ra.intersected(rb)
            if common.width() > 2 and common.height() > 2:
                found.append(f"{a.objectName()} lies over {b.objectName()}")
    return found


def test_every_lecture_scene_reads_on_a_projector(window, theme):
    """1280 × 720, zoom 1.6, the lecture layout with its caption: the main plot at
    least LECTURE_MAIN_PLOT, every other plot at least LECTURE_PLOT (the Folding panel's
    thumbnails of the layers excepted: they have no axes to read), nothing clipped,
    nothing over anything else."""
    window.resize(default_size(QSize(1280, 720)))
    theme.set_zoom(1.6)
    assert window.lecture.start_builtin()
    problems = []
    for i in range(len(window.lecture.playlist.scenes)):
        window.lecture.go(i)
        panel = window.current_panel()
        panel.wait_until_idle(60)
        for _ in range(3):  # a wrapped label's new height is laid out a pass later
            QApplication.processEvents()
        shown = [w for w in named_widgets(panel) if _shown(w, window)]
        main = next((p for p in panel.plots().values() if _shown(p, window)), None)
        assert main is not None, f"scene {i + 1} shows no plot"
        for w in shown:
            why = clipping(w, window)
            if why:
                problems.append(f"scene {i + 1}: {w.objectName()} {why}")
            if isinstance(w, pg.PlotWidget) and not w.objectName().startswith("folding-layer-"):
                view = w.getPlotItem().getViewBox().size()
                least = LECTURE_MAIN_PLOT if w is main else LECTURE_PLOT
                if view.width() < least.width() or view.height() < least.height():
                    problems.append(f"scene {i + 1}: {w.objectName()} only "
                                    f"{view.width():.0f}×{view.height():.0f} px")
        problems += [f"scene {i + 1}: {p}" for p in
                     _overlaps([w for w in shown if isinstance(w, (QLabel, pg.GraphicsView))],
                               window)]
    window.lecture.end()
    assert not problems, "\n".join(problems)


def _lines(html: str, font, width: int) -> list[str]:
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setDefaultFont(font)
    doc.setHtml(html)
    doc.setTextWidth(width)
    doc.size()  # lays the text out
    text = doc.toPlainText()
    lines = []
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            start = block.position() + line.textStart()
            lines.append(text[start:start + line.textLength()])
        block = block.next()
    return lines


def test_a_key_wraps_between_entries_never_inside_a_marker(main_window, theme):
    """Seen at zoom 1.6 under the Hinges convergence plot: the bound's marker "‒ ‒"
    split over two lines. At every width, each marker lies whole on the line of the
    first word it explains, and a short entry lies whole on one line."""
    from relulab.ui.legend import UNBROKEN_WORDS

    panel = main_window.panel("hinges")
    key = panel.convergence_key
    entries = [("‒ ‒", "bound"), ("▼", "interpolation largest"), ("■", "LS largest error"),
               ("···", "slope −2:")]
    for width in range(200, 700, 7):  # narrower, a long word breaks anyway
        lines = [s.replace("\u00a0", " ").replace("\u2060", "")
                 for s in _lines(key.text(), key.font(), width)]
        for symbol, text in entries:
            whole = f"{symbol} {text}" if len(text.split()) <= UNBROKEN_WORDS else symbol
            assert any(whole in line for line in lines), (width, symbol, lines)
            assert any(f"{symbol} {text.split()[0]}" in line for line in lines), (width, lines)


def _legend_problems(where: str, panel) -> list[str]:
    found = []
    for plot in panel.plots().values():
        item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else None
        legend = getattr(item, "legend", None) if item is not None else None
        if legend is None or not legend.isVisible() or not legend.items:
            continue
        view = item.getViewBox()
        box = view.mapRectToScene(view.boundingRect())
        drawn = legend.mapRectToScene(legend.boundingRect())
        if not box.adjusted(-1, -1, 1, 1).contains(drawn):
            found.append(f"{where}: {plot.objectName()}'s legend is cut off by its plot")
    return found


def test_every_legend_lies_whole_inside_its_plot(window, theme):
    """Seen at zoom 1.6: the Folding chart's legend taller than its plot, its first line
    cut off at the top. Every panel at 1280 × 720, and every lecture scene at zoom 1.6."""
    window.resize(default_size(QSize(1280, 720)))
    problems = []
    for p in PANELS:
        panel = window.show_panel(p.name)
        panel.wait_until_idle(60)
        QApplication.processEvents()
        problems += _legend_problems(p.name, panel)
    theme.set_zoom(1.6)
    assert window.lecture.start_builtin()
    for i in range(len(window.lecture.playlist.scenes)):
        window.lecture.go(i)
        panel = window.current_panel()
        panel.wait_until_idle(60)
        QApplication.processEvents()
        problems += _legend_problems(f"scene {i + 1}", panel)
    window.lecture.end()
    assert not problems, "\n".join(problems)
