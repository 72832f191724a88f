"""Reading and saving files within bounds costs little next to reading them plainly:
network files of each format (the bounds: sizes from headers, JSON measured before
parsing, ONNX fields counted on the wire, every weight range-checked) against the
library calls alone, and the atomic save that respects the user's file (links,
permissions, stale temporaries) against a plain temporary + fsync + rename."""

import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.common import Row, median_time, small
from relulab.io.atomic import write_bytes_atomic
from relulab.io.networks import network_from_bytes, network_to_bytes
from relulab.io.scenes import parse_scene
from relulab.model.networks.mlp import MLP


def _plain_npz(data: bytes):
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _plain_json(data: bytes):
    doc = json.loads(data)
    return [(np.array(L["weights"], float), np.array(L["biases"], float)) for L in doc["layers"]]


def _plain_onnx(data: bytes):
    import onnx
    from onnx import numpy_helper

    model = onnx.load_from_string(data)
    return [numpy_helper.to_array(t) for t in model.graph.initializer]


def _plain_save(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def run() -> list[Row]:
    rows = []
    net = MLP.random(small([64, 512, 512, 512, 512, 1], [8, 16, 16, 1]), seed=0)  # 820,000 parameters
    millions = net.n_params / 1e6
    # the plain calls check nothing (protobuf parsing is little more than a copy), so
    # ONNX has a time budget rather than a ratio
    for fmt, plain, what, target in (
            ("npz", _plain_npz, "np.load of every array", {"min_ratio": 1 / 3}),
            ("json", _plain_json, "json.loads + np.array", {"min_ratio": 1 / 2}),
            ("onnx", _plain_onnx, "onnx.load + to_array", {"max_seconds": 0.05})):
        data = network_to_bytes(net, fmt)
        ours = median_time(lambda: network_from_bytes(data, fmt, "n"), repeat=5)
        base = median_time(lambda: plain(data), repeat=5)
        rows.append(Row(f"read a {millions:.2f} M-parameter network ({fmt.upper()}, "
                        f"{len(data) / 1e6:.1f} MB) within bounds", ours, what, base, **target))
    rng = np.random.default_rng(0)
    n = small(100_000, 1000)
    scene = json.dumps({"format": "relulab-scene", "version": 1, "panels": {"playground": {
        "points": {"x": rng.normal(size=(n, 2)).tolist(),
                   "label": [float(i % 2) for i in range(n)]}}}})
    ours = median_time(lambda: parse_scene(scene, ["playground"]), repeat=5)
    base = median_time(lambda: json.loads(scene), repeat=5)
    rows.append(Row(f"read a {len(scene) / 1e6:.1f} MB scene ({n:,} points) within bounds",
                    ours, "json.loads of the same text", base, min_ratio=1 / 3))
    payload = network_to_bytes(MLP.random(small([2, 256, 256, 1], [2, 8, 1]), seed=1), "json")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for i in range(small(200, 5)):  # a folder with other files in it, as a user's has
            (folder / f"other-{i}.relulab.json").write_bytes(b"{}")
        target = folder / "net.json"
        ours = median_time(lambda: write_bytes_atomic(target, payload), repeat=10)
        base = median_time(lambda: _plain_save(target, payload), repeat=10)
    rows.append(Row(f"save {len(payload) / 1e6:.1f} MB atomically (links, permissions, "
                    "stale temporaries)", ours, "temporary + fsync + rename", base,
                    min_ratio=1 / 1.5))
    return rows
