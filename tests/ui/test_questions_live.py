"""The Questions panel stays live while its experiments run: what keeps each pass of the
event loop short, asserted on data (never on timing)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from relulab.ui.panels.questions import QuestionsPanel


@pytest.fixture
def panel(shown_panel, qtbot):
    p = shown_panel(QuestionsPanel)
    for worker in p._workers.values():  # the default sweep, started on creation, is not wanted
        worker.cancel()
    return p


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values: Linux")
def test_the_experiments_run_at_the_gui_thread_s_priority(panel):
    """Jobs that hold the GIL most of their time: a lowered thread holding it is
    preempted on a busy machine while the GUI thread waits for the GIL."""
    worker = panel._workers["tickets"]
    got = []
    worker.finished.disconnect()
    worker.finished.connect(got.append)
    worker.submit(lambda should_stop: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    assert worker.wait(10)
    assert got == [os.getpriority(os.PRIO_PROCESS, threading.get_native_id())]
