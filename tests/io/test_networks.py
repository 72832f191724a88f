"""Network files: round trips in every format, ONNX checked by onnxruntime, and
every kind of bad file refused with a message naming the problem."""

import json
from pathlib import Path

import numpy as np
import pytest

from relulab.io.networks import (
    NetworkFileError,
    load_network,
    network_from_dict,
    network_to_onnx_bytes,
    save_network,
)
from relulab.model.networks.mlp import MLP
from relulab.model.shallow.construction import ExtendedNetwork, to_shallow, to_shallow_extended

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402 - only once onnx is there

NET = MLP.random([2, 5, 4, 3], seed=0)
X = np.random.default_rng(1).normal(size=(200, 2))


@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx"])
def test_round_trip(tmp_path, suffix):
    path = tmp_path / f"net{suffix}"
    save_network(NET, path)
    back = load_network(path)
    assert back.sizes == NET.sizes
    assert np.allclose(back(X), NET(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_extended_round_trip(tmp_path, suffix):
    net = MLP.random([2, 4, 4, 1], seed=2)
    shallow = to_shallow_extended(net)
    path = tmp_path / f"shallow{suffix}"
    save_network(shallow, path)
    back = load_network(path)
    assert isinstance(back, ExtendedNetwork) and back.sizes == shallow.sizes
    assert np.array_equal(back(X), shallow(X))


def test_json_is_documented_schema(tmp_path):
    path = tmp_path / "net.json"
    save_network(NET, path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "relulab-network" and doc["activation"] == "relu"
    assert [len(L["biases"]) for L in doc["layers"]] == [5, 4, 3]
    minimal = {"layers": [{"weights": [[1, 2]], "biases": [0]}, {"weights": [[3]], "biases": [1]}]}
    assert network_from_dict(minimal)(np.array([[1.0, 1.0]]))[0, 0] == 10.0


def test_onnx_export_runs_in_onnxruntime(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    deep = MLP.random([1, 8, 8, 1], seed=3)
    shallow = to_shallow(deep)
    for net in (deep, shallow):
        path = tmp_path / "n.onnx"
        save_network(net, path)
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        x = np.linspace(-5, 5, 101)[:, None]
        y = sess.run(None, {"x": x})[0]
        assert np.allclose(y[:, 0], deep(x[:, 0]), rtol=1e-9, atol=1e-9)


def _model(nodes, inits, n_in=2, n_out=1, elem=TensorProto.FLOAT):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", elem, ["N", n_in])],
                              [helper.make_tensor_value_info("y", elem, ["N", n_out])],
                              initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _t(a, name):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)


def test_onnx_import_matmul_add_and_gemm_variants(tmp_path):
    W1 = np.array([[1.0, -2.0], [0.5, 1.0], [2.0, 0.0]])  # (out, in)
    nodes = [helper.make_node("Flatten", ["x"], ["xf"]),
             helper.make_node("MatMul", ["xf", "B1"], ["m1"]),
             helper.make_node("Add", ["m1", "c1"], ["z1"]),
             helper.make_node("Relu", ["z1"], ["h1"]),
             helper.make_node("Gemm", ["h1", "B2", "c2"], ["y"], alpha=2.0, beta=0.5)]
    B2 = np.array([[1.0], [-1.0], [0.5]])  # (in, out), transB = 0
    model = _model(nodes, [_t(W1.T, "B1"), _t([0.1, -0.2, 0.3], "c1"), _t(B2, "B2"), _t([4.0], "c2")])
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    net = load_network(path)
    expect = MLP([(W1, [0.1, -0.2, 0.3]), (2.0 * B2.T, [2.0])])
    assert np.allclose(net(X), expect(X), atol=1e-6)


def _bad_onnx(tmp_path, nodes, inits, **kw):
    path = tmp_path / "bad.onnx"
    path.write_bytes(_model(nodes, inits, **kw).SerializeToString())
    return path


def test_onnx_unsupported_operator_is_named(tmp_path):
    path = _bad_onnx(tmp_path, [helper.make_node("Gemm", ["x", "B"], ["z"], transB=1, name="fc"),
                                helper.make_node("Softplus", ["z"], ["y"], name="squash")],
                     [_t([[1.0, 2.0]], "B")])
    with pytest.raises(NetworkFileError, match=r"node 2 \(Softplus 'squash'\) is not supported"):
        load_network(path)


def test_onnx_shape_mismatch_and_nan(tmp_path):
    path = _bad_onnx(tmp_path, [helper.make_node("Gemm", ["x", "B"], ["z"], transB=1),
                                helper.make_node("Relu", ["z"], ["h"]),
                                helper.make_node("Gemm", ["h", "B2"], ["y"], transB=1)],
                     [_t([[1.0, 2.0], [3.0, 4.0]], "B"), _t([[1.0, 2.0, 3.0]], "B2")])
    with pytest.raises(NetworkFileError, match=r"node 3 \(Gemm\): expects 3 inputs but gets 2"):
        load_network(path)
    path = _bad_onnx(tmp_path, [helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)],
                     [_t([[1.0, np.nan]], "B")])
    with pytest.raises(NetworkFileError, match="NaN or infinite"):
        load_network(path)


def test_onnx_cannot_hold_infinite_weights():
    with pytest.raises(NetworkFileError, match="infinite"):
        network_to_onnx_bytes(to_shallow_extended(MLP.random([2, 2, 1], seed=0)))


BAD_JSON = [
    ("", "empty"),
    ('{"layers": [{"weights": [[1, 2]], "biases": [0]}', "truncated JSON"),
    ("[1, 2]", "top level must be an object"),
    ('{"layers": "many"}', '"layers" must be a non-empty list'),
    ('{"layers": [{"weights": [[1, 2], [3]], "biases": [0, 0]}]}', "row 2 has 1 entries"),
    ('{"layers": [{"weights": [[1, "a"]], "biases": [0]}]}', "'a' is not a number"),
    ('{"layers": [{"weights": [[1, NaN]], "biases": [0]}]}', "NaN is not allowed"),
    ('{"layers": [{"weights": [[1, 1e999]], "biases": [0]}]}', "not finite"),
    ('{"layers": [{"weights": [[1, 2]], "biases": [0, 1]}]}', "1 rows of weights but 2 biases"),
    ('{"layers": [{"weights": [[1, 2]], "biases": [0]}, {"weights": [[1, 2]], "biases": [0]}]}',
     "layer 2 weights: 2 columns, expected 1"),
    ('{"layers": [{"weights": [[1]], "biases": [0]}], "activation": "swish"}', '"activation"'),
    ('{"layers": [{"weights": [[true]], "biases": [0]}]}', "True is not a number"),
    ('{"format": "onnx", "layers": []}', '"format"'),
    ('{"layers": [{"weights": [[1]]}]}', '"biases" is missing'),
]


@pytest.mark.parametrize(("text", "message"), BAD_JSON)
def test_bad_json_files(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(NetworkFileError, match=message.replace("(", r"\(").replace("[", r"\[")) as e:
        load_network(path)
    assert "bad.json" in str(e.value)


def test_files_that_are_not_what_their_name_says(tmp_path):
    save_network(NET, tmp_path / "real.npz")
    (tmp_path / "fake.json").write_bytes((tmp_path / "real.npz").read_bytes())
    with pytest.raises(NetworkFileError, match="not a JSON file"):
        load_network(tmp_path / "fake.json")
    save_network(NET, tmp_path / "real.json")
    for suffix in (".npz", ".onnx"):
        (tmp_path / f"fake{suffix}").write_bytes((tmp_path / "real.json").read_bytes())
        with pytest.raises(NetworkFileError, match=f"not a {suffix[1:].upper()} file"):
            load_network(tmp_path / f"fake{suffix}")
    with pytest.raises(NetworkFileError, match="unknown file type"):
        load_network(tmp_path / "net.txt")
    with pytest.raises(NetworkFileError, match="no such file"):
        load_network(tmp_path / "missing.json")


def test_truncated_binary_files(tmp_path):
    for suffix in (".npz", ".onnx"):
        save_network(NET, tmp_path / f"n{suffix}")
        data = (tmp_path / f"n{suffix}").read_bytes()
        (tmp_path / f"t{suffix}").write_bytes(data[: len(data) // 2])
        with pytest.raises(NetworkFileError, match=r"truncated|damaged"):
            load_network(tmp_path / f"t{suffix}")


def test_bad_npz_contents(tmp_path):
    def write(**arrays):
        path = tmp_path / "a.npz"
        np.savez(path, **arrays)
        return path

    with pytest.raises(NetworkFileError, match="unexpected array weights; expected W1, b1"):
        load_network(write(weights=np.eye(2)))
    with pytest.raises(NetworkFileError, match="no W1"):
        load_network(write(b1=np.eye(2)))
    with pytest.raises(NetworkFileError, match="W1 has no b1"):
        load_network(write(W1=np.eye(2)))
    with pytest.raises(NetworkFileError, match="NaN or infinite"):
        load_network(write(W1=np.array([[np.inf]]), b1=np.zeros(1)))
    with pytest.raises(NetworkFileError, match="expected 2"):
        load_network(write(W1=np.zeros(3), b1=np.zeros(1)))
    with pytest.raises(NetworkFileError, match="layer 2"):
        load_network(write(W1=np.eye(2), b1=np.zeros(2), W2=np.ones((1, 3)), b2=np.zeros(1)))
    path = tmp_path / "obj.npz"
    np.savez(path, W1=np.array([object()], dtype=object), b1=np.zeros(1))
    with pytest.raises(NetworkFileError, match="array W1: holds Python objects"):
        load_network(path)


def test_save_is_atomic_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "n.onnx"
    save_network(NET, path)
    before = path.read_bytes()
    with pytest.raises(NetworkFileError):
        save_network(to_shallow_extended(MLP.random([2, 2, 1], seed=0)), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.onnx"]


# -- hostile and odd files ---------------------------------------------------------
ONE = {"layers": [{"weights": [[1.0, 2.0]], "biases": [0.5]}]}


@pytest.mark.parametrize(("data", "message"), [
    (b"   \n\t  \n", r"bad.json: the file is empty \(it holds only blank space\)"),
    (b"\xef\xbb\xbf  \n", r"the file is empty \(it holds only blank space\)"),
    ('{"layers": []}'.encode("utf-16"), "UTF-16 text; save the file as UTF-8"),
    (b'{"layers": [{"weights": [[]], "biases": [0]}]}',
     r"layer 1 weights: row 1 is empty"),
    (b'{"layers": [{"weights": [[1, ' + b"7" * 400 + b']], "biases": [0]}]}',
     "layer 1 weights, row 1, entry 2: a whole number with 400 digits is out of range"),
    (b'{"layers": [{"weights": [[1, -1e308]], "biases": [0]}]}',
     r"layer 1 weights, row 1, entry 2: -1e\+308 is out of range \(at most ±1e\+100\)"),
    (b'{"layers": [{"weights": [[1]], "biases": [1e308]}]}',
     "layer 1 biases, entry 1: 1e\\+308 is out of range"),
    (b'{"layers": [{"weights": [[1, 1e999]], "biases": [0]}]}', "is not finite"),
    (b"[" * 100_000 + b"]" * 100_000, "bad.json is nested 100000 levels deep; at most 16"),
    (json.dumps({"layers": [{"weights": [[1]], "biases": [0]}] * 10_001}).encode(),
     "10,001 layers; at most 10,000"),
    (json.dumps({"layers": [{"weights": [[1e90]], "biases": [0]}] * 4}).encode(),
     "layer 4: the weights are so large that values could reach 1e360"),
    (json.dumps({"version": 2, **ONE}).encode(), '"version" 2 is not one this program reads'),
    (json.dumps({"layers": [{"weights": [[1]], "biases": [0], "x\ny": 1}]}).encode(),
     "unknown key"),
])
def test_hostile_json_is_one_line_naming_the_field(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(NetworkFileError, match=message) as e:
        load_network(path)
    assert "\n" not in str(e.value) and str(e.value).startswith("bad.json")


def test_a_utf8_bom_is_fine(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(ONE).encode())
    assert load_network(path).sizes == [2, 1]


def test_huge_but_finite_weights_are_refused_at_load_not_in_use(tmp_path):
    """±1e308 passes as finite, then overflows to inf and NaN in the converter."""
    for value in (1e308, -1e308, 1e101):
        np.savez(tmp_path / "big.npz", W1=np.array([[value, 1.0]]), b1=np.zeros(1))
        with pytest.raises(NetworkFileError,
                           match=r"big.npz: layer 1 W1, row 1, entry 1: [-0-9.e+]+ is out of range"):
            load_network(tmp_path / "big.npz")
    ok = MLP([(np.array([[1e100]]), [0.0]), (np.array([[1e100]]), [0.0]),
              (np.array([[1e100]]), [0.0])])
    save_network(ok, tmp_path / "ok.npz")  # 1e300 at most: still a double
    assert load_network(tmp_path / "ok.npz").is_finite()


def _npz(tmp_path, **arrays):
    path = tmp_path / "a.npz"
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize(("arrays", "message"), [
    ({"W1": np.eye(2), "b1": np.zeros(2), "S1": np.zeros(2), "V1": np.array(["a", "b"]), "v1": np.zeros(2)},
     "layer 1: V1 holds text, not numbers"),
    ({"W1": np.array(["1"]), "b1": np.zeros(1)}, "W1 holds text"),
    ({"W1": np.zeros((1, 0)), "b1": np.zeros(1)}, "W1 has shape \\(1, 0\\); it is empty"),
    ({"W1": np.ones((1, 1), np.complex128), "b1": np.zeros(1)}, "W1 has type complex128"),
    ({"W1": np.ones((1, 1), bool), "b1": np.zeros(1)}, "W1 has type bool"),
    ({"W1": np.eye(1), "b1": np.zeros(1), "V1": np.eye(1)}, "V1 without S1"),
])
def test_npz_arrays_of_the_wrong_kind(tmp_path, arrays, message):
    with pytest.raises(NetworkFileError, match=message):
        load_network(_npz(tmp_path, **arrays))


def _zip_with(tmp_path, members: dict, compression=None) -> Path:
    import zipfile

    path = tmp_path / "z.npz"
    with zipfile.ZipFile(path, "w", compression or zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _npy(arr) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def test_npz_members_are_checked_before_they_are_read(tmp_path):
    with pytest.raises(NetworkFileError, match=r"member notes.txt is not a NumPy array"):
        load_network(_zip_with(tmp_path, {"W1.npy": _npy(np.eye(1)), "notes.txt": b"hi"}))
    with pytest.raises(NetworkFileError, match="unexpected array W01"):
        load_network(_zip_with(tmp_path, {"W01.npy": _npy(np.eye(1))}))
    with pytest.raises(NetworkFileError, match="array W1 appears twice"):
        load_network(_duplicate_zip(tmp_path))


def _duplicate_zip(tmp_path) -> Path:
    import warnings
    import zipfile

    path = tmp_path / "dup.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("W1.npy", _npy(np.eye(1)))
            z.writestr("W1.npy", _npy(np.eye(1)))
    return path


# -- an activation per hidden layer --------------------------------------------------------

MIXED = MLP.random([2, 5, 4, 3, 3], seed=4, activation=["relu", "tanh", "leaky_relu"])


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_per_layer_activations_round_trip(tmp_path, suffix):
    path = tmp_path / f"mixed{suffix}"
    save_network(MIXED, path)
    back = load_network(path)
    assert back.activations == ("relu", "tanh", "leaky_relu")
    assert np.array_equal(back(X), MIXED(X))
    if suffix == ".json":
        assert json.loads(path.read_text())["activation"] == ["relu", "tanh", "leaky_relu"]


@pytest.mark.parametrize("activation", [["relu", "tanh", "sigmoid"], ["tanh", "relu", "relu"],
                                        "sigmoid", ["sigmoid", "identity", "relu"]])
def test_onnx_writes_each_layers_operator_and_onnxruntime_agrees(tmp_path, activation):
    ort = pytest.importorskip("onnxruntime")
    net = MLP.random([2, 5, 4, 3, 3], seed=5, activation=activation)
    data = network_to_onnx_bytes(net)
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    assert np.allclose(session.run(None, {"x": X})[0], net(X), rtol=1e-13, atol=1e-14)
    path = tmp_path / "net.onnx"
    path.write_bytes(data)
    back = load_network(path)
    assert np.allclose(back(X), net(X), rtol=1e-13, atol=1e-14)
    if "identity" in net.activations:  # no operator: the layer merges with the next
        assert back.activations == ("sigmoid", "relu") and back.sizes == [2, 5, 3, 3]
    else:
        assert back.activations == net.activations and back.sizes == net.sizes


@pytest.mark.parametrize("activation", ["leaky_relu", ["relu", "gelu", "relu"]])
def test_onnx_export_refuses_what_onnxruntime_cannot_run(activation):
    net = MLP.random([2, 3, 3, 3, 1], seed=0, activation=activation)
    with pytest.raises(NetworkFileError, match=r"not (gelu|leaky_relu); use JSON or NPZ"):
        network_to_onnx_bytes(net)


@pytest.mark.parametrize(("activation", "message"), [
    (["relu", "tanh"], "lists 2 names for 1 hidden layers"),
    (["relu", "swish"], "entry 2 'swish' is not one of"),
    ([1], "entry 1 a number is not one of"),
    ({"a": 1}, "must be a name or a list of names"),
    ("softmax", "'softmax' is not one of"),
])
def test_bad_activation_lists_in_json_are_named(activation, message):
    doc = {"activation": activation, "layers": [{"weights": [[1.0, 0.0]], "biases": [0.0]},
                                                {"weights": [[1.0]], "biases": [0.0]}]}
    with pytest.raises(NetworkFileError, match=message):
        network_from_dict(doc)


def test_npz_activation_arrays(tmp_path):
    import io

    def npz(**arrays):
        buf = io.BytesIO()
        np.savez(buf, W1=np.ones((2, 2)), b1=np.zeros(2), W2=np.ones((1, 2)), b2=np.zeros(1), **arrays)
        path = tmp_path / "n.npz"
        path.write_bytes(buf.getvalue())
        return path

    assert load_network(npz(activation=np.array(["tanh"]))).activations == ("tanh",)
    with pytest.raises(NetworkFileError, match="lists 2 names for 1 hidden layers"):
        load_network(npz(activation=np.array(["tanh", "relu"])))
    with pytest.raises(NetworkFileError, match="activation must be one of"):
        load_network(npz(activation=np.array([["tanh"]])))
    with pytest.raises(NetworkFileError, match="activation must be one of"):
        load_network(npz(activation=np.array(["swish"])))


def test_onnx_import_reads_an_activation_per_layer(tmp_path):
    B1, B2, B3 = (_t(np.eye(2), "B1"), _t(np.eye(2), "B2"), _t([[1.0, 1.0]], "B3"))
    path = _bad_onnx(tmp_path, [helper.make_node("Gemm", ["x", "B1"], ["z1"], transB=1),
                                helper.make_node("Tanh", ["z1"], ["h1"]),
                                helper.make_node("Gemm", ["h1", "B2"], ["z2"], transB=1),
                                helper.make_node("Sigmoid", ["z2"], ["h2"]),
                                helper.make_node("Relu", ["h2"], ["h3"]),
                                helper.make_node("Gemm", ["h3", "B3"], ["y"], transB=1)],
                     [B1, B2, B3])
    net = load_network(path)
    # ReLU right after sigmoid is a layer of its own (only ReLU after ReLU is the same ReLU)
    assert net.activations == ("tanh", "sigmoid", "relu") and net.sizes == [2, 2, 2, 2, 1]
    assert np.allclose(net(X)[:, 0], np.maximum(1 / (1 + np.exp(-np.tanh(X))), 0).sum(axis=1))
