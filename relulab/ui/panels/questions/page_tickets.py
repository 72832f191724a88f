"""The lottery-ticket page: the pruned mask against a random mask and against a fresh
initialisation, seed by seed (the job and the words: :mod:`.jobs.tickets`)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.questions.controls import SeedsControls
from relulab.ui.panels.questions.jobs.tickets import (
    TicketsRun,
    run_tickets,
    tickets_details,
    tickets_numbers,
    tickets_table,
    tickets_verdict,
)
from relulab.ui.panels.questions.pages import Page
from relulab.ui.panels.questions.plots import _Figure, make_plot
from relulab.ui.theme import Theme

#: Each phase's colour role and symbol.
STYLE = {"ticket": ("approx", "s"), "random_mask": ("accent", "o"), "reinit": ("second", "t1"),
         "dense": ("muted", "d")}


class TicketsFigure(_Figure):
    """Each seed's test accuracy of the four nets; beside it, per seed, what the mask is
    worth (ticket − random mask) and what the rewinding is worth (ticket − fresh)."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-tickets-plot", "Test accuracy per seed",
                              "Test accuracy of the dense net, the ticket, a random mask and "
                              "the mask with a new initialisation, each seed",
                              log_x=False, log_y=False)
        self.margin_plot = make_plot("questions-tickets-margins", "What the mask is worth",
                                     "Per seed: the ticket's accuracy minus the random mask's, "
                                     "and minus the re-initialised mask's",
                                     log_x=False, log_y=False)
        self.phases = {p: pg.PlotDataItem(symbol=STYLE[p][1]) for p in STYLE}
        for item in self.phases.values():
            self.plot.addItem(item)
        self.mask_margin = pg.PlotDataItem(symbol="o")
        self.init_margin = pg.PlotDataItem(symbol="t1")
        self.zero = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        for item in (self.mask_margin, self.init_margin):
            self.margin_plot.addItem(item)
        self.margin_plot.addItem(self.zero, ignoreBounds=True)
        for plot in (self.plot, self.margin_plot):
            plot.setLabel("bottom", "seed")
        self.plot.setLabel("left", "test accuracy")
        self.margin_plot.setLabel("left", "difference")
        self.plot.setRange(xRange=(-0.5, 2.5), yRange=(0.5, 1), padding=0.03)
        self.margin_plot.setRange(xRange=(-0.5, 2.5), yRange=(-0.2, 0.3), padding=0.03)
        self.key = KeyLabel("questions-tickets-key", "Key of the lottery-ticket plots", [
            Entry("muted", "◆", "dense"), Entry("approx", "■", "ticket"),
            Entry("accent", "●", "random mask"), Entry("second", "▲", "new initialisation")])
        self.plots = {"main": self.plot, "margins": self.margin_plot}
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.margin_plot):
            t.style_plot(plot)
        for phase, item in self.phases.items():
            role = STYLE[phase][0]
            item.setPen(t.pen(role, 1.5))
            item.setSymbolSize(t.handle_size(10))
            item.setSymbolBrush(pg.mkBrush(t.color(role)))
            item.setSymbolPen(t.pen("foreground", 1.0))
        for item, role in ((self.mask_margin, "accent"), (self.init_margin, "second")):
            item.setPen(None)
            item.setSymbolSize(t.handle_size(11))
            item.setSymbolBrush(pg.mkBrush(t.color(role)))
            item.setSymbolPen(t.pen("foreground", 1.0))
        self.zero.setPen(t.pen("muted", 1.5, Qt.PenStyle.DashLine))

    def clear(self) -> None:
        self._clear(*self.phases.values(), self.mask_margin, self.init_margin)

    def stages(self, run: TicketsRun, numbers: dict) -> list:
        return [lambda: self.draw_phases(run), lambda: self.draw_margins(run)]

    def draw_phases(self, run: TicketsRun) -> None:
        t = run.tickets
        seeds = np.arange(len(t.seeds), dtype=float)
        for phase, item in self.phases.items():
            item.setData(seeds, np.asarray(t.of(phase), float))
        low = float(np.min(t.accuracy))
        self.plot.setRange(xRange=(-0.5, len(seeds) - 0.5), yRange=(min(low, 0.9) - 0.03, 1.0),
                           padding=0.03)
        self.plot.getPlotItem().getAxis("bottom").setTicks(
            [[(float(i), str(s)) for i, s in enumerate(t.seeds)], []])
        self.theme.set_title(self.plot, f"{t.keep:.0%} of weights kept")

    def draw_margins(self, run: TicketsRun) -> None:
        t = run.tickets
        seeds = np.arange(len(t.seeds), dtype=float)
        mask = np.asarray(t.mask_margin(), float)
        init = np.asarray(t.of("ticket") - t.of("reinit"), float)
        self.mask_margin.setData(seeds - 0.08, mask)
        self.init_margin.setData(seeds + 0.08, init)
        both = np.r_[mask, init, 0.0]
        self.margin_plot.setRange(xRange=(-0.5, len(seeds) - 0.5),
                                  yRange=(both.min() - 0.03, both.max() + 0.03), padding=0.03)
        self.margin_plot.getPlotItem().getAxis("bottom").setTicks(
            [[(float(i), str(s)) for i, s in enumerate(t.seeds)], []])
        self.theme.set_title(self.margin_plot, "Ticket − random ●, − fresh ▲")


PAGE = Page(
    name="tickets", title="Tickets", short="tickets", field="tickets",
    question=('Besides pruning (which is what you describe) you might find the "lottery ticket '
              'hypothesis" interesting. The idea is essentially that in a randomly initialized '
              "large network there is a subset of weights that are already closeish for a given "
              "task and training helps tune that and suppress everything else, and that knowing "
              "this you can actually get better results by pruning before training."),
    source="a reply in the discussion of “Any Deep ReLU Network Is Shallow”",
    work="the lottery tickets", run=run_tickets, numbers=tickets_numbers,
    verdict=tickets_verdict, details=tickets_details, table=tickets_table,
    figure=TicketsFigure, controls=partial(SeedsControls, "tickets"))
