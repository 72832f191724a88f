"""The Folding panel's controls: the left column (depth, peak, the view, the sends and
your own fold) and the counts above the plots.

They show a state and its counts; the panel connects their signals and turns what
the user does into edits of its state.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relulab.model.lessons.folding import FoldingState
from relulab.model.pieces.folding import (
    FOLD_PRESETS,
    MAX_DEPTH,
    MAX_FOLD_NEURONS,
    PEAK_RANGE,
    Fold,
    exact_tent_depth,
    tent_counts_formula,
    tent_peak_value,
)
from relulab.model.pieces.piecewise import EXACT_KNOTS
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.panels.folding.jobs import TentResult, plain_count
from relulab.ui.panels.folding.plots import FoldPieces, sup
from relulab.ui.readout import Note, Readout

PEAK_STEPS = 100  # the peak slider moves in steps of 0.01

TELGARSKY = (
    "<b>Why depth helps here.</b> Each layer of two neurons folds [0, 1] onto itself, so "
    "k layers (2k neurons) make 2<sup>k</sup> pieces; one hidden layer has at most one kink "
    "per neuron and needs 2<sup>k</sup> − 1. Telgarsky (2016): such sawtooth functions "
    "cannot even be <i>approximated</i> by shallow networks unless they are exponentially "
    "wide. <b>But</b> it is a result about specific functions, not a law: it does not say "
    "that every real task gains equally from depth."
)


def _readout(name: str, accessible: str, key: str, wrap: bool = True) -> Readout:
    return Readout(name, accessible, key, wrap=wrap, text_format=Qt.TextFormat.RichText)


def fold_with(fold: Fold, field: str, row: int, value: float) -> Fold:
    """``fold`` with one weight changed: ``field`` w, b or a of neuron ``row``, or c.
    ValueError (from Fold) when the value is refused."""
    if field == "c":
        return Fold(fold.w, fold.b, fold.a, value)
    values = {k: list(getattr(fold, k)) for k in ("w", "b", "a")}
    values[field][row] = value
    return Fold(c=fold.c, **values)


def telgarsky_note() -> Note:
    """What depth buys here and what it does not (hidden in the lecture layout)."""
    note = Note("folding-telgarsky", "Telgarsky's statement and its caveat", TELGARSKY)
    note.setTextFormat(Qt.TextFormat.RichText)
    note.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
    return note


class FoldingControls:
    """The left column, in ``widget``: depth, peak, view and send buttons, then the
    user's fold (hidden in the lecture layout)."""

    def __init__(self):
        self.widget = controls = named(QWidget(), "folding-controls", "Folding controls")
        controls.setMaximumWidth(340)
        controls.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        c = QVBoxLayout(controls)
        c.setContentsMargins(0, 0, 0, 0)
        self.depth_label = _readout("folding-depth-label", "Depth", "depth", wrap=False)
        self.depth_slider = named(QSlider(Qt.Orientation.Horizontal), "folding-depth",
                                  "Depth: number of tent layers",
                                  "Layers of the tent network ( [ and ] step by one )")
        self.depth_slider.setRange(1, MAX_DEPTH)
        self.depth_slider.setPageStep(4)
        self.depth_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.depth_slider.setTickInterval(4)
        self.peak_label = _readout("folding-peak-label", "Peak", "peak", wrap=False)
        self.peak_slider = named(QSlider(Qt.Orientation.Horizontal), "folding-peak",
                                 "Peak of the tent", "Where the tent has its top: ½ is the "
                                 "symmetric tent")
        self.peak_slider.setRange(round(PEAK_RANGE[0] * PEAK_STEPS), round(PEAK_RANGE[1] * PEAK_STEPS))
        self.peak_slider.setPageStep(5)
        self.whole_line = named(QCheckBox("Whole line (not only [0, 1])"), "folding-whole-line",
                                "Show the whole line", "Shortcut: L")
        self.play = named(QPushButton("Fold ▶"), "folding-play", "Play the folding animation",
                          "Fold [0, 1] onto itself one layer at a time (F)")
        self.play.setCheckable(True)
        self.send = named(QPushButton("Send to Deep → shallow"), "folding-send",
                          "Send the tent network to the Deep to shallow panel",
                          "The converter builds the equal one-hidden-layer network")
        for w in (self.depth_label, self.depth_slider, self.play, self.peak_label,
                  self.peak_slider, self.whole_line, self.send):
            c.addWidget(w)
        c.addWidget(self._build_fold_box())
        c.addStretch(1)

    def _build_fold_box(self) -> QGroupBox:
        box = named(QGroupBox("Your own fold u(x) = Σ aᵢ ReLU(wᵢ x + bᵢ) + c"),
                    "folding-fold-box", "Your own fold")
        f = QVBoxLayout(box)
        self.fold_preset = named(QComboBox(), "folding-fold-preset", "Fold preset")
        self.fold_preset.addItem("choose a preset…")
        self.fold_preset.addItems(list(FOLD_PRESETS))
        f.addWidget(self.fold_preset)
        self.fold_table = named(QTableWidget(0, 3), "folding-fold-table",
                                "Weights of your fold: w, b and a per neuron")
        self.fold_table.setHorizontalHeaderLabels(["w", "b", "a"])
        for j, tip in enumerate(("input weight wᵢ", "bias bᵢ", "output weight aᵢ")):
            self.fold_table.horizontalHeaderItem(j).setToolTip(tip)
        self.fold_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.fold_table.verticalHeader().setDefaultSectionSize(24)
        self.fold_table.setMinimumHeight(100)
        self.fold_table.setMaximumHeight(170)
        f.addWidget(self.fold_table)
        row = QHBoxLayout()
        row.addWidget(QLabel("c (output bias)"))
        self.fold_c = named(QTableWidget(1, 1), "folding-fold-c", "Output bias c of your fold")
        self.fold_c.horizontalHeader().hide()
        self.fold_c.verticalHeader().hide()
        self.fold_c.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.fold_c.setFixedHeight(28)
        self.fold_c.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fold_c.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        row.addWidget(self.fold_c)
        f.addLayout(row)
        row = QHBoxLayout()
        self.fold_add = named(QPushButton("Add neuron"), "folding-fold-add",
                              "Add a neuron to your fold")
        self.fold_remove = named(QPushButton("Remove last"), "folding-fold-remove",
                                 "Remove the last neuron of your fold")
        row.addWidget(self.fold_add)
        row.addWidget(self.fold_remove)
        f.addLayout(row)
        self.fold_show = named(QCheckBox("Show u composed k times"), "folding-fold-show",
                               "Show your fold composed k times")
        self.fold_error = _readout("folding-fold-error", "Problem with your fold", "fold_error")
        self.fold_send = named(QPushButton("Send your fold to Deep → shallow"),
                               "folding-fold-send", "Send your composed fold to the converter")
        for w in (self.fold_show, self.fold_error, self.fold_send):
            f.addWidget(w)
        return box

    def edited_cell(self, item: QTableWidgetItem) -> tuple[str, int, str]:
        """(field, row, where) of an edited cell of your fold: w, b or a of a neuron
        (its row), or c; ``where`` names it for the user."""
        if item.tableWidget() is self.fold_c:
            return "c", 0, "c (output bias)"
        field, row = ("w", "b", "a")[item.column()], item.row()
        return field, row, f"{field} of neuron {row + 1}"

    def show_state(self, s: FoldingState) -> None:
        """Set every control from ``s`` without echoing an edit back."""
        with signals_blocked(self.depth_slider, self.peak_slider, self.whole_line,
                             self.fold_show, self.fold_table, self.fold_c):
            self.depth_slider.setValue(s.depth)
            self.peak_slider.setValue(round(s.peak * PEAK_STEPS))
            self.whole_line.setChecked(s.whole_line)
            self.fold_show.setChecked(s.show_fold)
            fold = s.fold
            self.fold_table.setRowCount(fold.n_neurons)
            for i in range(fold.n_neurons):
                for j, v in enumerate((fold.w[i], fold.b[i], fold.a[i])):
                    self.fold_table.setItem(i, j, QTableWidgetItem(f"{v:g}"))
            self.fold_table.setVerticalHeaderLabels([f"neuron {i + 1}" for i in range(fold.n_neurons)])
            self.fold_c.setItem(0, 0, QTableWidgetItem(f"{fold.c:g}"))
        layers = "layer" if s.depth == 1 else "layers"
        self.depth_label.set_value(s.depth, f"Depth k = <b>{s.depth}</b> {layers} of 2 neurons")
        self.peak_label.set_value(s.peak, f"Peak p = <b>{s.peak:.2f}</b>")
        self.fold_add.setEnabled(s.fold.n_neurons < MAX_FOLD_NEURONS)
        self.fold_remove.setEnabled(s.fold.n_neurons > 1)


class CountReadouts:
    """The counts above the plots in ``grid``: the tent's pieces, the neurons against
    one hidden layer, your fold's counts, a precision note and the status line."""

    def __init__(self):
        self.count_label = _readout("folding-count", "Piece count", "pieces")
        self.neurons_label = _readout("folding-neurons", "Neurons used against one hidden layer",
                                      "neurons")
        self.fold_count_label = _readout("folding-fold-count", "Counts of your fold",
                                         "fold_pieces")
        self.precision_label = _readout("folding-precision", "Precision note", "precision_note")
        self.status_label = _readout("folding-status", "Computation status", "status", wrap=False)
        # its line stays when it is empty (see reserve_lines): showing and hiding it
        # moves the plots, which then repaint, and the band of a deep tent is computed
        # again (16 million pieces: 40 ms on the GUI thread, as a deep result arrives)
        self.grid = grid = QGridLayout()
        grid.addWidget(self.count_label, 0, 0)
        grid.addWidget(self.neurons_label, 0, 1)
        grid.addWidget(self.fold_count_label, 1, 0)
        grid.addWidget(self.precision_label, 1, 1)
        grid.addWidget(self.status_label, 2, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        grid.setHorizontalSpacing(24)  # the two columns' sentences must not run together

    def set_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))

    def show_tent(self, s: FoldingState, result: TentResult | None) -> None:
        """The tent's counts at ``s`` (None while a worker computes them: theory's)."""
        pieces, kinks = tent_counts_formula(s.depth)
        if result is None:
            self.count_label.set_value(None, f"{sup(s.depth)}: computing… (theory: "
                                     f"{plain_count(pieces)} pieces on [0, 1])")
        else:
            c = result.counts
            self.count_label.set_value(
                int(c.pieces_unit),
                f"{sup(s.depth)}: <b>{plain_count(c.pieces_unit)}</b> pieces on [0, 1]; "
                f"{plain_count(c.kinks_line)} kinks on the whole line "
                + ("(exact)" if c.exact else "(floating point only, not certified)"))
        self.neurons_label.set_value(
            2 * s.depth,
            f"<b>{2 * s.depth}</b> neurons in {s.depth} layer{'s' if s.depth > 1 else ''}; "
            f"one hidden layer needs <b>{plain_count(2 ** s.depth - 1)}</b>")
        notes = []
        if result is not None and not result.counts.exact:
            notes.append(f"At peak {s.peak:.2f}, depth {s.depth} is beyond exact arithmetic "
                         f"here: 1/p is not a double, so doubles cannot certify the kinks, and "
                         f"exact rationals would need more than {plain_count(EXACT_KNOTS)} "
                         f"knots. Exact to depth {exact_tent_depth(s.peak)} at this peak.")
        if (result is not None and result.counts.exact
                and (result.counts.pieces_unit, result.counts.kinks_line) != (pieces, kinks)):
            high, _ = tent_peak_value(s.peak)
            why = (f"its weights are doubles, so its top is 1 {'+' if high > 0 else '−'} "
                   f"{abs(float(high)):.1e} and values above 1 fold once more"
                   if high != 0 else "its weights are doubles near 1/p")
            notes.append(f"The ideal tent has {plain_count(pieces)} pieces on [0, 1] and "
                         f"{plain_count(kinks)} kinks; this network differs: {why}.")
        self.precision_label.setText(" ".join(notes))
        self.precision_label.setVisible(bool(notes))  # an empty row is room lost

    def show_fold(self, s: FoldingState, fold: FoldPieces) -> None:
        """Your fold's counts at depth ``s.depth``, computing, or why not."""
        self.fold_count_label.setVisible(s.show_fold)  # about a fold that is not shown
        if fold is None:
            self.fold_count_label.set_value(None, f"Your fold u<sup>({s.depth})</sup>: computing…")
            return
        if isinstance(fold, str):
            self.fold_count_label.set_value(None, f"Your fold u<sup>({s.depth})</sup>: {fold}")
            return
        counts = fold[1]
        self.fold_count_label.set_value(
            int(counts.pieces_unit),
            f"Your fold u<sup>({s.depth})</sup>: <b>{plain_count(counts.pieces_unit)}</b> pieces "
            f"on [0, 1], {plain_count(counts.kinks_line)} kinks on the line; "
            f"{counts.neurons} neurons")

    def reserve_lines(self, keep: bool) -> None:
        """The counts (and what is said of your fold) wrap onto a second line at great
        depths, and the status line comes and goes with deep computations: while
        ``keep``, their room is kept, so a deep result does not move (and repaint)
        every plot below."""
        two_lines = 2 * self.count_label.fontMetrics().lineSpacing() if keep else 0
        for label in (self.count_label, self.neurons_label, self.fold_count_label):
            label.setMinimumHeight(two_lines)
        policy = self.status_label.sizePolicy()
        policy.setRetainSizeWhenHidden(keep)
        self.status_label.setSizePolicy(policy)

