"""The compiled region engine's warm-up and readiness, for callers that must not import
it themselves: importing numba (and the scipy it imports) takes about half a second,
which a panel being created on the GUI thread cannot spend. See
:mod:`relulab.model.regions.arrangement` for the engine and its ``warm_up``.
"""

from __future__ import annotations

import sys
import threading

_ENGINE = "relulab.model.regions.arrangement"


def engine_ready(n_in: int | None = None) -> bool:
    """True once the compiled loops for networks with ``n_in`` inputs are ready (see
    :func:`relulab.model.regions.arrangement.engine_ready`); False while the engine is not even
    imported. Never blocks, never imports."""
    engine = sys.modules.get(_ENGINE)
    return engine is not None and hasattr(engine, "engine_ready") and engine.engine_ready(n_in)


def start_warm_up(n_in: int | None = 2) -> None:
    """Import the engine and warm it up for networks with ``n_in`` inputs, all on
    threads of their own; returns at once (see
    :func:`relulab.model.regions.arrangement.start_warm_up`)."""
    engine = sys.modules.get(_ENGINE)
    if engine is not None and hasattr(engine, "start_warm_up"):
        engine.start_warm_up(n_in)
        return
    threading.Thread(target=_import_and_start, args=(n_in,), daemon=True,
                     name="relulab-region-engine-import").start()


def _import_and_start(n_in) -> None:
    from relulab.model.regions import arrangement

    arrangement.start_warm_up(n_in)
