"""pyqtgraph items of ReLU Lab's own, one a file.

- ``path_item``: a path item whose bounds come from its points (fast for thousands of
  outlines).
- ``band``: the shaded band of a dense curve, one stroke per pixel column.
- ``hinges_handles``: the draggable kink handles of the Hinges panel.
"""
