"""Scene files: schema, validation messages, size limit, newer versions, atomic writes."""

import json
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from relulab.io.networks import load_network
from relulab.io.scenes import (
    MAX_BYTES,
    PLAYLIST_FORMAT,
    SCENE_FORMAT,
    VERSION,
    Scene,
    SceneError,
    dump_scene,
    json_ready,
    parse_scene,
    read_document,
    read_playlist,
    read_scene,
    write_scene,
)
from relulab.model.lessons.converter import ConverterState
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.networks.mlp import MLP, same_network
from relulab.ui.panels import PANEL_NAMES

KNOWN = list(PANEL_NAMES)


def good() -> dict:
    return {"format": SCENE_FORMAT, "version": VERSION, "current": "folding",
            "title": "Depth", "caption": "Each layer doubles the pieces.",
            "panels": {"folding": {"depth": 3, "fold": [0.0, 0.5, 1.0]}, "hinges": {}}}


def test_round_trip_through_text_and_file(tmp_path):
    scene = parse_scene(json.dumps(good()), KNOWN)
    assert scene.current == "folding" and scene.title == "Depth"
    assert scene.panels["folding"] == {"depth": 3, "fold": [0.0, 0.5, 1.0]}
    path = tmp_path / "a.relulab.json"
    write_scene(path, scene)
    again = read_scene(path, KNOWN)
    assert again == scene
    assert json.loads(path.read_text())["format"] == SCENE_FORMAT


def test_numpy_values_are_stored_as_plain_numbers():
    scene = Scene(panels={"hinges": {"kinks": np.array([-1.0, 0.5]), "n": np.int64(3),
                                     "pair": (1, 2)}})
    d = json.loads(dump_scene(scene))
    assert d["panels"]["hinges"] == {"kinks": [-1.0, 0.5], "n": 3, "pair": [1, 2]}


@pytest.mark.parametrize(("value", "where"), [
    ({"obj": object()}, "panels.training.obj"),
    ({"runs": [1.0, {"best": {1, 2}}]}, "panels.training.runs[1].best"),
    ({3: "x"}, "panels.training"),
])
def test_unstorable_values_name_their_path(value, where, tmp_path):
    path = tmp_path / "s.relulab.json"
    path.write_text("old")
    with pytest.raises(SceneError) as info:
        write_scene(path, Scene(panels={"training": value}))
    assert info.value.field == where
    assert path.read_text() == "old"  # nothing written


def _mutate(fn):
    d = good()
    fn(d)
    return json.dumps(d)


BROKEN = {
    "empty": ("", "file", "empty"),
    "truncated": (json.dumps(good())[:60], "file", "cut short"),
    "not json": ("hello", "file", "not valid JSON"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\xff", "file", "not UTF-8"),
    "a list": ("[1, 2]", "file", "expected an object"),
    "wrong format": (_mutate(lambda d: d.update(format="something-else")), "format",
                     "expected 'relulab-scene'"),
    "no format": (_mutate(lambda d: d.pop("format")), "format", "missing"),
    "text version": (_mutate(lambda d: d.update(version="1")), "version",
                     "expected a whole number, got text"),
    "newer version": (_mutate(lambda d: d.update(version=VERSION + 1)), "version",
                      "newer ReLU Lab"),
    "version zero": (_mutate(lambda d: d.update(version=0)), "version", "not a format version"),
    "panels a list": (_mutate(lambda d: d.update(panels=[])), "panels",
                      "expected an object (panel name -> panel state), got a list"),
    "no panels": (_mutate(lambda d: d.pop("panels")), "panels", "missing"),
    "panel state a number": (_mutate(lambda d: d["panels"].update(hinges=3)), "panels.hinges",
                             "got a number"),
    "unknown panel": (_mutate(lambda d: d["panels"].update(oops={})), "panels.oops",
                      "unknown panel"),
    "current wrong type": (_mutate(lambda d: d.update(current=2)), "current",
                           "expected a panel name"),
    "current unknown": (_mutate(lambda d: d.update(current="nope")), "current", "unknown panel"),
    "caption wrong type": (_mutate(lambda d: d.update(caption=["x"])), "caption",
                           "expected text, got a list"),
    "too deep": (_mutate(lambda d: d["panels"].update(hinges={"a": json.loads("[" * 80 + "]" * 80)})),
                 "file", "nested"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_kind_of_broken_file_names_field_and_problem(name):
    data, field, words = BROKEN[name]
    with pytest.raises(SceneError) as info:
        parse_scene(data, KNOWN)
    assert info.value.field == field
    assert words in info.value.problem
    assert str(info.value).startswith(f"{field}: ")


def test_oversized_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.relulab.json"
    with open(path, "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: no need to write 16 MB
    monkeypatch.setattr(type(path), "read_bytes", lambda self: pytest.fail("read an oversized file"))
    with pytest.raises(SceneError, match=r"larger than the 16.0 MB"):
        read_scene(path, KNOWN)


def test_size_limit_applies_to_text_too():
    with pytest.raises(SceneError, match="larger than"):
        parse_scene(json.dumps(good()), KNOWN, max_bytes=50)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(SceneError, match="does not exist"):
        read_scene(tmp_path / "nope.relulab.json")
    with pytest.raises(SceneError, match="is a folder"):
        read_scene(tmp_path)


def test_playlist_with_files_and_inline_scenes(tmp_path):
    (tmp_path / "one.relulab.json").write_text(json.dumps(good()))
    inline = good()
    inline["title"] = "Inline"
    (tmp_path / "list.json").write_text(json.dumps(
        {"format": PLAYLIST_FORMAT, "version": 1, "title": "Talk",
         "scenes": ["one.relulab.json", inline]}))
    playlist = read_playlist(tmp_path / "list.json", KNOWN)
    assert playlist.title == "Talk"
    assert [s.title for s in playlist.scenes] == ["Depth", "Inline"]
    assert isinstance(read_document(tmp_path / "list.json", KNOWN), type(playlist))
    assert isinstance(read_document(tmp_path / "one.relulab.json", KNOWN), Scene)


@pytest.mark.parametrize(("scenes", "field", "words"), [
    ([], "scenes", "no scenes"),
    ("x", "scenes", "expected a list"),
    ([3], "scenes[0]", "expected a scene or a file name"),
    (["../up.relulab.json"], "scenes[0]", "beside the playlist"),
    (["missing.relulab.json"], "scenes[0] (missing.relulab.json) file", "does not exist"),
    ([{"format": SCENE_FORMAT, "version": 1, "panels": []}], "scenes[0].panels", "got a list"),
])
def test_broken_playlists(tmp_path, scenes, field, words):
    (tmp_path / "list.json").write_text(json.dumps(
        {"format": PLAYLIST_FORMAT, "version": 1, "scenes": scenes}))
    with pytest.raises(SceneError) as info:
        read_playlist(tmp_path / "list.json", KNOWN)
    assert info.value.field == field
    assert words in info.value.problem


def test_non_finite_numbers_round_trip():
    """A diverged loss or the loss of an empty test set must not make work unsaveable."""
    import math

    scene = Scene(panels={"training": {"loss": [1.0, float("nan"), float("inf")]}})
    back = parse_scene(dump_scene(scene), KNOWN).panels["training"]["loss"]
    assert back[0] == 1.0 and math.isnan(back[1]) and back[2] == float("inf")


def test_json_ready_keeps_plain_data():
    data = {"a": [1, 2.5, "x", None, True], "b": {"c": []}}
    assert json_ready(data) == data


def test_builtin_lecture_is_valid():
    from relulab.io.scenes import builtin_lecture_path

    playlist = read_playlist(builtin_lecture_path(), KNOWN)
    assert len(playlist.scenes) >= 8
    for scene in playlist.scenes:
        assert scene.title and len(scene.caption) > 80  # a paragraph, not a label
        assert scene.current in scene.panels


# -- hostile files -------------------------------------------------------------------
@pytest.mark.parametrize(("data", "field", "words"), [
    (b"  \n\t ", "file", "the file is empty (it holds only blank space)"),
    (b"\xef\xbb\xbf" + json.dumps(good()).encode(), None, None),  # a BOM is fine
    (json.dumps(good()).encode("utf-16"), "file", "UTF-16 text"),
    (json.dumps(good()).replace('"depth": 3', '"depth": ' + "9" * 400).encode(),
     "panels.folding.depth", "a whole number with 400 digits is out of range"),
    (json.dumps(good()).replace('"depth": 3', '"depth": [' + "[1]," * 1_100_000 + "1]").encode(),
     "file", "lists and objects; at most 1,000,000"),
    (b"[" * 200_000 + b"]" * 200_000, "file", "nested 200000 levels deep; at most 64"),
    (json.dumps(dict(good(), panels={"a\nb" * 1000: {}})).encode(), "panels.a b", "unknown panel"),
])
def test_hostile_scene_text(data, field, words):
    if field is None:
        assert parse_scene(data, KNOWN).current == "folding"
        return
    with pytest.raises(SceneError) as info:
        parse_scene(data, KNOWN)
    assert info.value.field.startswith(field) and words in info.value.problem
    assert "\n" not in str(info.value) and len(str(info.value)) < 700


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs are POSIX")
def test_a_playlist_entry_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    import os

    os.mkfifo(tmp_path / "live.relulab.json")
    (tmp_path / "list.json").write_text(json.dumps(
        {"format": PLAYLIST_FORMAT, "version": 1, "scenes": ["live.relulab.json"]}))
    with pytest.raises(SceneError) as info:
        read_playlist(tmp_path / "list.json", KNOWN)
    assert info.value.field == "scenes[0] (live.relulab.json) file"
    assert "is a pipe (FIFO)" in info.value.problem


# -- every scene and network that ships, and files in the forms written before --------
RESOURCES = files("relulab") / "resources"
FIXTURES = Path(__file__).parent.parent / "fixtures"
SHIPPED_SCENES = sorted((p for folder in ("lectures", "examples")
                         for p in (RESOURCES / folder).iterdir() if p.name.endswith(".relulab.json")),
                        key=lambda p: p.name)
SHIPPED_NETWORKS = sorted((p for p in (RESOURCES / "examples").iterdir()
                           if p.name.endswith(".json") and not p.name.endswith(".relulab.json")),
                          key=lambda p: p.name)
STATES = {"playground": PlaygroundState, "converter": ConverterState}


@pytest.mark.parametrize("path", SHIPPED_SCENES, ids=lambda p: p.name)
def test_every_shipped_scene_loads_and_is_written_back_as_it_is(path):
    scene = read_scene(path, KNOWN)
    assert scene.panels
    for name, d in scene.panels.items():
        if name in STATES:
            assert STATES[name].from_dict(d).to_dict() == d


def test_a_scene_written_before_the_one_dict_form_still_loads():
    """The linear-collapse lecture as it was saved before the Playground kept its
    networks in MLP's dict form (layers of W and b): the same state as the file now."""
    older = read_scene(FIXTURES / "linear-collapse-older.relulab.json", KNOWN)
    assert "W" in older.panels["playground"]["network"]["layers"][0]
    now = read_scene(RESOURCES / "lectures" / "06-linear-collapse.relulab.json", KNOWN)
    state = PlaygroundState.from_dict(older.panels["playground"])
    assert state == PlaygroundState.from_dict(now.panels["playground"])
    assert state.to_dict() == now.panels["playground"]


@pytest.mark.parametrize("path", [*SHIPPED_NETWORKS, FIXTURES / "end-slopes-cancel.json"],
                         ids=lambda p: p.name)
def test_network_files_written_before_read_through_both_readers(path):
    doc = json.loads(path.read_text())
    from_file = load_network(path)
    from_dict = MLP.from_dict(doc)
    assert same_network(from_file, from_dict) and from_dict.to_dict() == doc
