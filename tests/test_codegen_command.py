"""``relulab export-code``: writes the script or notebook of a scene's panel; refuses
in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files

import pytest

from relulab.app import main

CIRCLES = files("relulab.resources") / "lectures" / "09-circles.relulab.json"


def test_writes_a_script_that_runs(tmp_path, capsys):
    out = tmp_path / "circles.py"
    assert main(["export-code", str(CIRCLES), str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    done = subprocess.run([sys.executable, "-I", str(out)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "train_accuracy = 1.0" in done.stdout


def test_writes_a_notebook_for_the_panel_asked(tmp_path):
    out = tmp_path / "circles.ipynb"
    assert main(["export-code", str(CIRCLES), str(out), "--panel", "playground"]) == 0
    nb = json.loads(out.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4 and any(c["cell_type"] == "code" for c in nb["cells"])


@pytest.mark.parametrize(("args", "code", "says"), [
    (["--panel", "hinges"], 1, "the scene has no hinges panel"),
    (["--panel"], 2, "expected one argument"),
])
def test_refusals_are_one_line(tmp_path, capsys, args, code, says):
    out = tmp_path / "x.py"
    assert main(["export-code", str(CIRCLES), str(out), *args]) == code
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and err.startswith("relulab export-code: ")
    assert not out.exists()


def test_refuses_another_suffix_and_a_missing_scene(tmp_path, capsys):
    assert main(["export-code", str(CIRCLES), str(tmp_path / "x.txt")]) == 2
    assert main(["export-code", str(tmp_path / "none.relulab.json"), str(tmp_path / "x.py")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and ".py or .ipynb" in err[0]


def test_torch_writes_the_pytorch_version(tmp_path):
    out = tmp_path / "circles_torch.py"
    assert main(["export-code", str(CIRCLES), str(out), "--torch"]) == 0
    text = out.read_text(encoding="utf-8")
    compile(text, str(out), "exec")
    assert "import torch" in text and "torch.optim.SGD" in text


def test_a_scene_of_several_panels_without_a_current_one_asks_which(tmp_path, capsys):
    from relulab.io.scenes import Scene, write_scene
    from relulab.model.lessons.folding import FoldingState
    from relulab.model.lessons.hinges import HingesState

    scene = tmp_path / "two.relulab.json"
    write_scene(scene, Scene(panels={"hinges": HingesState().to_dict(),
                                     "folding": FoldingState().to_dict()}))
    assert main(["export-code", str(scene), str(tmp_path / "x.py")]) == 1
    assert "the scene has hinges, folding: say which with --panel" in capsys.readouterr().err
    assert main(["export-code", str(scene), str(tmp_path / "f.ipynb"), "--panel", "folding"]) == 0
    assert "Folding" in (tmp_path / "f.ipynb").read_text(encoding="utf-8")
