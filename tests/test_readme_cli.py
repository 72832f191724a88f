"""The README's slice-and-convert example runs as written and does what the README says
(the convert refuses in one line, writing nothing), and every size and limit that the
README and docs/network-format.md quote about the commands is the commands' own."""

import re
import shutil
from pathlib import Path

import pytest

from relulab.app import main as app_main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
FORMAT_DOC = (ROOT / "docs" / "network-format.md").read_text()


def _flat(text: str) -> str:
    return " ".join(text.split())


def _example() -> tuple[str, list[list[str]]]:
    """The example's text and its commands, as the README writes them."""
    section = README.split("On the command line, with that classifier", 1)[1]
    section = section.split("\n**", 1)[0]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return _flat(section), [line.split() for line in block.strip().splitlines()]


@pytest.fixture
def example_files(tmp_path, monkeypatch):
    """The README's net.onnx and digits.npz, where the README says they come from."""
    text, _ = _example()
    for name in ("net.onnx", "digits.npz"):
        source = re.search(rf"`{re.escape(name)}` \(`([^`]+)`\)", text).group(1)
        shutil.copy(ROOT / source, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_readme_example_refuses_in_one_line_with_the_size(example_files, capsys):
    from relulab.commands import _plan
    from relulab.io.networks import load_network
    from relulab.model.lessons.converter import MAX_SLICE_SHALLOW_PARAMETERS

    text, (slice_cmd, convert_cmd) = _example()
    assert slice_cmd[:2] == ["relulab", "slice"] and convert_cmd[:2] == ["relulab", "convert"]
    assert app_main(slice_cmd[1:]) == 0
    assert capsys.readouterr() == ("", "")
    plane = load_network(example_files / slice_cmd[3])
    assert f"{'-'.join(map(str, plane.sizes))} with {plane.n_params:,} parameters" in text

    code = app_main(convert_cmd[1:])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert "exit status 1" in text
    assert not (example_files / convert_cmd[3]).exists()
    least = int(re.search(r"at least ([\d,]+) parameters", err).group(1).replace(",", ""))
    found = int(re.search(r"\(([\d,]+) activation regions found", err).group(1).replace(",", ""))
    assert least == _plan.extended_layout(2, 0, found, plane.n_out, 0).parameters
    assert f"at least {least // 10 ** 6} million parameters" in text
    assert found > found // 100 * 100 and f"more than {found // 100 * 100:,} of its" in text
    assert f"more than the {MAX_SLICE_SHALLOW_PARAMETERS:,} the panel builds" in text


def test_the_readme_force_figures_are_the_planes(example_files, capsys):
    from relulab.commands import _plan
    from relulab.io.networks import load_network
    from relulab.model.regions.activation import linear_regions
    from relulab.model.shallow.construction import region_constraints

    text, (slice_cmd, _) = _example()
    assert app_main(slice_cmd[1:]) == 0
    plane = load_network(example_files / slice_cmd[3])
    regions = linear_regions(plane)
    _, _, strict, _ = region_constraints(regions)
    layout = _plan.extended_layout(2, len(strict), len(regions), plane.n_out, int(strict.sum()))
    points = _plan.check_points(len(regions), sum(len(r.normals) for r in regions), 2000)
    assert (f"--force` builds it: {len(regions):,} regions, {layout.parameters:,} parameters, "
            f"a {_plan.bytes_text(layout.npz_bytes())} NPZ") in text
    assert f"deep against shallow at {points:,} points" in text


def test_the_sizes_and_limits_quoted_are_the_commands():
    from relulab.commands import _output, _plan
    from relulab.model.lessons.converter import (
        MAX_SLICE_SHALLOW_PARAMETERS,
        MAX_SLICED_NEURONS,
        MAX_SLICED_OUTPUTS,
    )
    from relulab.model.shallow.construction import MAX_REGIONS, MAX_SECONDS

    default = _plan.bytes_text(_output.JSON_DEFAULT_BYTES)
    hard = _plan.bytes_text(_output.json_max_bytes())
    readme = _flat(README.split("## Command line", 1)[1].split("\n## ", 1)[0])
    doc = _flat(FORMAT_DOC.split("## Writing", 1)[1].split("\n## ", 1)[0])
    assert f"JSON up to {default} and NPZ beyond" in readme
    assert f"refused beyond {hard}, the largest JSON network relulab reads back" in readme
    assert f"JSON up to {default}, NPZ beyond" in doc
    assert f"refused beyond {hard}**, the largest JSON network relulab reads back" in doc
    limits = (f"{MAX_SLICED_NEURONS:,} hidden neurons and {MAX_SLICED_OUTPUTS} outputs",
              f"{MAX_REGIONS:,} regions or {MAX_SECONDS:g} s",
              f"{MAX_SLICE_SHALLOW_PARAMETERS:,} parameters")
    for words in limits:
        assert words in readme and words in doc, words
