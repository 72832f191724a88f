"""Files at the edges: empty tensors, values a file cannot hold, an output that is the
input, JSON keys written twice, reshapes that mix rows, ONNX attributes in float32 and
refusals that answer within two seconds. Each case is checked against what the file
means (onnxruntime, or the network computed in fractions) and drawn at random."""

import json
import os
import subprocess
import sys
import time
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relulab.commands.convert import main as convert_main
from relulab.commands.slice import main as slice_main
from relulab.io.networks import NetworkFileError, load_network, save_network
from relulab.model.networks.mlp import MLP

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402 - only once onnx is there

ROOT = Path(__file__).resolve().parents[1]


def _run(capsys, fn, *argv):
    code = fn([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _gemm_model(layers, n_in, dtype=np.float32, activation="Relu", alpha=None, checked=True):
    """An ONNX model of Gemm layers (weights (out, in), transB = 1) with ``activation``
    between them; ``n_in`` declared as the input's width."""
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    nodes, inits, current = [], [], "x"
    for i, (W, b) in enumerate(layers):
        inits += [numpy_helper.from_array(np.asarray(W, dtype).reshape(np.shape(W)), f"W{i}"),
                  numpy_helper.from_array(np.asarray(b, dtype).reshape(-1), f"b{i}")]
        last = i == len(layers) - 1
        out = "y" if last else f"z{i}"
        nodes.append(helper.make_node("Gemm", [current, f"W{i}", f"b{i}"], [out], transB=1))
        current = out
        if not last:
            extra = {} if alpha is None else {"alpha": alpha}
            nodes.append(helper.make_node(activation, [out], [f"h{i}"], **extra))
            current = f"h{i}"
    n_out = np.shape(layers[-1][0])[0]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", elem, ["N", n_in])],
                              [helper.make_tensor_value_info("y", elem, ["N", n_out])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    if checked:
        onnx.checker.check_model(model)
    return model


# ---------------------------------------------------------------------------
# zero-size tensors
# ---------------------------------------------------------------------------
def _zero_width_files(tmp_path):
    """A hidden layer of 0 neurons (the network is the constant 0.5) and a network of
    0 inputs (the constant 3.5): both valid for onnx.checker, both run by onnxruntime."""
    hidden = _gemm_model([(np.zeros((0, 2)), np.zeros(0)), (np.zeros((1, 0)), [0.5])], 2)
    inputs = _gemm_model([(np.zeros((3, 0)), np.ones(3)), (np.ones((1, 3)), [0.5])], 0)
    paths = {}
    for name, model in (("hidden0.onnx", hidden), ("inputs0.onnx", inputs)):
        paths[name] = tmp_path / name
        paths[name].write_bytes(model.SerializeToString())
    return paths


@pytest.mark.parametrize(("name", "words"), [("hidden0.onnx", "layer 1: 0 neurons"),
                                             ("inputs0.onnx", "layer 1: 0 inputs")])
def test_zero_size_onnx_tensors_are_refused_in_one_line(tmp_path, capsys, name, words):
    path = _zero_width_files(tmp_path)[name]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    width = 2 if name == "hidden0.onnx" else 0
    assert session.run(None, {"x": np.ones((2, width), np.float32)})[0].shape == (2, 1)
    with pytest.raises(NetworkFileError, match=words):
        load_network(path)
    for command, extra in ((convert_main, ()), (slice_main, ("--line", "zeros", "ones"))):
        code, _, err = _run(capsys, command, path, tmp_path / "out.json", *extra)
        assert code == 1 and err.count("\n") == 1 and words in err and "zero-size" not in err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("W", [np.zeros((0, 2)), np.zeros((3, 0))])
def test_the_model_refuses_a_zero_width_layer_in_one_line(W):
    with pytest.raises(ValueError, match=r"0 neurons|0 inputs"):
        MLP([(W, np.zeros(W.shape[0])), (np.ones((1, W.shape[0])), [0.0])])


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(0, 3), min_size=2, max_size=5), fmt=st.sampled_from(["onnx",
                                                                                      "npz"]))
def test_any_empty_layer_is_refused_by_every_format(tmp_path_factory, sizes, fmt):
    """A network whose sizes hold a 0 anywhere is refused by name, in every format
    (never numpy's words); one without is read as written."""
    rng = np.random.default_rng(len(sizes))
    layers = [(rng.normal(size=(b, a)), rng.normal(size=b)) for a, b in pairwise(sizes)]
    path = tmp_path_factory.mktemp("zero") / f"net.{fmt}"
    if fmt == "onnx":
        path.write_bytes(_gemm_model(layers, sizes[0], np.float64).SerializeToString())
    else:
        arrays = {k: v for i, (W, b) in enumerate(layers, 1) for k, v in ((f"W{i}", W),
                                                                           (f"b{i}", b))}
        np.savez(path, **arrays)
    if 0 in sizes:
        with pytest.raises(NetworkFileError, match=r"0 (neurons|inputs)|empty"):
            load_network(path)
    else:
        assert load_network(path).sizes == sizes


def test_the_window_says_a_reader_failure_in_one_line(qtbot, theme, tmp_path, monkeypatch):
    """Whatever a reader raises, the panel says it next to its controls (the error
    dialog with its traceback is for the program's own faults, not a file's)."""
    from relulab.io import networks
    from relulab.ui.panels.converter import ConverterPanel

    panel = ConverterPanel()
    qtbot.addWidget(panel)
    panel.resize(1200, 760)
    panel.show()
    qtbot.waitUntil(lambda: not panel.busy, timeout=120_000)  # a first run compiles
    before = panel.state_dict()

    def broken(path):
        raise ZeroDivisionError("a reader's own fault\nover two lines")

    monkeypatch.setattr(networks, "load_network", broken)
    assert not panel.load_file(tmp_path / "any.onnx")
    text = panel.message.text()
    assert "any.onnx" in text and "ZeroDivisionError" in text and "\n" not in text
    assert panel.state_dict() == before
    panel.shutdown()


# ---------------------------------------------------------------------------
# what one command writes, the next one reads
# ---------------------------------------------------------------------------
def test_slice_never_writes_what_convert_refuses(tmp_path, capsys):
    """Weights 1e50 sliced through points 1e60: the restricted biases W·A + b are 1e110,
    beyond the ±1e100 a network file holds. The slice says so and writes nothing, instead
    of a file that relulab convert refuses."""
    W = np.array([[1e50, 2e50], [-1e50, 1e50]])
    save_network(MLP([(W, [0.0, 1.0]), (np.ones((1, 2)), [0.0])]), tmp_path / "big.json")
    assert float(Fraction(1e50) * Fraction(1e60)) > 1e100  # the exact bias is out of range
    code, _, err = _run(capsys, slice_main, tmp_path / "big.json", tmp_path / "line.json",
                        "--line", "1e60,0", "1e60,1e60")
    assert code == 1 and err.count("\n") == 1
    assert "line.json not written" in err and "layer 1 biases, entry 1" in err
    assert not (tmp_path / "line.json").exists()
    with pytest.raises(NetworkFileError, match=r"net\.npz not written: .* out of range"):
        save_network(MLP([(np.full((1, 1), 1e101), [0.0])]), tmp_path / "net.npz")
    assert not (tmp_path / "net.npz").exists()


@settings(max_examples=120, deadline=None)
@given(w=st.integers(0, 99), p=st.integers(0, 99), seed=st.integers(0, 2**16))
def test_every_slice_written_is_read_back(tmp_path_factory, w, p, seed):
    """Weights of size 10^w and points of size 10^p: the slice either writes a network
    that load_network reads back (what relulab convert reads) or writes nothing."""
    folder = tmp_path_factory.mktemp("slice")
    rng = np.random.default_rng(seed)
    net = MLP([(rng.normal(size=(3, 2)) * 10.0 ** w, rng.normal(size=3)),
               (rng.normal(size=(1, 3)), [0.0])])
    try:
        save_network(net, folder / "net.npz")
    except NetworkFileError:
        return  # the network itself is beyond what a file holds
    a, b = rng.normal(size=2) * 10.0 ** p, rng.normal(size=2) * 10.0 ** p
    a_text, b_text = (f"[{float(v[0])!r},{float(v[1])!r}]" for v in (a, b))
    code = slice_main([str(folder / "net.npz"), str(folder / "line.npz"), "--line", a_text,
                       b_text])
    assert code in (0, 1)
    if w + p <= 90:  # the restricted weights and biases stay far inside ±1e100
        assert code == 0
    if code == 0:
        assert load_network(folder / "line.npz").sizes == [1, 3, 1]
    else:
        assert not (folder / "line.npz").exists()


# ---------------------------------------------------------------------------
# the output is never the input, and is checked before the work
# ---------------------------------------------------------------------------
def _spellings(folder: Path, name: str) -> dict[str, Path]:
    """Names under which ``folder / name`` is written: itself, through "." and "..",
    a symbolic link, a hard link, and the name without its extension."""
    target = folder / name
    (folder / "sub").mkdir(exist_ok=True)
    (folder / "link.json").unlink(missing_ok=True)
    (folder / "link.json").symlink_to(target)
    (folder / "hard.json").unlink(missing_ok=True)
    os.link(target, folder / "hard.json")
    return {"same": target, "dots": folder / "sub" / ".." / "." / name,
            "symlink": folder / "link.json", "hard link": folder / "hard.json",
            "no extension": folder / Path(name).stem}


@pytest.mark.parametrize("command", ["convert", "slice"])
@pytest.mark.parametrize("spelling", ["same", "dots", "symlink", "hard link", "no extension"])
def test_the_output_is_never_the_input(tmp_path, capsys, command, spelling):
    save_network(MLP.random([1, 4, 4, 1], seed=3), tmp_path / "net.json")
    before = (tmp_path / "net.json").read_bytes()
    out = _spellings(tmp_path, "net.json")[spelling]
    main, extra = (convert_main, ()) if command == "convert" else (slice_main, ("--line", "0",
                                                                              "1"))
    code, _, err = _run(capsys, main, tmp_path / "net.json", out, *extra)
    assert code == 2 and err.count("\n") == 1 and "the output is the input" in err
    assert (tmp_path / "net.json").read_bytes() == before


def test_every_other_name_is_written(tmp_path, capsys):
    """Hundreds of names drawn near the input's: refused exactly when they are the input."""
    save_network(MLP.random([1, 3, 1], seed=5), tmp_path / "net.json")
    before = (tmp_path / "net.json").read_bytes()
    rng = np.random.default_rng(32)
    parts = ["net", "net.json", "net.npz", "other.json", "sub", "..", ".", "link.json", "hard.json"]
    _spellings(tmp_path, "net.json")
    for _ in range(200):
        name = Path(tmp_path, *rng.choice(parts, size=rng.integers(1, 4)))
        if name.is_dir() or not name.parent.is_dir():
            continue
        written = [name] if name.suffix else [name.with_name(f"{name.name}.{f}")
                                               for f in ("json", "npz", "onnx")]
        same = any(w.exists() and os.path.samefile(w, tmp_path / "net.json") for w in written)
        code, _, err = _run(capsys, convert_main, tmp_path / "net.json", name)
        assert (code == 2 and "the output is the input" in err) == same, (name, err)
        assert code in (0, 2), err
        assert (tmp_path / "net.json").read_bytes() == before


def test_render_refuses_a_folder_before_drawing(tmp_path, capsys, monkeypatch):
    from relulab.commands import render

    drawn = []
    monkeypatch.setattr(render, "_render", lambda *args: drawn.append(args) or 0)
    (tmp_path / "picture.png").mkdir()
    read_only = tmp_path / "old.png"
    read_only.write_bytes(b"")
    read_only.chmod(0o444)
    for out, words in ((tmp_path / "picture.png", "folder"), (read_only, "read-only")):
        code, _, err = _run(capsys, render.main, "-o", out)
        assert code == 1 and words in err and err.count("\n") == 1
    assert drawn == []
    code, _, err = _run(capsys, render.main, "-o", tmp_path / "new.png")
    assert code == 0 and len(drawn) == 1
    scene = tmp_path / "scene.png"  # a scene under any name is read as one
    scene.write_text('{"format": "relulab-scene", "version": 1, "panels": {}}')
    code, _, err = _run(capsys, render.main, scene, "-o", scene)
    assert code == 2 and "the output is the scene read" in err and len(drawn) == 1
    assert scene.read_text().startswith('{"format"')


# ---------------------------------------------------------------------------
# JSON keys written twice
# ---------------------------------------------------------------------------
def test_json_keys_written_twice_are_refused(tmp_path):
    """JSON leaves open which of two equal keys counts (Python takes the last, other
    readers the first): a network or a scene that names one twice is refused by name."""
    from relulab.io.scenes import SceneError, parse_scene

    text = '{"layers": [{"weights": [[1]], "biases": [0], "biases": [5]}]}'
    assert json.loads(text)["layers"][0]["biases"] == [5]  # what was taken silently
    (tmp_path / "net.json").write_text(text)
    with pytest.raises(NetworkFileError, match=r"net\.json: the key 'biases' appears twice"):
        load_network(tmp_path / "net.json")
    scene = ('{"format": "relulab-scene", "version": 1, "panels": {"hinges": {}}, '
             '"panels": {}}')
    with pytest.raises(SceneError, match="the key 'panels' appears twice"):
        parse_scene(scene)


def _objects(doc, path=()):
    """Every object of a JSON document with its path of keys and indices."""
    if isinstance(doc, dict):
        yield path, doc
        for k, v in doc.items():
            yield from _objects(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _objects(v, (*path, i))


def _with_key_twice(doc, where, key) -> str:
    """``doc`` as JSON text with ``key`` of the object at path ``where`` written a second
    time, with another value, at the end of that object."""
    marker = "__the_second_key__"
    target = doc
    for step in where:
        target = target[step]
    target[marker] = [0]
    text = json.dumps(doc)
    del target[marker]
    return text.replace(json.dumps(marker), json.dumps(key), 1)


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(1, 3), min_size=2, max_size=4), pick=st.integers(0, 10**6),
       twice=st.booleans())
def test_any_key_written_twice_is_refused_in_networks(sizes, pick, twice):
    doc = MLP.random(sizes, seed=pick % 97).to_dict()
    objects = list(_objects(doc))
    where, obj = objects[pick % len(objects)]
    key = sorted(obj)[pick % len(obj)]
    from relulab.io.networks import network_from_bytes

    if twice:
        with pytest.raises(NetworkFileError, match=f"the key '{key}' appears twice"):
            network_from_bytes(_with_key_twice(doc, where, key).encode(), "json")
    else:
        net = network_from_bytes(json.dumps(doc).encode(), "json")
        assert net.to_dict() == doc


@settings(max_examples=60, deadline=None)
@given(pick=st.integers(0, 10**6))
def test_any_key_written_twice_is_refused_in_the_lecture(pick):
    """The built-in lecture's scenes read as they are; any of their keys written twice
    is refused."""
    from relulab.io.scenes import SceneError, builtin_lecture_path, parse_scene

    folder = builtin_lecture_path().parent
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".relulab.json"))
    doc = json.loads(folder.joinpath(names[pick % len(names)]).read_text())
    parse_scene(json.dumps(doc))
    objects = [(w, o) for w, o in _objects(doc) if o]
    where, obj = objects[pick % len(objects)]
    key = sorted(obj)[pick % len(obj)]
    with pytest.raises(SceneError, match="appears twice"):
        parse_scene(_with_key_twice(doc, where, key))


# ---------------------------------------------------------------------------
# ONNX: reshapes that mix rows
# ---------------------------------------------------------------------------
def _reshape_model(declared, target, width):
    """x of declared shape ``declared`` → Reshape(target) → Gemm of ``width`` inputs."""
    W = np.arange(1.0, width + 1, dtype=np.float32).reshape(1, width)
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("Gemm", ["r", "W", "b"], ["y"], transB=1)]
    inits = [numpy_helper.from_array(np.array(target, np.int64), "shape"),
             numpy_helper.from_array(W, "W"), numpy_helper.from_array(np.zeros(1, np.float32), "b")]
    graph = helper.make_graph(nodes, "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, declared)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def test_a_reshape_that_may_mix_rows_is_refused(tmp_path):
    """Reshape to (−1, 3) of an input declared (N, "F"): with F = 6, onnxruntime makes
    four rows of two, mixing them. Refused, as the reader cannot know F."""
    path = tmp_path / "mix.onnx"
    path.write_bytes(_reshape_model(["N", "F"], [-1, 3], 3).SerializeToString())
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": np.ones((2, 6), np.float32)})[0].shape == (4, 1)
    with pytest.raises(NetworkFileError, match=r"width is not declared keeps the rows only if "
                                               r"it is 3"):
        load_network(path)


@settings(max_examples=80, deadline=None)
@given(dims=st.lists(st.one_of(st.integers(1, 4), st.just("F")), min_size=1, max_size=3),
       target=st.sampled_from([(-1, 0), (0, -1), (-1, 1), (-1, 2), (-1, 4), (-1, 6), (0, 4)]))
def test_every_reshape_read_keeps_the_rows(tmp_path_factory, dims, target):
    """Inputs declared (N, d…) with some widths named, reshaped to a batch: whatever is
    read gives onnxruntime's rows on every input the declaration allows."""
    known = [d for d in dims if d != "F"]
    features = int(np.prod(known)) if len(known) == len(dims) else None
    t1 = target[1] if target[1] > 0 else features or 4
    path = tmp_path_factory.mktemp("reshape") / "r.onnx"
    path.write_bytes(_reshape_model(["N", *dims], list(target), t1).SerializeToString())
    try:
        net = load_network(path)
    except NetworkFileError:
        return
    options = ort.SessionOptions()
    options.log_severity_level = 4  # the widths it refuses are expected: no log lines
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for value in (1, 2, 3, 4, 6):  # every width a named dimension may take
        shape = [5, *(value if d == "F" else d for d in dims)]
        x = rng.normal(size=shape).astype(np.float32)
        try:
            expect = session.run(None, {"x": x})[0]
        except Exception:  # onnxruntime refuses this width: nothing to compare
            continue
        assert expect.shape[0] == 5, (dims, target, value)  # a row stays a row
        got = net(x.reshape(5, -1).astype(float)) if net.n_in == x[0].size else None
        assert got is not None, (dims, target, value, net.n_in)
        np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# ONNX read without the onnx package, as onnx reads it
# ---------------------------------------------------------------------------
def test_the_wire_schema_is_onnx_s():
    """Every field the reader decodes has onnx's number, name and kind."""
    from google.protobuf.descriptor import FieldDescriptor as F

    from relulab.io import onnx_wire

    messages = {"ModelProto": onnx.ModelProto, "GraphProto": onnx.GraphProto,
                "NodeProto": onnx.NodeProto, "AttributeProto": onnx.AttributeProto,
                "TensorProto": onnx.TensorProto, "ValueInfoProto": onnx.ValueInfoProto,
                "TypeProto": onnx.TypeProto, "TypeProtoTensor": onnx.TypeProto.Tensor,
                "TensorShapeProto": onnx.TensorShapeProto,
                "Dimension": onnx.TensorShapeProto.Dimension}
    kinds = {F.TYPE_INT64: "int", F.TYPE_INT32: "int", F.TYPE_ENUM: "int", F.TYPE_UINT64: "uint",
             F.TYPE_FLOAT: "float", F.TYPE_DOUBLE: "double", F.TYPE_STRING: "string",
             F.TYPE_BYTES: "bytes"}
    assert set(onnx_wire.SCHEMA) == set(messages)
    for kind, fields in onnx_wire.SCHEMA.items():
        descriptor = messages[kind].DESCRIPTOR
        for number, (name, field_kind, repeated, oneof) in fields.items():
            f = descriptor.fields_by_number[number]
            assert f.name == name and f.is_repeated == repeated, (kind, name)
            assert (f.containing_oneof.name if f.containing_oneof else None) == oneof
            if f.type == F.TYPE_MESSAGE:
                assert field_kind in ("skip", "bytes") or \
                    f.message_type == messages[field_kind].DESCRIPTOR, (kind, name)
            else:
                assert kinds[f.type] == field_kind, (kind, name)
    for number, name in onnx_wire.DATA_TYPES.items():
        assert TensorProto.DataType.Name(number) == name


NUMERIC = [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16,
           TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64,
           TensorProto.UINT8, TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64]


@settings(max_examples=300, deadline=None)
@given(data_type=st.sampled_from(NUMERIC), dims=st.lists(st.integers(0, 4), max_size=3),
       raw=st.booleans(), seed=st.integers(0, 2**32 - 1), packed=st.booleans())
def test_tensors_decode_as_onnx_decodes_them(data_type, dims, raw, seed, packed):
    """Every numeric type, its values raw or in the type's field, its dims packed or
    one varint each (protobuf allows both): the values are onnx's, bit for bit."""
    from relulab.io import onnx_wire
    from tests.hostile import protobuf_field, varint

    rng = np.random.default_rng(seed)
    np_type = helper.tensor_dtype_to_np_dtype(data_type)
    reach = {TensorProto.DOUBLE: 200, TensorProto.FLOAT: 30}.get(data_type, 3)
    if np.dtype(np_type).kind == "f" or data_type == TensorProto.BFLOAT16:
        values = rng.normal(size=dims) * 10.0 ** rng.integers(-reach, reach + 1)
        values = values.astype(np.float64 if data_type == TensorProto.DOUBLE else np.float32)
    else:
        info = np.iinfo(np_type)
        values = rng.integers(info.min, info.max, size=dims, dtype=np_type, endpoint=True)
    t = helper.make_tensor("t", data_type, dims, values.reshape(-1).tolist() if not raw else
                           np.asarray(values).astype(np_type).tobytes(), raw=raw)
    if packed:
        tensor = t.SerializeToString()
    else:
        bare = onnx.TensorProto()
        bare.CopyFrom(t)
        bare.ClearField("dims")
        tensor = b"".join(b"\x08" + varint(d) for d in dims) + bare.SerializeToString()
    data = protobuf_field(7, protobuf_field(5, tensor))
    mine = onnx_wire.parse_model(data, "t.onnx").graph.initializer[0]
    theirs = numpy_helper.to_array(onnx.load_from_string(data).graph.initializer[0])
    got = onnx_wire.tensor_values(mine)
    expect = theirs.astype(np.float32) if data_type == TensorProto.BFLOAT16 else theirs
    assert got.shape == expect.shape and got.dtype == expect.dtype
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), expect.reshape(-1).view(np.uint8))


def _same_graph(mine, theirs):
    for a, b in ((mine.graph.input, theirs.graph.input), (mine.graph.output, theirs.graph.output)):
        assert [v.name for v in a] == [v.name for v in b]
        for u, v in zip(a, b, strict=True):
            ud = [(d.HasField("dim_value"), d.dim_value, d.dim_param)
                  for d in u.type.tensor_type.shape.dim]
            vd = [(d.HasField("dim_value"), d.dim_value, d.dim_param)
                  for d in v.type.tensor_type.shape.dim]
            assert ud == vd
            assert u.type.tensor_type.HasField("shape") == v.type.tensor_type.HasField("shape")
    assert len(mine.graph.node) == len(theirs.graph.node)
    for m, t in zip(mine.graph.node, theirs.graph.node, strict=True):
        assert (m.op_type, m.name, m.domain, list(m.input), list(m.output)) == \
            (t.op_type, t.name, t.domain, list(t.input), list(t.output))
        for ma, ta in zip(m.attribute, t.attribute, strict=True):
            assert (ma.name, ma.type, ma.i, list(ma.ints), list(ma.floats)) == \
                (ta.name, ta.type, ta.i, list(ta.ints), list(ta.floats))
            assert ma.f == ta.f or (np.isnan(ma.f) and np.isnan(ta.f))
    for m, t in zip(mine.graph.initializer, theirs.graph.initializer, strict=True):
        assert m.name == t.name and list(m.dims) == list(t.dims)


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(1, 4), min_size=2, max_size=4), seed=st.integers(0, 2**16),
       twice=st.booleans())
def test_models_decode_as_onnx_decodes_them(tmp_path_factory, sizes, seed, twice):
    """Random networks written by onnx (or with the graph split in two ModelProto.graph
    fields, which protobuf merges): the decoded graph is onnx's, and the network read
    is the one written."""
    from relulab.io import onnx_wire

    rng = np.random.default_rng(seed)
    layers = [(rng.normal(size=(b, a)), rng.normal(size=b)) for a, b in pairwise(sizes)]
    model = _gemm_model(layers, sizes[0], np.float64, "LeakyRelu" if seed % 3 == 0 else "Relu",
                        alpha=0.01 if seed % 3 == 0 and seed % 2 else None)
    data = model.SerializeToString()
    if twice:  # the same model as two graph fields, nodes in one, the rest in the other
        g1, g2 = onnx.GraphProto(), onnx.GraphProto()
        g1.node.extend(model.graph.node)
        g2.CopyFrom(model.graph)
        del g2.node[:]
        rest = onnx.ModelProto()
        rest.CopyFrom(model)
        rest.ClearField("graph")
        data = rest.SerializeToString() + b"".join(
            _field(7, g.SerializeToString()) for g in (g1, g2))
    mine = onnx_wire.parse_model(data, "m.onnx")
    _same_graph(mine, onnx.load_from_string(data))
    path = tmp_path_factory.mktemp("wire") / "m.onnx"
    path.write_bytes(data)
    net = load_network(path)
    x = rng.normal(size=(20, sizes[0]))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    if seed % 3:  # onnxruntime has no float64 LeakyRelu
        np.testing.assert_allclose(net(x), session.run(None, {"x": x})[0], rtol=1e-12,
                                   atol=1e-12)


def _field(number, payload):
    from tests.hostile import protobuf_field

    return protobuf_field(number, payload)


_NO_ONNX = """
import sys
sys.modules["onnx"] = None  # import onnx now fails
from relulab.io.networks import load_network
net = load_network(sys.argv[1])
print(net.sizes, float(net([[0.5] * net.n_in])[0, 0]).hex())
"""


def test_onnx_files_are_read_without_the_onnx_package(tmp_path):
    net = MLP.random([3, 5, 2], seed=9)
    save_network(net, tmp_path / "n.onnx")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _NO_ONNX, str(tmp_path / "n.onnx")], env=env,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.split() == ["[3,", "5,", "2]", float(net([[0.5] * 3])[0, 0]).hex()]


def _refusals(tmp_path):
    """ONNX files refused for their content, one of each kind."""
    files = dict(_zero_width_files(tmp_path))
    gemm = helper.make_node("Gemm", ["x", "W0", "b0"], ["z"], transB=1)
    leaky = _gemm_model([(np.ones((2, 2)), np.ones(2)), (np.ones((1, 2)), [0.0])], 2,
                        activation="LeakyRelu", alpha=float("nan"))
    softplus = _gemm_model([(np.ones((2, 2)), np.ones(2)), (np.ones((1, 2)), [0.0])], 2,
                           activation="Softplus")
    assert gemm.op_type == "Gemm"
    files["leaky.onnx"], files["softplus.onnx"] = tmp_path / "leaky.onnx", tmp_path / "sp.onnx"
    files["leaky.onnx"].write_bytes(leaky.SerializeToString())
    files["softplus.onnx"].write_bytes(softplus.SerializeToString())
    files["garbage.onnx"] = tmp_path / "garbage.onnx"
    files["garbage.onnx"].write_bytes(b"\x08\x07garbage-not-protobuf\xff\xff" * 100)
    files["mix.onnx"] = tmp_path / "mix.onnx"
    files["mix.onnx"].write_bytes(_reshape_model(["N", "F"], [-1, 3], 3).SerializeToString())
    return files


_TIMED = """
import sys
from relulab.app import main
code = main(["convert", *sys.argv[1:]])
print(code, "onnx" in sys.modules, "numba" in sys.modules, file=sys.stdout)
"""


def test_onnx_refusals_answer_within_two_seconds(tmp_path):
    """Every refusal, start-up included, within 2 s of CPU time; none imports onnx (its
    import alone took 1.5-1.8 s) or the region engine (numba: a second more)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name, path in _refusals(tmp_path).items():
        start = time.monotonic()
        child = subprocess.Popen([sys.executable, "-c", _TIMED, str(path),
                                  str(tmp_path / "out.json")], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(child.pid, 0)  # the child's own CPU time
        child.returncode = os.waitstatus_to_exitcode(status)
        out, err = child.stdout.read(), child.stderr.read()
        child.stdout.close()
        child.stderr.close()
        cpu = usage.ru_utime + usage.ru_stime
        assert out.split() == ["1", "False", "False"] and err.count("\n") == 1, (name, out, err)
        assert child.returncode == 0
        assert cpu <= 2.0, (name, cpu, time.monotonic() - start)


# ---------------------------------------------------------------------------
# ONNX: LeakyRelu's alpha is the file's float32
# ---------------------------------------------------------------------------
def _exact(layers, kinds, x):
    """The network's output at ``x``, in fractions (kinds: ("leaky", α) or "relu")."""
    h = [Fraction(float(v)) for v in x]
    for i, (W, b) in enumerate(layers):
        z = [sum((Fraction(float(w)) * v for w, v in zip(row, h, strict=True)), Fraction(0))
             + Fraction(float(c)) for row, c in zip(W, b, strict=True)]
        if i == len(layers) - 1:
            return z
        kind = kinds[i]
        h = [v if v > 0 else (Fraction(float(kind[1])) * v if kind != "relu" else Fraction(0))
             for v in z]
    return h


def test_leaky_relu_keeps_the_file_alpha(tmp_path):
    """ONNX stores alpha as a float32: the default 0.01 is 0.0099999997764825820922851562,
    and onnxruntime computes with it. The network read has that slope, not the double
    0.01 the model's leaky ReLU uses."""
    alpha = float(np.float32(0.01))
    path = tmp_path / "leaky.onnx"
    path.write_bytes(_gemm_model([([[1.0]], [0.0]), ([[1.0]], [0.0])], 1,
                                 activation="LeakyRelu").SerializeToString())
    net = load_network(path)
    assert Fraction(float(net(np.array([[-1.0]]))[0, 0])) == -Fraction(alpha) != -Fraction(0.01)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": np.array([[-1.0]], np.float32)})[0][0, 0] == np.float32(-alpha)


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(1, 3), min_size=3, max_size=4), seed=st.integers(0, 2**16),
       alpha=st.floats(-2, 2, width=32), leaky=st.lists(st.booleans(), min_size=3, max_size=3))
def test_a_leaky_network_read_is_the_file_s_network(tmp_path_factory, sizes, seed, alpha, leaky):
    """Float32 networks with LeakyRelu of any float32 alpha, mixed with Relu: the network
    read computes, in fractions, exactly what the file's network computes in fractions."""
    rng = np.random.default_rng(seed)
    layers = [((rng.normal(size=(b, a)) * 4).astype(np.float32),
               rng.normal(size=b).astype(np.float32)) for a, b in pairwise(sizes)]
    kinds = [("leaky", alpha) if leaky[i] else "relu" for i in range(len(layers) - 1)]
    elem = TensorProto.FLOAT
    nodes, inits, current = [], [], "x"
    for i, (W, b) in enumerate(layers):
        inits += [numpy_helper.from_array(W, f"W{i}"), numpy_helper.from_array(b, f"b{i}")]
        out = "y" if i == len(layers) - 1 else f"z{i}"
        nodes.append(helper.make_node("Gemm", [current, f"W{i}", f"b{i}"], [out], transB=1))
        current = out
        if i < len(layers) - 1:
            extra = {"alpha": alpha} if leaky[i] else {}
            nodes.append(helper.make_node("LeakyRelu" if leaky[i] else "Relu", [out], [f"h{i}"],
                                          **extra))
            current = f"h{i}"
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", elem, ["N",
                                                                                   sizes[0]])],
                              [helper.make_tensor_value_info("y", elem, ["N", sizes[-1]])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path_factory.mktemp("leaky") / "l.onnx"
    path.write_bytes(model.SerializeToString())
    net = load_network(path)
    for x in rng.normal(size=(4, sizes[0])) * 3:
        expect = _exact(layers, kinds, x)
        got = _exact(net.layers, ["relu"] * (len(net.layers) - 1), x)
        assert got == expect
