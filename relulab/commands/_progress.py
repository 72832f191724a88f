"""What a command says while it works.

On a terminal (standard error is one) each stage of the work is a line that updates in
place, drawn by ``rich`` (a spinner, what is being done, a bar and the time: a bar that
fills as the expected time passes when the stage says how long it should take, and one
that counts when it says how many steps it has), and is wiped when the stage ends.
Anywhere else (a pipe, a log file, CI, tests) nothing moves: a stage is one plain line
``relulab <command>: <stage>…``, written only when the whole job is expected to take
:data:`PLAIN_SECONDS` or more, so that a quick run stays silent.

Lines said with :meth:`Progress.say` stay, on a terminal above the moving ones.
Without ``rich`` installed (a wheel installed without its dependencies) a terminal
gets the plain lines too.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

#: Off a terminal, a job expected to take at least this long announces its stages.
PLAIN_SECONDS = 2.0


def is_terminal(stream: TextIO | None) -> bool:
    """True when ``stream`` is an interactive terminal (a windowless app has none)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or not a real file
        return False


def duration(seconds: float) -> str:
    """A rough time in words: "under a second", "about 20 s", "about 4 min", "about 2 h"."""
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {max(1, round(seconds, -1 if seconds >= 15 else 0)):.0f} s"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60):.0f} min"
    return f"about {seconds / 3600:.1f} h".replace(".0 h", " h")


class Stage:
    """One stage under way: :meth:`advance` counts its steps (when it has a total)."""

    def __init__(self, progress: Progress, task: Any = None):
        self._progress, self._task = progress, task

    def advance(self, steps: int = 1) -> None:
        if self._task is not None and self._progress.bars is not None:
            self._progress.bars.advance(self._task, steps)


class Progress:
    """Progress of one command on standard error; use as a context manager, so that the
    moving lines are gone before the command's last word (or its one-line failure)."""

    def __init__(self, command: str, stream: TextIO | None = None, terminal: bool | None = None):
        self.command = command
        self.stream = sys.stderr if stream is None else stream
        self.terminal = is_terminal(self.stream) if terminal is None else terminal
        #: stages are announced (always on a terminal; off one, for long jobs)
        self.loud = self.terminal
        self.bars: Any = None        # rich.progress.Progress while a stage is shown
        self._rich_failed = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.bars is not None:
            bars, self.bars = self.bars, None
            bars.stop()

    def expect(self, seconds: float) -> None:
        """The job is expected to take about ``seconds``: off a terminal, a long one
        announces its stages from here on."""
        if seconds >= PLAIN_SECONDS:
            self.loud = True

    def say(self, text: str) -> None:
        """A line that stays: ``relulab <command>: text``."""
        from relulab.io.limits import one_line

        line = f"relulab {self.command}: {one_line(text, 1000)}"
        if self.bars is not None:
            self.bars.console.print(line, markup=False, highlight=False, soft_wrap=True)
        elif self.stream is not None:
            print(line, file=self.stream, flush=True)

    @contextlib.contextmanager
    def stage(self, text: str, expected: float | None = None,
              total: int | None = None) -> Iterator[Stage]:
        """``text`` is under way: expected to take about ``expected`` seconds, or made of
        ``total`` steps (counted with :meth:`Stage.advance`)."""
        if not self.loud:
            yield Stage(self)
            return
        bars = self._bars()
        if bars is None:
            self.say(f"{text}…" if expected is None or expected < 1 else
                     f"{text} ({duration(expected)})…")
            yield Stage(self)
            return
        task = bars.add_task(text, total=total, expected=expected)
        try:
            yield Stage(self, task)
        finally:
            bars.remove_task(task)

    def _bars(self) -> Any:
        """The terminal's moving lines (started on first use), or None off a terminal or
        without ``rich``."""
        if not self.terminal or self._rich_failed:
            return None
        if self.bars is None:
            try:
                self.bars = _rich_bars(self.stream)
            except ImportError:
                self._rich_failed = True
                return None
            self.bars.start()
        return self.bars


def _rich_bars(stream: TextIO) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.progress_bar import ProgressBar

    class ExpectedBar(BarColumn):
        """Counts a stage's steps, or fills as its expected time passes (never quite
        full: the estimate is rough), or pulses when neither is known."""

        def render(self, task: Any) -> ProgressBar:
            expected = task.fields.get("expected")
            if task.total is None and expected:
                done = min(0.99, (task.elapsed or 0.0) / expected)
                return ProgressBar(total=1.0, completed=done, width=self.bar_width)
            return super().render(task)

    class Expected(TextColumn):
        def render(self, task: Any):
            from rich.text import Text

            expected = task.fields.get("expected")
            if task.total is not None:
                return Text(f"{task.completed:,.0f}/{task.total:,.0f}")
            return Text(f"of {duration(expected)}" if expected and expected >= 1 else "")

    # only ever made for a terminal (or what a caller says is one)
    console = Console(file=stream, force_terminal=True, highlight=False)
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), ExpectedBar(),
                    TimeElapsedColumn(), Expected(""), console=console, transient=True,
                    redirect_stdout=False, redirect_stderr=False)
