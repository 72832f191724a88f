"""Point sets as CSV files (the playground's "Load CSV…" and "Save CSV…").

The text format (columns x1, x2, label and an optional train/test set) is
``relulab.model.datasets.points_to_csv`` / ``points_from_csv``; this module only
reads and writes files: nothing is returned unless the whole file is valid, and a
save is atomic.
"""

from __future__ import annotations

from pathlib import Path

from relulab.io.atomic import write_text_atomic
from relulab.io.limits import FileRefused, read_file
from relulab.model.datasets import points_from_csv, points_to_csv

MAX_BYTES = 20 * 1024 * 1024


def save_points_csv(path, X, y, is_test=None) -> None:
    """Write the points to ``path`` atomically (the old file survives a crash)."""
    write_text_atomic(Path(path), points_to_csv(X, y, is_test))


def load_points_csv(path):
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
