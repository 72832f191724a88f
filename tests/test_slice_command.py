"""``relulab slice``: a network with many inputs restricted to a line or a plane, written
as a small network that ``relulab convert`` converts; every bad point, file and
dimension answered with one line on standard error and a non-zero status."""

from pathlib import Path

import numpy as np
import pytest

from relulab.app import main as app_main
from relulab.commands.convert import main as convert_main
from relulab.commands.slice import main
from relulab.io.networks import load_network, save_network
from relulab.io.points import load_input_rows
from relulab.model.networks.mlp import MLP
from relulab.model.regions.slices import slice_through

ROOT = Path(__file__).resolve().parents[1]
TORCH_ONNX = ROOT / "tests" / "fixtures" / "digits-torch.onnx"
EXAMPLES = ROOT / "relulab" / "resources" / "examples"
ROWS = EXAMPLES / "digits-rows.npz"


def _run(capsys, fn, *argv):
    code = fn([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_torch_onnx_classifier_sliced_by_a_plane_through_three_pictures(tmp_path, capsys):
    deep = load_network(TORCH_ONNX)
    assert deep.sizes == [64, 32, 32, 10]
    code, out, err = _run(capsys, app_main, "slice", TORCH_ONNX, tmp_path / "plane.onnx",
                          "--plane", "0", "1", "7", "--points", ROWS, "--report")
    assert code == 0 and err == ""
    assert "plane through A: row 0, label 0, B: row 1, label 1, C: row 7, label 7" in out
    assert "restricted network: 2-32-32-10" in out
    plane = load_network(tmp_path / "plane.onnx")
    assert plane.sizes == [2, 32, 32, 10]
    rows = load_input_rows(ROWS)
    cut = slice_through(rows.X[[0, 1, 7]])
    # the three pictures are at their coordinates, and so is every point of the plane
    assert np.allclose(plane(cut.coords), deep(rows.X[[0, 1, 7]]), rtol=1e-12, atol=1e-9)
    t = np.random.default_rng(0).normal(size=(100, 2)) * 30
    assert np.allclose(plane(t), deep(cut.to_input(t)), rtol=1e-12, atol=1e-9)
    # what the picture shows: the network's classes at the three pictures
    assert list(np.argmax(plane(cut.coords), axis=1)) == [0, 1, 7]


def test_the_slice_of_a_torch_export_converts(tmp_path, capsys):
    code, _, err = _run(capsys, main, TORCH_ONNX, tmp_path / "line.json", "--line", "0", "1",
                        "--points", ROWS)
    assert code == 0, err
    code, out, err = _run(capsys, convert_main, tmp_path / "line.json", tmp_path / "shallow.onnx",
                          "--report")
    assert code == 0, err
    assert "end slopes agree: yes" in out
    line, shallow = load_network(tmp_path / "line.json"), load_network(tmp_path / "shallow.onnx")
    x = np.linspace(-100, 160, 2001)[:, None]
    assert np.allclose(shallow(x), line(x), rtol=1e-9, atol=1e-9)


def test_typed_points_and_names(tmp_path, capsys):
    net = MLP.random([6, 5, 5, 2], seed=0)
    save_network(net, tmp_path / "net.npz")
    code, _, err = _run(capsys, main, tmp_path / "net.npz", tmp_path / "s.json", "--plane",
                        "zeros", "e0", "[-1,2,0,0,0.5,0]")
    assert code == 0, err
    s = load_network(tmp_path / "s.json")
    P = np.array([[0.0] * 6, [1, 0, 0, 0, 0, 0], [-1, 2, 0, 0, 0.5, 0]])
    cut = slice_through(P)
    assert np.allclose(s(cut.coords), net(P), atol=1e-12)
    code, _, err = _run(capsys, main, tmp_path / "net.npz", tmp_path / "s.npz", "--line",
                        "ones", "1,2,3,4,5,6")
    assert code == 0, err
    assert load_network(tmp_path / "s.npz").n_in == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--plane", "0", "0", "1"], "points A and B are the same point"),
    (["--plane", "0", "1", "99999"], "rows 0 to 1796"),
    (["--line", "zeros", "e64"], "inputs 0 to 63"),
    (["--line", "zeros", "1,2,3"], "3 number(s); the network has 64 inputs"),
    (["--line", "zeros", "[" + ",".join(["nan"] * 64) + "]"], "not a finite number"),
    (["--line", "zeros", "[" + ",".join(["1e999"] * 64) + "]"], "beyond"),
    (["--plane", "zeros", "e0", "e0"], "same point"),
    (["--plane", "zeros", "e0", "[" + ",".join(["3"] + ["0"] * 63) + "]"], "lie on one line"),
    (["--line", "0", "1"], "needs a points file"),
    (["--line", "zeros", "__import__('os')"], "not a number"),
])
def test_bad_points_are_one_line_errors(tmp_path, capsys, args, message):
    points = ["--points", ROWS] if args[1] in ("0",) and "--plane" in args else []
    code, out, err = _run(capsys, main, TORCH_ONNX, tmp_path / "s.json", *args, *points)
    assert code == 1 and out == ""
    assert err.startswith("relulab slice: ") and err.count("\n") == 1
    assert message in err
    assert not (tmp_path / "s.json").exists()


def test_bad_files_and_usage(tmp_path, capsys):
    out = tmp_path / "s.json"
    (tmp_path / "rows.csv").write_text("1,2,3\n4,5,6\n")
    (tmp_path / "bad.csv").write_text("1,2,3\n4,x,6\n")
    (tmp_path / "empty.onnx").write_bytes(b"")
    cases = [
        ([TORCH_ONNX, out, "--line", "0", "1", "--points", tmp_path / "rows.csv"],
         "rows.csv has rows of 3 numbers; the network has 64 inputs", 1),
        ([TORCH_ONNX, out, "--line", "0", "1", "--points", tmp_path / "bad.csv"],
         "bad.csv: line 2, column 2: 'x' is not a number", 1),
        ([TORCH_ONNX, out, "--line", "0", "1", "--points", tmp_path / "none.npz"],
         "none.npz: no such file", 1),
        ([TORCH_ONNX, out, "--line", "0", "1", "--points", tmp_path / "rows.txt"],
         "unknown points file type", 1),
        ([tmp_path / "empty.onnx", out, "--line", "zeros", "ones"], "empty", 1),
        ([TORCH_ONNX, tmp_path / "s.txt", "--line", "zeros", "ones"], "unknown output type", 1),
        ([TORCH_ONNX, tmp_path / "no" / "s.json", "--line", "zeros", "ones"], "does not exist", 1),
        ([TORCH_ONNX, out], "one of the arguments --line --plane is required", 2),
        ([TORCH_ONNX, out, "--line", "zeros", "ones", "--plane", "a", "b", "c"], "not allowed", 2),
        ([TORCH_ONNX, out, "--line", "zeros"], "expected 2 arguments", 2),
    ]
    for argv, message, status in cases:
        code, _stdout, err = _run(capsys, main, *argv)
        assert code == status, (argv, err)
        assert message in err and err.count("\n") == 1, err
        assert not out.exists()


def test_a_plane_needs_two_inputs_and_convert_points_to_slice(tmp_path, capsys):
    save_network(MLP.random([1, 3, 1], seed=0), tmp_path / "one.json")
    code, _, err = _run(capsys, main, tmp_path / "one.json", tmp_path / "s.json", "--plane",
                        "0,", "1,", "2,")
    assert code == 1 and "at least 2 inputs" in err
    code, _, err = _run(capsys, convert_main, TORCH_ONNX, tmp_path / "s.json")
    assert code == 1 and "64 inputs" in err and "relulab slice" in err


def test_a_network_beyond_the_panels_slice_limits_needs_force(tmp_path, capsys):
    save_network(MLP.random([6, 3, 11], seed=0), tmp_path / "net.npz")
    code, out, err = _run(capsys, main, tmp_path / "net.npz", tmp_path / "s.json", "--line",
                          "zeros", "ones")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "net.npz: 11 outputs: up to 10 without --force" in err
    assert not (tmp_path / "s.json").exists()
    code, _, err = _run(capsys, main, tmp_path / "net.npz", tmp_path / "s.json", "--line",
                        "zeros", "ones", "--force")
    assert code == 0 and err == "" and load_network(tmp_path / "s.json").sizes == [1, 3, 11]


def test_the_output_name_and_format_follow_the_input_and_the_size(tmp_path, capsys, monkeypatch):
    from relulab.commands import _output

    monkeypatch.chdir(tmp_path)
    net = MLP.random([6, 40, 40, 3], seed=0)
    save_network(net, tmp_path / "net.npz")
    assert _run(capsys, main, "net.npz", "--plane", "zeros", "e0", "e1")[0] == 0
    plane = load_network(tmp_path / "net-plane.json")
    assert plane.sizes == [2, 40, 40, 3]
    monkeypatch.setattr(_output, "JSON_DEFAULT_BYTES", 10_000)
    code, _, err = _run(capsys, main, "net.npz", "--line", "zeros", "e0")
    assert code == 0 and err == ""
    assert load_network(tmp_path / "net-line.npz").sizes == [1, 40, 40, 3]
    monkeypatch.setattr(_output, "json_max_bytes", lambda: 5_000)
    code, out, err = _run(capsys, main, "net.npz", "big.json", "--line", "zeros", "e0")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "big.json: at least" in err and "write --format npz" in err
    assert not (tmp_path / "big.json").exists()
