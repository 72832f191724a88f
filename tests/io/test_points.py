"""Point-set CSV files: written atomically, read all or nothing."""

import numpy as np
import pytest

from relulab.io.points import load_points_csv, save_points_csv
from relulab.model.data.datasets import make_dataset, test_mask


def test_csv_round_trip(tmp_path):
    X, y = make_dataset("spirals", 1)
    mask = test_mask(len(y), 0.3, 0)
    path = tmp_path / "points.csv"
    save_points_csv(path, X, y, mask)
    X2, y2, m2 = load_points_csv(path)
    assert np.array_equal(X, X2) and np.array_equal(y, y2) and np.array_equal(mask, m2)


def test_bad_file_is_rejected_whole(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("x1,x2,label\n0,0,1\n1,1,7\n")
    with pytest.raises(ValueError, match=r"bad.csv: line 3"):
        load_points_csv(path)
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not a text file"):
        load_points_csv(path)


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="links and FIFOs of POSIX")
def test_only_a_regular_file_of_bounded_size_is_read(tmp_path):
    import os

    (tmp_path / "zero.csv").symlink_to("/dev/zero")  # size 0; reading it never ends
    with pytest.raises(ValueError, match=r"zero.csv is a device"):
        load_points_csv(tmp_path / "zero.csv")
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(ValueError, match=r"pipe.csv is a pipe"):
        load_points_csv(tmp_path / "pipe.csv")
    with open(tmp_path / "big.csv", "wb") as f:
        f.truncate(10**12)
    with pytest.raises(ValueError, match=r"larger than the 20.0 MB"):
        load_points_csv(tmp_path / "big.csv")
