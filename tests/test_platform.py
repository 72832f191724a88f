"""Every path that differs between Linux, Windows and macOS
(:mod:`relulab.model.core.platform`), with the other systems simulated where they can
be: ``sys.platform`` set to theirs, and their behaviour played by the calls they make
(Windows refusing to replace an open file, no ``malloc_trim``, children started by
``spawn``). Paths with spaces and non-ASCII characters go through saving and loading
networks and scenes, a spawned child and the command line for real."""

from __future__ import annotations

import ast
import concurrent.futures
import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from relulab.io.atomic import stale_temporaries, write_bytes_atomic
from relulab.io.networks import NetworkFileError, load_network, save_network
from relulab.io.scenes import Scene, read_scene, write_scene
from relulab.model.core import _compile_apart, platform
from relulab.model.networks.mlp import MLP

ROOT = Path(__file__).resolve().parents[1]
#: a folder name as users have them: spaces, accents, another script
ODD = "ReLU Lab ü 日本 ñ"
LINUX = sys.platform.startswith("linux")


@pytest.fixture
def odd(tmp_path) -> Path:
    folder = tmp_path / "My Documents" / ODD
    folder.mkdir(parents=True)
    return folder


def _play_windows(monkeypatch) -> None:
    """``sys.platform`` is Windows', and retries do not wait. (Import what the test
    needs first: some libraries choose their Windows modules on import.)"""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(platform, "REPLACE_WAIT", 0.0)


@pytest.fixture
def windows(monkeypatch):
    _play_windows(monkeypatch)


def _net() -> MLP:
    return MLP.random([2, 5, 3, 1], seed=0)


# -- memory ---------------------------------------------------------------------------------

@pytest.mark.skipif(not LINUX, reason="glibc's malloc_trim")
def test_free_memory_is_given_back_with_glibc(monkeypatch):
    monkeypatch.setattr(platform, "_trim", platform._UNSET)
    assert platform.give_back_free_memory()


@pytest.mark.parametrize("system", ["darwin", "win32"])
def test_macos_and_windows_have_no_malloc_trim_to_call(monkeypatch, system):
    monkeypatch.setattr(sys, "platform", system)
    monkeypatch.setattr(platform, "_trim", platform._UNSET)

    def no_libc(*a, **k):
        raise AssertionError("looked for libc's malloc_trim")

    monkeypatch.setattr(platform.ctypes, "CDLL", no_libc)
    assert not platform.give_back_free_memory()
    assert not platform.give_back_free_memory()  # asked once, answered the same


def test_a_linux_without_glibc_has_no_malloc_trim(monkeypatch):
    """musl's libc (Alpine) has no ``malloc_trim``: nothing is called, nothing fails."""
    class Musl:
        def __getattr__(self, name):
            raise AttributeError(name)

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(platform, "_trim", platform._UNSET)
    monkeypatch.setattr(platform.ctypes, "CDLL", lambda name: Musl())
    assert not platform.give_back_free_memory()


# -- priorities -----------------------------------------------------------------------------

@pytest.mark.parametrize("system", ["darwin", "win32"])
def test_a_thread_is_lowered_only_where_threads_have_their_own_priority(monkeypatch, system):
    """On macOS ``setpriority`` takes a process id: a thread's id there would name another
    process. The worker's thread and the region engine's warm-up leave it alone."""
    from relulab.ui import worker

    calls = []
    monkeypatch.setattr(sys, "platform", system)
    monkeypatch.setattr(os, "setpriority", lambda *a: calls.append(a), raising=False)
    assert not platform.lower_this_thread(10)
    worker._yield_to_the_gui_thread()
    assert calls == []


@pytest.mark.skipif(not LINUX, reason="a Linux thread has a nice value of its own")
def test_a_linux_thread_is_lowered_alone():
    got = {}

    def lowered():
        got["done"] = platform.lower_this_thread(5)
        got["thread"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    thread = threading.Thread(target=lowered)
    thread.start()
    thread.join()
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert got == {"done": True, "thread": min(main + 5, 19)}


def test_a_windows_child_starts_without_a_console_below_the_app(monkeypatch, windows):
    """Windows has no ``nice``: the compiling child gets the below-normal priority class
    when it starts, and no console window flashes up."""
    seen = {}

    def run(command, **kwargs):
        seen.update(kwargs)
        return subprocess.CompletedProcess(command, 0, b"", b"")

    monkeypatch.setattr(platform.subprocess, "run", run)
    monkeypatch.setattr(os, "nice", lambda n: pytest.fail("nice on Windows"), raising=False)
    assert _compile_apart.fill_disk_cache("training")
    assert seen["creationflags"] == platform.CREATE_NO_WINDOW | platform.BELOW_NORMAL_PRIORITY_CLASS
    assert seen["stdin"] == subprocess.DEVNULL
    assert not platform.lower_this_process(10)


def test_a_unix_child_gets_no_windows_flags():
    assert platform.child_flags() == (0 if sys.platform != "win32" else
                                      platform.CREATE_NO_WINDOW | platform.BELOW_NORMAL_PRIORITY_CLASS)


# -- child processes --------------------------------------------------------------------------

@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for the app")
def test_a_frozen_app_in_a_folder_with_spaces_and_accents_starts_itself(tmp_path, monkeypatch):
    """The bundle installed under "Program Files" or a user's own folder: its own
    executable is the compiling child, found by a path with spaces and non-ASCII."""
    folder = tmp_path / "Program Files" / ODD
    folder.mkdir(parents=True)
    said = folder / "said ü.txt"
    app = folder / "ReLU Lab"
    app.write_text(f'#!/bin/sh\nprintf "%s|%s" "$#" "$RELULAB_COMPILE_TARGET" > "{said}"\n',
                   encoding="utf-8")
    app.chmod(app.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(app))
    assert platform.is_frozen()
    assert _compile_apart.fill_disk_cache("regions-2d")
    assert said.read_text(encoding="utf-8") == "0|regions-2d"


def _child_work(folder: str) -> dict:
    """Run in a spawned child: what a job process does with the user's files."""
    from relulab.model.shallow.construction import convert

    deep = load_network(Path(folder) / "tiefes Netz ü.json")
    shallow = convert(deep).shallow
    save_network(shallow, Path(folder) / "flach 日本.npz")
    return {"start": __import__("multiprocessing").get_start_method(),
            "trimmed": platform.give_back_free_memory(), "pid": os.getpid()}


def test_a_spawned_child_works_on_files_with_spaces_and_accents(odd):
    """Children start by ``spawn`` on every system (Windows' only way, macOS' default):
    the child imports afresh what it runs, and finds the files by their names."""
    ctx = platform.process_context()
    assert ctx.get_start_method() == "spawn"
    deep = _net()
    save_network(deep, odd / "tiefes Netz ü.json")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        got = pool.submit(_child_work, str(odd)).result(timeout=120)
    assert got["start"] == "spawn" and got["pid"] != os.getpid()
    assert got["trimmed"] == LINUX
    shallow = load_network(odd / "flach 日本.npz")
    x = np.random.default_rng(0).normal(size=(200, 2))
    assert np.allclose(shallow(x), deep(x), atol=1e-9)


def test_the_frozen_launcher_lets_spawned_children_run_before_the_app():
    """A spawned child of the frozen app is the app's executable again: the launcher
    must hand it to multiprocessing before anything of the app starts."""
    tree = ast.parse((ROOT / "packaging" / "launcher.py").read_text(encoding="utf-8"))
    order = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Call | ast.ImportFrom)),
                   key=lambda n: (n.lineno, n.col_offset))
    names = [ast.unparse(n.func) if isinstance(n, ast.Call) else n.module for n in order]
    first = names.index("multiprocessing.freeze_support")
    assert first < names.index("relulab.app")
    assert first < names.index("relulab.model.core._compile_apart")


def test_a_command_runs_in_a_child_of_the_app_frozen_or_not(tmp_path, monkeypatch):
    """The window writes a handout with ``relulab lecture export`` in a child: ``python -m
    relulab`` from a Python, the app itself told the command by RELULAB_RUN_COMMAND when
    frozen; the launcher runs that command, not the window."""
    program, args, env = platform.command_line("lecture", ["export", "builtin"])
    assert (program, args, env) == (sys.executable, ["-m", "relulab", "lecture", "export",
                                                     "builtin"], {})
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    program, args, env = platform.command_line("lecture", ["export", "builtin"])
    assert (program, args, env) == (sys.executable, ["export", "builtin"],
                                    {platform.RUN_COMMAND_VARIABLE: "lecture"})
    r = subprocess.run([sys.executable, str(ROOT / "packaging" / "launcher.py"), *args, "-o",
                        str(tmp_path / "x.png")], env=dict(os.environ, **env), cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "relulab lecture: " in r.stderr and "must end in .pdf" in r.stderr


def test_a_windows_process_is_never_asked_with_os_kill(tmp_path, monkeypatch, windows):
    """``os.kill(pid, 0)`` ends process ``pid`` on Windows. There a temporary file of an
    earlier save is litter by its age alone."""
    monkeypatch.setattr(os, "kill", lambda *a: pytest.fail("os.kill on Windows"))
    target = tmp_path / "a.relulab.json"
    young = tmp_path / ".a.relulab.json.relulab-999999999-0000.tmp"
    young.write_text("partial")
    assert stale_temporaries(target) == []
    assert platform.process_alive(999_999_999)


# -- files ------------------------------------------------------------------------------------

def _refuse_while_open(monkeypatch, refusals: int) -> list:
    """Play Windows with ``target`` held open by another program for the first
    ``refusals`` replaces (PermissionError, as Windows raises it)."""
    real = os.replace
    tries = []

    def replace(src, dst):
        tries.append(dst)
        if len(tries) <= refusals:
            raise PermissionError(errno.EACCES, "Access is denied", str(dst))
        real(src, dst)

    monkeypatch.setattr(platform.os, "replace", replace)
    return tries


def test_windows_replaces_a_file_another_program_let_go_of(odd, monkeypatch, windows):
    path = odd / "Netz ü.json"
    save_network(_net(), path)
    tries = _refuse_while_open(monkeypatch, 2)
    bigger = MLP.random([2, 7, 1], seed=3)
    save_network(bigger, path)
    assert len(tries) == 3 and load_network(path).sizes == [2, 7, 1]
    assert sorted(p.name for p in odd.iterdir()) == ["Netz ü.json"]  # no temporary left


def test_windows_says_a_file_is_open_elsewhere_and_keeps_it(odd, monkeypatch, windows):
    path = odd / "Netz ü.json"
    save_network(_net(), path)
    before = path.read_bytes()
    tries = _refuse_while_open(monkeypatch, 10 ** 6)
    with pytest.raises(NetworkFileError, match="another program has the file open"):
        save_network(MLP.random([2, 7, 1], seed=3), path)
    assert len(tries) == platform.REPLACE_TRIES
    assert path.read_bytes() == before
    assert sorted(p.name for p in odd.iterdir()) == ["Netz ü.json"]


def test_windows_waits_under_a_second_for_an_open_file():
    """What packaging/README.md and the docstring say: tried again for under a second."""
    waits = [platform.REPLACE_WAIT * 2 ** k for k in range(platform.REPLACE_TRIES - 1)]
    assert 0.5 < sum(waits) < 1.0


def test_a_refused_replace_on_linux_and_macos_is_not_tried_again(tmp_path, monkeypatch):
    """There a PermissionError is about the folder, and trying again changes nothing."""
    monkeypatch.setattr(sys, "platform", "darwin")
    tries = _refuse_while_open(monkeypatch, 10 ** 6)
    with pytest.raises(PermissionError, match="Access is denied"):
        write_bytes_atomic(tmp_path / "a.json", b"{}")
    assert len(tries) == 1


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX replaces an open file")
def test_an_open_file_is_replaced_and_its_reader_keeps_the_old(odd):
    path = odd / "Szene ü.relulab.json"
    write_bytes_atomic(path, b"old")
    with open(path, "rb") as reader:
        write_bytes_atomic(path, b"new")
        assert reader.read() == b"old"
    assert path.read_bytes() == b"new"


def test_windows_opens_no_folder_to_sync(tmp_path, monkeypatch, windows):
    real = os.open
    opened = []

    def watch(path, *a, **k):
        opened.append(Path(path))
        return real(path, *a, **k)

    monkeypatch.setattr(os, "open", watch)
    write_bytes_atomic(tmp_path / "a.json", b"{}")
    assert tmp_path not in opened and len(opened) == 1  # the temporary file only
    assert not platform.sync_folder(tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="a folder opens as a file on POSIX")
def test_a_rename_is_made_durable_by_syncing_its_folder(tmp_path):
    assert platform.sync_folder(tmp_path)


def _link(link: Path, target: Path) -> None:
    try:
        link.symlink_to(target)
    except (OSError, NotImplementedError) as exc:  # Windows without the right to link
        pytest.skip(f"no symbolic links here: {exc}")


@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx"])
def test_a_network_saved_over_a_link_writes_the_target(odd, suffix):
    if suffix == ".onnx":
        pytest.importorskip("onnx")
    real = odd / "echte Dateien" / f"Netz ü{suffix}"
    real.parent.mkdir()
    save_network(_net(), real)
    first = odd / f"Verknüpfung 1{suffix}"
    _link(first, Path("echte Dateien") / real.name)       # relative, as users make them
    second = odd / f"Verknüpfung 2{suffix}"
    _link(second, first)                                  # a chain of two
    bigger = MLP.random([2, 9, 1], seed=4)
    save_network(bigger, second)
    assert second.is_symlink() and first.is_symlink() and not real.is_symlink()
    assert load_network(real).sizes == [2, 9, 1] == load_network(second).sizes
    assert sorted(p.name for p in real.parent.iterdir()) == [real.name]


def test_a_scene_saved_over_a_link_writes_the_target(odd):
    real = odd / "Szene ü.relulab.json"
    write_scene(real, Scene(current="hinges", panels={"hinges": {"n": 1}}))
    link = odd / "letzte Szene 日本.relulab.json"
    _link(link, real.name)
    write_scene(link, Scene(current="hinges", panels={"hinges": {"n": 2, "title": "ü 日本"}}))
    assert link.is_symlink()
    assert read_scene(real).panels["hinges"] == {"n": 2, "title": "ü 日本"}


@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx"])
def test_networks_round_trip_through_paths_with_spaces_and_accents(odd, suffix):
    if suffix == ".onnx":
        pytest.importorskip("onnx")
    net = _net()
    path = odd / f"mein Netz – ü 日本{suffix}"
    save_network(net, path)
    back = load_network(str(path))  # as a str too, the way the command line passes it
    x = np.random.default_rng(1).normal(size=(50, 2))
    assert np.allclose(back(x), net(x))


def test_scenes_round_trip_through_paths_with_spaces_and_accents(odd):
    scene = Scene(current="converter", panels={"converter": {"arch": "2-5-3-1", "note": "ü 日本"}})
    path = odd / "Vorlesung ü 日本.relulab.json"
    write_scene(path, scene)
    assert read_scene(str(path)).panels == scene.panels


def _command(*argv: str, cwd: Path, encoding: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p), PYTHONIOENCODING=encoding)
    return subprocess.run([sys.executable, "-m", "relulab", *argv], cwd=cwd, env=env,
                          capture_output=True, timeout=300, check=False)


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
def test_the_command_line_converts_files_with_spaces_and_accents(odd, encoding):
    """``relulab convert`` and ``relulab slice`` with names a user types, in a folder
    with spaces and non-ASCII characters. cp1252 is a Windows console whose
    output goes to a file or a pipe: it cannot show "−" or "日本", and the report
    failed the command after the network was written."""
    deep = MLP.random([1, 4, 4, 1], seed=0)
    save_network(deep, odd / "tiefes Netz ü 日本.json")
    done = _command("convert", "tiefes Netz ü 日本.json", "flach ü 日本.npz", "--report",
                    cwd=odd, encoding=encoding)
    assert done.returncode == 0, done.stderr.decode(encoding, "replace")
    assert b"kinks" in done.stdout
    shallow = load_network(odd / "flach ü 日本.npz")
    x = np.linspace(-3, 3, 101)
    assert np.allclose(shallow(x), deep(x), atol=1e-9)
    wide = MLP.random([4, 6, 2], seed=2)
    save_network(wide, odd / "breites Netz ü.npz")
    np.savez(odd / "Punkte 日本.npz", X=np.eye(4)[:3])
    sliced = _command("slice", "breites Netz ü.npz", "Ebene – ü 日本.json", "--plane", "0", "1", "2",
                      "--points", str(odd / "Punkte 日本.npz"), "--report", cwd=odd,
                      encoding=encoding)
    assert sliced.returncode == 0, sliced.stderr.decode(encoding, "replace")
    assert load_network(odd / "Ebene – ü 日本.json").n_in == 2
    missing = _command("convert", "fehlt ü 日本.json", "x.npz", cwd=odd, encoding=encoding)
    err = missing.stderr.decode(encoding, "replace")
    assert missing.returncode != 0 and err.count("\n") == 1 and "no such file" in err


def test_an_animation_saved_over_a_link_and_an_open_file_writes_the_target(odd, monkeypatch):
    """The MP4 export: a video player still showing the last export holds the file open
    (Windows refuses to replace it for a moment), and the user's file may be a link."""
    pytest.importorskip("av")
    from PySide6.QtGui import QColor, QImage

    from relulab.ui import export

    real = odd / "Animation ü.mp4"
    real.write_bytes(b"the last export")
    link = odd / "Animation 日本.mp4"
    _link(link, real.name)
    frames = []
    for shade in (0, 120, 240):
        image = QImage(64, 48, QImage.Format.Format_RGB32)
        image.fill(QColor(shade, 80, 200))
        frames.append(image)
    _play_windows(monkeypatch)
    tries = _refuse_while_open(monkeypatch, 2)
    export.write_mp4(frames, link)
    assert len(tries) == 3 and link.is_symlink()
    assert real.read_bytes()[4:8] == b"ftyp"  # an MP4 now
    assert sorted(p.name for p in odd.iterdir()) == sorted([real.name, link.name])
