"""What the Hinges panel's worker runs: numpy and :mod:`relulab.model` only, no Qt.

The convergence study (the error against the number of hinges n, one row per n in
``DEFAULT_COUNTS``) takes about 0.6 s at 20,000 sample points, its slowest row about
0.13 s: far more than a frame (16 ms), so it runs on a
:class:`~relulab.ui.worker.Worker`, and its rows reach the plot one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from relulab.model.fitting.hinges import DEFAULT_COUNTS, ConvergenceRow, convergence_study

__all__ = ["ConvergenceJob", "ConvergenceRow", "convergence_job"]

#: A worker job: called with ``should_stop``, it returns a generator of rows.
ConvergenceJob = Callable[[Callable[[], bool]], Iterator[ConvergenceRow]]


def convergence_job(target: Callable, a: float, b: float, points: int) -> ConvergenceJob:
    """The study of ``target`` on [a, b] with ``points`` samples, as a job for
    ``Worker.submit``: ``job(should_stop)`` returns a generator of one
    :class:`~relulab.model.fitting.hinges.ConvergenceRow` per n in ``DEFAULT_COUNTS``.

    The worker delivers each row as it comes and checks ``should_stop`` between rows,
    so a newer request (another target, another number of points) stops the study
    after the row in hand (at most about 0.13 s of work at 20,000 points)."""

    def job(should_stop: Callable[[], bool]) -> Iterator[ConvergenceRow]:
        return convergence_study(target, a, b, DEFAULT_COUNTS, points)

    return job
