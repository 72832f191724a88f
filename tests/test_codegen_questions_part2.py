"""The Questions panel's part-2 pages exported as scripts: run in a fresh interpreter
(numpy only, no relulab import), each prints what the panel's ``readouts()`` holds for
the page after its run (``<short>_*``: the verdict's word, the details, the numbers'
plain values and what the page shows of its settings), for the same settings and seeds;
the lottery tickets print a line per seed; the notebook's cells print the same; every
page of the panel exports."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import numpy as np
import pytest

from relulab.io.codegen import code_for, notebook_for, script_for
from relulab.io.codegen.questions import cephes
from relulab.model.lessons import questions as lesson
from relulab.model.lessons.questions import QuestionsState
from relulab.ui.panels.questions.jobs.simplex import maps
from relulab.ui.panels.questions.pages import registered
from tests.test_codegen_questions import readouts, run_script

#: What an exported script may import: the standard library's few and numpy.
ALLOWED = {"math", "collections.abc", "dataclasses", "fractions", "functools", "itertools",
           "types", "typing", "numpy", "numpy.typing"}

#: Small settings (few seeds, parity of 2 bits), each page's run a few seconds; settings
#: that only change what the page shows (the logits, the depth, the scale) off their
#: defaults, so that the script is seen to take them.
CASES = {
    "parity": QuestionsState(page="parity", parity=lesson.ParitySettings(k=2, seeds=3)),
    "simplex": QuestionsState(page="simplex", simplex=lesson.SimplexSettings(
        logits=(2.0, -1.5, 0.25), seed=1)),
    "why-deep": QuestionsState(page="why-deep", why_deep=lesson.WhyDeepSettings(m=5, seeds=3)),
    "gelu": QuestionsState(page="gelu", gelu=lesson.GeluSettings(scale=10, seeds=3)),
    "targets": QuestionsState(page="targets", targets=lesson.TargetsSettings(seeds=3)),
    "tickets": QuestionsState(page="tickets", tickets=lesson.TicketsSettings(seeds=3)),
}


#: What a page shows of its settings without the job, a readout the script prints too.
SHOWN = {"simplex": "simplex_maps", "why-deep": "deep_square", "gelu": "gelu_twin"}


def imported(text: str) -> set[str]:
    """The modules the script imports."""
    out = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add(node.module or "")
    return out


def panel_readouts(relulab_panel, state: QuestionsState) -> tuple[dict, object]:
    """The panel run to its end on ``state``'s page: what its ``readouts()`` holds for
    the page (its short form's keys), and the panel."""
    from PySide6.QtWidgets import QApplication

    from relulab.ui.panels.questions import QuestionsPanel
    from relulab.ui.worker import Worker

    panel = relulab_panel(QuestionsPanel)
    for worker in panel.findChildren(Worker):  # the page it opens on (double descent) waits
        worker.cancel()
    panel.load_state(state.to_dict())
    assert panel.wait_until_idle(120)
    QApplication.processEvents()
    short = registered()[state.page].short
    shown = {k: v for k, v in panel.readouts().items() if k.startswith(short + "_")}
    assert shown[f"{short}_verdict"] is not None  # the run is done and drawn
    return shown, panel


@pytest.mark.parametrize("page", list(CASES))
def test_the_script_prints_what_the_panel_reads_out(relulab_panel, tmp_path, page):
    shown, panel = panel_readouts(relulab_panel, CASES[page])
    text = script_for("questions", panel.state.to_dict())
    assert imported(text) <= ALLOWED
    stdout = run_script(text, tmp_path)
    short = registered()[page].short
    assert readouts(stdout, short) == shown  # to the last bit
    if page in SHOWN:
        assert SHOWN[page] in shown
    # the sentences first (after the tickets' line a seed), as the page shows them
    lines = stdout.splitlines()
    view = panel.views[page]
    progress = [f"seed {i} of 3 trained" for i in (1, 2, 3)] if page == "tickets" else []
    assert lines[:len(progress) + 2] == [*progress, view.verdict.text(), view.details.value]


def test_the_notebook_validates_and_its_cells_print_the_same(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    state = CASES["simplex"]  # every part-2 page's notebook is made from its sections alike
    text = notebook_for("questions", state.to_dict())
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    titles = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"]
    assert titles[-4:] == ["### Data", "### Model", "### The page's numbers", "### Run"]
    path = tmp_path / "experiment.ipynb"
    path.write_text(text, encoding="utf-8")
    cells = ("import json, sys\n"
             "cells = json.load(open(sys.argv[1], encoding='utf-8'))['cells']\n"
             "namespace = {'__name__': '__main__'}\n"
             "for cell in cells:\n"
             "    if cell['cell_type'] == 'code':\n"
             "        exec(''.join(cell['source']), namespace)\n")
    done = subprocess.run([sys.executable, "-I", "-c", cells, str(path)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == run_script(script_for("questions", state.to_dict()), tmp_path)
    zeros = maps(state.simplex.logits)["zeros"]  # z = (2, −1.5, 0.25): sparsemax (1, 0, 0)
    assert readouts(done.stdout, "simplex")["simplex_maps"] == zeros == 2
    assert json.loads(text)["nbformat"] == 4


@pytest.mark.parametrize("page", lesson.PAGES)
def test_every_page_of_the_panel_exports(page):
    state = {"page": page}
    script = code_for("questions", state, ".py")
    compile(script, f"{page}.py", "exec")
    assert imported(script) <= ALLOWED
    assert "relulab" not in "\n".join(sorted(imported(script)))
    nb = json.loads(code_for("questions", state, ".ipynb"))
    code = "".join("".join(c["source"]) + "\n" for c in nb["cells"] if c["cell_type"] == "code")
    compile(code, f"{page}.ipynb", "exec")


def test_the_scripts_erf_is_scipys_bit_for_bit():
    """The GELU nets' training carries a last-bit difference of erf into the errors the
    page states: the script's erf (copied from cephes) must be scipy's exactly."""
    erf = pytest.importorskip("scipy.special").erf
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, scale, 200_000) for scale in (0.3, 1, 3, 10, 100)]
                       + [np.array([0.0, -0.0, 1.0, -1.0, 8.0, -8.0, 26.6, -27.0, 1e300,
                                    -np.inf, np.inf, 5e-324])])
    assert np.array_equal(cephes.erf(x), erf(x))
    assert np.array_equal(np.signbit(cephes.erf(x)), np.signbit(erf(x)))
