"""A corpus of hostile files, made at test time (links, FIFOs, sparse terabytes and
archive bombs cannot be committed): what a lecturer's playlist or a colleague's
export could hand ReLU Lab. Both ``relulab convert`` and ``open_scene`` must refuse
every one with one line, in bounded time and memory, changing nothing.

``CORPUS``: name -> (builder, words convert's message holds, words open_scene's
message holds); a builder writes the file into a folder and returns its path.

``PANEL_STATE_CASES``: scenes whose problem is a panel field (a Folding weight of
1e308, 100,000 Playground points, a 10,000-layer Playground architecture). They are
well formed as files; the panels' state validation refuses them, which the open_scene
run (tests/ui/test_hostile_open.py) checks with the rest. ``relulab convert`` refuses
them too (they are scenes, not networks).
"""

from __future__ import annotations

import io
import json
import os
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

POSIX = os.name == "posix"
SCENE = {"format": "relulab-scene", "version": 1}


def _write(folder: Path, name: str, data) -> Path:
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def _network(layers) -> dict:
    return {"format": "relulab-network", "version": 1, "layers": layers}


def _npy(arr, header_shape=None) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    data = buf.getvalue()
    if header_shape is not None:  # a header that promises another shape
        old = f"'shape': {arr.shape}, ".encode()
        new = f"'shape': {header_shape}, ".encode()
        head_len = struct.unpack("<H", data[8:10])[0]
        header = data[10:10 + head_len].replace(old, new)
        header = header.rstrip(b"\n ").ljust(head_len - 1) + b"\n"
        assert len(header) == head_len, "the test's header must keep its length"
        data = data[:10] + header + data[10 + head_len:]
    return data


def _zip(folder: Path, name: str, members: dict) -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in members.items():
            z.writestr(member, data)
    return path


def varint(n: int) -> bytes:
    """A protobuf varint."""
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def protobuf_field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


# -- the file system ---------------------------------------------------------------
def link_to_dev_zero(folder):
    path = folder / "zero.json"
    path.symlink_to("/dev/zero")  # size 0, and reading never ends
    return path


def link_to_dev_zero_npz(folder):
    path = folder / "zero.npz"
    path.symlink_to("/dev/zero")
    return path


def fifo(folder):
    path = folder / "pipe.json"
    os.mkfifo(path)  # opening it for reading waits for a writer forever
    return path


def folder_named_like_a_file(folder):
    path = folder / "folder.onnx"
    path.mkdir()
    return path


def link_loop(folder):
    a, b = folder / "loop-a.json", folder / "loop-b.json"
    a.symlink_to(b)
    b.symlink_to(a)
    return a


def dangling_link(folder):
    path = folder / "dangling.json"
    path.symlink_to(folder / "gone.json")
    return path


def sparse_terabyte_npz(folder):
    path = folder / "terabyte.npz"
    with open(path, "wb") as f:
        f.truncate(10**12)  # takes no room on disk
    return path


def sparse_terabyte_json(folder):
    path = folder / "terabyte.relulab.json"
    with open(path, "wb") as f:
        f.truncate(10**12)
    return path


# -- text ---------------------------------------------------------------------------
def empty(folder):
    return _write(folder, "empty.json", b"")


def blank(folder):
    return _write(folder, "blank.json", b"  \n\t\r\n   \n")


def bom_only(folder):
    return _write(folder, "bom.json", b"\xef\xbb\xbf\n")


def utf16(folder):
    return _write(folder, "utf16.json", json.dumps(_network([
        {"weights": [[1.0]], "biases": [0.0]}])).encode("utf-16"))


def binary_noise(folder):
    return _write(folder, "noise.json", bytes(np.random.default_rng(0).integers(0, 256, 4096,
                                                                               np.uint8)))


def nested_deep(folder):
    return _write(folder, "deep.json", b"[" * 200_000 + b"]" * 200_000)


def container_flood(folder):
    # 12 MB of empty lists: four million objects once parsed
    return _write(folder, "lists.json", b"[" + b"[]," * 4_000_000 + b"[]]")


def value_flood(folder):
    return _write(folder, "values.json", b"[" + b"0," * 6_000_000 + b"0]")


def long_integer(folder):
    return _write(folder, "digits.json", '{"layers": [{"weights": [[1, ' + "7" * 400 +
                  ']], "biases": [0]}]}')


def huge_weights(folder):
    return _write(folder, "huge.json", json.dumps(_network([
        {"weights": [[1e308, -1e308]], "biases": [0.0]}, {"weights": [[1.0]], "biases": [0.0]}])))


def empty_weights(folder):
    return _write(folder, "emptyrow.json", '{"layers": [{"weights": [[]], "biases": [0]}]}')


def nan_weights(folder):
    return _write(folder, "nan.json", '{"layers": [{"weights": [[NaN]], "biases": [0]}]}')


def truncated(folder):
    return _write(folder, "cut.json", json.dumps(_network([
        {"weights": [[1.0, 2.0]], "biases": [0.0]}]))[:50])


def overflowing_product(folder):
    # each weight is in range, but four layers of them reach 1e360
    return _write(folder, "grows.json", json.dumps(_network(
        [{"weights": [[1e90]], "biases": [0.0]}] * 4)))


def too_many_layers(folder):
    return _write(folder, "layers.json", json.dumps(_network(
        [{"weights": [[1.0]], "biases": [0.0]}] * 12_000)))


def multiline_key(folder):
    return _write(folder, "key.json", json.dumps(_network(
        [{"weights": [[1.0]], "biases": [0.0], "evil\nkey\r\n" * 10_000: 1}])))


# -- scenes -------------------------------------------------------------------------
def scene_newer_version(folder):
    return _write(folder, "newer.relulab.json", json.dumps(dict(SCENE, version=99, panels={})))


def scene_multiline_panel_name(folder):
    return _write(folder, "name.relulab.json", json.dumps(dict(SCENE, panels={
        "hinges\n" * 100_000: {}})))


def scene_long_integer(folder):
    return _write(folder, "int.relulab.json", '{"format": "relulab-scene", "version": 1, '
                  '"panels": {"folding": {"depth": ' + "9" * 5000 + "}}}")


def scene_panels_a_list(folder):
    return _write(folder, "list.relulab.json", json.dumps(dict(SCENE, panels=[1, 2])))


def scene_bad_real_panel_state(folder):
    # the hinges part is good and loads first; the playground part is refused
    return _write(folder, "half.relulab.json", json.dumps(dict(SCENE, current="hinges", panels={
        "hinges": {"mode": "free", "kinks": [-1.0, 1.0], "coefficients": [1.0, -1.0]},
        "playground": {"dataset": "not a dataset"}})))


def playlist_with_a_fifo(folder):
    sub = folder / "fifo-playlist"
    sub.mkdir()
    os.mkfifo(sub / "live.relulab.json")
    return _write(sub, "list.json", json.dumps({"format": "relulab-playlist", "version": 1,
                                                "scenes": ["live.relulab.json"]}))


def playlist_outside_its_folder(folder):
    return _write(folder, "escape.json", json.dumps({"format": "relulab-playlist", "version": 1,
                                                     "scenes": ["../../etc/passwd"]}))


# -- NPZ ------------------------------------------------------------------------------
def npz_bomb(folder):
    """512 KB that inflate to 512 MB (a real deflate stream, not just a size claim)."""
    mib = 1 << 20
    count = 512
    npy = _npy(np.zeros(1), header_shape=(count * mib // 8,))
    header = npy[:len(npy) - 8]  # magic and header; the zeros follow from the stream
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    segment = c.compress(b"\0" * mib) + c.flush(zlib.Z_FULL_FLUSH)  # independent of history
    stream = first + segment * count + c.flush(zlib.Z_FINISH)
    size = len(header) + count * mib
    crc = 0  # checked only once all 512 MB are read, which never happens
    name = b"W1.npy"
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(stream),
                        size, len(name), 0) + name
    central = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(stream),
                          size, len(name), 0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central),
                      len(local) + len(stream), 0)
    return _write(folder, "bomb.npz", local + stream + central + end)


def npz_lying_header(folder):
    # the header promises ten billion entries; the member holds eight bytes
    return _zip(folder, "lying.npz", {"W1.npy": _npy(np.zeros(1), header_shape=(10**10,)),
                                      "b1.npy": _npy(np.zeros(1))})


def npz_short_member(folder):
    return _zip(folder, "short.npz", {"W1.npy": _npy(np.zeros((1, 1)), header_shape=(500, 2)),
                                      "b1.npy": _npy(np.zeros(1))})


def npz_member_flood(folder):
    """A central directory of 60,000 members (each ZipInfo costs Python ~400 bytes)."""
    entries = []
    for i in range(60_000):
        name = f"W{i}.npy".encode()
        entries.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0,
                                   len(name), 0, 0, 0, 0, 0, 0) + name)
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, 6, 0) + b"W0.npy"
    central = b"".join(entries)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 60_000 & 0xFFFF, 60_000 & 0xFFFF,
                      len(central), len(local), 0)
    return _write(folder, "members.npz", local + central + end)


def npz_text_v1(folder):
    return _zip(folder, "text.npz", {"W1.npy": _npy(np.eye(2)), "b1.npy": _npy(np.zeros(2)),
                                     "S1.npy": _npy(np.zeros(2)),
                                     "V1.npy": _npy(np.array(["a", "b"])),
                                     "v1.npy": _npy(np.zeros(2))})


def npz_object_array(folder):
    buf = io.BytesIO()
    np.save(buf, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    return _zip(folder, "pickle.npz", {"W1.npy": buf.getvalue(), "b1.npy": _npy(np.zeros(1))})


def npz_long_double_overflow(folder):
    big = np.array([[np.longdouble("1e4000")]])
    return _zip(folder, "longdouble.npz", {"W1.npy": _npy(big), "b1.npy": _npy(np.zeros(1))})


def npz_stray_member(folder):
    return _zip(folder, "stray.npz", {"W1.npy": _npy(np.eye(1)), "b1.npy": _npy(np.zeros(1)),
                                      "run.sh": b"rm -rf ~"})


def npz_truncated(folder):
    whole = _zip(folder, "whole.npz", {"W1.npy": _npy(np.eye(3)), "b1.npy": _npy(np.zeros(3))})
    data = whole.read_bytes()
    whole.unlink()
    return _write(folder, "truncated.npz", data[: len(data) // 2])


def npz_huge_weights(folder):
    return _zip(folder, "huge.npz", {"W1.npy": _npy(np.array([[1e308]])),
                                     "b1.npy": _npy(np.zeros(1))})


# -- ONNX -------------------------------------------------------------------------------
def _onnx_model(nodes, inits=(), in_dims=("N", 2)):
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(in_dims))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1])], initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _f32(a, name):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(a, np.float32), name)


def onnx_cycle(folder):
    from onnx import helper

    nodes = [helper.make_node("Gemm", ["x", "B"], ["z"], transB=1),
             helper.make_node("Add", ["z", "loop"], ["s"]),
             helper.make_node("Relu", ["s"], ["loop"]),
             helper.make_node("Gemm", ["loop", "B2"], ["y"])]
    model = _onnx_model(nodes, [_f32(np.ones((3, 2)), "B"), _f32(np.ones((3, 1)), "B2")])
    return _write(folder, "cycle.onnx", model.SerializeToString())


def onnx_empty_node_flood(folder):
    graph = b"\x0a\x00" * 5_000_000  # 10 MB of empty NodeProto: 800 MB once parsed
    return _write(folder, "nodes.onnx", protobuf_field(7, graph))


def onnx_deep_nesting(folder):
    inner = b""
    for _ in range(60):
        # graph.node.attribute.g, nested
        inner = protobuf_field(1, protobuf_field(5, protobuf_field(6, inner)))
    return _write(folder, "nested.onnx", protobuf_field(7, inner))


def onnx_external_data(folder):
    from onnx import TensorProto, helper

    t = _f32(np.ones((1, 2)), "B")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "/dev/zero"), ("length", str(10**11))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    model = _onnx_model([helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)], [t])
    return _write(folder, "external.onnx", model.SerializeToString())


def onnx_declared_terabyte(folder):
    from onnx import TensorProto, helper

    t = TensorProto(name="B", data_type=TensorProto.FLOAT, dims=[10**12, 2])
    model = _onnx_model([helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)], [t])
    return _write(folder, "declared.onnx", model.SerializeToString())


def onnx_packed_flood(folder):
    # TensorProto.dims (packed int64): 20 million one-byte numbers, 160 MB once parsed
    tensor = protobuf_field(1, b"\x01" * 20_000_000)
    return _write(folder, "dims.onnx", protobuf_field(7, protobuf_field(5, tensor)))


def onnx_garbage(folder):
    return _write(folder, "garbage.onnx", b"\x08\x07garbage-not-protobuf\xff\xff" * 100)


def onnx_huge_weights(folder):
    from onnx import helper, numpy_helper

    t = numpy_helper.from_array(np.array([[1e308, 1.0]]), "B")
    model = _onnx_model([helper.make_node("Gemm", ["x", "B"], ["y"], transB=1)], [t])
    return _write(folder, "huge.onnx", model.SerializeToString())


CORPUS = {
    "empty": (empty, "the file is empty", "the file is empty"),
    "blank": (blank, "blank space", "blank space"),
    "UTF-8 BOM and blank": (bom_only, "blank space", "blank space"),
    "UTF-16": (utf16, "UTF-16 text", "UTF-16 text"),
    "binary noise": (binary_noise, "not a JSON file", "not UTF-8"),
    "nested 200,000 deep": (nested_deep, "levels deep", "levels deep"),
    "4 million empty lists": (container_flood, "lists and objects", "lists and objects"),
    "6 million values": (value_flood, "values", "values"),
    "400-digit integer": (long_integer, "400 digits is out of range", "400 digits"),
    "±1e308 weights": (huge_weights, "out of range", "format"),
    "weights [[]]": (empty_weights, "row 1 is empty", "format"),
    "NaN weight": (nan_weights, "NaN is not allowed", "format"),
    "truncated": (truncated, "truncated JSON", "cut short"),
    "overflowing product": (overflowing_product, "so large", "format"),
    "12,000 layers": (too_many_layers, "at most 10,000", "format"),
    "multi-line key": (multiline_key, "unknown key", "format"),
    "scene of a newer version": (scene_newer_version, '"format"', "newer ReLU Lab"),
    "scene: multi-line panel name": (scene_multiline_panel_name, '"format"', "unknown panel"),
    "scene: 5000-digit integer": (scene_long_integer, '"format"', "5000 digits"),
    "scene: panels a list": (scene_panels_a_list, '"format"', "got a list"),
    "scene: a real panel refuses": (scene_bad_real_panel_state, '"format"', "dataset"),
    "playlist out of its folder": (playlist_outside_its_folder, '"format"', "beside the playlist"),
    "NPZ bomb (512 KB → 512 MB)": (npz_bomb, "would expand to", "not UTF-8"),
    "NPZ header of 10^10 entries": (npz_lying_header, "10,000,000,000 entries", "not UTF-8"),
    "NPZ header longer than its data": (npz_short_member, "declares", "not UTF-8"),
    "NPZ of 60,000 members": (npz_member_flood, "members", "not UTF-8"),
    "NPZ whose V1 is text": (npz_text_v1, "V1 holds text", "not UTF-8"),
    "NPZ object array": (npz_object_array, "Python objects", "not UTF-8"),
    "NPZ long double 1e4000": (npz_long_double_overflow, "NaN or infinite", "not UTF-8"),
    "NPZ stray member": (npz_stray_member, "not a NumPy array", "not UTF-8"),
    "NPZ truncated": (npz_truncated, "truncated or damaged", "not UTF-8"),
    "NPZ ±1e308": (npz_huge_weights, "out of range", "not UTF-8"),
    "ONNX cycle": (onnx_cycle, "cycle", "not UTF-8"),
    "ONNX 5 million empty nodes": (onnx_empty_node_flood, "protobuf fields", "not UTF-8"),
    "ONNX graphs nested 60 deep": (onnx_deep_nesting, "nests more than", "not UTF-8"),
    "ONNX external data /dev/zero": (onnx_external_data, "external file", "not UTF-8"),
    "ONNX initializer of 10^12 entries": (onnx_declared_terabyte, "entries", None),
    "ONNX 20 million packed numbers": (onnx_packed_flood, "whole numbers", "larger than"),
    "ONNX garbage": (onnx_garbage, "damaged", "not UTF-8"),
    "ONNX ±1e308": (onnx_huge_weights, "out of range", None),
}

if POSIX:
    CORPUS.update({
        "link to /dev/zero (.json)": (link_to_dev_zero, "is a device", "is a device"),
        "link to /dev/zero (.npz)": (link_to_dev_zero_npz, "is a device", "is a device"),
        "FIFO": (fifo, "is a pipe", "is a pipe"),
        "folder named .onnx": (folder_named_like_a_file, "is a folder", "is a folder"),
        "loop of links": (link_loop, "cannot be read", "cannot be read"),
        "dangling link": (dangling_link, "no such file", "does not exist"),
        "sparse terabyte (.npz)": (sparse_terabyte_npz, "larger than", "larger than"),
        "sparse terabyte (.relulab.json)": (sparse_terabyte_json, "larger than", "larger than"),
        "playlist naming a FIFO": (playlist_with_a_fifo, '"format"', "is a pipe"),
    })


# -- panel fields: the panels' own validation (see the module docstring) -------------------
def folding_huge_weights(folder):
    return _write(folder, "fold-1e308.relulab.json", json.dumps(dict(SCENE, panels={"folding": {
        "depth": 5, "peak": 0.5, "whole_line": False, "show_fold": True,
        "fold": {"w": [1e308, -1e308, 1.0], "b": [0.0, -0.3, -0.6], "a": [3.0, -6.0, 6.0],
                 "c": 0.0}}})))


def playground_many_points(folder):
    rng = np.random.default_rng(0)
    n = 100_000
    return _write(folder, "points.relulab.json", json.dumps(dict(SCENE, panels={"playground": {
        "points": {"x": rng.normal(size=(n, 2)).tolist(), "label": [float(i % 2) for i in range(n)],
                   "test": [False] * n}}})))


def playground_deep_architecture(folder):
    return _write(folder, "arch.relulab.json", json.dumps(dict(SCENE, panels={"playground": {
        "architecture": {"activation": "relu", "hidden": [2] * 10_000, "init_seed": 0}}})))


PANEL_STATE_CASES = {
    "Folding weights ±1e308": (folding_huge_weights, '"format"', "fold"),
    "Playground 100,000 points": (playground_many_points, '"format"', None),
    "Playground 10,000 hidden layers": (playground_deep_architecture, '"format"', None),
}


def build(cases: dict, folder: Path) -> dict[str, Path]:
    """Make every file of ``cases`` in ``folder``: name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    return {name: builder(folder) for name, (builder, _, _) in cases.items()}
