"""Point sets as CSV files (the playground's "Load CSV…" and "Save CSV…").

The text format (columns x1, x2, label and an optional train/test set) is
``relulab.model.data.datasets.points_to_csv`` / ``points_from_csv``; this module only
reads and writes files: nothing is returned unless the whole file is valid, and a
save is atomic.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from relulab.io.atomic import write_text_atomic
from relulab.io.limits import FileRefused, StrPath, read_file
from relulab.model.data.datasets import points_from_csv, points_to_csv

if TYPE_CHECKING:  # imported where it is used: slices pull in the region code
    from relulab.model.regions.slices import InputRows

MAX_BYTES = 20 * 1024 * 1024


def save_points_csv(path: StrPath, X: ArrayLike, y: ArrayLike, is_test: ArrayLike | None = None) -> None:
    """Write the points to ``path`` atomically (the old file survives a crash)."""
    write_text_atomic(Path(path), points_to_csv(X, y, is_test))


def load_points_csv(path: StrPath) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, is_test)`` read from ``path``; nothing is returned unless the whole file is valid.
    Only a regular file of at most 20 MB is read (a link to /dev/zero or a FIFO is refused)."""
    path = Path(path)
    try:
        data = read_file(path, MAX_BYTES)
    except FileRefused as e:
        raise ValueError(f"{path.name} {e}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path.name}: not a text file ({e.reason})") from None
    try:
        return points_from_csv(text)
    except ValueError as e:
        raise ValueError(f"{path.name}: {e}") from None


# ---------------------------------------------------------------------------
# rows of inputs for slices (relulab.model.regions.slices): CSV or NPZ
# ---------------------------------------------------------------------------
#: A points file (rows of inputs) is refused beyond these, before it is parsed.
MAX_INPUT_BYTES = 64 * 1024 * 1024
MAX_INPUT_NUMBERS = 16_000_000
MAX_INPUT_ROWS = 1_000_000
MAX_LABEL_CHARS = 40
INPUT_SUFFIXES = (".csv", ".npz")
#: Header names of the column that holds each row's label (not an input).
LABEL_COLUMNS = ("label", "labels", "class", "target", "y")


class PointsFileError(ValueError):
    """A points file that cannot be read; the message (one line) says where and why."""

    def __init__(self, message: str):
        from relulab.io.limits import one_line

        super().__init__(one_line(message, 600))


def load_input_rows(path: StrPath) -> InputRows:
    """The rows of inputs in a CSV or NPZ file (format in docs/network-format.md,
    "Points files") as :class:`relulab.model.regions.slices.InputRows`. Everything is checked
    before anything is returned; PointsFileError (one line) names the file, the line
    or array and the problem."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in INPUT_SUFFIXES:
        shown = repr(suffix) if suffix else "'(no extension)'"
        raise PointsFileError(f"{path.name}: unknown points file type {shown}; use .csv or .npz")
    try:
        data = read_file(path, MAX_INPUT_BYTES)
    except FileNotFoundError:
        raise PointsFileError(f"{path.name}: no such file") from None
    except FileRefused as e:
        raise PointsFileError(f"{path.name} {e}") from None
    return input_rows_from_bytes(data, suffix[1:], path.name)


def input_rows_from_bytes(data: bytes, fmt: str, name: str = "points") -> InputRows:
    """Parse ``data`` as a points file of format ``fmt`` ('csv' or 'npz')."""
    if not data.strip():
        raise PointsFileError(f"{name}: the file is empty")
    is_zip = data[:4] in (b"PK\x03\x04", b"PK\x05\x06")
    if fmt == "npz":
        if not is_zip:
            raise PointsFileError(f"{name}: not an NPZ archive")
        return _rows_from_npz(data, name)
    if fmt != "csv":
        raise PointsFileError(f"{name}: unknown points file format {fmt!r}")
    if is_zip or b"\x00" in data[:4096]:
        raise PointsFileError(f"{name}: not a CSV text file (binary data)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PointsFileError(f"{name}: not UTF-8 text (byte {e.start})") from None
    return _rows_from_csv(text, name)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _rows_from_csv(text: str, name: str) -> InputRows:
    from relulab.model.regions.slices import MAX_COORDINATE, InputRows

    lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise PointsFileError(f"{name}: no rows (only blank lines and comments)")
    first_no, first = lines[0]
    cells = [c.strip() for c in first.split(",")]
    label_col = None
    if not all(_is_number(c) for c in cells if c):
        # a header: column names; one of them may name the labels
        names = [c.lower() for c in cells]
        found = [j for j, c in enumerate(names) if c in LABEL_COLUMNS]
        if len(found) > 1:
            raise PointsFileError(f"{name}: line {first_no}: more than one label column")
        label_col = found[0] if found else None
        lines = lines[1:]
        if not lines:
            raise PointsFileError(f"{name}: a header but no rows")
    width = len(cells)
    n_rows = len(lines)
    if n_rows > MAX_INPUT_ROWS:
        raise PointsFileError(f"{name}: {n_rows:,} rows; at most {MAX_INPUT_ROWS:,} are read")
    n = width - (label_col is not None)
    if n < 1:
        raise PointsFileError(f"{name}: no input columns")
    if n * n_rows > MAX_INPUT_NUMBERS:
        raise PointsFileError(f"{name}: {n * n_rows:,} numbers; at most {MAX_INPUT_NUMBERS:,} "
                              "are read")
    flat: list[str] = []
    labels: list[str] = []
    for lineno, line in lines:
        row = line.split(",")
        if len(row) != width:
            raise PointsFileError(f"{name}: line {lineno} has {len(row)} column(s), the first "
                                  f"row {width}")
        if label_col is not None:
            label = row.pop(label_col).strip()
            if len(label) > MAX_LABEL_CHARS:
                raise PointsFileError(f"{name}: line {lineno}: a label longer than "
                                      f"{MAX_LABEL_CHARS} characters")
            labels.append(label)
        flat.extend(row)
    try:
        X = np.array(flat, dtype=float)
    except ValueError:
        k = next(k for k, c in enumerate(flat) if not _is_number(c))
        lineno = lines[k // n][0]
        col = k % n + 1 + (label_col is not None and label_col <= k % n)
        cell = flat[k].strip()
        shown = repr(cell if len(cell) <= 20 else cell[:17] + "…") if cell else "an empty cell"
        raise PointsFileError(f"{name}: line {lineno}, column {col}: {shown} is not a number") \
            from None
    bad = ~(np.abs(X) <= MAX_COORDINATE)
    if bad.any():
        k = int(np.argmax(bad))
        lineno = lines[k // n][0]
        col = k % n + 1 + (label_col is not None and label_col <= k % n)
        problem = "is not finite" if not np.isfinite(X[k]) else f"is beyond ±{MAX_COORDINATE:g}"
        raise PointsFileError(f"{name}: line {lineno}, column {col}: {flat[k].strip()} {problem}")
    return InputRows(X.reshape(n_rows, n), tuple(labels) if label_col is not None else None,
                     None, name)


def _input_key(key: str) -> bool:
    return key in ("X", "y", "image_shape")


def _rows_from_npz(data: bytes, name: str) -> InputRows:
    from relulab.io.networks import NetworkFileError, _read_npz
    from relulab.model.regions.slices import MAX_COORDINATE, InputRows

    try:
        arrays = _read_npz(data, name, key_allowed=_input_key,
                           expected="X (the rows), y (labels) and image_shape", max_members=3,
                           max_bytes=MAX_INPUT_BYTES * 2, max_entries=MAX_INPUT_NUMBERS,
                           what="a points file", entries="numbers")
    except NetworkFileError as e:
        raise PointsFileError(str(e)) from None
    if "X" not in arrays:
        raise PointsFileError(f"{name}: no array X (the rows of inputs)")
    X = arrays["X"]
    if X.dtype.kind not in "fiu":
        raise PointsFileError(f"{name}: X has type {X.dtype}, expected numbers")
    if X.ndim not in (2, 3) or 0 in X.shape:
        raise PointsFileError(f"{name}: X has shape {X.shape}; expected (rows, inputs) or "
                              "(rows, height, width)")
    if X.shape[0] > MAX_INPUT_ROWS:
        raise PointsFileError(f"{name}: {X.shape[0]:,} rows; at most {MAX_INPUT_ROWS:,} are read")
    shape = None
    if X.ndim == 3:
        shape = (int(X.shape[1]), int(X.shape[2]))
        X = X.reshape(X.shape[0], -1)
    with np.errstate(over="ignore", invalid="ignore"):
        X = X.astype(float)
    bad = ~(np.abs(X) <= MAX_COORDINATE)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise PointsFileError(f"{name}: X row {i}, entry {j + 1}: {X[i, j]:g} is not a finite "
                              f"number within ±{MAX_COORDINATE:g}")
    if "image_shape" in arrays:
        s = arrays["image_shape"]
        if s.dtype.kind not in "iu" or s.shape != (2,) or np.any(s <= 0) \
                or int(s[0]) * int(s[1]) != X.shape[1]:
            raise PointsFileError(f"{name}: image_shape must be two whole numbers whose product "
                                  f"is the {X.shape[1]} inputs of a row")
        shape = (int(s[0]), int(s[1]))
    labels = None
    if "y" in arrays:
        y = arrays["y"]
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise PointsFileError(f"{name}: y has shape {y.shape}; expected one label per row "
                                  f"({X.shape[0]})")
        if y.dtype.kind in "iu":
            labels = tuple(str(int(v)) for v in y)
        elif y.dtype.kind == "U":
            labels = tuple(str(v)[:MAX_LABEL_CHARS] for v in y)
        elif y.dtype.kind == "f" and np.all(np.isfinite(y)):
            labels = tuple(f"{v:g}" for v in y)
        else:
            raise PointsFileError(f"{name}: y has type {y.dtype}; labels are whole numbers, "
                                  "numbers or text")
    return InputRows(X, labels, shape, name)
