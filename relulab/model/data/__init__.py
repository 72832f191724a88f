"""What the networks are fitted to.

- ``datasets``: point sets in the plane (circles, spirals, XOR, …) and their CSV text.
- ``targets``: target functions on an interval, named presets and typed ones.
- ``expression``: the small parser for typed expressions (never ``eval``).
"""
