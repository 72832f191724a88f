"""Where a command writes its network, and in which format.

The format is the output name's extension (``.json``, ``.npz``, ``.onnx``) or
``--format``. When neither names one (no output name, or a name without an extension)
the network is written as JSON up to :data:`JSON_DEFAULT_BYTES` and as NPZ beyond:
JSON that large is slow to write and read (about twenty bytes a number against NPZ's
eight) and no one reads it by eye. JSON asked for by name is written up to
:data:`JSON_MAX_BYTES`, the largest JSON network relulab reads back
(:data:`relulab.io.networks.MAX_JSON_BYTES`); beyond, the command refuses in one line
naming ``--format npz``, whatever ``--force`` says.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from relulab.commands._edge import Failure
from relulab.commands._plan import Layout, bytes_text

#: Without a format named, JSON up to this size and NPZ beyond.
JSON_DEFAULT_BYTES = 8 * 1024 * 1024
FORMATS = ("json", "npz", "onnx")


def json_max_bytes() -> int:
    """JSON named explicitly is written up to the size relulab reads back."""
    from relulab.io.networks import MAX_JSON_BYTES

    return MAX_JSON_BYTES


def format_help() -> str:
    """What ``--format`` says in a command's help: both sizes."""
    return (f"the output's format (default: OUT's extension; without one, JSON up to "
            f"{bytes_text(JSON_DEFAULT_BYTES)} and NPZ beyond; JSON is refused beyond the "
            f"{bytes_text(json_max_bytes())} relulab reads back)")


@dataclass(frozen=True)
class Output:
    """Where to write: ``base`` (the path without the format's extension when the format
    is still open), and ``fmt``, None until the size chooses it."""

    base: Path
    fmt: str | None
    named: bool            # the format was named (extension or --format)

    def path(self, fmt: str) -> Path:
        return self.base if self.base.suffix.lower() == f".{fmt}" else \
            self.base.with_name(f"{self.base.name}.{fmt}")

    def predicted(self, layout: Layout) -> str:
        """The format the size will choose (the JSON's exact size decides at writing)."""
        if self.fmt is not None:
            return self.fmt
        return "json" if layout.json_bytes_about() <= JSON_DEFAULT_BYTES else "npz"

    def check_json(self, layout: Layout) -> None:
        """Refuse JSON asked for by name when even its least size passes the hard limit."""
        if self.fmt == "json" and layout.json_bytes_at_least() > json_max_bytes():
            raise Failure(_too_big_for_json(self.path("json"), layout.json_bytes_at_least(),
                                            layout, at_least=True))

    def write(self, net, layout: Layout) -> tuple[Path, int]:
        """Write ``net`` (its layout ``layout``) atomically; returns the path and bytes.
        Nothing is written when JSON named by name passes the hard limit."""
        from relulab.io.atomic import write_bytes_atomic
        from relulab.io.networks import NetworkFileError, network_to_bytes

        fmt = self.fmt
        data = None
        try:
            if fmt is None:
                fmt = "npz"
                if layout.json_bytes_at_least() <= JSON_DEFAULT_BYTES:
                    data = network_to_bytes(net, "json")
                    if len(data) <= JSON_DEFAULT_BYTES:
                        fmt = "json"
                    else:
                        data = None
            if data is None:
                data = network_to_bytes(net, fmt)
        except NetworkFileError as e:
            raise Failure(f"{self.path(fmt).name} not written: {e}") from None
        path = self.path(fmt)
        if fmt == "json" and len(data) > json_max_bytes():
            raise Failure(_too_big_for_json(path, len(data), layout, at_least=False))
        try:
            write_bytes_atomic(path, data)
        except OSError as e:
            raise Failure(f"{path.name}: cannot write ({e.strerror or e})") from None
        return path, len(data)


def _too_big_for_json(path: Path, size: int, layout: Layout, at_least: bool) -> str:
    return (f"{path.name}: {'at least ' if at_least else ''}{bytes_text(size)} as JSON, more "
            f"than the {bytes_text(json_max_bytes())} a JSON network may have to be read back; "
            f"write --format npz ({bytes_text(layout.npz_bytes())}); nothing written")


def resolve(name: str | None, fmt: str | None, default_base: str, command: str,
            source: str | None = None) -> Output:
    """The output of a command given ``name`` (None: ``default_base`` in the current
    folder) and ``--format`` ``fmt`` (None: the extension's, or the size's); refused
    when a file it may write is ``source``, the command's input (by any name or link)."""
    from relulab.io.networks import SUFFIXES

    if name is None:
        base = Path(default_base)
    else:
        base = Path(name)
        suffix = base.suffix.lower()
        if suffix:
            if suffix not in SUFFIXES:
                raise Failure(f"{base.name}: unknown output type {base.suffix!r}; use "
                              f"{', '.join(SUFFIXES)}, --format, or a name without an extension")
            if fmt is not None and suffix != f".{fmt}":
                raise Failure(f"{base.name}: the name ends in {base.suffix} but --format is "
                              f"{fmt} (see relulab {command} --help)", 2)
            fmt = suffix[1:]
        if not base.parent.exists():
            raise Failure(f"{base}: the folder {base.parent} does not exist")
    from relulab.io.atomic import check_writable

    out = Output(base, fmt, fmt is not None)
    for candidate in (fmt,) if fmt is not None else FORMATS:
        path = out.path(candidate)
        if source is not None and _same_file(path, Path(source)):
            raise Failure(f"{path.name}: the output is the input {source}; writing it would "
                          f"replace the network read (choose another OUT)", 2)
        try:  # refused now rather than after the work
            check_writable(path)
        except OSError as e:
            raise Failure(f"{path.name}: cannot write ({e.strerror or e})") from None
    return out


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (links, other spellings and hard links too)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist: then writing ``a`` cannot replace ``b``
        return False
