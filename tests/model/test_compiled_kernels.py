"""The compiled loops are compiled once per function, for the argument types declared
with them: numba otherwise compiles a function again for every new combination of
argument types it meets (a literal constant, a read-only array, an int for a float),
and each extra compilation of the engine's loops costs seconds on a user's first use."""

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from relulab.model import _arrangement_kernels as kern
from relulab.model import _training_kernels as training_kernels
from relulab.model.arrangement import arrangement_2d, arrangement_nd, count_regions_2d, warm_up
from relulab.model.mlp import MLP
from relulab.model.training import HingeNetTrainer


def _representative_runs():
    """Box and plane, with and without maps, exact-only, a degenerate net, stops, n-D."""
    net = MLP.random([2, 6, 5, 1], seed=3)
    fan = MLP([(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.zeros(3)),
               (np.ones((1, 3)), np.zeros(1))])
    count_regions_2d(net, box=(-2.0, 2.0, -1.0, 3.0))
    count_regions_2d(fan, should_stop=lambda: False)
    arrangement_2d(net).maps
    arrangement_2d(fan, exact_only=True)
    arrangement_nd(MLP.random([3, 5, 4, 1], seed=1), max_regions=10_000)
    arrangement_nd(fan, exact_only=True)


def test_every_compiled_function_declares_its_argument_types():
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
    if training_kernels.compile_error() is not None:
        pytest.fail(training_kernels.compile_error())
    loop = training_kernels._compiled
    search = loop.py_func.__globals__["_search"]
    assert len(loop.signatures) == 1
    assert len(search.signatures) == 1
