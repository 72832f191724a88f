"""Building a lecture from the window: Add this view, save, open, a broken file, autosave."""

import json

import pytest
from PySide6.QtWidgets import QWidget

from relulab.io.scenes import Playlist, Scene, builtin_lecture_path, read_lecture, read_playlist
from relulab.ui.panels import PANEL_NAMES


def build(window) -> list[Scene]:
    """Two views of the window's panels, captured through the API."""
    window.show_panel("hinges").set_value(3.0)
    window.lecture.add_view("A ruler", "One hinge bends the line.", "Ask: where is the kink?")
    window.show_panel("folding").set_value(-2.0)
    window.lecture.add_view("Folding", "Folds double the pieces.", "")
    return list(window.lecture.book.scenes)


@pytest.mark.parametrize("name", ["talk.json", "talk-folder"])
def test_a_lecture_built_through_the_api_round_trips(fake_window, tmp_path, name):
    w = fake_window
    scenes = build(w)
    assert [s.title for s in scenes] == ["A ruler", "Folding"]
    assert scenes[0].notes == "Ask: where is the kink?"
    assert scenes[0].panels["hinges"]["value"] == 3.0 and scenes[0].current == "hinges"
    assert scenes[1].panels["folding"]["value"] == -2.0 and scenes[1].current == "folding"
    book = w.lecture.book
    assert book.is_modified()
    assert book.save(tmp_path / name)
    assert not book.is_modified()
    if name.endswith("folder"):
        assert (tmp_path / name / "playlist.json").is_file()
        assert (tmp_path / name / "02-scene.relulab.json").is_file()
    book.new()
    assert book.scenes == []
    assert book.open(tmp_path / name)
    assert book.scenes == scenes
    assert read_lecture(tmp_path / name, PANEL_NAMES).scenes == scenes


def test_add_this_view_dialog_adds_a_scene_with_notes(fake_window, qtbot):
    w = fake_window
    w.menu_actions["action-lecture-add"].trigger()
    dialog = w.findChild(QWidget, "lecture-add-dialog")
    assert dialog is not None and dialog.isVisible()
    dialog.title.setText("Mine")
    dialog.caption.setPlainText("For the room.")
    dialog.notes.setPlainText("For me.")
    dialog.accept()
    scene = w.lecture.book.scenes[-1]
    assert (scene.title, scene.caption, scene.notes) == ("Mine", "For the room.", "For me.")
    assert w.menu_actions["action-lecture-add"].shortcut().toString() == "Ctrl+Shift+A"


def test_adding_is_undoable(fake_window):
    w = fake_window
    build(w)
    stack = w.lecture.book.undo_stack
    stack.undo()
    assert [s.title for s in w.lecture.book.scenes] == ["A ruler"]
    stack.redo()
    assert len(w.lecture.book.scenes) == 2


def test_old_playlists_without_notes_still_open(fake_window, tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"format": "relulab-playlist", "version": 1, "scenes": [
        {"format": "relulab-scene", "version": 1, "panels": {"hinges": {"value": 1.0}},
         "caption": "c"}]}))
    assert fake_window.lecture.book.open(path)
    assert fake_window.lecture.book.scenes[0].notes == ""


@pytest.mark.parametrize(("text", "field"), [
    ("{", "file"),
    ('{"format": "relulab-playlist", "version": 1, "scenes": [{"format": "relulab-scene", '
     '"version": 1, "panels": {}, "notes": 3}]}', "scenes[0].notes"),
])
def test_a_broken_lecture_is_refused_in_one_line(fake_window, tmp_path, text, field):
    w = fake_window
    build(w)
    path = tmp_path / "broken.json"
    path.write_text(text)
    assert not w.lecture.book.open(path)
    error = w.lecture.book.last_error
    assert error.field == field and "\n" not in str(error)
    assert len(w.lecture.book.scenes) == 2  # nothing changed


def test_the_builtin_lecture_opens_read_only_and_copies(fake_window):
    book = fake_window.lecture.book
    assert book.open_builtin()
    n = len(book.scenes)
    assert book.read_only and n == len(read_playlist(builtin_lecture_path()).scenes) > 0
    assert not book.delete(0) and len(book.scenes) == n
    book.copy_to_edit()
    assert not book.read_only and book.path is None
    assert book.delete(0) and len(book.scenes) == n - 1


def test_the_lecture_being_built_is_autosaved(fake_window, data_dir):
    w = fake_window
    w.session.start(autosave=False)
    build(w)
    book = w.lecture.book
    assert book.autosave_path.is_file()
    book.new()
    assert book.restore_autosave()
    assert [s.title for s in book.scenes] == ["A ruler", "Folding"]


def test_a_lecture_a_previous_run_left_survives_this_runs_edits(fake_window, data_dir, qtbot):
    """The autosave of a run that crashed is set aside at this run's first change (the
    scenes' autosave is kept the same way), so that editing a new lecture does not write
    over it; the window says so at start, and Restore brings the old one back."""
    w = fake_window
    w.session.start(autosave=False)
    build(w)
    book = w.lecture.book
    left = book.autosave_path.read_text(encoding="utf-8")
    # a new run of the app: a new book over the same data folder
    from relulab.ui.lecture.book import LectureBook

    again = LectureBook(w)
    qtbot.waitUntil(lambda: "left unsaved" in w.statusBar().currentMessage(), timeout=2000)
    w.show_panel("hinges").set_value(1.0)
    again.add_view("Another")
    assert book.recovered_path.read_text(encoding="utf-8") == left
    assert again.restore_autosave()
    assert [s.title for s in again.scenes] == ["A ruler", "Folding"]


def test_an_empty_lecture_is_not_saved(fake_window, tmp_path):
    book = fake_window.lecture.book
    assert not book.save(tmp_path / "empty.json")
    assert book.last_error.field == "scenes"
    assert not (tmp_path / "empty.json").exists()
    assert isinstance(book.playlist, Playlist)
