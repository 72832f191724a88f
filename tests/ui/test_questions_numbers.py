"""Every number the Questions guide and the README quote about the panel's results,
against the model: the double-descent page's default run (d = 20, n = 100, label
noise 0.5, ten seeds) and the rules the verdict states."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from relulab.model.lessons.questions import DoubleDescentSettings
from relulab.model.questions.double_descent import CATASTROPHIC_ABOVE, run_steps
from relulab.ui.help import guide_markdown
from relulab.ui.panels.questions.jobs import (
    SECOND_RATIO,
    SECOND_SCALE,
    dd_numbers,
    number,
    run_double_descent,
)

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def default_run():
    return dd_numbers(run_steps(run_double_descent(DoubleDescentSettings())))


def test_the_guide_quotes_the_default_run(default_run):
    v, s = default_run, DoubleDescentSettings()
    text = flat(guide_markdown("questions"))
    assert (s.d, s.n, s.noise, s.seeds) == (20, 100, 0.5, 10)
    assert "d = 20, n = 100, noise 0.5" in text and "(medians of 10 seeds)" in text
    assert v["regime"] == "benign" and f"in {v['wins']} of {v['seeds']} seeds" in text
    assert v["widest"] == 20 * s.n and "at H = 20n" in text
    assert (f"error **{number(v['median_widest'])}** at H = 20n against "
            f"**{number(v['best_small'])}** for the best model with H < n (benign)") in text
    assert f"tempered up to {CATASTROPHIC_ABOVE:g} times it" in text
    assert (SECOND_RATIO, SECOND_SCALE) == (4, 0.01) and "4H more features at scale 0.01" in text


def test_the_readme_quotes_the_default_run(default_run):
    v = default_run
    text = flat(README)
    assert (f"At d = 20, n = 100, label noise 0.5 the widest model wins in {v['wins']} of "
            f"{v['seeds']} seeds (median {number(v['median_widest'])} against "
            f"{number(v['best_small'])} for the best model with H < n)") in text
    [low, high] = re.findall(r"for input dimensions (\d+) to (\d+)", text)[0]
    from relulab.model.lessons.questions import DIMENSIONS

    assert (int(low), int(high)) == (min(DIMENSIONS), max(DIMENSIONS))


def test_the_guide_quotes_the_parity_page_s_default_run():
    from relulab.model.lessons.questions import ParitySettings
    from relulab.ui.panels.questions.jobs.parity import N_BITS, parity_numbers, run_parity

    s = ParitySettings()
    v = parity_numbers(run_steps(run_parity(s)))
    text = flat(guide_markdown("questions"))
    assert (s.k, s.seeds, N_BITS) == (3, 5, 30)
    assert "same k of 30 random bits race: at k = 3 (five seeds)" in text
    assert v["verdict"] == "parity is slower"
    assert (f"majority reaches 95% in a median **{v['median_majority']:,.0f}** "
            f"steps, parity in **{v['median_parity']:,.0f}**") in text
    assert v["nearest"] == 0 and "1-nearest-neighbour scores **0%**" in text
    # at least: the smallest of the seeds' accuracies
    assert f"a net trained on the same half at least **{v['mlp_min']:.0%}**" in text


def test_the_guide_quotes_the_softmax_page_s_default_run():
    from relulab.model.lessons.questions import SimplexSettings
    from relulab.ui.panels.questions.jobs.simplex import FROM, STEPS, run_simplex, simplex_numbers

    v = simplex_numbers(run_steps(run_simplex(SimplexSettings())))
    text = flat(guide_markdown("questions"))
    assert SimplexSettings().seed == 0 and (FROM, STEPS) == (1000, 3000)
    assert (f"On the blobs (seed 0) softmax and sparsemax score **{v['accuracy_softmax']:.3f}** and "
            f"**{v['accuracy_sparsemax']:.3f}**; sparsemax gives the true class 0 on "
            f"**{v['zero_sparsemax']:.1%}** of test points (log-loss ∞)") in text
    assert v["log_loss_sparsemax"] == float("inf") and v["verdict"] == "sparsemax settles"
    assert (f"softmax's weights grow **{v['growth_softmax']:+.0%}** from step 1,000 to "
            "3,000, sparsemax's stop") in text


def test_the_guide_quotes_the_why_deep_page_s_default_run():
    from relulab.model.lessons.questions import WhyDeepSettings
    from relulab.model.questions.why_deep import deep_square, exact_max_error
    from relulab.ui.panels.questions.jobs.why_deep import run_why_deep, why_deep_numbers

    s = WhyDeepSettings()
    v = why_deep_numbers(run_steps(run_why_deep(s)))
    text = flat(guide_markdown("questions"))
    assert s.seeds == 5 and v["net_solves"] == v["datasets"] == 4
    assert (f"The feature x1·x2 alone scores **{v['feature_xor']:.3f}** on XOR but "
            f"**{v['feature_circles']:.3f}** on the circles (five seeds); a 2-16-16-1 net at "
            f"least **{v['net_lowest']:.3f}** on all four datasets") in text
    assert all(exact_max_error(deep_square(m)) * 4 ** (m + 1) == 1 for m in range(5))
    assert "m layers of 3 ReLUs compute x² within exactly 4⁻⁽ᵐ⁺¹⁾" in text


def test_the_guide_quotes_the_gelu_page_s_default_run():
    from relulab.model.lessons.questions import GeluSettings
    from relulab.model.questions.gelu import GAP
    from relulab.ui.panels.questions.jobs.gelu import gelu_numbers, run_gelu

    s = GeluSettings()
    v = gelu_numbers(run_steps(run_gelu(s)))
    text = flat(guide_markdown("questions"))
    assert s.seeds == 5 and v["verdict"] == "each wins its own target"
    assert f"{GAP:.2f}" == "0.17" and "within 0.17/a of a ReLU net" in text
    assert (f"GELU wins on sin(πx) (**{number(v['gelu_smooth'])}** vs "
            f"**{number(v['relu_smooth'])}**, five seeds), ReLU on |x|") in text


def test_the_guide_quotes_the_one_hot_page_s_default_run():
    from relulab.model.lessons.questions import TargetsSettings
    from relulab.ui.panels.questions.jobs.targets import (
        STUDENT_POINTS,
        run_targets,
        targets_numbers,
    )

    s = TargetsSettings()
    v = targets_numbers(run_steps(run_targets(s)))
    text = flat(guide_markdown("questions"))
    assert s.seeds == 5 and STUDENT_POINTS == 2 and v["verdict"] == "soft targets help"
    assert (f"gives the look-alike class **{number(v['lookalike'])}**, each far one "
            f"**{number(v['others'])}**; soft targets raise a 2-point student in "
            f"{v['helped']} of {v['seeds']} seeds") in text


def test_the_guide_quotes_the_tickets_page_s_default_run():
    from relulab.model.lessons.questions import TicketsSettings
    from relulab.ui.panels.questions.jobs.tickets import run_tickets, tickets_numbers

    v = tickets_numbers(run_steps(run_tickets(TicketsSettings())))
    text = flat(guide_markdown("questions"))
    assert v["verdict"] == "the mask matters"
    assert (f"The pruned mask beats a random one in {v['mask_wins']} of {v['seeds']} seeds; "
            f"the rewound start beats a fresh one in {v['ticket_beats_reinit']} of "
            f"{v['seeds']}: the mask matters.") in text


def test_very_large_and_small_numbers_are_written_as_powers_of_ten():
    """Seen in a verdict: "1.4e-06". A page writes it 1.4 × 10⁻⁶, with a minus sign
    (not a hyphen) before a negative number."""
    from relulab.ui.panels.questions.jobs import number

    assert number(1.4e-6) == "1.4 × 10⁻⁶"
    assert number(3.1e7) == "3.1 × 10⁷"
    assert number(-2.35e-4) == "−2.3 × 10⁻⁴"
    assert number(1e-300) == "1.0 × 10⁻³⁰⁰"
    assert number(99_999) == "99,999" and number(-0.5) == "−0.50" and number(0.2) == "0.20"
    assert number(float("inf")) == "∞" and number(0.0) == "0"
