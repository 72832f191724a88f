"""Distinct rows without np.unique(axis=0) (which starves the GUI thread beside a worker)."""

import ast
from pathlib import Path

import numpy as np
import pytest

from relulab.model.core.rows import COUNT_BLOCK, count_nonzero, unique_rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("dtype", [np.int64, float, np.int8])
def test_same_answer_as_numpy(dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(-2, 3, size=(500, 4)).astype(dtype)
    got = unique_rows(a)
    want = np.unique(a, axis=0, return_index=True, return_inverse=True)
    assert np.array_equal(got[0], want[0])
    assert np.array_equal(got[1], want[1])          # first occurrences
    assert np.array_equal(got[2], want[2].reshape(-1))
    assert np.array_equal(got[0][got[2]], a)


def test_minus_zero_equals_zero_and_the_first_occurrence_is_kept():
    a = np.array([[0.0, 1.0], [-0.0, 1.0], [2.0, -0.0], [2.0, 0.0], [0.0, 1.0]])
    unique, first, inverse = unique_rows(a)
    assert len(unique) == 2
    assert list(first) == [0, 2]
    assert list(inverse) == [0, 0, 1, 1, 0]
    assert np.signbit(unique[1, 1])                 # row 2 came first, with −0.0


def test_edge_shapes():
    u, f, i = unique_rows(np.zeros((0, 3)))
    assert u.shape == (0, 3) and f.shape == (0,) and i.shape == (0,)
    u, f, i = unique_rows(np.zeros((4, 0)))
    assert u.shape == (1, 0) and list(f) == [0] and list(i) == [0, 0, 0, 0]
    u, f, i = unique_rows(np.array([[7, 7]]))
    assert u.tolist() == [[7, 7]] and list(f) == [0] and list(i) == [0]
    with pytest.raises(ValueError):
        unique_rows(np.zeros(3))


def test_no_unique_over_rows_in_the_app():
    """``np.unique(..., axis=…)`` sorts rows as records and, on a worker, keeps a
    waiting GUI thread from the interpreter for as long as it runs (0.3 s for 200,000
    rows; a loop of small calls the same). The app uses :func:`unique_rows`."""
    found = []
    for path in sorted((ROOT / "relulab").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "unique" \
                    and any(k.arg == "axis" for k in node.keywords):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


@pytest.mark.parametrize("shape", [(), (0,), (0, 5), (7,), (3, 4), (COUNT_BLOCK + 3,),
                                   (2 * COUNT_BLOCK // 1000 + 1, 1000), (3, COUNT_BLOCK + 1),
                                   (50, 30, 999)])
def test_count_nonzero_is_numpys_answer_read_in_blocks(shape):
    """The count of a block of rows at a time (so a worker gives the interpreter up
    between blocks) equals numpy's, whatever the shape, including rows wider than a
    block and arrays of no element."""
    rng = np.random.default_rng(5)
    a = (rng.random(shape) < 0.3) * rng.normal(size=shape)
    assert count_nonzero(a) == np.count_nonzero(a)
    assert count_nonzero(a.astype(bool)) == np.count_nonzero(a)
