"""Reading a plain MLP out of an ONNX file, within bounds (see docs/network-format.md).

The model is decoded by relulab.io.onnx_wire (no onnx package: only the fields read
are decoded, their count and nesting bounded while decoding); the graph is then
walked in topological order
(a cycle is an error, never a loop), and only a chain of data nodes from the one
input to the one output is read: Gemm, MatMul and Add with constants, Relu,
LeakyRelu (with the file's float32 slope, as two ReLU neurons), Tanh or Sigmoid (each
hidden layer its own), Flatten and Reshape to a batch of vectors, Identity and Cast
to float.
Weights come from initializers and Constant nodes (also through Identity and Cast).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from relulab.io import onnx_wire as wire
from relulab.io.limits import one_line, shown_name
from relulab.io.networks import (
    MAX_LAYERS,
    MAX_ONNX_NODES,
    MAX_PARAMETERS,
    NetworkFileError,
    _assemble,
    _Layer,
)
from relulab.model.networks.mlp import MLP

#: The operators a plain MLP is read from (Constant, Identity and Cast also compute
#: constants: weights that arrive through them).
ONNX_OPS = ("Gemm", "MatMul", "Add", "Relu", "LeakyRelu", "Tanh", "Sigmoid", "Identity",
            "Flatten", "Reshape", "Cast", "Constant")
_ACTIVATION_OPS = {"Relu": "relu", "LeakyRelu": "relu", "Tanh": "tanh", "Sigmoid": "sigmoid"}
#: How many inputs each operator takes (the first ``low`` must be named).
_ARITY = {"Gemm": (2, 3), "MatMul": (2, 2), "Add": (2, 2), "Reshape": (2, 2), "Relu": (1, 1),
          "LeakyRelu": (1, 1), "Tanh": (1, 1), "Sigmoid": (1, 1), "Identity": (1, 1),
          "Flatten": (1, 1), "Cast": (1, 1), "Constant": (0, 0)}


def _onnx_where(k: int, node: Any) -> str:
    op = shown_name(node.op_type, 30)
    return f"node {k + 1} ({op} {shown_name(node.name, 40)!r})" if node.name else \
        f"node {k + 1} ({op})"


class _OnnxReader:
    """Reads a plain MLP out of an ONNX graph: a chain of data nodes from the one input
    to the one output, weights from initializers and constant nodes."""

    def __init__(self, model: Any, name: str):
        self.name = name
        self.graph = model.graph
        self.budget = MAX_PARAMETERS
        self.initializers = {t.name: t for t in self.graph.initializer}
        self.consts: dict[str, np.ndarray] = {}
        self.float_types = {wire.FLOAT, wire.DOUBLE}
        self.numeric_types = {wire.FLOAT, wire.DOUBLE, wire.FLOAT16, wire.BFLOAT16, wire.INT8,
                              wire.INT16, wire.INT32, wire.INT64, wire.UINT8, wire.UINT16,
                              wire.UINT32, wire.UINT64}

    def fail(self, message: str) -> NetworkFileError:
        return NetworkFileError(f"{self.name}: {message}")

    # -- constants -------------------------------------------------------------
    def tensor(self, t: Any, what: str) -> np.ndarray:
        """A TensorProto as an array, its size checked before it is converted."""
        if t.data_location == wire.EXTERNAL or len(t.external_data):
            raise self.fail(f"{what} keeps its values in an external file; only self-contained "
                            "ONNX files are read")
        if t.data_type not in self.numeric_types:
            type_name = wire.DATA_TYPES.get(t.data_type, str(t.data_type))
            raise self.fail(f"{what} has type {type_name}, not numbers")
        if any(d < 0 for d in t.dims):
            raise self.fail(f"{what} has a negative dimension")
        count = math.prod(t.dims)
        if count > self.budget:
            raise self.fail(f"{what} has {count:,} entries; a network has at most "
                            f"{MAX_PARAMETERS:,} parameters")
        self.budget -= count
        try:
            arr = wire.tensor_values(t)
        except (ValueError, TypeError) as e:
            raise self.fail(f"{what} is damaged ({one_line(e, 80)})") from None
        return np.asarray(arr)

    def constant_node(self, node: Any, where: str) -> np.ndarray:
        if len(node.attribute) != 1:
            raise self.fail(f"{where}: a Constant needs exactly one value attribute")
        a = node.attribute[0]
        if a.name == "value" and a.type == wire.ATTR_TENSOR:
            return self.tensor(a.t, f"{where} value")
        if a.name == "value_float" and a.type == wire.ATTR_FLOAT:
            return np.array(a.f, dtype=np.float32)
        if a.name == "value_int" and a.type == wire.ATTR_INT:
            return np.array(a.i, dtype=np.int64)
        if a.name in ("value_floats", "value_ints") and a.type in (wire.ATTR_FLOATS,
                                                                   wire.ATTR_INTS):
            values = a.floats if a.type == wire.ATTR_FLOATS else a.ints
            if len(values) > self.budget:
                raise self.fail(f"{where}: {len(values):,} values; too many")
            self.budget -= len(values)
            return np.array(values, dtype=np.float32 if a.type == wire.ATTR_FLOATS else np.int64)
        raise self.fail(f"{where}: a Constant with {shown_name(a.name)!r} is not read (value, "
                        "value_float(s) and value_int(s) are)")

    def const(self, tensor_name: str) -> np.ndarray:
        if tensor_name not in self.consts:
            self.consts[tensor_name] = self.tensor(self.initializers[tensor_name],
                                                   f"initializer {shown_name(tensor_name)!r}")
        return self.consts[tensor_name]

    def is_const(self, tensor_name: str) -> bool:
        return tensor_name in self.consts or tensor_name in self.initializers

    # -- attributes --------------------------------------------------------------
    def attrs(self, node: Any) -> dict:
        return {a.name: a for a in node.attribute}

    @overload
    def attr_int(self, attrs: dict, key: str, default: int, where: str) -> int: ...
    @overload
    def attr_int(self, attrs: dict, key: str, default: None, where: str) -> int | None: ...
    def attr_int(self, attrs: dict, key: str, default: int | None, where: str) -> int | None:
        a = attrs.get(key)
        if a is None:
            return default
        if a.type != wire.ATTR_INT:
            raise self.fail(f"{where}: attribute {key} must be a whole number")
        return int(a.i)

    def attr_float(self, attrs: dict, key: str, default: float, where: str) -> float:
        a = attrs.get(key)
        if a is None:
            return default
        if a.type != wire.ATTR_FLOAT:
            raise self.fail(f"{where}: attribute {key} must be a number")
        return float(a.f)

    # -- the graph -----------------------------------------------------------------
    def order(self) -> list[int]:
        """The nodes the output depends on, in an order where each comes after the
        nodes it reads from; a cycle is an error (found without ever walking it twice)."""
        g = self.graph
        producers: dict[str, int] = {}
        given = set(self.initializers) | {i.name for i in g.input}
        for k, node in enumerate(g.node):
            for out in node.output:
                if not out:
                    continue
                if out in producers or out in given:
                    raise self.fail(f"tensor {shown_name(out)!r} is written twice (by "
                                    f"{_onnx_where(k, node)} and another)")
                producers[out] = k
        needed: set[int] = set()
        stack = [g.output[0].name]
        seen: set[str] = set()
        while stack:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            producer = producers.get(t)
            if producer is not None and producer not in needed:
                needed.add(producer)
                stack.extend(i for i in g.node[producer].input if i)
        waiting = {}
        readers: dict[int, list[int]] = {}
        for k in needed:
            sources = {producers[i] for i in g.node[k].input if i in producers}
            waiting[k] = len(sources)
            for s in sources:
                readers.setdefault(s, []).append(k)
        ready = [k for k, n in waiting.items() if n == 0]
        heapq.heapify(ready)  # the file's own order where the dependencies allow it
        order = []
        while ready:
            k = heapq.heappop(ready)
            order.append(k)
            for r in readers.get(k, ()):
                waiting[r] -= 1
                if waiting[r] == 0:
                    heapq.heappush(ready, r)
        if len(order) < len(needed):
            k = min(set(needed) - set(order))
            raise self.fail(f"the graph has a cycle through {_onnx_where(k, g.node[k])}; a "
                            "network is a chain from input to output")
        return order

    def read(self) -> MLP:
        g = self.graph
        if not g.node:
            raise self.fail("the ONNX graph has no nodes (not a network, or truncated)")
        if len(g.node) > MAX_ONNX_NODES:
            raise self.fail(f"the graph has {len(g.node):,} nodes; at most {MAX_ONNX_NODES:,} "
                            "are read")
        if len(g.sparse_initializer):
            raise self.fail("sparse initializers are not read")
        inputs = [i for i in g.input if i.name not in self.initializers]
        if len(inputs) != 1 or len(g.output) != 1:
            raise self.fail(f"the graph must have one input and one output, it has "
                            f"{len(inputs)} and {len(g.output)}")
        order = self.order()
        current = inputs[0].name
        dims = None  # the current data tensor's shape: ints, None where unknown
        tensor_type = inputs[0].type.tensor_type
        if tensor_type.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None for d in tensor_type.shape.dim]
        chain = _Chain(self, dims)
        readers: dict[str, int] = {}
        for k in order:
            for i in g.node[k].input:
                readers[i] = readers.get(i, 0) + 1
        for k in order:
            node = g.node[k]
            where = _onnx_where(k, node)
            op = node.op_type
            if node.domain not in ("", "ai.onnx"):
                raise self.fail(f"{where} is from the operator set {shown_name(node.domain)!r}; "
                                f"only standard ONNX operators are read")
            if op not in ONNX_OPS:
                raise self.fail(f"{where} is not supported; a network file may hold only "
                                f"{', '.join(ONNX_OPS)} nodes")
            outputs = [o for o in node.output if o]
            low, high = _ARITY[op]
            if not low <= len(node.input) <= high or not all(node.input[:low]) \
                    or len(outputs) != 1 or len(node.output) != 1:
                raise self.fail(f"{where} must have {low if low == high else f'{low} or {high}'} "
                                f"input(s) and one output")
            if op == "Constant":
                self.consts[outputs[0]] = self.constant_node(node, where)
                continue
            ins = list(node.input)
            data_ins = [i for i in ins if i and not self.is_const(i)]
            if not data_ins:  # a constant computed from constants
                if op not in ("Identity", "Cast"):
                    raise self.fail(f"{where} computes a constant; only Constant, Identity and "
                                    "Cast nodes may")
                value = self.const(ins[0])
                if op == "Cast":
                    value = value.astype(self._cast_type(node, where))
                self.consts[outputs[0]] = value
                continue
            if len(data_ins) != 1:
                raise self.fail(f"{where} combines {len(data_ins)} data tensors; a plain MLP is a "
                                "chain")
            if data_ins[0] != current:
                raise self.fail(f"{where} reads {shown_name(data_ins[0])!r}, which is not the "
                                "end of the chain; only a chain of layers can be read")
            if readers.get(current, 0) != 1:
                raise self.fail(f"tensor {shown_name(current)!r} feeds {readers.get(current, 0)} "
                                "nodes; only a chain of layers can be read")
            chain.step(node, op, ins, where)
            current = outputs[0]
        if current != g.output[0].name:
            raise self.fail("the output does not depend on the input")
        return chain.network()

    def _cast_type(self, node: Any, where: str) -> type:
        to = self.attr_int(self.attrs(node), "to", None, where)
        if to not in self.float_types:
            shown = wire.DATA_TYPES.get(to, to) if to is not None else None
            raise self.fail(f"{where}: a Cast to {shown} changes the values; only casts to "
                            "FLOAT or DOUBLE are read")
        return np.float32 if to == wire.FLOAT else np.float64


def _known_product(dims: Sequence[int | None]) -> int | None:
    """The number of features of a tensor of shape ``dims``; None when one of them is
    unknown (None, or 0 in an ONNX shape)."""
    known = [d for d in dims if d]
    return math.prod(known) if len(known) == len(dims) else None


class _Chain:
    """The layers read so far and the affine map pending since the last activation."""

    def __init__(self, reader: _OnnxReader, dims: list[int | None] | None):
        self.r = reader
        self.dims = dims  # shape of the current data tensor, None when unknown
        self.n_in: int | None = None
        if dims is not None and len(dims) == 2 and dims[1]:
            self.n_in = dims[1]
        self.layers: list[tuple[np.ndarray, np.ndarray]] = []
        self.kinds: list[str] = []  # each hidden layer's activation
        self.W: np.ndarray | None = None  # pending linear part (None: identity)
        #: pending shift: a vector, or a 0-d array added to every feature
        self.b: np.ndarray | None = None
        self.after_activation = False

    @property
    def width(self) -> int | None:
        """Features of the current data tensor, when known."""
        if self.W is not None:
            return self.W.shape[0]
        if self.b is not None and self.b.ndim == 1:
            return self.b.shape[0]
        if self.dims is not None and len(self.dims) >= 2:
            return _known_product(self.dims[1:])  # elementwise steps commute with flattening
        return None

    def _batch_of_vectors(self, where: str) -> None:
        if self.dims is not None and len(self.dims) != 2:
            shown = "(" + ", ".join("N" if d is None else str(d) for d in self.dims) + ")"
            raise self.r.fail(f"{where}: the data has shape {shown}, not a batch of vectors "
                              "(flatten it first)")

    def _weights(self, tensor_name: str, where: str, what: str) -> np.ndarray:
        arr = self.r.const(tensor_name)
        if arr.dtype.kind not in "fiu":
            raise self.r.fail(f"{where}: {what} of type {arr.dtype} is not numbers")
        with np.errstate(over="ignore", invalid="ignore"):
            arr = arr.astype(float)
        if not np.all(np.isfinite(arr)):
            raise self.r.fail(f"{where}: NaN or infinite weights")
        return arr

    def _shift(self, c: np.ndarray, where: str, what: str) -> np.ndarray:
        """A constant that broadcasts over (N, features): a scalar or a row vector."""
        if c.ndim > 2 or (c.ndim == 2 and c.shape[0] != 1):
            raise self.r.fail(f"{where}: {what} of shape {c.shape} does not broadcast over a "
                              "batch of vectors")
        c = c.reshape(-1) if c.ndim else c
        if c.ndim == 1 and c.shape[0] == 1:
            c = c.reshape(())
        width = self.width
        if c.ndim == 1 and width is not None and c.shape[0] != width:
            raise self.r.fail(f"{where}: {what} has {c.shape[0]} entries for {width} features")
        return c

    def _then(self, M: np.ndarray | None, c: np.ndarray, where: str) -> None:
        """Compose the pending map with y = M h + c (M None: identity)."""
        width = self.width
        if M is not None and width is not None and M.shape[1] != width:
            raise self.r.fail(f"{where}: expects {M.shape[1]} inputs but gets {width}")
        if M is None:
            self.b = c if self.b is None else self.b + c  # a scalar broadcasts to the vector
            return
        if self.W is None:
            b = self.b if self.b is not None else np.zeros(())
            shift = np.full(M.shape[1], float(b)) if b.ndim == 0 else b
            self.W = M
            self.b = M @ shift + np.broadcast_to(c, (M.shape[0],))
        else:
            self.W, self.b = M @ self.W, M @ self.b + np.broadcast_to(c, (M.shape[0],))
        if self.n_in is None and not self.layers:
            self.n_in = self.W.shape[1]
        self.dims = [self.dims[0] if self.dims else None, M.shape[0]]

    def step(self, node: Any, op: str, ins: list[str], where: str) -> None:
        r = self.r
        attrs = r.attrs(node)
        if op == "Identity":
            return
        if op == "Cast":
            r._cast_type(node, where)
            return
        if op == "Flatten":
            axis = r.attr_int(attrs, "axis", 1, where)
            rank = len(self.dims) if self.dims is not None else None
            if axis < 0 and rank is not None:
                axis += rank
            if axis != 1:
                raise r.fail(f"{where}: only Flatten with axis = 1 (keeping the batch) is read")
            if self.dims is not None:
                rest = self.dims[1:]
                self._flatten_to(_known_product(rest))
            return
        if op == "Reshape":
            self._reshape(ins, attrs, where)
            return
        if op in _ACTIVATION_OPS:
            self._activation(op, attrs, where)
            return
        if op == "Add":
            other = [i for i in ins if i and r.is_const(i)]
            if len(other) != 1:
                raise r.fail(f"{where}: Add needs one constant operand")
            c = self._weights(other[0], where, "the bias")
            if c.size != 1:  # a scalar is added to every feature, whatever the shape
                self._batch_of_vectors(where)
            self._then(None, self._shift(c, where, "the bias"), where)
            return
        self._batch_of_vectors(where)
        if op == "MatMul":
            if ins[0] == ins[1] or r.is_const(ins[0]):
                raise r.fail(f"{where}: MatMul must multiply the data by a constant matrix "
                             "(data first)")
            B = self._weights(ins[1], where, "the weight")
            if B.ndim != 2:
                raise r.fail(f"{where}: weight of shape {B.shape} is not a matrix")
            self._then(B.T, np.zeros(()), where)
        else:  # Gemm: Y = alpha·A'·B' + beta·C
            if len(ins) < 2 or r.is_const(ins[0]) or not r.is_const(ins[1]):
                raise r.fail(f"{where}: Gemm must take the data as A and a constant B")
            if r.attr_int(attrs, "transA", 0, where):
                raise r.fail(f"{where}: transA = 1 (transposed data) is not supported")
            B = self._weights(ins[1], where, "B")
            if B.ndim != 2:
                raise r.fail(f"{where}: B of shape {B.shape} is not a matrix")
            if r.attr_int(attrs, "transB", 0, where):
                B = B.T
            alpha = r.attr_float(attrs, "alpha", 1.0, where)
            beta = r.attr_float(attrs, "beta", 1.0, where)
            M = alpha * B.T
            c = np.zeros(())
            if len(ins) >= 3 and ins[2]:
                if not r.is_const(ins[2]):
                    raise r.fail(f"{where}: C must be a constant")
                C = self._weights(ins[2], where, "C")
                if C.ndim > 2 or (C.ndim == 2 and C.shape[0] != 1) or \
                        C.size not in (1, M.shape[0]):
                    raise r.fail(f"{where}: C of shape {C.shape} does not match {M.shape[0]} "
                                 "outputs")
                c = beta * (C.reshape(()) if C.size == 1 else C.reshape(-1))
            self._then(M, c, where)
        self.after_activation = False

    def _flatten_to(self, features: int | None) -> None:
        if self.W is None and self.b is None and not self.layers and features:
            self.n_in = features
        self.dims = [self.dims[0] if self.dims else None, features]

    def _reshape(self, ins: list[str], attrs: dict, where: str) -> None:
        r = self.r
        if len(ins) < 2 or not r.is_const(ins[1]):
            raise r.fail(f"{where}: Reshape needs a constant shape (export with constant "
                         "folding)")
        target = r.const(ins[1])
        if target.dtype.kind not in "iu" or target.ndim != 1:
            raise r.fail(f"{where}: the shape must be a list of whole numbers")
        shape = [int(t) for t in target]
        allow_zero = r.attr_int(attrs, "allowzero", 0, where)
        dims = self.dims
        batch = dims[0] if dims else None
        features = _known_product(dims[1:]) if dims else None
        if len(shape) != 2:
            raise r.fail(f"{where}: Reshape to {tuple(shape)} is not a batch of vectors")
        t0, t1 = shape
        if t0 == -1 and t1 > 0 and features is None:
            # (N, F) to (−1, t1) is a batch of the same rows only when F = t1: with F
            # not declared, rows may be cut and joined
            raise r.fail(f"{where}: Reshape to {tuple(shape)} of data whose width is not "
                         f"declared keeps the rows only if it is {t1}; declare the input's "
                         "width, or reshape to (0, -1)")
        keeps_batch = (t0 == 0 and not allow_zero) or (t0 > 0 and batch == t0) or \
            (t0 == -1 and t1 > 0 and t1 == features)
        if not keeps_batch:
            raise r.fail(f"{where}: Reshape to {tuple(shape)} does not keep the batch "
                         "(first) dimension")
        if t1 == 0 and not allow_zero:
            t1 = dims[1] if dims and len(dims) >= 2 and dims[1] else -1
        if t1 > 0 and features is not None and t1 != features:
            raise r.fail(f"{where}: Reshape to {t1} features, but the data has {features}")
        if t1 == 0 or t1 < -1:
            raise r.fail(f"{where}: Reshape to {tuple(shape)} is not a batch of vectors")
        self._flatten_to(t1 if t1 > 0 else features)

    def _activation(self, op: str, attrs: dict, where: str) -> None:
        r = self.r
        kind = _ACTIVATION_OPS[op]
        alpha = None
        if op == "LeakyRelu":  # ONNX's default alpha is the float32 nearest 0.01
            alpha = r.attr_float(attrs, "alpha", float(np.float32(0.01)), where)
            if not math.isfinite(alpha):
                raise r.fail(f"{where}: LeakyRelu with alpha {alpha}")
        W, b = self.W, self.b
        if W is None and b is None:
            if self.after_activation and kind == "relu" and self.kinds[-1] == "relu":
                return  # ReLU(ReLU(z)) = ReLU(z)
            width = self.width
            if width is None:
                raise r.fail(f"{where}: an activation on data of unknown width")
            W, b = np.eye(width), np.zeros(width)  # a layer that passes h on
            if self.n_in is None and not self.layers:
                self.n_in = width
        elif W is None:  # only a shift since the last layer: an identity layer with it
            width = self.width
            if width is None:
                raise r.fail(f"{where}: a bias on data of unknown width")
            W, b = np.eye(width), np.broadcast_to(np.asarray(b), (width,)).astype(float)
            if self.n_in is None and not self.layers:
                self.n_in = width
        b = np.asarray(b, float)
        self.after_activation = True
        if alpha is not None:
            # The file's slope, exactly (the model's leaky ReLU has the double 0.01, and
            # alpha is a float32): LeakyRelu_α(z) = ReLU(z) − α·ReLU(−z), a ReLU layer of
            # twice the width whose second half the next layer weighs by −α. The product
            # of two float32 numbers is exact in a double, so float32 weights stay exact.
            n = W.shape[0]
            self.layers.append((np.vstack([W, -W]), np.concatenate([b, -b])))
            self.kinds.append("relu")
            self.W, self.b = np.hstack([np.eye(n), -alpha * np.eye(n)]), np.zeros(n)
            return
        self.layers.append((W, b))
        self.kinds.append(kind)
        self.W, self.b = None, None

    def network(self) -> MLP:
        r = self.r
        if self.W is not None:
            W, b = self.W, np.asarray(self.b, float)
        elif self.b is not None:
            n = self.width
            if n is None:
                raise r.fail("the graph has no Gemm or MatMul layer")
            W, b = np.eye(n), np.broadcast_to(self.b, (n,)).astype(float)
        else:
            if not self.layers:
                raise r.fail("the graph has no Gemm or MatMul layer")
            n = self.layers[-1][0].shape[0]
            W, b = np.eye(n), np.zeros(n)  # the output passes through an activation
        layers = [*self.layers, (W, b)]
        if self.n_in is not None and layers[0][0].shape[1] != self.n_in:
            raise r.fail(f"the input has {self.n_in} features but the first layer expects "
                         f"{layers[0][0].shape[1]}")
        if len(layers) > MAX_LAYERS:
            raise r.fail(f"{len(layers):,} layers; at most {MAX_LAYERS:,} are read")
        parsed = [_Layer(np.asarray(W, float), np.asarray(b, float)) for W, b in layers]
        net = _assemble(parsed, self.kinds if self.kinds else "relu", r.name)
        assert isinstance(net, MLP)  # no layer read from ONNX has infinite rows
        return net


def read_onnx(data: bytes, name: str) -> MLP:
    """The plain MLP in the ONNX model ``data`` (``name`` goes into messages); raises
    NetworkFileError for everything else. The onnx package is not needed."""
    return _OnnxReader(wire.parse_model(data, name), name).read()
