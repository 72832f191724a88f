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
