"""Atomic saves that respect the user's file.

A save writes a temporary file beside the target, flushes it to disk, then renames
it over the target: a crash (even kill -9) leaves the old file or the new one, never
half of either. On top of that:

- a symbolic link is written through: its target gets the new content, the link stays;
- the file keeps its permissions (a 0644 scene stays 0644); a new file gets the
  usual ones (0666 less the umask), not the 0600 of a private temporary file;
- a read-only file is refused with a message instead of being replaced;
- temporary files are named ``.<name>.relulab-<pid>-<random>.tmp``, and each save
  removes the ones an earlier, killed save of the same file left behind (their
  process is gone, or they are older than :data:`STALE_AFTER_S`);
- on Windows, a file another program holds open is replaced after it lets go, or
  refused with a message that says so (:func:`relulab.model.core.platform.replace`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import time
from pathlib import Path

from relulab.io.limits import StrPath
from relulab.model.core import platform

#: A temporary file older than this is litter even if its process id is in use again.
STALE_AFTER_S = 3600.0
_TAG = ".relulab-"
_SUFFIX = ".tmp"


def _temporary_prefix(target: Path) -> str:
    return f".{target.name}{_TAG}"


def _temporary_name(target: Path) -> str:
    return f"{_temporary_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}{_SUFFIX}"


def stale_temporaries(target: StrPath) -> list[Path]:
    """Temporary files of earlier saves of ``target`` whose process is gone or that are
    older than STALE_AFTER_S (a save in progress in another live process is kept)."""
    target = Path(target)
    prefix = _temporary_prefix(target)
    now = time.time()
    stale = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return []
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(_SUFFIX)):
            continue
        pid_text = name[len(prefix):-len(_SUFFIX)].split("-", 1)[0]
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S
        except OSError:
            continue
        if old or not pid_text.isdigit() or not platform.process_alive(int(pid_text)):
            stale.append(Path(entry.path))
    return stale


def remove_stale_temporaries(target: StrPath) -> int:
    """Remove what killed saves of ``target`` left behind; returns how many went."""
    removed = 0
    for path in stale_temporaries(target):
        try:
            path.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def _resolve(path: Path) -> Path:
    """Where the bytes go: the final target of a chain of symbolic links."""
    if not path.is_symlink():
        return path
    return Path(os.path.realpath(path))


def _existing(target: Path) -> os.stat_result | None:
    """The file a save would replace (None: there is none), or the OSError the save
    would meet: a folder, a device or pipe, a read-only file."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "it is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "it is not a regular file (a device or a pipe)")
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) \
            or not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only; save under another name "
                                            "or make it writable")
    return st


def check_writable(path: StrPath) -> None:
    """Raise the OSError a save of ``path`` would meet, before the work that makes its
    bytes starts: the target is a folder, a device or read-only, or its folder is
    missing or read-only."""
    target = _resolve(Path(path))
    _existing(target)
    folder = target.parent
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise PermissionError(errno.EACCES, f"the folder {folder} is read-only")


def write_bytes_atomic(path: StrPath, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one,
    never half; through symbolic links, keeping the file's permissions.

    Raises OSError (PermissionError for a read-only file, with a message that says so).
    """
    target = _resolve(Path(path))
    folder = target.parent
    st = _existing(target)
    remove_stale_temporaries(target)
    tmp = folder / _temporary_name(target)
    # 0o666: the kernel applies the umask, so a new file gets the usual permissions
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        platform.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    platform.sync_folder(folder)  # the rename itself made durable (not on Windows)


def write_text_atomic(path: StrPath, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))
