"""Typed functions of the plane, f(x₁, x₂): the Hinges panel's parser read in two
variables, the numpy code written from its parse tree, and the Playground's typed
regression problem made from it."""

from __future__ import annotations

import numpy as np
import pytest

from relulab.model.data.datasets import (
    DEFAULT_FORMULA,
    make_dataset,
    parse_formula,
    regression_target,
)
from relulab.model.data.expression import TWO_VARIABLES, ExpressionError, parse_expression
from relulab.model.lessons.playground import DataSettings, PlaygroundState

RNG = np.random.default_rng(1)
A, B = RNG.uniform(-1, 1, 500), RNG.uniform(-1, 1, 500)


@pytest.mark.parametrize(("text", "expected"), [
    ("sin(x1) * x2", np.sin(A) * B),
    ("x1^2 - x2", A ** 2 - B),
    ("x₁^2 - x₂", A ** 2 - B),             # the subscripts as shown in the app
    ("2x1 + 0.5x2", 2 * A + 0.5 * B),
    ("max(x1, x2) - relu(x1 - x2)", np.maximum(A, B) - np.maximum(A - B, 0)),
    ("exp(-(x1^2 + x2^2))", np.exp(-(A ** 2 + B ** 2))),
    ("1", np.ones_like(A)),                  # a constant is spread over the points
])
def test_two_variables(text, expected):
    f = parse_expression(text, TWO_VARIABLES)
    assert f.variables == ("x1", "x2")
    np.testing.assert_allclose(f(A, B), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize(("text", "message"), [
    ("sin(x) * x2", "unknown name 'x' (the variables are x1 and x2) at column 5"),
    ("x1 * y", "unknown name 'y' (the variables are x1 and x2) at column 6"),
    ("x3", "unknown name 'x3'"),
    ("x1 +", "the expression ends too early"),
    ("__import__('os')", "unknown name '__import__'"),
    ("x₁ + x₃", "unknown name 'x' (the variables are x1 and x2) at column 6"),
])
def test_two_variable_errors_say_what_is_wrong(text, message):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text, TWO_VARIABLES)
    assert message in str(info.value)


def test_one_variable_expressions_are_as_they_were():
    with pytest.raises(ExpressionError, match="unknown name 'x1'"):
        parse_expression("x1")
    with pytest.raises(ExpressionError, match="unexpected character '₁'"):
        parse_expression("x₁")
    np.testing.assert_array_equal(parse_expression("x^2")(A), A ** 2)
    with pytest.raises(TypeError, match="takes 1 variable"):
        parse_expression("x")(A, B)


#: Every function, operator and constant, and numbers between numbers alone (1/0 is
#: inf in numpy, an exception between Python floats).
PYTHON_CASES = [
    "sin(x1) * x2", "x1^2 - x2", "-x1^2 + 2^3^0.5 * x2", "2(x1 + 1) / (x2 + 3)",
    "cos(x1) + tan(x2) + exp(x1) + log(x2 + 2) + sqrt(abs(x1))",
    "tanh(x1) + sinh(x2) + cosh(x1) + arctan(x2) + relu(x1) + step(x2) + sign(x1)",
    "floor(3x1) + min(x1, x2) + max(x1, pi) + e", "arctan(1/0) * x1", "x1 ** 2 * 10^400 / 10^400",
    "5", "-x2", "x₁ * x₂",
]


@pytest.mark.parametrize("text", PYTHON_CASES)
def test_the_numpy_code_written_from_the_tree_computes_the_same_numbers(text):
    f = parse_expression(text, TWO_VARIABLES)
    code = f.python()
    assert "eval" not in code and "exec" not in code
    with np.errstate(all="ignore"):
        # the test runs the code the script would hold, with numpy and the two arrays
        got = eval(code, {"np": np}, {"x1": A, "x2": B})  # noqa: S307 - the code under test
    got = np.broadcast_to(np.asarray(got, dtype=float), A.shape)
    np.testing.assert_array_equal(got, f(A, B))


def test_the_typed_regression_problem():
    X, y = make_dataset("regress_formula", seed=2, n_per_class=300, formula="x1^2 - x2")
    assert X.shape == (300, 2)
    np.testing.assert_array_equal(y, X[:, 0] ** 2 - X[:, 1])  # no noise: the points themselves
    X, y = make_dataset("regress_formula", seed=2, n_per_class=300, noise=0.1, formula="x1^2 - x2")
    X0, y0 = make_dataset("regress_formula", seed=2, n_per_class=300, formula="x1^2 - x2")
    np.testing.assert_array_equal(y, y0)  # the targets before the noise moved the points
    assert not np.array_equal(X, X0)
    _, y = make_dataset("regress_formula", seed=0)
    assert DEFAULT_FORMULA == "sin(3*x1) * x2" and np.abs(y).max() <= 1


@pytest.mark.parametrize(("text", "message"), [
    ("1/x1", "the value is infinite at (x₁, x₂) = (0, -1) in the square [-1, 1]²"),
    ("sqrt(x1)", "the value is not a number at (x₁, x₂) = (-1, -1)"),
    ("log(x1 - x2)", "the value is infinite at (x₁, x₂) = (-1, -1)"),
])
def test_values_not_finite_in_the_square_are_refused_in_one_line(text, message):
    with pytest.raises(ExpressionError) as info:
        parse_formula(text)
    assert message in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ValueError, match=r"not a number|infinite"):
        make_dataset("regress_formula", formula=text)


def test_each_regression_problem_has_its_own_function_for_a_click():
    X = np.array([[0.25, -0.5], [-1.0, 1.0]])
    np.testing.assert_array_equal(regression_target("regress_plane")(X), 0.6 * X.sum(axis=1))
    np.testing.assert_array_equal(regression_target("regress_formula", "x1 * x2")(X), X[:, 0] * X[:, 1])
    d = DataSettings(name="regress_formula", formula="x1 - x2")
    assert d.target_at(0.25, -0.5) == 0.75


def test_the_formula_is_part_of_the_state():
    state = PlaygroundState()
    data = DataSettings(name="regress_formula", formula="x₁^2 - x₂", n_per_class=50, noise=0.05)
    state = state.with_data(data)
    assert state.training.loss == "mse"
    d = state.to_dict()
    assert d["dataset"]["formula"] == "x₁^2 - x₂"
    back = PlaygroundState.from_dict(d)
    assert back == state and back.dataset.formula == "x₁^2 - x₂"
    # a scene without a formula reads as the default one, and is written back without it
    assert "formula" not in PlaygroundState().to_dict()["dataset"]
    bad = {**d, "dataset": {**d["dataset"], "formula": "1/x1"}}
    with pytest.raises(ValueError, match=r"dataset\.formula: the value is infinite"):
        PlaygroundState.from_dict(bad)


def test_the_signs_the_app_writes_are_read_as_typed():
    """A formula copied from the app's own text (sin(3·x₁)·x₂, −2, 2×x) reads as its
    ASCII spelling, and a message's column is still the typed one."""
    X = np.random.default_rng(0).uniform(-1, 1, (7, 2))
    for typed, plain in (("sin(3·x₁)·x₂", "sin(3*x1)*x2"), ("−2×x1 + x2", "-2*x1 + x2")):
        a = parse_expression(typed, TWO_VARIABLES)
        b = parse_expression(plain, TWO_VARIABLES)
        assert np.array_equal(a(X[:, 0], X[:, 1]), b(X[:, 0], X[:, 1]))
    assert parse_expression("−x", ("x",))(np.array([2.0])) == -2.0
    with pytest.raises(ExpressionError, match="column 4"):
        parse_expression("x1·/x2", TWO_VARIABLES)
