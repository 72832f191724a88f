"""Driving ReLU Lab from tests and scripts: a pytest plugin and the helpers it uses.

Install with ``pip install 'relulab[testing]'`` and load the plugin explicitly::

    pytest -p relulab.testing            # or addopts = ["-p", "relulab.testing"]

Fixtures (see :mod:`relulab.testing.plugin`): ``relulab_window`` (the main window),
``relulab_panel`` (one panel alone), ``relulab_theme``, and ``relulab_isolation``
(automatic: settings and data in a temporary folder, modal dialogs refused).

Helpers, usable from scripts too (they need no pytest):

* mouse, in data coordinates ``(x, y)`` or viewport pixels (``QPointF``):
  :func:`drag`, :func:`click`, :func:`double_click`, :func:`move`, :func:`press`,
  :func:`release`, :func:`data_to_viewport`, :func:`viewport_to_data`;
* waits: :func:`finished` (a panel's ``finished(work)`` signal), :func:`waiting_for`
  (any signal), :func:`wait_until` (a condition);
* :class:`ModalDialogRefused` and :func:`refuse_modal_dialogs`.

docs/automation.md documents all of it, with one example per panel.
"""

from __future__ import annotations

import importlib
import importlib.util

_HELPERS = {
    "drag": "mouse", "click": "mouse", "double_click": "mouse", "move": "mouse",
    "press": "mouse", "release": "mouse", "data_to_viewport": "mouse",
    "viewport_to_data": "mouse", "view_box": "mouse", "LEFT": "mouse", "RIGHT": "mouse",
    "finished": "waits", "waiting_for": "waits", "wait_until": "waits",
    "SignalTimeout": "waits",
}
_DIALOGS = ("ModalDialogRefused", "refuse_modal_dialogs")

__all__ = sorted(_HELPERS) + list(_DIALOGS) + ["mouse", "waits"]


def __getattr__(name: str):
    # Imported on first use: loading the plugin must not import Qt before the test
    # run has chosen its platform (and the model's tests run without Qt at all).
    if name in _HELPERS:
        return getattr(importlib.import_module(f"relulab.testing.{_HELPERS[name]}"), name)
    if name in _DIALOGS:
        return getattr(importlib.import_module("relulab.ui.dialogs"), name)
    if name in ("mouse", "waits", "plugin"):
        return importlib.import_module(f"relulab.testing.{name}")
    raise AttributeError(f"module 'relulab.testing' has no attribute {name!r}")


if importlib.util.find_spec("pytest") is not None:  # scripts use the helpers without pytest
    # the plugin's hook and fixtures, where ``-p relulab.testing`` makes pytest look
    from relulab.testing.plugin import (
        pytest_configure as pytest_configure,
    )
    from relulab.testing.plugin import (
        relulab_isolation as relulab_isolation,
    )
    from relulab.testing.plugin import (
        relulab_no_lasting_freeze as relulab_no_lasting_freeze,
    )
    from relulab.testing.plugin import (
        relulab_panel as relulab_panel,
    )
    from relulab.testing.plugin import (
        relulab_theme as relulab_theme,
    )
    from relulab.testing.plugin import (
        relulab_window as relulab_window,
    )
