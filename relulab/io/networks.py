"""Network files: JSON (docs/network-format.md), NPZ and ONNX, read and written.

Every problem with a file (empty, truncated, not what its extension says, wrong
JSON types, shapes that do not chain, NaN or infinite weights, an ONNX operator we
do not read) raises :class:`NetworkFileError` with a message that names the file,
the place in it and the problem. Nothing is half-loaded: a file is read and checked
completely before a network is returned. Saves are atomic.

ONNX needs the optional ``onnx`` package (``pip install 'relulab[onnx]'``).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import numpy as np

from relulab.io.atomic import write_bytes_atomic
from relulab.model.activations import ACTIVATIONS
from relulab.model.mlp import MLP
from relulab.model.shallow import ExtendedLayer, ExtendedNetwork

FORMAT_NAME = "relulab-network"
FORMAT_VERSION = 1
SUFFIXES = (".json", ".npz", ".onnx")
#: Larger files are refused before they are read.
MAX_FILE_BYTES = 256 * 1024 * 1024


class NetworkFileError(ValueError):
    """A network file that cannot be read or written; the message says where and why."""


def _fmt_from_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise NetworkFileError(
            f"{path.name}: unknown file type {suffix or '(no extension)'!r}; "
            f"use {', '.join(SUFFIXES)}")
    return suffix[1:]


def _sniff(data: bytes) -> str:
    """What the bytes look like: 'zip', 'json', 'empty' or 'binary'."""
    if not data:
        return "empty"
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        return "zip"
    head = data[:64].lstrip()
    if head[:1] in (b"{", b"["):
        return "json"
    return "binary"


_KIND_NAMES = {"zip": "a ZIP/NPZ archive", "json": "JSON text", "binary": "binary data"}


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------
def load_network(path) -> MLP | ExtendedNetwork:
    """Read a network file; the format comes from the extension and is checked
    against the content."""
    path = Path(path)
    fmt = _fmt_from_suffix(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise NetworkFileError(f"{path.name}: no such file") from None
    except OSError as e:
        raise NetworkFileError(f"{path.name}: cannot read ({e.strerror})") from None
    if size > MAX_FILE_BYTES:
        raise NetworkFileError(f"{path.name}: {size / 2**20:.0f} MB is too large for a network file")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise NetworkFileError(f"{path.name}: cannot read ({e.strerror})") from None
    return network_from_bytes(data, fmt, path.name)


def network_from_bytes(data: bytes, fmt: str, name: str = "network") -> MLP | ExtendedNetwork:
    """Parse ``data`` as ``fmt`` ('json', 'npz' or 'onnx'); ``name`` goes into messages."""
    kind = _sniff(data)
    if kind == "empty":
        raise NetworkFileError(f"{name}: the file is empty")
    expected = {"json": "json", "npz": "zip", "onnx": "binary"}[fmt]
    if kind != expected:
        raise NetworkFileError(
            f"{name}: not a {fmt.upper()} file (its content is {_KIND_NAMES[kind]})")
    if fmt == "json":
        return _from_json_bytes(data, name)
    if fmt == "npz":
        return _from_npz_bytes(data, name)
    return _from_onnx_bytes(data, name)


def _reject_constant(token):
    raise ValueError(f"{token} is not allowed (write finite numbers)")


def _from_json_bytes(data: bytes, name: str):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NetworkFileError(f"{name}: not UTF-8 text (byte {e.start})") from None
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        what = "truncated" if e.pos >= len(text.rstrip()) else "malformed"
        raise NetworkFileError(f"{name}: {what} JSON at line {e.lineno}, column {e.colno}: "
                               f"{e.msg}") from None
    except ValueError as e:
        raise NetworkFileError(f"{name}: {e}") from None
    return network_from_dict(doc, name)


def _number_matrix(value, where: str, rows: int | None = None, cols: int | None = None):
    if not isinstance(value, list) or not value:
        raise NetworkFileError(f"{where}: expected a non-empty list of rows, got {_type(value)}")
    out = []
    width = None
    for i, row in enumerate(value):
        if not isinstance(row, list):
            raise NetworkFileError(f"{where}: row {i + 1} is {_type(row)}, expected a list of numbers")
        if width is None:
            width = len(row)
        if len(row) != width:
            raise NetworkFileError(f"{where}: row {i + 1} has {len(row)} entries, row 1 has {width}")
        out.append(_number_list(row, f"{where} row {i + 1}"))
    M = np.array(out, dtype=float).reshape(len(value), width)
    if rows is not None and M.shape[0] != rows:
        raise NetworkFileError(f"{where}: {M.shape[0]} rows, expected {rows}")
    if cols is not None and M.shape[1] != cols:
        raise NetworkFileError(f"{where}: {M.shape[1]} columns, expected {cols}")
    return M


def _number_list(value, where: str, allow_inf: bool = False):
    if not isinstance(value, list):
        raise NetworkFileError(f"{where}: expected a list of numbers, got {_type(value)}")
    out = []
    for j, v in enumerate(value):
        if allow_inf and v in ("inf", "+inf", "-inf"):
            out.append(-math.inf if v == "-inf" else math.inf)
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise NetworkFileError(f"{where}, entry {j + 1}: {v!r} is not a number")
        if not math.isfinite(v):
            raise NetworkFileError(f"{where}, entry {j + 1}: {v!r} is not finite")
        out.append(float(v))
    return out


def _type(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            type(None): "null"}.get(type(v), "a number" if isinstance(v, (int, float)) else
                                    type(v).__name__)


def network_from_dict(doc, name: str = "network") -> MLP | ExtendedNetwork:
    """A network from the JSON document ``doc`` (schema in docs/network-format.md)."""
    if not isinstance(doc, dict):
        raise NetworkFileError(f"{name}: the top level must be an object, got {_type(doc)}")
    fmt = doc.get("format", FORMAT_NAME)
    if fmt != FORMAT_NAME:
        raise NetworkFileError(f"{name}: \"format\" is {fmt!r}, expected {FORMAT_NAME!r}")
    version = doc.get("version", FORMAT_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version > FORMAT_VERSION:
        raise NetworkFileError(f"{name}: \"version\" {version!r} is not one this program reads "
                               f"(up to {FORMAT_VERSION})")
    activation = doc.get("activation", "relu")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise NetworkFileError(f"{name}: \"activation\" {activation!r} is not one of "
                               f"{', '.join(ACTIVATIONS)}")
    layers = doc.get("layers")
    if not isinstance(layers, list) or not layers:
        raise NetworkFileError(f"{name}: \"layers\" must be a non-empty list, got {_type(layers)}")
    parsed = []
    extended = False
    n_prev = None
    for i, layer in enumerate(layers):
        where = f"{name}: layer {i + 1}"
        if not isinstance(layer, dict):
            raise NetworkFileError(f"{where}: expected an object with \"weights\" and \"biases\", "
                                   f"got {_type(layer)}")
        for key in ("weights", "biases"):
            if key not in layer:
                raise NetworkFileError(f"{where}: \"{key}\" is missing")
        unknown = set(layer) - {"weights", "biases", "scale", "scaled_weights", "scaled_biases"}
        if unknown:
            raise NetworkFileError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        W = _number_matrix(layer["weights"], f"{where} weights", cols=n_prev)
        b = np.array(_number_list(layer["biases"], f"{where} biases"), dtype=float)
        if b.shape[0] != W.shape[0]:
            raise NetworkFileError(f"{where}: {W.shape[0]} rows of weights but {b.shape[0]} biases")
        if n_prev is not None and W.shape[1] != n_prev:
            raise NetworkFileError(f"{where}: weights have {W.shape[1]} columns but layer {i} "
                                   f"has {n_prev} neurons")
        entry = [W, b, None, None, None]
        if "scale" in layer:
            extended = True
            S = np.array(_number_list(layer["scale"], f"{where} scale", allow_inf=True))
            if S.shape[0] != W.shape[0]:
                raise NetworkFileError(f"{where}: {S.shape[0]} scales for {W.shape[0]} rows")
            if not np.all((S == 0) | np.isinf(S)):
                raise NetworkFileError(f"{where} scale: entries must be 0, \"inf\" or \"-inf\"")
            if i == len(layers) - 1 and np.any(S != 0):
                raise NetworkFileError(f"{where}: the output layer cannot have infinite rows")
            for key in ("scaled_weights", "scaled_biases"):
                if key not in layer:
                    raise NetworkFileError(f"{where}: \"scale\" needs \"{key}\" too")
            V = _number_matrix(layer["scaled_weights"], f"{where} scaled_weights",
                               rows=W.shape[0], cols=W.shape[1])
            v = np.array(_number_list(layer["scaled_biases"], f"{where} scaled_biases"))
            if v.shape[0] != W.shape[0]:
                raise NetworkFileError(f"{where}: {v.shape[0]} scaled biases for {W.shape[0]} rows")
            entry[2:] = [S, V, v]
        parsed.append(entry)
        n_prev = W.shape[0]
    if extended:
        if activation != "relu":
            raise NetworkFileError(f"{name}: infinite rows need \"activation\": \"relu\"")
        return ExtendedNetwork(tuple(
            ExtendedLayer(W, b, S if S is not None else np.zeros(len(b)),
                          V if V is not None else np.zeros_like(W),
                          v if v is not None else np.zeros(len(b)))
            for W, b, S, V, v in parsed))
    return MLP([(W, b) for W, b, *_ in parsed], activation)


def _from_npz_bytes(data: bytes, name: str):
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, EOFError, OSError) as e:
        raise NetworkFileError(f"{name}: truncated or damaged NPZ archive ({e})") from None
    except ValueError as e:  # object arrays need pickle: refused
        raise NetworkFileError(f"{name}: NPZ holds something other than plain arrays ({e})") from None
    return network_from_arrays(arrays, name)


def network_from_arrays(arrays: dict, name: str = "network") -> MLP | ExtendedNetwork:
    """A network from arrays ``W1, b1, …, WL, bL`` (+ optional ``activation``,
    and ``S_l, V_l, v_l`` for infinite rows)."""
    L = 0
    while f"W{L + 1}" in arrays:
        L += 1
    if L == 0:
        keys = ", ".join(sorted(arrays)) or "nothing"
        raise NetworkFileError(f"{name}: no W1 array (found {keys}); expected W1, b1, …, WL, bL")
    known = {"activation"} | {f"{p}{i}" for i in range(1, L + 1) for p in ("W", "b", "S", "V", "v")}
    unknown = set(arrays) - known
    if unknown:
        raise NetworkFileError(f"{name}: unexpected array(s) {', '.join(sorted(unknown))}")
    activation = "relu"
    if "activation" in arrays:
        a = arrays["activation"]
        if a.dtype.kind != "U" or a.ndim != 0 or str(a) not in ACTIVATIONS:
            raise NetworkFileError(f"{name}: activation must be one of {', '.join(ACTIVATIONS)}")
        activation = str(a)
    doc_layers = []
    extended = False
    for i in range(1, L + 1):
        where = f"{name}: layer {i}"
        if f"b{i}" not in arrays:
            raise NetworkFileError(f"{where}: W{i} has no b{i}")
        W, b = arrays[f"W{i}"], arrays[f"b{i}"]
        for key, arr, nd in ((f"W{i}", W, 2), (f"b{i}", b, 1)):
            if arr.dtype.kind not in "fiu":
                raise NetworkFileError(f"{where}: {key} has type {arr.dtype}, expected numbers")
            if arr.ndim != nd:
                raise NetworkFileError(f"{where}: {key} has {arr.ndim} dimensions, expected {nd}")
            if not np.all(np.isfinite(arr)):
                raise NetworkFileError(f"{where}: {key} has NaN or infinite entries")
        layer = {"weights": W.astype(float).tolist(), "biases": b.astype(float).tolist()}
        if f"S{i}" in arrays:
            extended = True
            S = arrays[f"S{i}"]
            if S.dtype.kind != "f" or S.ndim != 1:
                raise NetworkFileError(f"{where}: S{i} must be a 1-D float array")
            for key in (f"V{i}", f"v{i}"):
                if key not in arrays:
                    raise NetworkFileError(f"{where}: S{i} needs {key} too")
                if not np.all(np.isfinite(arrays[key])):
                    raise NetworkFileError(f"{where}: {key} has NaN or infinite entries")
            layer["scale"] = ["inf" if s == np.inf else "-inf" if s == -np.inf else float(s)
                              for s in S.tolist()]
            layer["scaled_weights"] = np.asarray(arrays[f"V{i}"], float).tolist()
            layer["scaled_biases"] = np.asarray(arrays[f"v{i}"], float).reshape(-1).tolist()
        doc_layers.append(layer)
    doc = {"activation": activation, "layers": doc_layers}
    if extended:
        doc["activation"] = "relu"
    return network_from_dict(doc, name)


# ---------------------------------------------------------------------------
# ONNX
# ---------------------------------------------------------------------------
def _onnx():
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise NetworkFileError("ONNX files need the optional onnx package: "
                               "pip install 'relulab[onnx]'") from None
    return onnx, numpy_helper


ONNX_OPS = ("Gemm", "MatMul", "Add", "Relu", "Identity", "Flatten")


def _from_onnx_bytes(data: bytes, name: str) -> MLP:
    onnx, numpy_helper = _onnx()
    try:
        model = onnx.load_from_string(data)
    except Exception as e:  # protobuf's DecodeError and friends
        raise NetworkFileError(f"{name}: truncated or damaged ONNX file ({type(e).__name__})") from None
    g = model.graph
    if not g.node:
        raise NetworkFileError(f"{name}: the ONNX graph has no nodes (not a network, or truncated)")
    consts = {}
    for t in g.initializer:
        try:
            consts[t.name] = numpy_helper.to_array(t)
        except Exception as e:
            raise NetworkFileError(f"{name}: initializer {t.name!r} cannot be read ({e})") from None
    for node in g.node:  # Constant nodes are weights too
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    consts[node.output[0]] = numpy_helper.to_array(attr.t)
    inputs = [i for i in g.input if i.name not in consts]
    if len(inputs) != 1 or len(g.output) != 1:
        raise NetworkFileError(f"{name}: the graph must have one input and one output, it has "
                               f"{len(inputs)} and {len(g.output)}")
    by_input: dict[str, list] = {}
    for k, node in enumerate(g.node):
        if node.op_type == "Constant":
            continue
        for inp in node.input:
            if inp not in consts:
                by_input.setdefault(inp, []).append((k, node))
    current = inputs[0].name
    layers = []
    W = None  # pending affine map of the current tensor: (W, b) on the last post-activation
    b = None
    n_in = None
    shape = inputs[0].type.tensor_type.shape.dim
    if len(shape) >= 1 and shape[-1].dim_value > 0:
        n_in = int(shape[-1].dim_value)
    seen = 0
    while current != g.output[0].name:
        users = by_input.get(current, [])
        if len(users) != 1:
            raise NetworkFileError(
                f"{name}: tensor {current!r} feeds {len(users)} nodes; only a chain of "
                f"{', '.join(ONNX_OPS[:4])} nodes can be read")
        k, node = users[0]
        where = f"{name}: node {k + 1} ({node.op_type} {node.name!r})"
        seen += 1
        op = node.op_type
        if op not in ONNX_OPS:
            raise NetworkFileError(f"{where} is not supported; a network file may hold only "
                                   f"{', '.join(ONNX_OPS[:4])} nodes")
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        weights = [consts[i] for i in node.input if i in consts]
        for arr in weights:
            if arr.dtype.kind not in "fiu":
                raise NetworkFileError(f"{where}: weights of type {arr.dtype} are not numbers")
            if not np.all(np.isfinite(arr)):
                raise NetworkFileError(f"{where}: NaN or infinite weights")
        if op in ("Gemm", "MatMul", "Add"):
            M, c = _onnx_affine(node, attrs, consts, current, where)
            if W is None:
                W, b = M, c
            else:
                if M.shape[1] != W.shape[0]:
                    raise NetworkFileError(f"{where}: expects {M.shape[1]} inputs but gets "
                                           f"{W.shape[0]}")
                W, b = M @ W, M @ b + c
            if n_in is None and not layers and W.shape[1] > 0:
                n_in = W.shape[1]
        elif op == "Flatten":
            if int(attrs.get("axis", 1)) != 1:
                raise NetworkFileError(f"{where}: only Flatten with axis = 1 (a no-op on "
                                       "(N, features) data) is supported")
        elif op == "Relu":
            if W is None:
                if not layers:
                    raise NetworkFileError(f"{where}: a Relu on the input itself is not a layer")
                # ReLU(ReLU(z)) = ReLU(z)
            else:
                layers.append((W, b))
                W, b = None, None
        current = node.output[0]
    if W is None:
        if not layers:
            raise NetworkFileError(f"{name}: the graph has no Gemm or MatMul layer")
        n = layers[-1][0].shape[0]
        W, b = np.eye(n), np.zeros(n)  # the output passes through a ReLU: add a linear layer
    layers.append((W, b))
    if n_in is not None and layers[0][0].shape[1] != n_in:
        raise NetworkFileError(f"{name}: the input has {n_in} features but the first layer "
                               f"expects {layers[0][0].shape[1]}")
    for i in range(1, len(layers)):
        if layers[i][0].shape[1] != layers[i - 1][0].shape[0]:
            raise NetworkFileError(f"{name}: layer {i + 1} expects {layers[i][0].shape[1]} inputs "
                                   f"but layer {i} has {layers[i - 1][0].shape[0]} neurons")
    return MLP(layers)


def _onnx_affine(node, attrs, consts, current, where):
    """The affine map (M, c), y = M x + c, of one Gemm, MatMul or Add on the data x."""
    op = node.op_type
    ins = list(node.input)
    if op == "Add":
        other = [i for i in ins if i != current]
        if len(other) != 1 or other[0] not in consts:
            raise NetworkFileError(f"{where}: Add needs one constant operand")
        c = np.asarray(consts[other[0]], float)
        if c.ndim > 2 or (c.ndim == 2 and c.shape[0] != 1):
            raise NetworkFileError(f"{where}: bias of shape {c.shape} is not a vector")
        c = c.reshape(-1)
        return np.eye(len(c)), c
    if op == "MatMul":
        if ins[0] != current or ins[1] not in consts:
            raise NetworkFileError(f"{where}: MatMul must multiply the data by a constant matrix "
                                   "(data first)")
        B = np.asarray(consts[ins[1]], float)
        if B.ndim != 2:
            raise NetworkFileError(f"{where}: weight of shape {B.shape} is not a matrix")
        return B.T, np.zeros(B.shape[1])
    # Gemm: Y = alpha·A'·B' + beta·C
    if len(ins) < 2 or ins[0] != current or ins[1] not in consts:
        raise NetworkFileError(f"{where}: Gemm must take the data as A and a constant B")
    if attrs.get("transA", 0):
        raise NetworkFileError(f"{where}: transA = 1 (transposed data) is not supported")
    B = np.asarray(consts[ins[1]], float)
    if B.ndim != 2:
        raise NetworkFileError(f"{where}: B of shape {B.shape} is not a matrix")
    if attrs.get("transB", 0):
        B = B.T
    alpha = float(attrs.get("alpha", 1.0))
    beta = float(attrs.get("beta", 1.0))
    M = alpha * B.T
    c = np.zeros(M.shape[0])
    if len(ins) >= 3 and ins[2]:
        if ins[2] not in consts:
            raise NetworkFileError(f"{where}: C must be a constant")
        C = np.asarray(consts[ins[2]], float)
        if C.size == 1:
            c = np.full(M.shape[0], float(C.reshape(-1)[0])) * beta
        elif C.size == M.shape[0] and (C.ndim == 1 or C.shape[0] == 1):
            c = beta * C.reshape(-1)
        else:
            raise NetworkFileError(f"{where}: C of shape {C.shape} does not match {M.shape[0]} "
                                   "outputs")
    return M, c


def network_to_onnx_bytes(net, dtype=np.float64) -> bytes:
    """An ONNX model (Gemm with transB = 1, then Relu, per layer) of a finite network."""
    if isinstance(net, ExtendedNetwork):
        if not net.is_finite():
            raise NetworkFileError("ONNX cannot hold infinite weights: export the extended network "
                                   "as JSON or NPZ, or a finite big-M version as ONNX")
        net = net.to_mlp()
    if net.activation != "relu":
        raise NetworkFileError(f"ONNX export writes ReLU networks, not {net.activation!r}")
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
        if not last:
            nodes.append(helper.make_node("Relu", [out], [f"h{i + 1}"], name=f"relu{i + 1}"))
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


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def _json_number(v: float):
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)


def network_to_dict(net) -> dict:
    """The JSON document of a network (see docs/network-format.md)."""
    if isinstance(net, ExtendedNetwork):
        layers = []
        for L in net.layers:
            layer = {"weights": L.W.tolist(), "biases": L.b.tolist()}
            if not L.is_finite:
                layer["scale"] = ["inf" if s > 0 else "-inf" if s < 0 else 0 for s in L.S]
                layer["scaled_weights"] = L.V.tolist()
                layer["scaled_biases"] = L.v.tolist()
            layers.append(layer)
        return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "activation": "relu",
                "layers": layers}
    if not net.is_finite():
        raise NetworkFileError("the network has NaN or infinite weights")
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "activation": net.activation,
            "layers": [{"weights": W.tolist(), "biases": b.tolist()} for W, b in net.layers]}


def network_to_npz_bytes(net) -> bytes:
    arrays = {}
    if isinstance(net, ExtendedNetwork):
        for i, L in enumerate(net.layers, start=1):
            arrays[f"W{i}"], arrays[f"b{i}"] = L.W, L.b
            if not L.is_finite:
                arrays[f"S{i}"], arrays[f"V{i}"], arrays[f"v{i}"] = L.S, L.V, L.v
        arrays["activation"] = np.array("relu")
    else:
        if not net.is_finite():
            raise NetworkFileError("the network has NaN or infinite weights")
        for i, (W, b) in enumerate(net.layers, start=1):
            arrays[f"W{i}"], arrays[f"b{i}"] = W, b
        arrays["activation"] = np.array(net.activation)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def network_to_bytes(net, fmt: str) -> bytes:
    if fmt == "json":
        return (json.dumps(network_to_dict(net), allow_nan=False) + "\n").encode("utf-8")
    if fmt == "npz":
        return network_to_npz_bytes(net)
    if fmt == "onnx":
        return network_to_onnx_bytes(net)
    raise NetworkFileError(f"unknown format {fmt!r}")


def save_network(net, path) -> None:
    """Write ``net`` (an MLP or an ExtendedNetwork) in the format of ``path``'s extension,
    atomically: the old file stays if anything fails."""
    path = Path(path)
    fmt = _fmt_from_suffix(path)
    data = network_to_bytes(net, fmt)
    try:
        write_bytes_atomic(path, data)
    except OSError as e:
        raise NetworkFileError(f"{path.name}: cannot write ({e.strerror})") from None
