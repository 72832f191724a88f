"""Deep → shallow: an exactly equal shallow network for any deep ReLU network.

- ``construction``: the 1-D construction with N + 1 neurons, the extended layers of the
  general case, the Corollary's bound and the region-by-region check.

The mathematics: ``docs/deep-to-shallow.md``.
"""
