"""File ▸ Export of the main window: the visible panel's plot as PNG or SVG, its data
as CSV, its animation as GIF or MP4, without the panel's on-screen hints, and its
experiment as code (a numpy script or a Jupyter notebook, :mod:`relulab.io.codegen`).

A mixin of :class:`relulab.ui.main_window.MainWindow` (it uses the window's
``current_panel``, ``session`` and status bar); the drawing itself is
:mod:`relulab.ui.export`'s.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressDialog

from relulab.io.atomic import write_text_atomic
from relulab.io.codegen import CodeExportError, code_for
from relulab.io.scenes import SceneError
from relulab.ui import dialogs, export


class ExportCommands:
    """What the Export menu and ``window.export_current`` do."""

    def main_plot(self, name: str | None = None):
        """The visible panel's plot ``name`` (its main plot when None)."""
        plots = self.current_panel().plots()
        if name is None:
            return next(iter(plots.values()), None)
        if name not in plots:
            raise export.ExportError(f"the {self.current_panel().title} panel has no plot "
                                     f"{name!r} (it has: {', '.join(plots) or 'none'})")
        return plots[name]

    def export_current(self, kind: str, path, scale: int = 1, plot: str | None = None,
                       progress=None) -> list[Path]:
        """Export the visible panel's plot (png, svg; the main one unless ``plot`` names
        another), data (csv) or animation (gif, mp4) to ``path``; raises
        export.ExportError when there is nothing to export."""
        panel = self.current_panel()
        if kind == "csv":
            return export.export_csv(panel.data_tables(), path)
        name = plot
        plot = self.main_plot(name)
        if plot is None:
            raise export.ExportError(f"the {panel.title} panel has no plot to export")
        if kind == "png":
            return [export.export_png(plot, path, scale, hide=panel.export_hints())]
        if kind == "svg":
            return [export.export_svg(plot, path, hide=panel.export_hints())]
        if kind in ("gif", "mp4"):
            return [export.export_animation(panel, plot, path, progress=progress)]
        raise ValueError(f"unknown export kind {kind!r}")

    def export_code(self, path, torch: bool = False) -> Path:
        """Write the visible panel's experiment to ``path``: a numpy script (.py) or a
        notebook (.ipynb), as File ▸ Export does, without a dialog; raises
        CodeExportError for a panel that cannot be exported or another suffix."""
        panel = self.current_panel()
        path = Path(path)
        write_text_atomic(path, code_for(panel.name, panel.state_dict(), path.suffix, torch))
        return path

    def export_code_dialog(self, suffix: str) -> list[Path]:
        """Ask where to write the visible panel's experiment as a script or notebook."""
        panel = self.current_panel()
        kind = {".py": "Python script (*.py)", ".ipynb": "Jupyter notebook (*.ipynb)"}[suffix]
        start = str(Path(self._start_folder()) / f"{panel.name}{suffix}")
        path, _ = dialogs.save_file_name(self, f"Export as {kind.split(' (')[0]}", start, kind,
                                         instead="window.export_code(path)")
        if not path:
            return []
        if not path.lower().endswith(suffix):
            path += suffix
        try:
            written = self.export_code(path)
        except (CodeExportError, OSError) as exc:
            problem = f"{path}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror \
                else str(exc)
            self.session.report_error("Could not export", SceneError("export", problem))
            return []
        self.statusBar().showMessage(f"Exported {written}", 8000)
        return [written]

    def export_dialog(self, kind: str, scale: int = 1) -> list[Path]:
        panel = self.current_panel()
        suffix = {"png": ".png", "svg": ".svg", "csv": ".csv", "gif": ".gif", "mp4": ".mp4"}[kind]
        tail = f"-{scale}x" if kind == "png" and scale != 1 else ""
        start = str(Path(self._start_folder()) / f"{panel.name}{tail}{suffix}")
        args = f"{kind!r}, path" + (f", {scale}" if kind == "png" and scale != 1 else "")
        path, _ = dialogs.save_file_name(self, f"Export as {kind.upper()}", start,
                                         f"{kind.upper()} (*{suffix})",
                                         instead=f"window.export_current({args})")
        if not path:
            return []
        if not path.lower().endswith(suffix):
            path += suffix
        progress = None
        if kind in ("gif", "mp4"):
            dialog = QProgressDialog("Recording the animation…", "Stop here", 0,
                                     export.MAX_ANIMATION_FRAMES, self)
            dialog.setObjectName("export-progress")
            dialog.setWindowModality(Qt.WindowModality.WindowModal)
            dialog.setMinimumDuration(300)

            def progress(done, total):
                dialog.setValue(done)
                return not dialog.wasCanceled()  # "Stop here" keeps the frames so far
        try:
            written = self.export_current(kind, path, scale, progress=progress)
        except (export.ExportError, OSError) as exc:
            problem = f"{path}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror \
                else str(exc)
            self.session.report_error("Could not export", SceneError("export", problem))
            return []
        finally:
            if progress is not None:
                dialog.close()
        self.statusBar().showMessage("Exported " + ", ".join(str(p) for p in written), 8000)
        return written
