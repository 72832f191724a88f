"""ONNX import: what onnxruntime runs as a plain MLP is read as one, and the network read
gives onnxruntime's outputs on the same file; what is not an MLP is refused by name."""

import time

import numpy as np
import pytest

from relulab.io.networks import NetworkFileError, load_network, save_network
from relulab.model.networks.mlp import MLP

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402 - only once onnx is there

from tests.hostile import varint  # noqa: E402 - after the skips, with the other imports

RNG = np.random.default_rng(7)
F32 = TensorProto.FLOAT


def _t(a, name, dtype=np.float32):
    return numpy_helper.from_array(np.asarray(a, dtype=dtype), name)


def _model(nodes, inits=(), in_shape=("N", 2), out_shape=("N", 1), in_type=F32, out_type=F32,
           opset=17):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", in_type, list(in_shape))],
        [helper.make_tensor_value_info("y", out_type, list(out_shape))], initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _same_as_onnxruntime(tmp_path, model, in_shape, in_dtype=np.float32):
    """Load the file, run both on the same inputs, compare; returns the network."""
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    net = load_network(path)
    x = RNG.normal(size=(50, *in_shape)).astype(in_dtype)
    expect = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    got = net(x.reshape(len(x), -1).astype(float))
    assert got.shape == expect.reshape(len(x), -1).shape
    np.testing.assert_allclose(got, expect.reshape(len(x), -1), rtol=2e-5, atol=2e-5)
    return net


W1 = RNG.normal(size=(2, 4))  # (in, out), as MatMul takes it
W2 = RNG.normal(size=(4, 1))


def test_scalar_bias_in_add(tmp_path):
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["m"]),
             helper.make_node("Add", ["m", "c"], ["z"]),
             helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("MatMul", ["h", "W2"], ["m2"]),
             helper.make_node("Add", ["d", "m2"], ["y"])]  # constant first: Add commutes
    model = _model(nodes, [_t(W1, "W1"), _t(0.3, "c"), _t(W2, "W2"), _t([-0.5], "d")])
    net = _same_as_onnxruntime(tmp_path, model, (2,))
    assert net.sizes == [2, 4, 1] and np.allclose(net.layers[0][1], 0.3)


@pytest.mark.parametrize("shape", [(1, 4), (4,), (1,)])
def test_broadcast_biases(tmp_path, shape):
    bias = RNG.normal(size=shape)
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["m"]),
             helper.make_node("Add", ["m", "c"], ["z"]),
             helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("Gemm", ["h", "W2", "c2"], ["y"])]
    model = _model(nodes, [_t(W1, "W1"), _t(bias, "c"), _t(W2, "W2"), _t([[0.25]], "c2")])
    _same_as_onnxruntime(tmp_path, model, (2,))


def test_gemm_with_scalar_c_transb_alpha_beta(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "B", "C"], ["z"], transB=1, alpha=0.5, beta=2.0),
             helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("Gemm", ["h", "B2"], ["y"])]
    model = _model(nodes, [_t(W1.T, "B"), _t(0.1, "C"), _t(W2, "B2")])
    _same_as_onnxruntime(tmp_path, model, (2,))


def test_constant_nodes_in_all_their_forms(tmp_path):
    value = helper.make_tensor("v", F32, W1.shape, W1.astype(np.float32).ravel())
    nodes = [
        helper.make_node("Constant", [], ["W1"], value=value),
        helper.make_node("Constant", [], ["c1"], value_floats=[0.1, -0.2, 0.3, 0.0]),
        helper.make_node("Constant", [], ["c2"], value_float=0.05),
        helper.make_node("Constant", [], ["k"], value_int=2),
        helper.make_node("Cast", ["k"], ["kf"], to=F32),  # a constant through Cast
        helper.make_node("Constant", [], ["shape"], value_ints=[0, -1]),
        helper.make_node("Constant", [], ["W2"], value=numpy_helper.from_array(
            W2.astype(np.float32), "w2")),
        helper.make_node("Identity", ["W2"], ["W2i"]),  # and through Identity
        helper.make_node("MatMul", ["x", "W1"], ["m"]),
        helper.make_node("Add", ["m", "c1"], ["z0"]),
        helper.make_node("Add", ["z0", "c2"], ["z1"]),
        helper.make_node("Add", ["z1", "kf"], ["z"]),
        helper.make_node("Relu", ["z"], ["h"]),
        helper.make_node("Reshape", ["h", "shape"], ["hr"]),
        helper.make_node("MatMul", ["hr", "W2i"], ["y"]),
    ]
    net = _same_as_onnxruntime(tmp_path, _model(nodes), (2,))
    assert np.allclose(net.layers[0][1], [2.15, 1.85, 2.35, 2.05])


def test_flatten_of_a_three_dimensional_input(tmp_path):
    W = RNG.normal(size=(6, 5))
    nodes = [helper.make_node("Flatten", ["x"], ["f"]),
             helper.make_node("Gemm", ["f", "W"], ["z"]),
             helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("Gemm", ["h", "W2", "b2"], ["y"])]
    model = _model(nodes, [_t(W, "W"), _t(RNG.normal(size=(5, 2)), "W2"), _t([1.0, -1.0], "b2")],
                   in_shape=("N", 2, 3), out_shape=("N", 2))
    net = _same_as_onnxruntime(tmp_path, model, (2, 3))
    assert net.n_in == 6 and net.n_out == 2


@pytest.mark.parametrize("target", [[-1, 6], [0, -1], [0, 6]])
def test_reshape_to_a_batch_of_vectors(tmp_path, target):
    W = RNG.normal(size=(6, 3))
    nodes = [helper.make_node("Reshape", ["x", "s"], ["f"]),
             helper.make_node("MatMul", ["f", "W"], ["z"]),
             helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("MatMul", ["h", "W2"], ["y"])]
    model = _model(nodes, [numpy_helper.from_array(np.array(target, np.int64), "s"), _t(W, "W"),
                           _t(RNG.normal(size=(3, 1)), "W2")], in_shape=("N", 2, 3))
    _same_as_onnxruntime(tmp_path, model, (2, 3))


def test_identity_and_cast_to_float(tmp_path):
    nodes = [helper.make_node("Cast", ["x"], ["xf"], to=F32),  # double input, float network
             helper.make_node("Identity", ["xf"], ["xi"]),
             helper.make_node("Gemm", ["xi", "B"], ["z"], transB=1),
             helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("Identity", ["h"], ["hi"]),
             helper.make_node("Gemm", ["hi", "B2"], ["yf"]),
             helper.make_node("Cast", ["yf"], ["y"], to=TensorProto.DOUBLE)]
    model = _model(nodes, [_t(W1.T, "B"), _t(W2, "B2")], in_type=TensorProto.DOUBLE,
                   out_type=TensorProto.DOUBLE)
    _same_as_onnxruntime(tmp_path, model, (2,), np.float64)


def test_leaky_relu_layers(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "B", "c"], ["z"], transB=1),
             helper.make_node("LeakyRelu", ["z"], ["h"]),  # alpha 0.01 by default
             helper.make_node("Gemm", ["h", "B1", "c1"], ["z1"], transB=1),
             helper.make_node("LeakyRelu", ["z1"], ["h1"], alpha=0.01),
             helper.make_node("Gemm", ["h1", "B2"], ["y"])]
    model = _model(nodes, [_t(W1.T, "B"), _t(RNG.normal(size=4), "c"),
                           _t(RNG.normal(size=(3, 4)), "B1"), _t(RNG.normal(size=3), "c1"),
                           _t(RNG.normal(size=(3, 1)), "B2")])
    net = _same_as_onnxruntime(tmp_path, model, (2,))
    # each LeakyRelu with the file's float32 alpha: ReLU(z) − α·ReLU(−z), twice as wide
    assert net.activation == "relu" and net.sizes == [2, 8, 6, 1]


def test_any_number_of_inputs(tmp_path):
    leaky = MLP.random([9, 5, 5, 2], seed=1, activation="leaky_relu")
    for suffix in (".json", ".npz"):
        save_network(leaky, tmp_path / f"n{suffix}")
        back = load_network(tmp_path / f"n{suffix}")
        assert back.sizes == leaky.sizes and back.activation == "leaky_relu"
        x = RNG.normal(size=(20, 9))
        np.testing.assert_array_equal(back(x), leaky(x))
    net = MLP.random([9, 5, 5, 2], seed=1)
    save_network(net, tmp_path / "n.onnx")
    assert load_network(tmp_path / "n.onnx").sizes == net.sizes
    session = ort.InferenceSession(str(tmp_path / "n.onnx"), providers=["CPUExecutionProvider"])
    x = RNG.normal(size=(20, 9))
    np.testing.assert_allclose(session.run(None, {"x": x})[0], net(x), rtol=1e-12, atol=1e-12)


def test_activation_on_the_input_and_relu_twice(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["r"]),  # ReLU of the input: an identity layer
             helper.make_node("Gemm", ["r", "B"], ["z"], transB=1),
             helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("Relu", ["h"], ["hh"]),  # ReLU(ReLU(z)) = ReLU(z)
             helper.make_node("Gemm", ["hh", "B2"], ["y"])]
    model = _model(nodes, [_t(W1.T, "B"), _t(W2, "B2")])
    net = _same_as_onnxruntime(tmp_path, model, (2,))
    assert net.sizes == [2, 2, 4, 1]


def test_nodes_that_do_not_feed_the_output_are_ignored(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "B"], ["y"], transB=1),
             helper.make_node("Constant", [], ["unused"], value_float=1.0)]
    _same_as_onnxruntime(tmp_path, _model(nodes, [_t(RNG.normal(size=(1, 2)), "B")]), (2,))


def _refused(tmp_path, model_or_bytes, needle):
    path = tmp_path / "bad.onnx"
    data = model_or_bytes if isinstance(model_or_bytes, bytes) else \
        model_or_bytes.SerializeToString()
    path.write_bytes(data)
    t0 = time.process_time()
    with pytest.raises(NetworkFileError) as info:
        load_network(path)
    assert time.process_time() - t0 < 5  # no hang (the corpus test measures properly)
    message = str(info.value)
    assert message.startswith("bad.onnx: ") and "\n" not in message
    assert needle in message, message
    return message


def _unchecked(nodes, inits=(), in_shape=("N", 2), **kw):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, list(in_shape))],
                              [helper.make_tensor_value_info("y", F32, ["N", 1])],
                              initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_cycle_is_an_error_not_a_hang(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "B"], ["z"], transB=1),
             helper.make_node("Add", ["z", "loop"], ["s"]),
             helper.make_node("Relu", ["s"], ["loop"]),
             helper.make_node("Identity", ["loop"], ["y"])]
    _refused(tmp_path, _unchecked(nodes, [_t(W1.T, "B")]), "the graph has a cycle through node")
    ring = [helper.make_node("Identity", ["b"], ["a"]), helper.make_node("Relu", ["a"], ["b"]),
            helper.make_node("Gemm", ["b", "B"], ["y"])]
    _refused(tmp_path, _unchecked(ring, [_t(W2, "B")]), "cycle")


@pytest.mark.parametrize(("case", "needle"), [
    ("leaky slope", "LeakyRelu with alpha nan"),
    ("cast to int", "Cast to INT64 changes the values"),
    ("reshape batch", "does not keep the batch"),
    ("flatten axis", "only Flatten with axis = 1"),
    ("residual", "combines 2 data tensors"),
    ("branch", "feeds 2 nodes"),
    ("custom domain", "operator set 'com.example'"),
    ("string weights", "has type STRING, not numbers"),
    ("external data", "external file"),
    ("3-D matmul", "not a batch of vectors"),
    ("softplus", "(Softplus 'squash') is not supported"),
    ("huge weights", "out of range"),
    ("written twice", "is written twice"),
])
def test_what_is_not_a_plain_mlp_is_refused_by_name(tmp_path, case, needle):
    B = _t(W1.T, "B")
    gemm = helper.make_node("Gemm", ["x", "B"], ["z"], transB=1)
    out = helper.make_node("Gemm", ["h", "B2"], ["y"])
    B2 = _t(W2, "B2")
    if case == "leaky slope":
        m = _unchecked([gemm, helper.make_node("LeakyRelu", ["z"], ["h"], alpha=np.nan), out],
                       [B, B2])
    elif case == "cast to int":
        m = _unchecked([gemm, helper.make_node("Cast", ["z"], ["h"], to=TensorProto.INT64), out],
                       [B, B2])
    elif case == "reshape batch":
        m = _unchecked([helper.make_node("Reshape", ["x", "s"], ["f"]),
                        helper.make_node("Gemm", ["f", "B"], ["y"], transB=1)], [
            numpy_helper.from_array(np.array([1, -1], np.int64), "s"), B])
    elif case == "flatten axis":
        m = _unchecked([helper.make_node("Flatten", ["x"], ["f"], axis=2),
                        helper.make_node("Gemm", ["f", "B"], ["y"], transB=1)], [B],
                       in_shape=("N", 2, 3))
    elif case == "residual":
        m = _unchecked([gemm, helper.make_node("Add", ["z", "z"], ["h"]), out], [B, B2])
    elif case == "branch":
        m = _unchecked([gemm, helper.make_node("Relu", ["z"], ["h"]),
                        helper.make_node("Relu", ["z"], ["h2"]),
                        helper.make_node("Gemm", ["h", "B2"], ["y1"]),
                        helper.make_node("Gemm", ["h2", "B2"], ["y2"]),
                        helper.make_node("Max", ["y1", "y2"], ["y"])], [B, B2])
    elif case == "custom domain":
        m = _unchecked([gemm, helper.make_node("Relu", ["z"], ["h"], domain="com.example"), out],
                       [B, B2])
    elif case == "string weights":
        m = _unchecked([helper.make_node("Gemm", ["x", "S"], ["y"], transB=1)],
                       [helper.make_tensor("S", TensorProto.STRING, [1, 2], [b"a", b"b"])])
    elif case == "external data":
        t = _t(W2.T, "B")
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        entry = t.external_data.add()
        entry.key, entry.value = "location", "/dev/zero"
        m = _unchecked([helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)], [t])
    elif case == "3-D matmul":
        m = _unchecked([helper.make_node("MatMul", ["x", "B"], ["y"])], [_t(np.ones((3, 1)), "B")],
                       in_shape=("N", 2, 3))
    elif case == "softplus":
        m = _unchecked([gemm, helper.make_node("Softplus", ["z"], ["h"], name="squash"), out],
                       [B, B2])
    elif case == "huge weights":
        m = _unchecked([helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)],
                       [_t([[1e300, 1.0]], "B", np.float64)])
    else:  # written twice
        m = _unchecked([gemm, helper.make_node("Relu", ["z"], ["h"]),
                        helper.make_node("Relu", ["z"], ["h"]), out], [B, B2])
    _refused(tmp_path, m, needle)


def test_millions_of_empty_nodes_are_refused_before_parsing(tmp_path):
    """10 MB of empty NodeProto messages would take 800 MB once parsed."""
    graph = b"\x0a\x00" * 5_000_000
    data = b"\x3a" + varint(len(graph)) + graph
    _refused(tmp_path, data, "protobuf fields")


def test_deep_nesting_of_graphs_is_refused_before_parsing(tmp_path):
    # ModelProto.graph -> GraphProto.node -> NodeProto.attribute -> AttributeProto.g -> ...
    inner = b""
    for _ in range(40):
        attribute = b"\x32" + varint(len(inner)) + inner  # AttributeProto.g (6)
        node = b"\x2a" + varint(len(attribute)) + attribute  # NodeProto.attribute (5)
        inner = b"\x0a" + varint(len(node)) + node  # GraphProto.node (1)
    data = b"\x3a" + varint(len(inner)) + inner
    _refused(tmp_path, data, "nests more than")


def test_a_huge_declared_initializer_is_refused_before_conversion(tmp_path):
    t = TensorProto(name="B", data_type=F32, dims=[10**12, 2])
    _refused(tmp_path, _unchecked([helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)], [t]),
             "entries; a network has at most")

