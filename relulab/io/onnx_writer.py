"""Writing a finite network as ONNX (docs/network-format.md): Gemm layers in float64.

Writing needs the optional ``onnx`` package (``pip install 'relulab[onnx]'``); reading
does not (relulab.io.onnx_reader).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relulab.io.networks import NetworkFileError
from relulab.model.networks.mlp import MLP
from relulab.model.shallow.extended import ExtendedNetwork


def _onnx() -> tuple[Any, Any]:
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise NetworkFileError("writing ONNX files needs the optional onnx package: "
                               "pip install 'relulab[onnx]'") from None
    return onnx, numpy_helper



#: The ONNX operator of each hidden activation that onnxruntime runs in float64
#: (identity needs none: its layer's Gemm feeds the next one directly).
ONNX_EXPORT_OPS = {"relu": "Relu", "tanh": "Tanh", "sigmoid": "Sigmoid", "identity": None}


def network_to_onnx_bytes(net: MLP | ExtendedNetwork, dtype: type = np.float64) -> bytes:
    """An ONNX model of a finite network, in float64: per layer a Gemm (transB = 1), then
    the hidden layer's activation, Relu, Tanh or Sigmoid (nothing for identity, whose
    layer then merges with the next when read back). Leaky ReLU and GELU have no float64
    operator in onnxruntime: such networks are written as JSON or NPZ."""
    if isinstance(net, ExtendedNetwork):
        if not net.is_finite():
            raise NetworkFileError("ONNX cannot hold infinite weights: export the extended network "
                                   "as JSON or NPZ, or a finite big-M version as ONNX")
        net = net.to_mlp()
    other = [a for a in net.activations if a not in ONNX_EXPORT_OPS]
    if other:
        raise NetworkFileError(f"ONNX export writes ReLU, tanh, sigmoid and identity layers, not "
                               f"{', '.join(sorted(set(other)))}; use JSON or NPZ")
    if not net.is_finite():
        raise NetworkFileError("ONNX export needs finite weights")
    onnx, numpy_helper = _onnx()
    from onnx import TensorProto, helper

    elem = TensorProto.DOUBLE if np.dtype(dtype) == np.float64 else TensorProto.FLOAT
    nodes, inits = [], []
    current = "x"
    for i, (W, b) in enumerate(net.layers):
        Wn, bn = f"W{i + 1}", f"b{i + 1}"
        inits.append(numpy_helper.from_array(np.asarray(W, dtype=dtype), Wn))
        inits.append(numpy_helper.from_array(np.asarray(b, dtype=dtype), bn))
        last = i == len(net.layers) - 1
        out = "y" if last else f"z{i + 1}"
        nodes.append(helper.make_node("Gemm", [current, Wn, bn], [out], name=f"layer{i + 1}",
                                      transB=1))
        current = out
        op = None if last else ONNX_EXPORT_OPS[net.activations[i]]
        if op is not None:
            nodes.append(helper.make_node(op, [out], [f"h{i + 1}"], name=f"{op.lower()}{i + 1}"))
            current = f"h{i + 1}"
    graph = helper.make_graph(
        nodes, "relulab_network",
        [helper.make_tensor_value_info("x", elem, ["N", net.n_in])],
        [helper.make_tensor_value_info("y", elem, ["N", net.n_out])], initializer=inits)
    model = helper.make_model(graph, producer_name="relulab",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()
