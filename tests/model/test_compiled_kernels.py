"""The compiled loops are compiled once per function, for the argument types declared
with them: numba otherwise compiles a function again for every new combination of
argument types it meets (a literal constant, a read-only array, an int for a float),
and each extra compilation of the engine's loops costs seconds on a user's first use."""

import numpy as np
import pytest

from relulab.model.fitting import _training_kernels as training_kernels
from relulab.model.fitting.training import HingeNetTrainer
from relulab.model.networks.mlp import MLP
from relulab.model.regions import _arrangement_kernels as kern
from relulab.model.regions.activation import linear_regions, region_polygons
from relulab.model.regions.arrangement import arrangement_2d, arrangement_nd, count_regions_2d, warm_up


def _representative_runs():
    """Box and plane, with and without maps, exact-only, a degenerate net, stops, n-D."""
    net = MLP.random([2, 6, 5, 1], seed=3)
    fan = MLP([(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.zeros(3)),
               (np.ones((1, 3)), np.zeros(1))])
    count_regions_2d(net, box=(-2.0, 2.0, -1.0, 3.0))
    count_regions_2d(fan, should_stop=lambda: False)
    _ = arrangement_2d(net).maps  # the output maps are computed on first access
    arrangement_2d(fan, exact_only=True)
    arrangement_nd(MLP.random([3, 5, 4, 1], seed=1), max_regions=10_000)
    arrangement_nd(fan, exact_only=True)


def test_every_compiled_function_declares_its_argument_types():
    from numba.core.registry import CPUDispatcher

    dispatchers = {name for name, value in vars(kern).items() if isinstance(value, CPUDispatcher)}
    declared = {fn.py_func.__name__ for fn in kern.COMPILED}
    assert dispatchers == declared
    assert all(kern.COMPILED[fn] for fn in kern.COMPILED)


def test_one_compilation_per_declared_signature_after_a_representative_run():
    warm_up()
    _representative_runs()
    # the entry points may have come from the disk cache without their helpers:
    # compile (or load) every helper too, then nothing may have more than declared
    for fn in kern.COMPILED:
        if not fn.signatures:
            kern._compile(fn)
    _representative_runs()
    for fn, declared in kern.COMPILED.items():
        assert len(fn.signatures) == len(declared), (fn.py_func.__name__, fn.signatures)
    assert len(kern.run2.signatures) == len(kern.runnd.signatures) == 1


def test_a_call_with_other_types_is_refused_not_compiled():
    warm_up(2)
    with pytest.raises(TypeError, match="No matching definition"):
        kern._grow1(np.zeros(3, dtype=np.int32), 4)
    with pytest.raises(TypeError, match="No matching definition"):
        kern._grow1(np.zeros(3, dtype=np.int64)[::2], 4)   # not contiguous
    readonly = np.zeros(3, dtype=np.int64)
    readonly.setflags(write=False)
    with pytest.raises(TypeError, match="No matching definition"):
        kern._grow1(readonly, 4)
    assert len(kern._grow1.signatures) <= 1


def test_the_training_loop_is_compiled_once():
    x = np.linspace(-1.0, 1.0, 40)
    for batch in (None, 8):
        HingeNetTrainer(x, x ** 2, hidden=4, seeds=[0, 1], batch_size=batch,
                        backend="compiled").advance(5)
    assert training_kernels.compiled_available(), training_kernels._compile_error
    loop = training_kernels._compiled
    search = loop.py_func.__globals__["_search"]
    assert len(loop.signatures) == 1
    # compiled here, _search has its one signature; loaded from the disk cache, its
    # code came inside the loop's and it has none
    assert len(search.signatures) == (training_kernels.compiled_status() == "compiled")


def test_compiling_does_not_count_against_the_time_limit(monkeypatch):
    """A first run compiles the loops (seconds) before enumerating: a conversion's time
    limit is for the enumeration, or the very first one would always pass it."""
    import time

    from relulab.model.regions import arrangement

    warm_up()
    monkeypatch.setattr(arrangement, "_ready", set())
    monkeypatch.setattr(kern, "prepare", lambda entry, apart=False: time.sleep(0.5))
    net = MLP.random([2, 6, 6, 1], seed=0)
    assert count_regions_2d(net, max_seconds=0.3) > 0
    assert len(arrangement_nd(MLP.random([3, 4, 4, 1], seed=0), max_seconds=0.3)) > 0


def test_a_stopped_request_does_not_wait_for_the_compilation(monkeypatch):
    """With should_stop, an enumeration waits for the warm-up thread and gives up as
    soon as it is asked to (a closing panel does not hang on a compile)."""
    import threading

    from relulab.model.core.cancel import Cancelled
    from relulab.model.regions import arrangement

    warm_up()
    release = threading.Event()
    compiling = threading.Thread(target=release.wait, daemon=True)
    compiling.start()
    monkeypatch.setattr(arrangement, "_ready", set())
    monkeypatch.setattr(arrangement, "_warm_threads", {kern.run2: compiling})
    asked = []

    def should_stop():
        asked.append(1)
        return len(asked) > 3

    try:
        with pytest.raises(Cancelled):
            count_regions_2d(MLP.random([2, 4, 4, 1], seed=0), should_stop=should_stop)
        assert len(asked) == 4
    finally:
        release.set()


_LOCK_HELD = """
import threading
from numba.core.compiler_lock import global_compiler_lock
from relulab.model.regions.arrangement import arrangement_2d, arrangement_nd, count_regions_2d, warm_up
from relulab.model.networks.mlp import MLP

warm_up()
held, release, done = threading.Event(), threading.Event(), threading.Event()


def hold():  # what a compilation in another thread does, for seconds
    with global_compiler_lock:
        held.set()
        release.wait()


def enumerate_():
    net = MLP.random([2, 6, 6, 1], seed=0)
    count_regions_2d(net, should_stop=lambda: False)
    arrangement_2d(net, exact_only=True)
    arrangement_nd(MLP.random([3, 4, 4, 1], seed=0), should_stop=lambda: False, exact_only=True)
    done.set()


threading.Thread(target=hold, daemon=True).start()
held.wait()
threading.Thread(target=enumerate_, daemon=True).start()
print("done" if done.wait(30) else "waited for the compiler lock")
release.set()
"""


def test_a_warm_engine_never_waits_for_a_compilation_in_another_thread():
    """The object-mode callbacks (stop requests, exact signs) are built on first use
    under numba's compiler lock: warm_up builds them, or a region count would wait
    for the other kind of loop (or the training loop) to finish compiling."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _LOCK_HELD], capture_output=True, text=True,
                         timeout=600, check=True)
    assert out.stdout.strip() == "done", out.stderr


_WITHOUT_NUMBA = """
import json
from relulab.model.networks.mlp import MLP
from relulab.model.regions import _arrangement_kernels as kern
from relulab.model.regions.activation import linear_regions, region_polygons
from relulab.model.regions.arrangement import arrangement_nd, count_regions_2d, engine_status
from relulab.model.fitting import _training_kernels as training_kernels

net = MLP.random([2, 4, 3, 1], seed=5)
polygons = region_polygons(net, (-3.0, 3.0, -3.0, 3.0))
regions = linear_regions(net)
print(json.dumps({
    "regions_2d": count_regions_2d(net),
    "regions_nd": len(arrangement_nd(MLP.random([3, 3, 2, 1], seed=2))),
    "status": engine_status(2),
    "compiled": len(kern.COMPILED),
    "training": training_kernels.compiled_available(),
    "polygons": [polygons.points.tolist(), polygons.start.tolist(), polygons.A.tolist()],
    "regions": [regions.rows.tolist(), regions.row_start.tolist(), regions.witness.tolist(),
                regions.piece_points.tolist(), regions.A.tolist()],
}))
"""


def test_the_region_engine_runs_as_plain_python_without_numba():
    """RELULAB_NO_NUMBA turns numba off for every compiled loop: the region engine runs
    its loops as plain Python, and counts the same regions and reads the same polygons,
    rows, witnesses and maps out of them."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, RELULAB_NO_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", _WITHOUT_NUMBA], env=env, capture_output=True,
                         text=True, timeout=600, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["status"] == "not compiled (disabled by RELULAB_NO_NUMBA: plain Python, slow)"
    assert got["compiled"] == 0 and got["training"] is False
    assert got["regions_2d"] == count_regions_2d(MLP.random([2, 4, 3, 1], seed=5))
    assert got["regions_nd"] == len(arrangement_nd(MLP.random([3, 3, 2, 1], seed=2)))
    net = MLP.random([2, 4, 3, 1], seed=5)
    polygons = region_polygons(net, (-3.0, 3.0, -3.0, 3.0))
    regions = linear_regions(net)
    for plain, compiled in zip(got["polygons"] + got["regions"],
                               (polygons.points, polygons.start, polygons.A, regions.rows,
                                regions.row_start, regions.witness, regions.piece_points,
                                regions.A)):
        assert np.allclose(np.array(plain), compiled, rtol=1e-14, atol=0)


def test_every_region_loop_is_cached_against_all_of_the_engines_sources():
    """An entry point's cached code holds the code of the helpers it calls, which live in
    other files: its disk cache is keyed on all of them, so a change to a helper compiles
    the entry point again instead of loading a stale one."""
    import hashlib
    from pathlib import Path

    if not kern.disk_cached(kern.run2):
        pytest.skip("numba has no place for a disk cache here")
    files = sorted({fn.py_func.__code__.co_filename for fn in kern.COMPILED})
    assert [Path(f).name for f in files] == ["_kernels_2d.py", "_kernels_nd.py",
                                             "_kernels_readout.py", "_kernels_shared.py"]
    digest = hashlib.sha256()
    for path in files:
        digest.update(hashlib.sha256(Path(path).read_bytes()).digest())
    stamps = {fn._cache._cache_file._source_stamp for fn in kern.COMPILED}
    assert stamps == {digest.digest()}
