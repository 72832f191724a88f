"""Every panel fits the screens it is shown on: a laptop and a projector, with and
without the lecture layout.

The window takes the room a 1366 × 768 laptop gives it at zoom 1, and the room a
1280 × 720 projector gives it at zoom 1.6 (the available screen less a window frame,
:func:`default_size`), each with its controls (the normal layout) and without them
(View ▸ Lecture layout). Every panel is shown in turn, the Deep → shallow panel with
each of its sources, every page of its tab widgets in turn, and on each:

* every visible plot is at least MIN_PLOT_HEIGHT pixels high: less, and its axis has
  room for two or three numbers, its curve for none of its detail;
* no label's text is cut: a label gets the width and height its text needs (its size
  hint; a wrapped label, the height its text takes at its width), or it elides its
  text ("…") and shows all of it in its tooltip;
* no two numbers of a plot's axis are drawn over each other (the rectangles pyqtgraph
  lays them out in, as it paints them).

The plots show nothing of pyqtgraph's own either: after a drag on any plot (a pan, or
a panel's own drag) with the mouse still over it, pyqtgraph's auto-range button (the
"A" in a corner, ``PlotItem.autoBtn``) must not be showing; a panel that wants its
view reset offers that in its own words.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QLabel

from relulab.testing import drag, move
from relulab.ui.main_window import default_size
from tests.ui.test_layout import tab_states
from tests.ui.test_themes_everywhere import CASES, axis_texts, settle, show_case

#: The least height, in pixels, of a plot one reads.
MIN_PLOT_HEIGHT = 120
#: (screen, zoom, lecture layout) by name.
SCREENS = {
    "laptop": (QSize(1366, 768), 1.0, False),
    "laptop-lecture": (QSize(1366, 768), 1.0, True),
    "projector": (QSize(1280, 720), 1.6, False),
    "projector-lecture": (QSize(1280, 720), 1.6, True),
}
#: A pixel of rounding between a size asked for and the size given.
SLACK = 1

def params():
    out = []
    for screen in SCREENS:
        for case in CASES:
            if case == "lecture":
                continue  # the lecture layout is a screen here
            out.append(pytest.param(screen, case, id=f"{screen}-{case}"))
    return out


# -- the checks ----------------------------------------------------------------------
def label_cut(label: QLabel) -> str | None:
    """Why the text of ``label`` does not fit it (None when it does)."""
    if label.text().rstrip().endswith("…") and label.toolTip():
        return None  # elided, and all of it in the tooltip
    width, height = label.width(), label.height()
    if label.wordWrap():
        need = label.heightForWidth(width)
        if need > height + SLACK:
            return f"needs {need} px of height at its width {width}, has {height}"
        return None
    hint = label.sizeHint()
    if hint.width() > width + SLACK or hint.height() > height + SLACK:
        return f"needs {hint.width()}×{hint.height()}, has {width}×{height}"
    return None


def overprinted(axis: pg.AxisItem) -> list[str]:
    """Pairs of the axis's numbers drawn over each other."""
    texts = axis_texts(axis)
    found = []
    for i, (a, text_a) in enumerate(texts):
        for b, text_b in texts[i + 1:]:
            if a.intersects(b):
                found.append(f"'{text_a}' and '{text_b}'")
    return found


def size_problems(window, panel) -> list[str]:
    problems = []
    for view in panel.findChildren(pg.GraphicsView):
        if not view.isVisible():
            continue
        name = view.objectName() or type(view).__name__
        if view.height() < MIN_PLOT_HEIGHT:
            problems.append(f"{name} only {view.height()} px high")
        for axis in (i for i in view.scene().items() if isinstance(i, pg.AxisItem)):
            if axis.isVisible():
                problems += [f"{name} {axis.orientation} axis: {pair} overprint"
                             for pair in overprinted(axis)]
    for label in window.findChildren(QLabel):
        if label.isVisible() and label.text().strip():
            why = label_cut(label)
            if why:
                text = " ".join(label.text().split())
                problems.append(f"{label.objectName() or repr(text[:40])}: text cut, {why}")
    return problems


# -- the tests -------------------------------------------------------------------------
def test_the_checks_see_a_cut_label_a_short_plot_and_crowded_numbers(main_window, theme):
    main_window.resize(default_size(QSize(1366, 768)))
    panel = main_window.show_panel("hinges")
    settle(panel)
    cut = QLabel("A sentence far too long for the room it is given here", panel)
    cut.setObjectName("hinges-cut")
    cut.setGeometry(0, 0, 60, 30)
    cut.show()
    elided = QLabel("A sentence …", panel)
    elided.setToolTip("A sentence told in full in its tooltip")
    elided.setGeometry(0, 40, 200, 30)
    elided.show()
    short = pg.PlotWidget(panel)
    short.setObjectName("hinges-short")
    short.setGeometry(0, 80, 300, 80)
    short.show()
    axis = short.getPlotItem().getAxis("bottom")
    axis.setTicks([[(v, f"{v:.6f}") for v in (0.0, 0.1, 0.2, 0.3)]])
    settle(panel)
    problems = "\n".join(size_problems(main_window, panel))
    assert "hinges-cut: text cut" in problems
    assert "A sentence …" not in problems
    assert "hinges-short only 80 px high" in problems
    assert "hinges-short bottom axis: '0.200000' and '0.300000' overprint" in problems
    for w in (cut, elided, short):
        w.deleteLater()


@pytest.mark.parametrize(("screen", "case"), params())
def test_every_panel_fits_the_screen(screen, case, main_window, theme, tmp_path):
    size, zoom, lecture = SCREENS[screen]
    window = main_window
    window.resize(default_size(size))
    theme.set_zoom(zoom)
    if lecture:
        window.menu_actions["action-lecture-layout"].trigger()
        assert window.lecture_layout
    panel = show_case(window, case, tmp_path)
    problems = []
    for where in tab_states(panel):  # every page of every tab widget in the panel
        problems += [p if where == "first pages" else f"{where}: {p}"
                     for p in size_problems(window, panel)]
    problems = list(dict.fromkeys(problems))
    if window.size() != default_size(size):
        # the window grew past the screen: the panel's least size is larger than the screen
        problems.insert(0, f"the window needs {window.width()}×{window.height()}, the screen gives "
                           f"{default_size(size).width()}×{default_size(size).height()}")
    assert not problems, f"{case} on the {screen}:\n" + "\n".join(problems)


# -- pyqtgraph's auto-range button ------------------------------------------------------------
def plot_items(view: pg.GraphicsView) -> list[pg.PlotItem]:
    return [i for i in view.scene().items() if isinstance(i, pg.PlotItem) and i.isVisible()]


def buttons_shown(view: pg.GraphicsView) -> list[str]:
    """Drag across each plot of ``view`` and hover it: the plots showing their "A"."""
    shown = []
    for item in plot_items(view):
        box = item.getViewBox()
        rect = view.mapFromScene(box.sceneBoundingRect()).boundingRect()
        if rect.width() < 20 or rect.height() < 20:
            continue
        centre = rect.center()
        start = centre - rect.bottomRight() / 10 + rect.topLeft() / 10
        drag(box, start.toPointF(), centre.toPointF())
        move(box, centre.toPointF())  # the mouse rests on the plot
        if item.autoBtn.isVisible():
            title = item.titleLabel.text or ""
            shown.append(f"{view.objectName() or type(view).__name__}"
                         + (f" ({title})" if title and len(plot_items(view)) > 1 else ""))
    return shown


def button_params():
    out = []
    for case in CASES:
        if case == "lecture":
            continue
        out.append(pytest.param(case, id=case))
    return out


@pytest.mark.parametrize("case", button_params())
def test_no_auto_range_button_shows_after_a_drag(case, main_window, theme, tmp_path):
    window = main_window
    window.resize(default_size(QSize(1366, 768)))
    panel = show_case(window, case, tmp_path)
    shown, seen = [], set()
    for _where in tab_states(panel):  # the plots of every tab page
        for view in panel.findChildren(pg.GraphicsView):
            if view.isVisible() and id(view) not in seen:
                seen.add(id(view))
                shown += buttons_shown(view)
                settle(panel)
    assert seen, f"{case} shows no plot"
    assert not shown, f"{case}: the auto-range button shows on " + ", ".join(shown)


def test_the_check_sees_the_button_of_a_plain_plot(main_window, theme):
    panel = main_window.show_panel("hinges")
    plain = pg.PlotWidget(panel)
    plain.setObjectName("hinges-plain")
    plain.plot([0, 1, 2], [0, 1, 0])
    plain.setGeometry(0, 0, 300, 200)
    plain.show()
    plain.raise_()
    settle(panel)
    assert buttons_shown(plain) == ["hinges-plain"]
    plain.getPlotItem().hideButtons()
    assert buttons_shown(plain) == []
    plain.deleteLater()
