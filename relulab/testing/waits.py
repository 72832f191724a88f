"""Waiting for the app's signals, in tests and in scripts (no pytest needed).

Start waiting *before* the action that leads to the signal: some work ends at once
(a shallow tent is counted while ``set_depth`` runs), and a signal emitted before
the wait began would be missed::

    with finished(panel, "training"):
        panel.play()
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from PySide6.QtCore import QEventLoop, QTimer

#: Seconds a wait lasts before it fails. The first use of a compiled loop (training,
#: the region engine) compiles it, which takes seconds on a slow machine.
TIMEOUT = 120.0


class SignalTimeout(AssertionError):
    """The awaited signal did not come in time."""


class Arrival:
    """What came: ``args`` of the first matching emission (empty until then)."""

    def __init__(self):
        self.args: tuple = ()
        self.arrived = False


@contextmanager
def waiting_for(signal, check: Callable[..., bool] | None = None, timeout: float = TIMEOUT,
                what: str = "the signal") -> Iterator[Arrival]:
    """Run the block, then run the event loop until ``signal`` is emitted with
    arguments that ``check`` accepts (any, without ``check``). Raises
    :class:`SignalTimeout` after ``timeout`` seconds."""
    arrival = Arrival()
    loop = QEventLoop()

    def arrived(*args):
        if not arrival.arrived and (check is None or check(*args)):
            arrival.args, arrival.arrived = args, True
            loop.quit()

    signal.connect(arrived)
    try:
        yield arrival
        if not arrival.arrived:
            timer = QTimer()
            timer.setSingleShot(True)
            timer.timeout.connect(loop.quit)
            deadline = time.monotonic() + timeout
            while not arrival.arrived and time.monotonic() < deadline:
                timer.start(max(1, int(1000 * (deadline - time.monotonic()))))
                loop.exec()
            timer.stop()
        if not arrival.arrived:
            raise SignalTimeout(f"{what} did not come within {timeout:g} s")
    finally:
        # RuntimeError: the signal's object was deleted meanwhile (a closed window)
        with suppress(RuntimeError):
            signal.disconnect(arrived)


@contextmanager
def finished(panel, work: str | None = None, timeout: float = TIMEOUT) -> Iterator[Arrival]:
    """Run the block, then wait until ``panel.finished`` says that ``work`` (any work
    when None) is done; its results are then on screen and in ``panel.readouts()``.
    The works of each panel are listed in docs/automation.md."""
    with waiting_for(panel.finished, None if work is None else (lambda w: w == work), timeout,
                     f"{type(panel).__name__}.finished({work!r})") as arrival:
        yield arrival


def wait_until(condition: Callable[[], bool], timeout: float = TIMEOUT,
               what: str = "the condition") -> None:
    """Run the event loop until ``condition()`` is true (checked every 10 ms)."""
    loop = QEventLoop()
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SignalTimeout(f"{what} was not met within {timeout:g} s")
        QTimer.singleShot(10, loop.quit)
        loop.exec()
