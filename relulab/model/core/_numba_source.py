"""numba's disk cache in a frozen app (PyInstaller) as well as in an installed one.

numba keeps a compiled function in a cache folder named after the folder of the
function's source file (``inspect.getfile``, the code object's ``co_filename``), and
checks it against the source's contents, or in a frozen app the executable's. It
looks for a writable place in turn: ``NUMBA_CACHE_DIR`` if set, ``__pycache__`` beside
the source (a pip install in a virtual environment), and the user's cache folder
(``~/.cache/numba`` on Linux: a read-only install, and a frozen app, whose sources
are not on disk).

PyInstaller compiles modules with paths relative to the bundle, which numba resolves
against the current working directory: every folder the app was started from got a
cache of its own, and the app compiled its loops again (seconds) in each. The
module's ``__file__`` is the absolute path.
"""

from __future__ import annotations

import os
import sys


def with_absolute_source(fn):
    """``fn``, its code object's file name made absolute when it is not (frozen app)."""
    code = fn.__code__
    if os.path.isabs(code.co_filename):
        return fn
    path = getattr(sys.modules.get(fn.__module__), "__file__", None)
    if path and os.path.isabs(path):
        fn.__code__ = code.replace(co_filename=path)
    return fn
