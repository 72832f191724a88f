"""Stopping long work early: one exception and one check, used by every model loop.

The UI runs long computations (region enumeration, deep tents, conversions,
training) on a worker and passes ``should_stop``, a function that returns True
once the result is no longer wanted (a newer request, a closing panel). Model
loops call :func:`check` at points where stopping leaves nothing half-done.
"""

from __future__ import annotations

from collections.abc import Callable

ShouldStop = Callable[[], bool] | None


class Cancelled(Exception):
    """The work was asked to stop (``should_stop()`` returned True)."""


def check(should_stop: ShouldStop, where: str = "") -> None:
    """Raise :class:`Cancelled` when ``should_stop`` is given and returns True."""
    if should_stop is not None and should_stop():
        raise Cancelled(where)
