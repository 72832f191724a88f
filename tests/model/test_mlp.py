import copy
import json

import numpy as np
import pytest

from relulab.model import ACTIVATIONS, MLP, compose, get_activation
from relulab.model.networks.mlp import NETWORK_FORMAT, NETWORK_VERSION


def test_177_parameters_for_2_8_8_8_1():
    assert MLP.random([2, 8, 8, 8, 1], seed=0).n_params == 177


def test_forward_matches_the_layer_formula():
    net = MLP.random([3, 5, 4, 2], seed=1)
    x = np.random.default_rng(2).normal(size=(7, 3))
    h = x
    for i, (W, b) in enumerate(net.layers):
        h = h @ W.T + b
        if i < len(net.layers) - 1:
            h = np.maximum(h, 0)
    assert np.allclose(net(x), h)


def test_one_dimensional_input_gives_one_dimensional_output():
    net = MLP.random([1, 4, 1], seed=0)
    x = np.linspace(-1, 1, 11)
    y = net(x)
    assert y.shape == (11,)
    assert np.allclose(y, net(x[:, None])[:, 0])


def test_lesson_forward_pass_and_collapse():
    W1 = np.array([[1.0, 2.0], [3.0, -1.0]])
    W2 = np.array([[2.0, 1.0]])
    relu_net = MLP([(W1, np.zeros(2)), (W2, np.zeros(1))])
    linear_net = relu_net.with_activation("identity")
    x = np.array([[2.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    assert np.allclose(linear_net(x)[:, 0], [13, 5, 3])
    assert np.allclose(relu_net(x)[:, 0], [13, 5, 4])
    assert np.allclose(W2 @ W1, [[5, 3]])


def test_shape_mismatch_is_named():
    with pytest.raises(ValueError, match="layer 2 expects 3 inputs but layer 1 has 2 neurons"):
        MLP([(np.ones((2, 1)), np.zeros(2)), (np.ones((1, 3)), np.zeros(1))])
    with pytest.raises(ValueError, match="biases"):
        MLP([(np.ones((2, 1)), np.zeros(3))])


def test_weights_are_read_only():
    net = MLP.random([1, 3, 1], seed=0)
    with pytest.raises(ValueError):
        net.layers[0][0][0, 0] = 5.0


def test_compose_equals_function_composition():
    f = MLP.random([1, 3, 1], seed=0)
    g = MLP.random([1, 4, 2, 1], seed=1)
    x = np.linspace(-2, 2, 50)
    assert np.allclose(compose(f, g)(x), g(f(x)))


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_derivatives_match_finite_differences(name):
    act = get_activation(name)
    z = np.linspace(-3, 3, 61) + 0.0123  # avoid the kink at 0
    h = 1e-6
    numeric = (act(z + h) - act(z - h)) / (2 * h)
    assert np.allclose(act.df(z), numeric, atol=1e-5)


def test_derivative_bounds_and_relu_convention():
    z = np.linspace(-10, 10, 2001)
    assert get_activation("sigmoid").df(z).max() <= 0.25 + 1e-12
    assert get_activation("tanh").df(z).max() <= 1 + 1e-12
    assert set(np.unique(get_activation("relu").df(z))) <= {0.0, 1.0}
    assert get_activation("relu").df(np.array([0.0]))[0] == 0.0


def test_sigmoid_does_not_overflow():
    s = get_activation("sigmoid")(np.array([-1000.0, 0.0, 1000.0]))
    assert np.allclose(s, [0, 0.5, 1])


def test_unknown_activation():
    with pytest.raises(ValueError, match="unknown activation 'swish'"):
        MLP.random([1, 2, 1], seed=0, activation="swish")


def test_the_derivative_given_the_output_is_the_derivative():
    """Backpropagation takes φ' from the forward pass's output where that is cheaper;
    it must equal φ'(z), at the kink and far out too."""
    z = np.concatenate([np.linspace(-40, 40, 2001), [0.0, -0.0, 1e-300, -1e-300, -1e3, 1e3]])
    for a in ACTIVATIONS.values():
        got = a.derivative(z, a.f(z))
        np.testing.assert_allclose(got, a.df(z), rtol=1e-12, atol=1e-300, err_msg=a.name)
        z32 = z.astype(np.float32)
        assert a.derivative(z32, a.f(z32)).dtype == np.float32 and a.f(z32).dtype == np.float32


def test_an_activation_per_hidden_layer():
    net = MLP.random([2, 4, 3, 5, 1], seed=3, activation=["relu", "tanh", "identity"])
    assert net.activations == ("relu", "tanh", "identity") and net.activation == ("relu", "tanh", "identity")
    x = np.random.default_rng(0).normal(size=(9, 2))
    (W1, b1), (W2, b2), (W3, b3), (W4, b4) = net.layers
    h = np.maximum(x @ W1.T + b1, 0)
    h = np.tanh(h @ W2.T + b2)
    h = h @ W3.T + b3
    assert np.allclose(net(x), h @ W4.T + b4, atol=1e-14)
    # a list of one name is that name; the same weights with another list
    assert MLP(net.layers, ["gelu"] * 3).activation == "gelu"
    assert MLP(net.layers[:1], []).activation == "relu" and MLP.random([2, 1]).activations == ()
    assert net.with_activation("relu").uses_only("relu") and not net.uses_only("relu")
    assert "['relu', 'tanh', 'identity']" in repr(net)


@pytest.mark.parametrize(("activation", "message"), [
    (["relu", "tanh"], "2 activations for 3 hidden layers"),
    (["relu", "nope", "tanh"], "unknown activation 'nope'"),
    ([1, 2, 3], "names must be text"),
    (7, "a name or a list of names"),
])
def test_bad_activation_lists_are_named(activation, message):
    with pytest.raises(ValueError, match=message):
        MLP.random([2, 3, 3, 3, 1], activation=activation)


def test_compose_keeps_each_layers_activation():
    f = MLP.random([2, 3, 2], seed=0, activation="tanh")
    g = MLP.random([2, 4, 1], seed=1, activation="relu")
    both = compose(f, g)
    assert both.activations == ("tanh", "relu")
    x = np.random.default_rng(1).normal(size=(20, 2))
    assert np.allclose(both(x), g(f(x)))


# -- the dict form --------------------------------------------------------------------

def _same(a: MLP, b: MLP) -> bool:
    return (a.sizes == b.sizes and a.activation == b.activation
            and all(np.array_equal(Wa, Wb) and np.array_equal(ba, bb)
                    for (Wa, ba), (Wb, bb) in zip(a.layers, b.layers, strict=True)))


@pytest.mark.parametrize("net", [
    MLP.random([2, 8, 8, 1], seed=0),
    MLP.random([3, 5, 4, 2, 2], seed=1, activation=["relu", "tanh", "gelu"]),
    MLP.random([1, 4, 3, 1], seed=2, activation=["leaky_relu", "sigmoid"]),
    MLP.random([4, 2], seed=3),  # no hidden layer
    MLP([([[1e100, -5e-324]], [0.1]), ([[1.0 / 3.0]], [-0.0])], "identity"),
], ids=["relu", "mixed", "leaky-sigmoid", "affine", "extreme-floats"])
def test_the_dict_form_round_trips_through_json(net):
    d = net.to_dict()
    assert d["format"] == NETWORK_FORMAT and d["version"] == NETWORK_VERSION
    assert set(d["layers"][0]) == {"weights", "biases"}
    back = MLP.from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert _same(back, net) and back.to_dict() == d
    assert not _same(MLP.random(net.sizes, seed=99, activation=net.activation), net)


def test_a_hand_written_dict_needs_only_its_layers():
    net = MLP.from_dict({"layers": [{"weights": [[1, 2]], "biases": [3]}]})
    assert net.sizes == [2, 1] and net.activation == "relu" and net([[1.0, 1.0]])[0, 0] == 6.0
    two = MLP.from_dict({"activation": ["tanh"], "layers": [
        {"weights": [[1.0]], "biases": [0.0]}, {"weights": [[2.0]], "biases": [0.0]}]})
    assert two.activation == "tanh"


def _layers(*shapes):
    return [{"weights": np.ones(s).tolist(), "biases": [0.0] * s[0]} for s in shapes]


HOSTILE = [
    ("not a network", r"^network: expected an object"),
    ({"format": "onnx", "layers": _layers((1, 2))}, r"^network\.format"),
    ({"version": 2, "layers": _layers((1, 2))}, r"^network\.version: 2 is outside"),
    ({"version": True, "layers": _layers((1, 2))}, r"^network\.version"),
    ({"layers": []}, r"^network\.layers: expected a list of 1 to 10,000 layers, got 0"),
    ({"layers": "many"}, r"^network\.layers: expected a list"),
    ({"layers": [{"weights": [[1.0]], "biases": [0.0]}] * 20_000}, r"got 20,000"),
    ({"layers": _layers((3, 2), (1, 4))}, r"^network\.layers\[1\]\.weights: expected shape n×3, got 1×4"),
    ({"layers": [{"weights": [[1.0, 2.0]], "biases": [0.0, 1.0]}]},
     r"^network\.layers\[0\]\.biases: 2 biases for 1 rows of weights"),
    ({"layers": [{"weights": [[1.0, 2.0], [3.0]], "biases": [0.0, 0.0]}]},
     r"^network\.layers\[0\]\.weights\[1\]: rows of different lengths"),
    ({"layers": [{"weights": [[1.0, float("nan")]], "biases": [0.0]}]},
     r"^network\.layers\[0\]\.weights\[0\]\[1\]: nan is not a finite number"),
    ({"layers": [{"weights": [[1.0, float("inf")]], "biases": [0.0]}]},
     r"^network\.layers\[0\]\.weights\[0\]\[1\]: inf"),
    ({"layers": [{"weights": [[1.0, "2"]], "biases": [0.0]}]},
     r"^network\.layers\[0\]\.weights\[0\]\[1\]: expected a number, got '2'"),
    ({"layers": [{"weights": [[True]], "biases": [0.0]}]}, r"weights\[0\]\[0\]: expected a number"),
    ({"layers": [{"weights": [[10 ** 400]], "biases": [0.0]}]}, r"weights\[0\]\[0\]: an integer of 401"),
    ({"layers": [{"weights": [[1e101]], "biases": [0.0]}]}, r"weights\[0, 0\]: 1e\+101 is not"),
    ({"layers": [{"weights": [[]], "biases": [0.0]}]}, r"^network\.layers\[0\]\.weights: expected a row"),
    ({"layers": [{"weights": [], "biases": []}]}, r"^network\.layers\[0\]\.weights: expected a row"),
    ({"layers": [{"weights": [[[1.0]]], "biases": [0.0]}]}, r"weights\[0\]\[0\]: expected a number"),
    ({"layers": [{"weights": [[1.0]]}]}, r"^network\.layers\[0\]\.biases: missing"),
    ({"layers": [{"weights": [[1.0]], "biases": [0.0], "scale": [0]}]}, r"unknown field\(s\) scale"),
    ({"layers": [[1.0]]}, r"^network\.layers\[0\]: expected an object"),
    ({"activation": "swish", "layers": _layers((1, 2))}, r"^network\.activation: expected one of"),
    ({"activation": ["relu"], "layers": _layers((1, 2))}, r"^network\.activation: 1 names for 0"),
    ({"activation": ["relu", 3], "layers": _layers((2, 2), (2, 2), (1, 2))},
     r"^network\.activation\[1\]: expected one of .*, got 3"),
    ({"activation": {"relu": 1}, "layers": _layers((1, 2))}, r"^network\.activation: expected a name"),
    ({"layers": _layers((1, 2)), "comment": "x"}, r"^network: unknown field\(s\) comment"),
    ({"layers": [{"weights": [[0.0]] * 2, "biases": [0.0] * 10 ** 6}]},
     r"^network\.layers\[0\]\.biases: 1,000,000 biases for 2 rows"),
]


@pytest.mark.parametrize(("d", "message"), HOSTILE)
def test_a_hostile_dict_is_refused_naming_the_field_and_left_as_it_was(d, message):
    before = copy.deepcopy(d)
    with pytest.raises(ValueError, match=message) as e:
        MLP.from_dict(d)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    assert d == before or (d != d and repr(d) == repr(before))  # NaN never equals itself


def test_a_caller_asks_for_less():
    d = MLP.random([2, 3, 1], seed=0).to_dict()
    MLP.from_dict(d, activations=("relu",), min_layers=2, sizes=[2, 3, 1])
    for keywords, message in (
            ({"activations": ("relu",)}, r"^net\.activation: expected one of relu, got 'tanh'"),
            ({"min_layers": 3}, r"^net\.layers: expected a list of 3 to"),
            ({"max_layers": 1}, r"^net\.layers: expected a list of 1 to 1 layers, got 2"),
            ({"sizes": [2, 4, 1]}, r"^net\.layers\[0\]\.weights: expected shape 4×2, got 3×2"),
            ({"sizes": [2, 3, 3, 1]}, r"^net\.layers: 2 layers do not match the architecture 2-3-3-1"),
            ({"max_weight": 0.1}, r"^net\.layers\[0\]\.weights\[0, 0\]: .* is not a finite number "
                                  r"in \[-0\.1, 0\.1\]"),
            ({"max_parameters": 12}, r"^net\.layers\[1\]: the network has more than 12 weights"),
            ({"max_parameters": 9}, r"^net\.layers\[1\]: the network has more than 9 weights"),
            ({"max_parameters": 5}, r"^net\.layers\[0\]\.weights: more than 5 numbers")):
        with pytest.raises(ValueError, match=message):
            MLP.from_dict({**d, "activation": "tanh"} if "activations" in keywords else d,
                          where="net", **keywords)
