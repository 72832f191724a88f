"""``relulab convert``: files in, shallow network out, the report, and bad input
answered with one line on standard error and a non-zero status."""

import json

import numpy as np
import pytest

from relulab.app import main as app_main
from relulab.commands.convert import main
from relulab.io.networks import NetworkFileError, load_network, save_network
from relulab.model.networks.mlp import MLP, compose
from relulab.model.shallow.construction import ExtendedNetwork


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_1d_to_onnx_with_report(tmp_path, capsys):
    tent = MLP([([[1.0], [1.0]], [0, -0.5]), ([[2.0, -4.0]], [0])])
    deep = compose(compose(compose(tent, tent), tent), tent)
    save_network(deep, tmp_path / "tent4.json")
    code, out, err = _run(capsys, tmp_path / "tent4.json", tmp_path / "shallow.onnx", "--report")
    assert code == 0 and err == ""
    assert "kinks: K = 17" in out and "width 17" in out
    assert "end slopes agree: yes" in out
    shallow = load_network(tmp_path / "shallow.onnx")
    assert shallow.hidden_sizes == [17]
    x = np.linspace(-1, 2, 301)
    assert np.allclose(shallow(x), deep(x), atol=1e-12)


@pytest.mark.parametrize("sizes", [[2, 6, 6, 1], [3, 4, 4, 2], [4, 3, 3, 1]])
def test_nd_to_json_with_report(tmp_path, capsys, sizes):
    deep = MLP.random(sizes, seed=1)
    save_network(deep, tmp_path / "deep.npz")
    code, out, err = _run(capsys, tmp_path / "deep.npz", tmp_path / "shallow.json", "--report")
    assert code == 0, err
    shallow = load_network(tmp_path / "shallow.json")
    assert isinstance(shallow, ExtendedNetwork) and len(shallow.hidden_sizes) == 3
    X = np.random.default_rng(0).normal(size=(500, sizes[0]))
    assert np.allclose(shallow(X), deep(X), atol=1e-9)
    for needle in (f"input size n = {sizes[0]}", "activation regions: p =", "Corollary 1 bound",
                   "random points", "region-by-region proof: proven on all", "parameters"):
        assert needle in out
    widths = [int(w) for w in out.split("widths ")[1].split(" (")[0].split(", ")]
    assert widths == shallow.hidden_sizes


def test_big_m_writes_finite_onnx_and_says_where_it_is_wrong(tmp_path, capsys):
    deep = MLP.random([2, 5, 5, 1], seed=2)
    save_network(deep, tmp_path / "d.json")
    code, out, err = _run(capsys, tmp_path / "d.json", tmp_path / "s.onnx", "--report",
                          "--big-m", "1e5")
    assert code == 0, err
    assert "region boundary" in out
    assert load_network(tmp_path / "s.onnx").is_finite()


def test_dispatch_through_the_app(tmp_path, capsys):
    save_network(MLP.random([1, 3, 1], seed=0), tmp_path / "d.json")
    assert app_main(["convert", str(tmp_path / "d.json"), str(tmp_path / "s.json")]) == 0
    assert load_network(tmp_path / "s.json").hidden_sizes[0] <= 4


def _bad_cases(tmp_path):
    good = tmp_path / "good.json"
    save_network(MLP.random([2, 3, 1], seed=0), good)
    cases = {}

    def file(name, data):
        p = tmp_path / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        return p

    cases["missing"] = ([tmp_path / "nope.json", tmp_path / "o.json"], "no such file")
    cases["empty"] = ([file("e.json", ""), tmp_path / "o.json"], "empty")
    cases["truncated"] = ([file("t.json", good.read_text()[:40]), tmp_path / "o.json"], "truncated")
    cases["wrong types"] = ([file("w.json", json.dumps({"layers": [{"weights": "x", "biases": []}]})),
                             tmp_path / "o.json"], "weights")
    cases["shape"] = ([file("s.json", json.dumps({"layers": [
        {"weights": [[1, 2]], "biases": [0]}, {"weights": [[1, 2]], "biases": [0]}]})),
        tmp_path / "o.json"], "columns")
    cases["nan"] = ([file("n.json", '{"layers": [{"weights": [[NaN]], "biases": [0]}]}'),
                     tmp_path / "o.json"], "NaN")
    cases["disguised"] = ([file("d.npz", good.read_text()), tmp_path / "o.json"], "not a NPZ file")
    cases["extension"] = ([good, tmp_path / "o.txt"], "unknown output type")
    cases["onnx infinite"] = ([good, tmp_path / "o.onnx"], "ONNX cannot hold")
    cases["too many inputs"] = ([file("big.json", json.dumps({"layers": [
        {"weights": [[1, 1, 1, 1, 1]], "biases": [0]}, {"weights": [[1]], "biases": [0]}]})),
        tmp_path / "o.json"], "5 inputs")
    cases["tanh"] = ([file("tanh.json", json.dumps({"activation": "tanh", "layers": [
        {"weights": [[1]], "biases": [0]}, {"weights": [[1]], "biases": [0]}]})),
        tmp_path / "o.json"], "needs ReLU")
    cases["no folder"] = ([good, tmp_path / "no" / "o.json"], "does not exist")
    cases["bad M"] = ([good, tmp_path / "o.json", "--big-m", "-3"], "--big-m")
    cases["unsupported onnx"] = ([file("u.onnx", b"\x08\x07garbage-not-protobuf\xff\xff"),
                                  tmp_path / "o.json"], "ONNX")
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "B"], ["z"], transB=1, name="fc"),
         helper.make_node("Softplus", ["z"], ["y"], name="squash")], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 1])],
        initializer=[numpy_helper.from_array(np.ones((1, 2), np.float32), "B")])
    cases["sigmoid onnx"] = ([file("sig.onnx", helper.make_model(graph).SerializeToString()),
                              tmp_path / "o.json"], "(Softplus 'squash') is not supported")
    inf_graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 1])],
        initializer=[numpy_helper.from_array(np.array([[1, np.inf]], np.float32), "B")])
    cases["inf onnx"] = ([file("inf.onnx", helper.make_model(inf_graph).SerializeToString()),
                          tmp_path / "o.json"], "NaN or infinite")
    return cases


CASES = ["sigmoid onnx", "inf onnx", "missing", "empty", "truncated", "wrong types", "shape", "nan",
         "disguised", "extension", "onnx infinite", "too many inputs", "tanh", "no folder", "bad M",
         "unsupported onnx"]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_gives_one_line(tmp_path, capsys, case):
    argv, needle = _bad_cases(tmp_path)[case]
    code, out, err = _run(capsys, *argv)
    assert code != 0
    assert out == ""
    assert err.count("\n") == 1 and needle in err, err
    assert not (tmp_path / "o.json").exists()


def test_usage_error_is_one_line(tmp_path, capsys):
    code, _out, err = _run(capsys)
    assert code == 2 and err.count("\n") == 1 and "IN" in err
    code, _out, err = _run(capsys, "d.json", tmp_path / "a.json", "-o", tmp_path / "b.json")
    assert code == 2 and err.count("\n") == 1 and "not both" in err
    code, _out, err = _run(capsys, "d.json", tmp_path / "a.json", "--format", "npz")
    assert code == 2 and err.count("\n") == 1 and "ends in .json but --format is npz" in err


def test_the_command_edge_turns_any_exception_into_one_line(tmp_path, capsys, monkeypatch):
    import relulab.io.networks as networks

    save_network(MLP.random([1, 3, 1], seed=0), tmp_path / "d.json")

    def bug(path):
        raise KeyError("a bug\nover two lines")

    monkeypatch.setattr(networks, "load_network", bug)
    code, out, err = _run(capsys, tmp_path / "d.json", tmp_path / "s.json")
    assert code == 1 and out == ""
    assert err == "relulab convert: d.json: KeyError: 'a bug\\nover two lines'\n"


def test_messages_from_the_file_stay_one_line(tmp_path, capsys):
    path = tmp_path / "two\nlines.json"
    path.write_text(json.dumps({"layers": [{"weights": [[1]], "biases": [0], "bad\nkey": 1}]}))
    code, _out, err = _run(capsys, path, tmp_path / "o.json")
    assert code == 1 and err.count("\n") == 1 and "two lines.json" in err and "bad key" in err


# --- issue 12: never "converted" with exit 0 when deep and shallow differ ---------------
def test_a_kink_beside_a_huge_slope_converts_exactly(tmp_path, capsys):
    f = MLP([([[1.0], [1.0]], [0.0, -1.0]), ([[1.0, 1e12]], [0.0])])
    save_network(f, tmp_path / "f.json")
    code, out, err = _run(capsys, tmp_path / "f.json", tmp_path / "s.json", "--report")
    assert code == 0 and err == ""
    assert "kinks: K = 2" in out and "least width proven" in out
    shallow = load_network(tmp_path / "s.json")
    assert shallow(np.array([-1.0]))[0] == 0.0


@pytest.mark.parametrize(("big", "needle"), [(1e308, "out of range"), (-1e308, "out of range"),
                                         (1e100, "1.8e308"), (-1e100, "1.8e308")])
def test_weights_beyond_double_range_do_not_convert(tmp_path, capsys, big, needle):
    # ±1e308 is refused when read, and so are four layers of ±1e100, whose slopes would
    # pass 1e308 (the model refuses those too: test_huge_weights_are_exact_or_refused)
    deep = MLP([([[big], [1.0]], [0.0, big]), ([[big, 1.0], [1.0, big]], [0.0, 1.0]),
                ([[big, 1.0], [1.0, -big]], [0.0, 1.0]), ([[big, big]], [0.0])])
    with pytest.raises(NetworkFileError, match=needle):  # never written by relulab itself
        save_network(deep, tmp_path / "big.json")
    (tmp_path / "big.json").write_text(json.dumps(deep.to_dict()))
    code, out, err = _run(capsys, tmp_path / "big.json", tmp_path / "o.json", "--report")
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and needle in err, err
    assert not (tmp_path / "o.json").exists()


def test_a_shallow_network_that_differs_is_not_written(tmp_path, capsys, monkeypatch):
    """If the construction were wrong, the check catches it: status 3, one line, no file."""
    import relulab.model.shallow.construction as shallow_module

    real = shallow_module.convert

    def broken(net, *args, **kwargs):
        conv = real(net, *args, **kwargs)
        (W1, b1), (W2, b2) = conv.shallow.layers
        conv.shallow = MLP([(W1, b1), (W2, b2 + 1e-9 * (1 + np.abs(b2)))])  # 1e-9 too high
        return conv

    monkeypatch.setattr(shallow_module, "convert", broken)
    deep = MLP.random([1, 6, 6, 1], seed=2)
    save_network(deep, tmp_path / "deep.json")
    code, out, err = _run(capsys, tmp_path / "deep.json", tmp_path / "o.json")
    assert code == 3 and out == ""
    assert err.count("\n") == 1 and "times the rounding bound; o.json not written" in err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize(("s", "shift"), [(1e10, 0.0), (1e-10, 0.0), (1e10, 1e10), (1.0, 1e10)])
def test_3d_network_in_other_units_converts_exactly(tmp_path, capsys, s, shift):
    """The same network with its input scaled and shifted: the same regions, and the
    shallow network equal to rounding (relative to the size of the outputs' terms)."""
    (W, b), *rest = MLP.random([3, 5, 5, 1], seed=0).layers
    deep = MLP([(W / s, b + W @ np.full(3, shift)), *rest])
    save_network(deep, tmp_path / "deep.npz")
    code, out, err = _run(capsys, tmp_path / "deep.npz", tmp_path / "shallow.json", "--report")
    assert code == 0 and err == ""
    assert "activation regions: p = 147 (0 lower-dimensional)" in out
    shallow = load_network(tmp_path / "shallow.json")
    X = s * (np.random.default_rng(1).normal(0.0, 3.0, (400, 3)) - shift)
    terms = np.abs(X)        # the size of what the outputs are summed from
    for Wl, bl in deep.layers:
        terms = terms @ np.abs(Wl).T + np.abs(bl)
    assert np.abs(shallow(X) - deep(X)).max() <= 1e-9 * max(1.0, terms.max())


@pytest.mark.parametrize("bound", [True, False])
def test_too_many_regions_stop_with_one_line(tmp_path, capsys, monkeypatch, bound):
    """Beyond MAX_REGIONS the command refuses: at once when the regions found without
    the engine are already too many, else when the enumeration passes the limit."""
    import relulab.model.shallow.construction as shallow
    from relulab.commands import _plan

    monkeypatch.setattr(shallow, "MAX_REGIONS", 50)
    if not bound:
        monkeypatch.setattr(_plan, "regions_at_least", lambda net, **kw: 1)
    save_network(MLP.random([3, 8, 8, 1], seed=0), tmp_path / "deep.json")
    code, out, err = _run(capsys, tmp_path / "deep.json", tmp_path / "shallow.json")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "activation regions" in err and " 50 " in err, err
    assert ("at least" in err) == bound and "--force" in err
    assert not (tmp_path / "shallow.json").exists()


# --- the panel's limits, the format by size, and what is said before building ----------
def _limit(monkeypatch, value):
    import relulab.model.lessons.converter as converter

    monkeypatch.setattr(converter, "MAX_SLICE_SHALLOW_PARAMETERS", value)


@pytest.mark.parametrize("limit", [2_000, 20_000])
def test_a_shallow_network_beyond_the_limit_is_refused_in_one_line(tmp_path, capsys,
                                                                  monkeypatch, limit):
    """2-6-6-1 has 72 regions and a shallow network of 26,745 parameters. Past a limit of
    2,000 the regions found without the engine prove it (none listed); past 20,000 the
    regions listed do."""
    from relulab.commands import _plan
    from relulab.model.regions import arrangement

    _limit(monkeypatch, limit)
    listed = []
    real = arrangement.arrangement_2d
    monkeypatch.setattr(arrangement, "arrangement_2d",
                        lambda *a, **kw: listed.append(1) or real(*a, **kw))
    deep = MLP.random([2, 6, 6, 1], seed=1)
    save_network(deep, tmp_path / "deep.json")
    found = _plan.regions_at_least(deep)
    least = _plan.extended_layout(2, 0, found, 1, 0).parameters
    assert found <= 72 and 2_000 < least < 20_000
    code, out, err = _run(capsys, tmp_path / "deep.json", tmp_path / "shallow.json")
    assert code == 1 and out == ""
    needle = (f"would have at least {least:,} parameters ({found} activation regions found"
              if limit == 2_000 else "would have 26,745 parameters (widths")
    assert err.count("\n") == 1 and needle in err, err
    assert f"more than the {limit:,} built without --force" in err and "--force builds it" in err
    assert bool(listed) == (limit == 20_000)
    assert list(tmp_path.iterdir()) == [tmp_path / "deep.json"]
    # --force builds and writes it
    code, out, err = _run(capsys, tmp_path / "deep.json", tmp_path / "shallow.json", "--force")
    assert code == 0 and err == "", err
    assert load_network(tmp_path / "shallow.json").n_params == 26_745


def test_a_deep_network_beyond_the_panels_limits_needs_force(tmp_path, capsys):
    save_network(MLP.random([2, 3, 11], seed=0), tmp_path / "deep.json")
    code, out, err = _run(capsys, tmp_path / "deep.json", tmp_path / "shallow.json")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "deep.json: 11 outputs: up to 10 without --force" in err
    assert not (tmp_path / "shallow.json").exists()
    code, _, err = _run(capsys, tmp_path / "deep.json", tmp_path / "shallow.json", "--force")
    assert code == 0 and load_network(tmp_path / "shallow.json").n_out == 11


def test_the_format_follows_the_size_when_none_is_named(tmp_path, capsys, monkeypatch):
    """No OUT: IN's name with -shallow in this folder; no extension: JSON up to
    JSON_DEFAULT_BYTES, NPZ beyond (its exact size decides); named JSON stays JSON."""
    from relulab.commands import _output

    monkeypatch.chdir(tmp_path)
    deep = MLP.random([2, 5, 5, 1], seed=0)
    save_network(deep, tmp_path / "deep.json")
    assert _run(capsys, "deep.json")[0] == 0
    assert isinstance(load_network(tmp_path / "deep-shallow.json"), ExtendedNetwork)
    json_size = (tmp_path / "deep-shallow.json").stat().st_size
    monkeypatch.setattr(_output, "JSON_DEFAULT_BYTES", json_size - 1)
    for argv, written in ((["deep.json"], "deep-shallow.npz"), (["deep.json", "-o", "s"], "s.npz"),
                          (["deep.json", "t.json"], "t.json"),
                          (["deep.json", "u", "--format", "json"], "u.json")):
        code, _, err = _run(capsys, *argv)
        assert code == 0 and err == "", err
        assert load_network(tmp_path / written).n_params == \
            load_network(tmp_path / "deep-shallow.json").n_params
    monkeypatch.setattr(_output, "JSON_DEFAULT_BYTES", json_size)
    assert _run(capsys, "deep.json", "v")[0] == 0 and (tmp_path / "v.json").exists()


@pytest.mark.parametrize("least", [True, False])
def test_named_json_beyond_the_hard_limit_is_refused(tmp_path, capsys, monkeypatch, least):
    """Refused in one line naming --format npz, before building when even the least size
    of the JSON passes the limit, else once its exact size is known; nothing written."""
    from relulab.commands import _output

    save_network(MLP.random([2, 5, 5, 1], seed=0), tmp_path / "deep.json")
    assert _run(capsys, tmp_path / "deep.json", tmp_path / "s.json")[0] == 0
    size = (tmp_path / "s.json").stat().st_size
    (tmp_path / "s.json").unlink()
    monkeypatch.setattr(_output, "json_max_bytes", lambda: size // 3 if least else size - 1)
    code, out, err = _run(capsys, tmp_path / "deep.json", tmp_path / "s.json", "--force")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "as JSON, more than the" in err and "write --format npz" in err
    assert ("at least" in err) == least
    assert not (tmp_path / "s.json").exists()
    assert _run(capsys, tmp_path / "deep.json", tmp_path / "s", "--format", "npz")[0] == 0
    assert (tmp_path / "s.npz").exists()


def test_the_help_states_the_sizes_and_limits(capsys):
    from relulab.commands import _output
    from relulab.model.lessons.converter import MAX_SLICE_SHALLOW_PARAMETERS

    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"JSON up to {_output.JSON_DEFAULT_BYTES / 2 ** 20:.1f} MB and NPZ beyond" in text
    assert f"JSON is refused beyond the {_output.json_max_bytes() / 2 ** 20:.1f} MB" in text
    assert f"{MAX_SLICE_SHALLOW_PARAMETERS:,} parameters" in text and "--force" in text
