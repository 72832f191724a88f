"""The one background-work mechanism: latest request wins, stale results dropped,
cancellation reaches the job, the thread ends with its owner."""

import sys
import threading
import time

import pytest

from relulab.model.core.cancel import Cancelled, check
from relulab.ui.worker import Worker


@pytest.fixture
def worker(qapp):
    w = Worker("test")
    yield w
    w.shutdown()


def _threads(name="relulab-test"):
    return [t for t in threading.enumerate() if t.name == name]


def test_result_arrives_on_the_gui_thread(qtbot, worker):
    seen = []
    worker.finished.connect(lambda r: seen.append((r, threading.current_thread())))
    with qtbot.waitSignal(worker.idle, timeout=5000):
        worker.submit(lambda stop: 6 * 7)
    assert seen == [(42, threading.main_thread())]
    assert not worker.busy


def test_a_newer_request_stops_the_running_one(qtbot, worker):
    started, stopped = threading.Event(), threading.Event()

    def slow(stop):
        started.set()
        try:
            while True:
                check(stop)
                time.sleep(0.001)
        except Cancelled:
            stopped.set()
            raise

    results = []
    worker.finished.connect(results.append)
    worker.submit(slow)
    assert started.wait(5)
    with qtbot.waitSignal(worker.idle, timeout=5000):
        worker.submit(lambda stop: "second")
    assert stopped.is_set()
    assert results == ["second"]


def test_a_stale_result_is_dropped(qtbot, worker):
    """A job that ignores should_stop still finishes, but only the latest is shown."""
    release = threading.Event()
    results = []
    worker.finished.connect(results.append)
    worker.submit(lambda stop: release.wait(5) and "old")
    worker.submit(lambda stop: "new")
    release.set()
    assert worker.wait(5)
    qtbot.wait(50)  # give a wrongly delivered stale result the chance to arrive
    assert results == ["new"]


def test_pending_requests_are_replaced_not_queued(qtbot, worker):
    release, started = threading.Event(), threading.Event()
    calls = []

    def job(tag):
        def run(stop):
            calls.append(tag)
            if tag == 0:
                started.set()
                release.wait(5)
            return tag
        return run

    worker.submit(job(0))
    assert started.wait(5)
    for tag in range(1, 5):
        worker.submit(job(tag))
    release.set()
    assert worker.wait(5)
    assert calls == [0, 4]  # the first was running; 1–3 were replaced before they began


def test_failure_is_reported_not_raised(qtbot, worker):
    errors = []
    worker.failed.connect(errors.append)

    def bad(stop):
        raise ValueError("no such network")

    with qtbot.waitSignal(worker.idle, timeout=5000):
        worker.submit(bad)
    assert [str(e) for e in errors] == ["no such network"]


def test_generator_jobs_report_progress(qtbot, worker):
    progress, results = [], []
    worker.progress.connect(progress.append)
    worker.finished.connect(results.append)

    def study(stop):
        yield from range(3)
        return "done"

    with qtbot.waitSignal(worker.idle, timeout=5000):
        worker.submit(study)
    assert progress == [0, 1, 2]
    assert results == ["done"]


def test_cancel_delivers_nothing(qtbot, worker):
    release = threading.Event()
    results = []
    worker.finished.connect(results.append)
    worker.submit(lambda stop: release.wait(5) and "late")
    worker.cancel()
    assert not worker.busy
    release.set()
    qtbot.wait(100)
    assert results == []


def test_shutdown_ends_the_thread_and_refuses_more_work(qtbot, qapp):
    w = Worker("test")
    started = threading.Event()

    def forever(stop):
        started.set()
        while True:
            check(stop)
            time.sleep(0.001)

    w.submit(forever)
    assert started.wait(5)
    w.shutdown()
    assert _threads() == []
    with pytest.raises(RuntimeError, match="shut down"):
        w.submit(lambda stop: 1)
    w.shutdown()  # twice is harmless


def test_garbage_is_collected_on_the_gui_thread_only(qtbot):
    """A cycle holding Qt objects freed by a worker's allocations would delete QObjects
    outside the GUI thread (a deadlock in the suite): once a worker runs, automatic
    collection is off and a timer on the GUI thread collects instead."""
    import gc

    from relulab.ui.worker import Worker

    w = Worker("gc-test")
    w.submit(lambda should_stop: 1)
    assert w.wait(5)
    assert not gc.isenabled()
    w.shutdown()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values: Linux")
def test_a_worker_thread_runs_below_the_gui_thread(qtbot):
    """On a busy machine the scheduler gives the GUI thread (and so the GIL) the first
    turn: the window keeps answering while a worker computes."""
    import os
    import threading

    from relulab.ui.worker import NICENESS, Worker

    w = Worker("nice-test")
    got = []
    w.finished.connect(got.append)
    w.submit(lambda should_stop: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    assert w.wait(5)
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert got == [min(main + NICENESS, 19)]  # nice values stop at 19
    w.shutdown()


def test_the_free_memory_of_a_job_goes_back_to_the_system(qtbot, worker, monkeypatch):
    """After every job that finishes or fails, the heap is trimmed (a
    conversion's temporaries would otherwise stay with the worker thread's arena)."""
    from relulab.ui import worker as module

    trims = []
    monkeypatch.setattr(module, "give_back_free_memory",
                        lambda: trims.append(threading.current_thread()))
    with qtbot.waitSignal(worker.idle, timeout=5000):
        worker.submit(lambda stop: bytearray(50_000_000))
    with qtbot.waitSignal(worker.idle, timeout=5000):
        worker.submit(lambda stop: 1 / 0)
    deadline = time.monotonic() + 5
    while len(trims) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(trims) >= 2 and all(t is not threading.main_thread() for t in trims)


def test_the_older_generations_wait_while_a_worker_is_busy(qtbot, worker, monkeypatch):
    """The GUI thread's collector: the youngest generation every tick (what a tenth of
    a second made), the older ones (tens of milliseconds: the survivors of a worker's
    burst, then everything) only once no worker has been busy for QUIET seconds, or
    after MAX_WAIT all the same."""
    import gc

    from relulab.ui import worker as module

    was_enabled = gc.isenabled()
    collector = module.GuiCollector(interval=3600)  # ticks by hand
    collector.timer.stop()
    if was_enabled:  # as it was: the suite's own collector may have switched it off
        gc.enable()
    calls = []
    counts = [(10_000, 100, 100)]
    monkeypatch.setattr(module.gc, "collect", lambda generation=2: calls.append(generation))
    monkeypatch.setattr(module.gc, "get_count", lambda: counts[0])
    frozen = [0]
    monkeypatch.setattr(module.gc, "freeze", lambda: frozen.__setitem__(0, frozen[0] + 1))
    monkeypatch.setattr(module.gc, "get_freeze_count", lambda: 1000 * frozen[0])
    monkeypatch.setattr(module, "_freeze_long_lived", True)
    release = threading.Event()
    worker.submit(lambda stop: release.wait(5))
    assert worker.busy
    collector.check()
    assert calls == [0]  # the full one waits
    clock = [time.monotonic()]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    clock[0] += collector.MAX_WAIT + 1
    collector.check()
    assert calls[-1] == 2  # not for ever
    assert frozen == [0]   # (not a quiet moment: what is alive now may be a burst's)
    calls.clear()
    collector.check()
    assert calls == [0]  # (busy again: waiting afresh)
    with qtbot.waitSignal(worker.idle, timeout=5000):
        release.set()
    calls.clear()
    collector.check()
    assert calls == [0]  # idle just now: its results are still being drawn
    clock[0] += collector.QUIET
    collector.check()
    assert calls == [0, 0, 2]  # idle for a while: now
    # and what outlived it is frozen out of later walks, once while it stays frozen
    assert frozen == [1]
    clock[0] += collector.QUIET
    collector.check()
    assert frozen == [1]
    # the middle generation alone: collected at a quiet moment, as generation 1
    calls.clear()
    counts[0] = (10_000, collector.threshold[1], 0)   # the tick's own collection tips it
    collector.check()
    assert calls == [0, 1]
    counts[0] = (0, 0, 0)
    calls.clear()
    collector.check()
    assert calls == []


def test_the_collector_freezes_only_in_the_app_and_only_what_nothing_else_froze(monkeypatch):
    """A quiet full collection freezes what outlived it: in the app (which opts in), when
    nothing is frozen (the training driver's freeze is left to the driver); never in a
    process that did not opt in."""
    import gc

    from relulab.ui import worker as module

    collector = module.GuiCollector(interval=3600)
    collector.timer.stop()
    gc.enable()
    frozen, state = [], {"count": 0}
    monkeypatch.setattr(module.gc, "collect", lambda generation=2: None)
    monkeypatch.setattr(module.gc, "get_count", lambda: (0, 0, 10_000))
    monkeypatch.setattr(module.gc, "freeze", lambda: (frozen.append(1), state.update(count=9)))
    monkeypatch.setattr(module.gc, "get_freeze_count", lambda: state["count"])
    clock = [time.monotonic()]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])

    def quiet_full_collection():
        collector.check()
        clock[0] += collector.QUIET + 1
        collector.check()

    monkeypatch.setattr(module, "_freeze_long_lived", False)
    quiet_full_collection()
    assert frozen == []
    module.freeze_long_lived_objects()
    state["count"] = 5  # the driver's freeze, while training
    quiet_full_collection()
    assert frozen == []
    state["count"] = 0  # undone when training stops: the next quiet one freezes again
    quiet_full_collection()
    assert frozen == [1]


def test_the_app_opts_in_to_the_freeze():
    import ast
    import inspect

    from relulab import app

    calls = {n.func.id for n in ast.walk(ast.parse(inspect.getsource(app.main)))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {"freeze_long_lived_objects", "freeze_what_lives_now"} <= calls


def test_the_app_freezes_what_lives_before_its_loop_starts(monkeypatch):
    """The first full collection walked every object of the window at the first quiet
    moment (45–90 ms of the GUI thread); the app makes it before its event loop runs,
    once, and only when it opted in and nothing else froze."""
    from relulab.ui import worker as module

    done, state = [], {"count": 0}
    monkeypatch.setattr(module.gc, "collect", lambda generation=2: done.append("collect"))
    monkeypatch.setattr(module.gc, "freeze", lambda: (done.append("freeze"), state.update(count=9)))
    monkeypatch.setattr(module.gc, "get_freeze_count", lambda: state["count"])
    monkeypatch.setattr(module, "_freeze_long_lived", False)
    module.freeze_what_lives_now()
    assert done == []
    module.freeze_long_lived_objects()
    module.freeze_what_lives_now()
    module.freeze_what_lives_now()  # frozen already: nothing more
    assert done == ["collect", "freeze"]


def test_the_test_plugin_undoes_the_apps_freeze():
    """A test that ran the app's main() leaves no freeze behind for the next test."""
    import gc

    from relulab.testing.plugin import undo_lasting_freeze
    from relulab.ui import worker as module

    module.freeze_long_lived_objects()
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        undo_lasting_freeze()
        assert gc.get_freeze_count() == 0 and not module._freeze_long_lived
    finally:
        module.freeze_long_lived_objects(False)
        gc.unfreeze()
