"""The Questions pages whose only setting is the seeds share one settings class: each
keeps its name, its default and the exact to_dict/from_dict of before, so that old
scene files load as they did."""

from __future__ import annotations

import dataclasses

import pytest

from relulab.model.lessons.questions import (
    SEEDS_RANGE,
    InfiniteWidthSettings,
    QuestionsState,
    SeedsSettings,
    TargetsSettings,
    TicketsSettings,
)

#: Each seeds-only page's class, its QuestionsState field and its default seeds.
SEEDS_ONLY = [(InfiniteWidthSettings, "infinite_width", 3), (TargetsSettings, "targets", 5),
              (TicketsSettings, "tickets", 3)]

#: The Questions panel's state as a scene file written before the part-2 pages held it
#: (lecture scene 11 as first shipped): the pages it does not name take their defaults.
BEFORE_PART_2 = {"page": "double-descent",
                 "double_descent": {"d": 20, "n": 100, "noise": 0.5, "ridge": 0.0,
                                    "tuned_ridge": False, "second_scale": False, "seeds": 10,
                                    "view": "error", "show_train": True, "lottery_ratio": 1},
                 "overparametrisation": {"seeds": 10, "prune_width": 128},
                 "infinite_width": {"seeds": 3}}


@pytest.mark.parametrize(("cls", "key", "default"), SEEDS_ONLY)
def test_one_class_serves_every_seeds_only_page(cls, key, default):
    assert issubclass(cls, SeedsSettings) and key == cls.KEY
    assert [f.name for f in dataclasses.fields(cls)] == ["seeds"]
    assert cls().seeds == default and cls().to_dict() == {"seeds": default}
    assert getattr(QuestionsState(), key) == cls()
    for n in SEEDS_RANGE:
        s = cls.from_dict({"seeds": n})
        assert type(s) is cls and s.to_dict() == {"seeds": n}
    assert cls.from_dict({}) == cls()
    with pytest.raises(ValueError, match=rf"^{key}\.seeds"):
        cls.from_dict({"seeds": SEEDS_RANGE[1] + 1})
    with pytest.raises(ValueError, match=rf"^{key}: unknown field\(s\) colour"):
        cls.from_dict({"seeds": 4, "colour": "red"})
    with pytest.raises(ValueError, match="seeds must be in"):
        cls(seeds=SEEDS_RANGE[0] - 1)


def test_the_state_names_the_field_of_a_wrong_seeds():
    with pytest.raises(ValueError, match=r"^targets\.seeds"):
        QuestionsState.from_dict({"targets": {"seeds": 99}})


def test_a_scene_from_before_the_part_2_pages_still_loads():
    s = QuestionsState.from_dict(BEFORE_PART_2)
    out = s.to_dict()
    assert {k: out[k] for k in BEFORE_PART_2} == BEFORE_PART_2
    assert (s.targets, s.tickets) == (TargetsSettings(), TicketsSettings())
    assert out["targets"] == {"seeds": 5} and out["tickets"] == {"seeds": 3}
    assert QuestionsState.from_dict(out) == s


def test_every_shipped_scene_round_trips():
    import json
    from importlib.resources import files

    for path in files("relulab.resources").joinpath("lectures").iterdir():
        if not path.name.endswith(".relulab.json"):
            continue
        panels = json.loads(path.read_text(encoding="utf-8"))["panels"]
        if "questions" in panels:
            state = panels["questions"]
            assert QuestionsState.from_dict(state).to_dict() == state, path.name
