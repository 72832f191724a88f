"""``python -m benchmarks --smoke``: every probe once on tiny sizes, nothing judged but
that it runs (CI runs all of them after the tests; these check the mechanism on the
quickest two, in seconds)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_probe_sizes_itself_for_the_smoke_run():
    """A probe takes its sizes from ``small(full, tiny)`` (or reads ``SMOKE``): one that
    does not runs at full size in CI's smoke run, minutes instead of seconds."""
    probes = sorted((ROOT / "benchmarks").glob("bench_*.py"))
    assert len(probes) >= 10
    unsized = [p.name for p in probes
               if "small(" not in (text := p.read_text(encoding="utf-8")) and "SMOKE" not in text]
    assert unsized == []


def test_the_smoke_run_runs_the_named_probes_small_and_judges_nothing():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    env.pop("RELULAB_BENCH_SMOKE", None)
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--smoke", "expression", "files"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "--smoke: 2 of 2 probes ran on tiny sizes" in out
    assert "on 1,000 points" in out          # the sizes run, not the full ones, are named
    assert "MISS" not in out and " ok " not in out


def test_a_probe_that_raises_fails_the_smoke_run(monkeypatch, capsys):
    from benchmarks import __main__ as runner
    from benchmarks import bench_expression, common

    # the run turns the smoke flag on in this process: put it back afterwards
    monkeypatch.setattr(common, "SMOKE", common.SMOKE)
    monkeypatch.delenv(common.SMOKE_VARIABLE, raising=False)

    def renamed():
        raise AttributeError("module 'relulab.model' has no attribute 'parse_expresion'")

    monkeypatch.setattr(bench_expression, "run", renamed)
    assert runner.main(["--smoke", "expression"]) == 1
    out = capsys.readouterr().out
    assert "crashed: bench_expression" in out and "0 of 1 probes ran" in out
    assert common.SMOKE and os.environ[common.SMOKE_VARIABLE] == "1"  # children inherit it


def test_smoke_and_check_do_not_go_together(capsys):
    from benchmarks import __main__ as runner

    assert runner.main(["--smoke", "--check", "expression"]) == 2
    assert "choose one" in capsys.readouterr().out


@pytest.mark.parametrize("smoke", [False, True])
def test_small_chooses_by_the_flag(monkeypatch, smoke):
    from benchmarks import common

    monkeypatch.setattr(common, "SMOKE", smoke)
    assert common.small(100, 10) == (10 if smoke else 100)
    calls = []
    common.median_time(lambda: calls.append(1), repeat=5, warmup=1)
    assert len(calls) == (1 if smoke else 6)
