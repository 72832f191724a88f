"""What differs between Linux, Windows and macOS, named in one place.

Every path of the app that depends on the operating system goes through this module;
no other module of the app tests ``sys.platform`` or ``os.name`` itself (the build
files in ``packaging/`` choose icons per system). Each check reads ``sys.platform``
when it is called, so a test can play another system by setting it: Windows and macOS
are simulated in ``tests/test_platform.py``, not run.

Each path, and what it does on Linux / macOS / Windows:

- free heap pages given back after a job: glibc's ``malloc_trim`` / nothing / nothing
  (:func:`give_back_free_memory`);
- a worker thread below the GUI thread: its own nice value / nothing / nothing
  (:func:`lower_this_thread`);
- the compiling child: nice 10 / nice 10 / below-normal priority class and no console
  window (:func:`lower_this_process`, :func:`child_flags`, :func:`run_child`);
- a child running Python code: ``spawn`` on all three (:func:`process_context`);
  the frozen app starts its own executable (:func:`is_frozen`);
- a child running a command of the app (``relulab lecture export``): ``python -m
  relulab``, or the frozen app told the command by an environment variable
  (:func:`command_line`);
- a save's rename over a file another program holds open: done / done / tried again
  for under a second, then refused with a message that says so (:func:`replace`);
- that rename made durable: fsync of the folder / the same / nothing to do
  (:func:`sync_folder`);
- is process ``pid`` alive: signal 0 / signal 0 / unknown, never ``os.kill``, which
  ends it there (:func:`process_alive`);
- a character the console cannot show: none (UTF-8) / none / written as an escape,
  not an error (:func:`tolerant_console`).

Saving through a symbolic link (the link's target gets the new content) and paths
with spaces or non-ASCII characters need no branch: ``os.path.realpath`` resolves
links on every system, and every path stays a ``str`` or ``Path`` end to end (never
bytes, never the console's encoding). The tests check both through saving and
loading networks and scenes and through the command line.
"""

from __future__ import annotations

import ctypes
import errno
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.context import BaseContext
from typing import Any

#: Windows: a child starts without a console window flashing up
#: (``subprocess.CREATE_NO_WINDOW``), and below the app's priority
#: (``subprocess.BELOW_NORMAL_PRIORITY_CLASS``). Spelled out: those names exist on
#: Windows only, and the simulated Windows of the tests needs the values.
CREATE_NO_WINDOW = 0x08000000
BELOW_NORMAL_PRIORITY_CLASS = 0x00004000

#: How often a replace refused by Windows is tried in all, and the first wait between
#: tries (doubled each time: 0.05 + 0.1 + 0.2 + 0.4 s, under a second in all). Windows
#: refuses to replace a file another program holds open without sharing deletion (an
#: editor, a virus scanner or a search indexer reading the file just saved); they let
#: go within moments.
REPLACE_TRIES = 5
REPLACE_WAIT = 0.05


def is_windows() -> bool:
    return sys.platform == "win32"


def is_macos() -> bool:
    return sys.platform == "darwin"


def is_linux() -> bool:
    return sys.platform.startswith("linux")


def is_frozen() -> bool:
    """True in the desktop bundle (PyInstaller), whose ``sys.executable`` is the app
    itself, not a Python that can run ``-m``."""
    return bool(getattr(sys, "frozen", False))


# -- memory --------------------------------------------------------------------------------

_UNSET: Any = object()
_trim: Any = _UNSET


def _load_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None elsewhere (macOS, Windows, musl's libc)."""
    if not is_linux():
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def give_back_free_memory() -> bool:
    """Return the heap's free pages to the system after a job; True when something was
    asked to (glibc), False where there is nothing to call.

    A job's temporaries (a conversion's matrices: hundreds of MB) are freed into the
    worker thread's own malloc arena, which glibc keeps for later; one conversion after
    another then grew the app by 350 MB that nothing used. ``malloc_trim`` releases
    them (all arenas; ctypes lets go of the GIL meanwhile). macOS and Windows give
    large blocks back on free, and have no such call."""
    global _trim
    if _trim is _UNSET:
        _trim = _load_malloc_trim()
    if _trim is None:
        return False
    _trim(0)
    return True


# -- priorities ------------------------------------------------------------------------------

def lower_this_thread(niceness: int) -> bool:
    """Run the calling thread ``niceness`` below the others of the process (Linux, where
    a thread has a nice value of its own); True when done. Elsewhere nothing happens:
    on macOS and the BSDs ``setpriority`` takes a process id, and the thread's id would
    name another process."""
    if not is_linux():
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
    except (AttributeError, OSError):
        return False
    return True


def lower_this_process(niceness: int) -> bool:
    """Run this whole process ``niceness`` lower (Unix ``nice``); True when done. A
    Windows child gets its lower priority when started (:func:`child_flags`)."""
    if not hasattr(os, "nice") or is_windows():
        return False
    try:
        os.nice(niceness)
    except OSError:
        return False
    return True


# -- child processes ----------------------------------------------------------------------

def child_flags() -> int:
    """``creationflags`` for a background child process: on Windows no console window
    and a priority below the app's; 0 elsewhere (where any other value is an error)."""
    return CREATE_NO_WINDOW | BELOW_NORMAL_PRIORITY_CLASS if is_windows() else 0


#: The environment variable that makes the frozen app run one of its commands
#: (``relulab lecture …``) instead of opening a window: packaging/launcher.py reads it.
RUN_COMMAND_VARIABLE = "RELULAB_RUN_COMMAND"


def command_line(command: str, args: list[str]) -> tuple[str, list[str], dict[str, str]]:
    """How the app starts ``relulab COMMAND ARGS…`` as a child: the program, its
    arguments and the environment variables to add. A Python runs ``-m relulab``; the
    frozen app's ``sys.executable`` is the app itself, told the command by
    :data:`RUN_COMMAND_VARIABLE` (its own arguments may be the system's, not ours)."""
    if is_frozen():
        return sys.executable, list(args), {RUN_COMMAND_VARIABLE: command}
    return sys.executable, ["-m", "relulab", command, *args], {}


def process_context() -> BaseContext:
    """How the app starts a child that runs Python code of its own: ``spawn`` on every
    system. It is the only way on Windows and the default on macOS; on Linux the
    default ``fork`` copies a process with Qt's and numba's threads mid-way, whose
    locks the child then never gets. With spawn the child imports what it runs afresh,
    the same on all three, so what is tested here is what runs there. The frozen app
    needs ``multiprocessing.freeze_support()`` in its launcher (it is there)."""
    return multiprocessing.get_context("spawn")


def process_alive(pid: int) -> bool:
    """False only when process ``pid`` is known to be gone. Unix asks with signal 0;
    on Windows ``os.kill`` ends the process whatever the signal, so there is no cheap,
    harmless check: assume alive."""
    if pid == os.getpid():
        return True
    if is_windows():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but belongs to someone else
        return True
    return True


# -- files ---------------------------------------------------------------------------------

def replace(source: str | os.PathLike, target: str | os.PathLike) -> None:
    """``os.replace(source, target)``, which Windows refuses (PermissionError) while
    another program holds ``target`` open: tried :data:`REPLACE_TRIES` times there,
    then a PermissionError that says the file is open elsewhere. On Linux and macOS an
    open file is replaced at once (its readers keep the old one); a PermissionError
    there is about the folder and is raised as it is."""
    wait = REPLACE_WAIT
    for attempt in range(REPLACE_TRIES):
        try:
            os.replace(source, target)
            return
        except PermissionError as exc:
            if not is_windows():
                raise
            if attempt == REPLACE_TRIES - 1:
                raise PermissionError(
                    exc.errno or errno.EACCES,
                    "another program has the file open (Windows does not replace an open "
                    "file); close it there and save again", str(target)) from exc
        time.sleep(wait)
        wait *= 2


def sync_folder(folder: str | os.PathLike) -> bool:
    """Make a rename in ``folder`` durable: fsync of the folder on Linux and macOS; True
    when done. Windows cannot open a folder as a file, and its rename is recorded by the
    file system's own journal: nothing to do there."""
    if is_windows():
        return False
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return False
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse a folder's fsync
        return False
    finally:
        os.close(fd)
    return True


def tolerant_console() -> None:
    """Let standard output and error write what their encoding cannot show as an escape
    (``\\u2212``) instead of raising. A Windows console whose output is redirected to a
    file or a pipe encodes in the ANSI code page (cp1252 has no "−", no "日本"): a
    command's report, or a file name it quotes, then failed the command after its work
    was done. Linux and macOS consoles are UTF-8 and never meet one."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            reconfigure(errors="backslashreplace")


def run_child(command: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """Run a background child (no input, output dropped, errors kept) with
    :func:`child_flags`."""
    return subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=timeout, creationflags=child_flags(),
                          check=False)
