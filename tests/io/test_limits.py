"""Bounded reading: regular files only, sizes capped while reading, JSON measured
before it is parsed, messages kept to one line."""

import os

import pytest

from relulab.io.limits import FileRefused, check_json_text, one_line, read_file

posix_only = pytest.mark.skipif(os.name != "posix", reason="links, FIFOs and devices of POSIX")


@posix_only
@pytest.mark.parametrize(("kind", "words"), [
    ("dev-zero link", "is a device"),
    ("fifo", r"is a pipe \(FIFO\)"),
    ("folder", "is a folder"),
    ("folder link", "is a folder"),
    ("link loop", "cannot be read"),
])
def test_only_regular_files_are_read(tmp_path, kind, words):
    path = tmp_path / "x.json"
    if kind == "dev-zero link":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    elif kind == "folder":
        path.mkdir()
    elif kind == "folder link":
        path.symlink_to(tmp_path)
    else:
        path.symlink_to(tmp_path / "y.json")
        (tmp_path / "y.json").symlink_to(path)
    with pytest.raises(FileRefused, match=words):
        read_file(path, 1024)


def test_size_is_checked_before_and_while_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:
        f.truncate(10**12)  # sparse: a terabyte that takes no room
    with pytest.raises(FileRefused, match=r"larger than the 0.0 MB allowed"):
        read_file(path, 1000)
    small = tmp_path / "small.json"
    small.write_bytes(b"x" * 5000)
    # a file whose size says nothing (/proc, a file growing while read): the cap holds
    import relulab.io.limits as limits

    real_stat = os.stat

    class Lying:
        def __init__(self, st):
            self.st_mode, self.st_size = st.st_mode, 0

    monkeypatch.setattr(limits.os, "stat", lambda p, *a, **k: Lying(real_stat(p, *a, **k)))
    with pytest.raises(FileRefused, match="holds more than"):
        read_file(small, 1000)
    assert read_file(small, 5000) == b"x" * 5000


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_file(tmp_path / "nope.json", 10)


@pytest.mark.parametrize(("text", "words"), [
    ("[" * 1000 + "]" * 1000, "nested 1000 levels deep"),
    ('{"a": ' * 30 + "1" + "}" * 30, "nested 30 levels deep"),
    ("[" + "[]," * 2000 + "[]]", "2,002 lists and objects"),
    ("[" + "0," * 9000 + "0]", "values"),
])
def test_json_shape_is_refused_before_parsing(text, words):
    with pytest.raises(FileRefused, match=words):
        check_json_text(text, max_depth=20, max_containers=2000, max_values=5000)


def test_deep_nesting_is_measured_without_recursion():
    with pytest.raises(FileRefused, match="nested 1000000 levels deep"):
        check_json_text("[" * 10**6 + "]" * 10**6, 64, 10**7, 10**7)


def test_brackets_inside_strings_do_not_count():
    text = '{"a": "[[[[[[[[\\"[[[[{{{{", "b": [1, 2], "c": "]]]]"}'
    shape = check_json_text(text, max_depth=2, max_containers=5, max_values=10)
    assert shape.depth == 2 and shape.containers == 2 and not shape.cut_short
    assert check_json_text('{"a": [1, 2', 5, 5, 10).cut_short
    assert check_json_text('{"a": "[[[', 1, 5, 10).cut_short  # inside an open string
    assert check_json_text("[" + "1" * 301 + "]", 5, 5, 10).long_numbers
    assert not check_json_text('["' + "1" * 400 + '"]', 5, 5, 10).long_numbers


def test_one_line():
    assert one_line("a\nb\r\nc\x00d\u2028e") == "a b c d e"
    long = one_line("x" * 10_000, 101)
    assert len(long) == 101 and "…" in long
