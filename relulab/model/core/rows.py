"""Distinct rows of an array, found without starving the GUI thread.

``np.unique(a, axis=0)`` sorts the rows as records of a structured type, and the
comparison of two records gives the interpreter up and takes it back. A thread that
does it (a worker) wakes the waiting GUI thread at every comparison without ever
leaving it time to take the interpreter: CPython's waiting thread only asks for a
switch when a whole switch interval passes with no hand-over, and here one happens
every few microseconds. The window froze for as long as the sort ran (0.5 s for
200,000 rows), and a loop of small calls (one per region) froze it just the same.

:func:`unique_rows` gives the same answer with ``np.lexsort`` over the columns, a
numeric sort that keeps the interpreter released for its whole run.
"""

from __future__ import annotations

import numpy as np


def unique_rows(a) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(a, axis=0, return_index=True, return_inverse=True)`` for a 2-D array
    without NaN: the distinct rows in lexicographic order, the index of each one's
    first occurrence in ``a``, and for each row of ``a`` the index of its copy among
    them. −0.0 and 0.0 are equal values, as in comparisons (the row kept is the first
    occurrence)."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"unique_rows needs a 2-D array, got {a.ndim}-D")
    n = len(a)
    if n == 0:
        return a[:0].copy(), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    # lexsort's last key is the primary one; it is stable, so equal rows keep their
    # order and the first of each run is the first occurrence
    order = np.lexsort(a.T[::-1]) if a.shape[1] else np.arange(n)
    ordered = a[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    first = order[starts]
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.cumsum(starts) - 1
    return a[first], first, inverse


#: The elements :func:`count_nonzero` reads between two chances for another thread to
#: take the interpreter: about a millisecond of np.count_nonzero, which holds the GIL
#: for the whole of its array (64 ms for a 2-64-4 conversion's proof, a window frozen
#: that long).
COUNT_BLOCK = 1 << 20


def count_nonzero(a: np.ndarray) -> int:
    """``np.count_nonzero(a)``, read a block of rows at a time so that a thread beside
    this one (the window's) is never kept from the interpreter for long."""
    a = np.asarray(a)
    if a.size <= COUNT_BLOCK or a.ndim == 0:
        return int(np.count_nonzero(a))
    rows = max(1, COUNT_BLOCK // max(1, a.size // len(a)))
    return sum(int(np.count_nonzero(a[i:i + rows])) for i in range(0, len(a), rows))
