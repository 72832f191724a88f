"""Exact polygon corners in a box where the doubles cannot place them.

The compiled enumeration stores each corner as the float cross product of two lines
and flags it (``VTINY``) when that product may have lost its digits: two lines that
are almost parallel can still meet inside the box (w = −1.07e-18 in exact arithmetic
for two neurons of an ordinary 2-3-1 network met in practice) while w rounds to 0 or
to a value with no correct digit. Those corners, and only those, are recomputed here
from the lines' exact integer coefficients and rounded once, so every corner drawn is
the double nearest the true one.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from relulab.model.regions import _arrangement_kernels as kern


def fix_box_corners(out, exact_lines, base) -> int:
    """Recompute in place the box polygons' corners (rows of the readout's PV) whose
    vertex is flagged tiny or came out non-finite; returns how many were recomputed.

    ``out`` is the compiled 2-D run's result, ``exact_lines`` an ``_ExactLines`` of the
    network's hidden layers and ``base`` the run's exact base lines (box, axes)."""
    C, CP, Cs, PK, K, V, VQ, LS = out[1], out[2], out[5], out[7], out[9], out[11], out[12], out[16]
    PV, PS = out[-1][2], out[-1][3]
    if len(PV) == 0:
        return 0
    tiny = (VQ[: len(V), 2] & kern.VTINY) != 0
    bad_rows = ~np.isfinite(PV).all(axis=1)
    if not tiny.any() and not bad_rows.any():
        return 0
    # every corner of every polygon as (cell, its place j, its vertex, its row of PV),
    # found with whole arrays: a loop over all corners in the interpreter cost 0.2-8 ms
    # a readout (2-8-8-1 to 2-32-32-1) for the few dozen flagged ones
    first, m = PK[Cs[:C], 0].astype(np.int64), PK[Cs[:C], 1].astype(np.int64)
    cell = np.repeat(np.arange(C), m)
    j_of = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
    vertex = K[np.repeat(first, m) + j_of, 0].astype(np.int64)
    row_of = np.repeat(PS[:C].astype(np.int64), m) + j_of
    fixed = 0
    for i in np.flatnonzero(tiny[vertex] | bad_rows[row_of]):
        c, j, row = int(cell[i]), int(j_of[i]), int(row_of[i])
        k0, mc = int(first[c]), int(m[c])
        # corner j closes edge j − 1 and opens edge j (K[k, 1]: the line of the edge
        # from corner k to the next)
        a = _line(int(K[k0 + (j - 1) % mc, 1]), CP[c], LS, exact_lines, base)
        b = _line(int(K[k0 + j, 1]), CP[c], LS, exact_lines, base)
        w = a[0] * b[1] - a[1] * b[0]
        if w == 0:
            continue  # parallel lines meet in no corner: nothing better to say
        PV[row, 0] = float(Fraction(a[1] * b[2] - a[2] * b[1], w))
        PV[row, 1] = float(Fraction(a[2] * b[0] - a[0] * b[2], w))
        fixed += 1
    return fixed


def _line(line: int, words, LS, exact_lines, base) -> list:
    layer, _root, j = (int(s) for s in LS[line])
    if layer < 0:
        return list(base[j])
    return exact_lines.line(layer, j, words)
