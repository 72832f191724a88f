"""The boundary: the model and io packages never import Qt."""

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


def test_no_eval_of_user_text():
    """Typed expressions are parsed, never evaluated as Python."""
    import re

    builtin_call = re.compile(r"(?<![\w.])(eval|exec|compile|__import__)\(")
    for path in (ROOT / "relulab").rglob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if not stripped.startswith("#") and builtin_call.search(stripped):
                raise AssertionError(f"{path.relative_to(ROOT)}: {stripped}")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside functions."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_imports_run_one_way():
    """ui → io → model, and app/commands on top: the model never reads or writes files
    (no relulab.io), io never imports ui, and the ui never imports the entry point."""
    forbidden = {
        "model": ("relulab.io", "relulab.ui", "relulab.app", "relulab.commands"),
        "io": ("relulab.ui", "relulab.app", "relulab.commands"),
        "ui": ("relulab.app", "relulab.commands"),
    }
    problems = []
    for package, bad in forbidden.items():
        for path in sorted((ROOT / "relulab" / package).rglob("*.py")):
            for name in _imports(path):  # ("import relulab" for the version is fine)
                if any(name == b or name.startswith(b + ".") for b in bad):
                    problems.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not problems, "\n".join(problems)
