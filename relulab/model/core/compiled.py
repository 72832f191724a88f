"""numba's compiled loops, made ready one way for the whole model.

Two kinds of loops are compiled: the region engine's
(:mod:`relulab.model.regions._arrangement_kernels`, a group of functions calling each
other) and the training step (:mod:`relulab.model.fitting._training_kernels`, one loop
and its search). Both follow the same rules, kept here:

- ``RELULAB_NO_NUMBA`` (any non-empty value) turns numba off: the training step runs
  its numpy reference, the region engine's loops run as plain Python (correct, slow).
  Without numba installed the same happens.
- A function is compiled for exactly the argument types declared with it, and never
  again: left to infer types, numba compiles once more for every new combination of
  argument types it meets (a literal constant, a read-only array), seconds each.
- Making a loop ready tries, in turn: numba's disk cache (a fraction of a second); a
  compilation in a process of its own that fills the disk cache
  (:mod:`relulab.model.core._compile_apart`, for a thread beside a window: a first
  compilation is seconds of pure-Python work that shares the GIL with the GUI
  thread); a compilation here.

numba's disk cache in a frozen app (PyInstaller) as well as in an installed one:
numba keeps a compiled function in a cache folder named after the folder of the
function's source file (``inspect.getfile``, the code object's ``co_filename``), and
checks it against the source's contents, or in a frozen app the executable's. It
looks for a writable place in turn: ``NUMBA_CACHE_DIR`` if set, ``__pycache__`` beside
the source (a pip install in a virtual environment), and the user's cache folder
(``~/.cache/numba`` on Linux: a read-only install, and a frozen app, whose sources
are not on disk). PyInstaller compiles modules with paths relative to the bundle,
which numba resolves against the current working directory: every folder the app was
started from would get a cache of its own, and the app would compile its loops again
(seconds) in each. The module's ``__file__`` is the absolute path.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import ModuleType
from typing import Any

from relulab.model.core import _compile_apart, platform

#: the environment variable that turns numba off (any non-empty value)
DISABLE_VARIABLE = "RELULAB_NO_NUMBA"

#: how a loop was made ready
LOADED = "loaded from the disk cache"
APART = "compiled in a separate process"
HERE = "compiled"

#: Called with the target's name when a loop is about to be compiled because numba's
#: disk cache does not hold it (a first run): the moment a command can truthfully say
#: "first run". Loading from the cache, however slow on a busy machine, calls nothing.
_compile_listeners: list[Callable[[str], None]] = []
_listeners_lock = threading.Lock()


@contextlib.contextmanager
def compile_notice(listener: Callable[[str], None]) -> Iterator[None]:
    """Within the block, ``listener(target)`` is called before any loop compiles."""
    with _listeners_lock:
        _compile_listeners.append(listener)
    try:
        yield
    finally:
        with _listeners_lock:
            _compile_listeners.remove(listener)


def _compiling(target: str) -> None:
    with _listeners_lock:
        listeners = list(_compile_listeners)
    for listener in listeners:
        listener(target)


def numba_or_why() -> tuple[ModuleType | None, str]:
    """numba, and "" — or None and why numba is not used (turned off by
    :data:`DISABLE_VARIABLE`, or not installed)."""
    if os.environ.get(DISABLE_VARIABLE):
        return None, f"disabled by {DISABLE_VARIABLE}"
    try:
        return importlib.import_module("numba"), ""
    except ImportError as exc:
        return None, f"numba is not installed ({exc})"


def plain_objmode(**types: Any) -> contextlib.AbstractContextManager[None]:
    """What numba's ``objmode`` block is in plain Python: nothing."""
    return contextlib.nullcontext()


def with_absolute_source(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, its code object's file name made absolute when it is not (frozen app)."""
    code = fn.__code__
    if os.path.isabs(code.co_filename):
        return fn
    path = getattr(sys.modules.get(fn.__module__), "__file__", None)
    if path and os.path.isabs(path):
        fn.__code__ = code.replace(co_filename=path)
    return fn


def jit(numba: ModuleType, fn: Callable[..., Any], nogil: bool = False) -> Any:
    """``fn`` as a numba dispatcher kept in the disk cache, or in memory only when
    there is no place for a cache (no source file to key it on). Compiles nothing yet."""
    fn = with_absolute_source(fn)
    try:
        return numba.njit(cache=True, nogil=nogil)(fn)
    except RuntimeError:
        return numba.njit(nogil=nogil)(fn)


def disk_cached(dispatcher: Any) -> bool:
    """True when numba keeps ``dispatcher`` in its disk cache (False: compiled in
    memory, there being no place for a cache)."""
    from numba.core.caching import NullCache

    return not isinstance(dispatcher._cache, NullCache)


def allow_compile(dispatcher: Any, allowed: bool) -> None:
    """Let ``dispatcher`` compile, or refuse any call with types not compiled yet (a
    ``TypeError``): what numba's ``disable_compile()`` sets."""
    dispatcher._can_compile = allowed


def load_cached(dispatcher: Any, signatures: Iterable[tuple]) -> bool:
    """Load the numba ``dispatcher`` for each of ``signatures`` from numba's disk cache,
    compiling nothing; False when one is not there. numba has no public call for this:
    these are the first steps of its ``Dispatcher.compile``, and any change there only
    costs a compilation."""
    try:
        for signature in signatures:
            cres = dispatcher._cache.load_overload(signature, dispatcher.targetctx)
            if cres is None:
                return False
            dispatcher.targetctx.insert_user_function(cres.entry_point, cres.fndesc,
                                                      [cres.library])
            dispatcher.add_overload(cres)
        return True
    except Exception:  # pragma: no cover - another numba version
        return False


def make_ready(entry: Any, signatures: Sequence[tuple], target: str, apart: bool,
               compile_here: Callable[[], None]) -> str:
    """Make the dispatcher ``entry`` ready for ``signatures``: from the disk cache, else
    (with ``apart``, and a disk cache to fill) compiled in a separate process for
    ``target`` (one of :data:`relulab.model.core._compile_apart.TARGETS`) and loaded,
    else by ``compile_here()``. Returns how (:data:`LOADED`, :data:`APART`, :data:`HERE`)."""
    if load_cached(entry, signatures):
        return LOADED
    _compiling(target)
    if apart and disk_cached(entry) and _compile_apart.fill_disk_cache(target) \
            and load_cached(entry, signatures):
        return APART
    compile_here()
    return HERE


class Kernels:
    """A group of functions compiled with numba that call each other (as globals of
    their modules), each for the argument types declared with it, made ready entry
    point by entry point. Without numba (or with :data:`DISABLE_VARIABLE` set) the
    functions stay plain Python."""

    def __init__(self) -> None:
        self.numba, self.why_not = numba_or_why()
        #: every compiled function -> the argument types it is compiled for
        self.compiled: dict[Any, tuple[tuple, ...]] = {}
        #: entry points made ready -> (how, seconds)
        self.prepared: dict[Any, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def njit(self, *signatures: tuple, nogil: bool = False) -> Callable[[Any], Any]:
        """Compile the function for each tuple of argument types in ``signatures``, and
        for no others, when :meth:`prepare` asks for it (declaring compiles nothing)."""
        def wrap(fn: Any) -> Any:
            if self.numba is None:
                return fn
            compiled = jit(self.numba, fn, nogil=nogil)
            allow_compile(compiled, False)  # only prepare() compiles, for the declared types
            self.compiled[compiled] = signatures
            return compiled
        return wrap

    def prepare(self, entry: Any, target: str, apart: bool = False) -> None:
        """Make the compiled function ``entry`` ready to call: load it from numba's disk
        cache or else compile it and the functions it calls, each for its declared types
        only. With ``apart``, a compilation runs in a separate process for ``target``
        and this loads from its disk cache. Safe from any thread; returns at once when
        done before."""
        if entry in self.prepared or self.numba is None:
            return
        with self._lock:
            if entry in self.prepared:
                return
            t0 = time.perf_counter()

            def compile_here() -> None:
                for fn in self.callees(entry):
                    if not fn.signatures:
                        self.compile_declared(fn)
                self.compile_declared(entry)

            # From the disk cache the entry point comes with the code of everything it
            # calls; loading each helper as well would more than double a warm start.
            how = make_ready(entry, self.compiled[entry], target, apart, compile_here)
            self.prepared[entry] = (how, time.perf_counter() - t0)

    def compile_declared(self, fn: Any) -> None:
        """Compile ``fn`` for its declared types, here."""
        allow_compile(fn, True)
        try:
            for signature in self.compiled[fn]:
                fn.compile(signature)
        finally:
            allow_compile(fn, False)

    def callees(self, fn: Any, seen: set | None = None) -> list:
        """The compiled functions of the group that ``fn`` calls, directly or not,
        callees first."""
        seen = set() if seen is None else seen
        out: list = []
        for name in fn.py_func.__code__.co_names:
            callee = fn.py_func.__globals__.get(name)
            if callee in self.compiled and callee not in seen:
                seen.add(callee)
                out += [*self.callees(callee, seen), callee]
        return out

    def share_source_stamp(self) -> None:
        """Key every function's disk cache on the contents of all the group's source
        files. numba checks a cached function against its own file only, but an entry
        point's cached code holds the code of every function it calls: with the group
        spread over several files, a change to a helper would otherwise leave a stale
        entry point in the cache. A frozen app's cache is keyed on its executable,
        which holds them all."""
        if platform.is_frozen() or not self.compiled:
            return
        digest = hashlib.sha256()
        try:
            for path in sorted({fn.py_func.__code__.co_filename for fn in self.compiled}):
                with open(path, "rb") as f:
                    digest.update(hashlib.sha256(f.read()).digest())
        except OSError:  # no sources on disk: numba keeps nothing on disk either
            return
        stamp = digest.digest()
        for fn in self.compiled:
            cache_file = getattr(fn._cache, "_cache_file", None)
            if cache_file is not None:
                cache_file._source_stamp = stamp
