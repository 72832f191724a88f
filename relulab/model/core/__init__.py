"""What every lesson's mathematics stands on.

- ``cancel``: stopping long work early (one exception, one check).
- ``fields``: checking a panel state's fields read from a file.
- ``rows``: distinct rows of an array without starving the GUI thread.
- ``_compile_apart``, ``_numba_source``: numba's compiled loops, compiled in a process of
  their own and cached on disk.
"""
