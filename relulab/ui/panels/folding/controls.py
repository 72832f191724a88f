"""The Folding panel's controls: the left column (depth, peak, the view, the sends and
your own fold) and the counts above the plots.

They show a state and its counts; the panel connects their signals and turns what
the user does into edits of its state.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
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
from relulab.ui.panels.base import fit_controls_width, named, signals_blocked
from relulab.ui.panels.folding.jobs import TentResult, plain_count
from relulab.ui.panels.folding.plots import FoldPieces, sup
from relulab.ui.readout import Note, Readout

PEAK_STEPS = 100  # the peak slider moves in steps of 0.01

#: What depth buys and what it does not, in two lines of a laptop's window (the counts
#: above the plots and the chart already say 2k neurons, 2^k pieces, 2^k − 1 in one layer).
TELGARSKY = (
    "<b>Why depth helps here.</b> Telgarsky (2016): sawtooths like this one cannot even be "
    "<i>approximated</i> by a shallow network unless it is exponentially wide. <b>But</b> "
    "that is a result about these functions, not a law that every task gains from depth."
)


def _readout(name: str, accessible: str, key: str, wrap: bool = True) -> Readout:
    return Readout(name, accessible, key, wrap=wrap, text_format=Qt.TextFormat.RichText)


def _two_lines(label: QLabel) -> int:
    """The height of two lines of ``label``'s rich text with a superscript and bold on
    each (a count's lines), in its font: two plain line spacings are a few pixels short."""
    probe = QLabel()
    probe.setFont(label.font())
    probe.setTextFormat(Qt.TextFormat.RichText)
    probe.setText("g<sup>(24)</sup>: <b>16,777,216</b><br>u<sup>(24)</sup>: <b>8</b>")
    return probe.sizeHint().height()


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
    """The left column, in ``widget`` (a scrolled column: at a projector's zoom it is
    taller than the window, and the plots beside it keep their height): depth, peak,
    view and send buttons, then the user's fold (hidden in the lecture layout)."""

    def __init__(self):
        self.widget = scroll = named(QScrollArea(), "folding-controls", "Folding controls")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        controls = QWidget()
        scroll.setWidget(controls)
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
        # the formula under the box's title, where it can wrap: as the title it set the
        # column's width, 500 pixels at zoom 1.6
        box = named(QGroupBox("Your own fold"), "folding-fold-box", "Your own fold")
        f = QVBoxLayout(box)
        formula = QLabel("u(x) = Σ aᵢ ReLU(wᵢ x + bᵢ) + c")
        formula.setWordWrap(True)
        f.addWidget(formula)
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
        f.addWidget(self.fold_table)
        row = QHBoxLayout()
        row.addWidget(QLabel("c (output bias)"))
        self.fold_c = named(QTableWidget(1, 1), "folding-fold-c", "Output bias c of your fold")
        self.fold_c.horizontalHeader().hide()
        self.fold_c.verticalHeader().hide()
        self.fold_c.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
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

    def apply_zoom(self, zoom: float) -> None:
        """Rows as tall as the zoomed text, and the column as wide as 330 pixels at
        zoom 1, at most 420 (or what its content needs): at a projector's zoom the
        plots beside it keep the room."""
        row = round(24 * zoom)
        self.fold_table.verticalHeader().setDefaultSectionSize(row)
        self.fold_table.setMinimumHeight(round(100 * zoom))
        self.fold_table.setMaximumHeight(round(170 * zoom))
        self.fold_c.verticalHeader().setDefaultSectionSize(row)
        self.fold_c.setFixedHeight(row + 4)
        width = int(min(330 * zoom, 420))
        fit_controls_width(self.widget, width)
        # the new fonts reach the controls' size hints only after this event: fit again
        QTimer.singleShot(0, self.widget, lambda: fit_controls_width(self.widget, width))

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


def _up(x: float) -> str:
    """``x`` > 0 rounded up to two significant digits (1.6e-16 for 1.59e-16): a bound
    that stays true as it is written."""
    mantissa, exponent = f"{x:.1e}".split("e")
    if float(f"{x:.1e}") < x:
        mantissa = f"{float(mantissa) + 0.1:.1f}"
    return f"{mantissa}e{exponent}"


def _off_by(value) -> str:
    """1 + 8.3e-17, 1 − 4.1e-17 or 1: one plus a rounding error, as words read it."""
    v = float(value)
    return "1" if v == 0 else f"1 {'+' if v > 0 else '−'} {abs(v):.1e}"


def _signed(value) -> str:
    v = float(value)
    return "0" if v == 0 else f"{'−' if v < 0 else ''}{abs(v):.1e}"


class CountReadouts:
    """The counts above the plots in ``grid``, one under the other across the width
    (at a projector's zoom half the width would wrap each into four lines): the
    tent's pieces, the neurons against one hidden layer, your fold's counts, a
    precision note and the status line (an animation's step, a send refused)."""

    def __init__(self):
        self.count_label = _readout("folding-count", "Piece count", "pieces")
        self.neurons_label = _readout("folding-neurons", "Neurons used against one hidden layer",
                                      "neurons")
        self.fold_count_label = _readout("folding-fold-count", "Counts of your fold",
                                         "fold_pieces")
        self.precision_label = _readout("folding-precision", "Precision note", "precision_note")
        self.status_label = _readout("folding-status", "Computation status", "status", wrap=False)
        self.status_label.setVisible(False)
        self.grid = grid = QGridLayout()
        for row, label in enumerate((self.count_label, self.neurons_label, self.fold_count_label,
                                     self.precision_label, self.status_label)):
            grid.addWidget(label, row, 0)
        grid.setVerticalSpacing(4)

    def set_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))

    def show_tent(self, s: FoldingState, result: TentResult | None) -> None:
        """The tent's counts at ``s``, or that they are being computed (None: a worker
        computes them; nothing of the depth shown before is left as if it were this
        one's). Where the network's counts are not the formula's 2^k, the note says
        why, in the model's numbers."""
        pieces, _kinks = tent_counts_formula(s.depth)
        if result is None:
            self.count_label.set_value(
                None, f"{sup(s.depth)}: computing depth {s.depth}… (the formula "
                      f"2<sup>k</sup> gives {plain_count(pieces)} pieces on [0, 1])")
        else:
            c, slivers = result.counts, result.slivers
            split = ""
            if slivers is not None and slivers.count:
                split = (f" ({plain_count(c.pieces_unit - slivers.count)} visible, "
                         f"{plain_count(slivers.count)} sliver{'s' if slivers.count > 1 else ''} "
                         f"narrower than {_up(slivers.widest)}: 1/p is rounded)")
            self.count_label.set_value(
                int(c.pieces_unit),
                f"{sup(s.depth)}: <b>{plain_count(c.pieces_unit)}</b> pieces on [0, 1]{split}; "
                f"{plain_count(c.kinks_line)} kinks on the whole line "
                + ("(exact)" if c.exact else "(floating point only, not certified)"))
        self.neurons_label.set_value(
            2 * s.depth,
            f"<b>{2 * s.depth}</b> neurons in {s.depth} layer{'s' if s.depth > 1 else ''}; "
            f"one hidden layer needs <b>{plain_count(2 ** s.depth - 1)}</b>")
        notes = [] if result is None else self._precision_notes(s, result)
        self.precision_label.setText(" ".join(notes))
        self.precision_label.setVisible(bool(notes))  # an empty row is room lost

    @staticmethod
    def _precision_notes(s: FoldingState, result: TentResult) -> list[str]:
        """Why the counts are floating point, and why they are not the ideal tent's."""
        c, slivers = result.counts, result.slivers
        pieces, kinks = tent_counts_formula(s.depth)
        ideal = (f"The formula 2<sup>k</sup> and the chart count the ideal tent: "
                 f"{plain_count(pieces)} pieces on [0, 1], {plain_count(kinks)} kinks.")
        notes = []
        if not c.exact:
            deepest = exact_tent_depth(s.peak)
            budget = (f"exact rational arithmetic passed its budget of {plain_count(EXACT_KNOTS)} "
                      "knots" if s.depth <= deepest else
                      f"exact rational arithmetic is tried only to depth {deepest} here "
                      f"(2<sup>k</sup> + 1 knots within {plain_count(EXACT_KNOTS)})")
            notes.append(f"At peak {s.peak:.2f}, {sup(s.depth)} is counted in floating point "
                         f"only: 1/p is not a double, so doubles cannot certify its kinks, and "
                         f"{budget}. Its count and picture are floating point; the neuron counts "
                         "are exact.")
            if (c.pieces_unit, c.kinks_line) != (pieces, kinks):
                notes.append(f"{ideal} The floating-point count differs from it by rounding "
                             "it cannot bound.")
            return notes
        if (c.pieces_unit, c.kinks_line) == (pieces, kinks):
            return notes
        top, end = tent_peak_value(s.peak)
        shape = (f"Here 1/p = 1/{s.peak:.2f} is rounded, so the tent tops out at "
                 f"{_off_by(top)} and ends at {_signed(end)}")
        if slivers is not None and slivers.count:
            n = slivers.count
            widths = (f"{slivers.widest:.1e}" if n == 1 else
                      f"{slivers.narrowest:.1e} to {slivers.widest:.1e}")
            notes.append(f"{ideal} {shape}; the next layer's ReLU cuts what dips below 0 flat: "
                         f"{plain_count(n)} sliver{'s' if n > 1 else ''}, {widths} wide.")
        else:
            notes.append(f"{ideal} {shape}: this network has {plain_count(c.kinks_line)} kinks "
                         "on the line.")
        return notes

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
            f"on [0, 1], {plain_count(counts.kinks_line)} kinks on the line (exact); "
            f"{counts.neurons} neurons")

    def reserve_lines(self, keep: bool) -> None:
        """The count and your fold's count wrap onto a second line at great depths and
        while they are computed: while ``keep``, their room is kept, so a deep depth
        asked for and its result do not move (and repaint) every plot below (all five
        plots in one pass: 30-43 ms on the GUI thread at depth 24)."""
        for label in (self.count_label, self.fold_count_label):
            label.setMinimumHeight(_two_lines(label) if keep else 0)
