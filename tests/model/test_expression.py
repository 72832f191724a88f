import time

import numpy as np
import pytest

from relulab.model import PRESETS, ExpressionError, Target, parse_expression, target_from_text

X = np.linspace(-3, 3, 101)


@pytest.mark.parametrize(("text", "expected"), [
    ("sin(2*x) + 0.3*x^2", np.sin(2 * X) + 0.3 * X ** 2),
    ("sin(2x) + 0.3x**2", np.sin(2 * X) + 0.3 * X ** 2),
    ("-x^2", -X ** 2),
    ("2^3^2 + 0*x", np.full_like(X, 512.0)),
    ("abs(x) - relu(x)", np.abs(X) - np.maximum(X, 0)),
    ("max(x, 0.5) + min(x, -1)", np.maximum(X, 0.5) + np.minimum(X, -1)),
    ("step(x)", (X >= 0).astype(float)),
    ("pi*e", np.full_like(X, np.pi * np.e)),
    ("1.5e-1 * x / 2", 0.075 * X),
    ("2(x + 1)", 2 * (X + 1)),
    ("sign(x)*floor(x)", np.sign(X) * np.floor(X)),
    ("arctan(x) + tanh(x) - sinh(x)/cosh(x)", np.arctan(X)),
    ("exp(-x^2)", np.exp(-X ** 2)),
])
def test_grammar(text, expected):
    assert np.allclose(parse_expression(text)(X), expected)


@pytest.mark.parametrize(("text", "message"), [
    ("__import__('os').system('true')", "unknown name '__import__' at column 1"),
    ("os.system('true')", "unknown name 'os' at column 1"),
    ("().__class__", "unexpected ')' at column 2"),
    ("x.__class__", "unexpected character '.' at column 2"),
    ("", "the expression is empty"),
    ("   ", "the expression is empty"),
    ("x\x00", "unexpected character U+0000 at column 2"),
    ("x + \x1b[31m", "unexpected character U+001B at column 5"),
    ("x²", "unexpected character '²' at column 2"),
    ("sin x", "function 'sin' needs parentheses"),
    ("max(x)", "function 'max' takes 2 arguments, got 1"),
    ("x +", "the expression ends too early"),
    ("(x", "expected ')' but found the end"),
    ("x y", "unexpected 'y' at column 3"),
    ("y", "unknown name 'y' at column 1"),
    ("lambda: 1", "unknown name 'lambda' at column 1"),
    ("x" * 501, "longer than 500 characters"),
    ("(" * 10_000 + "x" + ")" * 10_000, "longer than 500 characters"),
    ("(" * 60 + "x" + ")" * 60, "nested more than 50 levels deep"),
    ("-" * 200 + "x", "nested more than 50 levels deep"),
    ("sin(" * 60 + "x" + ")" * 60, "nested more than 50 levels deep"),
])
def test_hostile_input_gets_a_clear_error_quickly(text, message):
    start = time.perf_counter()
    with pytest.raises(ExpressionError) as info:
        parse_expression(text)
    assert message in str(info.value)
    assert time.perf_counter() - start < 1.0  # a hang would show up here, not a slow run


def test_not_a_string():
    with pytest.raises(ExpressionError):
        parse_expression(None)


@pytest.mark.parametrize(("text", "message"), [
    ("9**9**9**9", "infinite"),
    ("log(x)", "not a number"),
    ("1/x", "x = 0"),
    ("sqrt(x - 10)", "not a number"),
    ("exp(exp(exp(3x)))", "infinite"),
])
def test_values_that_are_not_finite_on_the_domain(text, message):
    expr = parse_expression(text)
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(")):
        Target(text, -1.0, 1.0)
    expr(np.linspace(-1, 1, 5))  # evaluating alone never warns or raises


def test_target_domain_is_checked():
    with pytest.raises(ExpressionError, match="empty"):
        Target("x", 1.0, -1.0)
    with pytest.raises(ExpressionError, match="finite"):
        Target("x", -np.inf, 1.0)


def test_presets():
    assert len(PRESETS) >= 5
    seed = PRESETS["sin(2x) + 0.3x²"]
    x, y = seed.sample(400)
    assert (seed.a, seed.b) == (-3, 3)
    assert np.allclose(y, np.sin(2 * x) + 0.3 * x ** 2)
    assert target_from_text("x²", -2, 2)(np.array([2.0]))[0] == 4.0
    assert target_from_text("x^3", -2, 2)(np.array([2.0]))[0] == 8.0
    step = PRESETS["unit step"]
    assert not step.smooth
