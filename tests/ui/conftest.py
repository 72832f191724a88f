"""The UI tests' fixtures: relulab.testing's (loaded for the whole suite by the
``-p relulab.testing`` in pyproject.toml) under the names these tests use, and a
window whose panels are all the stand-in of fakes.py."""

import pytest

from relulab.ui.panels import PANELS, PanelSpec  # Qt-free: the model tier runs without Qt


@pytest.fixture
def main_window(relulab_window):
    return relulab_window


@pytest.fixture
def shown_panel(relulab_panel):
    """``shown_panel(PanelClass or name, size=(1280, 800))``: the panel alone."""
    return relulab_panel


@pytest.fixture
def questions_panel(shown_panel):
    """``questions_panel(state, seconds=120)``: the Questions panel alone, showing
    ``state`` with its run done (see ``tests/ui/questions_pages.py``)."""
    from tests.ui.questions_pages import questions_panel_in

    return lambda state, seconds=120: questions_panel_in(shown_panel, state, seconds)


@pytest.fixture
def fake_panels(monkeypatch):
    """Every registered panel is a FakePanel while the fixture is active."""
    from tests.ui.fakes import fake_class

    classes = {p.name: fake_class(p) for p in PANELS}
    monkeypatch.setattr(PanelSpec, "load", lambda self: classes[self.name])
    return classes


@pytest.fixture
def data_dir(monkeypatch, tmp_path):
    folder = tmp_path / "data"
    monkeypatch.setenv("RELULAB_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def fake_window(fake_panels, data_dir, relulab_window):
    """relulab.testing's window, built while every panel is a FakePanel."""
    yield relulab_window
    relulab_window.session.confirm_close = False
