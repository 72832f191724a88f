"""The Folding guide: every number it quotes about the app's results is parsed out of
its text and checked against what the model computes for that setting, and its
numbers are written as the app writes them (16,777,216)."""

from __future__ import annotations

import re

import numpy as np

from relulab.model.pieces.folding import (
    fold_counts,
    grid_piece_count,
    tent_counts_formula,
    tent_network,
    tent_pieces,
    tent_slivers,
)
from relulab.model.pieces.piecewise import piecewise_linear
from relulab.ui.help import guide_markdown
from relulab.ui.panels.folding.plots import DENSE_PIXELS

SPACED = re.compile(r"\d[ \u2009\u202f\xa0]\d{3}(?!\d)")


def test_the_guide_writes_thousands_with_a_comma():
    guide = guide_markdown("folding")
    assert not SPACED.findall(guide) and "16,777,216" in guide


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _quoted(pattern: str, text: str) -> tuple[str, ...]:
    found = re.search(pattern, " ".join(text.split()))
    assert found, f"the guide no longer says: {pattern}"
    return found.groups()


def test_the_guides_numbers_are_the_models():
    guide = guide_markdown("folding")
    depth, pieces, neurons, shallow = _quoted(
        r"depth slider to (\d+): ([\d,]+) pieces from (\d+) neurons; one layer would need "
        r"([\d,]+)", guide)
    k = int(depth)
    counted = piecewise_linear(tent_network(k)).restrict(0.0, 1.0).n_pieces
    assert (_number(pieces), int(neurons), _number(shallow)) == (counted, 2 * k, counted - 1)
    for pieces, depth in re.findall(r"([\d,]+)\*{0,2} at depth (\d+)", guide):
        k = int(depth)
        # depth 24 (16.7 million pieces, seconds) is counted exactly in the model's tests
        # to depth 20 and by the panel's test at 24: here the formula the model states
        want = (piecewise_linear(tent_network(k)).restrict(0.0, 1.0).n_pieces if k <= 12
                else tent_counts_formula(k)[0])
        assert _number(pieces) == want == 2 ** k, (pieces, depth)
    grid, past = _quoted(r"a (\d+)-point grid goes wrong past depth (\d+)", guide)
    k = int(past)
    assert grid_piece_count(k, int(grid)) == 2 ** k
    assert grid_piece_count(k + 1, int(grid)) != 2 ** (k + 1)
    pixels, depth, width = _quoted(
        r"narrower than (\d+) pixels \(depth (\d+) on a plot (\d+) pixels wide\)", guide)
    k, w = int(depth), int(width)
    assert float(pixels) == DENSE_PIXELS
    assert w / 2 ** k < DENSE_PIXELS <= w / 2 ** (k - 1)  # the band from depth k on
    peak, depth, total, ideal, n, widest = _quoted(
        r"At peak ([\d.]+), depth (\d+) has (\d+) pieces: the ideal tent's (\d+) and (\d+) "
        r"slivers narrower than ([\d.]+e-\d+)", guide)
    p, k = float(peak), int(depth)
    pl = tent_pieces(k, p)
    slivers = tent_slivers(pl, k, p)
    counted = fold_counts(pl, k, 2, tent_network(k, p)).pieces_unit
    assert int(total) == counted == int(ideal) + int(n)
    assert int(ideal) == 2 ** k and int(n) == slivers.count
    assert slivers.widest < float(widest)
    assert np.isclose(float(widest), slivers.widest, rtol=0.1)
