"""A handout written in a child process, so that the window keeps answering.

Drawing a scene's page takes over a second (a ten-scene lecture 15 s, a minute on a
busy machine), far past the 50 ms the window may stop for. The window saves the
playlist to a temporary file and runs the command line's ``relulab lecture export``
(:func:`relulab.model.core.platform.command_line`: ``python -m relulab`` or the frozen
app itself), reads its ``drawing scene i of n`` lines into a progress bar in the status
bar (with a Cancel button), and learns the outcome from its exit code and, on failure,
its one line on standard error.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from relulab.io.scenes import Playlist, dump_playlist
from relulab.model.core.platform import command_line
from relulab.ui.theme import current_theme

#: A progress line of ``relulab lecture export`` off a terminal.
PROGRESS_LINE = re.compile(r"drawing scene (\d+) of (\d+)")
#: The prefix of the command's one-line failure.
FAILURE_PREFIX = "relulab lecture: "


class HandoutProgress(QWidget):
    """The status bar's part while a handout is written: a bar counting the scenes and
    a Cancel button."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("handout-progress")
        self.bar = QProgressBar(self)
        self.bar.setObjectName("handout-progress-bar")
        self.bar.setAccessibleName("Handout progress")
        self.bar.setRange(0, 0)  # busy until the first scene is counted
        self.bar.setFormat("Handout: scene %v of %m")
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("handout-cancel")
        self.cancel_button.setAccessibleName("Cancel the handout")
        self.cancel_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar)
        row.addWidget(self.cancel_button)

    def show_scene(self, i: int, n: int) -> None:
        """Scene ``i`` (1 for the first) of ``n`` is being drawn."""
        self.bar.setRange(0, n)
        self.bar.setValue(i)


class HandoutJob(QObject):
    """One ``relulab lecture export`` in a child. Signals: ``progressed(i, n)`` when
    scene ``i`` (1 for the first) of ``n`` is being drawn; ``finished(ok, text)`` once,
    with the PDF's path or the one-line problem (``"cancelled"`` after :meth:`cancel`)."""

    progressed = Signal(int, int)
    finished = Signal(bool, str)

    def __init__(self, playlist: Playlist, path, notes: bool = False, parent=None):
        super().__init__(parent)
        self.path = Path(path)
        self._folder = tempfile.mkdtemp(prefix="relulab-handout-")
        lecture = Path(self._folder) / "lecture.json"
        lecture.write_text(dump_playlist(playlist), encoding="utf-8")
        theme = current_theme()
        args = ["export", str(lecture), "-o", str(self.path), "--theme", theme.name,
                "--zoom", f"{theme.zoom:g}"]
        if notes:
            args.append("--notes")
        program, arguments, extra = command_line("lecture", args)
        env = QProcessEnvironment.systemEnvironment()
        for key, value in extra.items():
            env.insert(key, value)
        self.process = QProcess(self)
        self.process.setProcessEnvironment(env)
        self.process.setProgram(program)
        self.process.setArguments(arguments)
        self.process.readyReadStandardError.connect(self._read)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._error)
        self._lines: list[str] = []
        self._partial = ""
        self._cancelled = False
        self._done = False

    def start(self) -> None:
        self.process.start()

    @property
    def running(self) -> bool:
        return not self._done

    def cancel(self) -> None:
        """Stop the child; no PDF is written (it appears whole or not at all)."""
        if self._done:
            return
        self._cancelled = True
        self.process.kill()

    def abandon(self) -> None:
        """The window is closing: stop the child now, without waiting for the event loop
        (there may be none after this); ``finished(False, "cancelled")``."""
        if self._done:
            return
        self._cancelled = True
        self.process.kill()
        self.process.waitForFinished(2000)
        self._end(False, "cancelled")

    def _read(self) -> None:
        text = self._partial + bytes(self.process.readAllStandardError()).decode("utf-8", "replace")
        *lines, self._partial = text.replace("\r", "\n").split("\n")
        for line in lines:
            line = line.strip()
            if not line:
                continue
            self._lines.append(line)
            match = PROGRESS_LINE.search(line)
            if match:
                self.progressed.emit(int(match.group(1)), int(match.group(2)))

    def _problem(self) -> str:
        """The command's one line (the last it said), without its prefix."""
        self._read()
        lines = [*self._lines, self._partial.strip()]
        failures = [ln for ln in lines if ln.startswith(FAILURE_PREFIX)
                    and not PROGRESS_LINE.search(ln)]
        line = failures[-1] if failures else next((ln for ln in reversed(lines) if ln), "")
        return line.removeprefix(FAILURE_PREFIX) or "the export stopped without a word"

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        if self._cancelled:
            self._end(False, "cancelled")
        elif status == QProcess.ExitStatus.NormalExit and code == 0:
            self._end(True, str(self.path))
        else:
            self._end(False, self._problem())

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:  # no finished() follows
            self._end(False, f"could not start {self.process.program()}: "
                             f"{self.process.errorString()}")

    def _end(self, ok: bool, text: str) -> None:
        if self._done:
            return
        self._done = True
        shutil.rmtree(self._folder, ignore_errors=True)
        self.finished.emit(ok, text)
