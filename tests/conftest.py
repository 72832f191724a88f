"""Test set-up shared by every tier.

The suite runs with the plugin relulab.testing (``-p relulab.testing`` in
pyproject.toml): Qt offscreen, settings and data folders in a temporary directory
for every test (tests never read or write the user's real files), modal dialogs
refused, and the fixtures of docs/automation.md.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import settings

# The property tests draw the same examples on every run (a failure is then one
# every run sees, fixed and kept as a regression test, not a CI run that fails once
# in a while); RELULAB_HYPOTHESIS=explore draws new ones, to look for more.
settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile("explore" if os.environ.get("RELULAB_HYPOTHESIS") == "explore"
                      else "fixed")


def _qt_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("PySide6") is not None


if not _qt_available():
    # The model tier must run without Qt installed: skip the Qt-using folders.
    collect_ignore_glob = ["ui/*"]


@pytest.fixture
def theme(relulab_theme):
    """A fresh light theme at zoom 1, installed as the application's theme."""
    return relulab_theme
