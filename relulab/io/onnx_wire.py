"""The few ONNX messages a network is read from, decoded from the protobuf wire format
without the ``onnx`` package (importing it takes a second and more: a refusal would
spend it before saying one line).

Only the fields the reader looks at are decoded (:data:`SCHEMA`, the numbers of
onnx/onnx.proto); every other field is skipped unread, so nothing in it costs memory.
Decoding follows protobuf's rules as onnxruntime's parser applies them: a repeated
number may come packed or one by one, a singular message written twice is merged, the
last of a singular number counts, and setting one member of a ``oneof`` clears the
others. Bounds are checked on the wire before anything is decoded: fields in all
(MAX_ONNX_FIELDS), nesting (MAX_ONNX_NESTING) and packed whole numbers
(MAX_PARAMETERS), so a small file cannot become a large parse. :func:`tensor_values`
is ``onnx.numpy_helper.to_array`` for the numeric types.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from relulab.io.networks import (
    MAX_ONNX_FIELDS,
    MAX_ONNX_NESTING,
    MAX_PARAMETERS,
    NetworkFileError,
)

#: TensorProto.DataType: number -> name.
DATA_TYPES = {1: "FLOAT", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32",
              7: "INT64", 8: "STRING", 9: "BOOL", 10: "FLOAT16", 11: "DOUBLE", 12: "UINT32",
              13: "UINT64", 14: "COMPLEX64", 15: "COMPLEX128", 16: "BFLOAT16",
              17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ",
              21: "UINT4", 22: "INT4", 23: "FLOAT4E2M1"}
FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64 = 1, 2, 3, 4, 5, 6, 7
FLOAT16, DOUBLE, UINT32, UINT64, BFLOAT16 = 10, 11, 12, 13, 16
#: TensorProto.DataLocation.EXTERNAL
EXTERNAL = 1
#: AttributeProto.AttributeType
ATTR_FLOAT, ATTR_INT, ATTR_TENSOR, ATTR_FLOATS, ATTR_INTS = 1, 2, 4, 6, 7

# A field: number -> (name, kind, repeated, oneof). Kinds: a message's name, or
# "int" (varint, two's complement), "uint" (varint), "float" (fixed32), "double"
# (fixed64), "string" (UTF-8), "bytes", "skip" (a member of a oneof not read: it
# only clears the others).
SCHEMA: dict[str, dict[int, tuple[str, str, bool, str | None]]] = {
    "ModelProto": {7: ("graph", "GraphProto", False, None)},
    "GraphProto": {1: ("node", "NodeProto", True, None),
                   5: ("initializer", "TensorProto", True, None),
                   11: ("input", "ValueInfoProto", True, None),
                   12: ("output", "ValueInfoProto", True, None),
                   15: ("sparse_initializer", "bytes", True, None)},
    "NodeProto": {1: ("input", "string", True, None), 2: ("output", "string", True, None),
                  3: ("name", "string", False, None), 4: ("op_type", "string", False, None),
                  5: ("attribute", "AttributeProto", True, None),
                  7: ("domain", "string", False, None)},
    "AttributeProto": {1: ("name", "string", False, None), 2: ("f", "float", False, None),
                       3: ("i", "int", False, None), 5: ("t", "TensorProto", False, None),
                       6: ("g", "GraphProto", False, None),
                       7: ("floats", "float", True, None), 8: ("ints", "int", True, None),
                       11: ("graphs", "GraphProto", True, None),
                       20: ("type", "int", False, None)},
    "TensorProto": {1: ("dims", "int", True, None), 2: ("data_type", "int", False, None),
                    4: ("float_data", "float", True, None),
                    5: ("int32_data", "int", True, None),
                    7: ("int64_data", "int", True, None), 8: ("name", "string", False, None),
                    9: ("raw_data", "bytes", False, None),
                    10: ("double_data", "double", True, None),
                    11: ("uint64_data", "uint", True, None),
                    13: ("external_data", "bytes", True, None),
                    14: ("data_location", "int", False, None)},
    "ValueInfoProto": {1: ("name", "string", False, None), 2: ("type", "TypeProto", False, None)},
    "TypeProto": {1: ("tensor_type", "TypeProtoTensor", False, "value"),
                  4: ("sequence_type", "skip", False, "value"),
                  5: ("map_type", "skip", False, "value"),
                  8: ("sparse_tensor_type", "skip", False, "value"),
                  9: ("optional_type", "skip", False, "value")},
    "TypeProtoTensor": {1: ("elem_type", "int", False, None),
                        2: ("shape", "TensorShapeProto", False, None)},
    "TensorShapeProto": {1: ("dim", "Dimension", True, None)},
    "Dimension": {1: ("dim_value", "int", False, "value"),
                  2: ("dim_param", "string", False, "value")},
}
_NUMBERS = {"int": np.int64, "uint": np.uint64, "float": np.float32, "double": np.float64}
_SCALAR_DEFAULTS = {"int": 0, "uint": 0, "float": 0.0, "double": 0.0, "string": "",
                    "bytes": b""}
_LOW_BYTES = bytes(range(128))
_FIXED = {"float": ("<f4", 4, 5), "double": ("<f8", 8, 1)}  # dtype, size, wire type


class Message:
    """A decoded message: its fields as attributes (absent ones read as protobuf's
    defaults), ``HasField`` for singular ones."""

    def __init__(self, kind: str):
        self._kind = kind
        self._present: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        for field_name, kind, repeated, _ in SCHEMA[self.__dict__["_kind"]].values():
            if field_name == name:
                value: Any
                if repeated:
                    value = np.zeros(0, _NUMBERS[kind]) if kind in _NUMBERS else []
                elif kind in SCHEMA:
                    value = Message(kind)
                else:
                    value = _SCALAR_DEFAULTS.get(kind)
                setattr(self, name, value)
                return value
        raise AttributeError(f"{self._kind} has no field {name!r}")

    def HasField(self, name: str) -> bool:
        return name in self._present


class _Decoder:
    def __init__(self, data: bytes, name: str):
        self.data, self.name = data, name

    def damaged(self) -> NetworkFileError:
        return NetworkFileError(f"{self.name}: truncated or damaged ONNX file (broken protobuf "
                                "encoding)")

    def varint(self, pos: int, end: int) -> tuple[int, int]:
        data = self.data
        value = shift = 0
        while True:
            if pos >= end or shift > 63:
                raise self.damaged()
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value & 0xFFFF_FFFF_FFFF_FFFF, pos
            shift += 7

    def scan(self, kind: str) -> None:
        """Count fields, nesting and packed whole numbers before anything is built: a
        field costs a hundred times more once decoded than counted."""
        data = self.data
        fields = packed = 0
        stack = [(kind, 0, len(data), 0)]
        while stack:
            kind, pos, end, depth = stack.pop()
            schema = SCHEMA.get(kind, {})
            while pos < end:
                tag, pos = self.varint(pos, end)
                fields += 1
                if fields > MAX_ONNX_FIELDS:
                    raise NetworkFileError(f"{self.name}: the ONNX file holds more than "
                                           f"{MAX_ONNX_FIELDS:,} protobuf fields; too large a "
                                           "graph to read")
                wire = tag & 7
                if wire == 0:
                    _, pos = self.varint(pos, end)
                elif wire == 1 or wire == 5:
                    pos += 8 if wire == 1 else 4
                elif wire == 2:
                    length, pos = self.varint(pos, end)
                    if pos + length > end:
                        raise self.damaged()
                    sub = schema.get(tag >> 3, ("", "", False, None))[1]
                    if sub in SCHEMA:
                        if depth + 1 > MAX_ONNX_NESTING:
                            raise NetworkFileError(f"{self.name}: the ONNX file nests more "
                                                   f"than {MAX_ONNX_NESTING} levels deep")
                        stack.append((sub, pos, pos + length, depth + 1))
                    elif sub in ("int", "uint"):  # one number per byte below 0x80
                        packed += length - len(data[pos:pos + length].translate(None, _LOW_BYTES))
                        if packed > MAX_PARAMETERS:
                            raise NetworkFileError(f"{self.name}: the ONNX file holds more "
                                                   f"than {MAX_PARAMETERS:,} whole numbers")
                    pos += length
                else:
                    raise self.damaged()
                if pos > end:
                    raise self.damaged()

    def packed_varints(self, pos: int, end: int, kind: str) -> np.ndarray:
        """Packed varints, decoded a byte column at a time (numbers of up to 10 bytes)."""
        raw = np.frombuffer(self.data, np.uint8, end - pos, pos)
        if len(raw) and raw[-1] >= 0x80:
            raise self.damaged()
        ends = np.flatnonzero(raw < 0x80)
        starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
        lengths = ends - starts + 1
        if len(lengths) and lengths.max() > 10:
            raise self.damaged()
        values = np.zeros(len(ends), np.uint64)
        for k in range(int(lengths.max()) if len(lengths) else 0):
            rows = np.flatnonzero(lengths > k)
            part = (raw[starts[rows] + k] & 0x7F).astype(np.uint64)
            values[rows] |= part << np.uint64(7 * k)
        return values.view(np.int64) if kind == "int" else values

    def message(self, kind: str, pos: int, end: int, depth: int, into: Message | None = None
                ) -> Message:
        msg = into if into is not None else Message(kind)
        schema = SCHEMA[kind]
        chunks: dict[str, list] = {}
        data = self.data
        while pos < end:
            tag, pos = self.varint(pos, end)
            wire, number = tag & 7, tag >> 3
            if wire == 0:
                value, pos = self.varint(pos, end)
                start = stop = pos
            elif wire == 1 or wire == 5:
                start, pos = pos, pos + (8 if wire == 1 else 4)
                stop = pos
            elif wire == 2:
                length, pos = self.varint(pos, end)
                start, pos = pos, pos + length
                stop = pos
            else:
                raise self.damaged()
            if pos > end or number == 0:
                raise self.damaged()
            field = schema.get(number)
            if field is None:
                continue
            fname, fkind, repeated, oneof = field
            if oneof is not None:
                for other, _, _, ogroup in schema.values():
                    if ogroup == oneof and other != fname:
                        msg._present.discard(other)
                        msg.__dict__.pop(other, None)
            if fkind == "skip":
                continue
            if fkind in SCHEMA:
                if wire != 2:
                    raise self.damaged()
                if repeated:
                    getattr(msg, fname).append(self.message(fkind, start, stop, depth + 1))
                else:
                    current = msg.__dict__.get(fname) if fname in msg._present else None
                    setattr(msg, fname, self.message(fkind, start, stop, depth + 1, current))
            elif fkind in _NUMBERS:
                if fkind in _FIXED:
                    dtype, size, fixed_wire = _FIXED[fkind]
                    if wire == 2:
                        if (stop - start) % size:
                            raise self.damaged()
                        arr: np.ndarray = np.frombuffer(data, dtype, (stop - start) // size, start)
                    elif wire == fixed_wire:
                        arr = np.frombuffer(data, dtype, 1, start)
                    else:
                        raise self.damaged()
                elif wire == 2:
                    arr = self.packed_varints(start, stop, fkind)
                elif wire == 0:
                    arr = np.array([value], np.uint64)
                    arr = arr.view(np.int64) if fkind == "int" else arr
                else:
                    raise self.damaged()
                if repeated:
                    chunks.setdefault(fname, []).append(np.asarray(arr))
                else:
                    if wire == 2:
                        raise self.damaged()
                    setattr(msg, fname, arr[0].item())
            else:  # string, bytes
                if wire != 2:
                    raise self.damaged()
                raw: bytes | str = data[start:stop]
                if fkind == "string":
                    try:
                        raw = data[start:stop].decode("utf-8")
                    except UnicodeDecodeError:
                        raise self.damaged() from None
                if repeated:
                    getattr(msg, fname).append(raw)
                else:
                    setattr(msg, fname, raw)
            if not repeated:
                msg._present.add(fname)
        for fname, parts in chunks.items():
            before = [msg.__dict__[fname]] if fname in msg.__dict__ else []
            setattr(msg, fname, np.concatenate([*before, *parts]))
        return msg


def parse_model(data: bytes, name: str) -> Message:
    """The ModelProto in ``data`` (``name`` goes into messages), or NetworkFileError."""
    decoder = _Decoder(data, name)
    decoder.scan("ModelProto")
    return decoder.message("ModelProto", 0, len(data), 0)


# -- tensors -----------------------------------------------------------------
_RAW_TYPES = {FLOAT: "<f4", DOUBLE: "<f8", FLOAT16: "<f2", BFLOAT16: "<u2", INT8: "i1",
              INT16: "<i2", INT32: "<i4", INT64: "<i8", UINT8: "u1", UINT16: "<u2",
              UINT32: "<u4", UINT64: "<u8"}
_FIELD_OF = {FLOAT: "float_data", DOUBLE: "double_data", INT64: "int64_data",
             UINT32: "uint64_data", UINT64: "uint64_data"}  # the rest: int32_data


def tensor_values(t: Message) -> np.ndarray:
    """A numeric TensorProto's values as an array of its dims; ValueError when the
    values do not fill the dims (a damaged tensor). BFLOAT16 comes as float32."""
    dtype = t.data_type
    dims = [int(d) for d in t.dims]
    count = math.prod(dims)
    if t.HasField("raw_data"):
        raw = t.raw_data
        size = np.dtype(_RAW_TYPES[dtype]).itemsize
        if len(raw) != count * size:
            raise ValueError(f"raw data of {len(raw):,} bytes for {count:,} values")
        values = np.frombuffer(raw, _RAW_TYPES[dtype], count)
    else:
        values = getattr(t, _FIELD_OF.get(dtype, "int32_data"))
        if len(values) != count:
            raise ValueError(f"{len(values):,} values for {count:,} entries")
        # as onnx does: the field's numbers cast to the type (16-bit floats: their bits)
        values = values.astype(np.uint16 if dtype in (FLOAT16, BFLOAT16) else
                               np.dtype(_RAW_TYPES[dtype]).newbyteorder("="))
    if dtype == FLOAT16:
        values = values.view(np.float16)
    elif dtype == BFLOAT16:
        values = (values.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return np.asarray(values).astype(values.dtype.newbyteorder("="), copy=False).reshape(dims)
