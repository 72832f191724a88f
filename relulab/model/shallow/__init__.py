"""Deep → shallow: an exactly equal shallow network for any deep ReLU network.

- ``construction``: the Corollary's bound, a whole conversion (``convert``) and the
  entry points ``to_shallow`` and ``to_shallow_extended``.
- ``one_d``: the 1-D construction with N + 1 neurons (or N), one finite hidden layer.
- ``extended``: layers with ±∞ weights, the three-hidden-layer construction of the
  general case, and its big-M stand-in.
- ``proof``: the n-D check, a proof region by region that deep and shallow agree up to
  rounding (no point sampled).
- ``verify``: the check's result, and the rounding bound of the 1-D comparison.

The mathematics: ``docs/deep-to-shallow.md``.
"""
