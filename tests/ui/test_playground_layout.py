"""The Playground's plots on a 1366 × 768 laptop and on a 1280 × 720 projector at zoom
1.6, with and without the lecture layout, on every page beside the map: the window stays
as large as the screen gives (a window that grew past it lost the curves' axes under
the screen's edge), every plot keeps a usable height, every axis label stands whole
inside its plot, and no note lies over a plot, also with the splitter dragged to either
end.

What was seen: "Regions against depth" drawn 0 px high at 1366 × 768, a drag of the
splitter that put the hidden space's note over its plot, and at zoom 1.6 a window taller
than the screen."""

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import QApplication, QLabel, QTabWidget, QWidget

from relulab.ui.main_window import default_size
from relulab.ui.panels.playground.sizing import DATA_HEIGHT, PLOT_HEIGHT

#: (screen, zoom, lecture layout)
SETTINGS = {
    "laptop": (QSize(1366, 768), 1.0, False),
    "laptop, lecture layout": (QSize(1366, 768), 1.0, True),
    "projector at zoom 1.6": (QSize(1280, 720), 1.6, False),
    "projector at zoom 1.6, lecture layout": (QSize(1280, 720), 1.6, True),
}


@pytest.fixture
def playground(main_window, theme, request):
    screen, zoom, lecture = SETTINGS[request.param]
    theme.set_zoom(zoom)
    window = main_window
    size = default_size(screen)
    window.resize(size)
    window.set_lecture_layout(lecture)
    panel = window.show_panel("playground")
    for _ in range(3):
        panel.step_once()
    settle(panel)
    return window, panel, size


def settle(panel) -> None:
    panel.wait_until_idle(60)
    panel.driver.draw_all()
    for _ in range(3):  # layouts settle over a few passes (wrapped notes a pass later)
        QApplication.processEvents()


def _visible_rect(widget: QWidget, window: QWidget) -> QRect:
    """The part of ``widget`` in sight: its rectangle cut by every widget that holds it."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect


def problems(window, panel, size, where: str) -> list[str]:
    found = []
    if window.size() != size:
        found.append(f"{where}: the window grew to {window.width()}×{window.height()}, "
                     f"past the screen's {size.width()}×{size.height()}")
    shown = {name: plot for name, plot in panel.plots().items() if plot.isVisibleTo(window)}
    for name, plot in shown.items():
        view = plot.getPlotItem().getViewBox().size()
        if plot.height() < PLOT_HEIGHT or view.height() < DATA_HEIGHT:
            found.append(f"{where}: {name} is {plot.height()} px high, its data "
                         f"{view.height():.0f} px")
        for side in ("left", "bottom"):
            axis = plot.getPlotItem().getAxis(side)
            if not axis.isVisible() or not axis.labelText:
                continue
            # the text, without the margin its document keeps around it
            m = axis.label.document().documentMargin()
            label = axis.label.mapRectToScene(axis.label.boundingRect().adjusted(m, m, -m, -m))
            if not (axis.label.isVisible() and label.top() >= -1 and label.left() >= -1
                    and label.bottom() <= plot.height() + 1 and label.right() <= plot.width() + 1):
                found.append(f"{where}: {name}'s {side} label '{axis.labelText}' is cut off "
                             f"({label.top():.0f}…{label.bottom():.0f} of {plot.height()} px)")
    # what lies over a plot: a label (a note, a readout, a key) or another plot
    things = [w for w in panel.findChildren(QWidget) if isinstance(w, QLabel | pg.GraphicsView)
              and w.objectName() and w.isVisibleTo(window)]
    rects = {w: _visible_rect(w, window) for w in things}
    for plot in shown.values():
        for w in things:
            if w is plot or plot.isAncestorOf(w):
                continue
            common = rects[plot].intersected(rects[w])
            if common.width() > 2 and common.height() > 2:
                found.append(f"{where}: {w.objectName()} lies over {plot.objectName()}")
    return found


def every_page(window, panel, size, where: str) -> list[str]:
    """Each page of each tab widget among the plots (the controls' tabs aside), in turn."""
    found = []
    for tabs in panel.findChildren(QTabWidget):
        if panel.controls.isAncestorOf(tabs) or not tabs.isVisibleTo(window):
            continue
        for i in range(tabs.count()):
            if not tabs.isTabVisible(i):
                continue
            tabs.setCurrentIndex(i)
            settle(panel)
            found += problems(window, panel, size, f"{where}, {tabs.tabText(i)}")
        tabs.setCurrentIndex(0)
    return found


@pytest.mark.parametrize("playground", list(SETTINGS), indirect=True)
def test_every_plot_keeps_its_height_and_its_labels_and_the_window_its_size(playground, request):
    window, panel, size = playground
    where = request.node.callspec.id
    found = every_page(window, panel, size, where)
    # the splitter dragged to either end: its panes keep what their plots need
    for end in (0, panel.splitter.height()):
        panel.splitter.moveSplitter(end, 1)
        found += every_page(window, panel, size, f"{where}, splitter at {end}")
    assert not found, "\n".join(found)


def test_the_lectures_playground_scenes_keep_a_large_map_with_nothing_written_on_it(
        main_window, theme):
    """The built-in lecture's Playground scenes (the collapse of linear layers, the
    circles network) at 1280 × 720 and zoom 1.6: the map, the scene's main plot, keeps a
    data area of at least 400 × 400 px (a projected room reads it), every plot its
    height and its labels, and no text lies on the map over its boundary."""
    window = main_window
    size = default_size(QSize(1280, 720))
    window.resize(size)
    theme.set_zoom(1.6)
    assert window.lecture.start_builtin()
    found, scenes = [], 0
    for i in range(len(window.lecture.playlist.scenes)):
        window.lecture.go(i)
        panel = window.current_panel()
        if panel.name != "playground":
            continue
        scenes += 1
        settle(panel)
        found += every_page(window, panel, size, f"scene {i + 1}")
        view = panel.data_map.getPlotItem().getViewBox().size()
        if view.width() < 400 or view.height() < 400:
            found.append(f"scene {i + 1}: the map's data area is {view.width():.0f}×{view.height():.0f}")
        found += [f"scene {i + 1}: text '{item.toPlainText()}' on the map"
                  for item in panel.data_map.getPlotItem().items if isinstance(item, pg.TextItem)]
    window.lecture.end()
    assert scenes == 2, "the lecture's Playground scenes: the linear collapse and the circles"
    assert not found, "\n".join(found)
