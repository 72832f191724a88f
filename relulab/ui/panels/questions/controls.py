"""The Questions panel's controls (one column per page, in a stack beside the pages)
and what every page shows above its plots: the blog's question, quoted, the answer
the numbers support, the numbers, and the experiment's progress.

They show a state and a result; the panel connects their signals and turns what the
user does into edits of its state.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from relulab.model.lessons.questions import (
    DIMENSIONS,
    LOTTERY_RATIOS,
    N_RANGE,
    N_STEP,
    NOISE_RANGE,
    PAGES,
    PRUNE_WIDTHS,
    RIDGES,
    SEEDS_RANGE,
    DoubleDescentSettings,
    OverparametrisationSettings,
    SeedsSettings,
)
from relulab.ui.panels.base import fit_controls_width, named, signals_blocked
from relulab.ui.readout import Note, Readout

NOISE_STEPS = 10  # the noise slider moves in steps of 0.1

#: Each page's question, quoted exactly from its source, and the source's name.
QUESTIONS = {
    "double-descent": (
        "We have observations of double descent. Will there be multiple descents? And how is "
        "this different from drawing a lottery and hoping some overparameterized network "
        "performs well on the test set?", "the blog's open questions (Before NN101)"),
    "overparametrisation": (
        "Traditional wisdom is that learning is compression, yet neural networks these days "
        "rely heavily on overparametrization. Why?", "the blog's open questions (Before NN101)"),
    "infinite-width": (
        "It has long been known that a single-layer fully-connected neural network with an "
        "i.i.d. prior over its parameters is equivalent to a Gaussian process (GP), in the "
        "limit of infinite network width.",
        "quoted in the discussion of “Any Deep ReLU Network Is Shallow”"),
}
TITLES = {"double-descent": "Double descent", "overparametrisation": "Over-parametrisation",
          "infinite-width": "Infinite width"}
#: The object names' short form of each page.
SHORT = {"double-descent": "dd", "overparametrisation": "over", "infinite-width": "lazy"}
VIEW_TEXTS = {"error": "test and train error", "weight norm": "output-weight norm",
              "condition": "condition number of Φ"}


def _readout(name: str, accessible: str, wrap: bool = True, bold: bool = False) -> Readout:
    r = Readout(name, accessible, wrap=wrap, text_format=Qt.TextFormat.RichText)
    r.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
    if bold:
        font = r.font()
        font.setBold(True)
        r.setFont(font)
    return r


class PageView:
    """What one page shows above and around its plots, in ``widget``: the question, the
    verdict, the numbers and the plots with their key. (The progress bar is the panel's,
    beside the pages' tabs.)"""

    def __init__(self, page: str, plots, key: QLabel, *, short: str | None = None,
                 title: str | None = None, question: tuple[str, str] | None = None):
        short = short or SHORT[page]
        title = title or TITLES[page]
        self.widget = named(QWidget(), f"questions-{short}-page", f"{title} page")
        v = QVBoxLayout(self.widget)
        v.setContentsMargins(4, 4, 4, 4)
        quote, source = question or QUESTIONS[page]
        self.quote = Note(f"questions-{short}-quote", "The question, quoted",
                          f"<i>“{quote}”</i> ({source})")
        self.quote.setTextFormat(Qt.TextFormat.RichText)
        self.quote.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.verdict = _readout(f"questions-{short}-verdict", "What the numbers support", bold=True)
        self.details = _readout(f"questions-{short}-details", "The measured numbers")
        v.addWidget(self.quote)
        v.addWidget(self.verdict)
        v.addWidget(self.details)
        row = QHBoxLayout()
        for plot, stretch in plots:
            row.addWidget(plot, stretch)
        v.addLayout(row, 1)
        v.addWidget(key)

    def running(self, what: str) -> None:
        """The experiment is running: the verdict says what; the numbers of the run
        before are gone (the plots keep its curves until the new ones come)."""
        self.verdict.set_value(None, f"Running {what}…")
        self.details.set_value(None, "")

    def failed(self, text: str) -> None:
        self.verdict.set_value(None, text)
        self.details.set_value(None, "")


def progress_bar() -> QProgressBar:
    """The panel's progress bar, in the corner of the pages' tab bar: shown while the
    page on screen runs its experiment, its room kept while hidden, so that neither
    moves the plots (a relayout repaints all of them)."""
    bar = named(QProgressBar(), "questions-progress", "Progress of the experiment")
    bar.setTextVisible(True)
    policy = bar.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    bar.setSizePolicy(policy)
    bar.setVisible(False)
    return bar


def _labelled(layout: QVBoxLayout, label: QLabel, widget: QWidget) -> None:
    layout.addWidget(label)
    layout.addWidget(widget)


def _combo(name: str, accessible: str, items, tip: str = "") -> QComboBox:
    box = named(QComboBox(), name, accessible, tip)
    for text, data in items:
        box.addItem(text, data)
    return box


def _spin_seeds(name: str) -> QSpinBox:
    spin = named(QSpinBox(), name, "Seeds", "How many seeds the experiment is run from")
    spin.setRange(*SEEDS_RANGE)
    return spin


class DoubleDescentControls(QWidget):
    """The data (d, n, label noise), the fit (ridge, the oracle, a second feature scale),
    the seeds, the view and the lottery's width."""

    def __init__(self):
        super().__init__()
        c = QVBoxLayout(self)
        c.setContentsMargins(0, 0, 0, 0)
        self.d = _combo("questions-dd-d", "Input dimension d",
                        [(f"d = {d}", d) for d in DIMENSIONS],
                        "The dimension of the inputs x ~ N(0, I): the answer depends on it")
        self.n_label = _readout("questions-dd-n-label", "Training points n", wrap=False)
        self.n = named(QSlider(Qt.Orientation.Horizontal), "questions-dd-n", "Training points n",
                       "How many training points: the interpolation threshold is H = n")
        self.n.setRange(N_RANGE[0] // N_STEP, N_RANGE[1] // N_STEP)
        self.n.setPageStep(1)
        self.noise_label = _readout("questions-dd-noise-label", "Label noise", wrap=False)
        self.noise = named(QSlider(Qt.Orientation.Horizontal), "questions-dd-noise", "Label noise",
                           "Standard deviation of the noise added to the training labels")
        self.noise.setRange(round(NOISE_RANGE[0] * NOISE_STEPS), round(NOISE_RANGE[1] * NOISE_STEPS))
        self.ridge = _combo("questions-dd-ridge", "Ridge",
                            [("ridge: none (min-norm)" if r == 0 else f"ridge: {r:g}", r)
                             for r in RIDGES], "A fixed ridge penalty λ‖a‖² on the output weights")
        self.tuned = named(QCheckBox("Tuned ridge (an oracle)"), "questions-dd-tuned",
                           "Tuned ridge, an oracle",
                           "The ridge of each width picked by the test error itself: an "
                           "oracle, which no real learner has")
        self.second = named(QCheckBox("Second feature scale"), "questions-dd-second",
                            "Second feature scale",
                            "Adds 4H features whose weights are scaled by 0.01: a second peak")
        self.seeds = _spin_seeds("questions-dd-seeds")
        self.view = _combo("questions-dd-view", "What the main plot shows",
                           [(f"show: {VIEW_TEXTS[v]}", v) for v in VIEW_TEXTS])
        self.show_train = named(QCheckBox("Train error too"), "questions-dd-show-train",
                                "Show the train error")
        self.lottery_at = _combo("questions-dd-lottery-at", "Lottery width",
                                 [(f"lottery at H = {r}n" if r > 1 else "lottery at H = n", r)
                                  for r in LOTTERY_RATIOS],
                                 "The width at which ten feature draws are compared")
        c.addWidget(self.d)
        _labelled(c, self.n_label, self.n)
        _labelled(c, self.noise_label, self.noise)
        seeds_row = QHBoxLayout()
        seeds_row.addWidget(QLabel("Seeds"))
        seeds_row.addWidget(self.seeds, 1)
        c.addLayout(seeds_row)
        for w in (self.ridge, self.tuned, self.second, self.view, self.show_train,
                  self.lottery_at):
            c.addWidget(w)
        c.addStretch(1)

    def show_state(self, s: DoubleDescentSettings) -> None:
        with signals_blocked(self.d, self.n, self.noise, self.ridge, self.tuned, self.second,
                             self.seeds, self.view, self.show_train, self.lottery_at):
            self.d.setCurrentIndex(self.d.findData(s.d))
            self.n.setValue(s.n // N_STEP)
            self.noise.setValue(round(s.noise * NOISE_STEPS))
            self.ridge.setCurrentIndex(self.ridge.findData(s.ridge))
            self.tuned.setChecked(s.tuned_ridge)
            self.second.setChecked(s.second_scale)
            self.seeds.setValue(s.seeds)
            self.view.setCurrentIndex(self.view.findData(s.view))
            self.show_train.setChecked(s.show_train)
            self.lottery_at.setCurrentIndex(self.lottery_at.findData(s.lottery_ratio))
        self.n_label.set_value(s.n, f"Training points n = <b>{s.n}</b>")
        self.noise_label.set_value(s.noise, f"Label noise σ = <b>{s.noise:.1f}</b>")
        self.ridge.setEnabled(not s.tuned_ridge)
        self.show_train.setEnabled(s.view == "error")


class OverparametrisationControls(QWidget):
    def __init__(self):
        super().__init__()
        c = QVBoxLayout(self)
        c.setContentsMargins(0, 0, 0, 0)
        self.seeds = _spin_seeds("questions-over-seeds")
        row = QHBoxLayout()
        row.addWidget(QLabel("Seeds"))
        row.addWidget(self.seeds, 1)
        c.addLayout(row)
        self.prune_width = _combo("questions-over-prune-width", "Width of the pruned network",
                                  [(f"prune a net of {w} units", w) for w in PRUNE_WIDTHS])
        c.addWidget(self.prune_width)
        c.addStretch(1)

    def show_state(self, s: OverparametrisationSettings) -> None:
        with signals_blocked(self.seeds, self.prune_width):
            self.seeds.setValue(s.seeds)
            self.prune_width.setCurrentIndex(self.prune_width.findData(s.prune_width))


class SeedsControls(QWidget):
    """A page whose only setting is how many seeds it runs: one "Seeds" spin box,
    ``questions-<short>-seeds``; a change is ``edited({"seeds": n})``."""

    edited = Signal(dict)

    def __init__(self, short: str):
        super().__init__()
        c = QVBoxLayout(self)
        c.setContentsMargins(0, 0, 0, 0)
        self.seeds = _spin_seeds(f"questions-{short}-seeds")
        row = QHBoxLayout()
        row.addWidget(QLabel("Seeds"))
        row.addWidget(self.seeds, 1)
        c.addLayout(row)
        c.addStretch(1)
        self.seeds.valueChanged.connect(lambda v: self.edited.emit({"seeds": v}))

    def show_state(self, s: SeedsSettings) -> None:
        with signals_blocked(self.seeds):
            self.seeds.setValue(s.seeds)


class QuestionsControls:
    """The left column, in ``widget`` (scrolled): the controls of the page shown."""

    def __init__(self):
        self.widget = scroll = named(QScrollArea(), "questions-controls", "Questions controls")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stack = QStackedWidget()
        scroll.setWidget(self.stack)
        self.dd = DoubleDescentControls()
        self.over = OverparametrisationControls()
        self.lazy = SeedsControls("lazy")
        for w in (self.dd, self.over, self.lazy):
            self.stack.addWidget(w)

    def add(self, widget: QWidget) -> None:
        """A registered page's controls, after those of the pages before it in PAGES."""
        self.stack.addWidget(widget)

    #: The column's least width: what a page needs beyond it (its fonts grown by the
    #: zoom) widens it. Scaled by the zoom, a page with one Seeds box took 400 of a
    #: projector's 1280 px at zoom 1.6.
    WIDTH = 260

    def show_page(self, page: str) -> None:
        self.stack.setCurrentIndex(PAGES.index(page))
        for i in range(self.stack.count()):  # the stack sizes to the page shown, not the widest
            policy = QSizePolicy.Policy.Preferred if i == self.stack.currentIndex() \
                else QSizePolicy.Policy.Ignored
            self.stack.widget(i).setSizePolicy(policy, policy)
        self.fit()

    def fit(self) -> None:
        """The column as wide as the page shown needs, and at least WIDTH."""
        fit_controls_width(self.widget, self.WIDTH)

    def apply_zoom(self, zoom: float) -> None:
        self.fit()
        QTimer.singleShot(0, self.widget, self.fit)
