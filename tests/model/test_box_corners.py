"""Box polygons whose corners the doubles cannot place: two almost parallel lines
meeting inside the box (w = −1.07e-18 exactly, 0 in floats) used to raise
ZeroDivisionError in the compiled readout; the corner is now computed exactly."""

from fractions import Fraction

import numpy as np
import pytest

from relulab.model import MLP, count_linear_regions, region_polygons

W1 = np.array([[0.11157118963686205, 0.22890197569395934],
               [0.2311487125355096, 0.12288565274636912],
               [-0.15409914169033972, -0.08192376849757942]])
B1 = np.array([7.735485250816465, 5.937002604911933, -3.9580017366079554])
W2 = np.array([[0.5849880895843813, 0.5011703068960063, 1.2817785597263975]])
B2 = np.array([-0.6692434286124926])
BOX = (-49.13429735497908, 28.29692342758962, -67.4312207825687, 10.0)


def _exact_corner(a, b):
    a, b = [Fraction(v) for v in a], [Fraction(v) for v in b]
    w = a[0] * b[1] - a[1] * b[0]
    return (float((a[1] * b[2] - a[2] * b[1]) / w), float((a[2] * b[0] - a[0] * b[2]) / w))


def _area(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def test_almost_parallel_lines_meeting_in_the_box_give_the_exact_corner():
    net = MLP([(W1, B1), (W2, B2)])
    polys = region_polygons(net, BOX)
    assert len(polys) == count_linear_regions(net, BOX) == 7
    corners = np.vstack([np.asarray(p.vertices) for p in polys])
    assert np.isfinite(corners).all()
    x, y = _exact_corner([*W1[1], B1[1]], [*W1[2], B1[2]])
    assert BOX[0] < x < BOX[1] and BOX[2] < y < BOX[3]
    assert any(cx == x and cy == y for cx, cy in corners)
    box_area = (BOX[1] - BOX[0]) * (BOX[3] - BOX[2])
    assert sum(_area(np.asarray(p.vertices)) for p in polys) == pytest.approx(box_area, rel=1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_near_parallel_pairs_have_finite_corners_tiling_the_box(seed):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=2)
    k = -rng.uniform(0.5, 2.0)
    # a second neuron parallel to the first up to rounding: the exact lines still meet
    W = np.array([w, w * k, rng.normal(size=2)])
    b = np.array([rng.normal(), rng.normal() * 3, rng.normal()])
    net = MLP([(W, b), (rng.normal(size=(1, 3)), rng.normal(size=1))])
    box = (-50.0, 50.0, -50.0, 50.0)
    polys = region_polygons(net, box)
    corners = np.vstack([np.asarray(p.vertices) for p in polys])
    assert np.isfinite(corners).all()
    assert sum(_area(np.asarray(p.vertices)) for p in polys) == pytest.approx(1e4, rel=1e-9)
