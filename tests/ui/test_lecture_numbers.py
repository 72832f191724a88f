"""Every number the built-in lecture's captions, the Hinges guide and the welcome
quote comes from the model.

Seen: scene 7's caption said 17 neurons get below 0.05 and 24 give bound 0.026 /
error 0.025, while the readout under it showed 0.0702 ≤ 0.0716 at 17 (0.0358 ≤ 0.0359
at 24), and the guide repeated the wrong numbers; the welcome spoke of nine scenes
when there are ten.

Each text is read as a whole: every number written in it (digits, "0.0702", "−1") is
either checked here against what the panel shows for that scene or what the model
computes, or part of a formula checked here; a number added to a caption, a guide or
the welcome without a check here fails, and so does one the model no longer gives.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from relulab.io.scenes import builtin_lecture_path, read_playlist
from relulab.model.data.targets import target_from_text
from relulab.model.fitting.hinges import (
    convergence_study,
    estimate_curvature,
    evenly_spaced_kinks,
    fit_hinges,
    interpolate_hinges,
    log_log_slope,
)
from relulab.ui.help import guide_markdown
from relulab.ui.panels import PANEL_NAMES

#: A number as the texts write it: "3", "0.0702", "−1" (a true minus sign).
NUMBER = re.compile(r"−?\d{1,3}(?:,\d{3})+(?:\.\d+)?|−?\d+(?:\.\d+)?")
CURVE = "sin(2x) + 0.3x²"


class Claims:
    """The numbers of ``text`` checked one by one; ``done`` fails on any left over."""

    def __init__(self, where: str, text: str):
        self.where, self.text, self.rest, self.checked = where, text, text, set()

    def number(self, shown: str, value: float) -> None:
        """``shown`` (as written) is in the text and is ``value`` to its last digit."""
        assert re.search(rf"(?<![\d.]){re.escape(shown)}(?!\d|\.\d)", self.text), (self.where, shown)
        decimals = len(shown.partition(".")[2])
        written = float(shown.replace("−", "-").replace(",", ""))
        assert abs(value - written) <= 0.5 * 10.0 ** -decimals + 1e-12, (self.where, shown, value)
        self.checked.add(shown)

    def formula(self, shown: str, holds: bool) -> None:
        """``shown`` is in the text and what it says ``holds``; its digits are checked."""
        assert shown in self.text, (self.where, shown)
        assert holds, (self.where, shown)
        self.rest = self.rest.replace(shown, " ")

    def done(self) -> None:
        left = [n for n in NUMBER.findall(self.rest) if n not in self.checked]
        assert not left, f"{self.where}: numbers not checked against the model: {left}"


# -- the model's numbers ---------------------------------------------------------------
X = np.linspace(-3.0, 3.0, 400)
CURVE_F = target_from_text(CURVE, -3.0, 3.0)


def least_squares_rmse(n: int) -> float:
    return fit_hinges(X, CURVE_F(X), evenly_spaced_kinks(-3.0, 3.0, n)).rmse


def interpolation(n: int):
    return interpolate_hinges(CURVE_F, -3.0, 3.0, n, estimate_curvature(CURVE_F, -3.0, 3.0))


def tent_holds(k: int) -> bool:
    """2ᵏ pieces on [0, 1] from 2k neurons, counted exactly on the model's tent network."""
    from relulab.model.pieces.folding import tent_network, tent_pieces

    neurons = sum(W.shape[0] for W, _ in tent_network(k).layers[:-1])
    return tent_pieces(k).restrict(0.0, 1.0).n_pieces == 2 ** k and neurons == 2 * k


# -- the lecture -------------------------------------------------------------------------
def _hinges_scene(c: Claims, panel, scene_index: int) -> None:
    s = panel.state
    if CURVE in c.text:
        c.formula(CURVE, s.target == CURVE)
    readouts = panel.readouts()
    if scene_index == 0:
        c.number("−1", s.kinks[0])
        c.number("0.75", s.coefficients[0])
        c.formula("c·ReLU(x − b)", s.mode == "free" and len(s.kinks) == 1)
    elif scene_index == 1:
        c.formula("[−3, 3]", (s.a, s.b) == (-3.0, 3.0))
        c.number("3", len(s.kinks))
        c.number("0.52", readouts["rmse"])
    elif scene_index == 2:
        rows = {r.n: r.ls_rmse for r in panel.convergence_rows}
        for shown, n in (("0.52", 3), ("0.10", 6), ("0.025", 12), ("0.0065", 24)):
            c.number(str(n), n)
            c.number(shown, rows[n])
        c.number("0.0065", readouts["rmse"])
        c.number("24", len(s.kinks))
    elif scene_index == 6:
        c.formula("(b − a)²M/(8n²)", "(b − a)²M/(8n²)" in panel.bound_label.text())
        c.number("17", s.interpolation_n)
        c.number("0.0702", readouts["interpolation_error"])
        c.number("0.0716", readouts["bound"])
        errors = {n: interpolation(n).max_error for n in range(17, 25)}
        first = min(n for n in errors if all(errors[m] < 0.05 for m in range(n, 25)))
        c.number("0.05", 0.05)
        c.number("21", first)
        c.number("24", 24)
        c.number("0.0358", errors[24])
        c.number("0.0359", interpolation(24).bound)


def _training_scene(c: Claims, panel, _i) -> None:
    from relulab.model.lessons.training import TrainingState

    state = TrainingState.from_dict(panel.state_dict())
    c.number("12", state.hidden)
    trainer = state.trainer()
    trainer.run(state.steps)
    rmse = np.sort(trainer.snapshot().rmse)
    assert state.restarts == 6 and "six random starts" in c.text
    c.number("0.033", rmse[0])
    c.number("0.051", rmse[4])
    c.number("0.16", rmse[5])
    c.number("0.025", panel.readouts()["even_kinks_rmse"])


def _folding_scene(c: Claims, panel, i) -> None:
    from relulab.model.pieces.folding import Fold

    r = panel.readouts()
    if i == 4:
        tent = Fold.tent(0.5)
        c.formula("t(x) = 2·ReLU(x) − 4·ReLU(x − ½)", tent.a == (2.0, -4.0) and tent.b == (0.0, -0.5))
        c.formula("[0, 1]", tent(np.array([0.0, 1.0])).tolist() == [0.0, 0.0])
        c.number("1", float(tent(np.array([0.5]))[0]))
        c.number("8", r["pieces"])
        assert r["depth"] == 3 and "three layers" in c.text
        c.formula("8 layers (16 neurons) give 256 pieces", tent_holds(8))
        c.number("255", 2 ** 8 - 1)
        assert r["shallow_neurons"] == r["pieces"] - 1  # a shallow network: pieces − 1
    else:
        c.formula("2ᵏ straight pieces from only 2k neurons", all(tent_holds(k) for k in range(1, 9)))
        c.formula("m + 1 pieces", r["pieces"] == r["shallow_neurons"] + 1)
        c.formula("2ᵏ − 1 neurons", r["shallow_neurons"] == 2 ** r["depth"] - 1)


def _playground_scene(c: Claims, panel, i) -> None:
    state = panel.state_dict()
    if i == 5:
        from relulab.model.networks.collapse import LESSON_W1, LESSON_W2, lesson_network

        c.formula("W₁ = [[1, 2], [3, −1]]", LESSON_W1.tolist() == [[1, 2], [3, -1]])
        c.formula("W₂ = [2, 1]", LESSON_W2.tolist() == [[2, 1]])
        c.formula("[5, 3]", (LESSON_W2 @ LESSON_W1).tolist() == [[5, 3]]
                  and "z = 5·x₁ + 3·x₂" in panel.readouts()["collapse"])
        point = np.array([[0.0, 1.0]])
        relu, identity = (float(lesson_network(a)(point)[0, 0]) for a in ("relu", "identity"))
        c.formula("(0, 1) gives 4 instead of 3", (relu, identity) == (4.0, 3.0))
    else:
        layers = state["network"]["layers"]
        sizes = [len(layers[0]["weights"][0])] + [len(layer["weights"]) for layer in layers]
        c.formula("2-6-1", sizes == [2, 6, 1])
        c.number("2000", panel.readouts()["step"])
        c.number("0.5", state["training"]["learning_rate"])
        c.number("1.0", panel.readouts()["train_accuracy"])
        c.number("180", len(state["points"]["x"]))


def _converter_scene(c: Claims, panel, _i) -> None:
    r = panel.readouts()
    widths = [int(v) for v in r["slice_title"].split(":")[0].split("-")]
    c.number("64", widths[0])
    c.formula("8×8", widths[0] == 8 * 8)
    c.number("10", widths[-1])
    c.formula("a 0, a 1 and a 7", "rows 0, 1, 7" in r["summary"])


def _questions_scene(c: Claims, panel, i) -> None:
    page = panel.state.page
    if page != "double-descent":
        PART_2[page](c, panel)
        return
    s = panel.state.double_descent
    r = panel.readouts()
    c.formula("H = n", r["dd_median_at_n"] is not None)
    c.number(str(s.d), s.d)
    c.number("10", r["dd_seeds"])
    c.number(str(r["dd_wins"]), r["dd_wins"])
    if s.d == 20:
        c.formula("H = ∞", r["dd_kernel"] is not None)
        c.number("100", s.n)
        c.number("0.5", s.noise)
        c.formula("ten seeds", s.seeds == 10)
        c.number(f"{r['dd_widest']:,}", r["dd_widest"])
        c.number("57", r["dd_median_at_n"])
        c.number("0.20", r["dd_median_widest"])
        c.number("0.45", r["dd_best_small"])
        c.number("0.19", r["dd_kernel"])
        c.formula("ten draws", len(panel.result().lottery.test_mse) == 10)
        c.number("410", r["dd_lottery_spread"])
    else:
        c.number("30", r["dd_median_widest"])
        c.number("0.046", r["dd_best_small"])
        c.formula("one or two dimensions", r["dd_regime"] == "catastrophic")


# -- the Questions panel's part-2 pages: each caption against the page's own run -----------
def _words(c: Claims, shown: str, count: int) -> None:
    """``shown`` ("five seeds") is in the text and its number word is ``count``."""
    c.formula(shown, NUMBER_WORDS[shown.split()[0]] == count)


def _parity_scene(c: Claims, panel) -> None:
    from relulab.ui.panels.questions.jobs.parity import FULL_BITS

    s, r, race = panel.state.parity, panel.readouts(), panel.result().race
    c.formula("±1 bits", "random ±1 bits" in panel.views["parity"].details.text())
    c.number("30", r["parity_bits"])
    c.number("3", s.k)
    c.formula("30-256-1", (r["parity_bits"], race.hidden) == (30, 256))
    c.number("95", 100 * race.target)
    c.number("30", r["parity_median_majority"])
    c.number("970", r["parity_median_parity"])
    _words(c, "five seeds", r["parity_seeds"])
    c.formula("slower in each of", r["parity_parity_slower"] == r["parity_seeds"])
    # the plateau: the first evaluation at or above 60%, the earliest over the seeds
    steps = np.asarray(race.checkpoints)
    assert r["parity_parity_reached"] == r["parity_seeds"]
    first = min(int(steps[np.argmax(row >= 0.6)]) for row in np.nan_to_num(race.parity_accuracy))
    c.number("60", 60)
    c.number("470", first)
    c.formula("Barak et al. show, SGD makes hidden progress; this page measures the accuracy only",
              "hidden progress" in r["parity_verdict"] + panel.views["parity"].details.text())
    c.number("10", FULL_BITS)
    c.formula("1-nearest-neighbour", True)
    c.number("0", 100 * r["parity_nearest"])
    c.number("96", 100 * r["parity_mlp"])


def _simplex_scene(c: Claims, panel) -> None:
    from relulab.ui.panels.questions.jobs.simplex import maps

    s, r = panel.state.simplex, panel.readouts()
    m = maps(s.logits)
    c.formula("z = (1, 0.5, −1)", s.logits == (1.0, 0.5, -1.0))
    c.formula("(0.75, 0.25, 0)", m["sparsemax"] == [0.75, 0.25, 0.0])
    c.formula("(0.57, 0.35, 0.08)", [round(p, 2) for p in m["softmax"]] == [0.57, 0.35, 0.08])
    c.formula("can give a class exactly 0", m["zeros"] == 1)
    c.formula("the true class 0", r["simplex_zero_sparsemax"] > 0)
    c.number("0.863", r["simplex_accuracy_softmax"])
    c.number("0.865", r["simplex_accuracy_sparsemax"])
    c.number("2.3", 100 * r["simplex_zero_sparsemax"])
    c.formula("its log-loss is infinite", r["simplex_log_loss_sparsemax"] == float("inf"))
    c.formula("softmax's weights keep growing; sparsemax's stop",
              r["simplex_growth_softmax"] > 0 and r["simplex_verdict"] == "sparsemax settles")


def _why_deep_scene(c: Claims, panel) -> None:
    from fractions import Fraction

    from relulab.ui.panels.questions.jobs.why_deep import square

    s, r = panel.state.why_deep, panel.readouts()
    c.formula("x1·x2", True)  # the feature's name
    c.number("0.989", r["deep_feature_xor"])
    c.number("0.590", r["deep_feature_circles"])
    c.number("0.507", r["deep_feature_spirals"])
    c.formula("but not the Playground's other datasets", r["deep_feature_fails"] == 3)
    c.formula("2-16-16-1", "2-16-16-1" in panel.views["why-deep"].verdict.text())
    c.number("0.970", r["deep_net_lowest"])
    c.formula("on all four", r["deep_net_solves"] == r["deep_datasets"] == 4)
    _words(c, "five seeds", r["deep_seeds"])
    c.formula("x·y = ((x + y)² − x² − y²)/2", True)  # an identity
    c.formula("m layers of 3 ReLUs", all(square(m).neurons == 3 * m for m in range(7)))
    c.formula("within 4⁻⁽ᵐ⁺¹⁾", all(square(m).error == Fraction(1, 4 ** (m + 1))
                                    for m in range(7)))
    c.formula("[0, 1]", True)  # where deep_square's exact error is measured
    c.number("3", s.m)
    c.formula("exactly 1/256", square(s.m).error == Fraction(1, 256))


def _gelu_scene(c: Claims, panel) -> None:
    from relulab.ui.panels.questions.jobs.gelu import twin

    s, r = panel.state.gelu, panel.readouts()
    t = twin(s.scale)
    c.formula("0.17/a·Σ|w|", "0.17/a·Σ|w|" in panel.page_controls["gelu"].twin.text())
    c.number("3", s.scale)
    c.number("0.14", t.gap)
    c.number("0.26", t.bound)
    c.formula("1-16-1", r["gelu_width"] == 16)
    c.number("83", r["gelu_relu_smooth"] / r["gelu_gelu_smooth"])
    c.number("79", r["gelu_gelu_kink"] / r["gelu_relu_kink"])
    c.number("5", r["gelu_seeds"])
    c.formula("smaller in 5 of 5", r["gelu_gelu_wins_smooth"] == r["gelu_seeds"])
    c.formula("in 5 of 5", r["gelu_relu_wins_kink"] == r["gelu_seeds"])


def _targets_scene(c: Claims, panel) -> None:
    from relulab.model.questions.targets import lookalike_blobs
    from relulab.ui.panels.questions.jobs.targets import STUDENT_POINTS

    r = panel.readouts()
    X, y = lookalike_blobs([0, 0], 100)
    centres = np.array([X[y == k].mean(axis=0) for k in range(4)])
    gaps = {(a, b): np.linalg.norm(centres[a] - centres[b]) for a in range(4) for b in range(a)}
    c.formula("classes 1 and 2 close together", min(gaps, key=gaps.get) == (1, 0))
    c.formula("class 1 a probability", True)  # class 1's look-alike is class 2, above
    c.number("0.15", r["targets_lookalike"])
    c.number("2", 2)
    c.number("0.00074", r["targets_others"])
    _words(c, "five seeds", r["targets_seeds"])
    c.number("2", STUDENT_POINTS)
    c.formula("in all five seeds", r["targets_helped"] == r["targets_seeds"] == 5)
    c.number("3.0", 100 * r["targets_gain"])


PART_2 = {"parity": _parity_scene, "simplex": _simplex_scene, "why-deep": _why_deep_scene,
          "gelu": _gelu_scene, "targets": _targets_scene}


CHECKS = {"hinges": _hinges_scene, "training": _training_scene, "folding": _folding_scene,
          "playground": _playground_scene, "converter": _converter_scene,
          "questions": _questions_scene}


def test_every_number_in_every_caption_is_what_the_scene_shows(main_window):
    w = main_window
    assert w.lecture.start_builtin(), w.session.last_error
    for i, scene in enumerate(w.lecture.playlist.scenes):
        w.lecture.go(i)
        panel = w.current_panel()
        panel.wait_until_idle(60)
        if panel.name == "hinges" and panel.state.show_convergence:
            from pytestqt.qtbot import QtBot

            QtBot(w).waitUntil(lambda p=panel: p.convergence_done, timeout=30000)
        QApplication.processEvents()
        assert w.lecture.bar.caption.text() == scene.caption
        claims = Claims(f"scene {i + 1}", scene.caption)
        CHECKS[panel.name](claims, panel, i)
        claims.done()
    w.lecture.end()


def test_the_lecture_script_writes_the_captions_the_scenes_hold():
    """build_lecture.py makes the scene files: its captions are the shipped ones."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "resources" / "lectures" / "build_lecture.py"
    spec = importlib.util.spec_from_file_location("build_lecture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shipped = {s.title: s.caption for s in read_playlist(builtin_lecture_path(), PANEL_NAMES).scenes}
    for _stem, title, _current, _setups, caption in module.SCENES:
        assert shipped[title] == caption, title


# -- the Hinges guide and the welcome ----------------------------------------------------------
def _strip_list_markers(text: str) -> str:
    return re.sub(r"^\d\. ", "", text, flags=re.M)


def test_every_number_in_the_hinges_guide_comes_from_the_model():
    text = guide_markdown("hinges")
    c = Claims("hinges guide", _strip_list_markers(text))
    c.formula("(b − a)²M/(8n²)", True)  # the bound's formula: checked against the panel above
    c.formula(CURVE, True)
    c.formula("[−3, 3]", True)
    c.formula("ReLU(x − k) is 0 left of k", float(np.maximum(-1.0, 0.0)) == 0.0)
    for shown, n in (("0.5228", 3), ("0.1022", 6), ("0.0254", 12), ("0.0065", 24)):
        c.number(str(n), n)
        c.number(shown, least_squares_rmse(n))
    six = fit_hinges(X, CURVE_F(X), evenly_spaced_kinks(-3.0, 3.0, 6))
    c.number("0.2371", six.max_error)
    rows = list(convergence_study(CURVE_F, -3.0, 3.0))
    c.number("−2", log_log_slope([r.n for r in rows if r.n >= 6],
                                 [r.ls_rmse for r in rows if r.n >= 6]))
    errors = {n: interpolation(n).max_error for n in range(17, 25)}
    c.number("0.05", 0.05)
    c.number("21", min(n for n in errors if all(errors[m] < 0.05 for m in range(n, 25))))
    c.number("0.0358", errors[24])
    c.number("0.0359", interpolation(24).bound)
    c.done()


NUMBER_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
     "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"])}


def test_every_number_in_the_welcome_comes_from_the_app(main_window):
    from PySide6.QtGui import QAction, QKeySequence

    text = guide_markdown("welcome")
    c = Claims("welcome", _strip_list_markers(text))
    scenes = len(read_playlist(builtin_lecture_path(), PANEL_NAMES).scenes)
    [count] = re.findall(r"in (\w+)\s+scenes", text)
    assert NUMBER_WORDS[count] == scenes, f"the welcome says {count} scenes, the lecture has {scenes}"
    keys = {QKeySequence(k).toString() for a in main_window.findChildren(QAction)
            for k in a.shortcuts()}
    for key in sorted(set(re.findall(r"Ctrl\+F?\d+|\bF1\b", text))):
        c.formula(key, key in keys)
    c.formula("2ᵏ pieces from 2k neurons", all(tent_holds(k) for k in range(1, 9)))
    c.number("12", 12)
    c.number("6", 6)
    c.number("0.1022", least_squares_rmse(6))
    c.number("0.0254", least_squares_rmse(12))
    c.done()


@pytest.mark.parametrize("name", ["hinges", "welcome"])
def test_the_words_about_colours_hold_in_every_theme(name):
    """The target is black in the light theme and white in the dark ones: the texts
    name curves by their line, not their colour."""
    text = guide_markdown(name).lower()
    for colour in ("black", "white", "blue", "orange", "yellow"):
        assert f"{colour} curve" not in text and f"{colour} handle" not in text, colour
