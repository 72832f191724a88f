"""The lecture editor: the scenes of the lecture being built, with their pictures and
titles; drag to reorder, duplicate, delete, rename, edit captions and notes. Every
edit is a step of the lecture's own undo stack (Ctrl+Z here undoes the lecture, not
a panel). The built-in lecture opens here read-only, an example to copy."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QIcon, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from relulab.io.scenes import Playlist
from relulab.ui.lecture.pictures import cached_thumbnail, has_thumbnail
from relulab.ui.theme import current_theme

#: Pause in typing after which a caption or notes edit is committed (one undo step
#: however many pauses: consecutive edits of one text merge).
COMMIT_DELAY_MS = 600


class SceneList(QListWidget):
    """The scenes in order; a drag moves one through the book (undoable) instead of
    letting the list move its own item."""

    def __init__(self, editor: LectureEditor):
        super().__init__(editor)
        self.editor = editor
        self.setObjectName("lecture-editor-scenes")
        self.setAccessibleName("Scenes (drag to reorder)")
        self.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(True)

    def dropEvent(self, event) -> None:
        source = self.currentRow()
        target_item = self.itemAt(event.position().toPoint())
        if target_item is None:
            target = self.count() - 1
        else:
            target = self.row(target_item)
            below = event.position().y() > self.visualItemRect(target_item).center().y()
            target += 1 if below and target < source else 0
            target -= 1 if not below and target > source else 0
        event.setDropAction(Qt.DropAction.IgnoreAction)
        event.accept()
        if source >= 0:
            self.editor.commit_texts()
            self.editor.book.move(source, target)


class LectureEditor(QWidget):
    """Lecture ▸ Edit the lecture: a window of its own, owned by the main window."""

    def __init__(self, controller):
        super().__init__(controller.window, Qt.WindowType.Window)
        self.controller = controller
        self.book = controller.book
        self.setObjectName("lecture-editor")
        self.setAccessibleName("Lecture editor")
        self._filling = False

        self.lecture_title = QLineEdit(self)
        self.lecture_title.setObjectName("lecture-editor-title")
        self.lecture_title.setAccessibleName("Lecture title")
        self.lecture_title.setPlaceholderText("Lecture title")
        self.lecture_title.editingFinished.connect(
            lambda: self.book.set_title(self.lecture_title.text().strip()))
        self.banner = QLabel("The built-in lecture, read-only: an example to look at. "
                             "“Edit a copy” makes it yours to change and save.", self)
        self.banner.setObjectName("lecture-editor-read-only")
        self.banner.setAccessibleName("Read-only example")
        self.banner.setWordWrap(True)

        self.scenes = SceneList(self)
        self.scenes.currentRowChanged.connect(self._on_row)

        self.title = QLineEdit(self)
        self.title.setObjectName("lecture-editor-scene-title")
        self.title.setAccessibleName("Scene title")
        self.title.editingFinished.connect(lambda: self.commit("title"))
        self.caption = self._text_box("lecture-editor-caption", "Caption, shown to the room")
        self.notes = self._text_box("lecture-editor-notes", "Presenter notes, shown only to you")
        self._pending: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COMMIT_DELAY_MS)
        self._timer.timeout.connect(self.commit_texts)
        self.caption.textChanged.connect(lambda: self._typed("caption"))
        self.notes.textChanged.connect(lambda: self._typed("notes"))

        self.buttons: dict[str, QPushButton] = {}
        file_row = QHBoxLayout()
        for key, text, slot in (
                ("new", "New", self.book.new),
                ("open", "Open…", controller.open_lecture_dialog),
                ("builtin", "Built-in example", self.book.open_builtin),
                ("copy", "Edit a copy", self.book.copy_to_edit),
                ("restore", "Restore the autosaved lecture", self.book.restore_autosave),
                ("save", "Save", controller.save_lecture),
                ("save-as", "Save as…", controller.save_lecture_as_dialog),
                ("export", "Handout (PDF)…", controller.export_handout_dialog)):
            file_row.addWidget(self._button(key, text, slot))
        file_row.addStretch(1)
        scene_row = QHBoxLayout()
        for key, text, slot in (
                ("add", "Add this view", lambda: self.book.add_view(
                    f"Scene {len(self.book.scenes) + 1}")),
                ("duplicate", "Duplicate", lambda: self.book.duplicate(self.row())),
                ("delete", "Delete", lambda: self.book.delete(self.row())),
                ("up", "Move up", lambda: self.book.move(self.row(), self.row() - 1)),
                ("down", "Move down", lambda: self.book.move(self.row(), self.row() + 1)),
                ("undo", "Undo", self.undo),
                ("redo", "Redo", self.redo),
                ("present", "Present from here", self.present_from_here)):
            scene_row.addWidget(self._button(key, text, slot))
        scene_row.addStretch(1)
        QShortcut(QKeySequence.StandardKey.Undo, self, self.undo)
        QShortcut(QKeySequence.StandardKey.Redo, self, self.redo)
        QShortcut(QKeySequence("Ctrl+Shift+Z"), self, self.redo)

        fields = QWidget(self)
        form = QFormLayout(fields)
        form.addRow("&Title", self.title)
        form.addRow("&Caption", self.caption)
        form.addRow("&Notes", self.notes)
        split = QSplitter(self)
        split.addWidget(self.scenes)
        split.addWidget(fields)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)

        layout = QVBoxLayout(self)
        layout.addWidget(self.lecture_title)
        layout.addWidget(self.banner)
        layout.addLayout(file_row)
        layout.addWidget(split, 1)
        layout.addLayout(scene_row)

        self._icons: QTimer = QTimer(self)  # pictures are drawn one at a time, after showing
        self._icons.setInterval(0)
        self._icons.timeout.connect(self._next_icon)
        self.book.changed.connect(self.refresh)
        current_theme().changed.connect(self.apply_theme)
        self.apply_theme()
        self.refresh()

    def _text_box(self, name: str, accessible: str) -> QPlainTextEdit:
        box = QPlainTextEdit(self)
        box.setObjectName(name)
        box.setAccessibleName(accessible)
        box.setTabChangesFocus(True)
        box.installEventFilter(self)
        return box

    def _button(self, key: str, text: str, slot) -> QPushButton:
        b = QPushButton(text, self)
        b.setObjectName(f"lecture-editor-{key}")
        b.setAccessibleName(text)
        # what was typed belongs to the selected scene: it is committed before the
        # scenes move under it
        b.clicked.connect(lambda _=False: (self.commit_texts(), slot()))
        self.buttons[key] = b
        return b

    def apply_theme(self) -> None:
        zoom = current_theme().zoom
        self.scenes.setIconSize(QSize(round(160 * zoom), round(90 * zoom)))
        if hasattr(self, "_icons"):  # the pictures again, in the new colours
            self.refresh()
        self.resize(QSize(round(900 * zoom), round(560 * zoom)).boundedTo(
            self.screen().availableGeometry().size()))

    # -- what it shows ---------------------------------------------------------------
    def row(self) -> int:
        return self.scenes.currentRow()

    def readouts(self) -> dict:
        """``titles`` (each scene's, in order), ``selected`` (0 first, -1 none),
        ``title``, ``caption``, ``notes`` (the selected scene's as shown), ``read_only``,
        ``can_undo`` and ``undo_text``."""
        return {"titles": [self.scenes.item(i).text() for i in range(self.scenes.count())],
                "selected": self.row(), "title": self.title.text(),
                "caption": self.caption.toPlainText(), "notes": self.notes.toPlainText(),
                "read_only": self.book.read_only, "can_undo": self.book.undo_stack.canUndo(),
                "undo_text": self.book.undo_stack.undoText()}

    def refresh(self) -> None:
        """The list and fields from the book (after any change, undo included). Typing
        not yet committed is dropped: the scenes changed under it (edits made here
        commit it first, and leaving a field commits it)."""
        self._timer.stop()
        self._pending.clear()
        self._filling = True
        try:
            self.lecture_title.setText(self.book.playlist.title)
            self.scenes.clear()
            for i, scene in enumerate(self.book.scenes):
                item = QListWidgetItem(scene.title or f"Scene {i + 1}")
                item.setToolTip(scene.caption)
                item.setIcon(QIcon(cached_thumbnail(scene, self._thumb_width(), draw=False)
                                   or self._blank()))
                self.scenes.addItem(item)
            self.scenes.setCurrentRow(self.book.selected)
            ro = self.book.read_only
            self.banner.setVisible(ro)
            self.buttons["copy"].setVisible(ro)
            # what a crash (or New before saving) left in the autosave, while nothing
            # here would be lost by bringing it back
            self.buttons["restore"].setVisible(self.book.left_unsaved() is not None
                                               and not self.book.is_modified())
            self.lecture_title.setReadOnly(ro)
            for box in (self.title, self.caption, self.notes):
                box.setReadOnly(ro)
            self.scenes.setDragEnabled(not ro)
            has = bool(self.book.scenes)
            for key in ("duplicate", "delete", "up", "down", "add"):
                self.buttons[key].setEnabled(not ro and (has or key == "add"))
            self.buttons["save"].setEnabled(not ro and has)
            self.buttons["present"].setEnabled(has)
            self.buttons["export"].setEnabled(has)
            self.buttons["undo"].setEnabled(self.book.undo_stack.canUndo())
            self.buttons["redo"].setEnabled(self.book.undo_stack.canRedo())
            name = self.book.path.name if self.book.path else "untitled lecture"
            state = " (read-only)" if ro else (" *" if self.book.is_modified() else "")
            self.setWindowTitle(f"Lecture editor — {name}{state}")
        finally:
            self._filling = False
        self._on_row(self.row())
        if self.isVisible():
            self._icons.start()

    def _thumb_width(self) -> int:
        return self.scenes.iconSize().width()

    def _blank(self) -> QPixmap:
        pixmap = QPixmap(self.scenes.iconSize())
        pixmap.fill(Qt.GlobalColor.lightGray)
        return pixmap

    def _next_icon(self) -> None:
        """Draw the next missing picture (one per turn of the event loop)."""
        for i, scene in enumerate(self.book.scenes):
            if not has_thumbnail(scene, self._thumb_width()) and i < self.scenes.count():
                self.scenes.item(i).setIcon(QIcon(cached_thumbnail(scene, self._thumb_width())))
                return
        self._icons.stop()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._icons.start()

    def _on_row(self, row: int) -> None:
        if self._filling:
            return
        self.commit_texts()
        self._filling = True
        try:
            scene = self.book.scenes[row] if 0 <= row < len(self.book.scenes) else None
            self.book.selected = row
            self.title.setText(scene.title if scene else "")
            self.caption.setPlainText(scene.caption if scene else "")
            self.notes.setPlainText(scene.notes if scene else "")
            for box in (self.title, self.caption, self.notes):
                box.setEnabled(scene is not None)
        finally:
            self._filling = False

    # -- edits -----------------------------------------------------------------------
    def _typed(self, name: str) -> None:
        if not self._filling and not self.book.read_only:
            self._pending.add(name)
            self._timer.start()

    def _text(self, name: str) -> str:
        if name == "title":
            return self.title.text().strip()
        return (self.caption if name == "caption" else self.notes).toPlainText()

    def commit(self, name: str) -> None:
        """The field ``name`` (title, caption or notes) into the selected scene."""
        self._pending.add(name)
        self.commit_texts()

    def commit_texts(self) -> None:
        """What was typed and not yet committed (the pause, a focus change). Every
        field is read before the first is applied: applying one refills them all."""
        self._timer.stop()
        names, self._pending = sorted(self._pending), set()
        if self._filling or self.book.read_only:
            return
        row = self.row()
        texts = {name: self._text(name) for name in names}
        for name, text in texts.items():
            self.book.set_text(row, name, text)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.FocusOut and obj in (self.caption, self.notes):
            self.commit_texts()
        return False

    def undo(self) -> None:
        """What was typed is committed first, so Undo takes back the last edit."""
        self.commit_texts()
        self.book.undo_stack.undo()

    def redo(self) -> None:
        self.commit_texts()
        self.book.undo_stack.redo()

    def present_from_here(self) -> bool:
        """Start the lecture being built at the selected scene."""
        self.commit_texts()
        if not self.book.scenes:
            return False
        row = max(0, self.row())
        if not self.controller.start(Playlist(scenes=list(self.book.scenes),
                                              title=self.book.playlist.title)):
            return False
        return self.controller.go(row)

    def closeEvent(self, event) -> None:
        self.commit_texts()
        super().closeEvent(event)
