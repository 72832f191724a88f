"""What the Deep → shallow panel's workers run, called directly without any widget: the
conversion of a whole network and of a slice, checked against the model."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.lessons.converter import default_slice
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import count_linear_regions, regions_in_box
from relulab.model.regions.slices import ParsedPoint, random_points, slice_state
from relulab.model.shallow.construction import convert, corollary_terms
from relulab.ui.panels.converter import jobs

ROOT = Path(__file__).resolve().parents[2]


def _sliced(net, cut, **kw):
    """The view ``compute_sliced`` yields first, and the result it returns."""
    work = jobs.compute_sliced(net, cut, **kw)
    view = next(work)
    with pytest.raises(StopIteration) as stop:
        next(work)
    return view, stop.value.value


def _line(net, seed=0):
    P = random_points(net.n_in, "line", seed, scale=2.0)
    return slice_state("line", [ParsedPoint(x, n) for x, n in zip(P, "AB")], "random", seed=seed)


def test_jobs_import_no_qt():
    code = ("import sys, relulab.ui.panels.converter.jobs\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('PySide6', 'pyqtgraph', 'shiboken6')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_1d_network_is_converted_with_its_curves_and_kinks():
    net = MLP.random([1, 6, 6, 1], seed=3)
    res = jobs.compute(net)
    conv = res.conversion
    assert res.verification.ok() and res.slice_view is None and res.polygons == []
    kinks = conv.one_d.kinks
    assert len(kinks) > 0 and np.isin(kinks, res.curve_x).all()  # every kink is drawn
    x = res.curve_x[:, None]
    assert np.allclose(res.deep_y, net(x)[:, 0], atol=1e-12)
    assert np.allclose(res.shallow_y, convert(net).shallow(x)[:, 0], atol=1e-12)
    rows = res.kink_rows
    assert rows.shape == (len(kinks), 5) and list(rows[:, 0]) == list(range(1, len(kinks) + 1))
    assert np.array_equal(rows[:, 1], kinks)
    assert np.allclose(rows[:, 2], net(kinks[:, None])[:, 0], atol=1e-12)
    assert rows[:, 4].max() < 1e-9  # |deep − shallow| at each kink


def test_a_2d_network_has_its_regions_in_the_box():
    net = MLP.random([2, 5, 5, 1], seed=1)
    res = jobs.compute(net)
    conv = res.conversion
    assert res.verification.ok() and res.curve_x is None
    assert len(res.polygons) == len(regions_in_box(conv.regions, jobs.DRAW_BOX)) > 5
    assert res.lower_dimensional == sum(not r.is_full_dimensional() for r in conv.regions)
    for poly in res.polygons[:10]:
        inside = net.activation_patterns(poly.centroid()[None, :])[0]
        assert np.array_equal(inside, poly.pattern)


def test_a_3d_network_is_converted_without_a_map():
    res = jobs.compute(MLP.random([3, 4, 4, 2], seed=2))
    assert res.verification.ok() and res.polygons == [] and res.conversion.p > 1


def test_a_stop_request_ends_the_conversion():
    with pytest.raises(Cancelled):
        jobs.compute(MLP.random([2, 8, 8, 1], seed=0), should_stop=lambda: True)


def test_a_line_slice_is_drawn_then_converted():
    net = MLP.random([12, 8, 8, 3], seed=4)
    cut = _line(net)
    view, res = _sliced(net, cut)
    r = view.restricted
    t = np.linspace(*view.box, 7)[:, None]
    assert np.allclose(r(t), net(cut.slice().to_input(t)), atol=1e-9)
    assert len(view.curves) == 3 and view.polygons == []
    for (x, y), o in zip(view.curves, range(3)):  # each output, exact along the line
        assert np.allclose(y, r(x[:, None])[:, o], atol=1e-9)
    assert list(view.winners) == list(np.argmax(net(cut.slice().points), axis=1))
    assert res.slice_view is view and res.problem is None and res.verification.ok()
    assert res.deep_y.shape == res.shallow_y.shape == (len(res.curve_x), 3)
    assert np.allclose(res.deep_y, r(res.curve_x[:, None]), atol=1e-12)
    assert np.abs(res.deep_y - res.shallow_y).max() < 1e-9


def test_a_plane_slice_has_the_exact_regions_and_paths_made_by_the_given_makers():
    net = MLP.random([10, 6, 6, 1], seed=5)
    cut = default_slice(net)
    made = []

    def polygons(polys):
        made.append(len(polys))
        return ("path", len(polys))

    paths = jobs.PathMakers(polygons, lambda ends: ("segments", len(ends)))
    view, res = _sliced(net, cut, paths=paths)
    assert len(view.polygons) == count_linear_regions(view.restricted, view.box) > 5
    # one path per colour, and one of every outline
    by_colour = [sum(p.index % jobs.SLICE_COLOURS == k for p in view.polygons)
                 for k, _ in view.region_paths]
    assert [path for _, path in view.region_paths] == [("path", n) for n in by_colour]
    assert sum(by_colour) == len(view.polygons) and view.edges == ("path", len(view.polygons))
    assert view.decisions is None and view.raster is None  # one output: no classes
    assert res.verification.ok() and res.conversion.n_in == 2
    assert res.lower_dimensional == sum(not g.is_full_dimensional() for g in res.conversion.regions)
    # without makers the view has its polygons and no paths
    bare, _ = _sliced(net, cut)
    assert len(bare.polygons) == len(view.polygons) and bare.region_paths == [] and bare.edges is None


def test_many_regions_are_painted_into_a_picture_with_the_palette(monkeypatch):
    monkeypatch.setattr(jobs, "VECTOR_REGIONS", 3)
    net = MLP.random([10, 6, 6, 3], seed=6)
    pal = jobs.Palette(tuple((10 * k, 0, 0, 120) for k in range(jobs.SLICE_COLOURS)),
                       tuple((0, 50 * k, 0, 160) for k in range(3)), pixels=64)
    view = jobs.compute_slice(net, default_slice(net), palette=pal,
                              paths=jobs.PathMakers(list, list))
    assert len(view.polygons) > 3 and view.raster.shape == (64, 64, 4)
    assert view.region_paths == [] and view.class_paths == []  # a picture instead of paths
    assert view.decisions is not None and view.class_labels  # each class still named
    assert {k for k, _, _, _ in view.class_labels} <= {p.label for p in view.decisions.pieces}


def test_a_shallow_network_too_large_to_build_is_said_with_its_sizes(monkeypatch):
    monkeypatch.setattr(jobs, "MAX_SLICE_SHALLOW_PARAMETERS", 10)
    net = MLP.random([10, 6, 6, 2], seed=7)
    view, res = _sliced(net, default_slice(net))
    assert res.conversion is None and res.slice_view is view
    assert "parameters" in res.problem and "more than the 10 built here" in res.problem
    widths, p, k = res.terms
    assert p == count_linear_regions(view.restricted) and widths == corollary_terms(2, k, p, 2)


def test_the_example_and_its_rows_are_read():
    net = jobs.example_network()
    assert net.sizes == [64, 32, 32, 10]
    rows = jobs.read_rows(f"example:{jobs.EXAMPLE}")
    assert rows.n_inputs == 64 and rows.n_rows == 1797
    assert list(np.argmax(net(rows.X[list(jobs.EXAMPLE_ROWS)]), axis=1)) == [0, 1, 7]
    with pytest.raises(ValueError, match="no example called"):
        jobs.read_rows("example:cats")
