"""Arrays handed out read-only.

A result object (a snapshot of a training run, the pieces of a network) shares its
arrays with whoever reads it: a reader that wrote into one would change what every
other reader sees. Each array is handed out as a read-only view; the array it views
stays writable for its owner (a trainer keeps filling its buffers).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike


def readonly(a: ArrayLike, dtype: DTypeLike | None = None) -> np.ndarray[Any, Any]:
    """A read-only view of ``a``; the caller's array is left as it was. With ``dtype``,
    of ``a`` as a C-contiguous array of that type (a copy only when ``a`` is not one:
    a strided column does not keep its whole matrix alive)."""
    array = np.asarray(a) if dtype is None else np.ascontiguousarray(a, dtype=dtype)
    view = array.view()
    view.setflags(write=False)
    return view
