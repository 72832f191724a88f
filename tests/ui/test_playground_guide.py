"""The Playground's guide: plain text a learner reads as written (no LaTeX source in
any guide), and every number it quotes about the app's own results computed again
from the model for the setting it names."""

import re
from importlib.resources import files

import pytest

import relulab
from relulab.model.fitting.classify import Trainer
from relulab.model.lessons.playground import Architecture, PlaygroundState

GUIDES = sorted(p.name for p in (files(relulab) / "resources" / "guides").iterdir()
                if p.name.endswith(".md"))
#: What LaTeX source looks like where a Markdown viewer shows it raw: sub- and
#: superscript braces, commands, dollar-delimited maths, a letter's underscore subscript.
LATEX = (r"_\{", r"\^\{", r"\\[A-Za-z]+", r"\$", r"[A-Za-z0-9]_[A-Za-z0-9]")


def _guide(name: str) -> str:
    return (files(relulab) / "resources" / "guides" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", GUIDES)
def test_no_guide_shows_latex_source(name):
    text = _guide(name)
    found = [m.group(0) for pattern in LATEX for m in re.finditer(pattern, text)]
    assert not found, f"{name}: {found}"


# -- the numbers it quotes ----------------------------------------------------------------

def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in text.split("-"))


def _parameters(count: str, sizes: str) -> None:
    """"**177** for 2-8-8-8-1": the architecture's parameter count."""
    s = _sizes(sizes)
    arch = Architecture(hidden=s[1:-1], outputs=s[-1])
    assert tuple(arch.sizes) == s and arch.n_params == int(count)


def _first_run(sizes: str, points: str, steps: str) -> None:
    """"a 2-6-1 network learns the circles, all 126 training points right within 70
    steps": the panel's start (Space trains it as it opens) gets every training point
    right at a step in (0.8·steps, steps], so that the number stays close, not only true."""
    state = PlaygroundState()
    assert state.dataset.name == "circles" and tuple(state.architecture.sizes) == _sizes(sizes)
    (X, y), (Xt, yt) = state.training_points(), state.points.held_out()
    assert len(y) == int(points)
    trainer = Trainer(state.network, X, y, Xt, yt, state.training.config())
    first = next((k for k in range(1, int(steps) + 1)
                  if trainer.advance(1).train_accuracy == 1.0), None)
    assert first is not None and first > 0.8 * int(steps), first


def _lesson(sizes: str, rate: str, steps: str, accuracy: str) -> None:
    """"circles, 2-6-1, gradient descent at 0.5 for 2000 steps reaches accuracy 1.0 on
    the training points": Circles lesson set-up from the Data seed the panel opens with."""
    state = PlaygroundState()
    lesson = state.lesson(state.dataset.seed)
    t = lesson.training
    assert lesson.dataset.name == "circles" and tuple(lesson.architecture.sizes) == _sizes(sizes)
    assert (t.optimizer, t.learning_rate, t.max_steps) == ("gd", float(rate), int(steps))
    (X, y), (Xt, yt) = lesson.training_points(), lesson.points.held_out()
    snap = Trainer(lesson.network, X, y, Xt, yt, t.config()).advance(int(steps))
    assert snap.step == int(steps) and snap.train_accuracy == float(accuracy)


SIZES = r"(\d+(?:-\d+)+)"
#: Each sentence of the guide that quotes the app's results, and what checks it.
QUOTED = {
    rf"\*\*(\d+)\*\* for {SIZES}": _parameters,
    rf"a {SIZES} network learns the circles, all (\d+) training points right within (\d+) steps":
        _first_run,
    rf"circles, {SIZES}, gradient descent at ([\d.]+) for (\d+) steps reaches accuracy ([\d.]+) "
    r"on the training points": _lesson,
}
#: Numbers that are no result: the list's item numbers and the formula's "+ 1".
NOT_RESULTS = (r"(?:^|\s)[1-9]\. (?=\S)", r"\(nₗ₋₁ \+ 1\)", r"\bL[12]\b")  # the penalties' names


def test_every_number_the_playground_guide_quotes_is_the_models():
    """Each quoted sentence is found and checked against the model; a number outside
    them fails, so that a new one cannot come in unchecked."""
    text = " ".join(_guide("playground.md").split())
    for pattern, check in QUOTED.items():
        found = list(re.finditer(pattern, text))
        assert found, f"the guide no longer says {pattern!r}: update QUOTED"
        for m in found:
            check(*m.groups())
        text = re.sub(pattern, " ", text)
    for pattern in NOT_RESULTS:
        text = re.sub(pattern, " ", text)
    unchecked = re.findall(r"\d[\d.,]*", text)
    assert not unchecked, f"numbers in the guide that no check covers: {unchecked}"
