"""What ``relulab convert`` and ``relulab slice`` say while they work: nothing that moves
off a terminal (plain lines, and none at all for a quick job), moving lines on one, and
"first run" only when the region engine really compiles."""

import io
import re

import pytest

from relulab.commands import _progress, convert
from relulab.commands._progress import Progress, duration
from relulab.io.networks import save_network
from relulab.model.core import compiled
from relulab.model.networks.mlp import MLP


def _run(capsys, fn, *argv):
    code = fn([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_quick_job_off_a_terminal_says_nothing(tmp_path, capsys):
    save_network(MLP.random([2, 4, 4, 1], seed=0), tmp_path / "d.json")
    code, out, err = _run(capsys, convert.main, tmp_path / "d.json", tmp_path / "s.json")
    assert code == 0 and out == "" and err == ""


def test_a_long_job_off_a_terminal_says_each_stage_in_a_plain_line(tmp_path, capsys, monkeypatch):
    """A job expected to take PLAIN_SECONDS or more (every job, here) announces what it
    builds and each stage, one plain line each: no escape codes, no carriage returns."""
    monkeypatch.setattr(_progress, "PLAIN_SECONDS", 0.0)
    save_network(MLP.random([2, 4, 4, 1], seed=0), tmp_path / "d.json")
    code, out, err = _run(capsys, convert.main, tmp_path / "d.json", tmp_path / "s.json")
    assert code == 0 and out == ""
    lines = err.splitlines()
    assert "\x1b" not in err and "\r" not in err
    assert all(line.startswith("relulab convert: ") for line in lines)
    said = [line.removeprefix("relulab convert: ") for line in lines]
    assert re.fullmatch(r"shallow network: 3 hidden layers of widths [\d,]+, [\d,]+, [\d,]+, "
                        r"[\d,]+ parameters; s\.json of about [\d.]+ kB; .+", said[0]), said
    assert said[1].startswith("building the shallow network")
    assert said[2].startswith("checking deep = shallow at ") and said[2].endswith("points…")
    assert said[3] == "writing s.json…"
    assert re.fullmatch(r"wrote .*s\.json \([\d.]+ kB\) in [\d.]+ s", said[4]), said


def test_a_terminal_gets_moving_lines_that_are_wiped():
    stream = io.StringIO()
    with Progress("convert", stream=stream, terminal=True) as progress:
        with progress.stage("listing the activation regions", expected=30.0):
            pass
        with progress.stage("looking for activation regions", total=4) as stage:
            stage.advance(2)
        progress.say("wrote x.npz")
    text = stream.getvalue()
    assert "relulab convert: wrote x.npz" in text
    assert "listing the activation regions" in text and "of about 30 s" in text
    assert "looking for activation regions" in text and "\x1b[2K" in text  # erased in place


def test_without_rich_a_terminal_gets_plain_lines(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_rich(name, *args, **kwargs):
        if name.startswith("rich"):
            raise ImportError("no rich here")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_rich)
    stream = io.StringIO()
    with Progress("slice", stream=stream, terminal=True) as progress, \
            progress.stage("writing s.npz", expected=200.0):
        pass
    assert stream.getvalue() == "relulab slice: writing s.npz (about 3 min)…\n"


@pytest.mark.parametrize(("seconds", "words"), [(0.2, "under a second"), (4.4, "about 4 s"),
                                                (23, "about 20 s"), (200, "about 3 min"),
                                                (7200, "about 2 h")])
def test_durations_in_words(seconds, words):
    assert duration(seconds) == words


# -- "first run" only when the engine compiles --------------------------------------
def test_the_compile_notice_fires_on_a_cache_miss_only(monkeypatch):
    heard = []
    compiled_here = []
    for hit in (True, False):
        monkeypatch.setattr(compiled, "load_cached", lambda entry, signatures, hit=hit: hit)
        with compiled.compile_notice(heard.append):
            how = compiled.make_ready(object(), [()], "regions-2d", False,
                                      lambda: compiled_here.append(True))
        assert how == (compiled.LOADED if hit else compiled.HERE)
    assert heard == ["regions-2d"] and compiled_here == [True]
    # outside the block nobody listens
    monkeypatch.setattr(compiled, "load_cached", lambda entry, signatures: False)
    compiled.make_ready(object(), [()], "regions-2d", False, lambda: None)
    assert heard == ["regions-2d"]


@pytest.mark.parametrize("hit", [True, False])
def test_the_command_says_first_run_only_when_it_compiles(monkeypatch, hit):
    """However long a load from the disk cache takes (a busy machine), it is not called
    a first run; a compilation is, once, and nothing says "loaded" after it."""
    from relulab.model.regions import arrangement

    monkeypatch.setattr(arrangement, "engine_ready", lambda n_in=None: False)
    monkeypatch.setattr(compiled, "load_cached", lambda entry, signatures: hit)

    def warm_up(n_in=None):
        for _ in range(2):  # two entry points made ready: still one line
            compiled.make_ready(object(), [()], "regions-2d", False, lambda: None)

    monkeypatch.setattr(arrangement, "warm_up", warm_up)
    stream = io.StringIO()
    with Progress("convert", stream=stream, terminal=False) as progress:
        convert.prepare_engine(2, progress)
    expected = "" if hit else f"relulab convert: {convert.FIRST_RUN}\n"
    assert stream.getvalue() == expected
