"""Sub-commands that run without a window (``relulab convert``, ``relulab render``).

Each module has ``main(argv) -> int``: 0 on success, non-zero with one line on
standard error saying what is wrong.
"""
