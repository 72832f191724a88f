"""Exact at the edges of the doubles, in 1-D (issue 32, items 1, 4, 10 and 12's first part).

Each case the issue lists, against an exact reference (Python fractions, or the
independent rational walk of tests/model/exact_reference.py), and a property test that
draws its kind: kinks that differ but round to one double, tents through ``restrict``
at every peak the Folding panel's slider offers, a flat output beside a bent one, and
kinks beyond the range of doubles.
"""

from __future__ import annotations

import importlib.util
import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relulab.model.networks.mlp import MLP
from relulab.model.shallow.construction import convert, shallow_1d
from tests.model.exact_reference import kinks as ref_kinks
from tests.model.exact_reference import least_width, reference


def exact_value(net: MLP, x: Fraction) -> list[Fraction]:
    """net(x) carried in fractions: every weight, bias and sum exact."""
    h = [Fraction(x)]
    layers = net.layers
    for k, (W, b) in enumerate(layers):
        z = [sum((Fraction(float(w)) * v for w, v in zip(row, h)), Fraction(0)) + Fraction(float(c))
             for row, c in zip(W, b)]
        h = z if k == len(layers) - 1 else [max(v, Fraction(0)) for v in z]
    return h


def assert_shallow_equal(net: MLP, points=()) -> None:
    """The shallow network of ``net``, evaluated exactly, is within its own proven
    representation error of the deep one, evaluated exactly: at every kink, between
    neighbours, far beyond both ends and at ``points``; and the check says so."""
    conv = convert(net)
    one = conv.one_d
    t = [Fraction(float(k)) for k in one.kinks]
    reach = max([abs(v) for v in t] + [Fraction(1)]) * 4 + 10
    xs = {*t, *((a + b) / 2 for a, b in itertools.pairwise(t)), *map(Fraction, points)}
    xs |= {min(t, default=Fraction(0)) - reach, max(t, default=Fraction(0)) + reach}
    xs = sorted(xs)
    bound = one.representation_error(np.array([float(x) for x in xs]))
    for x, row in zip(xs, bound):
        deep, shallow = exact_value(net, x), exact_value(one.net, x)
        for o, (d, s) in enumerate(zip(deep, shallow)):
            slack = Fraction(float(row[o])) * (1 + Fraction(1, 10 ** 9)) + Fraction(1, 2 ** 1000)
            assert abs(d - s) <= slack, (float(x), o, float(d), float(s), float(row[o]))
    assert conv.verify().ok()


def in_units(net: MLP, s: float, t: float) -> MLP:
    """``net`` in units x = s·u + t (its kinks move to s·k + t): the first layer becomes
    W/s and b − W·t/s, rounded once, as a user's change of units is; kinks that were
    one point, or close, may now be distinct rationals on one double."""
    (W, b), rest = net.layers[0], net.layers[1:]
    return MLP([(W / s, b - W[:, 0] * t / s), *rest])


# --- item 1: two kinks, one double -----------------------------------------------------
def twin_kinks() -> MLP:
    """f(x) = ReLU(3x − 1) + ReLU(x − t) + 2·ReLU(t − x), t the double nearest 1/3: the
    kinks 1/3 and t differ but are one double."""
    t = 1 / 3
    return MLP([([[3.0], [1.0], [-1.0]], [-1.0, -t, t]), ([[1.0, 1.0, 2.0]], [0.0])])


def test_two_kinks_on_one_double_keep_the_right_slope():
    net = twin_kinks()
    ref = reference(net)
    assert len(ref_kinks(ref)[0]) == 2
    one = shallow_1d(net)
    assert one.width == least_width(ref, 1) == 3
    # far right: 38.67 (slope 4), never 67.67 (slope 7)
    got = exact_value(one.net, Fraction(10))[0]
    assert abs(got - exact_value(net, Fraction(10))[0]) < Fraction(1, 10 ** 12)
    assert_shallow_equal(net, points=[10, -10, 1 / 3])


@pytest.mark.parametrize("net", [
    MLP([([[0.0]], [0.1]), ([[3.0]], [0.2])]),                                  # a constant
    MLP([([[1.0], [-1.0]], [0.1, -0.1]), ([[3.0, -3.0], [1e-3, -1e-3]], [0.2, 0.7])]),  # lines
])
def test_a_line_without_kinks_bounds_the_rounding_of_its_value(net):
    """Found by rerunning the adversary: with no kink the shallow network is a constant
    or s₀ ReLU(x) − s₀ ReLU(−x) plus the value at 0, which is rounded (3·0.1 + 0.2 is
    not a double); its proven error said 0."""
    assert len(reference(net)["knots"]) <= 1 and not ref_kinks(reference(net))[0]
    assert shallow_1d(net).width in (0, 2)
    assert_shallow_equal(net, points=[0, 1, -7.5])


def test_relulab_convert_writes_the_twin_kinks_network_right(tmp_path, capsys):
    """The command exited 3 on it (its check caught the wrong slope); now it writes the
    network, and the report's claims stand beside a passed check."""
    from relulab.commands.convert import main
    from relulab.io.networks import load_network, save_network

    save_network(twin_kinks(), tmp_path / "twins.json")
    code = main([str(tmp_path / "twins.json"), str(tmp_path / "s.json"), "--report"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "least width proven" in out
    shallow = load_network(tmp_path / "s.json")
    assert exact_value(shallow, Fraction(10)) == exact_value(shallow_1d(twin_kinks()).net,
                                                             Fraction(10))
    assert abs(float(shallow(np.array([10.0]))[0]) - 116 / 3) < 1e-12


def test_an_integer_network_in_other_units_keeps_its_ends():
    """The issue's random case: an integer 1-4-4-2 network in other units (×4.4e5,
    shifted by 1e10); rounding its first layer puts distinct kinks on one double."""
    hit = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        layers = [(rng.integers(-3, 4, (b, a)).astype(float), rng.integers(-3, 4, b).astype(float))
                  for a, b in itertools.pairwise([1, 4, 4, 2])]
        net = in_units(MLP(layers), 4.4e5, 1e10)
        lp_kinks = shallow_1d(net).kinks
        if len(lp_kinks) > 1 and np.any(np.diff(lp_kinks) == 0):
            hit += 1
            ref = reference(net)
            assert shallow_1d(net).width == least_width(ref, 2)
            assert_shallow_equal(net)
    assert hit > 0


@pytest.mark.parametrize(("layers", "s", "t"), [
    ([([[-3.0], [-3.0]], [-2.0, -3.0]), ([[3.0, -3.0]], [0.0])], 4483.922224100545, 3.7),
    ([([[-2.0], [-1.0], [-1.0], [3.0]], [-1.0, 3.0, 1.0, 0.0]), ([[-2.0, 3.0, 1.0, 3.0]], [2.0])],
     4.946263823719583e-05, 1e10),
    ([([[-2.0], [0.0], [-2.0], [3.0], [3.0]], [-3.0, 1.0, 0.0, -2.0, 1.0]),
      ([[-1.0, -1.0, -1.0, 3.0, -3.0]], [-1.0])], 27782.286245504347, 3.7),
])
def test_end_slopes_are_compared_within_their_own_error_bounds(layers, s, t):
    """Found by rerunning the adversary: integer networks in other units whose ray is
    flat (slope exactly 0) while the certified slope is 2e-19 ± 2e-18. The shallow
    network is right (checked exactly), but the check compared its flat ray with the
    certified double as if that were exact, and said NOT equal."""
    net = in_units(MLP(layers), s, t)
    ref = reference(net)
    assert ref["slopes"][0] == [0] or ref["slopes"][-1] == [0]
    assert_shallow_equal(net)


@st.composite
def twin_nets(draw):
    """A network whose first layer bends at p/q (q not a power of two) and at the double
    nearest p/q, among integer neurons, with integer layers after it, in units s·x
    (s a power of two, so the twins stay twins) and 1 to 3 outputs."""
    q = draw(st.integers(3, 199).filter(lambda v: v & (v - 1)))
    p = draw(st.integers(-3 * q, 3 * q))
    t = p / q
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    extra = draw(st.integers(0, 4))
    W = [[q], [1.0], [-1.0], *rng.integers(-4, 5, (extra, 1)).tolist()]
    b = [-p, -t, t, *rng.integers(-9, 10, extra).tolist()]
    W1 = np.array(W, dtype=float)
    b1 = np.array(b, dtype=float)
    sizes = [len(b1), *[draw(st.integers(1, 4)) for _ in range(draw(st.integers(0, 2)))],
             draw(st.integers(1, 3))]
    layers = [(W1, b1)]
    for a, c in itertools.pairwise(sizes):
        layers.append((rng.integers(-3, 4, (c, a)).astype(float),
                       rng.integers(-3, 4, c).astype(float)))
    return in_units(MLP(layers), 2.0 ** draw(st.integers(-40, 40)), 0.0)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(twin_nets())
def test_twin_kinks_convert_exactly(net):
    ref = reference(net)
    m = net.n_out
    one = shallow_1d(net)
    union = [k for k, c in zip(ref["knots"], itertools.pairwise(ref["slopes"])) if c[0] != c[1]]
    assert len(one.kinks) == len(union)
    best = least_width(ref, m, exhaustive=14)
    if best is not None:
        assert one.width == best and one.least_width_proven
    assert_shallow_equal(net)


# --- never export a network that failed its check; never "proven" beside it -------------
@pytest.fixture
def broken_conversion(monkeypatch):
    """Every conversion's shallow network made wrong by 1e-9 in its output biases (as a
    construction bug would): the check must catch it before anything says "proven" or
    writes it."""
    import relulab.model.shallow.construction as shallow_module

    real = shallow_module.convert

    def broken(net, *args, **kwargs):
        conv = real(net, *args, **kwargs)
        (W1, b1), (W2, b2) = conv.shallow.layers
        conv.shallow = MLP([(W1, b1), (W2, b2 + 1e-9 * (1 + np.abs(b2)))])
        return conv

    monkeypatch.setattr(shallow_module, "convert", broken)


def test_the_command_says_no_proven_beside_a_failed_check(tmp_path, capsys, broken_conversion):
    from relulab.commands.convert import main
    from relulab.io.networks import save_network

    save_network(twin_kinks(), tmp_path / "deep.json")
    code = main([str(tmp_path / "deep.json"), str(tmp_path / "o.json"), "--report"])
    out, err = capsys.readouterr()
    assert code == 3 and "not written" in err and not (tmp_path / "o.json").exists()
    assert "least width not claimed: the check failed" in out and "proven" not in out


@pytest.mark.skipif(importlib.util.find_spec("PySide6") is None, reason="the panel needs Qt")
def test_the_panel_offers_no_export_beside_a_failed_check(qtbot, theme, tmp_path,
                                                          broken_conversion):
    from PySide6.QtCore import Qt

    from relulab.ui.panels.converter import ConverterPanel

    panel = ConverterPanel()
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitUntil(lambda: not panel.busy, timeout=30000)
    panel.arch_edit.setText("1-6-6-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not panel.busy and panel.result is not None
                    and panel.result.conversion.one_d is not None, timeout=30000)
    try:
        assert not panel.result.verification.ok()
        assert panel.verdict.text().startswith("NOT equal")
        assert not panel.export_button.isVisibleTo(panel)
        assert not panel.export_shallow(tmp_path / "s.json")
        assert not (tmp_path / "s.json").exists()
        assert "the check found deep and shallow different" in panel.message.text()
        assert "exportable" not in panel.layers_label.text()
        assert "zero up to rounding" not in panel.explain.text()
        title = panel.diff_plot.getPlotItem().titleLabel.text
        assert "the check failed" in title and "zero up to rounding" not in title
    finally:
        panel.shutdown()


# --- item 12: a kink beyond the doubles ----------------------------------------------------
def beyond(exponent: int, sign: float = 1.0, extra=(), second: bool = False,
           top: int = 300) -> MLP:
    """A kink at about sign·10^exponent (10^top / 10^(top − exponent); exponent up to
    top + 320), past ±1.8e308, beside one at 0 and the kinks ``extra``; ``second``: one
    more a hair beyond it (both are +∞ or −∞ as doubles)."""
    w = float(10.0 ** (top - exponent))
    W = [[sign * w], [1.0], *[[1.0] for _ in extra]]
    b = [-10.0 ** top, 0.0, *[-float(t) for t in extra]]
    if second:
        W.append([sign * w])
        b.append(-np.nextafter(10.0 ** top, np.inf))
    return MLP([(W, b), ([[1.0] * len(W)], [0.0])])


def test_a_kink_beyond_the_doubles_is_said_in_one_line(tmp_path, capsys):
    from relulab.commands.convert import main
    from relulab.io.networks import save_network
    from relulab.model.networks.exact import exact_line
    from relulab.model.pieces.piecewise import piecewise_linear

    net = beyond(400, top=100)  # the 1e400: weight 1e-300, bias −1e100
    w = Fraction(float(net.layers[0][0][0, 0]))
    assert exact_line(net).knots == [Fraction(0), Fraction(1e100) / w]
    for call in (piecewise_linear, convert):
        with pytest.raises(ValueError, match="beyond the range of doubles"):
            call(net)
    save_network(net, tmp_path / "far.json")
    code = main([str(tmp_path / "far.json"), str(tmp_path / "o.json")])
    _out, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1 and "beyond the range of doubles" in err
    assert "OverflowError" not in err and not (tmp_path / "o.json").exists()


@settings(max_examples=60, deadline=None)
@given(st.integers(309, 620), st.sampled_from([1.0, -1.0]),
       st.lists(st.sampled_from([-3e307, -1.0, 0.5, 7.0, 1e300, 1.7e308]), max_size=3),
       st.booleans())
def test_kinks_beyond_the_doubles_walk_exactly(exponent, sign, extra, second):
    """The exact walk passes kinks beyond ±1.8e308 (their doubles are ±∞, two of them
    told apart exactly) and every count refuses them in one line, never OverflowError."""
    from relulab.model.networks.exact import exact_line
    from relulab.model.pieces.piecewise import piecewise_linear

    net = beyond(exponent, sign, extra, second)
    assert exact_line(net).knots == reference(net)["knots"]
    with pytest.raises(ValueError, match="beyond the range of doubles"):
        piecewise_linear(net)


def test_parallel_neurons_whose_offset_passes_the_doubles():
    """Two neurons with one weight whose biases differ by more than 1.8e308: their
    offset is not a double, so it is not taken as known (it was: OverflowError)."""
    from relulab.model.pieces.piecewise import piecewise_linear

    net = MLP([([[1.0], [1.0], [1.0]], [3e307, -1.7e308, 0.0]), ([[1.0, 1.0, -2.0]], [0.0])])
    pl = piecewise_linear(net)
    want, jumps = ref_kinks(reference(net))
    assert [Fraction(float(t)) for t in pl.kinks] == want
    assert [Fraction(float(c)) for c in pl.jumps] == jumps


# --- item 4: restrict on rounded kinks ---------------------------------------------------
#: The Folding panel's peak slider: value / PEAK_STEPS over PEAK_RANGE (steps of 0.01).
PEAK_STEPS = 100


def slider_peaks() -> list[float]:
    from relulab.model.pieces.folding import PEAK_RANGE

    lo, hi = (round(v * PEAK_STEPS) for v in PEAK_RANGE)
    return [value / PEAK_STEPS for value in range(lo, hi + 1)]


def exact_inside(net: MLP, a, b) -> int:
    """Kinks of the exact reference strictly inside (a, b)."""
    want, _ = ref_kinks(reference(net))
    return sum(1 for t in want if Fraction(a) < t < Fraction(b))


def test_restrict_counts_the_tents_kinks_next_to_one():
    """The issue's case: a kink at 1 − 2.75e-17 rounds to 1 and was dropped (4 pieces)."""
    from relulab.model.pieces.folding import tent_network
    from relulab.model.pieces.piecewise import piecewise_linear

    net = tent_network(2, 0.32)
    assert exact_inside(net, 0, 1) == 4
    pl = piecewise_linear(net).restrict(0, 1)
    assert pl.n_pieces == 5 and pl.domain == (0.0, 1.0)
    # restricting again, and on a side, keeps deciding exactly
    assert pl.restrict(0.5, 1).n_pieces == 1 + exact_inside(net, 0.5, 1)
    assert pl.restrict(0, 0.5).n_pieces == 1 + exact_inside(net, 0, 0.5)


def test_restrict_agrees_with_the_folding_panel_at_every_slider_peak():
    """The README's way to count pieces, piecewise_linear(...).restrict(0, 1).n_pieces,
    against the Folding panel's exact count (fold_counts, as its job calls it) for
    tents at every peak of the slider and depths 1 to 6 (the property test below holds
    both to the exact reference)."""
    if importlib.util.find_spec("PySide6") is not None:
        from relulab.ui.panels.folding.controls import PEAK_STEPS as slider_steps

        assert slider_steps == PEAK_STEPS
    from relulab.model.pieces.folding import fold_counts, tent_network, tent_pieces
    from relulab.model.pieces.piecewise import piecewise_linear

    wrong = []
    for peak, depth in itertools.product(slider_peaks(), range(1, 7)):
        net = tent_network(depth, peak)
        panel = fold_counts(tent_pieces(depth, peak), depth, 2, net)
        readme = piecewise_linear(net).restrict(0, 1).n_pieces
        if not (panel.exact and readme == panel.pieces_unit):
            wrong.append((peak, depth, readme, panel.pieces_unit))
    assert not wrong and len(slider_peaks()) * 6 == 366


@st.composite
def nets_and_ends(draw):
    """A tent at a slider peak, or a random deep network, and an interval whose ends
    sit on the doubles of its exact kinks or a few units in the last place beside them."""
    from relulab.model.pieces.folding import tent_network

    if draw(st.booleans()):
        net = tent_network(draw(st.integers(1, 6)), draw(st.sampled_from(slider_peaks())))
    else:
        rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
        sizes = [1, *rng.integers(1, 6, draw(st.integers(1, 3))).tolist(), 1]
        net = MLP([(rng.normal(size=(b, a)), rng.normal(size=b))
                   for a, b in itertools.pairwise(sizes)])
    want, _ = ref_kinks(reference(net))
    spots = [float(t) for t in want] or [0.0]

    def end():
        x = draw(st.sampled_from(spots))
        for _ in range(draw(st.integers(-3, 3)) % 7):
            x = np.nextafter(x, np.inf if draw(st.booleans()) else -np.inf)
        return float(x)

    a, b = sorted((end(), end()))
    if a == b:
        b = float(np.nextafter(b, np.inf))
    return net, a, b


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nets_and_ends())
def test_restrict_decides_kinks_at_its_ends_exactly(case):
    from relulab.model.pieces.piecewise import piecewise_linear

    net, a, b = case
    pl = piecewise_linear(net)
    part = pl.restrict(a, b)
    assert part.n_pieces == 1 + exact_inside(net, a, b)
    counted = pl.kinks_inside(a, b)
    assert counted is None or part.n_pieces == 1 + counted
    # each kink kept is within its error bound of an exact kink inside
    inside = [t for t in ref_kinks(reference(net))[0] if Fraction(a) < t < Fraction(b)]
    assert all(abs(Fraction(float(k)) - w) <= Fraction(float(e))
               for k, w, e in zip(part.kinks, inside, part.kink_errors))


# --- item 10: least width when an output is flat -------------------------------------------
def opposed_pair_net(seed: int, width: int = 21, rows=None) -> MLP:
    """1-width-m: kinks at distinct integers but neurons 0 and 1, which face opposite
    ways at one kink (their jumps merge, so the width is N + 1 as often as not);
    ``rows``: which neurons each output reads (default: output 0 none, output 1 all)."""
    rng = np.random.default_rng(seed)
    k = rng.permutation(np.arange(-30, 30))[:width].astype(float)
    W1 = np.where(rng.random(width) < 0.5, 1.0, -1.0)[:, None]
    k[1], W1[1, 0] = k[0], -W1[0, 0]
    rows = rows if rows is not None else [[], list(range(width))]
    W2 = np.zeros((len(rows), width))
    for o, used in enumerate(rows):
        W2[o, used] = rng.normal(size=len(used))
    return MLP([(W1, -W1[:, 0] * k), (W2, np.zeros(len(rows)))])


def searched(net: MLP):
    """(the flip set's answer, how many subsets passed a window) for ``net``."""
    from relulab.model.pieces.piecewise import line_pieces
    from relulab.model.shallow.one_d import _flip_set, _Jumps

    J = _Jumps(net, line_pieces(net))
    return _flip_set(J), J.candidates, J.N


@pytest.mark.parametrize("flat", [0, 1])
def test_a_flat_output_does_not_open_every_window(flat):
    """The issue's 1-21-2 network with one output ≡ 0: the windows were on output 0's
    subset sums only, so with output 0 flat all 2²⁰ subsets were compared (11 s)."""
    rows = [[], list(range(21))] if flat == 0 else [list(range(21)), []]
    net = opposed_pair_net(1, rows=rows)
    (F, searched_all), candidates, N = searched(net)
    assert N == 20 and F is None and searched_all
    assert candidates <= 2 ** 10
    one = shallow_1d(net)
    assert one.width == least_width(reference(net), 2) == 21 and one.least_width_proven


@st.composite
def sparse_outputs(draw):
    """A network whose outputs each read a few of the neurons (often none, or one
    half), in units x = 2^k·u."""
    width = draw(st.integers(6, 21))
    m = draw(st.integers(2, 4))
    halves = [list(range(width // 2)), list(range(width // 2, width)), [], list(range(width))]
    rows = [draw(st.sampled_from(halves)) for _ in range(m)]
    net = opposed_pair_net(draw(st.integers(0, 2 ** 32 - 1)), width, rows)
    return in_units(net, 2.0 ** draw(st.integers(-30, 30)), 0.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sparse_outputs())
def test_least_width_with_sparse_outputs_matches_the_exact_search(net):
    _, candidates, N = searched(net)
    # random weights: few subsets project alike, so the windows let few through
    assert candidates <= 2 ** (N // 2 + 1) + N * N
    one = shallow_1d(net)
    assert one.width == least_width(reference(net), net.n_out) and one.least_width_proven
    assert_shallow_equal(net)
