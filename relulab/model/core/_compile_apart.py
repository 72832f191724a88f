"""Compiling the numba loops in a process of their own, which fills numba's disk cache
for the app to load.

Why: a first compilation is seconds of pure-Python work in numba and llvmlite. On a
thread of the app it shares the GIL with the GUI thread, and every redraw in those
seconds ran two to three times slower: the Playground's first overlay stalled the
window for 80–200 ms while the region engine compiled beside it. A child process
compiles on a core of its own and writes numba's disk cache (atomically: a file is
written aside, then renamed); the app then loads the loops from there in a fraction
of a second, as every later start does.

The child is ``python -m relulab.model.core._compile_apart TARGET``, or in a frozen app
(PyInstaller) the app's own executable with ``RELULAB_COMPILE_TARGET=TARGET`` set,
which its launcher hands to :func:`main` before anything else starts.
"""

from __future__ import annotations

import importlib
import logging
import os
import subprocess
import sys

from relulab.model.core import platform

log = logging.getLogger(__name__)

#: what a child can compile, and the module whose ``compile_for_cache(target)`` does it
#: (named by string: the kernels import this module, not the other way round)
TARGETS = {
    "regions-2d": "relulab.model.regions._arrangement_kernels",
    "regions-nd": "relulab.model.regions._arrangement_kernels",
    "training": "relulab.model.fitting._training_kernels",
}
#: the environment variable that makes a frozen app a compiling child
TARGET_VARIABLE = "RELULAB_COMPILE_TARGET"
#: a child still compiling after this long is given up (the app then compiles itself)
TIMEOUT = 600.0
#: the child's exit status when it compiled but could not write the disk cache
NOT_CACHED = 3


def fill_disk_cache(target: str) -> bool:
    """Compile ``target`` (one of :data:`TARGETS`) in a child process at low priority
    and wait for it (the waiting thread holds no lock the GUI needs). True when the
    child says the loops are in the disk cache; False when it could not start, failed,
    took too long or found no place for a cache: the caller then compiles itself."""
    if target not in TARGETS:
        raise ValueError(f"no such compile target: {target!r}")
    env = dict(os.environ)
    if platform.is_frozen():  # sys.executable is the app, not a Python
        command = [sys.executable]
        env[TARGET_VARIABLE] = target
    else:
        command = [sys.executable, "-m", __name__, target]
        # the child imports this package from where the app did, installed or not
        root = os.path.abspath(__file__)
        for _ in range(4):  # relulab/model/core/_compile_apart.py
            root = os.path.dirname(root)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    try:  # Windows: no console flashes up, and a priority below the app's
        done = platform.run_child(command, env, TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("compiling %s in a separate process failed: %s", target, exc)
        return False
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        log.info("compiling %s in a separate process ended with status %s: %s", target,
                 done.returncode, why[0])
    return done.returncode == 0


def main(target: str) -> int:
    """In the child: compile ``target`` into numba's disk cache. Exit status 0 when it
    is there, :data:`NOT_CACHED` when it compiled with no place to keep it, 2 for an
    unknown target, 1 on any other failure."""
    if target not in TARGETS:
        print(f"no such compile target: {target!r} (one of {', '.join(TARGETS)})",
              file=sys.stderr)
        return 2
    platform.lower_this_process(10)  # below the app, whose window must keep answering
    return importlib.import_module(TARGETS[target]).compile_for_cache(target)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(f"usage: python -m {__spec__.name if __spec__ else 'relulab.model.core._compile_apart'} "
              f"{{{','.join(TARGETS)}}}", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
