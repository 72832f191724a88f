"""The UI tests' fixtures are relulab.testing's (loaded for the whole suite by the
``-p relulab.testing`` in pyproject.toml), under the names these tests use."""

import pytest


@pytest.fixture
def main_window(relulab_window):
    return relulab_window


@pytest.fixture
def shown_panel(relulab_panel):
    """``shown_panel(PanelClass or name, size=(1280, 800))``: the panel alone."""
    return relulab_panel
