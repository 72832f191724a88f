"""Export: PNG at 1×/2×/4×, SVG, CSV of data_tables(), GIF and MP4 of animation_frames()."""

import csv

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel

from relulab.ui import export


def test_png_at_three_scales(fake_window, tmp_path):
    w = fake_window
    sizes = {}
    for scale in export.PNG_SCALES:
        [path] = w.export_current("png", tmp_path / f"plot-{scale}.png", scale)
        image = QImage(str(path))
        assert not image.isNull()
        sizes[scale] = (image.width(), image.height())
    w1, h1 = sizes[1]
    assert w1 > 100 and h1 > 50
    for scale in (2, 4):
        assert sizes[scale][0] == pytest.approx(w1 * scale, abs=scale)
        assert sizes[scale][1] == pytest.approx(h1 * scale, abs=scale)


def test_png_shows_the_plot_not_a_blank(fake_window, tmp_path):
    [path] = fake_window.export_current("png", tmp_path / "p.png", 2)
    image = QImage(str(path))
    colours = {image.pixelColor(x, image.height() // 2).name() for x in range(0, image.width(), 3)}
    assert len(colours) > 2  # background, axes, curve


def test_svg_holds_the_curve(fake_window, tmp_path):
    [path] = fake_window.export_current("svg", tmp_path / "p.svg")
    text = path.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "<path" in text or "<polyline" in text


def test_csv_of_every_table(fake_window, tmp_path):
    w = fake_window
    w.panel("hinges").set_value(2.0)
    written = w.export_current("csv", tmp_path / "data.csv")
    assert [p.name for p in written] == ["data-curve.csv", "data-slope.csv"]
    rows = list(csv.reader(written[0].read_text().splitlines()))
    assert rows[0] == ["x", "y"]
    assert [float(v) for v in rows[1]] == [-1.0, -2.0]
    assert len(rows) == 22
    assert written[1].read_text() == "value\n2.0\n"


def test_one_table_goes_to_the_name_given(tmp_path):
    [path] = export.export_csv({"only": (["a"], [[1], [2]])}, tmp_path / "one.csv")
    assert path.name == "one.csv" and path.read_text() == "a\n1\n2\n"


def test_no_tables_is_an_error(tmp_path):
    with pytest.raises(export.ExportError, match="no data"):
        export.export_csv({}, tmp_path / "x.csv")


@pytest.mark.skipif(not export.gif_available(), reason="Pillow is not installed")
def test_gif_of_the_animation_and_the_panel_is_left_as_it_was(fake_window, tmp_path):
    from PIL import Image

    w = fake_window
    w.panel("hinges").set_value(0.5)
    [path] = w.export_current("gif", tmp_path / "anim.gif")
    with Image.open(path) as gif:
        assert gif.format == "GIF" and gif.n_frames == 5
        assert gif.info.get("loop") == 0
        first = gif.convert("RGB").tobytes()
        gif.seek(4)
        assert gif.convert("RGB").tobytes() != first  # the frames differ
    assert w.panel("hinges").value == 0.5


@pytest.mark.skipif(not export.mp4_available(), reason="PyAV is not installed")
def test_mp4_of_the_animation(fake_window, tmp_path):
    import av

    [path] = fake_window.export_current("mp4", tmp_path / "anim.mp4")
    with av.open(str(path)) as container:
        frames = list(container.decode(video=0))
    assert len(frames) == 5
    assert frames[0].width % 2 == 0 and frames[0].height % 2 == 0
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_a_panel_without_animation_or_plot_says_so(qtbot, theme, data_dir, tmp_path):
    from relulab.ui.panels.base import Panel

    panel = Panel()  # the base class: no plot, no animation
    qtbot.addWidget(panel)
    with pytest.raises(export.ExportError, match="no animation"):
        export.record_frames(panel, panel)
    with pytest.raises(export.ExportError, match=r"\.gif or \.mp4"):
        export.export_animation(panel, panel, tmp_path / "a.avi")


def test_any_widget_exports_without_pyqtgraph(qtbot, theme, tmp_path):
    from PySide6.QtWidgets import QLabel

    label = QLabel("readout 0.0254")
    qtbot.addWidget(label)
    label.resize(200, 40)
    export.export_png(label, tmp_path / "l.png", scale=2)
    assert QImage(str(tmp_path / "l.png")).size().width() == 400
    export.export_svg(label, tmp_path / "l.svg")
    assert "<svg" in (tmp_path / "l.svg").read_text()


def test_export_dialog_errors_are_reported(fake_window, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "none" / "x.png"), "")))
    assert fake_window.export_dialog("png") == []
    assert fake_window.session.last_error.field == "export"
    fake_window.findChild(QMessageBox, "scene-error-dialog").close()
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "ok"), "")))
    assert [p.name for p in fake_window.export_dialog("png", 2)] == ["ok.png"]


def test_a_named_plot_and_an_unknown_one(fake_window, tmp_path):
    [path] = fake_window.export_current("png", tmp_path / "m.png", plot="main")
    assert path.exists()
    with pytest.raises(export.ExportError, match=r"no plot 'nope' \(it has: main\)"):
        fake_window.export_current("png", tmp_path / "n.png", plot="nope")


@pytest.mark.skipif(not export.gif_available(), reason="Pillow is not installed")
def test_stopping_a_recording_keeps_the_frames_so_far(fake_window, tmp_path, monkeypatch):
    from PIL import Image
    from PySide6.QtWidgets import QFileDialog

    [path] = fake_window.export_current("gif", tmp_path / "two.gif", progress=lambda d, t: d < 2)
    with Image.open(path) as gif:
        assert gif.n_frames == 2
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "menu.gif"), "")))
    assert [p.name for p in fake_window.export_dialog("gif")] == ["menu.gif"]
    assert fake_window.panel("hinges").value == 1.0


def test_cached_axes_are_drawn_afresh_in_an_export(qtbot, theme, tmp_path):
    """On screen a plot's axes keep a picture of themselves (a repaint replays none of
    their grid and text); an SVG has them as text and lines, not a bitmap, and the
    screen's cache is back afterwards."""
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtWidgets import QGraphicsItem

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    theme.style_plot(plot)
    plot.plot(np.arange(10.0), np.arange(10.0) ** 2)
    plot.resize(400, 300)
    plot.show()
    qtbot.waitExposed(plot)
    axis = plot.getPlotItem().getAxis("left")
    cached = QGraphicsItem.CacheMode.DeviceCoordinateCache
    assert axis.cacheMode() == cached
    assert axis.style["maxTickLevel"] == 1   # no near-invisible third grid level
    export.export_svg(plot, tmp_path / "p.svg")
    text = (tmp_path / "p.svg").read_text()
    assert axis.cacheMode() == cached
    for gi in plot.scene().items():       # the same plot with no cache at all
        gi.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    export.export_svg(plot, tmp_path / "plain.svg")
    plain = (tmp_path / "plain.svg").read_text()
    assert text.count("<text") == plain.count("<text") >= 6    # the tick numbers
    assert text.count("<image") == plain.count("<image")
    theme.style_plot(plot)
    big = export.render_image(plot, 3)
    assert big.width() == 1200 and axis.cacheMode() == cached


# -- hints for the screen only are left out of exports -----------------------------------
class CountedHint(pg.TextItem):
    """A hint drawn in the plot that counts the times it is painted."""

    def __init__(self, text):
        super().__init__(text)
        self.painted = 0

    def paint(self, painter, option, widget=None):
        self.painted += 1
        super().paint(painter, option, widget)


@pytest.fixture
def hinted_panels(monkeypatch):
    """Every panel a stand-in whose plot holds the hint "(click one)" and whose readout
    row holds "Scroll on the plot to zoom in"; both are its export hints."""
    from relulab.ui.panels import PANELS, PanelSpec
    from tests.ui.fakes import FakePanel

    class HintedPanel(FakePanel):
        def __init__(self, host=None, parent=None):
            super().__init__(host, parent)
            self.click_hint = CountedHint("(click one)")
            self.plot.addItem(self.click_hint)
            self.zoom_hint = QLabel("Scroll on the plot to zoom in", self)
            self.zoom_hint.setObjectName(f"{self.name}-zoom-hint")
            self.layout().insertWidget(1, self.zoom_hint)

        def export_hints(self):
            return (self.click_hint, self.zoom_hint)

    classes = {p.name: type(f"Hinted_{p.name}", (HintedPanel,), {"name": p.name, "title": p.title})
               for p in PANELS}
    monkeypatch.setattr(PanelSpec, "load", lambda self: classes[self.name])
    return classes


@pytest.fixture
def hinted_window(hinted_panels, data_dir, relulab_window):
    """relulab.testing's window, built while every panel is the hinted stand-in."""
    return relulab_window


def _shown(panel) -> bool:
    return panel.click_hint.isVisible() and panel.zoom_hint.isVisible()


def test_the_base_panel_has_no_hints(qtbot, theme):
    from relulab.ui.panels.base import Panel

    panel = Panel()
    qtbot.addWidget(panel)
    assert panel.export_hints() == ()


def test_png_and_svg_leave_the_hints_out_and_show_them_again(hinted_window, tmp_path):
    panel = hinted_window.current_panel()
    QApplication.processEvents()
    assert _shown(panel) and panel.click_hint.painted > 0  # on screen, it is drawn
    plot_size = panel.plot.size()
    panel.click_hint.painted = 0
    hinted_window.export_current("png", tmp_path / "p.png", 2)
    assert panel.click_hint.painted == 0
    [svg] = hinted_window.export_current("svg", tmp_path / "p.svg")
    assert "click one" not in svg.read_text() and panel.click_hint.painted == 0
    assert _shown(panel)
    assert panel.plot.size() == plot_size  # nothing moved while the label was hidden
    assert not panel.zoom_hint.sizePolicy().retainSizeWhenHidden()


def test_the_hints_come_back_when_an_export_fails(hinted_window, tmp_path, monkeypatch):
    """pyqtgraph's exporter failing halfway through drawing: the hints were hidden for
    it, and are shown again."""
    panel = hinted_window.current_panel()
    seen = []

    def fail(*_args, **_kwargs):
        seen.append(_shown(panel) or panel.zoom_hint.isVisible())
        raise RuntimeError("the exporter failed")

    monkeypatch.setattr(pg.exporters.ImageExporter, "export", fail)
    monkeypatch.setattr(pg.exporters.SVGExporter, "export", fail)
    for kind in ("png", "svg"):
        with pytest.raises(RuntimeError):
            hinted_window.export_current(kind, tmp_path / f"p.{kind}")
        assert _shown(panel), kind
    assert seen == [False, False]


@pytest.mark.skipif(not export.gif_available(), reason="Pillow is not installed")
def test_an_animation_is_recorded_without_the_hints(hinted_window, tmp_path):
    panel = hinted_window.current_panel()
    seen = []
    original = panel.animation_frames

    def frames(max_frames=120):
        for frame in original(max_frames):
            seen.append(_shown(panel) or panel.zoom_hint.isVisible())
            yield frame

    panel.animation_frames = frames
    hinted_window.export_current("gif", tmp_path / "a.gif")
    assert seen and not any(seen)
    assert _shown(panel)
