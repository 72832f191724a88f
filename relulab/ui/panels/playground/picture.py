"""When the map's picture of a network is made: at once for a small network, else on
the panel's picture worker (``jobs.picture_job``), paced while training.

A picture asked for while one is in the making waits for it, and then as long again:
the worker draws at most half the time, so it neither drops every picture (a request
per frame would) nor takes a core from the training steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import numpy as np
from PySide6.QtCore import QObject, QTimer

from relulab.model.networks.mlp import MLP
from relulab.ui.panels.playground.jobs import MapPicture, map_picture, picture_is_quick, picture_job
from relulab.ui.worker import Worker


class PicturePacer:
    """Makes pictures for ``show`` (called on the GUI thread with each
    :class:`~relulab.ui.panels.playground.jobs.MapPicture`), in the colours
    ``palette()`` gives when the picture is made."""

    def __init__(self, worker: Worker, parent: QObject, box, show: Callable[[MapPicture], None],
                 palette: Callable[[], np.ndarray]):
        self.worker, self.box, self.show, self.palette = worker, box, show, palette
        self.waiting: tuple | None = None  # asked for while the worker was busy
        self.discrete = False  # the output's map rounded to the predicted class
        self.features = None   # the first layer's inputs, when not the point itself
        self.regress = False   # the output is a prediction of real targets
        self.names = None      # the inputs' names in a neuron's sentence (x₁, x₂ when None)
        self.started = 0.0
        self.rest = QTimer(parent)  # the worker's rest between pictures while training
        self.rest.setSingleShot(True)
        worker.finished.connect(show)
        worker.idle.connect(self._done)
        self.rest.timeout.connect(self._next)

    def draw(self, net: MLP, neuron: tuple[int, int] | None, playing: bool) -> None:
        """The picture of ``net`` (of its hidden neuron ``neuron``, or its output)."""
        self.waiting = None
        if picture_is_quick(net):
            self.worker.cancel()
            self.show(map_picture(net, neuron, self.box, palette=self.palette(),
                                  discrete=self.discrete, features=self.features,
                                  regress=self.regress, names=self.names))
        elif playing and (self.worker.busy or self.rest.isActive()):
            self.waiting = (net, neuron)
        else:
            self._submit(net, neuron)

    def stop(self) -> None:
        self.rest.stop()

    def _submit(self, net: MLP, neuron) -> None:
        self.started = time.perf_counter()
        self.worker.submit(partial(picture_job, net, neuron, self.box, self.palette(),
                                   discrete=self.discrete, features=self.features,
                                   regress=self.regress, names=self.names))

    def _done(self) -> None:
        if self.waiting is not None:
            took = time.perf_counter() - self.started
            self.rest.start(int(1000 * took))

    def _next(self) -> None:
        if self.waiting is not None:
            net, neuron = self.waiting
            self.waiting = None
            self._submit(net, neuron)
