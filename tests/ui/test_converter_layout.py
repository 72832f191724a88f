"""The Deep → shallow panel's layout: only the controls that apply to the source on
screen, and every plot, title and caption whole on a laptop and on a projector at
zoom 1.6, with and without the lecture layout."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QFontMetricsF, QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QWidget,
)

from relulab.model.networks.mlp import MLP
from relulab.ui.main_window import default_size
from relulab.ui.panels.converter import ConverterPanel


def _wait(panel):
    assert panel.wait_until_idle(60)


def _type(qtbot, panel, arch: str) -> None:
    """``arch`` typed into the architecture field and Return pressed, as a user does;
    back once the result is drawn."""
    from PySide6.QtTest import QTest

    panel.arch_edit.setFocus()
    panel.arch_edit.selectAll()
    QTest.keyClicks(panel.arch_edit, arch)
    QTest.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    _wait(panel)
    qtbot.wait(50)


def _laid_out_width(label) -> float:
    """The width a rich-text label's text takes laid out at the label's width, as a
    label lays it out (no margin, whole words): more than the label is cut."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    doc.setDefaultTextOption(option)
    doc.setDefaultFont(label.font())
    doc.setHtml(label.text())
    doc.setTextWidth(label.width())
    return doc.idealWidth()


@pytest.fixture
def panel(qtbot, theme):
    p = ConverterPanel()
    qtbot.addWidget(p)
    p.resize(1366, 740)
    p.show()
    _wait(p)
    yield p
    p.shutdown()


#: The controls that shape each source's network; the others are not shown.
SHAPING = ("converter-architecture", "converter-seed", "converter-tent-depth")
APPLIES = {"random": {"converter-architecture", "converter-seed"},
           "tent": {"converter-tent-depth"}, "received": set(), "file": set(), "example": set()}


def _shown(panel, name: str) -> bool:
    return panel.findChild(QWidget, name).isVisibleTo(panel)


def test_only_the_controls_of_the_source_on_screen_are_shown(qtbot, panel, tmp_path):
    """Seen: with the digits example on screen, the architecture, seed and tent depth
    stayed, though they change nothing; and "Export shallow network…" stayed under a
    verdict that says it is not built."""
    from relulab.io.networks import save_network

    def check(source):
        _wait(panel)
        assert panel.state.source == source
        shown = {name for name in SHAPING if _shown(panel, name)}
        assert shown == APPLIES[source], source
        for always in ("converter-source", "converter-new-random", "converter-open"):
            assert _shown(panel, always), (source, always)

    check("random")
    assert _shown(panel, "converter-export")
    panel.set_tent_depth(3)
    check("tent")
    panel.receive("network", MLP.random([1, 4, 1], seed=1))
    check("received")
    save_network(MLP.random([1, 3, 1], seed=2), tmp_path / "net.json")
    assert panel.load_file(tmp_path / "net.json")
    check("file")
    assert panel.open_example()
    check("example")
    assert "not built here" in panel.verdict.text()
    assert not _shown(panel, "converter-export")
    panel.new_random()
    check("random")
    assert _shown(panel, "converter-export")
    panel.undo_stack.undo()  # back to the example
    check("example")


# -- sizes: a laptop, and a projector at zoom 1.6 ------------------------------------
SCREENS = {"laptop": (QSize(1366, 768), 1.0), "projector at zoom 1.6": (QSize(1280, 720), 1.6)}
#: The least height of a plot's data area, in pixels.
LEAST_VIEW = 120


@pytest.fixture
def window(qtbot, theme):
    from relulab.app import build_main_window

    w = build_main_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def needed_height(label: QLabel) -> int:
    """The height ``label`` needs to show all its lines at its width."""
    if label.wordWrap():
        need = label.heightForWidth(label.width())
        if need >= 0:
            return need
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap) if label.wordWrap() else 0
    rect = label.fontMetrics().boundingRect(QRect(0, 0, label.contentsRect().width(), 100000),
                                            flags, label.text())
    return rect.height() + label.height() - label.contentsRect().height()


def _ancestors(widget):
    while widget.parentWidget() is not None:
        widget = widget.parentWidget()
        yield widget


def _title_problems(plot) -> list[str]:
    item = plot.getPlotItem()
    title = item.titleLabel
    if not title.text or not plot.isVisible():
        return []
    text = title.item.boundingRect()
    if text.width() > item.width() or text.height() > title.height() + 1:
        return [f"{plot.objectName()}'s title {text.width():.0f}×{text.height():.0f} px "
                f"in {item.width():.0f}×{title.height():.0f}"]
    return []


def size_problems(window, panel, where: str) -> list[str]:
    """Every plot of the panel with LEAST_VIEW px of data height and its title whole,
    every caption and readout with the height its lines need and inside the window,
    the plots wider than the details beside them, and the window as large as asked."""
    found = []
    for plot in (panel.main_plot, panel.diff_plot):
        if not plot.isVisible():
            continue
        view = plot.getPlotItem().getViewBox()
        if view.height() < LEAST_VIEW:
            found.append(f"{plot.objectName()} only {view.height():.0f} px high")
        found += _title_problems(plot)
    for label in panel.findChildren(QLabel):
        if not label.isVisible() or not label.objectName().startswith("converter-"):
            continue
        if label.height() + 1 < needed_height(label):
            found.append(f"{label.objectName()} {label.height()} px high, its text needs "
                         f"{needed_height(label)}")
        # in sight: in the window, or in a scrolled column's width (its height scrolls)
        scroll = next((a for a in _ancestors(label) if isinstance(a, QScrollArea)), None)
        frame = window if scroll is None else scroll.viewport()
        box = QRect(label.mapTo(frame, QPoint(0, 0)), label.size())
        inside = frame.rect() if scroll is None else QRect(0, box.top(), frame.width(), box.height())
        if not inside.contains(box):
            found.append(f"{label.objectName()} outside {frame.objectName()} at {box.getRect()}")
    left = panel.findChild(QWidget, "converter-left")
    for widget in left.findChildren(QWidget):  # no control cut at the column's right edge
        if widget.isVisible() and isinstance(widget, (QLabel, QAbstractButton, QComboBox,
                                                      QAbstractSpinBox, QLineEdit)):
            right = widget.mapTo(left, QPoint(widget.width(), 0)).x()
            if right > left.width():
                found.append(f"{widget.objectName() or type(widget).__name__} cut at the "
                             f"controls' edge ({right} > {left.width()})")
    message = panel.message
    if message.isVisible() and message.text():  # the source's caption: at the column's top
        scroll = next((a for a in _ancestors(message) if isinstance(a, QScrollArea)), None)
        viewport = window if scroll is None else scroll.viewport()
        box = QRect(message.mapTo(viewport, QPoint(0, 0)), message.size())
        if not viewport.rect().contains(box):
            found.append(f"the message at {box.getRect()}, out of sight")
    if panel.details.isVisible() and panel.details.width() > 0.3 * window.width():
        found.append(f"the details take {panel.details.width()} px of {window.width()}")
    if panel.main_plot.width() < 0.4 * window.width():
        found.append(f"the main plot only {panel.main_plot.width()} px wide")
    return [f"{where}: {p}" for p in found]


def test_a_result_never_moves_the_plots(qtbot, panel):
    """Seen: the sizes table set the controls' column's width, so a network with long
    width lists (1-64-…-64-1, 1-100-100-4) widened it and the next narrowed it back;
    each time the plots were laid out again and the whole panel repainted as the result
    arrived (20–24 ms of the GUI thread). The column keeps its width and the table
    wraps inside it, whole."""

    left, plots = panel.findChild(QScrollArea, "converter-left"), panel.plot_area
    widths = set()
    for arch in ("2-48-1", "1-64-64-64-64-64-64-64-64-1", "1-100-100-4", "2-64-4", "1-8-1"):
        _type(qtbot, panel, arch)
        widths.add((left.width(), plots.width()))
        label = panel.sizes_label
        assert label.width() <= left.viewport().width(), arch
        # the table fits the label's width: laid out at that width, nothing sticks out
        assert _laid_out_width(label) <= label.width(), (arch, label.width())
        assert label.heightForWidth(label.width()) <= label.height() + 1, arch
        assert "-".join(map(str, panel.net.sizes[1:-1])) in label.shown_text, arch
    assert len(widths) == 1, widths


@pytest.mark.parametrize("lecture", [False, True], ids=["controls", "lecture"])
def test_the_sizes_table_is_whole_at_zoom_1_6(qtbot, panel, theme, lecture):
    """Seen in the lecture layout at zoom 1.6, where the table is the column's only
    content: with no say in the column's width it was cut at the bound column. The
    column widens for a table wider than any before it, never narrows for a result."""

    theme.set_zoom(1.6)
    panel.set_lecture_layout(lecture)
    panel.resize(1280, 700)
    left = panel.findChild(QScrollArea, "converter-left")
    widths = []
    for arch in ("1-64-64-64-64-64-64-64-64-1", "2-64-4", "1-8-1", "1-64-64-64-64-64-64-64-64-1"):
        _type(qtbot, panel, arch)
        label = panel.sizes_label
        # (a table's columns are laid out in fractions of a pixel: one more is its
        # right padding, nothing cut)
        assert _laid_out_width(label) <= label.width() + 1, (arch, label.width())
        assert label.width() <= left.viewport().width(), arch
        widths.append(left.width())
    # wider for 2-64-4's table than for the first, and never narrower again
    assert widths == sorted(widths) and widths[-1] == widths[1], widths


def test_a_long_architecture_wraps_in_the_details_at_zoom_1_6(qtbot, panel, theme):
    """Seen at zoom 1.6: "1-64-64-64-64-64-64-64-64-1" in the explanation could not
    wrap (Unicode keeps a hyphen before a digit), so the details' words were wider
    than their column and cut at its right edge. Every label of the details fits."""

    theme.set_zoom(1.6)
    panel.resize(1280, 700)
    _type(qtbot, panel, "1-64-64-64-64-64-64-64-64-1")
    room = panel.details.viewport().width()
    for label in panel.details.findChildren(QLabel):
        if label.isVisibleTo(panel):
            assert label.minimumSizeHint().width() <= room, (label.objectName(), room)
    assert "1-64-64-64-64-64-64-64-64-1" in panel.explain.shown_text


@pytest.mark.parametrize("screen", SCREENS, ids=SCREENS.keys())
def test_every_plot_and_caption_fits_a_laptop_and_a_projector(window, theme, screen):
    """Seen at 1280 × 720, zoom 1.6: the details took 40% of the width, the main plot's
    title was cut, the difference plot had 19 px of data; with the digits example the
    window grew past the screen and its caption was cut to one line."""
    size, zoom = SCREENS[screen]
    size = default_size(size)
    window.resize(size)
    panel = window.show_panel("converter")
    _wait(panel)
    theme.set_zoom(zoom)  # at run time, the panel open
    QApplication.processEvents()
    problems = []
    for state in ("tent", "map", "digits"):
        if state == "tent":
            panel.set_tent_depth(4)
        elif state == "map":
            panel.new_random()
        else:
            assert panel.open_example()
        _wait(panel)
        for lecture in (False, True):
            window.set_lecture_layout(lecture)
            QApplication.processEvents()
            where = f"{state}{', lecture layout' if lecture else ''}"
            if window.size() != size:
                problems.append(f"{where}: the window grew to {window.size().toTuple()}")
            problems += size_problems(window, panel, where)
        window.set_lecture_layout(False)
    assert not problems, "\n".join(problems)


# -- the digits plane: lecture scene 10 on a projector ------------------------------------
def _map_rect(panel) -> QRectF:
    """The box of the plane's map, in the scene's pixels."""
    vb = panel.main_plot.getPlotItem().getViewBox()
    x0, x1, y0, y1 = panel.slice_view.box
    return QRectF(vb.mapViewToScene(pg.Point(x0, y1)), vb.mapViewToScene(pg.Point(x1, y0)))


def class_label_problems(panel) -> list[str]:
    """Every class named on the map lies inside its class, away from the decision
    boundary: the network picks that class at every point of the name's glyphs and a
    margin of 2 px round them; and the largest classes are named."""
    view = panel.slice_view
    vb = panel.main_plot.getPlotItem().getViewBox()
    found, named = [], set()
    names = [gi for gi in panel.slice_drawing.items
             if isinstance(gi, pg.TextItem) and gi.toPlainText().isdigit()]
    for label in names:
        if not label.isVisible():
            continue
        k = int(label.toPlainText())
        named.add(k)
        glyphs = QFontMetricsF(label.textItem.font()).tightBoundingRect(label.toPlainText())
        centre = label.sceneBoundingRect().center()
        w, h = glyphs.width() / 2 + 2, glyphs.height() / 2 + 2
        points = [vb.mapSceneToView(QPointF(centre.x() + a * w, centre.y() + b * h))
                  for a in np.linspace(-1, 1, 7) for b in np.linspace(-1, 1, 7)]
        xy = np.array([[p.x(), p.y()] for p in points])
        picked = np.argmax(view.restricted(xy), axis=1)
        if not np.all(picked == k):
            found.append(f"class {k}'s name over class(es) {sorted(set(picked) - {k})}")
        x0, x1, y0, y1 = view.box
        if not (np.all((x0 <= xy[:, 0]) & (xy[:, 0] <= x1))
                and np.all((y0 <= xy[:, 1]) & (xy[:, 1] <= y1))):
            found.append(f"class {k}'s name beyond the map")
    area = view.decisions.area_by_class()
    largest = set(np.argsort(area)[-3:].tolist())
    if not largest <= named:
        found.append(f"the largest classes {sorted(largest)} not all named: {sorted(named)}")
    return found


def test_lecture_scene_10_keeps_its_map_large_and_its_names_inside_their_classes(window, theme):
    """Seen at 1280 × 720, zoom 1.6, in the lecture: the digits plane drawn in a third of
    the plot's height under the pictures' labels, and the names 8 and 6 of the narrow
    classes across the decision boundary."""
    window.resize(default_size(QSize(1280, 720)))
    theme.set_zoom(1.6)
    assert window.lecture.start_builtin()
    window.lecture.go(9)
    panel = window.current_panel()
    assert panel.name == "converter" and panel.wait_until_idle(60)
    QApplication.processEvents()
    assert panel.state.source == "example" and panel.slice_view.cut.kind == "plane"
    vb = panel.main_plot.getPlotItem().getViewBox()
    view_rect = vb.sceneBoundingRect()
    map_rect = _map_rect(panel)
    # the map takes the plot's whole height (its padding aside)
    assert map_rect.height() >= 0.9 * view_rect.height(), (map_rect, view_rect)
    assert map_rect.height() >= 280
    # the points' pictures and labels beside it, whole, none over another
    cards = []
    for card in panel.slice_drawing.cards.cards:
        cards.append(card["label"].sceneBoundingRect())
        if card["picture"] is not None:
            cards.append(card["picture"].sceneBoundingRect())
    assert len(cards) == 6
    for i, rect in enumerate(cards):
        assert not rect.intersects(map_rect), f"a point's picture or label over the map: {rect}"
        assert view_rect.contains(rect), f"cut off by the plot: {rect}"
        for other in cards[i + 1:]:
            assert not rect.intersects(other)
    assert not class_label_problems(panel)
    window.lecture.end()


def test_class_names_stay_inside_their_classes_on_a_laptop(panel):
    assert panel.open_example()
    _wait(panel)
    QApplication.processEvents()
    assert not class_label_problems(panel)


def test_a_line_slice_names_its_points_and_curves_without_overprinting(window, theme):
    """Seen at 1280 × 720, zoom 1.6: the names of A and B, centred on their lines, printed
    over each other, and the numbers of the ten outputs over each other where the
    curves end close together."""
    window.resize(default_size(QSize(1280, 720)))
    theme.set_zoom(1.6)
    panel = window.show_panel("converter")
    assert panel.open_example()
    _wait(panel)
    panel.slicing.choose_kind("line")
    _wait(panel)
    QApplication.processEvents()
    plot = panel.main_plot
    inside = plot.getPlotItem().getViewBox().sceneBoundingRect()
    labels = [gi for gi in plot.scene().items() if isinstance(gi, pg.TextItem) and gi.isVisible()]
    assert len(labels) == 12  # A and B, and the ten outputs
    rects = []
    for gi in labels:  # the glyphs, centred in the label's box (its margins aside)
        tight = QFontMetricsF(gi.textItem.font()).tightBoundingRect(gi.toPlainText())
        centre = gi.sceneBoundingRect().center()
        rects.append(QRectF(centre.x() - tight.width() / 2, centre.y() - tight.height() / 2,
                            tight.width(), tight.height()))
    problems = []
    for i, (gi, rect) in enumerate(zip(labels, rects)):
        if not inside.contains(rect):
            problems.append(f"{gi.toPlainText()!r} cut off by the plot")
        problems += [f"{gi.toPlainText()!r} over {other.toPlainText()!r}"
                     for other, r in zip(labels[i + 1:], rects[i + 1:]) if rect.intersects(r)]
    assert not problems, "\n".join(problems)
