"""``relulab lecture export``: a handout PDF offscreen; exit code and one line on error."""

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def lecture(*args, tmp_path):
    # a display that does not exist: the command must not need one
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=":4711", HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "relulab", "lecture", *map(str, args)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def scene(caption: str) -> dict:
    return {"format": "relulab-scene", "version": 1, "current": "hinges", "panels": {"hinges": {}},
            "title": caption.split()[0], "caption": caption, "notes": "only for me"}


def test_export_writes_one_page_a_scene(tmp_path):
    pypdf = pytest.importorskip("pypdf")
    folder = tmp_path / "talk"
    folder.mkdir()
    (folder / "playlist.json").write_text(json.dumps({
        "format": "relulab-playlist", "version": 1, "title": "Talk",
        "scenes": [scene("First: the ruler."), scene("Second: the same ruler again.")]}))
    out = tmp_path / "handout.pdf"
    r = lecture("export", folder, "-o", out, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out)
    pages = [" ".join(unicodedata.normalize("NFKC", p.extract_text()).split())
             for p in pypdf.PdfReader(str(out)).pages]
    assert len(pages) == 2
    assert "First: the ruler." in pages[0] and "Second: the same ruler again." in pages[1]
    assert "only for me" not in pages[0]
    # off a terminal, one line a scene (the window's progress bar reads them)
    assert "relulab lecture: drawing scene 1 of 2" in r.stderr
    assert "relulab lecture: drawing scene 2 of 2" in r.stderr


def test_a_broken_lecture_is_one_line_and_exit_1(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "relulab-playlist", "version": 1, "scenes": []}')
    r = lecture("export", bad, "-o", tmp_path / "x.pdf", tmp_path=tmp_path)
    assert r.returncode == 1
    assert r.stderr.strip().count("\n") == 0 and "no scenes" in r.stderr
    assert not (tmp_path / "x.pdf").exists()


def test_the_output_must_be_a_pdf(tmp_path):
    r = lecture("export", "builtin", "-o", tmp_path / "x.png", tmp_path=tmp_path)
    assert r.returncode == 2 and "must end in .pdf" in r.stderr
