"""Points files for slices (rows of inputs, CSV or NPZ): read whole or refused with one
line naming the line, column or array; bounded before parsing; pickles never loaded."""

import io
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from relulab.io.points import (
    MAX_INPUT_BYTES,
    PointsFileError,
    input_rows_from_bytes,
    load_input_rows,
)

ROOT = Path(__file__).resolve().parents[2]


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_csv_with_header_labels_comments_and_blank_lines(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("# three inputs and a label\npx0, label ,px1,px2\n\n1,cat,2,3\n"
                    "  4.5 , dog,-5e-1, 6\n# the end\n")
    rows = load_input_rows(path)
    assert rows.X.tolist() == [[1, 2, 3], [4.5, -0.5, 6]]
    assert rows.labels == ("cat", "dog") and rows.image_shape is None
    assert rows.name == "rows.csv" and rows.row_label(1) == "row 1, label dog"
    path.write_text("1,2\n3,4\n")
    assert load_input_rows(path).labels is None


def test_npz_rows_pictures_and_labels():
    rows = input_rows_from_bytes(_npz(X=np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
                                      y=np.array([3, 1])), "npz", "d.npz")
    assert rows.X.shape == (2, 12) and rows.image_shape == (3, 4) and rows.labels == ("3", "1")
    rows = input_rows_from_bytes(_npz(X=np.ones((2, 6)), y=np.array(["a", "b"]),
                                      image_shape=np.array([2, 3])), "npz")
    assert rows.image_shape == (2, 3) and rows.labels == ("a", "b")


def test_the_shipped_example_reads():
    rows = load_input_rows(ROOT / "relulab" / "resources" / "examples" / "digits-rows.npz")
    assert rows.X.shape == (1797, 64) and rows.image_shape == (8, 8)
    assert rows.X.min() == 0 and rows.X.max() == 16 and rows.labels[:3] == ("0", "1", "2")


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"), ("# only a comment\n", "no rows"), ("a,b,c\n", "a header but no rows"),
    ("1,2,3\n4,5\n", r"line 2 has 2 column\(s\), the first row 3"),
    ("1,2,3\n4,x,6\n", "line 2, column 2: 'x' is not a number"),
    ("1,2,3\n4,,6\n", "line 2, column 2: an empty cell is not a number"),
    ("label,a,b\nq,1,nan\n", "line 2, column 3: nan is not finite"),
    ("1,2,inf\n", "line 1, column 3: inf is not finite"),
    ("1,2,1e300\n", "beyond"),
    ("label,y,a\n1,2,3\n", "more than one label column"),
    ("label\nx\n", "no input columns"),
    ("a,label\n1," + "x" * 50 + "\n", "longer than 40"),
    ("1,2,3\n1,2,__import__('os')\n", "line 2, column 3: .* is not a number"),
])
def test_bad_csv_is_one_line(text, message):
    with pytest.raises(PointsFileError, match=message) as e:
        input_rows_from_bytes(text.encode(), "csv", "rows.csv")
    assert "\n" not in str(e.value) and str(e.value).startswith("rows.csv")


@pytest.mark.parametrize(("data", "message"), [
    (_npz(W=np.ones((2, 2))), "unexpected array W"),
    (_npz(y=np.ones(2)), "no array X"),
    (_npz(X=np.ones(3)), "shape"),
    (_npz(X=np.ones((0, 3))), "shape"),
    (_npz(X=np.array([["a", "b"]])), "expected numbers"),
    (_npz(X=np.array([[1.0, np.nan]])), "row 0, entry 2"),
    (_npz(X=np.ones((2, 3)), y=np.ones(3)), "one label per row"),
    (_npz(X=np.ones((2, 3)), y=np.array([1.0, np.inf])), "labels are"),
    (_npz(X=np.ones((2, 6)), image_shape=np.array([4, 4])), "image_shape"),
    (b"PK\x03\x04 broken", "truncated or damaged"),
    (b"1,2,3\n", "not an NPZ archive"),
])
def test_bad_npz_is_one_line(data, message):
    with pytest.raises(PointsFileError, match=message) as e:
        input_rows_from_bytes(data, "npz", "d.npz")
    assert "\n" not in str(e.value)


def test_pickles_are_never_loaded():
    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as z:
        z.writestr("X.npy", buf.getvalue())
    with pytest.raises(PointsFileError, match="pickled data is never loaded"):
        input_rows_from_bytes(data.getvalue(), "npz", "d.npz")


def test_a_declared_size_is_checked_before_inflating():
    """A member header declaring 10^10 numbers is refused from the header."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (100_000, 100_000)})
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("X.npy", header.getvalue() + b"\0" * 1000)
    with pytest.raises(PointsFileError, match="points file has at most"):
        input_rows_from_bytes(data.getvalue(), "npz", "d.npz")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="links and FIFOs of POSIX")
def test_only_regular_files_of_bounded_size(tmp_path):
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(PointsFileError, match="pipe"):
        load_input_rows(tmp_path / "pipe.csv")
    (tmp_path / "zero.csv").symlink_to("/dev/zero")
    with pytest.raises(PointsFileError, match="device"):
        load_input_rows(tmp_path / "zero.csv")
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)
    with pytest.raises(PointsFileError, match="larger than"):
        load_input_rows(big)
    with pytest.raises(PointsFileError, match="no such file"):
        load_input_rows(tmp_path / "missing.npz")
    with pytest.raises(PointsFileError, match="unknown points file type"):
        load_input_rows(tmp_path / "rows.json")
