"""Deep → shallow with networks of many inputs: the slice bar, the plane and line views,
the shipped digits example, a torch-exported ONNX file through the panel, undo, scene
state and every bad point shown next to the controls."""

from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest

from relulab.io.networks import load_network, save_network
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import count_linear_regions
from relulab.ui.panels.converter import ConverterPanel
from relulab.ui.panels.converter.jobs import EXAMPLE_ROWS

ROOT = Path(__file__).resolve().parents[2]
TORCH_ONNX = ROOT / "tests" / "fixtures" / "digits-torch.onnx"
ROWS = ROOT / "relulab" / "resources" / "examples" / "digits-rows.npz"


def _wait(qtbot, panel):
    assert panel.wait_until_idle(60)


@pytest.fixture
def panel(qtbot, theme):
    p = ConverterPanel()
    qtbot.addWidget(p)
    p.resize(1366, 740)
    p.show()
    _wait(qtbot, p)
    yield p
    p.shutdown()


def _texts(panel):
    return [it.toPlainText() for it in panel.slice_drawing.items if isinstance(it, pg.TextItem)]


def test_small_networks_are_not_sliced(panel):
    assert not panel.state.sliced and not panel.slice_bar.isVisible()


def test_the_example_opens_on_the_plane_through_three_pictures(qtbot, panel):
    panel.source_box.setCurrentIndex(panel.source_box.findData("example"))
    panel.source_box.activated.emit(panel.source_box.currentIndex())
    _wait(qtbot, panel)
    s = panel.state
    assert s.source == "example" and s.sliced and s.slice.kind == "plane"
    assert s.slice.rows == EXAMPLE_ROWS and s.slice.data == "example:digits"
    assert panel.net.sizes == [64, 32, 32, 10] and panel.slice_bar.isVisible()
    view = panel.slice_view
    # the exact regions in the box: the drawn polygons are the engine's count
    assert len(view.polygons) == count_linear_regions(view.restricted, view.box) > 100
    # decision regions of ten classes, and the network's class at each picture
    assert view.decisions is not None and view.decisions.classes == 10
    assert list(view.winners) == [0, 1, 7]
    assert {p.label for p in view.decisions.pieces} >= {0, 1, 7}
    images = [it for it in panel.slice_drawing.items if isinstance(it, pg.ImageItem)]
    assert len(images) == 3 and images[0].image.shape == (8, 8)
    texts = _texts(panel)
    for name, row in zip("ABC", EXAMPLE_ROWS):
        assert any(t.startswith(f"{name}: row {row}\nlabel {row}") for t in texts)
    assert any("→ class 7" in t for t in texts)
    # each picture sits at its point: distances on the map are distances between pictures
    rows = panel.rows.X[list(EXAMPLE_ROWS)]
    c = view.cut.coords
    assert np.linalg.norm(c[1] - c[2]) == pytest.approx(np.linalg.norm(rows[1] - rows[2]), rel=1e-12)
    # the shallow network of ten outputs is too large to build here: said, with its sizes
    assert "not built here" in panel.verdict.text() and "parameters" in panel.verdict.text()
    assert "Corollary 1" in panel.sizes_label.text()
    assert "digits-rows.npz: 1,797 rows of 64" in panel.slice_bar.data_label.text()
    assert "Exact" in panel.slice_bar.info.text() and "rounded" in panel.slice_bar.info.text()
    assert set(panel.data_tables()) >= {"slice points", "regions in the box"}
    panel.undo_stack.undo()
    _wait(qtbot, panel)
    assert not panel.state.sliced and panel.net.sizes == [2, 8, 8, 1]


def test_rows_kind_and_undo(qtbot, panel):
    assert panel.open_example()
    _wait(qtbot, panel)
    bar = panel.slice_bar
    bar.row_spins[2].setValue(42)            # C: row 42, one undo step
    _wait(qtbot, panel)
    assert panel.state.slice.rows == (0, 1, 42)
    assert np.array_equal(panel.state.slice.points[2], panel.rows.X[42])
    panel.undo_stack.undo()
    _wait(qtbot, panel)
    assert panel.state.slice.rows == EXAMPLE_ROWS and bar.row_spins[2].value() == 7
    # a line through A and B: the exact kinks of every output
    bar.kind_box.setCurrentIndex(bar.kind_box.findData("line"))
    bar.kind_box.activated.emit(bar.kind_box.currentIndex())
    _wait(qtbot, panel)
    s = panel.state.slice
    assert s.kind == "line" and s.rows == (0, 1)
    view = panel.slice_view
    assert len(view.curves) == 10 and len(view.pieces.kinks) > 10
    # the line is converted (1-D, finite weights) and checked
    assert panel.verdict.text().startswith("Equal up to rounding")
    assert panel.kink_table.model().rowCount() == len(panel.result.conversion.one_d.kinks)
    assert list(panel.plots()) == ["functions", "difference"]
    # the same row twice is refused, nothing changes
    before = panel.state
    assert not panel.set_slice_rows((3, 3))
    assert panel.state is before and "same point" in panel.message.text()


def test_typed_and_random_slices(qtbot, panel):
    assert panel.open_example()
    _wait(qtbot, panel)
    assert panel.set_slice_points("zeros; 5; e10")
    _wait(qtbot, panel)
    s = panel.state.slice
    assert s.mode == "typed" and s.kind == "plane" and s.rows == (None, 5, None)
    assert np.array_equal(s.points[1], panel.rows.X[5]) and s.points[2][10] == 1.0
    count = panel.undo_stack.count()
    for bad, needle in (("zeros; e0", None), ("zeros; e0; e0", "same point"),
                        ("zeros; e64; e1", "inputs 0 to 63"), ("1,2; 0; 1", "2 number"),
                        ("zeros; e1; nan", "not a"), ("one point", "2 points")):
        before = panel.state
        ok = panel.set_slice_points(bad)
        if needle is None:  # two points: a line
            assert ok
            _wait(qtbot, panel)
            assert panel.state.slice.kind == "line"
            panel.undo_stack.undo()
            _wait(qtbot, panel)
            continue
        assert not ok and panel.state is before and needle in panel.message.text()
    assert panel.undo_stack.count() == count + 1  # the line, then its undo: one step left
    assert panel.set_slice_seed(3)
    _wait(qtbot, panel)
    s = panel.state.slice
    assert s.mode == "random" and s.seed == 3
    # a random plane through the data's mean, with orthonormal directions of the data's size
    assert np.allclose(s.points[0], panel.rows.X.mean(axis=0))


def test_a_torch_onnx_file_round_trips_through_the_panel(qtbot, panel, tmp_path):
    assert panel.load_file(TORCH_ONNX)
    _wait(qtbot, panel)
    assert panel.state.sliced and panel.net.sizes == [64, 32, 32, 10]
    assert "64 inputs: shown on a slice" in panel.message.text()
    panel.load_points(ROWS)
    _wait(qtbot, panel)
    s = panel.state.slice
    assert s.mode == "rows" and s.rows == (0, 1, 2)
    assert panel.export_sliced(tmp_path / "plane.onnx")
    plane = load_network(tmp_path / "plane.onnx")
    t = np.random.default_rng(1).normal(size=(50, 2)) * 20
    cut = s.slice()
    assert np.allclose(plane(t), panel.net(cut.to_input(t)), rtol=1e-12, atol=1e-9)
    # its line converts, and the shallow network of the line is exported as ONNX
    panel._on_slice_kind("line")
    _wait(qtbot, panel)
    assert panel.export_shallow(tmp_path / "shallow.onnx")
    shallow = load_network(tmp_path / "shallow.onnx")
    x = np.linspace(-50, 120, 400)[:, None]
    line = panel.state.slice.slice().restrict(panel.net)
    assert np.allclose(shallow(x), line(x), rtol=1e-9, atol=1e-9)
    # the points file must fit the network
    (tmp_path / "three.csv").write_text("1,2,3\n4,5,6\n7,8,10\n")
    before = panel.state
    panel.load_points(tmp_path / "three.csv")
    _wait(qtbot, panel)
    assert panel.state is before
    assert "rows of 3 numbers; the network has 64 inputs" in panel.message.text()
    panel.load_points(tmp_path / "missing.csv")
    _wait(qtbot, panel)
    assert panel.state is before and "no such file" in panel.message.text()


def test_one_output_plane_is_converted_and_exported(qtbot, panel, tmp_path):
    panel.arch_edit.setText("20-8-8-1")
    panel._on_architecture()
    _wait(qtbot, panel)
    s = panel.state
    assert s.sliced and s.slice.mode == "random"
    res = panel.result
    assert res.conversion is not None and panel.verdict.text().startswith("Equal")
    assert res.conversion.n_in == 2 and res.slice_view.decisions is None
    assert panel.export_shallow(tmp_path / "shallow.json")
    shallow = load_network(tmp_path / "shallow.json")
    r = res.slice_view.restricted
    X = np.random.default_rng(0).normal(size=(300, 2)) * 5
    assert np.allclose(shallow(X), r(X), atol=1e-9)
    # click a region: its pattern and affine map in the slice's coordinates
    x, y = res.slice_view.polygons[0].vertices.mean(axis=0)
    idx = panel.select_region_at(x, y)
    assert idx == 0 and "pattern" in panel.region_info.text() and "t1" in panel.region_info.text()
    assert panel.slice_drawing.selected is not None
    panel.step_region(1)
    assert panel.selected_region == 1


def test_scene_state_round_trips_the_slice(qtbot, panel):
    assert panel.open_example()
    _wait(qtbot, panel)
    panel.set_slice_rows((3, 4, 5))
    _wait(qtbot, panel)
    d = panel.state_dict()
    other = ConverterPanel()
    qtbot.addWidget(other)
    try:
        other.load_state(d)
        _wait(qtbot, other)
        assert other.state.slice == panel.state.slice
        assert len(other.slice_view.polygons) == len(panel.slice_view.polygons)
        # the points file of the example is read again for the row spin boxes
        assert other.slice_bar.row_spins[2].value() == 5 and other.rows is not None
        bad = dict(d, slice=dict(d["slice"], points=d["slice"]["points"][:2]))
        with pytest.raises(ValueError, match=r"slice\.points"):
            other.load_state(bad)
        assert other.state.slice == panel.state.slice
    finally:
        other.shutdown()


def test_a_network_file_with_many_inputs_keeps_a_fitting_slice(qtbot, panel, tmp_path):
    net = MLP.random([64, 6, 3], seed=5)
    save_network(net, tmp_path / "n.json")
    assert panel.open_example()
    _wait(qtbot, panel)
    cut = panel.state.slice
    assert panel.load_file(tmp_path / "n.json")
    _wait(qtbot, panel)
    assert panel.state.slice == cut  # the same plane through the same pictures
    assert panel.slice_view.restricted.sizes == [2, 6, 3]


@pytest.mark.parametrize("zoom", [1.0, 1.6])
def test_the_points_labels_do_not_cover_each_other(qtbot, panel, theme, zoom):
    """A and B lie on one horizontal line (the plane's first axis runs through them):
    their labels, centred under the points, stay apart on a laptop and a projector."""
    from PySide6.QtWidgets import QApplication

    theme.set_zoom(zoom)
    panel.resize(1280, 720)
    assert panel.open_example()
    _wait(qtbot, panel)
    QApplication.processEvents()
    labels = [it for it in panel.slice_drawing.items
              if isinstance(it, pg.TextItem) and "row" in it.toPlainText()]
    assert len(labels) == 3
    rects = [it.mapRectToScene(it.boundingRect()) for it in labels]
    for i in range(3):
        for j in range(i + 1, 3):
            common = rects[i].intersected(rects[j])
            assert common.width() <= 1 or common.height() <= 1, (
                labels[i].toPlainText(), labels[j].toPlainText())
