"""The edge every command shares: a failure is one line on stderr with its exit code,
Ctrl+C exits 130, and whatever else escapes is still one line (naming the file being
worked on, when the command says which)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


class Failure(Exception):
    """What a command refuses: ``message`` is said, ``code`` is the exit status."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


class OneLineParser(argparse.ArgumentParser):
    """argparse's refusals as one line (a :class:`Failure` with exit status 2), not its
    usage block; ``hint`` names where to read more, after the message."""

    hint = ""

    def error(self, message):
        raise Failure(f"{message}{self.hint}", 2)


def say(command: str, message: str) -> None:
    from relulab.io.limits import one_line

    print(f"relulab {command}: {one_line(message, 1000)}", file=sys.stderr)


def run(command: str, body: Callable[[list[str], list[str]], int],
        argv: list[str] | None) -> int:
    """``body(argv, reading)`` within the edge; ``reading`` is where the body appends
    the file it is working on, for the catch-all's message."""
    argv = sys.argv[1:] if argv is None else list(argv)
    reading: list[str] = []
    try:
        return body(argv, reading)
    except Failure as e:
        say(command, str(e))
        return e.code
    except KeyboardInterrupt:
        say(command, "interrupted")
        return 130
    except Exception as e:
        where = f"{reading[-1]}: " if reading else ""
        say(command, f"{where}{type(e).__name__}: {e}")
        return 1
