"""Fitting networks to data.

- ``hinges``: sums of hinges fitted by least squares, interpolation and its error bound.
- ``training``: one-hidden-layer networks trained on a 1-D target, many restarts at once
  (compiled steps in ``_training_kernels``).
- ``classify``: any MLP trained as a classifier of points in the plane.
- ``optimizers``: the optimisers' names and labels; each trainer says which it supports.
"""
