"""The numba loops compiled in a separate process, which fills the disk cache the app
then loads from: a first compilation no longer shares the interpreter with the window."""

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from relulab.model.core import _compile_apart as apart

pytest.importorskip("numba")


def _fresh(code: str, cache, **env) -> dict:
    """Run ``code`` in a fresh interpreter with numba's cache in ``cache``; its last
    printed line, read as JSON."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), **env)
    env.pop("RELULAB_NO_NUMBA", None)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


TRAINING = """
    import json, os
    from relulab.model.fitting import _training_kernels as k
    ok = k.compiled_available(apart=True)
    print(json.dumps({"ok": ok, "status": k.compiled_status(), "cached": k.compiled_cached(),
                      "pid": os.getpid()}))
"""


def test_a_first_use_compiles_in_a_separate_process_and_the_next_loads_its_cache(tmp_path):
    first = _fresh(TRAINING, tmp_path)
    assert first == {**first, "ok": True, "cached": True,
                     "status": "compiled in a separate process"}
    assert any(p.suffix == ".nbi" for p in tmp_path.rglob("*")), "no numba index written"
    second = _fresh(TRAINING, tmp_path)
    assert second["status"] == "loaded from the disk cache"


def test_a_failing_child_leaves_the_compilation_to_the_app(tmp_path):
    code = "import relulab.model.core._compile_apart as c; c.fill_disk_cache = lambda t: False\n"
    got = _fresh(code + textwrap.dedent(TRAINING), tmp_path)
    assert got["ok"] and got["status"] == "compiled"


def test_the_region_engine_warms_up_apart(tmp_path):
    code = """
        import json
        from relulab.model.regions.arrangement import engine_status, warm_up, _make_ready_quietly
        from relulab.model.regions import _arrangement_kernels as kern
        _make_ready_quietly(kern.run2)   # what the warm-up thread runs
        print(json.dumps({"status": engine_status(2)}))
    """
    first = _fresh(code, tmp_path)
    assert first["status"].startswith("compiled in a separate process in ")
    second = _fresh(code, tmp_path)
    assert second["status"].startswith("loaded from the disk cache in ")


def test_the_child_refuses_an_unknown_target(capsys):
    assert apart.main("everything") == 2
    assert "no such compile target" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no such compile target"):
        apart.fill_disk_cache("everything")


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for the app")
def test_a_frozen_app_starts_itself_with_the_target_in_its_environment(tmp_path, monkeypatch):
    """PyInstaller's executable runs no ``-m``: the launcher reads the target from the
    environment and compiles instead of opening the window."""
    said = tmp_path / "said"
    app = tmp_path / "app"
    app.write_text(f'#!/bin/sh\necho "$@|$RELULAB_COMPILE_TARGET" > "{said}"\n')
    app.chmod(app.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(app))
    assert apart.fill_disk_cache("regions-nd")
    assert said.read_text().strip() == "|regions-nd"


def test_a_child_that_cannot_start_or_fails_is_a_no(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "missing"))
    assert not apart.fill_disk_cache("training")
    failing = tmp_path / "failing"
    failing.write_text("#!/bin/sh\necho broken >&2\nexit 1\n")
    failing.chmod(failing.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(sys, "executable", str(failing))
    assert not apart.fill_disk_cache("training")


def test_the_launcher_hands_the_target_to_the_compiler(tmp_path):
    """packaging/launcher.py, the frozen app's entry, run as a script the way PyInstaller
    runs it: with the variable set it compiles and exits, opening no window."""
    launcher = os.path.join(os.path.dirname(__file__), "..", "..", "packaging", "launcher.py")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), RELULAB_COMPILE_TARGET="nothing")
    done = subprocess.run([sys.executable, launcher], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "no such compile target: 'nothing'" in done.stderr
