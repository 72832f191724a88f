"""Many regions are drawn as a picture painted off the GUI thread with numpy: each pixel
shows the region (and the class) that holds its centre, as the exact polygons say."""

import numpy as np

from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import region_polygons
from relulab.model.regions.decisions import decision_regions
from relulab.model.regions.slices import random_points, slice_through
from relulab.ui.panels.converter.jobs import Palette, SliceView, raster_labels, rasterize


def _slice(seed=0, outputs=3):
    net = MLP.random([30, 24, 24, outputs], seed=seed)
    cut = slice_through(random_points(30, "plane", seed, scale=3.0))
    r = cut.restrict(net)
    box = cut.box()
    return net, cut, r, box, region_polygons(r, box)


def test_each_pixel_shows_the_region_of_its_centre():
    _, _, r, box, polys = _slice()
    pixels = 300
    labels = raster_labels([p.vertices for p in polys], box, pixels)
    assert labels.shape == (pixels, pixels) and labels.min() >= 0
    x0, x1, y0, y1 = box
    cx = x0 + (np.arange(pixels) + 0.5) * (x1 - x0) / pixels
    cy = y1 - (np.arange(pixels) + 0.5) * (y1 - y0) / pixels
    X = np.stack(np.meshgrid(cx, cy), axis=-1).reshape(-1, 2)
    patterns = r.activation_patterns(X)
    drawn = np.array([p.pattern for p in polys])[labels.reshape(-1)]
    wrong = np.any(patterns != drawn, axis=1)
    # only pixel centres within rounding of a region's edge may differ
    assert wrong.mean() < 1e-3, wrong.mean()
    assert len(np.unique(labels)) > 0.8 * len(polys)  # the small regions are there too


def test_the_picture_has_the_classes_edges_and_boundary():
    _net, cut, r, box, polys = _slice(outputs=4)
    dec = decision_regions(r, box, regions=polys)
    view = SliceView(cut, r, box, polygons=polys, decisions=dec)
    classes = tuple((40 * k + 10, 20, 30, 200) for k in range(4))
    edge, boundary = (255, 255, 255, 255), (1, 2, 3, 255)
    pixels = 200
    pal = Palette(tuple((0, 0, 0, 100) for _ in range(7)), classes, edge, boundary, 1.0, pixels)
    rgba = rasterize(view, pal, pixels)
    assert rgba.shape == (pixels, pixels, 4) and rgba.dtype == np.uint8
    x0, x1, y0, y1 = box
    cx = x0 + (np.arange(pixels) + 0.5) * (x1 - x0) / pixels
    cy = y1 - (np.arange(pixels) + 0.5) * (y1 - y0) / pixels
    X = np.stack(np.meshgrid(cx, cy), axis=-1).reshape(-1, 2)
    want = np.array(classes, dtype=np.uint8)[np.argmax(r(X), axis=1)].reshape(pixels, pixels, 4)
    is_edge = (rgba == np.array(edge, dtype=np.uint8)).all(axis=2)
    is_boundary = (rgba == np.array(boundary, dtype=np.uint8)).all(axis=2)
    fill = ~is_edge & ~is_boundary
    assert is_edge.any() and is_boundary.any() and fill.mean() > 0.5
    # every filled pixel has the colour of the class the network picks at its centre
    agree = (rgba[fill] == want[fill]).all(axis=1)
    assert agree.mean() > 0.999, agree.mean()
    assert len({tuple(c) for c in rgba[fill][:, :3].tolist()}) >= 2
