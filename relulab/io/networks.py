"""Network files: JSON (docs/network-format.md), NPZ and ONNX, read and written.

A JSON network file holds a network's one dict form, :meth:`MLP.to_dict` (plus
factored ±∞ rows for an extended network). It is read here rather than by
:meth:`MLP.from_dict`, to the same limits, because a file needs more: its messages
name the layer, row and entry as a person reading the file counts them, its numbers
are type-checked in one pass in C (a file of 4,000,000 numbers with a bad one at the
end is refused as fast as a good one is read), and it may hold extended layers.

Every problem with a file (empty, truncated, not what its extension says, too large,
wrong JSON types, shapes that do not chain, NaN, infinite or out-of-range weights,
an ONNX operator we do not read) raises :class:`NetworkFileError` with a one-line
message that names the file, the place in it and the problem. Nothing is
half-loaded: a file is read and checked completely before a network is returned.

Reading is bounded before the work starts: regular files only, sizes capped while
reading, JSON nesting and element counts measured before parsing, an NPZ's
decompressed size and member count taken from its directory and array headers
before anything is decompressed, an ONNX file's message count measured on the wire
before protobuf builds it, and its graph walked in topological order (a cycle is
an error, not a hang: relulab.io.onnx_reader). Saves are atomic.

ONNX files are read without the ``onnx`` package (relulab.io.onnx_wire decodes them);
writing one needs it (``pip install 'relulab[onnx]'``).
"""

from __future__ import annotations

import io
import itertools
import json
import lzma
import math
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from relulab.io.atomic import write_bytes_atomic
from relulab.io.limits import (
    MAX_NUMBER_DIGITS,
    FileRefused,
    StrPath,
    check_json_text,
    megabytes,
    one_line,
    read_file,
    shown_name,
    unique_keys,
)
from relulab.io.network_features import (
    FEATURES_KEY,
    features_to_write,
    recorded_features,
    refuse_other_inputs,
)
from relulab.model.networks.activations import ACTIVATIONS
from relulab.model.networks.mlp import (
    MAX_LAYERS,
    MAX_PARAMETERS,
    MAX_WEIGHT,
    MLP,
    NETWORK_FORMAT,
    NETWORK_VERSION,
    normalise_activation,
)
from relulab.model.shallow.extended import ExtendedLayer, ExtendedNetwork

FORMAT_NAME = NETWORK_FORMAT
FORMAT_VERSION = NETWORK_VERSION
SUFFIXES = (".json", ".npz", ".onnx")

#: Larger NPZ and ONNX files are refused before they are read.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: JSON takes about twenty bytes a number and ten times that once parsed.
MAX_JSON_BYTES = 32 * 1024 * 1024
#: All weights, biases and scales of one network together (MAX_PARAMETERS), and its
#: layers (MAX_LAYERS): the dict form's limits, from relulab.model.networks.mlp.
#: What an NPZ may expand to, and how many arrays it may hold (W, b, S, V, v a layer).
MAX_NPZ_BYTES = 64 * 1024 * 1024
MAX_NPZ_MEMBERS = 5 * MAX_LAYERS + 2
#: ONNX: nodes in the graph, and protobuf fields in the whole file (each one costs
#: about 150 bytes once parsed: 10 MB of empty nodes would take 800 MB).
MAX_ONNX_NODES = 5 * MAX_LAYERS
MAX_ONNX_FIELDS = 500_000
MAX_ONNX_NESTING = 32
#: Weights and biases beyond this are refused: a few layers of them overflow a double.
MAX_ABS_WEIGHT = MAX_WEIGHT
#: A network whose outputs could pass 10^this on inputs of size 1 is refused.
MAX_GROWTH_LOG10 = 300.0
#: JSON nesting: document, layers, layer, weights, row, number.
MAX_JSON_DEPTH = 16
MAX_JSON_CONTAINERS = 250_000


class NetworkFileError(ValueError):
    """A network file that cannot be read or written; the message (one line) says where
    and why."""

    def __init__(self, message: str):
        super().__init__(one_line(message, 600))


def _fmt_from_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        shown = repr(shown_name(suffix)) if suffix else "'(no extension)'"
        raise NetworkFileError(f"{path.name}: unknown file type {shown}; use {', '.join(SUFFIXES)}")
    return suffix[1:]


_UTF8_BOM = b"\xef\xbb\xbf"


def _sniff(data: bytes) -> str:
    """What the bytes look like: 'zip', 'json', 'utf16', 'blank', 'empty' or 'binary'."""
    if not data:
        return "empty"
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf16"
    head = data[:4096].removeprefix(_UTF8_BOM).lstrip()
    if head[:1] in (b"{", b"["):
        return "json"
    if not head and not data.removeprefix(_UTF8_BOM).strip():
        return "blank"
    return "binary"


_KIND_NAMES = {"zip": "a ZIP/NPZ archive", "json": "JSON text", "binary": "binary data",
               "utf16": "UTF-16 text"}


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------
def load_network(path: StrPath) -> MLP | ExtendedNetwork:
    """Read a network file; the format comes from the extension and is checked
    against the content. Raises NetworkFileError (one line) for every problem, and for
    a network that takes other features than the point (relulab.io.network_features)."""
    net, features = load_network_and_features(path)
    _as_file_error(refuse_other_inputs, features, Path(path).name)
    return net


def _as_file_error(check: Callable, *args: Any) -> Any:
    try:  # check(*args), its ValueError a NetworkFileError
        return check(*args)
    except ValueError as e:
        raise NetworkFileError(str(e)) from None


def load_network_and_features(path: StrPath) -> tuple[MLP | ExtendedNetwork, tuple[str, ...] | None]:
    """A network file's network and the features its inputs are (None: not recorded)."""
    path = Path(path)
    fmt = _fmt_from_suffix(path)
    try:
        data = read_file(path, MAX_JSON_BYTES if fmt == "json" else MAX_FILE_BYTES)
    except FileNotFoundError:
        raise NetworkFileError(f"{path.name}: no such file") from None
    except FileRefused as e:
        raise NetworkFileError(f"{path.name} {e}") from None
    return _parse(data, fmt, path.name)


def network_from_bytes(data: bytes, fmt: str, name: str = "network") -> MLP | ExtendedNetwork:
    """Parse ``data`` as ``fmt`` ('json', 'npz' or 'onnx'), as load_network does; ``name``
    goes into messages."""
    net, features = _parse(data, fmt, name)
    _as_file_error(refuse_other_inputs, features, name)
    return net


def _parse(data: bytes, fmt: str, name: str) -> tuple[MLP | ExtendedNetwork, tuple[str, ...] | None]:
    kind = _sniff(data)
    if kind == "empty":
        raise NetworkFileError(f"{name}: the file is empty")
    if kind == "blank":
        raise NetworkFileError(f"{name}: the file is empty (it holds only blank space)")
    if kind == "utf16" and fmt == "json":
        raise NetworkFileError(f"{name}: UTF-16 text; save the file as UTF-8")
    expected = {"json": "json", "npz": "zip", "onnx": "binary"}[fmt]
    if kind != expected:
        raise NetworkFileError(
            f"{name}: not a {fmt.upper()} file (its content is {_KIND_NAMES[kind]})")
    if fmt == "json":
        return _from_json_bytes(data, name)
    if fmt == "npz":
        arrays = _read_npz(data, name)
        net = network_from_arrays(arrays, name)
        return net, _as_file_error(recorded_features, arrays, net.n_in, name)
    return _from_onnx_bytes(data, name), None


# -- JSON -------------------------------------------------------------------
def _reject_constant(token: str) -> NoReturn:
    raise ValueError(f"{token} is not allowed (write finite numbers)")


class _LongNumber:
    """Stands in, while parsing, for a whole number with too many digits for a double."""

    def __init__(self, text: str):
        self.digits = len(text.lstrip("-"))


def _parse_int(text: str) -> int | _LongNumber:
    return _LongNumber(text) if len(text.lstrip("-")) > MAX_NUMBER_DIGITS else int(text)


def _from_json_bytes(data: bytes, name: str) -> tuple[MLP | ExtendedNetwork, tuple[str, ...] | None]:
    if len(data) > MAX_JSON_BYTES:
        raise NetworkFileError(f"{name}: {megabytes(len(data))} is larger than the "
                               f"{megabytes(MAX_JSON_BYTES)} a JSON network may have")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NetworkFileError(f"{name}: not UTF-8 text (byte {e.start})") from None
    try:
        shape = check_json_text(text, MAX_JSON_DEPTH, MAX_JSON_CONTAINERS,
                                MAX_PARAMETERS + MAX_JSON_CONTAINERS)
    except FileRefused as e:
        raise NetworkFileError(f"{name} {e}") from None
    try:
        # whole numbers go through a hook only when one is too long to be a double
        doc = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=unique_keys,
                         parse_int=_parse_int if shape.long_numbers else None)
    except json.JSONDecodeError as e:
        what = "truncated" if shape.cut_short or e.pos >= len(text.rstrip()) else "malformed"
        raise NetworkFileError(f"{name}: {what} JSON at line {e.lineno}, column {e.colno}: "
                               f"{e.msg}") from None
    except ValueError as e:  # NaN, Infinity
        raise NetworkFileError(f"{name}: {e}") from None
    net = network_from_dict(doc, name)
    return net, _as_file_error(recorded_features, doc, net.n_in, name)


def _type(v: Any) -> str:
    if isinstance(v, _LongNumber):
        return "a number"
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            type(None): "null"}.get(type(v), "a number" if isinstance(v, (int, float)) else
                                    type(v).__name__)


def _bad_number(v: Any, where: str) -> NetworkFileError:
    """The error for one JSON value that is not a usable number."""
    if isinstance(v, _LongNumber):
        return NetworkFileError(f"{where}: a whole number with {v.digits} digits is out of range "
                                f"(at most ±{MAX_ABS_WEIGHT:g})")
    shown = repr(v) if not isinstance(v, (list, dict)) else _type(v)
    return NetworkFileError(f"{where}: {one_line(shown, 40)} is not a number")


def _numbers(value: list, flat: Callable[[], Iterator[Any]], where: Callable[[int], str],
             shape: tuple[int, ...]) -> np.ndarray:
    """JSON numbers as a float array of ``shape``: ``value`` the list (of rows) as read,
    ``flat()`` an iterator over its numbers, ``where(i)`` the name of number i in
    messages. Types are checked in C (one pass of ``type``), so a file of millions of
    numbers with a bad one at the end is refused as fast as a good one is read."""
    bad = set(map(type, flat())) - {int, float}
    if bad:
        numbers = list(flat())
        kinds = list(map(type, numbers))
        first = min(kinds.index(k) for k in bad)
        raise _bad_number(numbers[first], where(first))
    arr = np.array(value, dtype=float).reshape(shape)  # whole numbers: ≤ 300 digits, no overflow
    ok = np.abs(arr.reshape(-1)) <= MAX_ABS_WEIGHT  # False for NaN too
    if not ok.all():
        first = int(np.argmin(ok))
        v = float(arr.reshape(-1)[first])
        problem = (f"{v} is not finite (NaN, or beyond the range of a double)"
                   if not math.isfinite(v) else
                   f"{v:.3g} is out of range (at most ±{MAX_ABS_WEIGHT:g})")
        raise NetworkFileError(f"{where(first)}: {problem}")
    return arr


def _number_list(value: Any, where: str, allow_inf: bool = False) -> np.ndarray:
    """A JSON list of numbers as a float array; every entry is finite and within
    ±MAX_ABS_WEIGHT ("inf"/"-inf" strings too when ``allow_inf``)."""
    if not isinstance(value, list):
        raise NetworkFileError(f"{where}: expected a list of numbers, got {_type(value)}")
    if allow_inf:
        infinite = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf}
        value = [infinite.get(v, v) if isinstance(v, str) else v for v in value]
        finite = [0.0 if isinstance(v, float) and math.isinf(v) else v for v in value]
        _numbers(finite, lambda: iter(finite), lambda j: f"{where}, entry {j + 1}", (len(finite),))
        return np.array(value, dtype=float)
    return _numbers(value, lambda: iter(value), lambda j: f"{where}, entry {j + 1}", (len(value),))


def _number_matrix(value: Any, where: str, rows: int | None = None,
                   cols: int | None = None) -> np.ndarray:
    if not isinstance(value, list) or not value:
        raise NetworkFileError(f"{where}: expected a non-empty list of rows, got {_type(value)}")
    kinds = list(map(type, value))
    if set(kinds) != {list}:
        i = next(i for i, k in enumerate(kinds) if k is not list)
        raise NetworkFileError(f"{where}: row {i + 1} is {_type(value[i])}, expected a list of "
                               "numbers")
    lengths = list(map(len, value))
    width = lengths[0]
    if set(lengths) != {width}:
        i = next(i for i, n in enumerate(lengths) if n != width)
        raise NetworkFileError(f"{where}: row {i + 1} has {lengths[i]} entries, row 1 has {width}")
    if width == 0:
        raise NetworkFileError(f"{where}: row 1 is empty (each neuron needs a weight for every "
                               "input)")
    M = _numbers(value, lambda: itertools.chain.from_iterable(value),
                 lambda k: f"{where}, row {k // width + 1}, entry {k % width + 1}",
                 (len(value), width))
    if rows is not None and M.shape[0] != rows:
        raise NetworkFileError(f"{where}: {M.shape[0]} rows, expected {rows}")
    if cols is not None and M.shape[1] != cols:
        raise NetworkFileError(f"{where}: {M.shape[1]} columns, expected {cols}")
    return M


@dataclass
class _Layer:
    """One layer as read: W, b, and for a layer with infinite rows ``scaled`` = (S, V, v)."""

    W: np.ndarray
    b: np.ndarray
    scaled: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def size(self) -> int:
        """Its weights, biases and scales."""
        return self.W.size + self.b.size + sum(a.size for a in self.scaled or ())

    def extended(self) -> ExtendedLayer:
        """This layer in an extended network (no infinite rows: S, V, v of zeros)."""
        S, V, v = self.scaled or (np.zeros(len(self.b)), np.zeros_like(self.W),
                                  np.zeros(len(self.b)))
        return ExtendedLayer(self.W, self.b, S, V, v)


def network_from_dict(doc: Any, name: str = "network") -> MLP | ExtendedNetwork:
    """A network from the JSON document ``doc`` (schema in docs/network-format.md)."""
    if not isinstance(doc, dict):
        raise NetworkFileError(f"{name}: the top level must be an object, got {_type(doc)}")
    fmt = doc.get("format", FORMAT_NAME)
    if fmt != FORMAT_NAME:
        raise NetworkFileError(f"{name}: \"format\" is {one_line(repr(fmt), 60)}, "
                               f"expected {FORMAT_NAME!r}")
    version = doc.get("version", FORMAT_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) \
            or not 1 <= version <= FORMAT_VERSION:
        shown = version if isinstance(version, int) and abs(version) < 10**9 else _type(version)
        raise NetworkFileError(f"{name}: \"version\" {shown!r} is not one this program reads "
                               f"(1 to {FORMAT_VERSION})")
    activation = _activation_names(doc.get("activation", "relu"), name)
    layers = doc.get("layers")
    if not isinstance(layers, list) or not layers:
        raise NetworkFileError(f"{name}: \"layers\" must be a non-empty list, got {_type(layers)}")
    if len(layers) > MAX_LAYERS:
        raise NetworkFileError(f"{name}: \"layers\" has {len(layers):,} layers; at most "
                               f"{MAX_LAYERS:,} are read")
    parsed = []
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
            raise NetworkFileError(f"{where}: unknown key(s) "
                                   f"{', '.join(shown_name(k) for k in sorted(unknown)[:5])}")
        W = _number_matrix(layer["weights"], f"{where} weights", cols=n_prev)
        b = _number_list(layer["biases"], f"{where} biases")
        if b.shape[0] != W.shape[0]:
            raise NetworkFileError(f"{where}: {W.shape[0]} rows of weights but {b.shape[0]} biases")
        entry = _Layer(W, b)
        if "scale" in layer:
            S = _number_list(layer["scale"], f"{where} scale", allow_inf=True)
            if S.shape[0] != W.shape[0]:
                raise NetworkFileError(f"{where}: {S.shape[0]} scales for {W.shape[0]} rows")
            for key in ("scaled_weights", "scaled_biases"):
                if key not in layer:
                    raise NetworkFileError(f"{where}: \"scale\" needs \"{key}\" too")
            V = _number_matrix(layer["scaled_weights"], f"{where} scaled_weights",
                               rows=W.shape[0], cols=W.shape[1])
            v = _number_list(layer["scaled_biases"], f"{where} scaled_biases")
            if v.shape[0] != W.shape[0]:
                raise NetworkFileError(f"{where}: {v.shape[0]} scaled biases for {W.shape[0]} rows")
            entry.scaled = (S, V, v)
        parsed.append(entry)
        n_prev = W.shape[0]
    return _assemble(parsed, activation, name)


def _activation_names(value: Any, name: str) -> str | list[str]:
    """A file's ``activation``: one name, or a list of one name per hidden layer (its
    length is checked once the layers are read)."""
    known = ", ".join(ACTIVATIONS)
    if isinstance(value, str):
        if value not in ACTIVATIONS:
            raise NetworkFileError(f"{name}: \"activation\" {one_line(repr(value), 40)} is not one "
                                   f"of {known}")
        return value
    if not isinstance(value, list):
        raise NetworkFileError(f"{name}: \"activation\" must be a name or a list of names, got "
                               f"{_type(value)}")
    if len(value) > MAX_LAYERS:
        raise NetworkFileError(f"{name}: \"activation\" lists {len(value):,} names; at most "
                               f"{MAX_LAYERS:,} layers are read")
    for i, v in enumerate(value):
        if not isinstance(v, str) or v not in ACTIVATIONS:
            shown = one_line(repr(v), 40) if isinstance(v, str) else _type(v)
            raise NetworkFileError(f"{name}: \"activation\" entry {i + 1} {shown} is not one of "
                                   f"{known}")
    return list(value)


def _check_entries(arr: np.ndarray, where: str) -> None:
    """Every entry finite and within ±MAX_ABS_WEIGHT; the first one that is not is named."""
    ok = np.abs(arr) <= MAX_ABS_WEIGHT  # False for NaN too
    if ok.all():
        return
    index = np.unravel_index(int(np.argmin(ok)), arr.shape)
    value = float(arr[index])
    place = (f"row {index[0] + 1}, entry {index[1] + 1}" if arr.ndim == 2
             else f"entry {index[0] + 1}" if arr.ndim == 1 else "value")
    if not math.isfinite(value):
        problem = f"{value}: NaN or infinite values are not allowed"
    else:
        problem = f"{value:.3g} is out of range (at most ±{MAX_ABS_WEIGHT:g})"
    raise NetworkFileError(f"{where}, {place}: {problem}")


def _check_growth(layers: list[_Layer], name: str) -> None:
    """Refuse weights whose outputs could overflow a double on inputs of size 1.

    For every activation here |φ(z)| ≤ max(|z|, 1), so with B_0 = 1 and
    B_l = (‖W_l‖_∞ + ‖b_l‖_∞)·max(1, B_{l−1}), |h_l|_∞ ≤ B_l when |x|_∞ ≤ 1.
    """
    log_bound = 0.0
    for i, layer in enumerate(layers):
        norm = float(np.abs(layer.W).sum(axis=1).max() + np.abs(layer.b).max())
        log_bound = (math.log10(norm) if norm > 0 else -math.inf) + max(0.0, log_bound)
        if log_bound > MAX_GROWTH_LOG10:
            raise NetworkFileError(
                f"{name}: layer {i + 1}: the weights are so large that values could reach "
                f"1e{log_bound:.0f} on inputs of size 1 (doubles end at 1.8e308)")


_JSON_KEYS = ("weights", "biases", "scaled_weights", "scaled_biases")


def _assemble(parsed: list[_Layer], activation: str | Sequence[str], name: str,
              keys: Callable[[int], Sequence[str]] = lambda i: _JSON_KEYS
              ) -> MLP | ExtendedNetwork:
    """Check sizes, shapes and values of layers read from any format; build the network.
    ``activation``: one name or a list of one per hidden layer. ``keys(i)`` names layer
    i's W, b, V, v in messages as the file names them."""
    if not isinstance(activation, str) and len(activation) != len(parsed) - 1:
        raise NetworkFileError(f"{name}: \"activation\" lists {len(activation)} names for "
                               f"{len(parsed) - 1} hidden layers")
    total = sum(L.size for L in parsed)
    if total > MAX_PARAMETERS:
        raise NetworkFileError(f"{name}: {total:,} parameters; at most {MAX_PARAMETERS:,} are read")
    for i, L in enumerate(parsed):
        where = f"{name}: layer {i + 1}"
        if 0 in L.W.shape:  # ONNX allows empty tensors; a network needs neurons and inputs
            what = "neurons" if L.W.shape[0] == 0 else "inputs"
            raise NetworkFileError(f"{where}: 0 {what} (an empty tensor); a network needs at "
                                   f"least one in every layer")
        if i and L.W.shape[1] != parsed[i - 1].W.shape[0]:
            raise NetworkFileError(f"{where}: weights have {L.W.shape[1]} columns but layer {i} "
                                   f"has {parsed[i - 1].W.shape[0]} neurons")
        kW, kb, kV, kv = keys(i + 1)
        _check_entries(L.W, f"{where} {kW}")
        _check_entries(L.b, f"{where} {kb}")
        if L.scaled is not None:
            S, V, v = L.scaled
            if not np.all((S == 0) | np.isinf(S)):
                raise NetworkFileError(f"{where} scale: entries must be 0, \"inf\" or \"-inf\"")
            if i == len(parsed) - 1 and np.any(S != 0):
                raise NetworkFileError(f"{where}: the output layer cannot have infinite rows")
            _check_entries(V, f"{where} {kV}")
            _check_entries(v, f"{where} {kv}")
    names = activation if isinstance(activation, str) else \
        normalise_activation(activation, len(parsed) - 1)
    if any(L.scaled is not None for L in parsed):
        if names != "relu":
            raise NetworkFileError(f"{name}: infinite rows need \"activation\": \"relu\"")
        return ExtendedNetwork(tuple(L.extended() for L in parsed))
    _check_growth(parsed, name)
    return MLP([(L.W, L.b) for L in parsed], names)


# -- NPZ --------------------------------------------------------------------
#: What a damaged or hostile archive can raise from zipfile and numpy's header reader.
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
                   EOFError, OSError, ValueError, struct.error, zlib.error, lzma.LZMAError,
                   SyntaxError, OverflowError)


#: zipfile's reader of the end-of-archive record, and the record's member count and
#: directory size: private names, absent from zipfile's type stubs, that give the sizes
#: before the directory itself is read.
_end_record = zipfile._EndRecData  # type: ignore[attr-defined]
_MEMBERS_TOTAL = zipfile._ECD_ENTRIES_TOTAL  # type: ignore[attr-defined]
_DIRECTORY_SIZE = zipfile._ECD_SIZE  # type: ignore[attr-defined]


def _npz_key_allowed(key: str) -> bool:
    if key in ("activation", FEATURES_KEY):
        return True
    digits = key[1:]
    return (key[:1] in ("W", "b", "S", "V", "v") and digits.isdigit() and digits.isascii()
            and not digits.startswith("0") and int(digits) <= MAX_LAYERS)


def _read_npz(data: bytes, name: str, key_allowed: Callable[[str], bool] = _npz_key_allowed,
              expected: str = "W1, b1, …, WL, bL (and activation, S, V, v)",
              max_members: int = MAX_NPZ_MEMBERS, max_bytes: int = MAX_NPZ_BYTES,
              max_entries: int = MAX_PARAMETERS, what: str = "a network",
              entries: str = "parameters") -> dict[str, np.ndarray]:
    """The arrays of an NPZ archive, every size checked before anything is decompressed:
    the directory (member count) from the end record, each member's size from the
    directory, each array's shape and type from its header (pickles are never read).
    The keywords say which array names are allowed and the limits (network files by
    default; ``relulab.io.points`` reads rows of inputs with its own)."""
    buf = io.BytesIO(data)
    try:
        end = _end_record(buf)
    except _ARCHIVE_ERRORS as e:
        raise NetworkFileError(f"{name}: truncated or damaged NPZ archive ({e})") from None
    if end is None:
        raise NetworkFileError(f"{name}: truncated or damaged NPZ archive (no ZIP directory at "
                               "the end)")
    if end[_MEMBERS_TOTAL] > max_members or end[_DIRECTORY_SIZE] > 128 * max_members:
        raise NetworkFileError(f"{name}: the archive lists {end[_MEMBERS_TOTAL]:,} "
                               f"members; {what} has at most {max_members:,} arrays")
    try:
        archive = zipfile.ZipFile(buf)
    except _ARCHIVE_ERRORS as e:
        raise NetworkFileError(f"{name}: truncated or damaged NPZ archive ({one_line(e, 80)})") \
            from None
    with archive:
        infos = archive.infolist()
        if len(infos) > max_members:
            raise NetworkFileError(f"{name}: the archive holds {len(infos):,} members; {what} "
                                   f"has at most {max_members:,} arrays")
        expanded = sum(info.file_size for info in infos)
        if expanded > max_bytes:
            raise NetworkFileError(f"{name}: the archive would expand to {megabytes(expanded)}; "
                                   f"at most {megabytes(max_bytes)} are read")
        keys = []
        for info in infos:
            member = shown_name(info.filename)
            if not info.filename.endswith(".npy"):
                raise NetworkFileError(f"{name}: member {member} is not a NumPy array (.npy)")
            key = info.filename[:-4]
            if not key_allowed(key):
                raise NetworkFileError(f"{name}: unexpected array {shown_name(key)}; expected "
                                       f"{expected}")
            if key in keys:
                raise NetworkFileError(f"{name}: array {key} appears twice in the archive")
            keys.append(key)
        arrays = {}
        budget = max_entries + 1024  # the activation name and a little slack
        for info, key in zip(infos, keys):
            try:
                arrays[key], used = _read_npy_member(archive, info, budget, what, entries,
                                                     max_entries)
            except NetworkFileError as e:
                raise NetworkFileError(f"{name}: array {key}: {e}") from None
            except _ARCHIVE_ERRORS as e:
                raise NetworkFileError(f"{name}: array {key} is truncated or damaged "
                                       f"({one_line(e, 80)})") from None
            budget -= used
    return arrays


def _read_npy_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int,
                     what: str = "a network", entries: str = "parameters",
                     max_entries: int = MAX_PARAMETERS) -> tuple[np.ndarray, int]:
    """One .npy member: header first (dtype, shape), then exactly the bytes it declares."""
    fmt = np.lib.format
    with archive.open(info) as f:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(f)
        else:
            raise NetworkFileError(f"NumPy format version {version} is not read")
        if dtype.hasobject:
            raise NetworkFileError("holds Python objects, not plain numbers (pickled data is "
                                   "never loaded)")
        count = math.prod(shape)
        if count > budget:
            raise NetworkFileError(f"{count:,} entries; {what} has at most "
                                   f"{max_entries:,} {entries}")
        nbytes = count * dtype.itemsize
        if nbytes > info.file_size:
            raise NetworkFileError(f"declares {nbytes:,} bytes of data but holds fewer "
                                   "(truncated or damaged)")
        raw = f.read(nbytes)
    if len(raw) != nbytes:
        raise NetworkFileError("is truncated")
    arr = np.frombuffer(raw, dtype=dtype, count=count)
    arr = arr.reshape(shape[::-1]).T if fortran else arr.reshape(shape)
    return arr, count


def _numeric(arr: np.ndarray, key: str, where: str, ndim: int) -> np.ndarray:
    """``arr`` as a float64 array of ``ndim`` dimensions, or an error naming ``key``."""
    kind = arr.dtype.kind
    if kind in "US":
        raise NetworkFileError(f"{where}: {key} holds text, not numbers")
    if kind not in "fiu":
        raise NetworkFileError(f"{where}: {key} has type {arr.dtype}, expected numbers")
    if arr.ndim != ndim:
        raise NetworkFileError(f"{where}: {key} has {arr.ndim} dimensions, expected {ndim}")
    if 0 in arr.shape:
        raise NetworkFileError(f"{where}: {key} has shape {arr.shape}; it is empty")
    with np.errstate(over="ignore", invalid="ignore"):  # float128 beyond double: inf, caught below
        return arr.astype(float)


def network_from_arrays(arrays: dict, name: str = "network") -> MLP | ExtendedNetwork:
    """A network from arrays ``W1, b1, …, WL, bL`` (+ optional ``activation``,
    and ``S_l, V_l, v_l`` for infinite rows)."""
    L = 0
    while f"W{L + 1}" in arrays and L < MAX_LAYERS:
        L += 1
    if L == 0:
        keys = ", ".join(shown_name(k) for k in sorted(arrays)[:8]) or "nothing"
        raise NetworkFileError(f"{name}: no W1 array (found {keys}); expected W1, b1, …, WL, bL")
    known = {"activation", FEATURES_KEY} | {
        f"{p}{i}" for i in range(1, L + 1) for p in ("W", "b", "S", "V", "v")}
    unknown = set(arrays) - known
    if unknown:
        raise NetworkFileError(f"{name}: unexpected array(s) "
                               f"{', '.join(shown_name(k) for k in sorted(unknown)[:5])}")
    activation: str | list[str] = "relu"
    if "activation" in arrays:
        a = np.asarray(arrays["activation"])
        if a.dtype.kind != "U" or a.ndim > 1 or not all(str(v) in ACTIVATIONS for v in a.reshape(-1)):
            raise NetworkFileError(f"{name}: activation must be one of {', '.join(ACTIVATIONS)}, "
                                   "or an array of one per hidden layer")
        activation = str(a) if a.ndim == 0 else [str(v) for v in a]
    parsed = []
    for i in range(1, L + 1):
        where = f"{name}: layer {i}"
        if f"b{i}" not in arrays:
            raise NetworkFileError(f"{where}: W{i} has no b{i}")
        W = _numeric(np.asarray(arrays[f"W{i}"]), f"W{i}", where, 2)
        b = _numeric(np.asarray(arrays[f"b{i}"]), f"b{i}", where, 1)
        if b.shape[0] != W.shape[0]:
            raise NetworkFileError(f"{where}: W{i} has {W.shape[0]} rows but b{i} has "
                                   f"{b.shape[0]} entries")
        entry = _Layer(W, b)
        if f"S{i}" in arrays:
            S = np.asarray(arrays[f"S{i}"])
            if S.dtype.kind != "f" or S.ndim != 1:
                raise NetworkFileError(f"{where}: S{i} must be a 1-D float array")
            for key in (f"V{i}", f"v{i}"):
                if key not in arrays:
                    raise NetworkFileError(f"{where}: S{i} needs {key} too")
            V = _numeric(np.asarray(arrays[f"V{i}"]), f"V{i}", where, 2)
            v = _numeric(np.asarray(arrays[f"v{i}"]).reshape(-1), f"v{i}", where, 1)
            if S.shape[0] != W.shape[0] or V.shape != W.shape or v.shape[0] != W.shape[0]:
                raise NetworkFileError(f"{where}: S{i}, V{i}, v{i} must match W{i}'s shape "
                                       f"{W.shape}")
            entry.scaled = (S.astype(float), V, v)
        else:
            for key in (f"V{i}", f"v{i}"):
                if key in arrays:
                    raise NetworkFileError(f"{where}: {key} without S{i}")
        parsed.append(entry)
    return _assemble(parsed, activation, name, keys=lambda i: (f"W{i}", f"b{i}", f"V{i}", f"v{i}"))


# ---------------------------------------------------------------------------
# ONNX
# ---------------------------------------------------------------------------
def __getattr__(name: str) -> Any:
    # the ONNX writer imports onnx (a second and more): it lives in its own module and
    # is reached from here as well
    if name in ("network_to_onnx_bytes", "ONNX_EXPORT_OPS"):
        from relulab.io import onnx_writer

        return getattr(onnx_writer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _from_onnx_bytes(data: bytes, name: str) -> MLP:
    from relulab.io.onnx_reader import read_onnx

    return read_onnx(data, name)


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def network_to_dict(net: MLP | ExtendedNetwork) -> dict[str, Any]:
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
    return net.to_dict()


def network_to_npz_bytes(net: MLP | ExtendedNetwork, extra: dict | None = None) -> bytes:
    arrays: dict[str, Any] = {k: np.array(v) for k, v in (extra or {}).items()}
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
        arrays["activation"] = np.array(net.activation if isinstance(net.activation, str)
                                        else list(net.activation))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def check_saveable(net: MLP | ExtendedNetwork, name: str = "the network") -> None:
    """Refuse, by layer and entry, a network whose file :func:`load_network` would refuse
    for its values (beyond ±MAX_ABS_WEIGHT, NaN, ∞, or growth past the doubles): no file
    is written that cannot be read back."""
    if isinstance(net, ExtendedNetwork):
        for i, L in enumerate(net.layers, start=1):
            for arr, key in ((L.W, "weights"), (L.b, "biases"), (L.V, "scaled_weights"),
                             (L.v, "scaled_biases")):
                _check_entries(np.asarray(arr, float), f"{name}: layer {i} {key}")
        return
    if not net.is_finite():
        raise NetworkFileError(f"{name} has NaN or infinite weights")
    layers = [_Layer(W, b) for W, b in net.layers]
    for i, L in enumerate(layers, start=1):
        _check_entries(L.W, f"{name}: layer {i} weights")
        _check_entries(L.b, f"{name}: layer {i} biases")
    _check_growth(layers, name)


def network_to_bytes(net: MLP | ExtendedNetwork, fmt: str, features: Sequence[str] | None = None) -> bytes:
    """The file's bytes, with the inputs' ``features`` (relulab.io.network_features)."""
    check_saveable(net)
    names = _as_file_error(features_to_write, features, net.n_in, fmt)
    extra = {} if names is None else {FEATURES_KEY: list(names)}
    if fmt == "json":
        return (json.dumps(network_to_dict(net) | extra, allow_nan=False) + "\n").encode("utf-8")
    if fmt == "npz":
        return network_to_npz_bytes(net, extra)
    if fmt == "onnx":
        from relulab.io.onnx_writer import network_to_onnx_bytes

        return network_to_onnx_bytes(net)
    raise NetworkFileError(f"unknown format {fmt!r}")


def save_network(net: MLP | ExtendedNetwork, path: StrPath,
                 features: Sequence[str] | None = None) -> None:
    """Write ``net`` (an MLP or an ExtendedNetwork) in the format of ``path``'s extension,
    atomically: the old file stays if anything fails (a read-only file is refused), with
    the inputs' ``features`` (relulab.io.network_features)."""
    path = Path(path)
    fmt = _fmt_from_suffix(path)
    try:
        data = network_to_bytes(net, fmt, features)
    except NetworkFileError as e:
        raise NetworkFileError(f"{path.name} not written: {e}") from None
    try:
        write_bytes_atomic(path, data)
    except OSError as e:
        raise NetworkFileError(f"{path.name}: cannot write ({e.strerror or e})") from None
