"""The shared field checks of panel states read from files."""

import numpy as np
import pytest

from relulab.model.core.fields import Fields, finite_array


def test_defaults_fill_missing_fields_and_unknown_ones_are_refused():
    f = Fields({"depth": 3}, defaults={"depth": 5, "peak": 0.5}, where="folding")
    assert f.integer("depth", 1, 24) == 3
    assert f.number("peak", 0.2, 0.8) == 0.5
    f.done()
    g = Fields({"depth": 3, "dpeth": 1}, defaults={"depth": 5}, where="folding")
    g.integer("depth", 1, 24)
    with pytest.raises(ValueError, match=r"folding: unknown field\(s\) dpeth"):
        g.done()


@pytest.mark.parametrize(("value", "message"), [
    (True, "expected a number"),
    ("1", "expected a number"),
    (float("nan"), "finite"),
    (1e308 * 10, "finite"),
    (10**400, "integer of 401 digits is too large"),
    (2.0, r"outside \[0, 1\]"),
])
def test_number_names_the_field_and_the_problem(value, message):
    with pytest.raises(ValueError, match=r"^s\.x: .*" + message):
        Fields({"x": value}, where="s").number("x", 0, 1)


def test_integer_flag_choice_text():
    f = Fields({"n": 7, "on": True, "kind": "xor", "t": "sin(x)"})
    assert (f.integer("n", 1, 9), f.flag("on"), f.choice("kind", ["xor", "circles"]),
            f.text("t")) == (7, True, "xor", "sin(x)")
    with pytest.raises(ValueError, match="n: 7 is outside 1…5"):
        f.integer("n", 1, 5)
    with pytest.raises(ValueError, match="on: expected true or false"):
        Fields({"on": 1}).flag("on")
    with pytest.raises(ValueError, match="kind: expected one of"):
        Fields({"kind": "spiral"}).choice("kind", ["xor"])


def test_arrays_are_checked_before_conversion():
    assert finite_array([[1, 2], [3, 4]], "w", (None, 2), 10).shape == (2, 2)
    assert finite_array([], "w", (None, 2), 10).shape == (0, 2)
    with pytest.raises(ValueError, match=r"w\[1\]: rows of different lengths"):
        finite_array([[1, 2], [3]], "w", (None, None), 10)
    with pytest.raises(ValueError, match=r"w\[0\]\[1\]: expected a number, got 'a'"):
        finite_array([[1, "a"]], "w", (None, 2), 10)
    with pytest.raises(ValueError, match="more than 3 numbers"):
        finite_array([[1, 2], [3, 4]], "w", (None, 2), 3)
    with pytest.raises(ValueError, match=r"w\[0, 1\]: inf is not a finite number"):
        finite_array(np.array([[0.0, np.inf]]), "w", (None, 2), 10)
    with pytest.raises(ValueError, match="expected shape n×3, got 2×2"):
        finite_array([[1, 2], [3, 4]], "w", (None, 3), 10)
    with pytest.raises(ValueError, match=r"w\[0\]\[0\]: .*too large"):
        finite_array([[10**400]], "w", (None, 1), 10)
