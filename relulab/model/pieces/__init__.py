"""The linear pieces of a network with one input, found exactly.

- ``piecewise``: kinks carried through the layers, :class:`PiecewiseLinear`.
- ``folding``: a small layer composed with itself (the tent map), and the pieces it makes.
- ``envelope``: drawing millions of pieces: exact extremes per pixel column.
"""
