"""Compiled loops of the region engine (:mod:`relulab.model.regions.arrangement`): the
module the engine imports, which makes them ready.

Only sign decisions and bookkeeping live in the loops; everything a decision rests on
is explained in the engine's docstring. They are in four files: ``_kernels_shared``
(the floating-point filter's numbers, flags, exact-sign and stop callbacks, growing
tables), ``_kernels_2d`` (``run2``: two inputs, cells as polygons), ``_kernels_readout``
(what ``run2`` reads out of its cells for the callers) and ``_kernels_nd`` (``runnd``:
any number of inputs, cells as cones of rays). One group, ``KERNELS``, compiles them
all (:mod:`relulab.model.core.compiled`); ``RELULAB_NO_NUMBA`` leaves them plain Python.

Compiling them is the expensive part of a first use (seconds; loading them from the
disk cache takes a fraction of one), so each function is compiled for exactly the
argument types declared with it, by :func:`prepare`, and never again: left to infer
types, numba compiles a helper once more for every new combination of argument types
it meets, and literal constants count as types of their own (``f(x, 0)`` and
``f(x, n)`` are two compilations, as are read-only and writable arrays). Callers
pass C-contiguous, writable float64, int64 and uint64 arrays, Python ints and bools.
"""

from __future__ import annotations

from relulab.model.core.compiled import disk_cached
from relulab.model.regions._kernels_2d import (
    _corner,
    _duplicate,
    _new_vertex,
    _piece,
    _scaled,
    _split_layer,
    run2,
)
from relulab.model.regions._kernels_nd import _split_layer_nd, runnd
from relulab.model.regions._kernels_readout import (
    READ_MAPS,
    READ_NOTHING,
    READ_POLYGONS,
    READ_REGIONS,
    _append_rows,
    _box_polygons,
    _certify,
    _output_maps,
    _plane_pieces,
    _readout,
    _stored_rows,
)
from relulab.model.regions._kernels_shared import (
    CONTEXTS,
    EINC,
    FINITE,
    KERNELS,
    LEXACT,
    LTINY,
    POLY,
    TINY,
    VINC,
    VTINY,
    _add_bias,
    _exact_sign,
    _exact_sign_nd,
    _filter,
    _grow1,
    _grow2,
    _grow_cells,
    _halves,
    _has_side,
    _may_underflow,
    _next_maps,
    _off_child,
    _popcount,
    _stop,
    _terms,
)

__all__ = [
    "COMPILED", "CONTEXTS", "EINC", "FINITE", "KERNELS", "LEXACT", "LTINY", "POLY", "PREPARED",
    "READ_MAPS", "READ_NOTHING", "READ_POLYGONS", "READ_REGIONS", "TINY", "VINC", "VTINY",
    "_add_bias", "_append_rows", "_box_polygons", "_certify", "_compile", "_corner", "_duplicate",
    "_exact_sign", "_exact_sign_nd", "_filter", "_grow1", "_grow2", "_grow_cells", "_halves", "_has_side",
    "_may_underflow", "_new_vertex", "_next_maps", "_off_child", "_output_maps", "_piece",
    "_plane_pieces", "_popcount",
    "_readout", "_scaled", "_split_layer", "_split_layer_nd", "_stop", "_stored_rows", "_terms",
    "compile_for_cache", "disk_cached", "prepare", "run2", "runnd",
]

#: every compiled function -> the argument types it is compiled for
COMPILED = KERNELS.compiled
#: entry points made ready -> (how: "loaded from the disk cache" or "compiled", seconds)
PREPARED = KERNELS.prepared
_compile = KERNELS.compile_declared

#: the compiling child's target of each entry point (:mod:`relulab.model.core._compile_apart`)
_TARGETS = {"run2": "regions-2d", "runnd": "regions-nd"}

KERNELS.share_source_stamp()


def prepare(entry, apart: bool = False) -> None:
    """Make the compiled function ``entry`` (``run2`` or ``runnd``) ready to call: load
    it from numba's disk cache or else compile it and the functions it calls, each for
    its declared types only (a call with other types is a ``TypeError``, not a new
    compilation). With ``apart``, a compilation runs in a separate process that fills
    the disk cache, and this loads from there (see :mod:`relulab.model.core._compile_apart`):
    for a thread beside a window. Safe from any thread; returns at once when done before."""
    KERNELS.prepare(entry, _TARGETS[entry.__name__], apart=apart)


def compile_for_cache(target: str) -> int:
    """In a compiling child (:mod:`relulab.model.core._compile_apart`): compile the
    2-D (``regions-2d``) or n-D engine; 0 when it is in the disk cache, else
    ``NOT_CACHED``."""
    from relulab.model.core._compile_apart import NOT_CACHED

    entry = run2 if target == "regions-2d" else runnd
    prepare(entry)
    return 0 if disk_cached(entry) else NOT_CACHED
