"""The Deep → shallow guide does what it says: every key it tells one to press is one of
the panel's keys and does what the guide says, its steps are followed as written (the
keys pressed where the focus is after the step before), and every number it quotes
about the app's results is what the model computes."""

from __future__ import annotations

import math
import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from relulab.ui.help import guide_markdown
from relulab.ui.panels.converter import ConverterPanel

SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


@pytest.fixture
def guide() -> str:
    return guide_markdown("converter")


@pytest.fixture
def panel(shown_panel):
    p = shown_panel(ConverterPanel, size=(1366, 740))
    assert p.wait_until_idle(60)
    return p


def _steps(guide: str) -> list[str]:
    tries = guide.split("**Try this.**")[1].split("**Numbers")[0]
    return [" ".join(s.split()) for s in re.split(r"^\d\. ", tries, flags=re.M)[1:]]


def _pressed(text: str) -> list[str]:
    """The keys a text tells one to press: "press **N**", "press **]** and **[**"."""
    keys = []
    for m in re.finditer(r"press \*\*(.+?)\*\*(?: and \*\*(.+?)\*\*)?", text, re.IGNORECASE):
        keys += [k for k in m.groups() if k]
    return keys


def test_every_key_the_guide_names_is_one_of_the_panels(guide):
    made = {k.keys for k in ConverterPanel.KEYS}
    named = _pressed(guide)
    keys_line = guide.split("**Keys.**")[1]
    named += re.findall(r"\*\*([^*\s]{1,3})\*\*", keys_line)
    assert set(named) >= {"N", "]", "["}
    assert set(named) <= made, set(named) - made
    assert set(made) <= set(named)  # and every key of the panel is in the guide


def _press(qtbot, key: str) -> None:
    """A key pressed where the focus is, as a person presses it."""
    target = QApplication.focusWidget()
    assert target is not None
    qtbot.keyClick(target, key)


def _follow(qtbot, panel, step: str) -> None:
    """Do what ``step`` says, in its order, and check what it says the keys do."""
    actions = []
    for pattern, kind in ((r"Choose Source ▸ ([^,:]+?)(?:, depth (\d+))?[,:]", "source"),
                          (r"type the architecture ([\d-]+) and press Enter", "type"),
                          (r"press \*\*(.+?)\*\*(?: and \*\*(.+?)\*\*)?", "press")):
        actions += [(m.start(), kind, m) for m in re.finditer(pattern, step, re.IGNORECASE)]
    for _start, kind, m in sorted(actions, key=lambda a: a[0]):
        if kind == "source":
            box = panel.source_box
            index = box.findText(m.group(1))
            assert index >= 0, m.group(1)
            box.setCurrentIndex(index)
            box.activated.emit(index)
            if m.group(2):
                panel.tent_spin.setValue(int(m.group(2)))
        elif kind == "type":
            assert panel.arch_edit.isVisible(), "the architecture is not shown to type in"
            panel.arch_edit.setFocus()
            panel.arch_edit.selectAll()
            qtbot.keyClicks(panel.arch_edit, m.group(1))
            qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
        else:
            for key in (k for k in m.groups() if k):
                _check_key(qtbot, panel, key, step[m.end():])
        assert panel.wait_until_idle(60)


def _check_key(qtbot, panel, key: str, said: str) -> None:
    assert panel.wait_until_idle(60)
    before = panel.state
    _press(qtbot, key)
    assert panel.wait_until_idle(60)
    if key == "N":  # "another random network 1-16-16-1": the same architecture, the next seed
        arch = re.search(r"random networks? (\d+(?:-\d+)+)", said).group(1)
        assert panel.source == "random" and "-".join(map(str, panel.net.sizes)) == arch
        assert panel.seed == before.seed + 1
    elif key in "][":  # "the next and the previous region", in turn round the map
        count = len(panel.result.conversion.regions)
        assert count > 1 and ("next" if key == "]" else "previous") in said
        assert panel.selected_region == (before.selected_region + (1 if key == "]" else -1)) % count
    else:
        raise AssertionError(f"the guide presses {key!r}: what should it do?")


def test_the_guide_s_steps_do_what_they_say(qtbot, panel, guide):
    """Seen: "press N for 1-16-16-1" gave 2-8-8-1 (N keeps the architecture shown)."""
    steps = _steps(guide)
    assert len(steps) == 3
    _follow(qtbot, panel, steps[0])
    kinks, width = map(int, re.search(r"(\d+) kinks on the line, a shallow network of width "
                                      r"(\d+)", steps[0]).groups())
    assert panel.readouts()["kinks"] == kinks
    assert panel.readouts()["shallow_neurons"] == width
    _follow(qtbot, panel, steps[1])
    _follow(qtbot, panel, steps[2])
    assert panel.net.sizes == [2, 8, 8, 1] and panel.readouts()["regions"] > 1


def test_the_guide_s_numbers_are_the_model_s(guide):
    """The tent's kinks and width, its largest difference and the conversion's limits,
    read from the guide's text."""
    from relulab.model.lessons.converter import tent
    from relulab.model.shallow.construction import MAX_REGIONS, MAX_SECONDS, convert

    text = " ".join(guide.split())
    depth, kinks, width = map(int, re.search(
        r"Tent map, depth (\d+): (\d+) kinks on the line, a shallow network of width (\d+)",
        text).groups())
    conv = convert(tent(depth))
    assert (len(conv.one_d.kinks), conv.one_d.width) == (kinks, width)
    power, depth = re.search(r"about 10([⁻⁰-⁹¹²³]+) for the tent of depth (\d+)", text).groups()
    v = convert(tent(int(depth))).verify()
    largest = max(v.max_error_exact_points, v.max_error_random)
    assert round(math.log10(largest)) == int(power.translate(SUPERSCRIPTS))
    assert v.ok()
    regions, seconds = re.search(r"beyond ([\d,]+) regions or (\d+) s", text).groups()
    assert int(regions.replace(",", "")) == MAX_REGIONS and int(seconds) == MAX_SECONDS
