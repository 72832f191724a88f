"""Every panel stays legible while the theme is switched at run time, measured on the
rendered window.

The window shows each panel (and the Deep → shallow panel with each of its sources: a
random network, the tent map, a network file, the digits example) and goes light →
dark → high contrast → light through View ▸ Theme, as a learner does. After each
switch, with each page of the panel's tab widgets in turn, the window is drawn and,
for every visible, enabled QLabel with text (readouts are QLabels), the pixels where
it lies are read: the background is the colour most of them have, the text the colour
that differs most from it (WCAG's contrast ratio), and their contrast must reach
4.5:1, 7:1 in high contrast (WCAG 2.2, 1.4.3 and 1.4.6). The lecture bar and its
caption are measured the same way on the built-in lecture's first scene. Every plot's
axis text is held to the same, from its pen against the plot's background and from
the pixels of each number it draws (where pyqtgraph lays it out).

The pixels are taken from the window's own drawing, cropped to the label, not from the
label drawn alone (``QLabel.grab``): alone, a label is drawn on its palette's window
colour, which is not what lies behind it on screen (a plot, a frame, a styled panel).
Disabled labels are left out (WCAG exempts inactive controls; their dimming is checked
in test_readability.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from relulab.ui.panels.base import Panel
from relulab.ui.theme import TEXT_CONTRAST, contrast_ratio
from tests.ui.test_layout import tab_states

#: What the window is checked on: every panel, the Deep → shallow panel with each of
#: its sources ("converter:<source>", the keys of the panel's source list), and the
#: built-in lecture's first scene with its bar and caption ("lecture").
CASES = ("hinges", "training", "folding", "converter:random", "converter:tent",
         "converter:file", "converter:example", "playground", "questions", "lecture")
#: The run-time switches, from the light theme a test starts in: the View menu's
#: entries in turn, back to where it began.
SWITCHES = ("dark", "high-contrast", "light")
#: High contrast promises more than the 4.5:1 of the others (WCAG's enhanced 7:1).
HIGH_CONTRAST = 7.0

def cases():
    """CASES as parameters."""
    return list(CASES)


def settle(panel: Panel) -> None:
    """The panel's work done and drawn, the layouts settled and painted."""
    panel.wait_until_idle(120)
    for _ in range(3):
        QApplication.processEvents()


def show_case(window, case: str, folder: Path) -> Panel:
    """Show the panel of ``case`` in ``window``, with the source the case names."""
    if case == "lecture":
        assert window.lecture.start_builtin()
        panel = window.current_panel()
        settle(panel)
        return panel
    name, _, source = case.partition(":")
    panel = window.show_panel(name)
    settle(panel)
    if source == "file":
        from relulab.io.networks import save_network
        from relulab.model.networks.mlp import MLP

        path = folder / "deep-2-6-6-1.json"  # two inputs: the panel draws its region map
        save_network(MLP.random([2, 6, 6, 1], seed=3), path)
        assert panel.load_file(path), panel.message.text()
    elif source and source != panel.source:
        box = panel.source_box
        index = box.findData(source)
        assert index >= 0, f"the Deep → shallow panel has no source {source!r}"
        box.setCurrentIndex(index)
        box.activated.emit(index)  # as a choice in the list
    settle(panel)
    if source:
        assert panel.source == source
    return panel


# -- pixels ------------------------------------------------------------------------
def pixels(image: QImage) -> np.ndarray:
    """An H×W×3 uint8 copy of ``image``."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes())
    return data.reshape(h, image.bytesPerLine())[:, : w * 3].reshape(h, w, 3).copy()


def _luminance(rgb: np.ndarray) -> np.ndarray:
    c = rgb / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def measured_contrast(crop: np.ndarray) -> tuple[float, QColor, QColor]:
    """(contrast, text, background) of the pixels ``crop``: the background is the
    colour most pixels have, the text the one of the highest contrast against it."""
    rgb = crop.reshape(-1, 3).astype(np.int64)
    keys = (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
    colours, counts = np.unique(keys, return_counts=True)
    as_rgb = np.stack([(colours >> 16) & 255, (colours >> 8) & 255, colours & 255], 1)
    lum = _luminance(as_rgb.astype(float))
    b = int(np.argmax(counts))
    ratios = (np.maximum(lum, lum[b]) + 0.05) / (np.minimum(lum, lum[b]) + 0.05)
    t = int(np.argmax(ratios))
    return float(ratios[t]), QColor(*map(int, as_rgb[t])), QColor(*map(int, as_rgb[b]))


def _crop(image: np.ndarray, rect: QRect, ratio: float) -> np.ndarray:
    x0, y0 = round(rect.left() * ratio), round(rect.top() * ratio)
    x1, y1 = round((rect.right() + 1) * ratio), round((rect.bottom() + 1) * ratio)
    return image[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]


def axis_texts(axis: pg.AxisItem) -> list[tuple[QRectF, str]]:
    """The numbers ``axis`` draws now, each with its rectangle in the axis's
    coordinates, as pyqtgraph lays them out to paint them."""
    image = QImage(1, 1, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    try:
        if axis.style["tickFont"] is not None:
            painter.setFont(axis.style["tickFont"])
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [] if specs is None else [(QRectF(rect), text) for rect, _flags, text in specs[2]]


def _label_name(label: QLabel) -> str:
    text = " ".join(label.text().split())
    return label.objectName() or f"label '{text[:40]}'"


def _visible_rect(widget: QWidget, window: QWidget) -> QRect:
    """Where the part of ``widget`` one sees lies in ``window``."""
    seen = widget.visibleRegion().boundingRect()
    return QRect(widget.mapTo(window, seen.topLeft()), seen.size())


def text_problems(window, panel: Panel, least: float) -> list[str]:
    """Labels of ``window`` (the panel's, and the window's own: the lecture bar) and
    axis text of ``panel`` under ``least`` contrast, measured on the window as drawn
    now."""
    image = window.grab().toImage()
    ratio = image.devicePixelRatio()
    drawn = pixels(image)
    problems = []
    labels = axes = 0
    for label in window.findChildren(QLabel):
        if not (label.isVisible() and label.isEnabled() and label.text().strip()):
            continue
        rect = _visible_rect(label, window)
        if rect.isEmpty():
            continue
        crop = _crop(drawn, rect, ratio)
        if crop.size == 0:
            continue
        labels += 1
        contrast, text, back = measured_contrast(crop)
        if contrast < least:
            problems.append(f"{_label_name(label)}: {contrast:.2f} ({text.name()} on "
                            f"{back.name()})")
    for view in panel.findChildren(pg.GraphicsView):
        if not view.isVisible() or view.scene() is None:
            continue
        background = view.backgroundBrush().color()
        for axis in (i for i in view.scene().items() if isinstance(i, pg.AxisItem)):
            if not axis.isVisible() or axis.style.get("showValues") is False:
                continue
            where = f"{view.objectName() or type(view).__name__} {axis.orientation} axis"
            pen = contrast_ratio(axis.textPen().color(), background)
            if pen < least:
                problems.append(f"{where} text pen: {pen:.2f} ({axis.textPen().color().name()} "
                                f"on {background.name()})")
            for rect, text in axis_texts(axis):
                on_screen = view.mapFromScene(axis.mapRectToScene(rect)).boundingRect()
                inside = on_screen.intersected(view.viewport().rect())
                crop = _crop(drawn, QRect(view.viewport().mapTo(window, inside.topLeft()),
                                          inside.size()), ratio)
                if not crop.size:
                    continue
                axes += 1
                contrast, colour, back = measured_contrast(crop)
                if contrast < least:
                    problems.append(f"{where} number '{text}' drawn: {contrast:.2f} "
                                    f"({colour.name()} on {back.name()})")
                    break  # one number of an axis says it
    if not labels or (panel.plots() and not axes):  # a check that saw nothing says so
        problems.append(f"measured {labels} labels and {axes} axes only")
    return problems


# -- the tests -------------------------------------------------------------------------
def test_the_measure_reads_text_on_its_background(qapp):
    """The measure itself: dark grey text on white, anti-aliased, reads as the grey's
    contrast; a blank crop as 1."""
    image = np.full((20, 60, 3), 255, np.uint8)
    image[8:12, 5:50] = 0x76  # #767676: 4.54 on white
    image[7, 5:50] = 0xC0  # a paler anti-aliased edge
    contrast, text, back = measured_contrast(image)
    assert back.name() == "#ffffff" and text.name() == "#767676"
    assert contrast == pytest.approx(contrast_ratio(QColor("#767676"), QColor("#ffffff")))
    assert measured_contrast(np.zeros((4, 4, 3), np.uint8))[0] == 1.0


def test_the_measure_finds_text_nobody_can_read(main_window, qtbot):
    """A label painted light grey on the light window, and axis numbers in the plot's
    own background colour, are reported by name."""
    panel = main_window.show_panel("hinges")
    pale = QLabel("Pale words on a pale window")
    pale.setObjectName("hinges-pale")
    pale.setStyleSheet("color: #DDDDDD")
    main_window.statusBar().addWidget(pale)  # on the window's own colour, in plain view
    pale.show()
    view = next(iter(panel.plots().values()))
    axis = view.getPlotItem().getAxis("left")
    axis.setTextPen(pg.mkPen(view.backgroundBrush().color()))
    axis.setPen(pg.mkPen(view.backgroundBrush().color()))
    qtbot.waitExposed(pale)
    settle(panel)
    problems = text_problems(main_window, panel, TEXT_CONTRAST)
    assert any(p.startswith("hinges-pale:") for p in problems), problems
    assert any(p.startswith(f"{view.objectName()} left axis text pen: 1.00") for p in problems)
    assert any(p.startswith(f"{view.objectName()} left axis number") for p in problems), problems
    pale.deleteLater()


@pytest.mark.parametrize("case", cases())
def test_text_stays_legible_while_the_theme_changes(case, main_window, tmp_path):
    window = main_window
    window.resize(1366, 768)
    panel = show_case(window, case, tmp_path)
    problems = []
    for theme in ("light", *SWITCHES):
        if theme != window.theme.name:
            window.menu_actions[f"action-theme-{theme}"].trigger()
        settle(panel)
        least = HIGH_CONTRAST if theme == "high-contrast" else TEXT_CONTRAST
        for where in tab_states(panel):  # every page of every tab widget in the panel
            problems += [f"{theme}, {where}: {p}" for p in text_problems(window, panel, least)]
    assert window.theme.name == "light"
    problems = list(dict.fromkeys(problems))
    assert not problems, f"{case}:\n" + "\n".join(problems)
