"""Random damage: malformed ONNX graphs and byte-mutated files of every format only ever
raise NetworkFileError with a one-line message (fixed seeds: the same cases each run)."""

import random

import numpy as np
import pytest

from relulab.io.networks import NetworkFileError, network_from_bytes, network_to_bytes
from relulab.model.networks.mlp import MLP

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402 - only once onnx is there

OPS = ["Gemm", "MatMul", "Add", "Relu", "LeakyRelu", "Identity", "Flatten", "Reshape", "Cast",
       "Constant", "Sigmoid", ""]
NAMES = ["x", "y", "a", "b", "c", "W", "s", "", "B"]
CONSTANTS = [{"value_float": 1.0}, {"value_ints": [0, -1]}, {"value_int": 3},
             {"value_floats": [1.0, 2.0]}, {"value_string": "x"},
             {"value": numpy_helper.from_array(np.ones((2, 2), np.float32))}]


def _refused_or_read(data: bytes, fmt: str) -> None:
    try:
        network_from_bytes(data, fmt, "f")
    except NetworkFileError as e:
        message = str(e)
    else:
        return
    assert "\n" not in message


def _random_graph(rng: random.Random) -> bytes:
    nodes = []
    for _ in range(rng.randint(1, 6)):
        op = rng.choice(OPS)
        attrs = {}
        for key, values in (("transB", [0, 1]), ("axis", [-3, 1, 2]), ("to", [1, 7, 11, 99]),
                            ("alpha", [0.01, 0.2])):
            if rng.random() < 0.25:
                attrs[key] = rng.choice(values)
        if op == "Constant" and rng.random() < 0.7:
            attrs = rng.choice(CONSTANTS)
        nodes.append(helper.make_node(op, [rng.choice(NAMES) for _ in range(rng.randint(0, 3))],
                                      [rng.choice(NAMES) for _ in range(rng.randint(0, 2))],
                                      **attrs))
    inits = [numpy_helper.from_array(np.ones(rng.choice([(2, 2), (2,), (), (1, 2), (3, 2)]),
                                             np.float32), name)
             for name in ("W", "B", "c") if rng.random() < 0.5]
    if rng.random() < 0.3:
        inits.append(numpy_helper.from_array(np.array([0, -1], np.int64), "s"))
    dims = rng.choice([["N", 2], ["N", 2, 3], None, ["N"], ["N", 0]])
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info(rng.choice(["y", "x", "a"]), TensorProto.FLOAT, None)],
        initializer=inits)
    return helper.make_model(graph).SerializeToString()


def test_malformed_onnx_graphs():
    rng = random.Random(15)
    for _ in range(1500):
        _refused_or_read(_random_graph(rng), "onnx")


@pytest.mark.parametrize("fmt", ["json", "npz", "onnx"])
def test_byte_mutations(fmt):
    rng = random.Random(fmt)
    base = network_to_bytes(MLP.random([2, 4, 3, 1], seed=0), fmt)
    for _ in range(800):
        data = bytearray(base)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            roll = rng.random()
            if roll < 0.6:
                data[i] = rng.randrange(256)
            elif roll < 0.8:
                del data[i:i + rng.randint(1, 50)]
            else:
                data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        _refused_or_read(bytes(data), fmt)
