"""The Questions panel exported as a script: run in a fresh interpreter, it prints the
page's verdict and the numbers the panel's ``readouts()`` adds for the page (``dd_*``,
``over_*``, ``lazy_*``: the plain values of the jobs' ``*_numbers``), bit for bit; the
notebook validates and its cells print the same; a page the exporter does not know is
refused in one line. Part 2's pages: tests/test_codegen_questions_part2.py."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from relulab.io.codegen import CodeExportError, code_for, notebook_for, script_for
from relulab.io.codegen.questions import module_code
from relulab.model.lessons import questions as lesson
from relulab.model.lessons.questions import QuestionsState
from relulab.model.questions import double_descent
from relulab.ui.panels.questions import jobs

#: page -> (its job, its numbers, its verdict and details, the readouts' prefix)
PAGES = {
    "double-descent": (jobs.run_double_descent, jobs.dd_numbers, jobs.dd_verdict,
                       jobs.dd_details, "dd"),
    "overparametrisation": (jobs.run_overparametrisation, jobs.over_numbers, jobs.over_verdict,
                            jobs.over_details, "over"),
    "infinite-width": (jobs.run_infinite_width, jobs.lazy_numbers, jobs.lazy_verdict,
                       jobs.lazy_details, "lazy"),
}
SETTINGS = {"double-descent": "double_descent", "overparametrisation": "overparametrisation",
            "infinite-width": "infinite_width"}


def run_script(text: str, tmp_path) -> str:
    path = tmp_path / "questions.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def readouts(stdout: str, prefix: str) -> dict:
    out = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition(" = ")
        if sep and key.startswith(prefix + "_") and " " not in key:
            out[key] = float(value) if value in ("nan", "inf", "-inf") else ast.literal_eval(value)
    return out


def the_panels(state: QuestionsState) -> tuple[dict, str]:
    """What the panel's ``readouts()`` holds for ``state``'s page once its run is done
    (the settings' labels, the verdict's one word, the details, the numbers' plain
    values), and the verdict's sentence."""
    job, numbers, verdict, details, prefix = PAGES[state.page]
    settings = getattr(state, SETTINGS[state.page])
    steps = job(settings)
    try:
        while True:
            next(steps)
    except StopIteration as stop:
        run = stop.value
    values = ({"dd_n_label": settings.n, "dd_noise_label": settings.noise} if prefix == "dd"
              else {})
    word = numbers(run)["regime" if prefix == "dd" else "verdict"]
    values.update({f"{prefix}_verdict": word, f"{prefix}_details": details(run)})
    values.update({f"{prefix}_{k}": v for k, v in numbers(run).items()
                   if isinstance(v, (int, float, str))})
    return values, verdict(run)


CASES = [
    QuestionsState(),  # the double-descent page as it opens: d = 20, n = 100, ten seeds
    QuestionsState(double_descent=lesson.DoubleDescentSettings(
        d=5, n=25, noise=1.0, ridge=1e-3, tuned_ridge=True, second_scale=True, seeds=3,
        lottery_ratio=4)),
    # Ten seeds of six widths and a 128-unit net take a while: three seeds, 32 units.
    QuestionsState(page="overparametrisation",
                   overparametrisation=lesson.OverparametrisationSettings(seeds=3, prune_width=32)),
    QuestionsState(page="infinite-width"),  # three seeds, as it opens
]


@pytest.mark.parametrize("state", CASES, ids=["double-descent", "oracle-ridge-second-scale",
                                              "overparametrisation", "infinite-width"])
def test_the_script_prints_the_panels_readouts(tmp_path, state):
    stdout = run_script(script_for("questions", state.to_dict()), tmp_path)
    values, sentence = the_panels(state)
    prefix = PAGES[state.page][-1]
    assert readouts(stdout, prefix) == values  # to the last bit
    assert stdout.splitlines()[1] == values[f"{prefix}_details"]  # the sentences first
    assert stdout.splitlines()[0] == sentence


def test_the_notebook_validates_and_its_cells_print_the_same(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    state = CASES[1]
    text = notebook_for("questions", state.to_dict())
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[1].cell_type == "markdown" and nb.cells[1].source.startswith("# Questions")
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
    assert readouts(done.stdout, "dd") == the_panels(state)[0]


def test_the_model_is_copied_without_its_relulab_imports():
    code = module_code(double_descent)
    assert "relulab" not in code and "def double_descent(" in code
    assert not code.startswith('"""')


def test_a_page_the_exporter_does_not_know_is_refused_in_one_line(tmp_path, monkeypatch):
    # Every page exports today (tests/test_codegen_questions_part2.py); one added to the
    # panel before the exporter knows it is named, with those the exporter can write.
    monkeypatch.setattr(lesson, "PAGES", (*lesson.PAGES, "next-question"))
    for suffix in (".py", ".ipynb"):
        with pytest.raises(CodeExportError, match="next-question page cannot be exported") as e:
            code_for("questions", {"page": "next-question"}, suffix)
        assert "\n" not in str(e.value)
        assert ", ".join(lesson.PAGES[:-1]) in str(e.value)


@pytest.mark.parametrize("page", ["double-descent", "overparametrisation"])
def test_the_script_prints_what_the_panel_reads_out(relulab_panel, tmp_path, page):
    """The panel itself, run to its end: its readouts of the page are the script's."""
    from PySide6.QtWidgets import QApplication

    from relulab.ui.panels.questions import QuestionsPanel

    state = QuestionsState(page=page, double_descent=CASES[1].double_descent,
                           overparametrisation=CASES[2].overparametrisation)
    panel = relulab_panel(QuestionsPanel)
    panel.load_state(state.to_dict())
    assert panel.wait_until_idle(120)
    QApplication.processEvents()
    prefix = PAGES[page][-1]
    shown = {k: v for k, v in panel.readouts().items() if k.startswith(prefix + "_")}
    stdout = run_script(script_for("questions", panel.state.to_dict()), tmp_path)
    assert readouts(stdout, prefix) == shown
