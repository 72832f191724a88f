"""The Questions panel's part-1 pages as scripts (double descent, over-parametrisation,
infinite width): each reruns the page's experiment with its settings and prints the
numbers its verdict states, as the panel's ``readouts()`` names them (``dd_*``,
``over_*``, ``lazy_*``).
"""

from __future__ import annotations

from collections.abc import Callable

from relulab.io.codegen.questions.common import (
    HELPERS,
    MLP_CODE,
    jobs_source,
    jobs_value,
    module_code,
    prelude,
    print_readouts,
    run_type,
)
from relulab.io.codegen.sources import Section, constants, source
from relulab.model.data import datasets as ds
from relulab.model.lessons.questions import (
    DoubleDescentSettings,
    InfiniteWidthSettings,
    OverparametrisationSettings,
)
from relulab.model.questions import double_descent as dd
from relulab.model.questions import lazy, overparam


def _double_descent(s: DoubleDescentSettings) -> list[Section]:
    second = (f", second_scale={jobs_value('SECOND_SCALE')!r}, "
              f"second_ratio={jobs_value('SECOND_RATIO')!r}" if s.second_scale else "")
    settings = constants(D=s.d, N=s.n, NOISE=s.noise, RIDGE=s.ridge, SEEDS=s.seeds,
                         LOTTERY_RATIO=s.lottery_ratio)
    tuned = (f"tuned = tuned_ridge(D, N, NOISE, widths, list(range(SEEDS)){second})"
             if s.tuned_ridge else "tuned = None")
    run = f"""{settings}

widths = np.asarray(default_widths(N), dtype=int)
sweep = double_descent(D, N, NOISE, widths, list(range(SEEDS)), ridge=RIDGE{second})
{tuned}
draws = lottery(D, N, NOISE, LOTTERY_RATIO * N, draws=LOTTERY_DRAWS, ridge=RIDGE{second})
run = SimpleNamespace(settings=SimpleNamespace(n=N, lottery_ratio=LOTTERY_RATIO), sweep=sweep,
                      tuned=tuned, lottery=draws, shown=tuned if tuned is not None else sweep)
{print_readouts("dd", "double-descent", "regime", '"dd_n_label": N, "dd_noise_label": NOISE,')}"""
    fit = "the oracle's ridge (tuned on the test error)" if s.tuned_ridge else (
        f"ridge {s.ridge:g}" if s.ridge else "the least-norm fit")
    return [
        Section("Model", "Random ReLU features against their width, the kernel limit H = ∞, "
                "the oracle's ridge and the lottery of feature draws, as the app computes "
                "them. " + HELPERS,
                prelude() + "\n\n\n" + module_code(dd)),
        Section("The page's numbers", "What the page's verdict says, read off the results.",
                run_type("DoubleDescentRun") + constants(LOTTERY_DRAWS=jobs_value('LOTTERY_DRAWS'))
                + "\n\n\n"
                + jobs_source("number", "dd_numbers", "dd_verdict", "dd_details")),
        Section("Run", f"d = {s.d}, n = {s.n}, label noise {s.noise:g}, {fit}, seeds 0 to "
                f"{s.seeds - 1}{', with a second feature scale' if s.second_scale else ''}; "
                f"the lottery at H = {s.lottery_ratio * s.n}.", run),
    ]


def _overparametrisation(s: OverparametrisationSettings) -> list[Section]:
    spec = ds.DATASETS["spirals"]
    data = (constants(MAX_POINTS=ds.MAX_POINTS, MAX_CLASSES=ds.MAX_CLASSES) + "\n\n\n"
            + source(ds._rng, ds._check, ds._labels, ds.spirals)
            + f"\n\n\ndef make_dataset(name, seed=0):\n"
              f"    \"\"\"The {spec.label} with the app's defaults (the only dataset used).\"\"\"\n"
              f"    return spirals(seed, {spec.n_per_class!r}, {spec.noise!r})")
    run = f"""{constants(SEEDS=s.seeds, PRUNE_WIDTH=s.prune_width, SPIRAL_WIDTHS=jobs_value('SPIRAL_WIDTHS'))}

spirals_run = spirals_by_width(list(SPIRAL_WIDTHS), list(range(SEEDS)))
real = pruning(PRUNE_WIDTH, 0, shuffled=False)
shuffled = pruning(PRUNE_WIDTH, 0, shuffled=True)
run = SimpleNamespace(settings=SimpleNamespace(prune_width=PRUNE_WIDTH), spirals=spirals_run,
                      real=real, shuffled=shuffled)
{print_readouts("over", "overparametrisation")}"""
    return [
        Section("Data", f"The {spec.label}: {spec.n_per_class} points per class, noise "
                f"{spec.noise:g}, from the dataset's own generator.", data),
        Section("Model", "2-H-1 nets trained with Adam on the spirals, several seeds at once, "
                "and magnitude pruning, as the app computes them. " + HELPERS,
                prelude() + "\n\n\n" + source(dd.run_steps) + "\n\n\n" + MLP_CODE + "\n\n\n"
                + module_code(overparam)),
        Section("The page's numbers", "What the page's verdict says, read off the results.",
                run_type("OverparametrisationRun") + constants(PRUNE_MARGIN=jobs_value('PRUNE_MARGIN'))
                + "\n\n\n"
                + jobs_source("_per_width", "over_numbers", "over_verdict", "over_details")),
        Section("Run", f"Widths {', '.join(map(str, jobs_value('SPIRAL_WIDTHS')))} from seeds "
                f"0 to {s.seeds - 1}; one net of {s.prune_width} units pruned, with the real and "
                "with shuffled labels.", run),
    ]


def _infinite_width(s: InfiniteWidthSettings) -> list[Section]:
    run = f"""{constants(SEEDS=s.seeds, LAZY_WIDTHS=jobs_value('LAZY_WIDTHS'))}

study = lazy_training(list(LAZY_WIDTHS), list(range(SEEDS)))
run = SimpleNamespace(settings=SimpleNamespace(seeds=SEEDS), lazy=study)
{print_readouts("lazy", "infinite-width")}"""
    return [
        Section("Model", "A 1-m-1 net in NTK parametrisation trained by gradient descent, "
                "and its trained linearisation (the kernel model), as the app computes "
                "them. " + HELPERS,
                prelude() + "\n\n\n" + source(dd.run_steps) + "\n\n\n" + module_code(lazy)),
        Section("The page's numbers", "What the page's verdict says, read off the results.",
                run_type("InfiniteWidthRun")
                + jobs_source("number", "_per_width", "lazy_numbers", "lazy_verdict",
                              "lazy_details")),
        Section("Run", f"Widths {', '.join(map(str, jobs_value('LAZY_WIDTHS')))}, seeds 0 to "
                f"{s.seeds - 1}.", run),
    ]


#: page -> (its settings in the state, its sections, what the header says it is)
PAGES: dict[str, tuple[str, Callable, str]] = {
    "double-descent": ("double_descent", _double_descent,
                       "the double-descent sweep, its kernel limit and the lottery"),
    "overparametrisation": ("overparametrisation", _overparametrisation,
                            "the spirals by width and the pruning study"),
    "infinite-width": ("infinite_width", _infinite_width, "the lazy-training study"),
}
