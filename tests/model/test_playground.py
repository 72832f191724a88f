"""The Playground's state: round trips, old files, hostile files, edits."""

import copy
import json
import math
from importlib.resources import files

import numpy as np
import pytest

from relulab.model.fitting.classify import Trainer
from relulab.model.lessons.playground import (
    HISTORY_LIMIT,
    MAX_HIDDEN_LAYERS,
    MAX_POINTS,
    MAX_WIDTH,
    Architecture,
    History,
    PlaygroundState,
    Points,
)
from relulab.model.networks.mlp import MLP


def state_dict(**parts):
    d = PlaygroundState().to_dict()
    for k, v in parts.items():
        d[k] = v
    return d


def test_round_trip_through_json():
    s = PlaygroundState().with_hidden((4, 3)).with_training(step=12, max_steps=50)
    s = s.with_progress(s.network, 12, History().recording([10, 12], [[0.7, math.nan, 0.5, math.nan]] * 2))
    text = json.dumps(s.to_dict())  # NaN for the empty test set, as Python's json writes it
    back = PlaygroundState.from_dict(json.loads(text))
    assert back == s and back.to_dict().keys() == s.to_dict().keys()
    assert back != s.with_training(step=13)


def test_the_built_in_lecture_scenes_still_load():
    """Files written before the speed control: steps_per_tick was the size of a Step."""
    for name in ("06-linear-collapse", "09-circles"):
        path = files("relulab") / "resources" / "lectures" / f"{name}.relulab.json"
        d = json.loads(path.read_text())["panels"]["playground"]
        s = PlaygroundState.from_dict(d)
        assert s.training.steps_per_press == d["training"].get("steps_per_tick", s.training.steps_per_press)
    old = state_dict()
    old["training"] = {k: v for k, v in old["training"].items() if k not in ("speed", "steps_per_press")}
    old["training"]["steps_per_tick"] = 37
    s = PlaygroundState.from_dict(old)
    assert s.training.steps_per_press == 37 and s.training.speed == PlaygroundState().training.speed


def test_a_huge_architecture_is_refused_before_anything_large_is_read():
    """10,000 hidden layers: refused by counting them, before the network (here a value
    that would fail differently if it were read) or the points are looked at."""
    d = state_dict(architecture={"hidden": [8] * 10_000, "activation": "relu", "init_seed": 0},
                   network="not read")
    with pytest.raises(ValueError, match=rf"architecture\.hidden: at most {MAX_HIDDEN_LAYERS}"):
        PlaygroundState.from_dict(d)
    for hidden, where in (([MAX_WIDTH + 1], r"hidden\[0\]"), ([4, 0], r"hidden\[1\]"),
                          ([True], r"hidden\[0\]"), (["8"], r"hidden\[0\]"), ("8", "hidden")):
        with pytest.raises(ValueError, match=where):
            PlaygroundState.from_dict(state_dict(architecture={"hidden": hidden, "activation": "relu",
                                                               "init_seed": 0}))


def test_too_many_points_are_refused_by_their_count():
    x = ["not read"] * (MAX_POINTS + 1)
    with pytest.raises(ValueError, match=rf"points\.x: at most {MAX_POINTS:,} points"):
        PlaygroundState.from_dict(state_dict(points={"x": x, "label": [], "test": []}))


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d["points"]["x"][0].__setitem__(0, float("nan")), r"points\.x\[0\]\[0\]: nan"),
    (lambda d: d["points"]["x"][0].__setitem__(0, "1"), r"points\.x\[0\]\[0\]"),
    (lambda d: d["points"]["x"].__setitem__(0, [1.0]), r"points\.x"),
    (lambda d: d["points"]["label"].__setitem__(3, 2.0), r"points\.label\[3\]"),
    (lambda d: d["points"]["test"].__setitem__(0, "yes"), r"points\.test\[0\]"),
    (lambda d: d["points"]["test"].pop(), "test flags"),
    (lambda d: d["network"]["layers"][0].__setitem__("weights", [[1.0, 2.0]]),
     r"network\.layers\[0\]\.weights"),
    (lambda d: d["network"]["layers"][1]["biases"].__setitem__(0, float("inf")),
     r"network\.layers\[1\]\.biases"),
    (lambda d: d["network"]["layers"][0]["weights"][0].__setitem__(1, 1e13),
     r"network\.layers\[0\]\.weights"),
    (lambda d: d["network"]["layers"].pop(), "do not match the architecture"),
    (lambda d: d["network"].__setitem__("activation", "tanh"), r"network\.activation"),
    (lambda d: d["architecture"].__setitem__("activation", "swish"), r"architecture\.activation"),
    (lambda d: d["training"].__setitem__("learning_rate", 0), r"training\.learning_rate"),
    (lambda d: d["training"].__setitem__("steps_per_press", 0), r"training\.steps_per_press"),
    (lambda d: d["training"].__setitem__("speed", "warp"), r"training\.speed"),
    (lambda d: d["training"].__setitem__("batch_size", MAX_POINTS + 1), r"training\.batch_size"),
    (lambda d: d["training"].__setitem__("step", -1), r"training\.step"),
    (lambda d: d["history"].__setitem__("step", [1.0]), "same length"),
    (lambda d: d["history"].__setitem__("train_loss", ["a"]), r"history\.train_loss\[0\]"),
    (lambda d: d["history"].__setitem__("step", [0.0] * (HISTORY_LIMIT + 1)), r"history\.step"),
    (lambda d: d["view"].__setitem__("neuron", [1, 6]), r"view\.neuron"),
    (lambda d: d["view"].__setitem__("neuron", "1,2"), r"view\.neuron"),
    (lambda d: d["view"].__setitem__("click_class", 2), r"view\.click_class"),
    (lambda d: d["view"].__setitem__("show_regions", 1), r"view\.show_regions"),
    (lambda d: d["dataset"].__setitem__("noise", float("nan")), r"dataset\.noise"),
    (lambda d: d["dataset"].__setitem__("seed", 10 ** 400), r"dataset\.seed"),
    (lambda d: d["depth"].__setitem__("samples", [[1, [2, 3, 1], 13, 0, 5, 9]]), r"depth\.samples\[0\]"),
    (lambda d: d["depth"].__setitem__("samples", [[1, [2, 3, 1], 99, 0, 5]]), r"depth\.samples\[0\]"),
    (lambda d: d["depth"].__setitem__("budget", 5), r"depth\.budget"),
    (lambda d: d.__setitem__("surprise", 1), "surprise"),
    (lambda d: d.pop("network"), "network"),
])
def test_hostile_fields_are_named(mutate, field):
    d = copy.deepcopy(state_dict())
    mutate(d)
    with pytest.raises(ValueError, match=field):
        PlaygroundState.from_dict(d)


def test_the_largest_allowed_state_trains_and_pictures():
    """What from_dict accepts can be trained and drawn: 4000 points, 6 layers of 32."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-1e6, 1e6, (MAX_POINTS, 2))
    s = PlaygroundState().with_points(Points(x, (x[:, 0] > 0).astype(float), np.zeros(MAX_POINTS, bool)))
    s = s.with_hidden((MAX_WIDTH,) * MAX_HIDDEN_LAYERS).with_activation("gelu")
    back = PlaygroundState.from_dict(json.loads(json.dumps(s.to_dict())))
    assert back == s
    (X, y), (Xt, yt) = back.points.train(), back.points.held_out()
    t = Trainer(back.network, X, y, Xt, yt, back.training.config())
    assert (t.run(2) in (1, 2) and np.isfinite(t.snapshot().train_loss)) or t.diverged


def test_edits_make_new_states():
    s = PlaygroundState()
    assert len(s.points) == 180 and s.points.test.sum() == 54
    more = s.with_points(s.points.adding(0.5, 0.5, 1))
    assert len(more.points) == 181 and more.points.label[-1] == 1 and len(s.points) == 180
    assert more.with_points(more.points.removing(180)).points == s.points
    with pytest.raises(ValueError):  # read-only: a state is a value
        s.points.x[0, 0] = 3.0
    deep = s.with_view(neuron=(1, 5)).with_hidden((3, 3))
    assert deep.network.sizes == [2, 3, 3, 1] and deep.training.step == 0 and deep.view.neuron is None
    tanh = deep.with_activation("tanh")
    assert tanh.network.activation == "tanh"
    assert np.array_equal(tanh.network.layers[0][0], deep.network.layers[0][0])
    assert s.regenerated().dataset.seed == 1 and s.regenerated().points != s.points
    assert s.with_data(s.dataset.switched_to("xor")).dataset.noise == 0.05
    lesson = s.lesson(0)
    assert (lesson.training.optimizer, lesson.training.learning_rate, lesson.training.max_steps) == (
        "gd", 0.5, 2000)
    kept = lesson.keeping_settings_of(s.with_view(show_regions=False))
    assert kept.training.learning_rate == s.training.learning_rate and not kept.view.show_regions
    assert lesson.keeping_settings_of(s, training=False).training.learning_rate == 0.5


def test_networks_from_elsewhere_must_fit():
    s = PlaygroundState()
    assert s.with_network(MLP.random([2, 5, 4, 1], seed=3)).architecture.hidden == (5, 4)
    for sizes in ([3, 4, 1], [2, 4, 7]):
        with pytest.raises(ValueError, match="2 inputs and 1 to 6 outputs"):
            s.with_network(MLP.random(sizes))
    # a network taking other features, as a file records them: those inputs, one each
    squares = s.with_network(MLP.random([3, 4, 1], seed=1), ("x1^2", "x2^2", "x1*x2"))
    assert squares.architecture.features == ("x1^2", "x2^2", "x1*x2")
    with pytest.raises(ValueError, match=r"needs 3 inputs \(x1\^2, x2\^2, x1\*x2\)"):
        s.with_network(MLP.random([2, 4, 1]), ("x1^2", "x2^2", "x1*x2"))
    three = s.with_network(MLP.random([2, 4, 3], seed=1))
    assert three.classes == 3 and three.architecture.outputs == 3
    six = s.with_points(s.points.adding(0.1, 0.1, 5))
    with pytest.raises(ValueError, match="tells 3 classes apart; the points have 6"):
        six.with_network(MLP.random([2, 4, 3]))
    for sizes in ([2] + [4] * (MAX_HIDDEN_LAYERS + 1) + [1], [2, MAX_WIDTH + 1, 1]):
        with pytest.raises(ValueError, match=r"architecture.hidden"):
            s.with_network(MLP.random(sizes))
    with pytest.raises(ValueError, match="finite"):
        s.with_network(MLP([([[np.inf, 0.0]], [0.0])]))
    with pytest.raises(ValueError, match="weight of 1e"):
        s.with_network(MLP([([[1e300, 0.0]], [0.0])]))


def test_history_is_thinned_but_keeps_its_ends():
    h = History()
    for step in range(1, HISTORY_LIMIT + 2):
        h = h.recording([step], [[1.0 / step, math.nan, 0.5, math.nan]])
    assert len(h) <= HISTORY_LIMIT and h.step[0] == 1
    assert np.all(np.diff(h.step) > 0)


def test_architecture_counts_parameters():
    assert Architecture((8, 8, 8)).n_params == 177
    assert Architecture((2,)).random_network().to_dict()["layers"][0]["weights"].__len__() == 2


def test_what_the_panel_holds_it_can_read_back():
    """Points and weights the panel takes from a CSV file or another panel are within
    what a scene file may hold, so a saved state always loads again."""
    from relulab.model.lessons.playground import MAX_COORDINATE

    with pytest.raises(ValueError, match=r"points.x"):
        Points([[MAX_COORDINATE * 10, 0.0]], [0.0], [False])
    edge = Points([[MAX_COORDINATE, -MAX_COORDINATE]], [1.0], [False])
    s = PlaygroundState().with_points(edge).with_network(
        MLP([([[1e12, -1e12]], [1e12])], "relu"))
    assert PlaygroundState.from_dict(json.loads(json.dumps(s.to_dict()))) == s


# -- classes, an activation per layer, replay, random labels, the hidden space ------------

def test_the_new_parts_round_trip_and_old_files_read_as_before():
    from dataclasses import replace

    s = PlaygroundState()
    s = s.with_data(replace(s.dataset.switched_to("spirals"), classes=4, random_labels=True))
    s = s.with_hidden((5, 4, 3)).with_layer_activation(2, "tanh").with_layer_activation(3, "identity")
    trained = Trainer(s.network, *s.training_points(), config=s.training.config()).advance(30).net
    s = s.with_progress(trained, 30, History())
    s = s.with_view(thumbnails=True, hidden_space=(2, 3, 1), click_class=3)
    d = json.loads(json.dumps(s.to_dict()))
    assert d["architecture"]["activation"] == ["relu", "tanh", "identity"]
    assert d["network"]["activation"] == ["relu", "tanh", "identity"] and d["architecture"]["outputs"] == 4
    back = PlaygroundState.from_dict(d)
    assert back == s and back.network.activations == ("relu", "tanh", "identity")
    assert same(back.initial, s.initial) and not same(back.initial, back.network)
    # a file written before: no classes, outputs, initial, thumbnails or hidden space
    old = PlaygroundState().to_dict()
    for part, keys in (("dataset", ("classes", "expression", "random_labels")),
                       ("architecture", ("outputs",)), ("view", ("thumbnails", "hidden_space"))):
        for k in keys:
            del old[part][k]
    del old["initial"]
    read = PlaygroundState.from_dict(old)
    assert read == PlaygroundState() and same(read.initial, read.network)


def same(a, b):
    from relulab.model.lessons.playground import same_network

    return same_network(a, b)


@pytest.mark.parametrize(("part", "change", "message"), [
    ("dataset", {"classes": 7}, r"dataset\.classes: 7 is outside 2…6"),
    ("dataset", {"classes": 3}, "architecture.outputs: 1 output"),
    ("dataset", {"expression": "x +"}, r"dataset\.expression: the expression ends too early"),
    ("dataset", {"expression": "x" * 600}, "longer than 500"),
    ("dataset", {"random_labels": "yes"}, "expected true or false"),
    ("architecture", {"activation": ["relu", "tanh"]}, "2 names for 1 hidden layers"),
    ("architecture", {"activation": ["swish"]}, r"activation\[0\]: expected one of"),
    ("architecture", {"outputs": 9}, "outside 1…6"),
    ("view", {"click_class": 1.5}, "whole number"),
    ("view", {"hidden_space": [1, 0, 0]}, "no two neurons 1 and 1"),
    ("view", {"hidden_space": [1, 0]}, r"expected \[layer, neuron, neuron\]"),
    ("view", {"thumbnails": 1}, "expected true or false"),
])
def test_bad_new_fields_are_named(part, change, message):
    d = PlaygroundState().to_dict()
    d[part] = {**d[part], **change}
    with pytest.raises(ValueError, match=message):
        PlaygroundState.from_dict(d)


def test_labels_beyond_the_classes_and_initial_weights_that_do_not_fit_are_refused():
    d = PlaygroundState().to_dict()
    d["points"]["label"][5] = 3.0
    with pytest.raises(ValueError, match=r"points.label\[5\]: 3 is not a class of 2-class data"):
        PlaygroundState.from_dict(d)
    d = PlaygroundState().to_dict()
    d["initial"] = MLP.random([2, 3, 1]).to_dict()
    with pytest.raises(ValueError, match=r"initial: 2 layers do not match|initial.layers"):
        PlaygroundState.from_dict(d)


def test_classes_follow_the_data_and_the_network_gets_an_output_each():
    from dataclasses import replace

    s = PlaygroundState().with_view(click_class=1)
    three = s.with_classes(3)
    assert three.architecture.sizes == [2, 6, 3] and three.points.classes_needed == 3
    assert three.training.step == 0 and same(three.initial, three.network)
    back = three.with_classes(2)
    assert back.architecture.outputs == 1 and same(back.network, PlaygroundState().network)
    with pytest.raises(ValueError, match="XOR dataset has two classes"):
        s.with_data(s.dataset.switched_to("xor")).with_classes(3)
    # switching to a two-class dataset takes two classes; the class a click adds follows
    five = s.with_classes(5).with_view(click_class=4)
    xor = five.with_data(five.dataset.switched_to("xor"))
    assert xor.classes == 2 and xor.view.click_class == 1 and xor.architecture.outputs == 1
    # a point of a new class adds a class
    more = s.with_points(s.points.adding(0.0, 0.0, 4))
    assert more.classes == 5 and more.architecture.outputs == 5
    corners = s.with_data(s.dataset.switched_to("xor_corners"))
    assert len(corners.points) == 4 and not corners.points.test.any()
    boundary = s.with_data(replace(s.dataset.switched_to("boundary"), expression="x/2", noise=0.0))
    x = boundary.points.x
    assert np.array_equal(boundary.points.label, (x[:, 1] > x[:, 0] / 2) * 1.0)


def test_replay_goes_back_to_the_weights_the_run_started_from():
    s = PlaygroundState().with_hidden((5,))
    start = s.network
    trained = Trainer(start, *s.points.train(), config=s.training.config()).advance(40)
    s = s.with_progress(trained.net, 40, History().recording([40], [[0.1, 0.2, 0.9, 0.8]]))
    s = s.with_training(learning_rate=0.2)
    again = s.replayed()
    assert same(again.network, start) and again.training.step == 0 and not len(again.history)
    assert again.training.learning_rate == 0.2  # the settings to compare stay
    # a network from elsewhere starts a run of its own
    other = MLP.random([2, 3, 1], seed=9)
    assert same(s.with_network(other).replayed().network, other)
    # another activation keeps the weights: the run starts from them
    tanh = s.with_activation("tanh")
    assert same(tanh.replayed().network, tanh.network)


def test_random_labels_shuffle_the_training_labels_only():
    s = PlaygroundState()
    shuffled = s.with_random_labels(True)
    X, y = shuffled.training_points()
    X0, y0 = s.points.train()
    assert np.array_equal(X, X0) and not np.array_equal(y, y0)
    assert np.array_equal(np.bincount(y.astype(int)), np.bincount(y0.astype(int)))
    assert np.array_equal(shuffled.training_points()[1], y)  # the same shuffle every time
    assert shuffled.points == s.points  # the points keep their labels; test points too
    assert np.array_equal(shuffled.with_random_labels(False).training_points()[1], y0)


def test_the_hidden_space_choice_follows_the_architecture():
    from relulab.model.lessons.playground import hidden_space_choice

    s = PlaygroundState().with_hidden((4, 2))
    assert hidden_space_choice(s.view, s.architecture) == (2, 0, 1)  # the bottleneck
    s = s.with_view(hidden_space=(1, 3, 2))
    assert hidden_space_choice(s.view, s.architecture) == (1, 3, 2)
    narrower = s.with_hidden((3, 2))
    assert narrower.view.hidden_space is None  # neuron 4 is gone
    assert hidden_space_choice(PlaygroundState().with_hidden((1,)).view,
                               Architecture(hidden=(1,))) is None


# -- the networks in their one dict form ----------------------------------------------

def _older_form(net: MLP) -> dict:
    """A network as the Playground wrote it before the one dict form."""
    activation = net.activation if isinstance(net.activation, str) else list(net.activation)
    return {"activation": activation,
            "layers": [{"W": W.tolist(), "b": b.tolist()} for W, b in net.layers]}


def test_the_state_keeps_its_networks_in_the_one_dict_form():
    s = PlaygroundState().with_hidden((4, 3)).with_layer_activation(2, "tanh")
    trained = Trainer(s.network, *s.training_points(), config=s.training.config()).advance(5).net
    s = s.with_progress(trained, 5, History())
    d = s.to_dict()
    assert d["network"] == s.network.to_dict() and d["initial"] == s.initial.to_dict()
    assert PlaygroundState.from_dict(json.loads(json.dumps(d))) == s


def test_a_state_written_in_the_older_form_reads_as_the_same_state():
    s = PlaygroundState().with_hidden((5, 2)).with_layer_activation(1, "gelu")
    trained = Trainer(s.network, *s.training_points(), config=s.training.config()).advance(3).net
    s = s.with_progress(trained, 3, History())
    old = s.to_dict() | {"network": _older_form(s.network), "initial": _older_form(s.initial)}
    back = PlaygroundState.from_dict(json.loads(json.dumps(old)))
    assert back == s and not same(back.initial, back.network)
    assert back.to_dict() == s.to_dict()  # written again in the one form


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda n: n["layers"][0].__setitem__("weights", n["layers"][0]["W"]),
     r"network\.layers\[0\]\.biases: missing"),
    (lambda n: n["layers"][1].__setitem__("b", ["0"]), r"network\.layers\[1\]\.biases\[0\]"),
    (lambda n: n["layers"][0]["W"].append([1.0, 2.0]), r"network\.layers\[0\]\.weights: expected shape 6×2"),
    (lambda n: n.__setitem__("layers", n["layers"] * 5000), "10,000 layers do not match"),
])
def test_an_older_form_is_checked_as_the_one_form_is(mutate, message):
    d = PlaygroundState().to_dict()
    d["network"] = _older_form(PlaygroundState().network)
    mutate(d["network"])
    before = copy.deepcopy(d)
    with pytest.raises(ValueError, match=message):
        PlaygroundState.from_dict(d)
    assert d == before
