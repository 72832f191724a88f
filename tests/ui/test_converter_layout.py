"""The Deep → shallow panel's layout: only the controls that apply to the source on
screen, and every plot, title and caption whole on a laptop and on a projector at
zoom 1.6, with and without the lecture layout."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget

from relulab.model.networks.mlp import MLP
from relulab.ui.panels.converter import ConverterPanel


def _wait(panel):
    assert panel.wait_until_idle(60)


@pytest.fixture
def panel(qtbot, theme):
    p = ConverterPanel()
    qtbot.addWidget(p)
    p.resize(1366, 740)
    p.show()
    _wait(p)
    yield p
    p.shutdown()


#: The controls that shape each source's network; the others are not shown.
SHAPING = ("converter-architecture", "converter-seed", "converter-tent-depth")
APPLIES = {"random": {"converter-architecture", "converter-seed"},
           "tent": {"converter-tent-depth"}, "received": set(), "file": set(), "example": set()}


def _shown(panel, name: str) -> bool:
    return panel.findChild(QWidget, name).isVisibleTo(panel)


def test_only_the_controls_of_the_source_on_screen_are_shown(qtbot, panel, tmp_path):
    """Seen: with the digits example on screen, the architecture, seed and tent depth
    stayed, though they change nothing; and "Export shallow network…" stayed under a
    verdict that says it is not built."""
    from relulab.io.networks import save_network

    def check(source):
        _wait(panel)
        assert panel.state.source == source
        shown = {name for name in SHAPING if _shown(panel, name)}
        assert shown == APPLIES[source], source
        for always in ("converter-source", "converter-new-random", "converter-open"):
            assert _shown(panel, always), (source, always)

    check("random")
    assert _shown(panel, "converter-export")
    panel.set_tent_depth(3)
    check("tent")
    panel.receive("network", MLP.random([1, 4, 1], seed=1))
    check("received")
    save_network(MLP.random([1, 3, 1], seed=2), tmp_path / "net.json")
    assert panel.load_file(tmp_path / "net.json")
    check("file")
    assert panel.open_example()
    check("example")
    assert "not built here" in panel.verdict.text()
    assert not _shown(panel, "converter-export")
    panel.new_random()
    check("random")
    assert _shown(panel, "converter-export")
    panel.undo_stack.undo()  # back to the example
    check("example")
