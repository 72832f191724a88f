"""Lecture ▸ Add this view: a small dialog asking for the scene's title, caption and notes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
)


class AddViewDialog(QDialog):
    """Title, caption (what the room reads) and notes (what only the presenter reads).
    Not modal: the window stays usable; ``accepted`` adds the scene."""

    def __init__(self, book, parent=None):
        super().__init__(parent)
        self.book = book
        self.setObjectName("lecture-add-dialog")
        self.setWindowTitle("Add this view to the lecture")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.title = QLineEdit(self)
        self.title.setObjectName("lecture-add-title")
        self.title.setAccessibleName("Scene title")
        self.title.setPlaceholderText(f"Scene {len(book.scenes) + 1}")
        self.caption = QPlainTextEdit(self)
        self.caption.setObjectName("lecture-add-caption")
        self.caption.setAccessibleName("Caption, shown to the room")
        self.caption.setTabChangesFocus(True)
        self.notes = QPlainTextEdit(self)
        self.notes.setObjectName("lecture-add-notes")
        self.notes.setAccessibleName("Presenter notes, shown only to you")
        self.notes.setTabChangesFocus(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("&Title", self.title)
        form.addRow("&Caption", self.caption)
        form.addRow("&Notes", self.notes)
        form.addRow(buttons)

    def accept(self) -> None:
        self.book.add_view(self.title.text().strip() or self.title.placeholderText(),
                           self.caption.toPlainText().strip(), self.notes.toPlainText().strip())
        super().accept()
