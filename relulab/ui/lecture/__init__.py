"""Lectures: stepping a playlist in front of a room (controller), building one from
the window (book), the presenter view (presenter), the lecture editor (editor) and
the PDF handout (handout)."""

from relulab.ui.lecture.controller import EDITING, LectureBar, LectureController, is_editing

__all__ = ["EDITING", "LectureBar", "LectureController", "is_editing"]
