"""Linear regions of networks with several inputs.

- ``arrangement``: the region engine, neuron by neuron, every decision certified
  (compiled loops made ready in ``_arrangement_kernels``: ``_kernels_2d``, ``_kernels_nd``,
  what they share in ``_kernels_shared`` and what the 2-D pass reads out for the callers
  in ``_kernels_readout``; ``engine`` warms it up off the GUI thread).
- ``activation``: activation regions, their polygons, counts and affine maps (sequences
  kept as whole arrays).
- ``decisions``: where each class wins, region by region.
- ``slices``: a network with many inputs seen on a line or a plane.
- ``depth``: regions against depth at one parameter budget.
"""
