"""Questions: the blog's open questions, each answered by an experiment run live.

One page per question (a tab): it quotes the question, runs its experiment on the
page's :class:`~relulab.ui.worker.Worker` (the latest settings win; the progress is in
the page and the status bar) and states what the measured numbers support, every
number read from the result object (:mod:`relulab.ui.panels.questions.jobs`).

A page's experiment runs when the page is shown and its settings have no result yet;
what only changes the view (the double-descent plot's quantity, the train curve)
redraws the result it has.

No pass of the event loop holds the window long (50 ms at most): the worker computes
a page's numbers and sentences with its result; the result is drawn one plot a pass,
then its words; the progress shows at most every PROGRESS_MS; an edit shows again
only the settings it changed; the pages not on screen are painted ahead.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QTabWidget

from relulab.model.lessons.questions import (
    DIMENSIONS,
    N_STEP,
    PAGES,
    DoubleDescentSettings,
    QuestionsState,
)
from relulab.ui.panels.base import Key, Panel, named, signals_blocked
from relulab.ui.panels.questions.controls import (
    NOISE_STEPS,
    SHORT,
    TITLES,
    PageView,
    QuestionsControls,
    progress_bar,
)
from relulab.ui.panels.questions.jobs import (
    dd_details,
    dd_numbers,
    dd_table,
    dd_verdict,
    lazy_details,
    lazy_numbers,
    lazy_table,
    lazy_verdict,
    over_details,
    over_numbers,
    over_table,
    over_verdict,
    run_double_descent,
    run_infinite_width,
    run_overparametrisation,
    with_words,
)
from relulab.ui.panels.questions.pages import registered
from relulab.ui.panels.questions.plots import (
    DoubleDescentFigure,
    InfiniteWidthFigure,
    OverparametrisationFigure,
)
from relulab.ui.staged import StagedDrawing
from relulab.ui.worker import Worker

#: How much lower than the GUI thread the experiments' threads run: not at all. A
#: lowered thread that holds the GIL is preempted by every other process of a busy
#: machine, and the GUI thread waits for the GIL meanwhile: measured with 8-11 runnable
#: processes on 2 cores, the tickets job at nice 10 left 110-120 gaps over 50 ms (up to
#: 260 ms) and took 5× as long; at nice 0, 4-6 gaps (up to 90-150 ms).
WORKER_NICENESS = 0

#: The pages built from their own modules (relulab.ui.panels.questions.pages).
REGISTERED = registered()

#: What each page's experiment is called in its progress and in ``finished(work)``.
WORK = {"double-descent": "the double-descent sweep",
        "overparametrisation": "the spirals and the pruning",
        "infinite-width": "the lazy-training study"}
RUNS = {"double-descent": run_double_descent, "overparametrisation": run_overparametrisation,
        "infinite-width": run_infinite_width}
WORK.update({name: p.work for name, p in REGISTERED.items()})
RUNS.update({name: p.run for name, p in REGISTERED.items()})
#: What each page says of a run: (numbers, verdict, details, the number the verdict's
#: readout holds), computed on the worker beside the run (jobs.with_words).
WORDS = {"double-descent": (dd_numbers, dd_verdict, dd_details, "regime"),
         "overparametrisation": (over_numbers, over_verdict, over_details, "verdict"),
         "infinite-width": (lazy_numbers, lazy_verdict, lazy_details, "verdict")}
WORDS.update({name: (p.numbers, p.verdict, p.details, "verdict") for name, p in REGISTERED.items()})
#: The progress bar and the status bar show a page's progress at most once per this
#: many ms: a job yields hundreds of steps (the parity race 138), each a repaint.
PROGRESS_MS = 40
#: How long after the panel is shown or resized the pages not on screen are painted
#: once off screen (ms), one a pass: see QuestionsPanel._paint_ahead.
PAINT_AHEAD_MS = 300
AHEAD_STEPS = 3
#: More paints a page may take when its axes change width again after the second (other
#: fonts, other numbers), until they keep their picture.
AHEAD_EXTRA = 3
#: Every page's tab text and object-name short form.
PAGE_TITLES = {**TITLES, **{name: p.title for name, p in REGISTERED.items()}}
PAGE_SHORT = {**SHORT, **{name: p.short for name, p in REGISTERED.items()}}


def experiment_of(state: QuestionsState, page: str):
    """The settings of ``page`` that its experiment depends on (what only changes the
    view is left at its default, so that a change of view reuses the result)."""
    if page == "double-descent":
        s = state.double_descent
        return replace(s, view=DoubleDescentSettings.view, show_train=True)
    if page in REGISTERED:
        p = REGISTERED[page]
        settings = getattr(state, p.field)
        return settings if p.experiment is None else p.experiment(settings)
    return state.overparametrisation if page == "overparametrisation" else state.infinite_width


class QuestionsPanel(Panel):
    name = "questions"
    title = "Questions"
    state_class = QuestionsState
    primary_controls = ("questions-dd-d",)
    KEYS = (
        Key("]", "next question", "step_page", (1,), name="next-page"),
        Key("[", "previous question", "step_page", (-1,), name="previous-page"),
        Key("D", "next input dimension d (double descent)", "step_dimension", (1,),
            name="dimension"),
        Key("O", "tuned ridge, the oracle, on or off", "controls.dd.tuned.toggle", name="oracle"),
        Key("S", "second feature scale on or off", "controls.dd.second.toggle",
            name="second-scale"),
    )
    #: In the lecture layout the caption says the question and the numbers: the plots
    #: take the room of the quote and of the numbers under the verdict.
    lecture_hidden = tuple(f"questions-{short}-{what}" for short in PAGE_SHORT.values()
                           for what in ("quote", "details"))

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._state = QuestionsState()
        self._closed = False
        self._results: dict[str, Any] = dict.fromkeys(PAGES)
        #: what each page says of its result (jobs.Words), computed with it on the worker
        self._words: dict[str, Any] = dict.fromkeys(PAGES)
        self._applied: QuestionsState | None = None  # the state the controls show
        self._wanted: dict[str, Any] = dict.fromkeys(PAGES)
        # The experiments run Python loops of small numpy steps, holding the GIL most of
        # the time: their threads run at the GUI thread's priority (WORKER_NICENESS).
        self._workers = {page: Worker(f"questions-{PAGE_SHORT[page]}", self,
                                      niceness=WORKER_NICENESS) for page in PAGES}
        self._build()
        # A result is drawn one plot per pass of the event loop, then its words: at
        # once, both plots, the texts and their paint held the window 40-60 ms.
        self._staged = {page: StagedDrawing(self.views[page].widget) for page in PAGES}
        # A run starts once the window has painted what asked for it (the page a tab
        # click shows, "Running …"): begun at once, the worker took the GIL and the
        # CPU from that paint, 30-60 ms instead of 25.
        self._starts = {page: StagedDrawing(self.views[page].widget) for page in PAGES}
        self._progress_timer = QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(PROGRESS_MS)
        self._progress_timer.timeout.connect(self._show_progress)
        #: the pages still to paint off screen, each with its next step (_paint_ahead)
        self._ahead: list[tuple[str, int]] = []
        self._ahead_timer = QTimer(self)
        self._ahead_timer.setSingleShot(True)
        self._ahead_timer.timeout.connect(self._paint_ahead)
        self._connect()
        self.apply_theme()
        self.apply_state(self._state)

    # -- building ------------------------------------------------------------
    def _build(self) -> None:
        self.controls = QuestionsControls()
        t = self.theme
        self.figures = {"double-descent": DoubleDescentFigure(t),
                        "overparametrisation": OverparametrisationFigure(t),
                        "infinite-width": InfiniteWidthFigure(t)}
        dd, over, lazy = (self.figures[p] for p in PAGES[:3])
        self.views = {
            "double-descent": PageView("double-descent", [(dd.plot, 3), (dd.lottery_plot, 2)],
                                       dd.key),
            "overparametrisation": PageView("overparametrisation",
                                            [(over.plot, 1), (over.pruning_plot, 1)], over.key),
            "infinite-width": PageView("infinite-width", [(lazy.plot, 1), (lazy.kernel_plot, 1)],
                                       lazy.key),
        }
        self.page_controls = {}
        for name, p in REGISTERED.items():
            figure = self.figures[name] = p.figure(t)
            self.views[name] = PageView(name, [(plot, 1) for plot in figure.plots.values()],
                                        figure.key, short=p.short, title=p.title,
                                        question=(p.question, p.source))
            controls = self.page_controls[name] = p.controls()
            self.controls.add(controls)
        self.pages = named(QTabWidget(), "questions-pages", "Questions, one page each")
        for page in PAGES:
            self.pages.addTab(self.views[page].widget, PAGE_TITLES[page])
        self.progress = progress_bar()
        self.pages.setCornerWidget(self.progress)
        #: (done, total) of each page's experiment while it runs, else None
        self._progress: dict[str, tuple[int, int] | None] = dict.fromkeys(PAGES)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.addWidget(self.controls.widget)
        outer.addWidget(self.pages, 1)
        self.make_keys()  # panel shortcuts: only while the focus is inside this panel

    def _connect(self) -> None:
        c = self.controls.dd
        self.pages.currentChanged.connect(self._on_page)
        c.d.activated.connect(lambda i: self._dd(d=c.d.itemData(i)))
        c.n.valueChanged.connect(self._on_n)
        c.n.sliderReleased.connect(lambda: self._dd(n=c.n.value() * N_STEP))
        c.noise.valueChanged.connect(self._on_noise)
        c.noise.sliderReleased.connect(lambda: self._dd(noise=c.noise.value() / NOISE_STEPS))
        c.ridge.activated.connect(lambda i: self._dd(ridge=c.ridge.itemData(i)))
        c.tuned.toggled.connect(lambda on: self._dd(tuned_ridge=on))
        c.second.toggled.connect(lambda on: self._dd(second_scale=on))
        c.seeds.valueChanged.connect(lambda v: self._dd(seeds=v))
        c.view.activated.connect(lambda i: self._dd(view=c.view.itemData(i)))
        c.show_train.toggled.connect(lambda on: self._dd(show_train=on))
        c.lottery_at.activated.connect(lambda i: self._dd(lottery_ratio=c.lottery_at.itemData(i)))
        o = self.controls.over
        o.seeds.valueChanged.connect(lambda v: self._over(seeds=v))
        o.prune_width.activated.connect(lambda i: self._over(prune_width=o.prune_width.itemData(i)))
        self.controls.lazy.seeds.valueChanged.connect(lambda v: self._lazy(seeds=v))
        for name, controls in self.page_controls.items():
            controls.edited.connect(lambda changes, name=name: self.set_page_settings(name, **changes))
            drags = getattr(self.figures[name], "edited", None)  # a plot that edits the settings
            if drags is not None:
                drags.connect(lambda changes, name=name: self.set_page_settings(name, **changes))
        for page, worker in self._workers.items():
            worker.progress.connect(lambda value, page=page: self._on_progress(page, value))
            worker.finished.connect(lambda run, page=page: self._on_result(page, run))
            worker.failed.connect(lambda exc, page=page: self._on_failed(page, exc))

    # -- edits -----------------------------------------------------------------
    def show_page(self, page: str) -> None:
        """Show ``page`` (one of relulab.model.lessons.questions.PAGES): one undo step."""
        self.commit(replace(self._state, page=page), f"page {PAGE_TITLES[page]}")

    def step_page(self, step: int) -> None:
        """The next (``step`` 1) or previous (−1) question, round the pages."""
        self.show_page(PAGES[(PAGES.index(self._state.page) + step) % len(PAGES)])

    def step_dimension(self, step: int) -> None:
        """The next input dimension of the double-descent page, round DIMENSIONS."""
        i = DIMENSIONS.index(self._state.double_descent.d)
        self._dd(d=DIMENSIONS[(i + step) % len(DIMENSIONS)])

    def set_double_descent(self, **changes) -> None:
        """Change the double-descent page's settings (the fields of DoubleDescentSettings)."""
        self._dd(**changes)

    def set_page_settings(self, page: str, **changes) -> None:
        """Change the settings of a registered ``page`` (the fields of its settings
        class): one undo step."""
        field = REGISTERED[page].field
        s = replace(getattr(self._state, field), **changes)
        what = ", ".join(f"{k} {v}" for k, v in changes.items())
        self.commit(replace(self._state, **{field: s}), f"{PAGE_TITLES[page].lower()}: {what}")

    def _dd(self, **changes) -> None:
        s = replace(self._state.double_descent, **changes)
        what = ", ".join(f"{k} {v}" for k, v in changes.items())
        self.commit(replace(self._state, double_descent=s), f"double descent: {what}")

    def _over(self, **changes) -> None:
        s = replace(self._state.overparametrisation, **changes)
        self.commit(replace(self._state, overparametrisation=s), "over-parametrisation")

    def _lazy(self, **changes) -> None:
        s = replace(self._state.infinite_width, **changes)
        self.commit(replace(self._state, infinite_width=s), "infinite width")

    def _on_page(self, index: int) -> None:
        if 0 <= index < len(PAGES) and PAGES[index] != self._state.page:
            self.show_page(PAGES[index])

    def _on_n(self, value: int) -> None:
        c = self.controls.dd
        if c.n.isSliderDown():  # the label follows the drag; the run starts on release
            c.n_label.set_value(value * N_STEP, f"Training points n = <b>{value * N_STEP}</b>")
        else:
            self._dd(n=value * N_STEP)

    def _on_noise(self, value: int) -> None:
        c = self.controls.dd
        if c.noise.isSliderDown():
            c.noise_label.set_value(value / NOISE_STEPS,
                                    f"Label noise σ = <b>{value / NOISE_STEPS:.1f}</b>")
        else:
            self._dd(noise=value / NOISE_STEPS)

    # -- state -------------------------------------------------------------------
    def apply_state(self, state: QuestionsState) -> None:
        self._state = state
        # Only the pages whose settings changed show them again: the why-deep page's
        # square, the GELU twin and the simplex's maps are drawn from the settings.
        before, self._applied = self._applied, state
        c = self.controls

        def changed(field: str) -> bool:
            return before is None or getattr(before, field) != getattr(state, field)

        if changed("double_descent"):
            c.dd.show_state(state.double_descent)
        if changed("overparametrisation"):
            c.over.show_state(state.overparametrisation)
        if changed("infinite_width"):
            c.lazy.show_state(state.infinite_width)
        for name, controls in self.page_controls.items():
            field = REGISTERED[name].field
            if not changed(field):
                continue
            settings = getattr(state, field)
            controls.show_state(settings)
            live = getattr(self.figures[name], "show_settings", None)
            if live is not None:
                live(settings)
        c.show_page(state.page)
        with signals_blocked(self.pages):
            self.pages.setCurrentIndex(PAGES.index(state.page))
        self._refresh(state.page)
        self._show_progress()

    def _refresh(self, page: str) -> None:
        """Draw ``page``'s result if it is the settings', else ask for it."""
        if self._closed:
            return
        want = experiment_of(self._state, page)
        run = self._results[page]
        if run is not None and experiment_of_run(run) == want:
            if self._starts[page].busy:  # a run asked for, not started, and wanted no more
                self._starts[page].cancel()
                self._wanted[page] = self._progress[page] = None
            self._draw(page, run)
            return
        if self._wanted[page] == want:
            return
        self._wanted[page] = want
        self._progress[page] = (0, 1)
        self._staged[page].cancel()  # the stages of a run now stale
        hold_words_height(self.views[page], True)
        self.views[page].running(WORK[page])
        job, (numbers, verdict, details, value) = RUNS[page], WORDS[page]
        worker = self._workers[page]
        self._starts[page].run([lambda: worker.submit(lambda should_stop: with_words(
            job(want, should_stop), numbers, verdict, details, value))])

    # -- results -------------------------------------------------------------------
    def _on_progress(self, page: str, value) -> None:
        """Notes a page's progress; the bars show the latest within PROGRESS_MS."""
        done, total = value
        self._progress[page] = (done, total)
        if not self._progress_timer.isActive():
            self._progress_timer.start()

    def _show_progress(self) -> None:
        """The bar shows the progress of the page on screen (hidden when it has none),
        and the status bar says it."""
        self._progress_timer.stop()
        page = self._state.page
        value = self._progress[page]
        if value is None:
            self.progress.setVisible(False)
            return
        done, total = value
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        # the bar shows the share done; what runs is in its tip and the status bar (the
        # work's name cut in two in the tab bar's corner at zoom 1.6)
        self.progress.setFormat("%p%")
        self.progress.setToolTip(f"{PAGE_TITLES[page]}: {WORK[page]}")
        self.progress.setAccessibleDescription(f"{PAGE_TITLES[page]}: {WORK[page]}")
        self.progress.setVisible(True)
        self.show_status(f"Questions: {WORK[page]}, {100 * done // max(total, 1)}%", 2000)

    def _on_result(self, page: str, out) -> None:
        run, self._words[page] = out
        self._wanted[page] = None
        self._results[page] = run
        self._progress[page] = None
        self._show_progress()
        self.show_status(f"Questions: finished {WORK[page]}.", 3000)
        if page == self._state.page and experiment_of_run(run) == experiment_of(self._state, page):
            self._draw(page, run, announce=True)  # finished once its last stage is drawn
        else:
            self.finished.emit(page)

    def _on_failed(self, page: str, exc: Exception) -> None:
        self._wanted[page] = None
        self._progress[page] = None
        self._staged[page].cancel()
        hold_words_height(self.views[page], False)
        self._show_progress()
        self.figures[page].clear()  # the curves of the run before are not this one's
        self.views[page].failed(f"Could not run {WORK[page]}: {exc}")
        self.finished.emit(page)

    def _draw(self, page: str, run, announce: bool = False) -> None:
        """Draw ``run`` on ``page``: its first plot now, each other plot and then the
        words in a pass of the event loop of its own; ``announce`` emits ``finished``
        once all are drawn."""
        view, figure, words = self.views[page], self.figures[page], self._words[page]
        if page == "double-descent":
            s = self._state.double_descent
            stages = figure.stages(run, s.view, s.show_train)
        else:
            stages = figure.stages(run, words.numbers)

        def say() -> None:
            hold_words_height(view, False)
            view.verdict.set_value(words.value, words.verdict)
            view.details.setText(words.details)

        stages = [*stages, say]
        staged = self._staged[page]
        staged.cancel()
        stages.pop(0)()
        staged.run(stages, done=(lambda: self.finished.emit(page)) if announce else None)

    # -- painting the other pages ahead ---------------------------------------------
    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._plan_paint_ahead()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._plan_paint_ahead()

    def _plan_paint_ahead(self) -> None:
        self._ahead = [(page, 0) for page in PAGES]
        self._ahead_timer.start(PAINT_AHEAD_MS)

    def _paint_ahead(self) -> None:
        """One step of painting a page not on screen into a picture nobody sees; the
        next step in a later pass. Its plots' axes keep what they drew (pyqtgraph's
        AxisItem caches its picture until its range or size changes): the first paint
        of a page's axes, 20-30 ms, is then not part of the tab click that shows it.
        Three steps a page: the size the tab will give it (one never shown is
        640 × 480); a paint, after which the axes take the width their numbers need
        (and drop their picture); a paint that stays."""
        while self._ahead and not self._closed and self.isVisible():
            page, step = self._ahead[0]
            widget = self.views[page].widget
            settled = step >= AHEAD_STEPS and (_axes_painted(widget)
                                               or step >= AHEAD_STEPS + AHEAD_EXTRA)
            if page == self._state.page or settled:
                self._ahead.pop(0)
                continue
            self._ahead[0] = (page, step + 1)
            if step == 0:
                widget.setGeometry(self.pages.currentWidget().geometry())
                widget.layout().activate()
            else:
                widget.grab()
            break
        if self._ahead and not self._closed and self.isVisible():
            self._ahead_timer.start(0)

    def drawing_pending(self) -> bool:
        """True while a result is drawn in stages, or a run waits for its start."""
        return any(s.busy for s in (*self._staged.values(), *self._starts.values()))

    def result(self, page: str | None = None):
        """The result on ``page`` (the page shown by default), or None while it runs."""
        page = page or self._state.page
        run = self._results[page]
        return run if run is not None and experiment_of_run(run) == experiment_of(
            self._state, page) else None

    # -- hooks ---------------------------------------------------------------------
    def readouts(self) -> dict:
        """The readouts, and the numbers each page's verdict states (None while it
        runs): ``dd_regime``, ``dd_wins``, ``dd_median_widest``, ``dd_best_small``,
        ``dd_median_at_n``, ``dd_kernel``, ``dd_lottery_spread``, ``dd_lottery_ensemble``;
        ``over_*`` and ``lazy_*`` likewise, and ``<short>_*`` of every registered page
        (``parity_median_parity``, ``parity_nearest`` …)."""
        values = super().readouts()
        for page, prefix in PAGE_SHORT.items():
            if self.result(page) is None:
                continue
            for key, value in self._words[page].numbers.items():
                if isinstance(value, (int, float, str)):
                    values[f"{prefix}_{key}"] = value
        return values

    def plots(self) -> dict:
        f = self.figures[self._state.page]
        if self._state.page in REGISTERED:
            return dict(f.plots)
        if self._state.page == "double-descent":
            return {"main": f.plot, "lottery": f.lottery_plot}
        if self._state.page == "overparametrisation":
            return {"main": f.plot, "pruning": f.pruning_plot}
        return {"main": f.plot, "kernel": f.kernel_plot}

    def data_tables(self) -> dict:
        page = self._state.page
        run = self.result(page)
        if run is None:
            return {}
        table = {"double-descent": dd_table, "overparametrisation": over_table,
                 "infinite-width": lazy_table,
                 **{name: p.table for name, p in REGISTERED.items()}}[page]
        tables = dict(table(run))
        shown = getattr(self.figures[page], "tables", None)  # what the page draws without a job
        if shown is not None:
            tables.update(shown())
        return tables

    def apply_theme(self) -> None:
        t = self.theme
        self.controls.apply_zoom(t.zoom)
        for view in self.views.values():
            view.quote.setFont(t.font(9))
        for figure in self.figures.values():
            figure.apply_theme()
        if not self._closed and hasattr(self, "_state"):
            run = self.result(self._state.page)
            if run is not None:
                self._draw(self._state.page, run)

    def shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._progress_timer.stop()
        self._ahead_timer.stop()
        for staged in (*self._staged.values(), *self._starts.values()):
            staged.cancel()
        for worker in self._workers.values():
            worker.shutdown()
        super().shutdown()


def hold_words_height(view: PageView, hold: bool) -> None:
    """While a page runs, its verdict ("Running …") and its numbers (none) keep the
    height of the run before's: the plots below keep their size, and the edit that
    started the run repaints two labels, not the page (a relayout resizes both plots,
    whose axes then draw again, 20-30 ms). The words of the new run release it."""
    for label in (view.verdict, view.details):
        label.setMinimumHeight(label.height() if hold and label.isVisible() else 0)


def experiment_of_run(run):
    """The settings a run was made from, as :func:`experiment_of` gives them."""
    return run.settings


def _axes_painted(widget) -> bool:
    """Whether every visible axis of ``widget``'s plots keeps the picture it painted
    (pyqtgraph drops it when the axis's range or size changes)."""
    import pyqtgraph as pg

    return all(axis.picture is not None
               for plot in widget.findChildren(pg.PlotWidget)
               for side in ("left", "bottom")
               if (axis := plot.getPlotItem().getAxis(side)).isVisible())
