"""The Playground's jobs called directly, without a widget or a worker, against the model:
the map's picture, the exact regions in view, the whole plane's count, the depth study
and the affine map under the cursor; and importing them imports no Qt."""

import subprocess
import sys

import numpy as np
import pytest

from relulab.model.core.cancel import Cancelled
from relulab.model.fitting.classify import DEFAULT_BOX, grid_axes
from relulab.model.lessons.playground import DEPTHS, MAX_CLASSES
from relulab.model.networks.collapse import format_affine, local_affine_map
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import linear_regions, region_polygons
from relulab.model.regions.depth import regions_against_depth
from relulab.ui.panels.playground.jobs import (
    affine_map_text,
    depth_samples,
    outline_points,
    picture_job,
    plane_count,
    regions_in_view,
    regions_network,
)


def _grid_values(net: MLP, resolution: int = 200) -> np.ndarray:
    """net(x) at every pixel centre, evaluated point by point through the network's own
    call: (outputs, rows (y), columns (x))."""
    xs, ys = grid_axes(DEFAULT_BOX, resolution)
    gx, gy = np.meshgrid(xs, ys)
    out = net(np.c_[gx.ravel(), gy.ravel()])
    return out.T.reshape(net.n_out, resolution, resolution)


def test_importing_the_jobs_imports_no_qt():
    code = ("import sys, relulab.ui.panels.playground.jobs\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')"
            " or m.startswith('relulab.ui.panels.playground.panel')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_picture_of_one_output_is_its_probability_and_its_zero_line():
    net = MLP.random([2, 6, 6, 1], seed=1)
    palette = np.zeros((MAX_CLASSES + 1, 3), np.float32)
    picture = picture_job(net, None, DEFAULT_BOX, palette, lambda: False)
    z = _grid_values(net)[0]
    assert picture.net is net and picture.neuron is None and picture.levels == (0.0, 1.0)
    assert np.allclose(picture.image.T, 1 / (1 + np.exp(-z)), atol=1e-5)  # [column, row]
    # the boundary's segments end on the network's zero line (to the grid's resolution)
    ends = net(picture.boundary)[:, 0]
    assert len(ends) > 100 and np.abs(ends).max() < 0.01 * np.abs(z).max()


def test_the_picture_of_several_classes_takes_each_pixels_winning_colour():
    net = MLP.random([2, 8, 3], seed=5)
    # background black, class k pure in channel k: the brightest channel names the colour
    palette = np.zeros((MAX_CLASSES + 1, 3), np.float32)
    palette[1:4] = 255 * np.eye(3)
    picture = picture_job(net, None, DEFAULT_BOX, palette, lambda: False)
    assert picture.levels is None and picture.image.dtype == np.uint8
    rgb = np.swapaxes(picture.image, 0, 1).astype(float)  # [row, column, channel]
    winner = np.argmax(_grid_values(net), axis=0)
    coloured = rgb.max(axis=2) > 5  # where the network is surer than chance
    assert coloured.mean() > 0.5
    assert np.array_equal(np.argmax(rgb, axis=2)[coloured], winner[coloured])


def test_the_picture_of_a_hidden_neuron_is_its_activation_on_a_symmetric_scale():
    net = MLP.random([2, 5, 1], seed=1)
    picture = picture_job(net, (1, 2), DEFAULT_BOX, None, lambda: False)
    xs, ys = grid_axes(DEFAULT_BOX, 200)
    gx, gy = np.meshgrid(xs, ys)
    W, b = net.layers[0]
    pre = np.c_[gx.ravel(), gy.ravel()] @ W[2] + b[2]
    values = np.maximum(pre, 0).reshape(200, 200)
    assert np.allclose(picture.image.T, values, atol=1e-5)
    m = picture.levels[1]
    assert picture.levels == (-m, m) and np.isclose(m, values.max(), rtol=1e-5)
    assert picture.text.startswith("Layer 1, neuron 3: ReLU(")


def test_the_regions_in_view_are_the_models_with_their_outline():
    net = MLP.random([2, 6, 6, 1], seed=2)
    found = regions_in_view(net, 7, DEFAULT_BOX, lambda: False)
    expected = region_polygons(net, DEFAULT_BOX)
    assert found.net is net and found.step == 7
    assert len(found.decisions.regions) == len(expected) > 1
    x, y = found.outline
    assert np.isnan(x).sum() == len(expected)  # one loop each, NaN between
    loops = np.split(np.c_[x, y], np.flatnonzero(np.isnan(x)) + 1)[:-1]
    for loop, polygon in zip(loops, found.decisions.regions):
        vertices = np.asarray(polygon.vertices, float)
        assert np.array_equal(loop[:-2], vertices) and np.array_equal(loop[-2], vertices[0])
    assert outline_points([]) == (pytest.approx(np.zeros(0)), pytest.approx(np.zeros(0)))


def test_a_region_job_stops_when_asked():
    net = MLP.random([2, 8, 8, 1], seed=0)
    with pytest.raises(Cancelled):
        regions_in_view(net, 0, DEFAULT_BOX, lambda: True)
    with pytest.raises(Cancelled):
        plane_count(net, lambda: True)


def test_the_whole_planes_count_is_of_the_network_as_built():
    # the identity layer's 2 × 2 map is a bijection of the plane: the regions are those
    # of the ReLU layers on its output, counted with no merge at all
    net = MLP.random([2, 2, 4, 1], seed=6, activation=["identity", "relu"])
    counted = plane_count(net, lambda: False)
    assert counted.net is net
    assert counted.count == len(linear_regions(MLP(net.layers[1:], "relu"))) > 1
    whole = MLP.random([2, 5, 4, 1], seed=6, activation=["relu", "relu"])
    assert plane_count(whole).count == len(linear_regions(whole))


def test_only_relu_and_identity_networks_have_regions_drawn():
    relu = MLP.random([2, 4, 1], seed=0)
    assert regions_network(relu).sizes == [2, 4, 1]
    assert regions_network(MLP(relu.layers, "tanh")) is None
    assert regions_network(MLP(relu.layers, "identity")) is None  # no hidden layer left
    mixed = MLP.random([2, 3, 4, 1], seed=0, activation=["identity", "relu"])
    assert regions_network(mixed).sizes == [2, 6, 4, 1]  # W₂W₁ is not a double: ReLU pairs
    exact = MLP([(np.eye(2), np.zeros(2)), *relu.layers], ["identity", "relu"])
    assert regions_network(exact).sizes == [2, 4, 1]  # W₂·I is: merged


def test_the_depth_study_yields_the_models_samples():
    samples = list(depth_samples(40, 2, DEFAULT_BOX, lambda: False))
    assert samples == list(regions_against_depth(40, DEPTHS, range(2), DEFAULT_BOX))
    assert len(samples) == 2 * len(DEPTHS) and {s.depth for s in samples} == set(DEPTHS)
    for s in samples:
        net = MLP.random(list(s.sizes), seed=s.seed + 1000 * s.depth)
        assert s.regions == len(region_polygons(net, DEFAULT_BOX))


def test_the_affine_map_under_the_cursor():
    net = MLP.random([2, 4, 4, 1], seed=9)
    point = (0.3, -0.4)
    A, c, exact = local_affine_map(net, np.array(point))
    text = affine_map_text(net, point, None)
    assert exact and text == (f"At (0.3, -0.4), the output on the region here: "
                              f"z = {format_affine(A[0], float(c[0]))}.")
    A, c, _ = local_affine_map(net, np.array(point), 2, 1)
    assert affine_map_text(net, point, (2, 1)).endswith(
        f"layer 2, neuron 2's pre-activation on the region here: z = {format_affine(A[0], float(c[0]))}.")
    smooth = MLP(net.layers, "tanh")
    assert "its tangent here" in affine_map_text(smooth, point, None)
    scores = affine_map_text(MLP.random([2, 4, 3], seed=0), point, None)
    assert "the class scores" in scores and scores.count("s") >= 3
