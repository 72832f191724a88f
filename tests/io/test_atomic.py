"""Saves that respect the user's file: through links, permissions kept, read-only refused,
no litter from killed saves, and a kill in the middle of a save loses nothing."""

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from relulab.io import atomic
from relulab.io.atomic import remove_stale_temporaries, stale_temporaries, write_bytes_atomic
from relulab.io.networks import NetworkFileError, save_network
from relulab.io.scenes import Scene, write_scene
from relulab.model.networks.mlp import MLP

ROOT = Path(__file__).resolve().parents[2]
posix_only = pytest.mark.skipif(os.name != "posix", reason="links, modes and signals of POSIX")


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@posix_only
def test_a_save_writes_through_a_symbolic_link(tmp_path):
    real = tmp_path / "real" / "scene.relulab.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.relulab.json"
    link.symlink_to(real)
    chain = tmp_path / "chain.relulab.json"
    chain.symlink_to(link)  # a link to a link
    write_scene(chain, Scene(panels={"hinges": {"value": 1.0}}))
    assert chain.is_symlink() and link.is_symlink()
    assert '"hinges"' in real.read_text()
    assert sorted(p.name for p in real.parent.iterdir()) == ["scene.relulab.json"]


@posix_only
def test_permissions_are_kept_and_new_files_follow_the_umask(tmp_path):
    path = tmp_path / "shared.relulab.json"
    path.write_text("old")
    os.chmod(path, 0o644)
    write_bytes_atomic(path, b"new")
    assert path.read_bytes() == b"new" and _mode(path) == 0o644
    os.chmod(path, 0o640)
    write_bytes_atomic(path, b"newer")
    assert _mode(path) == 0o640
    old_umask = os.umask(0o022)
    try:
        write_bytes_atomic(tmp_path / "fresh.json", b"{}")
        assert _mode(tmp_path / "fresh.json") == 0o644  # not the 0600 of a temporary file
        os.umask(0o077)
        write_bytes_atomic(tmp_path / "private.json", b"{}")
        assert _mode(tmp_path / "private.json") == 0o600
    finally:
        os.umask(old_umask)


@posix_only
def test_a_read_only_file_is_refused_not_replaced(tmp_path):
    path = tmp_path / "lecture.relulab.json"
    path.write_text("keep me")
    os.chmod(path, 0o444)
    with pytest.raises(PermissionError) as info:
        write_bytes_atomic(path, b"replaced")
    assert "read-only" in info.value.strerror
    assert path.read_text() == "keep me" and _mode(path) == 0o444
    net = tmp_path / "net.json"
    save_network(MLP.random([1, 2, 1], seed=0), net)
    os.chmod(net, 0o444)
    with pytest.raises(NetworkFileError, match=r"net.json: cannot write \(the file is read-only"):
        save_network(MLP.random([1, 3, 1], seed=0), net)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lecture.relulab.json", "net.json"]


def test_a_folder_or_a_device_is_not_overwritten(tmp_path):
    (tmp_path / "d.json").mkdir()
    with pytest.raises(IsADirectoryError):
        write_bytes_atomic(tmp_path / "d.json", b"x")
    if os.name == "posix":
        os.mkfifo(tmp_path / "pipe.json")
        with pytest.raises(OSError, match="not a regular file"):
            write_bytes_atomic(tmp_path / "pipe.json", b"x")
        assert stat.S_ISFIFO(os.stat(tmp_path / "pipe.json").st_mode)


def _litter(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@posix_only
def test_stale_temporaries_are_removed_but_live_ones_kept(tmp_path):
    target = tmp_path / "a.relulab.json"
    target.write_text("old")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)  # a process that has exited
    names = {
        "dead": f".a.relulab.json.relulab-{dead_pid}-0badc0de.tmp",
        "alive": f".a.relulab.json.relulab-{os.getppid()}-00c0ffee.tmp",
        "old": f".a.relulab.json.relulab-{os.getppid()}-0000beef.tmp",
        "other file": f".b.relulab.json.relulab-{dead_pid}-0badc0de.tmp",
        "not ours": ".a.relulab.json.12345.tmp",
    }
    for name in names.values():
        (tmp_path / name).write_text("partial")
    hours_ago = time.time() - atomic.STALE_AFTER_S - 60
    os.utime(tmp_path / names["old"], (hours_ago, hours_ago))
    assert sorted(p.name for p in stale_temporaries(target)) == sorted(
        [names["dead"], names["old"]])
    write_bytes_atomic(target, b"new")
    assert _litter(tmp_path) == sorted([names["alive"], names["other file"], names["not ours"]])
    assert remove_stale_temporaries(tmp_path / "b.relulab.json") == 1


KILLED_SAVE = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {root!r})
    from relulab.io import atomic
    path, size, hang = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "hang"
    if hang:  # stop inside the save, after the data is written and before the rename
        def fsync(fd):
            print("writing", flush=True)
            time.sleep(60)
        atomic.os.fsync = fsync
    else:
        print("writing", flush=True)
    n = 0
    while True:
        n += 1
        atomic.write_bytes_atomic(path, (b"%08d" % n) * (size // 8))
""")


def _version_ok(data: bytes, size: int) -> bool:
    """Whole: one save's bytes, every one of them (a counter repeated)."""
    return len(data) == size and data == data[:8] * (size // 8)


@posix_only
@pytest.mark.parametrize("when", ["hang", "random"])
def test_kill_9_in_the_middle_of_saves_loses_nothing(tmp_path, when):
    """SIGKILL a process while it saves: the file is whole (old or new), and the next
    save clears what the killed ones left."""
    target = tmp_path / "scene.relulab.json"
    size = 4 * 1024 * 1024
    target.write_bytes(b"original" * (size // 8))
    rounds = 1 if when == "hang" else 6
    for i in range(rounds):
        child = subprocess.Popen([sys.executable, "-c", KILLED_SAVE.format(root=str(ROOT)),
                                  str(target), str(size), when], stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout.readline().strip() == "writing"
            if when == "random":
                time.sleep(0.01 + 0.03 * i)
            else:
                deadline = time.monotonic() + 30
                while not _litter(tmp_path) and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert _litter(tmp_path), "the save should be under way"
            child.send_signal(signal.SIGKILL)
        finally:
            child.wait(30)
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        assert _version_ok(target.read_bytes(), size)
    if when == "hang":
        assert len(_litter(tmp_path)) == 1  # the killed save's temporary, until the next save
        assert target.read_bytes().startswith(b"original")
    write_bytes_atomic(target, b"after")
    assert target.read_bytes() == b"after" and _litter(tmp_path) == []
