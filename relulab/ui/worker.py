"""Background work for the panels: one mechanism, the latest request wins.

A panel owns one :class:`Worker` per kind of long computation (the regions of the
current network, the pieces of a deep tent, a depth study). ``submit(job)`` hands it
a function of one argument, ``should_stop``; the function runs on the worker's own
thread and must pass ``should_stop`` into the model's loops, which raise
:class:`~relulab.model.core.cancel.Cancelled` once it returns True. That happens as soon
as a newer request arrives or the worker shuts down, so a superseded computation
stops at its next check instead of running on beside the new one (and holding its
memory). Results come back to the GUI thread through a queued signal; a result that
is no longer the latest is dropped there, never shown.

A job may also be a generator function: each value it yields is delivered as
``progress`` (a depth study's samples, one at a time), ``should_stop`` is checked
between values, and its return value is the result.

Why our own class rather than superqt's ``thread_worker``: what the panels need is
"latest request wins" with stale results dropped, and a thread that ends with its
panel (``shutdown`` joins it). superqt's workers run in the shared QThreadPool and
leave both policies to the caller, so a wrapper of the same size as this class would
be needed anyway; this keeps one small mechanism and no extra dependency.

A worker never touches widgets or shared state: a job computes from the arguments it
was given (immutable networks, arrays it does not modify) and returns a new object.

Python's cyclic garbage collector runs in whichever thread happens to allocate. Had it
run in a worker, it could free a Qt object left in a reference cycle (a closed window's
wrappers) there, and deleting a QObject outside the GUI thread deadlocks against the
GUI thread (both wait for Qt's connection lock and the GIL: seen in the test suite).
So once the first worker starts, automatic collection is switched off and done by a
timer on the GUI thread instead (:class:`GuiCollector`, after pyqtgraph's
``GarbageCollector``, made for this).

A worker thread also runs at a lower scheduling priority than the GUI thread (Linux):
numpy holds the GIL for some long operations, and on a busy machine the GUI thread
would wait up to 0.2 s for it behind a worker; with the lower priority it gets the
first turn.
"""

from __future__ import annotations

import gc
import inspect
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, Signal

from relulab.model.core.cancel import Cancelled
from relulab.model.core.platform import give_back_free_memory, lower_this_thread

Job = Callable[[Callable[[], bool]], Any]

# How long shutdown waits for a job to notice it was cancelled. Model loops check
# often (every neuron, layer or chunk), so this is only reached by a job that does
# not pass should_stop on; the thread is a daemon and cannot keep the process alive.
JOIN_SECONDS = 10.0

_collector = None
#: How much lower a worker thread runs than the GUI thread (a Unix nice value): on a
#: busy machine the scheduler then lets the GUI thread take the GIL back first.
NICENESS = 10


def _yield_to_the_gui_thread(niceness: int = NICENESS) -> None:
    """Lower the calling (worker) thread's scheduling priority where the OS allows it
    per thread (Linux); elsewhere nothing happens."""
    if niceness:
        lower_this_thread(niceness)


#: Every worker made (weakly held): a full collection waits while one is busy.
_workers: weakref.WeakSet[Worker] = weakref.WeakSet()


class GuiCollector:
    """pyqtgraph's ``GarbageCollector`` (Python's cyclic collection on a timer, on the
    GUI thread only), changed so that no collection walks many objects while a worker
    is busy, when results and their redraws arrive.

    * The youngest generation is collected every ``interval`` (0.1 s), so that each
      walk covers only what was made in that time. Collected once a second (pyqtgraph's
      interval), a worker's burst builds up: loading the compiled region engine makes
      150,000 objects, and their walk at the next tick holds the window for 40–60 ms in
      the middle of a conversion.
    * The older generations (the survivors of many ticks: those same 150,000, then
      everything Qt, pyqtgraph and numba made, 30–120 ms) are collected once no worker
      has been busy for ``QUIET`` seconds, or after ``MAX_WAIT`` seconds all the same (a
      study that keeps a worker busy must not keep its cycles). Idle means idle for a
      while: a worker that has just finished leaves its results to draw, in stages over
      the next passes of the event loop, and a collection among them would add its
      30–40 ms to theirs.
    * In the app (:func:`freeze_long_lived_objects`), what outlives a quiet full
      collection while nothing is frozen is frozen (``gc.freeze()``): the modules of
      Qt, pyqtgraph, numpy and numba, the window and its panels (160,000 objects with one
      panel) live as long as the app, yet each full collection walked them all, 75–80 ms
      of the GUI thread, over the 50 ms rule. Later full collections walk only what was
      made since. A freeze made elsewhere (the training driver's) is left alone: when it
      is undone, the next quiet full collection freezes again. Cycles among frozen
      objects are never collected; that is bounded by what was alive at one moment, so
      memory stays flat."""

    MAX_WAIT = 30.0
    QUIET = 1.0

    def __init__(self, interval: float = 0.1):
        from PySide6.QtCore import QTimer

        self.threshold = gc.get_threshold()
        gc.disable()
        self.timer = QTimer()
        self.timer.timeout.connect(self.check)
        self.timer.start(int(interval * 1000))
        self._waiting_since: float | None = None
        self._idle_since: float | None = None

    def check(self) -> None:
        now = time.monotonic()
        if any(w.busy for w in list(_workers)):
            self._idle_since = None
        elif self._idle_since is None:
            self._idle_since = now
        young, middle, old = gc.get_count()
        if young > self.threshold[0]:
            gc.collect(0)
            middle += 1
        if old > self.threshold[2]:
            generation = 2
        elif middle > self.threshold[1]:
            generation = 1
        else:
            return
        if self._waiting_since is None:
            self._waiting_since = now
        quiet = self._idle_since is not None and now - self._idle_since >= self.QUIET
        if quiet or now - self._waiting_since > self.MAX_WAIT:
            gc.collect(generation)
            self._waiting_since = None
            if generation == 2 and quiet and _freeze_long_lived and gc.get_freeze_count() == 0:
                gc.freeze()


#: whether the GUI collector freezes what outlives a quiet full collection (the app's
#: choice, :func:`freeze_long_lived_objects`; tests that make and drop windows by the
#: hundred leave it off, or nothing they drop in a cycle would ever be collected)
_freeze_long_lived = False


def freeze_long_lived_objects(on: bool = True) -> None:
    """Let the GUI collector freeze what outlives a quiet full collection (see
    :class:`GuiCollector`): for an app that lives as long as its window."""
    global _freeze_long_lived
    _freeze_long_lived = on


def freeze_what_lives_now() -> None:
    """In the app, before its event loop starts: one full collection, then freeze what
    outlived it. Left to the collector, this first full collection came at the first
    quiet moment and walked every object of the window: 45–90 ms of the GUI thread
    with the window open; before the loop runs, no one is waiting for it."""
    if _freeze_long_lived and gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


def collect_garbage_in_gui_thread() -> None:
    """Run Python's cyclic garbage collection only on the GUI thread, on a timer
    (call from the GUI thread; the first call installs it, later ones do nothing)."""
    global _collector
    if _collector is None:
        _collector = GuiCollector()


class Worker(QObject):
    """One background thread that runs the latest submitted job.

    Signals (all delivered on the GUI thread, for the latest request only):

    * ``finished(result)``: the job returned ``result``.
    * ``failed(exception)``: the job raised (other than :class:`Cancelled`).
    * ``progress(value)``: a generator job yielded ``value``.
    * ``idle()``: after ``finished`` or ``failed``; nothing is pending any more.
    """

    finished = Signal(object)
    failed = Signal(object)
    progress = Signal(object)
    idle = Signal()
    _delivered = Signal(int, str, object)  # (request id, kind, value), from the thread

    def __init__(self, name: str, parent: QObject | None = None, niceness: int = NICENESS):
        super().__init__(parent)
        self.setObjectName(f"worker-{name}")
        self._name = name
        #: How much lower than the GUI thread its thread runs. A job that holds the GIL
        #: most of its time (many small numpy calls in Python) wants 0: on a busy
        #: machine a low-priority thread holding the GIL waits behind other processes
        #: for the CPU, and the GUI thread waits for it (priority inversion).
        self.niceness = niceness
        self._cond = threading.Condition()
        self._pending: tuple[int, Job] | None = None
        self._latest = 0        # id of the newest request
        self._answered = 0      # id of the newest request whose outcome reached the GUI
        self._closed = False
        self._thread: threading.Thread | None = None
        self._delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        _workers.add(self)

    # -- the GUI side ------------------------------------------------------------
    def submit(self, job: Job) -> int:
        """Run ``job(should_stop)`` on the worker thread instead of anything earlier.

        Returns the request's id. A job still running is asked to stop; one still
        waiting is forgotten.
        """
        with self._cond:
            if self._closed:
                raise RuntimeError(f"the {self._name} worker has shut down")
            self._latest += 1
            self._pending = (self._latest, job)
            if self._thread is None:
                collect_garbage_in_gui_thread()
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f"relulab-{self._name}")
                self._thread.start()
            self._cond.notify()
            return self._latest

    def cancel(self) -> None:
        """Forget the pending request and ask a running one to stop; nothing it
        computes will be delivered."""
        with self._cond:
            self._latest += 1
            self._answered = self._latest
            self._pending = None

    @property
    def busy(self) -> bool:
        """True until the latest request's outcome has been delivered (or cancelled)."""
        return self._answered != self._latest

    @property
    def latest(self) -> int:
        return self._latest

    @property
    def closed(self) -> bool:
        """True after :meth:`shutdown`."""
        return self._closed

    def wait(self, timeout: float = 30.0) -> bool:
        """Process events until the latest request has been delivered (for scripts
        and tests; the app itself never waits). False if ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        while self.busy:
            if time.monotonic() > deadline:
                return False
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            if self.busy:
                with self._cond:
                    self._cond.wait(0.005)
        return True

    def shutdown(self) -> None:
        """Stop the running job, drop everything pending and end the thread. Safe to
        call twice; after it, ``submit`` raises and nothing more is delivered."""
        with self._cond:
            self._closed = True
            self._latest += 1
            self._answered = self._latest
            self._pending = None
            self._cond.notify_all()
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(JOIN_SECONDS)

    def _deliver(self, rid: int, kind: str, value: object) -> None:
        if self._closed or rid != self._latest:
            return  # superseded or shut down: the latest wins
        if kind == "progress":
            self.progress.emit(value)
            return
        self._answered = rid
        if kind == "finished":
            self.finished.emit(value)
        else:
            self.failed.emit(value)
        self.idle.emit()

    # -- the worker thread -----------------------------------------------------
    def _run(self) -> None:
        _yield_to_the_gui_thread(self.niceness)
        while True:
            with self._cond:
                while self._pending is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                rid, job = self._pending
                self._pending = None

            def should_stop(rid=rid) -> bool:
                return self._closed or self._latest != rid

            try:
                kind, value = "finished", self._call(rid, job, should_stop)
            except Cancelled:
                continue
            except Exception as exc:  # shown by the panel, never raised in this thread
                kind, value = "failed", exc
            if not should_stop():
                self._emit(rid, kind, value)
            del job, value  # a stale result's memory is freed now, not at the next job
            give_back_free_memory()

    def _call(self, rid: int, job: Job, should_stop) -> Any:
        out = job(should_stop)
        if not inspect.isgenerator(out):
            return out
        try:
            while True:
                if should_stop():
                    out.close()
                    raise Cancelled()
                self._emit(rid, "progress", next(out))
        except StopIteration as stop:
            return stop.value

    def _emit(self, rid: int, kind: str, value: object) -> None:
        with suppress(RuntimeError):  # the QObject was deleted with its panel meanwhile
            self._delivered.emit(rid, kind, value)
