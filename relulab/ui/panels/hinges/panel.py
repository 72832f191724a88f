"""The Hinges panel: drag hinged rulers and watch the fit.

f̂(x) = a + s·x + Σ cᵢ·ReLU(x − kᵢ). Three modes: Free (the learner sets every
kink and slope change), Least squares (the learner moves kinks, the coefficients
are re-solved on every mouse move) and Interpolation (n equally spaced knots, the
measured error next to the bound (b − a)²M/(8n²)). The mathematics is in
:mod:`relulab.model.fitting.hinges`; this module only shows it and turns input into edits.
The convergence study (error against n) runs on a :class:`~relulab.ui.worker.Worker`.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGraphicsItem,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from relulab.model.data.targets import PRESETS, target_from_text
from relulab.model.fitting.hinges import (
    COEFFICIENT_LIMIT,
    DOMAIN_LIMIT,
    MAX_HINGES,
    MAX_POINTS,
    MIN_POINTS,
    HingesState,
    estimate_curvature,
    find_jump,
    fit_hinges,
    hinge_sum,
    interpolate_hinges,
    log_log_slope,
)
from relulab.ui.items.hinges_handles import HandlesItem, SelectedMarker
from relulab.ui.legend import key_html
from relulab.ui.panels.base import (
    Key,
    Panel,
    fit_controls_width,
    named,
    signals_blocked,
)
from relulab.ui.panels.hinges.jobs import convergence_job
from relulab.ui.readout import Note, Readout
from relulab.ui.worker import Worker

MODE_LABELS = {"free": "Free", "least squares": "Least squares", "interpolation": "Interpolation"}
MODE_NAMES = {"free": "free", "least squares": "least-squares", "interpolation": "interpolation"}
MODE_TIPS = {
    "free": "Free: you set every kink and every slope change (drag up and down)",
    "least squares": "Least squares: you move the kinks, the slopes are re-solved on every move",
    "interpolation": "Interpolation: n evenly spaced knots on the curve, the error against "
                     "its bound (b − a)²M/(8n²)",
}
CUSTOM = "Typed expression"
#: Samples of the target drawn as its curve (the samples used for fitting may be fewer).
CURVE_POINTS = 2001


def _fmt(v: float) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{v:.4f}"


def _signed(v: float) -> str:
    return f"{v:+.3f}".replace("-", "−")


def _readout(name: str, accessible: str, wrap: bool = False, key: str | None = None) -> Readout:
    return Readout(name, accessible, key, wrap=wrap, selectable=True)


def _number_box(name: str, accessible: str, lo: float, hi: float, decimals: int,
                step: float = 0.5) -> QDoubleSpinBox:
    w = named(QDoubleSpinBox(), name, accessible, accessible)
    w.setRange(lo, hi)
    w.setDecimals(decimals)
    w.setSingleStep(step)
    w.setKeyboardTracking(False)
    w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return w


def _plot(name: str, accessible: str, description: str) -> pg.PlotWidget:
    pw = named(pg.PlotWidget(), name, accessible, description=description)
    pw.setMenuEnabled(False)
    return pw


class HingesPanel(Panel):
    name = "hinges"
    title = "Hinges"
    summary = "drag hinged rulers and watch least squares refit; interpolation and its error bound."
    state_class = HingesState
    #: Keyboard editing on the plot (it has the focus after a click on it)
    KEYS = (
        Key("Tab", "select the next hinge", "select_step", (1,), "plot", "next"),
        Key("Backtab", "select the previous hinge", "select_step", (-1,), "plot", "previous"),
        Key("Shift+Backtab", "select the previous hinge", "select_step", (-1,), "plot",
            "previous-shift"),
        Key("Left", "move the selected kink left", "nudge_kink", (-1,), "plot", "left"),
        Key("Right", "move the selected kink right", "nudge_kink", (1,), "plot", "right"),
        Key("Shift+Up", "raise the selected slope change (Free)", "nudge_coefficient", (1,),
            "plot", "up"),
        Key("Shift+Right", "raise the selected slope change (Free)", "nudge_coefficient", (1,),
            "plot", "up-right"),
        Key("Shift+Down", "lower the selected slope change (Free)", "nudge_coefficient", (-1,),
            "plot", "down"),
        Key("Shift+Left", "lower the selected slope change (Free)", "nudge_coefficient", (-1,),
            "plot", "down-left"),
        Key("Delete", "delete the selected hinge", "delete_selected", (), "plot", "delete"),
        Key("Backspace", "delete the selected hinge", "delete_selected", (), "plot",
            "backspace"),
        Key("Escape", "leave the plot (Tab selects controls again)", "_leave_plot", (), "plot",
            "leave"),
    )
    primary_controls = ("hinges-mode-free", "hinges-mode-least-squares", "hinges-mode-interpolation",
                        "hinges-count")

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._state = HingesState()
        self._target = target_from_text(self._state.target, self._state.a, self._state.b)
        self._fit = None            # the HingeFit on screen
        self._interp = None         # the Interpolation, in that mode
        self._drag = None           # (index, snapshot, press position, kink, coefficient)
        self._fit_method = "auto"   # "dense" only for the benchmark's baseline
        self._conv_rows: list = []
        self._conv_key = None
        self._convergence = Worker("hinges-convergence", self)
        self._build()
        self._connect()
        self._load_target_caches()
        self._sync_widgets()
        self._refresh(full=True)

    # -- building ------------------------------------------------------------------
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self._build_readouts())
        self._build_plots()
        lv.addWidget(self._build_plot_area(), 1)
        outer.addWidget(left, 1)
        outer.addWidget(self._build_controls())
        self._build_shortcuts()
        self.apply_theme()

    def _build_readouts(self) -> QWidget:
        box = QWidget()
        v = QVBoxLayout(box)
        v.setContentsMargins(0, 0, 0, 0)
        self.readout_row = named(QWidget(box), "hinges-readouts", "Fit readouts")
        row = QHBoxLayout(self.readout_row)
        row.setContentsMargins(4, 0, 4, 0)
        row.setSpacing(18)
        self.rmse_label = _readout("hinges-rmse", "RMSE")
        self.max_label = _readout("hinges-max-error", "Largest error")
        self.selected_label = _readout("hinges-selected", "Selected hinge", wrap=True)
        self.selected_label.key = "selected_hinge"
        self.selected_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row.addWidget(self.rmse_label)
        row.addWidget(self.max_label)
        row.addWidget(self.selected_label, 1)
        v.addWidget(self.readout_row)
        self.bound_label = _readout("hinges-bound", "Interpolation error and bound", wrap=True,
                                    key="interpolation_error")
        self.caveat_label = _readout("hinges-caveat", "Jump caveat", wrap=True)
        v.addWidget(self.bound_label)
        v.addWidget(self.caveat_label)
        return box

    def _build_plots(self) -> None:
        self.plot = _plot(
            "hinges-plot", "Target and sum of hinges; drag the handles",
            "The target f(x), solid, and the sum of hinges f̂(x), dashed, over the domain "
            "[a, b]. A round handle sits on the sum at each kink: drag it sideways to move the "
            "kink, up or down (Free mode) to change its slope change; double-click adds a hinge.")
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        pi = self.plot.getPlotItem()
        pi.setLabel("bottom", "x")
        self.legend = pi.addLegend(offset=(-10, -10))
        self.target_curve = pi.plot(name="target f(x)", antialias=True)
        self.approx_curve = pi.plot(name="sum of hinges f̂(x)", antialias=True)
        # Thin, solid and not antialiased: 200 hinges are 200 lines across the plot, and
        # dotted antialiased ones took 0.7 s to paint (solid aliased ones: 3 ms).
        self.components_curve = pg.PlotDataItem(connect="finite", antialias=False)
        pi.addItem(self.components_curve)
        self.handles = HandlesItem()
        pi.addItem(self.handles)
        self.selected_marker = SelectedMarker()
        pi.addItem(self.selected_marker)
        self.slope_text = pg.TextItem(anchor=(0.5, 1.4))
        pi.addItem(self.slope_text)
        self._build_residual_plot()
        self._build_convergence_plot()
        # What does not change during a drag (target, axes and grid) is painted once
        # into a cached pixmap, so a mouse move repaints only the moving items.
        cache = QGraphicsItem.CacheMode.DeviceCoordinateCache
        self.target_curve.curve.setCacheMode(cache)
        for pw in (self.plot, self.residual_plot, self.convergence_plot):
            for axis in ("left", "bottom", "right", "top"):
                pw.getPlotItem().getAxis(axis).setCacheMode(cache)

    def _build_residual_plot(self) -> None:
        self.residual_plot = _plot("hinges-residual-plot",
                                   "Residual f̂(x) − f(x) at the sample points",
                                   "The residual f̂(x) − f(x) at every sample point, against x, "
                                   "around a dashed zero line.")
        rp = self.residual_plot.getPlotItem()
        rp.setLabel("left", "f̂ − f")
        rp.setLabel("bottom", "x")
        # drawn as a polyline of at most ~2 points per pixel column (min and max), so
        # 20,000 samples cost what a few thousand do
        self.residual_curve = rp.plot(antialias=False, autoDownsample=True, downsampleMethod="peak",
                                      clipToView=True)
        self.residual_zero = pg.InfiniteLine(0, angle=0)
        rp.addItem(self.residual_zero)

    def _build_convergence_plot(self) -> None:
        self.convergence_plot = _plot(
            "hinges-convergence-plot", "Error against the number of hinges, log-log",
            "Log-log plot of the error against the number of hinges n: least squares "
            "with evenly spaced kinks (RMSE and largest error), the interpolation's largest "
            "error, its bound (b − a)²M/(8n²), a guide line of slope −2, and a vertical line at "
            "the n on screen.")
        cp = self.convergence_plot.getPlotItem()
        cp.setLogMode(True, True)
        cp.setLabel("bottom", "number of hinges n")
        cp.setLabel("left", "error")
        self.conv_ls_rmse = cp.plot(name="least squares: RMSE", symbol="o")
        self.conv_ls_max = cp.plot(name="least squares: largest", symbol="s")
        self.conv_interp = cp.plot(name="interpolation: largest", symbol="t")
        self.conv_bound = cp.plot(name="bound")
        self.conv_guide = cp.plot(name="slope −2")
        cp.getAxis("bottom").setTicks([[(np.log10(n), str(n)) for n in (1, 2, 4, 8, 16, 32, 64, 128)],
                                       []])
        self.conv_now = pg.InfiniteLine(angle=90)
        cp.addItem(self.conv_now)

    def _build_plot_area(self) -> QSplitter:
        """The main plot above; the residual and the convergence plot below it."""
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.plot)
        self.bottom = QSplitter(Qt.Orientation.Horizontal)
        self.bottom.addWidget(self.residual_plot)
        self.convergence_box = QWidget()
        cv = QVBoxLayout(self.convergence_box)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.setSpacing(0)
        cv.addWidget(self.convergence_plot, 1)
        # the key sits under the plot, not over it: the plot is small and every corner
        # of it holds data for one target or another
        self.convergence_key = Note("hinges-convergence-key", "Key of the convergence plot")
        cv.addWidget(self.convergence_key)
        self.bottom.addWidget(self.convergence_box)
        self.splitter.addWidget(self.bottom)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([480, 300])
        self.splitter.setChildrenCollapsible(False)
        return self.splitter

    def _build_controls(self) -> QScrollArea:
        scroll = named(QScrollArea(self), "hinges-controls", "Hinges controls")
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        box = QWidget()
        cl = QVBoxLayout(box)
        cl.setContentsMargins(4, 0, 4, 0)
        # what a learner changes first (how the slopes are found, how many hinges) at
        # the top; the target and the views below
        for group in (self._build_hinges_box(), self._build_target_box(), self._build_view_box()):
            cl.addWidget(group)
        keys = Note("hinges-help", "Mouse and keys on the plot",
                    "Drag a handle to move its kink (Free: up and down bends it). "
                    "Double-click adds a hinge. F1: the guide and every key.")
        keys.setToolTip("On the plot: Tab/Shift+Tab select a hinge, ←/→ move its kink, "
                        "Shift+↑/↓ change its slope, Delete removes it, Esc leaves the plot. "
                        "Right-click during a drag cancels it.")
        cl.addWidget(keys)
        cl.addStretch(1)
        scroll.setWidget(box)
        self.controls = scroll
        return scroll

    def _build_target_box(self) -> QGroupBox:
        group = QGroupBox("Target")
        form = QFormLayout(group)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.preset_box = named(QComboBox(), "hinges-preset", "Target preset", "Target preset")
        self.preset_box.addItems([*list(PRESETS), CUSTOM])
        form.addRow("Preset", self.preset_box)
        self.expression_edit = named(QLineEdit(), "hinges-expression", "Target expression in x",
                                     "Target expression in x")
        self.expression_edit.setPlaceholderText("e.g. sin(3x) + x^2/4, Enter to apply")
        form.addRow("f(x) =", self.expression_edit)
        self.expression_error = _readout("hinges-expression-error", "Expression error", wrap=True)
        self.expression_error.setVisible(False)
        form.addRow(self.expression_error)
        domain = QHBoxLayout()
        self.a_spin = _number_box("hinges-a", "Domain start a", -DOMAIN_LIMIT, DOMAIN_LIMIT, 3)
        self.b_spin = _number_box("hinges-b", "Domain end b", -DOMAIN_LIMIT, DOMAIN_LIMIT, 3)
        domain.addWidget(self.a_spin)
        domain.addWidget(QLabel("to"))
        domain.addWidget(self.b_spin)
        form.addRow("Domain", domain)
        self.points_spin = named(QSpinBox(), "hinges-points", "Number of sample points",
                                 "Number of sample points")
        self.points_spin.setRange(MIN_POINTS, MAX_POINTS)
        self.points_spin.setKeyboardTracking(False)
        form.addRow("Sample points", self.points_spin)
        return group

    def _build_hinges_box(self) -> QGroupBox:
        """How the slopes are found (the mode), how many hinges, the line and the selected
        hinge's slope change."""
        group = QGroupBox("Hinges")
        grid = QGridLayout(group)
        self.mode_group = QButtonGroup(self)
        self.mode_buttons = {}
        modes = QHBoxLayout()
        for mode, label in MODE_LABELS.items():
            rb = named(QRadioButton(label), f"hinges-mode-{MODE_NAMES[mode]}", f"{label} mode",
                       MODE_TIPS[mode])
            self.mode_group.addButton(rb)
            self.mode_buttons[mode] = rb
            modes.addWidget(rb)
        grid.addLayout(modes, 0, 0, 1, 4)
        self.count_spin = named(QSpinBox(), "hinges-count", "Number of hinges", "Number of hinges")
        self.count_spin.setRange(1, MAX_HINGES)
        self.count_spin.setKeyboardTracking(False)
        grid.addWidget(QLabel("Hinges"), 1, 0)
        grid.addWidget(self.count_spin, 1, 1)
        self.spread_button = named(QPushButton("Spread evenly"), "hinges-spread",
                                   "Spread the kinks evenly", "Spread the kinks evenly")
        grid.addWidget(self.spread_button, 1, 2, 1, 2)
        c = COEFFICIENT_LIMIT
        self.intercept_spin = _number_box("hinges-intercept", "Intercept a of the line a + s·x",
                                          -c, c, 4, 0.1)
        self.slope_spin = _number_box("hinges-slope", "Slope s of the line a + s·x", -c, c, 4, 0.1)
        self.coefficient_spin = _number_box("hinges-coefficient",
                                            "Slope change c of the selected hinge", -c, c, 4, 0.1)
        # short labels, the words in their tooltips: the line a + s·x, then the selected
        # hinge's slope change c beside the button that deletes it
        for row, (text, box) in enumerate((("line a", self.intercept_spin),
                                           ("line s", self.slope_spin),
                                           ("hinge c", self.coefficient_spin)), start=2):
            label = QLabel(text)
            label.setToolTip(box.accessibleName() + " (set in Free mode)")
            grid.addWidget(label, row, 0)
            grid.addWidget(box, row, 1, 1, 2 if row == 4 else 3)
        self.delete_button = named(QPushButton("Delete"), "hinges-delete",
                                   "Delete the selected hinge", "Delete the selected hinge (Delete)")
        grid.addWidget(self.delete_button, 4, 3)
        grid.setColumnStretch(1, 1)
        return group

    def _build_view_box(self) -> QGroupBox:
        group = QGroupBox("Show")
        column = QVBoxLayout(group)
        self.components_check = named(QCheckBox("Each hinge cᵢ·ReLU(x − kᵢ)"), "hinges-components",
                                      "Show each hinge separately", "Show each hinge separately")
        self.residual_check = named(QCheckBox("Residual plot"), "hinges-residual",
                                    "Show the residual plot", "Show the residual plot")
        self.convergence_check = named(QCheckBox("Convergence (error against n)"),
                                       "hinges-convergence", "Show the convergence plot",
                                       "Show the convergence plot")
        for w in (self.components_check, self.residual_check, self.convergence_check):
            column.addWidget(w)
        return group

    def _build_shortcuts(self) -> None:
        """Keyboard editing, only while the plot has focus (so text boxes keep their keys)."""
        self.make_keys()

    # -- wiring (all of it here; shutdown undoes it) ---------------------------------------
    def _connect(self) -> None:
        self.handles.drag_started.connect(self._on_drag_start)
        self.handles.drag_moved.connect(self._on_drag_move)
        self.handles.drag_finished.connect(self._on_drag_finish)
        self.handles.drag_cancelled.connect(self._on_drag_cancel)
        self.handles.clicked.connect(self._on_handle_clicked)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.preset_box.activated.connect(self._on_preset)
        self.expression_edit.returnPressed.connect(self._on_expression)
        self.a_spin.valueChanged.connect(self._on_domain)
        self.b_spin.valueChanged.connect(self._on_domain)
        self.points_spin.valueChanged.connect(self._on_points)
        self.mode_group.buttonClicked.connect(self._on_mode)
        self.count_spin.valueChanged.connect(self._on_count)
        self.spread_button.clicked.connect(self.spread_evenly)
        self.delete_button.clicked.connect(self.delete_selected)
        self.intercept_spin.valueChanged.connect(self._on_line)
        self.slope_spin.valueChanged.connect(self._on_line)
        self.coefficient_spin.valueChanged.connect(self._on_coefficient)
        self.components_check.toggled.connect(lambda on: self._set_view(show_components=on))
        self.residual_check.toggled.connect(lambda on: self._set_view(show_residual=on))
        self.convergence_check.toggled.connect(lambda on: self._set_view(show_convergence=on))
        self._convergence.progress.connect(self._on_convergence_row)
        self._convergence.idle.connect(self._on_convergence_done)

    def shutdown(self) -> None:
        if self._convergence.closed:  # called by the main window and again by tests
            return
        self._convergence.shutdown()
        with contextlib.suppress(RuntimeError, TypeError):
            self.plot.scene().sigMouseClicked.disconnect(self._on_scene_clicked)
        super().shutdown()

    # -- state ----------------------------------------------------------------------
    @property
    def fit(self):
        """The HingeFit on screen (least squares, free or the interpolation)."""
        return self._fit

    @property
    def interpolation(self):
        return self._interp

    @property
    def target(self):
        return self._target

    def apply_state(self, state: HingesState) -> None:
        old = self._state
        target_changed = (state.target, state.a, state.b) != (old.target, old.a, old.b)
        if target_changed:
            self._target = target_from_text(state.target, state.a, state.b)
        self._state = state
        if target_changed or state.points != old.points:
            self._load_target_caches()
        self._sync_widgets()
        self._refresh(full=True)

    def _load_target_caches(self) -> None:
        s = self._state
        self._x = np.linspace(s.a, s.b, s.points)
        self._y = self._target(self._x)
        self._x_dense = np.linspace(s.a, s.b, CURVE_POINTS)
        self._y_dense = self._target(self._x_dense)
        self._curvature = estimate_curvature(self._target, s.a, s.b)
        self._jump = find_jump(self._target, s.a, s.b)
        self._conv_key = None
        self._range_dirty = True

    def _sync_widgets(self) -> None:
        """Show the state in the controls, with their signals blocked (no echo)."""
        s = self._state
        with signals_blocked(self.preset_box, self.expression_edit, self.a_spin, self.b_spin,
                             self.points_spin, self.count_spin, self.intercept_spin,
                             self.slope_spin, self.coefficient_spin, self.components_check,
                             self.residual_check, self.convergence_check, self.mode_group):
            self.preset_box.setCurrentText(s.target if s.target in PRESETS else CUSTOM)
            self.expression_edit.setText(self._target.text)
            self.a_spin.setValue(s.a)
            self.b_spin.setValue(s.b)
            self.points_spin.setValue(s.points)
            self.mode_buttons[s.mode].setChecked(True)
            n = s.interpolation_n if s.mode == "interpolation" else max(1, len(s.kinks))
            self.count_spin.setValue(n)
            free = s.mode == "free"
            self.intercept_spin.setEnabled(free)
            self.slope_spin.setEnabled(free)
            has_sel = s.selected is not None
            self.coefficient_spin.setEnabled(free and has_sel)
            self.delete_button.setEnabled(has_sel and s.mode != "interpolation")
            self.spread_button.setEnabled(s.mode != "interpolation")
            self.components_check.setChecked(s.show_components)
            self.residual_check.setChecked(s.show_residual)
            self.convergence_check.setChecked(s.show_convergence)
        self.residual_plot.setVisible(s.show_residual)
        self.convergence_box.setVisible(s.show_convergence)
        self.bottom.setVisible(s.show_residual or s.show_convergence)
        self.handles.draggable = s.mode != "interpolation"

    # -- computing and drawing ------------------------------------------------------------
    def _compute(self) -> None:
        s = self._state
        self._interp = None
        if s.mode == "least squares":
            self._fit = fit_hinges(self._x, self._y, s.kinks, method=self._fit_method)
        elif s.mode == "free":
            self._fit = hinge_sum(self._x, self._y, s.intercept, s.slope, s.kinks, s.coefficients)
        else:
            it = interpolate_hinges(self._target, s.a, s.b, s.interpolation_n, self._curvature)
            self._interp = it
            f = it.fit
            self._fit = hinge_sum(self._x, self._y, f.intercept, f.slope, f.kinks, f.coefficients)

    def _refresh(self, full: bool = False) -> None:
        """Refit and redraw what depends on the hinges; ``full`` also redraws the target,
        the view range and the convergence study."""
        s = self._state
        self._compute()
        fit = self._fit
        th = self.theme
        if full:
            self.target_curve.setData(self._x_dense, self._y_dense)
            if self._range_dirty:
                self._set_ranges()
        xs, ys = fit.vertices(s.a, s.b)
        self.approx_curve.setData(xs, ys)
        hx = fit.kinks
        hy = fit.predict(hx)
        selected = s.selected if s.mode != "interpolation" else None
        self.handles.set_handles(hx, hy, self._brush, self._handle_pen, th.point_size(11))
        if selected is not None and selected < hx.size:
            self.selected_marker.show_at(float(hx[selected]), float(hy[selected]),
                                         self._selected_brush, self._handle_pen,
                                         th.point_size(19))
        else:
            self.selected_marker.show_at(None, None, None, None, 0)
        if s.show_components and fit.kinks.size:
            k, c = fit.kinks, fit.coefficients
            n = k.size
            px = np.empty((n, 4))
            py = np.empty((n, 4))
            px[:, 0], px[:, 1], px[:, 2], px[:, 3] = s.a, np.clip(k, s.a, s.b), s.b, np.nan
            py[:, 0], py[:, 1] = 0.0, 0.0
            py[:, 2] = c * np.maximum(s.b - k, 0.0)
            py[:, 3] = np.nan
            # the line a + s·x is the first part of the sum
            lx = [s.a, s.b, np.nan]
            ly = [fit.intercept + fit.slope * s.a, fit.intercept + fit.slope * s.b, np.nan]
            self.components_curve.setData(np.concatenate((lx, px.ravel())),
                                          np.concatenate((ly, py.ravel())))
            self.components_curve.setVisible(True)
        else:
            self.components_curve.setVisible(False)
        if s.show_residual:
            self.residual_curve.setData(self._x, fit.residual)
            if self._drag is None:
                self._range_residual()
        if self._drag is None:  # the boxes catch up when the drag ends
            self._show_parameters()
        self._update_readouts(hx, hy)
        if s.show_convergence and full:
            self._start_convergence()
        elif s.show_convergence and self._drag is None:
            self._mark_convergence_n()

    def _show_parameters(self) -> None:
        """The line and the selected slope change in their boxes: typed in Free mode,
        computed (and read-only) in the other two."""
        fit, sel = self._fit, self._state.selected
        with signals_blocked(self.intercept_spin, self.slope_spin, self.coefficient_spin):
            self.intercept_spin.setValue(fit.intercept)
            self.slope_spin.setValue(fit.slope)
            if sel is not None and sel < fit.coefficients.size and self._state.mode != "interpolation":
                self.coefficient_spin.setValue(float(fit.coefficients[sel]))

    def _set_ranges(self) -> None:
        s = self._state
        lo, hi = float(np.min(self._y_dense)), float(np.max(self._y_dense))
        pad = 0.12 * max(hi - lo, 1e-6)
        vb = self.plot.getPlotItem().getViewBox()
        vb.setRange(xRange=(s.a, s.b), yRange=(lo - pad, hi + pad), padding=0.02)
        vb.disableAutoRange()
        rvb = self.residual_plot.getPlotItem().getViewBox()
        rvb.setXRange(s.a, s.b, padding=0.02)
        rvb.disableAutoRange()
        self._range_dirty = False

    def _range_residual(self) -> None:
        """Fit the residual plot's y range to the residual, symmetric about 0. Not
        during a drag: a moving range would repaint the axes and grid on every move."""
        r = self._fit.residual
        top = float(np.max(np.abs(r))) if r.size else 1.0
        top = top * 1.1 if top > 0 else 1.0
        vb = self.residual_plot.getPlotItem().getViewBox()
        (lo, hi) = vb.viewRange()[1]
        if not (0.5 * hi < top <= hi) or abs(lo + hi) > 1e-9 * hi:
            vb.setYRange(-top, top, padding=0)

    def _update_readouts(self, hx, hy) -> None:
        s, fit = self._state, self._fit
        where = f"on {s.points} samples"
        self.rmse_label.set_value(float(fit.rmse), f"RMSE <b>{_fmt(fit.rmse)}</b>")
        self.max_label.set_value(float(fit.max_error),
                                 f"Largest error <b>{_fmt(fit.max_error)}</b> {where}")
        sel = s.selected
        if sel is not None and s.mode != "interpolation" and sel < fit.kinks.size:
            change = fit.slope_change(sel)
            self.selected_label.set_value(
                sel + 1, f"Hinge {sel + 1} of {fit.kinks.size}: kink {fit.kinks[sel]:.3f}, "
                f"slope change <b>{_signed(change)}</b>")
            self.slope_text.setText(f"Δslope {_signed(change)}")
            self.slope_text.setPos(float(hx[sel]), float(hy[sel]))
            self.slope_text.setVisible(True)
        else:
            self.selected_label.set_value(None, "No hinge selected (click one or press Tab on the "
                                          "plot)" if s.mode != "interpolation" else
                                          f"{s.interpolation_n} neurons, knots every "
                                          f"{(s.b - s.a) / s.interpolation_n:.4g}")
            self.slope_text.setVisible(False)
        if self._interp is not None:
            it = self._interp
            c = it.curvature
            shown = (f"Interpolation, n = {it.n}: largest error on [a, b] "
                     f"<b>{_fmt(it.max_error)}</b>")
            if it.bound is not None:
                shown += (f" ≤ bound (b − a)²M/(8n²) = <b>{_fmt(it.bound)}</b>, with M = max|f''| "
                          f"≈ {c.M:.4g} (an estimate from second differences)")
            else:
                shown += (". No bound: f'' is unbounded here (a corner or a jump), so "
                          "(b − a)²M/(8n²) does not apply.")
            self.bound_label.set_value(float(it.max_error), shown)
            self.bound_label.setVisible(True)
        else:
            self.bound_label.set_value(None, "")
            self.bound_label.setVisible(False)
        self._update_caveat()

    def _update_caveat(self) -> None:
        if self._jump is None:
            self.caveat_label.clear()
            self.caveat_label.setVisible(False)
            return
        size, where = self._jump
        text = (f"<b>Jump of {size:.3g} at x ≈ {round(where, 2) + 0.0:g}</b>: the largest error "
                f"does not go to zero (a continuous sum of hinges stays ≥ {size / 2:.3g} away "
                "near the jump, however many hinges; the theorem needs a continuous target), "
                "while the RMSE does.")
        rows = self._conv_rows
        if len(rows) >= 2:
            first, last = rows[0], rows[-1]
            text += (f" Least squares: n = {first.n} → RMSE {first.ls_rmse:.3f}, largest "
                     f"{first.ls_sup_error:.3f}; n = {last.n} → RMSE {last.ls_rmse:.3f}, "
                     f"largest {last.ls_sup_error:.3f}.")
        self.caveat_label.setText(text)
        self.caveat_label.setVisible(True)

    # -- convergence study (a generator on the worker, one row at a time) -----------------
    def _start_convergence(self) -> None:
        s = self._state
        key = (s.target, s.a, s.b, s.points)
        if key == self._conv_key:
            self._mark_convergence_n()
            return
        self._conv_key = key
        self._conv_rows = []
        for item in (self.conv_ls_rmse, self.conv_ls_max, self.conv_interp, self.conv_bound,
                     self.conv_guide):
            item.setData([], [])
        self._convergence.submit(convergence_job(self._target, s.a, s.b, s.points))
        self._mark_convergence_n()

    def _on_convergence_row(self, row) -> None:
        self._conv_rows.append(row)
        self._draw_convergence()

    def _on_convergence_done(self) -> None:
        self._draw_convergence()
        self.finished.emit("convergence")

    @property
    def convergence_done(self) -> bool:
        return not self._convergence.busy and bool(self._conv_rows)

    @property
    def convergence_rows(self) -> list:
        return list(self._conv_rows)

    def _draw_convergence(self) -> None:
        rows = self._conv_rows
        if not rows:
            return
        n = np.array([r.n for r in rows], dtype=float)
        self.conv_ls_rmse.setData(n, [r.ls_rmse for r in rows])
        self.conv_ls_max.setData(n, [r.ls_sup_error for r in rows])
        self.conv_interp.setData(n, [r.interp_max_error for r in rows])
        bn = [(r.n, r.bound) for r in rows if r.bound is not None]
        if bn:
            self.conv_bound.setData([b[0] for b in bn], [b[1] for b in bn])
        else:
            self.conv_bound.setData([], [])
        # the guide: slope −2 through the interpolation error at the middle n
        mid = rows[len(rows) // 2]
        e0 = mid.interp_max_error if mid.interp_max_error > 0 else mid.ls_rmse
        if e0 > 0 and len(rows) > 1:
            g = np.array([n[0], n[-1]])
            self.conv_guide.setData(g, e0 * 1.6 * (g / mid.n) ** -2.0)
        self.convergence_plot.getPlotItem().getViewBox().enableAutoRange()
        if not self._convergence.busy:
            slope = log_log_slope(n[n >= 6], [r.ls_rmse for r in rows if r.n >= 6])
            self.theme.set_title(
                self.convergence_plot,
                f"×2 hinges → error ÷4 · slope here {slope:.2f}".replace("-", "−"), 9)
            self._update_caveat()

    def _mark_convergence_n(self) -> None:
        s = self._state
        n = s.interpolation_n if s.mode == "interpolation" else max(1, len(s.kinks))
        if self.conv_now.value() != np.log10(n):
            self.conv_now.setValue(np.log10(n))

    # -- edits -------------------------------------------------------------------------
    def _kink_step(self) -> float:
        return (self._state.b - self._state.a) / 200.0

    def select_step(self, step: int) -> None:
        if self._state.mode == "interpolation":
            return
        self._state = self._state.select_next(step)
        self._sync_widgets()
        self._refresh()

    def select(self, i: int | None) -> None:
        if i is not None and not 0 <= i < len(self._state.kinks):
            raise IndexError(f"no hinge {i}")
        self._state = replace(self._state, selected=i)
        self._sync_widgets()
        self._refresh()

    def _leave_plot(self) -> None:
        """Esc: drop the selection and give the focus back to the controls (Tab is
        taken by hinge selection while the plot has the focus)."""
        if self._state.selected is not None:
            self.select(None)
        self.preset_box.setFocus(Qt.FocusReason.TabFocusReason)

    def delete_selected(self) -> None:
        s = self._state
        if s.mode == "interpolation" or s.selected is None:
            return
        if len(s.kinks) <= 1:
            self.show_status("At least one hinge stays.")
            return
        self.commit(s.remove_kink(s.selected), "Delete hinge")

    def add_hinge(self, x: float) -> None:
        s = self._state
        if s.mode == "interpolation":
            self.show_status("Interpolation places its own knots; change the count instead.")
            return
        if len(s.kinks) >= MAX_HINGES:
            self.show_status(f"At most {MAX_HINGES} hinges.")
            return
        self.commit(s.add_kink(x), "Add hinge")

    def nudge_kink(self, direction: int) -> None:
        s = self._state
        if s.mode == "interpolation" or s.selected is None:
            return
        k = s.kinks[s.selected] + direction * self._kink_step()
        self.commit(s.move_kink(s.selected, k), "Move kink", ("kink", s.selected))

    def nudge_coefficient(self, direction: int) -> None:
        s = self._state
        if s.selected is None or s.mode == "interpolation":
            return
        if s.mode != "free":
            self.show_status("Least squares sets the slopes; switch to Free to change them.")
            return
        c = s.coefficients[s.selected] + direction * 0.1
        self.commit(s.set_coefficient(s.selected, round(c, 10)), "Change slope",
                     ("slope", s.selected))

    def spread_evenly(self) -> None:
        s = self._state
        if s.mode == "interpolation":
            return
        self.commit(self._with_free_coefficients(s.spread_evenly(len(s.kinks) or 1)),
                     "Spread kinks evenly")

    def set_mode(self, mode: str) -> None:
        s = self._state
        if mode == s.mode:
            return
        new = replace(s, mode=mode)
        if mode == "free":
            # start from what is on screen, so switching does not change the picture
            f = self._fit
            if s.mode == "interpolation":
                new = new.with_kinks(f.kinks, f.coefficients, None)
            else:
                new = new.with_kinks(f.kinks, f.coefficients)
            new = new.with_line(round(f.intercept, 12), round(f.slope, 12))
        self.commit(new, f"{MODE_LABELS[mode]} mode")

    def set_count(self, n: int) -> None:
        s = self._state
        n = min(max(int(n), 1), MAX_HINGES)
        if s.mode == "interpolation":
            self.commit(replace(s, interpolation_n=n), "Number of neurons")
        else:
            self.commit(self._with_free_coefficients(s.spread_evenly(n)), "Number of hinges")

    def _with_free_coefficients(self, s: HingesState) -> HingesState:
        """In Free mode new kinks start from their least-squares slopes (a sensible
        shape to edit from) instead of a flat line."""
        if s.mode != "free":
            return s
        f = fit_hinges(self._x, self._y, s.kinks)
        return s.with_kinks(s.kinks, f.coefficients, None).with_line(f.intercept, f.slope)

    def set_target(self, text: str, a: float | None = None, b: float | None = None) -> bool:
        """Change the target (a preset name or an expression) and maybe the domain.
        On error the message goes next to the box, and nothing else changes."""
        s = self._state
        new = replace(s, target=text.strip(), a=s.a if a is None else float(a),
                      b=s.b if b is None else float(b))
        try:
            new = HingesState.from_dict(new.to_dict())  # what a scene file could hold
        except ValueError as e:
            self.expression_error.setText(str(e).removeprefix("target: "))
            self.expression_error.setVisible(True)
            self._sync_widgets()
            self.expression_edit.setText(text)
            return False
        self.expression_error.setText("")
        self.expression_error.setVisible(False)
        self.commit(new, "Change target")
        return True

    # -- control slots -------------------------------------------------------------------
    def _on_preset(self, index: int) -> None:
        name = self.preset_box.itemText(index)
        if name == CUSTOM:
            self.expression_edit.setFocus()
            self.expression_edit.selectAll()
            return
        p = PRESETS[name]
        self.set_target(name, p.a, p.b)

    def _on_expression(self) -> None:
        self.set_target(self.expression_edit.text())

    def _on_domain(self, _=None) -> None:
        a, b = self.a_spin.value(), self.b_spin.value()
        if not a < b:
            self.expression_error.setText(f"The domain [{a:g}, {b:g}] is empty: a must be below b.")
            self.expression_error.setVisible(True)
            return
        self.set_target(self._state.target, a, b)

    def _on_points(self, n: int) -> None:
        self.commit(replace(self._state, points=int(n)), "Sample points")

    def _on_mode(self, button) -> None:
        for mode, rb in self.mode_buttons.items():
            if rb is button:
                self.set_mode(mode)

    def _on_count(self, n: int) -> None:
        self.set_count(n)

    def _on_line(self, _=None) -> None:
        if self._state.mode == "free":
            self.commit(replace(self._state, intercept=self.intercept_spin.value(),
                                 slope=self.slope_spin.value()), "Change line")

    def _on_coefficient(self, value: float) -> None:
        s = self._state
        if s.mode == "free" and s.selected is not None:
            self.commit(s.set_coefficient(s.selected, value), "Change slope")

    def _set_view(self, **flags) -> None:
        # view toggles are not edits a learner regrets: no undo step
        self._state = replace(self._state, **flags)
        self._sync_widgets()
        self._refresh(full=True)

    # -- mouse -------------------------------------------------------------------------
    def _on_handle_clicked(self, i: int) -> None:
        self.plot.setFocus(Qt.FocusReason.MouseFocusReason)
        if self._state.mode != "interpolation":
            self.select(i)

    def _on_scene_clicked(self, ev) -> None:
        if not ev.double() or ev.button() != Qt.MouseButton.LeftButton:
            return
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = vb.mapSceneToView(ev.scenePos())
        self.add_hinge(p.x())

    def _on_drag_start(self, i: int, pos: QPointF) -> None:
        s = self._state
        self.plot.setFocus(Qt.FocusReason.MouseFocusReason)
        coefficient = s.coefficients[i] if s.mode == "free" else 0.0
        self._drag = (i, s, QPointF(pos), s.kinks[i], coefficient)
        self._state = replace(s, selected=i)
        self._sync_widgets()

    def _on_drag_move(self, i: int, pos: QPointF) -> None:
        if self._drag is None:
            return
        _, _before, press, k0, c0 = self._drag
        s = self._state.move_kink(i, k0 + (pos.x() - press.x()))
        if s.mode == "free":
            # up/down: the curve a lever length L right of the kink follows the mouse
            lever = (s.b - s.a) / 8.0
            s = s.set_coefficient(i, c0 + (pos.y() - press.y()) / lever)
        self._state = s
        self._refresh()

    def _on_drag_finish(self, i: int) -> None:
        if self._drag is None:
            return
        before = self._drag[1]
        self._drag = None
        after = self._state
        self._state = before
        self.commit(after, "Drag hinge")
        if after == before:
            self.apply_state(after)

    def _on_drag_cancel(self, i: int) -> None:
        if self._drag is None:
            return
        before = self._drag[1]
        self._drag = None
        self.apply_state(before)

    # -- panel hooks -------------------------------------------------------------------
    def receive(self, kind: str, payload) -> bool:
        if kind != "hinges" or not isinstance(payload, dict):
            return False
        s = self._state
        kinks = payload.get("kinks", [])
        try:
            if not isinstance(kinks, (list, tuple)) or not kinks:
                raise ValueError(f"between 1 and {MAX_HINGES} finite kinks are needed")
            # a neuron with a tiny input weight has its kink far away: kept, but clamped
            # to the range a scene holds (it stays outside the domain either way)
            kinks = [min(max(float(k), -COEFFICIENT_LIMIT), COEFFICIENT_LIMIT) for k in kinks]
            d = replace(s, mode="least squares", selected=None).to_dict()
            d.update(kinks=kinks, coefficients=[0.0] * len(kinks),
                     **{k: payload[k] for k in ("target", "a", "b") if k in payload})
            new = HingesState.from_dict(d)
        except (TypeError, ValueError) as e:
            self.show_status(f"Hinges: cannot show those kinks ({e}).")
            return False
        self.commit(new, "Kinks from training")
        return True

    def readouts(self) -> dict:
        """The readouts, and ``bound``: the interpolation's error bound (None outside
        Interpolation mode or where f'' is unbounded)."""
        values = super().readouts()
        it = self._interp
        values["bound"] = None if it is None or it.bound is None else float(it.bound)
        return values

    def handle_positions(self) -> list[tuple[float, float]]:
        """Where the handles are, in the main plot's data coordinates: handle i at
        (kᵢ, f̂(kᵢ)), its kink on the x axis and the sum of hinges there (for
        :func:`relulab.testing.drag`). In Interpolation mode they cannot be dragged."""
        fit = self._fit
        return [(float(k), float(y)) for k, y in zip(fit.kinks, fit.predict(fit.kinks))]
    def set_lecture_layout(self, on: bool) -> None:
        """In the lecture layout the residual and the convergence plot stand beside the
        main plot, one above the other: a projector's screen is wide and short."""
        super().set_lecture_layout(on)
        self.splitter.setOrientation(Qt.Orientation.Horizontal if on else Qt.Orientation.Vertical)
        self.bottom.setOrientation(Qt.Orientation.Vertical if on else Qt.Orientation.Horizontal)
        total = self.splitter.width() if on else self.splitter.height()
        self.splitter.setSizes([int(total * 0.6), int(total * 0.4)] if on else [480, 300])
        # the convergence plot carries its key below it: it gets the larger share
        self.bottom.setStretchFactor(0, 2 if on else 1)
        self.bottom.setStretchFactor(1, 3 if on else 1)
        self.bottom.setSizes([2000, 3000] if on else [1000, 1000])

    def plots(self) -> dict:
        return {"main": self.plot, "residual": self.residual_plot,
                "convergence": self.convergence_plot}

    def data_tables(self) -> dict:
        f = self._fit
        hinges = [["intercept a", "", f.intercept], ["slope s", "", f.slope]]
        hinges += [[f"hinge {i + 1}", float(k), float(c)]
                   for i, (k, c) in enumerate(zip(f.kinks, f.coefficients))]
        samples = [[float(x), float(y), float(y + r), float(r)]
                   for x, y, r in zip(self._x, self._y, f.residual)]
        conv = [[r.n, r.ls_rmse, r.ls_max_error, r.ls_sup_error, r.interp_max_error,
                 "" if r.bound is None else r.bound] for r in self._conv_rows]
        return {
            "hinges": (["term", "kink", "coefficient"], hinges),
            "samples": (["x", "target", "approximation", "residual"], samples),
            "convergence": (["n", "least squares RMSE", "least squares largest error (samples)",
                             "least squares largest error (fine grid)",
                             "interpolation largest error", "bound"], conv),
        }

    def animation_frames(self, max_frames: int = 120):
        """Least squares with 1, 2, … evenly spaced hinges, one count per frame."""
        saved = self._state
        try:
            base = replace(saved, mode="least squares", selected=None)
            for n in range(1, min(max_frames, MAX_HINGES, 48) + 1):
                self.apply_state(base.spread_evenly(n))
                yield n
        finally:
            self.apply_state(saved)

    def _fit_controls_width(self) -> None:
        fit_controls_width(self.controls, int(min(330 * self.theme.zoom, 470)))

    def apply_theme(self) -> None:
        th = self.theme
        self.expression_error.setStyleSheet(f"color: {th.color('error_text').name()};")
        self._fit_controls_width()
        # the new fonts reach the controls' size hints only after this event: fit then
        QTimer.singleShot(0, self._fit_controls_width)
        for pw, title in ((self.plot, None), (self.residual_plot, None),
                          (self.convergence_plot, None)):
            th.style_plot(pw, title)
        self.target_curve.setPen(th.pen("target", 4.0))
        self.approx_curve.setPen(th.pen("approx", 2.5, Qt.PenStyle.DashLine))
        self.components_curve.setPen(th.pen("muted", 1.0))
        self.residual_curve.setPen(th.pen("error", 1.0))  # 1 px: the fast raster path
        self.residual_zero.setPen(th.pen("muted", 1.0, Qt.PenStyle.DashLine))
        self._brush = pg.mkBrush(th.color("handle"))
        self._selected_brush = pg.mkBrush(th.color("selected"))
        self._handle_pen = th.pen("background", 1.5)
        self.slope_text.setColor(th.color("foreground"))
        self.slope_text.setFont(th.font(11, bold=True))
        for i, item in enumerate((self.conv_ls_rmse, self.conv_ls_max, self.conv_interp)):
            item.setPen(th.series_pen(i, 2.0))
            item.setSymbolBrush(pg.mkBrush(th.series_color(i)))
            item.setSymbolPen(th.series_pen(i, 1.0))
            item.setSymbolSize(th.point_size(7))
        self.conv_bound.setPen(th.pen("muted", 2.0, Qt.PenStyle.DashLine))
        self.conv_guide.setPen(th.pen("foreground", 1.5, Qt.PenStyle.DotLine))
        self.conv_now.setPen(th.pen("selected", 1.5))
        key = [(th.series_color(0), "●", "LS RMSE"),
               (th.series_color(1), "■", "LS largest error"),
               (th.series_color(2), "▼", "interpolation largest"),
               (th.color("muted"), "‒ ‒", "bound"),
               (th.color("foreground"), "···",
                "slope −2: doubling the hinges divides the error by four")]
        self.convergence_key.setFont(th.font(8.5))
        self.convergence_key.setToolTip("LS = least squares with evenly spaced kinks; "
                                        "bound = (b − a)²M/(8n²) for the interpolation")
        self.convergence_key.setText(key_html(key))
        if getattr(self, "_fit", None) is not None:
            self._refresh(full=True)

