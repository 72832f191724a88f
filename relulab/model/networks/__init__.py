"""Dense networks and what they are made of.

- ``mlp``: :class:`MLP`, x ↦ W_L φ(… φ(W₁x + b₁) …) + b_L, and composing networks.
- ``activations``: ReLU, GELU, sigmoid, … and their derivatives.
- ``exact``: a network's doubles as rationals, filtered signs with an exact fallback,
  rounding bounds.
- ``collapse``: with the identity activation, stacked layers are one affine map.
- ``hidden``: the data as a hidden layer sees it.
"""
