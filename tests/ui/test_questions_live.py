"""The Questions panel stays live while its experiments run: what keeps each pass of the
event loop short, asserted on data (never on timing)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from relulab.ui.panels.questions import QuestionsPanel


@pytest.fixture
def panel(shown_panel, qtbot):
    p = shown_panel(QuestionsPanel)
    for worker in p._workers.values():  # the default sweep, started on creation, is not wanted
        worker.cancel()
    return p


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values: Linux")
def test_the_experiments_run_at_the_gui_thread_s_priority(panel):
    """Jobs that hold the GIL most of their time: a lowered thread holding it is
    preempted on a busy machine while the GUI thread waits for the GIL."""
    worker = panel._workers["tickets"]
    got = []
    worker.finished.disconnect()
    worker.finished.connect(got.append)
    worker.submit(lambda should_stop: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    assert worker.wait(10)
    assert got == [os.getpriority(os.PRIO_PROCESS, threading.get_native_id())]


def fake_targets(calls: list):
    """A targets job of three seeds that takes no time, with 30 steps of progress."""
    import numpy as np

    from relulab.ui.panels.questions.jobs.targets import TargetsRun

    def run(s, should_stop=None):
        calls.append(s)
        for i in range(30):
            yield i, 30
        return TargetsRun(s, np.array([0.4, 0.45, 0.5]), np.array([0.1, 0.1, 0.1]),
                          np.array([0.90, 0.91, 0.92]), np.array([0.93, 0.95, 0.94]))

    return run


@pytest.fixture
def targets(panel, monkeypatch):
    from relulab.ui.panels.questions import panel as module

    calls = []
    monkeypatch.setitem(module.RUNS, "targets", fake_targets(calls))
    return calls


def test_a_result_is_drawn_a_plot_a_pass_then_its_words(panel, targets, qtbot):
    """The plot is drawn with the result; the verdict and numbers in a later pass of
    the event loop, and ``finished`` once they are."""
    seen = []
    view, figure = panel.views["targets"], panel.figures["targets"]
    panel._workers["targets"].finished.connect(lambda _out: seen.append(
        (list(figure.soft.getData()[1]), view.verdict.shown_text, panel.drawing_pending())))
    with qtbot.waitSignal(panel.finished, timeout=30_000) as blocker:
        panel.show_page("targets")
    assert blocker.args == ["targets"]
    assert seen == [([0.93, 0.95, 0.94], "Running the one-hot and soft-target fits…", True)]
    assert not panel.drawing_pending()
    assert "soft targets" in view.verdict.shown_text


def test_each_plot_is_a_stage_of_its_own(qtbot):
    """A page of two plots draws in two stages, the first touching one plot only."""
    from relulab.ui.panels.questions.plots import InfiniteWidthFigure
    from relulab.ui.theme import Theme

    f = InfiniteWidthFigure(Theme())
    numbers = {"widths": [16, 64, 256], "movement": [0.5, 0.2, 0.05],
               "distance": [0.3, 0.1, 0.02]}
    stages = f.stages(None, numbers)
    assert len(stages) == 2
    stages[0]()
    assert list(f.movement.getOriginalDataset()[1]) == pytest.approx([0.5, 0.2, 0.05])
    assert f.distance.getOriginalDataset()[1] is None
    stages[1]()
    assert list(f.distance.getOriginalDataset()[1]) == pytest.approx([0.3, 0.1, 0.02])


def test_the_words_are_computed_on_the_worker(panel, targets, monkeypatch, qtbot):
    """The numbers, the verdict and the details of a result are computed beside it
    on the worker; drawing it and reading the readouts compute none of them."""
    from relulab.ui.panels.questions import panel as module

    threads = []

    def spy(f):
        def wrapped(run):
            threads.append(threading.current_thread() is threading.main_thread())
            return f(run)
        return wrapped

    monkeypatch.setitem(module.WORDS, "targets",
                        (*map(spy, module.WORDS["targets"][:3]), "verdict"))
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        panel.show_page("targets")
    assert panel.readouts()["targets_verdict"] == "soft targets help"
    assert threads and not any(threads)


def test_progress_is_shown_at_most_once_a_frame(panel, targets, monkeypatch, qtbot):
    """Thirty steps of progress at once: the bar and the status bar show the last,
    once."""
    from relulab.ui.panels.questions.panel import PROGRESS_MS

    panel.show_page("targets")
    assert panel.wait_until_idle(30)
    said = []
    monkeypatch.setattr(panel, "show_status", lambda text, msec=0: said.append(text))
    panel._progress["targets"] = (0, 30)
    worker = panel._workers["targets"]
    for i in range(30):
        worker.progress.emit((i, 30))
    assert said == [] and panel.progress.value() != 29
    qtbot.wait(2 * PROGRESS_MS)
    qtbot.waitUntil(lambda: not panel._progress_timer.isActive())
    assert said == ["Questions: the one-hot and soft-target fits, 96%"]
    assert panel.progress.value() == 29
    # the bar in the tab bar's corner shows the share; what runs is in its tip (the
    # work's name was cut in two there at zoom 1.6)
    assert panel.progress.text() == "96%"
    assert "the one-hot and soft-target fits" in panel.progress.toolTip()


def test_an_edit_shows_only_the_settings_it_changed(panel, monkeypatch):
    """A change of the tickets' seeds leaves the other pages' controls and figures as
    they are (the why-deep square, the GELU twin, the simplex's maps are drawn from
    their settings)."""
    shown = []
    for name in ("why-deep", "gelu", "simplex", "tickets"):
        controls, figure = panel.page_controls[name], panel.figures[name]
        monkeypatch.setattr(controls, "show_state", lambda s, name=name: shown.append(name))
        if hasattr(figure, "show_settings"):
            monkeypatch.setattr(figure, "show_settings",
                                lambda s, name=name: shown.append(f"{name} figure"))
    panel.set_page_settings("tickets", seeds=4)
    assert shown == ["tickets"]
    panel.undo_stack.undo()
    assert shown == ["tickets", "tickets"]


def test_the_parity_curves_are_kept_and_not_restyled(monkeypatch, qtbot):
    """A new race gives the kept curves new data; only a curve more is styled."""
    from types import SimpleNamespace

    import numpy as np

    from relulab.model.lessons.questions import ParitySettings
    from relulab.ui.panels.questions.jobs.parity import ParityRun
    from relulab.ui.panels.questions.page_parity import ParityFigure
    from relulab.ui.theme import Theme

    def run(seeds):
        acc = np.linspace(0.5, 1.0, 4)[None, :].repeat(seeds, 0)
        race = SimpleNamespace(checkpoints=[0, 10, 20, 30], seeds=list(range(seeds)),
                               parity_accuracy=acc, majority_accuracy=acc,
                               parity_steps=[20] * seeds, majority_steps=[10] * seeds)
        return ParityRun(ParitySettings(seeds=seeds), race, (0.5,) * seeds, (1.0,) * seeds)

    theme = Theme()
    f = ParityFigure(theme)
    numbers = {"k": 2, "bits": 30}
    f.draw(run(4), numbers)
    curves = list(f.parity_curves)
    styled = []
    monkeypatch.setattr(theme, "style_plot", lambda *a, **k: styled.append(a))
    stages = f.stages(run(3), numbers)
    assert len(stages) == 2
    for stage in stages:
        stage()
    assert f.parity_curves == curves and styled == []
    assert [0 if c.getData()[0] is None else len(c.getData()[0]) for c in curves] == [4, 4, 4, 0]
    assert curves[0].opts["pen"].color() == theme.pen("approx", 1.5).color()


def test_the_pages_not_on_screen_are_painted_ahead(panel, qtbot):
    """Once the panel is shown, every other page's plots have painted their axes (kept
    by pyqtgraph until their range or size changes): a tab click does not draw them."""
    import pyqtgraph as pg

    def axes(page):
        return [plot.getPlotItem().getAxis(side)
                for plot in panel.views[page].widget.findChildren(pg.PlotWidget)
                for side in ("left", "bottom")
                if plot.getPlotItem().getAxis(side).isVisible()]  # the simplex hides its axes

    others = [p for p in panel._workers if p != panel.state.page]

    def painted(page):
        return axes(page) and all(a.picture is not None for a in axes(page))

    # (waited for, not read once: on a loaded machine a late paint of the window may
    # still be settling a page's axes when the list of pages to paint runs out)
    qtbot.waitUntil(lambda: not panel._ahead and all(painted(p) for p in others),
                    timeout=10_000)
    assert not panel._ahead


def test_the_plots_keep_their_size_while_a_page_runs(panel, targets, monkeypatch, qtbot):
    """The verdict ("Running …") and the emptied numbers keep their height until the
    new words come: the edit that starts a run does not lay the page out again."""
    from PySide6.QtWidgets import QApplication

    from relulab.ui.panels.questions import panel as module

    with qtbot.waitSignal(panel.finished, timeout=30_000):
        panel.show_page("targets")
    plot, view = panel.figures["targets"].plot, panel.views["targets"]
    height = plot.height()
    gate = threading.Event()
    quick = module.RUNS["targets"]

    def held(s, should_stop=None):
        while not gate.wait(0.01):
            yield 0, 1
        return (yield from quick(s, should_stop))

    monkeypatch.setitem(module.RUNS, "targets", held)
    panel.set_page_settings("targets", seeds=4)
    for _ in range(5):
        QApplication.processEvents()
    assert view.verdict.shown_text.startswith("Running") and view.details.shown_text == ""
    assert plot.height() == height
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        gate.set()
    assert view.verdict.minimumHeight() == 0 and view.details.minimumHeight() == 0


def test_a_run_starts_once_the_page_asking_for_it_is_painted(panel, targets, qtbot):
    """The tab's page and its "Running …" are painted before the worker starts (it
    would take the GIL and the CPU from that paint); going back to settings drawn
    before drops a run not started yet."""
    panel.show_page("targets")
    assert targets == [] and not panel._workers["targets"].busy and panel.drawing_pending()
    with qtbot.waitSignal(panel.finished, timeout=30_000):
        pass
    assert len(targets) == 1
    panel.set_page_settings("targets", seeds=4)
    panel.undo_stack.undo()
    assert panel.wait_until_idle(30)
    assert len(targets) == 1 and panel.result().settings.seeds == panel.state.targets.seeds
    assert not panel.progress.isVisibleTo(panel)
