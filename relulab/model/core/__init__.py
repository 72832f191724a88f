"""What every lesson's mathematics stands on.

- ``cancel``: stopping long work early (one exception, one check).
- ``fields``: checking a panel state's fields read from a file.
- ``arrays``: read-only views of arrays a state or a result hands out.
- ``rows``: distinct rows of an array without starving the GUI thread.
- ``compiled``: numba's compiled loops, made ready one way (disk cache, a compiling
  process, here) and turned off by ``RELULAB_NO_NUMBA``.
- ``platform``: every path that differs between Linux, Windows and macOS.
- ``_compile_apart``: the compiling process's entry point (``python -m`` and the frozen
  app's launcher start it).
"""
