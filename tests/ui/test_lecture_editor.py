"""The lecture editor: list, reorder by drag, duplicate, delete, rename, captions and
notes, each undoable; round trip through save and open; the built-in one read-only."""

import copy

from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDropEvent, QTextCursor

from relulab.io.scenes import builtin_lecture_path, read_playlist
from relulab.ui.lecture.pictures import has_thumbnail


def build(window):
    for name, value, title in (("hinges", 3.0, "One"), ("folding", -2.0, "Two"),
                               ("training", 5.0, "Three")):
        window.show_panel(name).set_value(value)
        window.lecture.add_view(title, f"Caption {title}.", "")


def editor_of(window, qtbot):
    build(window)
    editor = window.menu_actions["action-lecture-edit"].trigger() or window.lecture.editor
    qtbot.waitUntil(lambda: editor.isVisible())
    return editor


def drop(editor, source: int, target: int) -> None:
    """Drag scene ``source`` onto the lower half of row ``target``'s item."""
    scenes = editor.scenes
    scenes.setCurrentRow(source)
    rect = scenes.visualItemRect(scenes.item(target))
    y = rect.bottom() - 2 if target > source else rect.top() + 2
    event = QDropEvent(QPointF(rect.center().x(), y), Qt.DropAction.MoveAction, QMimeData(),
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    scenes.dropEvent(event)


def test_the_editor_lists_the_scenes_with_pictures(fake_window, qtbot):
    w = fake_window
    editor = editor_of(w, qtbot)
    assert editor.readouts()["titles"] == ["One", "Two", "Three"]
    assert w.menu_actions["action-lecture-edit"].shortcut().toString() == "Ctrl+Shift+E"
    width = editor.scenes.iconSize().width()
    qtbot.waitUntil(lambda: all(has_thumbnail(s, width) for s in w.lecture.book.scenes))


def test_drag_reorders_and_undo_puts_back(fake_window, qtbot):
    w = fake_window
    editor = editor_of(w, qtbot)
    drop(editor, 0, 2)
    assert editor.readouts()["titles"] == ["Two", "Three", "One"]
    assert [s.title for s in w.lecture.book.scenes] == ["Two", "Three", "One"]
    drop(editor, 2, 0)
    assert editor.readouts()["titles"] == ["One", "Two", "Three"]
    editor.undo()
    assert editor.readouts()["titles"] == ["Two", "Three", "One"]
    editor.undo()
    assert editor.readouts()["titles"] == ["One", "Two", "Three"]


def test_rename_caption_notes_duplicate_delete_each_undoable(fake_window, qtbot):
    w = fake_window
    editor = editor_of(w, qtbot)
    book = w.lecture.book
    before = copy.deepcopy(book.scenes)
    editor.scenes.setCurrentRow(1)
    editor.title.setText("Two, renamed")
    editor.title.editingFinished.emit()
    editor.caption.setPlainText("A new caption.")
    editor.caption.moveCursor(QTextCursor.MoveOperation.End)
    editor.caption.insertPlainText(" More.")  # typing on: one step with the line above
    editor.notes.setPlainText("Say it slowly.")
    editor.commit_texts()
    assert (book.scenes[1].title, book.scenes[1].caption, book.scenes[1].notes) == (
        "Two, renamed", "A new caption. More.", "Say it slowly.")
    editor.buttons["duplicate"].click()
    assert editor.readouts()["titles"] == ["One", "Two, renamed", "Two, renamed", "Three"]
    assert editor.readouts()["selected"] == 2
    editor.buttons["delete"].click()
    editor.scenes.setCurrentRow(0)
    editor.buttons["delete"].click()
    assert editor.readouts()["titles"] == ["Two, renamed", "Three"]
    assert book.undo_stack.count() == 3 + 4 + 2  # three adds, four edits, dup, two deletes
    for _ in range(6):
        editor.undo()
    assert book.scenes == before
    assert editor.readouts()["caption"] == "Caption Two."
    editor.buttons["redo"].click()
    assert book.scenes[1].title == "Two, renamed"


def test_a_lecture_built_in_the_editor_round_trips(fake_window, qtbot, tmp_path):
    w = fake_window
    editor = editor_of(w, qtbot)
    editor.lecture_title.setText("My talk")
    editor.lecture_title.editingFinished.emit()
    editor.scenes.setCurrentRow(2)
    editor.notes.setPlainText("Ask the room first.")
    drop(editor, 2, 0)
    editor.buttons["duplicate"].click()
    book = w.lecture.book
    built = copy.deepcopy(book.scenes)
    assert [s.title for s in built] == ["Three", "Three", "One", "Two"]
    assert built[0].notes == "Ask the room first."
    assert book.save(tmp_path / "talk.json")
    assert "*" not in editor.windowTitle()
    editor.buttons["new"].click()
    assert editor.readouts()["titles"] == []
    assert book.open(tmp_path / "talk.json")
    assert book.scenes == built and book.playlist.title == "My talk"
    assert editor.readouts()["titles"] == ["Three", "Three", "One", "Two"]


def test_the_builtin_lecture_is_an_example_to_copy(fake_window, qtbot):
    w = fake_window
    editor = editor_of(w, qtbot)
    editor.buttons["builtin"].click()
    shown = editor.readouts()
    assert shown["read_only"] and len(shown["titles"]) == len(read_playlist(builtin_lecture_path()).scenes)
    assert editor.banner.isVisible() and editor.caption.isReadOnly()
    assert not editor.buttons["delete"].isEnabled()
    editor.caption.setPlainText("changed")
    editor.commit_texts()
    assert w.lecture.book.scenes[0].caption != "changed"
    editor.buttons["copy"].click()
    assert not editor.readouts()["read_only"] and not editor.banner.isVisible()
    assert editor.buttons["delete"].isEnabled()
    editor.buttons["delete"].click()
    assert len(editor.readouts()["titles"]) == len(read_playlist(builtin_lecture_path()).scenes) - 1


def test_present_from_here_starts_at_the_selected_scene(fake_window, qtbot):
    w = fake_window
    editor = editor_of(w, qtbot)
    editor.scenes.setCurrentRow(1)
    assert editor.present_from_here()
    assert w.lecture.running and w.lecture.index == 1
    assert w.lecture.readouts()["title"] == "Two"


def test_the_editor_and_presenter_view_name_every_control(fake_window, qtbot):
    from relulab.ui.automation import unnamed, without_accessible_name

    w = fake_window
    editor = editor_of(w, qtbot)
    w.lecture.present()
    for root in (editor, w.lecture.presenting.view):
        assert not unnamed(root), unnamed(root)
        assert not without_accessible_name(root), without_accessible_name(root)


def test_the_editor_offers_the_autosaved_lecture(fake_window, qtbot):
    w = fake_window
    w.session.start(autosave=False)  # this window owns the data folder: it autosaves
    editor = editor_of(w, qtbot)
    assert not editor.buttons["restore"].isVisible()  # unsaved work is on screen
    editor.buttons["new"].click()
    assert editor.buttons["restore"].isVisible()
    editor.buttons["restore"].click()
    assert editor.readouts()["titles"] == ["One", "Two", "Three"]
