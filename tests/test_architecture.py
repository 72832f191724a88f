"""The boundary, proven by running Python: the model and io packages import without
Qt, and ``relulab --version`` answers without a display.

Which module may import which is import-linter's (the contracts in pyproject.toml), and
that no text is run as Python (eval, exec) is ruff's (S307, S102): CI runs both."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_model_and_io_import_without_qt():
    code = (
        "import sys, pkgutil, importlib, relulab, relulab.model, relulab.io\n"
        "for pkg in (relulab.model, relulab.io):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')]\n"
        "print(' '.join(sorted(bad)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"Qt imported by the model: {out.stdout}"


def test_version_runs_without_a_window():
    out = subprocess.run([sys.executable, "-m", "relulab", "--version"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "none-such"})
    import relulab

    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"relulab {relulab.__version__}"


def test_no_file_over_800_lines_and_no_class_over_500():
    """A newcomer reads a module in one sitting: no file in relulab/ over 800 lines and
    no class over 500 (a longer one is split by what its parts show or compute)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "relulab"
    long_files, long_classes = [], []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(root.parent))
        if text.count("\n") > 800:
            long_files.append(f"{name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 500:
                long_classes.append(f"{name}: {node.name} {node.end_lineno - node.lineno + 1} lines")
    assert long_files == [] and long_classes == []
