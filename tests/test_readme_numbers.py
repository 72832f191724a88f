"""Every number the README quotes about the app's own results, against the model.

Each entry finds the number in the README's text (a pattern with one group per
number) and computes it: editing the README or changing the model without the other
fails here."""

import re
from pathlib import Path

import numpy as np
import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def quoted(pattern: str) -> tuple[str, ...]:
    match = re.search(pattern, README.replace("\n", " "))
    assert match, f"the README no longer says {pattern!r}"
    return match.groups()


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_hinges_opening_numbers():
    from relulab.model.fitting.hinges import fit_hinges
    from relulab.model.lessons.hinges import HingesState

    n, rmse = quoted(r"opens at (\d+) hinges, RMSE ([\d.]+)")
    s = HingesState()
    x = np.linspace(s.a, s.b, s.points)
    y = np.sin(2 * x) + 0.3 * x ** 2
    assert len(s.kinks) == int(n)
    assert f"{fit_hinges(x, y, np.array(s.kinks)).rmse:.4f}" == rmse


def test_training_ghost_best_and_stuck():
    from relulab.model.fitting.training import MAX_RESTARTS, HingeNetTrainer, fit_even_hinges
    from relulab.model.lessons.training import TrainingState

    (most,) = quoted(r"Up to (\d+) random restarts")
    assert int(most) == MAX_RESTARTS
    ghost, best, stuck = quoted(r"the ghost reaches ([\d.]+) while the best of six trained "
                                r"networks gets ([\d.]+) and one gets stuck at ([\d.]+)")
    s = TrainingState()
    assert s.restarts == 6
    x = np.linspace(s.a, s.b, s.points)
    y = np.sin(2 * x) + 0.3 * x ** 2
    assert f"{fit_even_hinges(x, y, s.hidden, s.a, s.b).rmse:.3f}" == ghost
    trainer = HingeNetTrainer(x, y, hidden=s.hidden, seeds=range(s.restarts), lr=s.lr,
                              optimizer=s.optimizer, init=s.init)
    rmse = np.sort(trainer.advance(s.steps).rmse)
    assert (f"{rmse[0]:.3f}", f"{rmse[-1]:.3f}") == (best, stuck)


def test_folding_depths_and_counts():
    from relulab.model.networks.exact import BeyondExact
    from relulab.model.pieces.folding import (
        MAX_DEPTH,
        exact_tent_depth,
        grid_piece_count,
        tent_pieces,
    )

    (pieces,) = quoted(r"([\d,]+) pieces at depth 24")
    assert MAX_DEPTH == 24 and _number(pieces) == 2 ** 24
    (grid, past) = quoted(r"notebook's (\d+)-point grid goes wrong past depth (\d+)")
    k = int(past)
    assert grid_piece_count(k, int(grid)) == 2 ** k
    assert grid_piece_count(k + 1, int(grid)) != 2 ** (k + 1)
    shallow, deep = quoted(r"counted in exact rationals to depth (\d+) or (\d+) \(by the peak\)")
    assert exact_tent_depth(0.4) == int(deep)  # the budget's bound
    assert tent_pieces(int(deep), 0.3).certified  # a peak whose deepest fits
    assert tent_pieces(int(shallow), 0.38).certified
    with pytest.raises(BeyondExact):  # slivers pass the budget one layer sooner
        tent_pieces(int(deep), 0.38)


def test_deep_to_shallow_limits():
    from relulab.model.shallow.construction import EXHAUSTIVE_KINKS, MAX_REGIONS, MAX_SECONDS

    (kinks,) = quoted(r"proven by exact subset sums up to (\d+) kinks")
    assert int(kinks) == EXHAUSTIVE_KINKS
    regions, seconds = quoted(r"Beyond ([\d,]+) regions or (\d+) s a conversion stops")
    assert (_number(regions), _number(seconds)) == (MAX_REGIONS, MAX_SECONDS)


def test_playground_limits():
    from relulab.model.lessons.playground import MAX_HIDDEN_LAYERS, MAX_POINTS, MAX_WIDTH

    layers, width, points = quoted(r"up to (\d+) hidden layers of (\d+) neurons on up to "
                                   r"([\d,]+) points")
    assert (int(layers), int(width), _number(points)) == (MAX_HIDDEN_LAYERS, MAX_WIDTH,
                                                           MAX_POINTS)


def test_parameter_count_of_the_lessons_network():
    from relulab.model.networks.mlp import MLP

    assert "net.n_params                                           # 177" in README
    assert MLP.random([2, 8, 8, 8, 1], seed=0).n_params == 177


# -- the gallery (docs/screenshots.md) ---------------------------------------------------
GALLERY = (Path(__file__).resolve().parents[1] / "docs" / "screenshots.md").read_text()


def in_gallery(pattern: str) -> tuple[str, ...]:
    match = re.search(pattern, GALLERY)
    assert match, f"docs/screenshots.md no longer says {pattern!r}"
    return match.groups()


def test_the_gallerys_numbers():
    """Each number a picture's caption quotes, from the model (the pictures are taken
    from the same states by packaging/screenshots.py)."""
    from relulab.model import circles_lesson_run, count_linear_regions, fit_hinges, linear_regions
    from relulab.model.fitting.classify import DEFAULT_BOX
    from relulab.model.fitting.hinges import evenly_spaced_kinks
    from relulab.model.lessons.converter import ConverterState
    from relulab.model.networks.mlp import MLP
    from relulab.model.pieces.folding import tent_counts_formula

    (regions,) = in_gallery(r"a random 2-8-8-1 network's (\d+) activation regions")
    s = ConverterState()
    assert s.architecture == (2, 8, 8, 1)
    assert len(linear_regions(MLP.random(list(s.architecture), seed=s.seed))) == int(regions)

    (depth, pieces) = in_gallery(r"the tent composed (\d+) times \((\d+) pieces, exact\)")
    assert tent_counts_formula(int(depth))[0] == int(pieces)
    (folds, pieces) = in_gallery(r"Why depth helps: (\w+) folds, (\d+) pieces")
    assert tent_counts_formula({"three": 3}[folds])[0] == int(pieces)
    (folds, pieces, neurons) = in_gallery(r"The sawtooth: (\w+) folds, (\d+) pieces from (\d+) "
                                          r"neurons")
    k = {"six": 6}[folds]
    assert (tent_counts_formula(k)[0], 2 * k) == (int(pieces), int(neurons))

    n, rmse = in_gallery(r"(\d+) hinges, RMSE ([\d.]+)")
    x = np.linspace(-3, 3, 400)
    y = np.sin(2 * x) + 0.3 * x ** 2
    assert f"{fit_hinges(x, y, evenly_spaced_kinks(-3, 3, int(n))).rmse:.4f}" == rmse

    (in_view,) = in_gallery(r"the lesson's 2-6-1 circles network after 2000 steps, (\d+) "
                            r"regions in view")
    assert count_linear_regions(circles_lesson_run(0, 6).net, box=DEFAULT_BOX) == int(in_view)
