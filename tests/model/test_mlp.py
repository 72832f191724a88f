import numpy as np
import pytest

from relulab.model import ACTIVATIONS, MLP, compose, get_activation


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
