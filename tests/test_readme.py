"""The README's Quick start is what CI runs."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    command = next(line for line in ci if "pytest" in line and not line.startswith("#"))
    assert command in readme
    assert "Quick start" in readme


def test_the_python_examples_run():
    """The README's "Using the model from Python" runs as written."""
    import re

    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Using the model from Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["restarts"].step == 2000 and namespace["classifier"].step == 500


def test_the_quick_start_names_the_system_libraries_ci_installs():
    """What a bare Debian machine lacks for Qt (the first ``libs=`` of .ci/run, which CI
    installs from nothing) is said next to the Quick start's commands, with venv."""
    import re

    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    ci = (ROOT / ".ci" / "run").read_text()
    qt_libs = re.search(r'^libs="([^"$]+)"', ci, re.M).group(1).split()
    apt = next(line for line in quick.splitlines() if line.startswith("sudo apt-get install"))
    assert set(qt_libs) <= set(apt.split()) and "python3-venv" in apt.split()


def _resolves(dotted: str) -> bool:
    """True when ``dotted`` is a module, or a module followed by attribute names."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            return False
        return True
    return False


def test_every_dotted_name_in_the_docs_exists():
    """Every ``relulab.…`` name that the README and docs/ write (a module, a class, a
    function) imports: a moved or renamed module cannot leave the docs behind."""
    import re

    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files = {"json", "exe", "spec", "desktop", "svg", "png", "ini", "npz", "onnx", "md", "py",
             "pdf", "xml", "app", "dmg", "zip"}
    missing = []
    for path in texts:
        # a name after "." or "/" or ending in a file type is a file name, not a module
        found = re.findall(r"(?<![./\w])relulab(?:\.[A-Za-z_]\w*)+", path.read_text())
        for name in sorted(set(found)):
            if name.rsplit(".", 1)[1] in files:
                continue
            if not _resolves(name):
                missing.append(f"{path.name}: {name}")
    assert missing == []
