"""What a learner and a lecturer see on the Training panel is true and legible: Play
keeps to the speed box, a diverged restart never reads as a perfect one, axes whose
numbers never overprint, one colour and one number for each restart, no kink left out
without a word, every plot whole on a laptop and on a projector, one number format,
themes switched at run time, and a guide whose numbers are the model's."""

import re
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QLabel

from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.hinges import MAX_HINGES
from relulab.model.fitting.training import SPEEDS, fit_even_hinges
from relulab.model.lessons.playground_parts import TrainingSettings
from relulab.model.lessons.training import TrainingState
from relulab.testing import mouse
from relulab.ui.panels.training import TrainingPanel, jobs
from relulab.ui.theme import THEMES

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "relulab" / "resources" / "guides" / "training.md"
#: Digits grouped by a space ("20 000", "16 777 216"): the app writes 20,000.
SPACED_DIGITS = re.compile(r"\d[ \u00a0\u2009\u202f]\d{3}(?!\d)")


@pytest.fixture
def panel(shown_panel):
    kernels.compiled_available()  # compile once up front, so waits below are about training
    return shown_panel(TrainingPanel, (1200, 760))


def small(panel, restarts=3, hidden=8, steps=3000):
    panel.restarts.setValue(restarts)
    panel.hidden.setValue(hidden)
    panel.steps.setValue(steps)


def diverging(panel, steps=50):
    """Gradient descent at rate 0.1 on the default target: five of the six restarts
    diverge within 12 steps, one trains (the guide's third thing to try)."""
    panel.optimizer.setCurrentIndex(panel.optimizer.findData("gd"))
    panel.lr.setValue(0.1)
    panel.steps.setValue(steps)
    for _ in range(steps):
        panel.step_once()
    panel.driver.draw_all()
    snap = panel.snapshot
    assert 0 < snap.diverged.sum() < snap.restarts
    return snap


def drawn_texts(axis) -> list[tuple[QRectF, str]]:
    """The tick labels an axis draws now, with their rectangles (in its coordinates)."""
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        painter.setFont(axis.style["tickFont"] or painter.font())
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, text) for rect, _flags, text in texts]


def colour(pen_or_brush) -> str:
    return pen_or_brush.color().name()


# -- 1. the first Play --------------------------------------------------------------
def test_the_first_play_keeps_to_the_speed_box(qtbot, panel):
    """Step 2 of the welcome window: a fresh panel shows 1,000 steps/s and its first
    Play trains at that speed (it did all 20,000 steps in about 2 s)."""
    assert panel.driver.speed == SPEEDS[panel.speed.currentText()] == 1000
    assert panel.speed.currentText() == "1,000 steps/s"
    started = time.perf_counter()
    panel.play()
    qtbot.waitUntil(lambda: panel.trainer.step >= 300, timeout=20_000)
    elapsed = time.perf_counter() - started
    panel.pause()
    # owed steps are counted from the time that passed (at most a quarter second ahead)
    assert panel.trainer.step <= 1000 * elapsed + 250 + 50, (panel.trainer.step, elapsed)


# -- 2. diverged restarts ----------------------------------------------------------
def test_a_diverged_restart_is_drawn_as_diverged_not_as_perfect(qtbot, panel):
    snap = diverging(panel)
    bars = panel.final_bars.opts
    order = snap.rmse_order()
    lost = snap.diverged[order]
    top = jobs.final_bars(snap, "sorted", panel._ghost.rmse).top
    assert np.all(bars["height"][lost] == pytest.approx(top))  # full height, not zero
    assert np.all(bars["height"][~lost] == pytest.approx(snap.rmse[order][~lost]))
    for brush, gone in zip(bars["brushes"], lost):
        assert (brush.style() == Qt.BrushStyle.BDiagPattern) == gone  # hatched
    assert panel.diverged_label.toPlainText() == "diverged"
    assert panel.diverged_label.pos().x() == pytest.approx(np.mean(np.flatnonzero(lost) + 1))
    assert "diverged" in panel.key.plain_text()
    # the histogram counts finite RMSEs only, and says how many it left out
    panel.final_view.setCurrentIndex(panel.final_view.findData("histogram"))
    panel.driver.draw_all()
    assert int(np.sum(panel.final_bars.opts["height"])) == snap.restarts - lost.sum()
    assert panel.final_hint.toPlainText() == f"{lost.sum()} of {snap.restarts} diverged: not counted"


def test_values_not_yet_run_are_no_bars_but_a_hint(qtbot, panel):
    small(panel, restarts=4, steps=200)
    panel.driver.draw_all()
    assert len(panel.final_bars.opts["height"]) == 0
    assert panel.final_hint.toPlainText() == jobs.UNTRAINED_HINT
    assert panel.diverged_label.toPlainText() == ""


# -- 3 and 7. axes and sizes ------------------------------------------------------
def test_readable_axis_spaces_its_labels_by_their_room(qapp, theme):
    """A log axis labels whole decades only, as powers of ten, as far apart as its
    labels need; a linear one as many numbers as fit, thousands with a comma."""
    from relulab.ui.panels.training.axes import ReadableAxis

    axis = ReadableAxis("left")
    axis.setStyle(tickFont=theme.font(9))
    axis.setLogMode(False, True)
    (step, labelled), *_ = axis.tickValues(-6.2, 0.3, 60)  # 6.5 decades in 60 px
    assert step >= 2 and all(v == int(v) for v in labelled)
    assert axis.tickStrings([-6, -1, 0, 1, 3], 1, 1) == ["10⁻⁶", "10⁻¹", "1", "10", "10³"]
    bottom = ReadableAxis("bottom")
    bottom.setStyle(tickFont=theme.font(9))
    (step, _values), *_ = bottom.tickValues(0, 20_000, 200)
    assert step / 20_000 * 200 >= bottom.label_room(["20,000"], gap=1.0)  # never overlap
    assert bottom.tickStrings([0, 10_000, 20_000], 1, 10_000) == ["0", "10,000", "20,000"]


SIZES = [((1366, 768), 1.0, False), ((1366, 768), 1.0, True),
         ((1280, 720), 1.6, False), ((1280, 720), 1.6, True)]


@pytest.mark.parametrize(("screen", "zoom", "lecture"), SIZES,
                         ids=["1366x768", "1366x768 lecture", "1280x720 zoom 1.6",
                              "1280x720 zoom 1.6 lecture"])
def test_every_plot_whole_on_a_laptop_and_a_projector(qtbot, main_window, theme, screen,
                                                      zoom, lecture):
    """Seen at 1280 × 720, zoom 1.6, outside the lecture layout: the legend, the small
    plots' titles and their ticks were cut off or written over each other. Every plot
    keeps 120 px, every title and axis label fits its plot, no tick label overlaps
    another or leaves its axis, no legend lies on a plot (the key is under them, whole),
    and no readout is cut off."""
    from relulab.ui.main_window import default_size

    main_window.resize(default_size(QSize(*screen)))
    theme.set_zoom(zoom)
    panel = main_window.show_panel("training")
    main_window.set_lecture_layout(lecture)
    diverging(panel, steps=300)
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20_000)
    for _ in range(3):
        QApplication.processEvents()
    for name, plot in panel.plots().items():
        item = plot.getPlotItem()
        assert plot.height() >= 120, (name, plot.height())
        assert item.legend is None, name
        title = item.titleLabel
        assert title.item.boundingRect().width() <= item.width(), (name, title.text)
        assert title.item.mapRectToItem(item, title.item.boundingRect()).left() >= -1, name
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            rects = drawn_texts(axis)
            bounds = axis.boundingRect().adjusted(-1, -1, 1, 1)
            assert rects or (side == "left" and name == "final"), (name, side, "no numbers")
            for i, (rect, text) in enumerate(rects):
                assert bounds.contains(rect), (name, side, text, rect, bounds)
                for other, text2 in rects[i + 1:]:
                    assert not rect.intersects(other), (name, side, text, text2)
            if axis.label.isVisible() and axis.labelText:
                along = axis.label.boundingRect().width()
                assert along <= (axis.width() if side == "bottom" else axis.height()) + 1, \
                    (name, side, axis.labelText)
        if name == "losses":  # decades only, as powers of ten
            decades = [t for _r, t in drawn_texts(item.getAxis("left"))]
            assert all(re.fullmatch(r"1|10|10⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", t) for t in decades), decades
    key = panel.key
    if not lecture:
        assert key.isVisible() and key.heightForWidth(key.width()) <= key.height()
        bottom = key.mapTo(panel, key.rect().bottomLeft()).y()
        assert bottom <= panel.height(), "the key is cut off"
        plots_bottom = max(p.mapTo(panel, p.rect().bottomLeft()).y()
                           for p in panel.plots().values())
        assert key.mapTo(panel, key.rect().topLeft()).y() >= plots_bottom  # under them
    for label in panel.readings.labels():
        if label.isVisible() and label.wordWrap():
            assert label.heightForWidth(label.width()) <= label.height() + 1, label.objectName()
    if panel.explain.isVisible():
        assert panel.explain.heightForWidth(panel.explain.width()) <= panel.explain.height() + 1
    assert panel.explain.text() in panel.curve_plot.toolTip()  # where it is when hidden


# -- 4. the best restart's colour ------------------------------------------------
@pytest.mark.parametrize("name", THEMES)
def test_the_best_restart_has_one_colour_in_every_plot(qtbot, panel, theme, name):
    theme.set_name(name)
    small(panel, restarts=4, steps=300)
    for _ in range(30):
        panel.step_once()
    panel.driver.draw_all()
    snap, best = panel.snapshot, panel.snapshot.best
    approx, muted = theme.color("approx").name(), theme.color("muted").name()
    assert colour(panel.best_curve.opts["pen"]) == approx
    assert {colour(c.opts["pen"]) for c in panel.restart_curves[:4]} == {muted}
    for r, curve in enumerate(panel.loss_curves[:4]):
        assert colour(curve.opts["pen"]) == (approx if r == best else muted), r
    assert colour(panel.kink_paths.opts["pen"]) == approx  # the best restart's kinks
    brushes = panel.final_bars.opts["brushes"]
    order = snap.rmse_order()
    assert [colour(b) for b in brushes] == [approx if r == best else muted for r in order]
    assert any(e.colour == "approx" and "best restart" in e.text and "every plot" in e.text
               for e in panel.key.entries)
    other = (best + 1) % 4
    panel.selected.setCurrentIndex(panel.selected.findData(other))
    panel.driver.draw_all()
    assert colour(panel.kink_paths.opts["pen"]) == muted


# -- 5. one numbering ------------------------------------------------------------
def test_restarts_have_one_number_in_list_plots_and_status(qtbot, panel):
    """Restarts count from 1 everywhere ("restart 3 of 6"), and the list says which
    random seed each starts from without looking like an off-by-one."""
    snap = diverging(panel)
    R = snap.restarts
    items = [panel.selected.itemText(i) for i in range(1, panel.selected.count())]
    assert items == [f"restart {r + 1} of {R} (random seed {s})" for r, s in enumerate(snap.seeds)]
    assert items[2] == "restart 3 of 6 (random seed 2)"
    best = snap.best
    assert f"best: restart {best + 1} of {R}," in panel.best_readout.text()
    assert panel.readouts()["best_restart"] == best + 1
    assert panel.refit_readout.text().startswith(f"restart {best + 1} of {R}:")
    axis = panel.final_plot.getPlotItem().getAxis("bottom")
    names = {float(i + 1): str(r + 1) for i, r in enumerate(snap.rmse_order())}
    assert axis._names == names and names[1.0] == str(best + 1)  # bar 1 is the best restart
    assert panel.kink_plot.getPlotItem().titleLabel.text == f"Kinks, restart {best + 1}"
    for r in np.flatnonzero(snap.diverged):
        assert f"restart {r + 1} of {R} at step {snap.diverged_at[r]:,}" in panel.status.text()
    assert all(re.search(r"seed \d", t) is None for t in
               (panel.best_readout.text(), panel.refit_readout.text(), panel.status.text()))


# -- 6. kinks sent to Hinges -------------------------------------------------------
def made_kinks(snap, kinks):
    """``snap`` with restart 0's neurons kinked at ``kinks`` (w = 1, b = −k)."""
    k = np.asarray(kinks, float)
    w, b, a = snap.w.copy(), snap.b.copy(), snap.a.copy()
    w[0], b[0], a[0] = 1.0, -k, np.linspace(1.0, 2.0, k.size)
    return replace(snap, w=w, b=b, a=a)


def test_kinks_left_out_of_hinges_are_counted_with_their_reason():
    state = TrainingState(hidden=8, restarts=1)
    snap = state.trainer().snapshot()
    # two outside [−3, 3], two on one place, and six left for a limit of five
    snap = made_kinks(snap, [-4.0, 3.5, -1.0, -1.0, 0.0, 0.5, 1.0, 2.0])
    sent = jobs.hinges_kinks(snap, 0, limit=5)
    assert sent.kinks == [-1.0, 0.0, 0.5, 1.0, 2.0]
    assert sent.note == ("Sent 5 of the 8 kinks of restart 1 of 1 to Hinges; left out 3: "
                         "2 outside [-3, 3], 1 at the same place as another.")
    sent = jobs.hinges_kinks(snap, 0, limit=4)  # the least bent goes: a grows with k
    assert sent.kinks == [0.0, 0.5, 1.0, 2.0]
    assert "1 beyond the Hinges panel's 4 (the least bent)" in sent.note
    assert "left out 4" in sent.note
    whole = made_kinks(snap, np.linspace(-2, 2, 8))
    assert jobs.hinges_kinks(whole, 0) == (list(np.linspace(-2, 2, 8)), "")
    assert MAX_HINGES == 200  # the limit the guide quotes


def test_send_kinks_to_hinges_says_in_the_status_bar_what_was_left_out(qtbot, main_window):
    panel = main_window.show_panel("training")
    panel.init.setCurrentIndex(panel.init.findData("he"))  # kinks near 0, many outside
    panel.domain_a.setValue(-0.3)
    panel.domain_b.setValue(0.3)
    panel.step_once()
    panel.driver.draw_all()
    snap = panel.snapshot
    r = snap.best
    outside = int(np.sum(~((snap.kinks[r] > -0.3) & (snap.kinks[r] < 0.3))))
    assert outside > 0
    assert panel.send_selected_to_hinges()
    message = main_window.statusBar().currentMessage()
    assert f"left out {outside}: {outside} outside [-0.3, 0.3]" in message
    hinges = main_window.panel("hinges")
    assert len(hinges.state.kinks) == snap.hidden - outside


# -- one number format ---------------------------------------------------------------
def visible_texts(panel) -> list[str]:
    texts = [w.text() for w in panel.findChildren(QLabel)]
    texts += [w.text() for w in panel.findChildren(QAbstractButton)]
    for combo in panel.findChildren(QComboBox):
        texts += [combo.itemText(i) for i in range(combo.count())]
    for plot in panel.plots().values():
        item = plot.getPlotItem()
        texts.append(item.titleLabel.text)
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            texts.append(axis.labelText)
            texts += [t for _r, t in drawn_texts(axis)]
    texts += [panel.final_hint.toPlainText(), panel.diverged_label.toPlainText(),
              panel.key.plain_text(), panel.curve_plot.toolTip()]
    return texts


def test_numbers_group_thousands_with_a_comma(qtbot, panel):
    panel.steps.setValue(20_000)
    diverging(panel, steps=1200)
    panel.speed.setCurrentText("10,000 steps/s")
    texts = [*visible_texts(panel), GUIDE.read_text(encoding="utf-8")]
    spaced = [t for t in texts if SPACED_DIGITS.search(t or "")]
    assert not spaced, spaced
    assert "1,000 steps/s" in [panel.speed.itemText(i) for i in range(panel.speed.count())]


def test_speed_labels_of_older_files_still_load(qtbot, panel):
    """Scene files written before store "1 000 steps/s" (the Training panel's default
    speed then; a Playground scene among the fixtures holds one too)."""
    import json

    assert TrainingState.from_dict({"speed": "1 000 steps/s"}).speed == "1,000 steps/s"
    assert TrainingSettings.from_dict({"speed": "10 000 steps/s"}).speed == "10,000 steps/s"
    assert SPEEDS["1 000 steps/s"] == 1000
    older = ROOT / "tests" / "fixtures" / "linear-collapse-older.relulab.json"
    stored = json.loads(older.read_text(encoding="utf-8"))["panels"]["playground"]["training"]
    assert stored["speed"] == "1 000 steps/s"
    assert TrainingSettings.from_dict(stored).steps_per_second == 1000
    panel.load_state({**TrainingState().to_dict(), "speed": "1 000 steps/s"})
    assert panel.speed.currentText() == "1,000 steps/s" and panel.driver.speed == 1000
    assert panel.state_dict()["speed"] == "1,000 steps/s"


# -- themes at run time ---------------------------------------------------------------
def test_a_theme_switch_restyles_every_label_and_plot_item(qtbot, panel, theme):
    diverging(panel, steps=30)
    panel.target.setCurrentText("sin(")
    panel.target.lineEdit().returnPressed.emit()
    assert panel.target_error.text()
    for name in ("dark", "high-contrast", "light"):
        theme.set_name(name)
        QApplication.processEvents()
        panel.driver.draw_all()
        fg, bg = theme.color("foreground").name(), theme.color("background").name()
        for label in panel.findChildren(QLabel):
            if label is panel.target_error:
                assert theme.color("error_text").name() in label.styleSheet().lower()
            elif not label.styleSheet():
                assert label.palette().color(label.foregroundRole()).name() == fg, label.objectName()
        assert all(QApplication.palette().color(p.foregroundRole()).name() == fg
                   for p in (panel.controls,))
        for key, plot in panel.plots().items():
            item = plot.getPlotItem()
            assert plot.backgroundBrush().color().name() == bg, key
            assert f"color: {fg}".lower() in item.titleLabel.item.toHtml().lower() or \
                item.titleLabel.opts.get("color") in (fg, fg.upper()), key
            for side in ("left", "bottom"):
                assert colour(item.getAxis(side).textPen()) == fg, (key, side)
        assert colour(panel.target_curve.opts["pen"]) == theme.color("target").name()
        assert colour(panel.ghost_curve.opts["pen"]) == theme.color("second").name()
        assert colour(panel.best_curve.opts["pen"]) == theme.color("approx").name()
        assert colour(panel.final_ghost_line.pen) == theme.color("second").name()
        assert colour(panel.kink_markers.opts["brush"]) == theme.color("selected").name()
        assert panel.final_hint.color.name() == fg
        assert panel.diverged_label.color.name() == fg
        best = panel.snapshot.best
        assert colour(panel.loss_curves[best].opts["pen"]) == theme.color("approx").name()
        assert theme.color("approx").name() in panel.key.text().lower()
        assert f"the {theme.colour_word('target')} curve" in panel.explain.text()


# -- pyqtgraph's "A" button, exports -----------------------------------------------
def test_no_plot_shows_pyqtgraphs_auto_range_button(qtbot, panel):
    panel.step_once()
    panel.driver.draw_all()
    for name, plot in panel.plots().items():
        item = plot.getPlotItem()
        box = mouse.view_box(plot).sceneBoundingRect()
        mouse.drag(plot, box.center(), box.center() + QPointF(30, 20))
        item.vb.disableAutoRange()
        item.mouseHovering = True
        item.updateButtons()
        assert not item.autoBtn.isVisible(), name


def test_exports_leave_out_the_press_space_hint(qtbot, main_window, tmp_path):
    from relulab.ui import export

    panel = main_window.show_panel("training")
    panel.reset_training()
    panel.driver.draw_all()
    assert panel.export_hints() == [panel.final_hint] and panel.final_hint.isVisible()
    seen = []
    real = export._render_image

    def render(widget, scale):
        seen.append(panel.final_hint.isVisible())
        return real(widget, scale)

    export._render_image = render
    try:
        written = main_window.export_current("png", tmp_path / "final.png", plot="final")
    finally:
        export._render_image = real
    assert written[0].exists() and seen == [False]
    assert panel.final_hint.isVisible()  # back on screen
    panel.step_once()
    panel.driver.draw_all()
    assert panel.export_hints() == []


# -- the guide's numbers -------------------------------------------------------------
def test_the_guides_numbers_are_the_models():
    """Every number the guide quotes about the panel's results, parsed from its text
    and computed for the setting it names (the panel's defaults: the notebook's curve
    sin(2x) + 0.3x², 12 neurons, six restarts, 20,000 steps of Adam at 0.01)."""
    text = GUIDE.read_text(encoding="utf-8")
    numbers = re.search(r"Numbers to look for\.\*\* On the notebook's curve (.+?) with (\d+) "
                        r"neurons the ghost reaches\s+\*\*([\d.]+)\*\*, the best of (\w+) trained "
                        r"restarts \*\*([\d.]+)\*\*, and one gets stuck at \*\*([\d.]+)\*\*", text)
    assert numbers, "the guide's numbers paragraph changed: update this test"
    curve, hidden, ghost, restarts, best, stuck = numbers.groups()
    state = TrainingState()
    assert curve == state.target and int(hidden) == state.hidden
    assert {"six": 6}[restarts] == state.restarts
    steps = int(re.search(r"After ([\d,]+) steps compare", text).group(1).replace(",", ""))
    assert steps == state.steps
    target = state.target_function()
    trainer = state.trainer(target)
    snap = trainer.advance(steps)
    decimals = len(ghost.split(".")[1])
    assert round(fit_even_hinges(trainer.x, trainer.y, state.hidden, target.a, target.b).rmse,
                 decimals) == float(ghost)
    assert round(float(snap.rmse.min()), len(best.split(".")[1])) == float(best)
    assert round(float(snap.rmse.max()), len(stuck.split(".")[1])) == float(stuck)
    # gradient descent at 0.1: most restarts diverge within a few steps; at 0.01 none
    assert re.search(r"gradient descent with learning rate 0\.1: most restarts diverge "
                     r"within a few\s+steps, and the panel says at which; 0\.01 trains", text)
    gd = replace(state, optimizer="gd", lr=0.1).trainer().advance(100)
    assert gd.diverged.sum() > state.restarts / 2 and gd.diverged_at.max() <= 20
    assert not replace(state, optimizer="gd", lr=0.01).trainer().advance(2000).diverged.any()
    # restart 3 of 6 starts from random seed 2; Hinges takes at most 200 kinks
    assert "restart 3 of 6 is the third, which starts from random\nseed 2" in text
    assert state.trainer().seeds[2] == 2
    assert "at most 200" in text and MAX_HINGES == 200
