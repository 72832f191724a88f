"""The linear pieces of a network with one input, found exactly.

- ``piecewise``: :class:`PiecewiseLinear` and ``piecewise_linear``/``line_pieces``, which
  make it, falling back to the exact walk when doubles cannot decide.
- ``knots``: knots carried through the layers in floating point.
- ``certified``: the same with every decision certified by error bounds.
- ``folding``: a small layer composed with itself (the tent map), and the pieces it makes.
- ``envelope``: drawing millions of pieces: exact extremes per pixel column.
"""
