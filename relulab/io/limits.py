"""Reading files from other people within bounds, before any parsing starts.

Scenes and network files arrive from lecturers' playlists and colleagues' exports:
they may be links to ``/dev/zero``, FIFOs, folders, or small files that expand to
gigabytes. Everything here bounds time and memory *before* the expensive work:

- :func:`read_file` reads regular files only (checked on the opened file too),
  refuses an oversized file from its size and again while reading, with a cap;
- :func:`check_json_text` measures nesting depth and element counts of JSON text
  without building it (a regular expression blanks out strings, then plain counts);
- :func:`one_line` makes any text safe to show as one line of a message.

Problems raise :class:`FileRefused` (a ValueError) carrying only the problem; the
callers add the file name and their own error type. Qt-free.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: A file name as callers give it: text or a path.
StrPath = str | os.PathLike[str]


class FileRefused(ValueError):
    """A file refused before parsing; ``str()`` is the problem, phrased to follow the
    file's name ("is a folder, not a file")."""


def megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _kind_problem(mode: int) -> str | None:
    """Why a file of this mode cannot be read as a document (None for regular files)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "is a pipe (FIFO), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    return "is not a regular file"


# O_NONBLOCK: opening a FIFO that was swapped in after the check must not wait for a
# writer; O_NOCTTY: a terminal never becomes ours. Both are no-ops on regular files.
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_BINARY", 0))


def read_file(path: StrPath, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path`` (links followed), at most ``max_bytes``.

    Raises FileNotFoundError when nothing is there, FileRefused for anything that is
    not a regular file, is larger than ``max_bytes`` (by its size, or by what reading
    it yields: files in /proc say 0 and never end) or cannot be read.
    """
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:  # a loop of links, a name too long, no permission
        raise FileRefused(f"cannot be read ({exc.strerror or exc})") from None
    problem = _kind_problem(st.st_mode)
    if problem:
        raise FileRefused(problem)
    if st.st_size > max_bytes:
        raise FileRefused(f"is {megabytes(st.st_size)}, larger than the {megabytes(max_bytes)} "
                          "allowed")
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise FileRefused(f"cannot be read ({exc.strerror or exc})") from None
    try:
        problem = _kind_problem(os.fstat(fd).st_mode)  # swapped after the first look?
        if problem:
            raise FileRefused(problem)
        with os.fdopen(fd, "rb", closefd=False) as f:
            # one buffer of max_bytes + 1 is reserved but only what the file holds is
            # touched: the cap bounds files whose size says nothing (/proc, growing files)
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise FileRefused(f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise FileRefused(f"holds more than the {megabytes(max_bytes)} allowed (its size said "
                          f"{megabytes(st.st_size)})")
    return data


# A closed JSON string, escapes included; possessive, so no input makes it backtrack.
_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)
_NOT_BRACKETS = bytes(i for i in range(256) if i not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
#: Numbers written with more digits than this are refused by the readers (a double
#: holds about 17 significant digits and ends at 1.8e308).
MAX_NUMBER_DIGITS = 300
# digits -> "1", everything else -> "0": a long number is a long run of "1" (a bytes
# search, ten times faster than a regular expression over the text)
_DIGIT_MAP = bytes(0x31 if 0x30 <= i <= 0x39 else 0x30 for i in range(256))
_LONG_RUN = b"1" * (MAX_NUMBER_DIGITS + 1)


@dataclass(frozen=True)
class JsonShape:
    """What :func:`check_json_text` measured: ``cut_short`` when a string, list or
    object is still open at the end of the text (a truncated file); ``long_numbers``
    when some number has more than MAX_NUMBER_DIGITS digits."""

    depth: int
    containers: int
    values: int
    cut_short: bool
    long_numbers: bool


def check_json_text(text: str, max_depth: int, max_containers: int, max_values: int) -> JsonShape:
    """Refuse JSON text that would nest deeper than ``max_depth`` or hold more than
    ``max_containers`` lists and objects or more than ``max_values`` values, before
    it is parsed (a deep file exhausts the parser's stack, a file of ``[[],[],…]``
    takes twenty times its size in memory). Cost: a few passes in C over the text."""
    skeleton = _JSON_STRING.sub("", text)
    # a quote left over opens a string that never closes: the rest is inside it
    open_string = skeleton.find('"')
    if open_string >= 0:
        skeleton = skeleton[:open_string]
    raw = skeleton.encode("utf-8", "surrogatepass")  # bytes: every pass below runs in C
    containers = raw.count(b"[") + raw.count(b"{")
    if containers > max_containers:
        raise FileRefused(f"holds {containers:,} lists and objects; at most {max_containers:,} "
                          "are allowed")
    # each container's first element is not preceded by a comma: values <= commas + containers + 1
    values = raw.count(b",") + containers + 1
    if values > max_values:
        raise FileRefused(f"holds about {values:,} values; at most {max_values:,} are allowed")
    levels = list(itertools.accumulate(map(_STEP.__getitem__, raw.translate(None, _NOT_BRACKETS))))
    depth = max(levels, default=0)
    if depth > max_depth:
        raise FileRefused(f"is nested {depth} levels deep; at most {max_depth} are allowed")
    return JsonShape(depth, containers, values,
                     cut_short=open_string >= 0 or bool(levels and levels[-1] > 0),
                     long_numbers=_LONG_RUN in raw.translate(_DIGIT_MAP))


class DuplicateKey(ValueError):
    """A JSON object that names a key twice (``str()`` says which)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: an object, or DuplicateKey when a key is
    written twice (JSON leaves open which one counts; Python would take the last
    silently, another reader the first)."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise DuplicateKey(f"the key {shown_name(key)!r} appears twice in one object (JSON "
                               "does not say which counts: keep one)")
        seen.add(key)
    raise AssertionError("unreachable: fewer keys than pairs means a key repeats")


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def one_line(text: Any, limit: int = 400) -> str:
    """``text`` as one printable line of at most ``limit`` characters (control
    characters and line breaks become spaces; the middle of long text is elided)."""
    text = _CONTROL.sub(" ", str(text)).strip()
    if len(text) > limit:
        half = (limit - 1) // 2
        text = text[:half] + "…" + text[-half:]
    return text


def shown_name(name: str, limit: int = 40) -> str:
    """A name taken from a file (a panel key, an ONNX node name), safe for a message."""
    name = one_line(name, limit)
    return name if name else "(empty)"
