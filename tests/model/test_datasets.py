"""Datasets: the lesson's circles exactly, the other sets reproducible, CSV validated."""

import numpy as np
import pytest

from relulab.model.data.datasets import (
    CLASSIFICATION_DATASETS,
    DATASETS,
    circles,
    make_dataset,
    points_from_csv,
    points_to_csv,
    test_mask,
    train_test_split,
)


def lesson_circles(seed):
    """The lesson's own lines, verbatim."""
    rng = np.random.default_rng(seed)
    n = 90
    a0, r0 = rng.uniform(0, 2 * np.pi, n), np.sqrt(rng.uniform(0, 1, n)) * 1.15
    a1, r1 = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.95, 2.8, n)
    X = np.vstack([np.c_[r0 * np.cos(a0), r0 * np.sin(a0)], np.c_[r1 * np.cos(a1), r1 * np.sin(a1)]])
    X = (X + 0.12 * rng.normal(size=X.shape)) / 3
    y = np.r_[np.zeros(n), np.ones(n)]
    return X, y, rng.normal()


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_circles_are_exactly_the_lessons(seed):
    X, y, next_draw = lesson_circles(seed)
    rng = np.random.default_rng(seed)
    X2, y2 = circles(rng)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    assert rng.normal() == next_draw  # the generator is left where the lesson leaves it
    X3, _ = circles(seed)
    assert np.array_equal(X, X3)


def test_circles_geometry():
    X, y = circles(0, noise=0.0)
    r = np.hypot(*X.T) * 3
    assert r[y == 0].max() <= 1.15 and r[y == 1].min() >= 1.95 and r[y == 1].max() <= 2.8


@pytest.mark.parametrize("name", CLASSIFICATION_DATASETS)
def test_every_dataset_is_reproducible_and_balanced(name):
    X, y = make_dataset(name, seed=3)
    X2, y2 = make_dataset(name, seed=3)
    X3, _ = make_dataset(name, seed=4)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    assert not np.array_equal(X, X3) or name == "xor_corners"  # four fixed points without noise
    assert X.shape == (len(y), 2) and set(np.unique(y)) == {0.0, 1.0}
    assert (y == 0).sum() == (y == 1).sum()
    assert np.all(np.abs(X) < 1.6)


def test_labels_follow_their_rule_without_noise():
    X, y = make_dataset("xor", 0, noise=0.0)
    assert np.array_equal(y, (X[:, 0] * X[:, 1] < 0).astype(float))
    X, y = make_dataset("checkerboard", 0, noise=0.0)
    ij = np.floor((X + 1) * 2).astype(int)
    assert np.array_equal(y, ((ij[:, 0] + ij[:, 1]) % 2).astype(float))
    X, y = make_dataset("spirals", 0, noise=0.0)
    assert np.all(np.hypot(*X.T) <= 0.95 + 1e-12)


def test_noise_moves_points():
    X0, _ = make_dataset("gaussians", 0, noise=0.0)
    X1, _ = make_dataset("gaussians", 0, noise=0.5)
    assert X1.std() > X0.std()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="unknown dataset"):
        make_dataset("moons")
    with pytest.raises(ValueError, match="noise"):
        make_dataset("xor", noise=-1)
    with pytest.raises(ValueError, match="points per class"):
        make_dataset("xor", n_per_class=0)


def test_split_is_reproducible_and_sized():
    X, y = circles(0)
    _Xtr, ytr, _Xte, yte = train_test_split(X, y, 0.25, seed=2)
    assert len(yte) == 45 and len(ytr) == 135
    assert np.array_equal(test_mask(180, 0.25, 2), test_mask(180, 0.25, 2))
    with pytest.raises(ValueError, match="test fraction"):
        test_mask(10, 1.0)


def test_csv_without_header_or_set_column():
    X, y, t = points_from_csv("0.5,0.25,1\n-1,2,0\n")
    assert X.tolist() == [[0.5, 0.25], [-1.0, 2.0]] and y.tolist() == [1.0, 0.0] and not t.any()


@pytest.mark.parametrize(("text", "message"), [
    ("x1,x2,label\n0,0\n", "line 2: expected x1, x2, label"),
    ("0,0,6\n", "line 1: label must be a class from 0 to 5, got .6."),
    ("0,0,1.5\n", "line 1: label must be a class from 0 to 5"),
    ("0,abc,1\n", "line 1: coordinates must be numbers"),
    ("0,nan,1\n", "line 1: coordinates must be finite"),
    ("0,0,1,validation\n", "set must be 'train' or 'test'"),
    ("x1,x2,label\n", "no points"),
    ("", "no points"),
])
def test_csv_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        points_from_csv(text)


def test_to_csv_text():
    text = points_to_csv([[1, 2]], [1], [True])
    assert text.splitlines() == ["x1,x2,label,set", "1.0,2.0,1,test"]


@pytest.mark.parametrize("name", ["circles", "spirals", "gaussians", "checkerboard"])
@pytest.mark.parametrize("k", [3, 6])
def test_datasets_in_k_classes(name, k):
    X, y = make_dataset(name, seed=2, classes=k)
    n = DATASETS[name].n_per_class
    assert X.shape == (k * n, 2) and np.array_equal(np.bincount(y.astype(int)), [n] * k)
    assert np.all(np.abs(X) < 1.6)
    X2, y2 = make_dataset(name, seed=2, classes=k)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)


def test_k_classes_keep_their_geometry_without_noise():
    X, y = make_dataset("circles", 0, noise=0.0, classes=4)
    r = np.hypot(*X.T) * 3
    for j in range(3):  # each ring lies beyond the one before, with a gap
        assert r[y == j].max() < r[y == j + 1].min()
    X, y = make_dataset("checkerboard", 0, classes=3)
    ij = np.floor((X + 1) * 2).astype(int)
    assert np.array_equal(y, ((ij[:, 0] + ij[:, 1]) % 3).astype(float))
    X, y = make_dataset("spirals", 0, noise=0.0, classes=3)
    t = np.hypot(*X.T) / 0.95  # arm j at angle 3πt + 2πj/3
    angle = np.arctan2(X[:, 1], X[:, 0]) - 3 * np.pi * t
    assert np.allclose(np.mod(angle - 2 * np.pi * y / 3 + 1, 2 * np.pi), 1.0)


def test_two_classes_are_the_sets_of_before():
    """classes=2 draws exactly what the two-class generators drew (old scenes keep their points)."""
    rng = np.random.default_rng(5)
    t = np.sqrt(rng.uniform(0.0025, 1, 200))
    angle = 2 * np.pi * 1.5 * t + np.r_[np.zeros(100), np.full(100, np.pi)]
    X = np.c_[t * np.cos(angle), t * np.sin(angle)] * 0.95
    X = X + 0.03 * rng.normal(size=X.shape)
    assert np.array_equal(make_dataset("spirals", 5)[0], X)
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(-0.45, 0.2 + 0.1, (100, 2)), rng.normal(0.45, 0.2 + 0.1, (100, 2))])
    assert np.array_equal(make_dataset("gaussians", 5)[0], X)


def test_class_counts_that_a_dataset_does_not_make_are_refused():
    for name in ("xor", "boundary", "xor_corners"):
        with pytest.raises(ValueError, match="has two classes"):
            make_dataset(name, classes=3)
    for k in (1, 7, 2.5, True):
        with pytest.raises(ValueError, match="classes must be"):
            make_dataset("spirals", classes=k)
    with pytest.raises(ValueError, match="points per class"):
        make_dataset("circles", n_per_class=20_000, classes=6)


def test_boundary_dataset_labels_by_the_typed_curve():
    X, y = make_dataset("boundary", 1, noise=0.0, expression="x^2 - 0.3")
    assert np.array_equal(y, (X[:, 1] > X[:, 0] ** 2 - 0.3).astype(float))
    assert (y == 0).sum() == (y == 1).sum() == 100 and np.all(np.abs(X) <= 1)
    X, y = make_dataset("boundary", 1, noise=0.0, expression="log(x)")  # undefined for x ≤ 0
    assert np.all(X[:, 0] > 0)
    noisy, _ = make_dataset("boundary", 1, noise=0.2, expression="x^2 - 0.3")
    assert not np.array_equal(noisy, make_dataset("boundary", 1, noise=0.0, expression="x^2 - 0.3")[0])


@pytest.mark.parametrize(("text", "message"), [
    ("2", "leaves fewer than 100 points above it"),
    ("-5 + 0*x", "leaves fewer than 100 points below it"),
    ("x +", "ends too early"),
    ("__import__('os')", "unexpected|unknown"),
    ("sqrt(-1 - x^2)", "leaves fewer than 100 points"),
])
def test_bad_boundaries_are_named(text, message):
    with pytest.raises(ValueError, match=message):
        make_dataset("boundary", expression=text)


def test_xor_corners_are_the_four_points():
    from relulab.model.data.datasets import xor_corners

    X, y = xor_corners()
    assert X.tolist() == [[-0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [0.5, -0.5]]
    assert y.tolist() == [0, 0, 1, 1]
    X, y = xor_corners(0, 10, 0.05)
    assert len(X) == 20 and np.all(np.sign(X[:, 0] * X[:, 1]) == np.where(y == 0, 1, -1))


def test_csv_holds_up_to_six_classes():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0]])
    y = np.array([0.0, 5.0, 3.0])
    X2, y2, _ = points_from_csv(points_to_csv(X, y))
    assert np.array_equal(y2, y) and np.array_equal(X2, X)
