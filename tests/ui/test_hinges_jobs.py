"""The Hinges panel's worker jobs, called directly: no widget, no Qt."""

import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relulab.model.data.targets import target_from_text
from relulab.model.fitting.hinges import (
    DEFAULT_COUNTS,
    estimate_curvature,
    evenly_spaced_kinks,
    fit_hinges,
    interpolate_hinges,
)
from relulab.ui.panels.hinges.jobs import ConvergenceRow, convergence_job

ROOT = Path(__file__).resolve().parents[2]


def never() -> bool:
    return False


def test_convergence_job_gives_the_models_errors_for_every_count():
    """The notebook's curve sin(2x) + 0.3x² on [−1, 2], 300 samples: each row is least
    squares with n evenly spaced kinks and the interpolation with n knots."""
    f = target_from_text("sin(2x) + 0.3x²", -1.0, 2.0)
    rows = list(convergence_job(f, -1.0, 2.0, 300)(never))
    assert [r.n for r in rows] == list(DEFAULT_COUNTS)
    assert all(isinstance(r, ConvergenceRow) for r in rows)
    x = np.linspace(-1.0, 2.0, 300)
    curvature = estimate_curvature(f, -1.0, 2.0)
    for r in rows:
        ls = fit_hinges(x, f(x), evenly_spaced_kinks(-1.0, 2.0, r.n))
        assert r.ls_rmse == pytest.approx(ls.rmse, rel=1e-9, abs=1e-12)
        assert r.ls_max_error == pytest.approx(ls.max_error, rel=1e-9, abs=1e-12)
        it = interpolate_hinges(f, -1.0, 2.0, r.n, curvature)
        assert r.interp_max_error == pytest.approx(it.max_error, rel=1e-9, abs=1e-12)
        assert r.bound == pytest.approx(it.bound, rel=1e-9)
        assert r.interp_max_error <= r.bound


def test_convergence_job_is_a_generator_the_worker_can_stop_between_rows():
    """The worker checks should_stop between the values a job yields: a list computed
    in one go could not be stopped, nor drawn row by row."""
    f = target_from_text("exp(x)", 0.0, 1.0)
    out = convergence_job(f, 0.0, 1.0, 200)(never)
    assert inspect.isgenerator(out)
    first = next(out)
    assert first.n == DEFAULT_COUNTS[0]
    out.close()


def test_the_jobs_import_no_qt():
    """A job runs on a worker thread and is tested without a display: importing the
    jobs module (and the package around it) must not import Qt or the panel."""
    code = ("import sys, relulab.ui.panels.hinges.jobs\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', "
            "'shiboken6') or m == 'relulab.ui.panels.hinges.panel']\n"
            "print(' '.join(sorted(bad)))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"imported with the jobs: {out.stdout}"
