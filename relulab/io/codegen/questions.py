"""The Questions panel's experiment as a script: the shown page's experiment rerun with
the page's settings, and the numbers the page's verdict states, printed as the panel's
``readouts()`` names them (``dd_*``, ``over_*``, ``lazy_*``).

The model's modules are pure numpy: their source is copied whole (less their docstring
and their relulab imports, which the script defines itself), and so are the functions
that read the page's numbers off the results, so the script and the app agree bit for
bit.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable
from functools import cache
from importlib.resources import files
from types import ModuleType

from relulab.io.codegen.sources import Section, constants, source
from relulab.model.core import arrays, cancel
from relulab.model.data import datasets as ds
from relulab.model.lessons.questions import (
    DoubleDescentSettings,
    InfiniteWidthSettings,
    OverparametrisationSettings,
    QuestionsState,
)
from relulab.model.questions import double_descent as dd
from relulab.model.questions import lazy, overparam

#: What the script may import (module -> names; "" for the module itself), each line
#: written only when the code uses one of its names.
_IMPORTABLE = (("math", ("",)), ("collections.abc", ("Callable", "Generator", "Sequence")),
               ("dataclasses", ("dataclass", "field")), ("types", ("SimpleNamespace",)),
               ("typing", ("Any",)), ("numpy", ("",)), ("numpy.typing", ("ArrayLike", "DTypeLike")))
_ALIASES = {"numpy": "np"}


def imports(code: str) -> str:
    """The import lines ``code`` needs: the standard library's, then numpy's."""
    lines = []
    for module, names in _IMPORTABLE:
        if names == ("",):
            name = _ALIASES.get(module, module)
            if re.search(rf"\b{name}\.", code):
                alias = f" as {name}" if name != module else ""
                lines.append(("\n" if module == "numpy" else "") + f"import {module}{alias}")
            continue
        used = [n for n in names if re.search(rf"\b{n}\b", code)]
        if used:
            lines.append(f"from {module} import {', '.join(used)}")
    return "\n".join(lines).strip()


#: What a model module imports from relulab, and the script defines in its stead.
_PROVIDED = {"readonly", "ShouldStop", "check", "make_dataset", "MLP", "run_steps"}

_HELPERS = ("Stopping early is the app's (a script never asks to); read-only arrays keep "
            "the results as the app holds them.")

_MLP = '''class MLP:
    """The app's network as far as the experiment uses it: its (W, b) layers, and He
    initialisation W ~ N(0, 2/fan_in), b ~ U(-0.5, 0.5), drawn in layer order."""

    def __init__(self, layers, activation="relu"):
        self.layers = [(np.asarray(W, dtype=float), np.asarray(b, dtype=float))
                       for W, b in layers]
        self.activation = activation

    @classmethod
    def random(cls, sizes, seed=None):
        rng = np.random.default_rng(seed)
        layers = []
        for n_in, n_out in zip(sizes[:-1], sizes[1:]):
            W = rng.normal(0.0, np.sqrt(2.0 / n_in), (n_out, n_in))
            b = rng.uniform(-0.5, 0.5, n_out)
            layers.append((W, b))
        return cls(layers)'''


_IMPORTED = {_ALIASES.get(m, m) if names == ("",) else n for m, names in _IMPORTABLE for n in names}


def module_code(module: ModuleType) -> str:
    """``module``'s source without its docstring and its imports (the script's first
    section makes them; each name they bring must be one the script imports or, for
    relulab's, defines)."""
    text = inspect.getsource(module)
    tree = ast.parse(text)
    drop: set[int] = set()
    for i, node in enumerate(tree.body):
        docstring = (i == 0 and isinstance(node, ast.Expr)
                     and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
        future_or_ours = False
        if isinstance(node, ast.Import | ast.ImportFrom):
            future_or_ours = True
            origin = node.module or "" if isinstance(node, ast.ImportFrom) else ""
            known = _PROVIDED if origin.startswith("relulab") else _IMPORTED
            missing = {a.asname or a.name for a in node.names} - known - {"annotations"}
            if missing:
                raise ValueError(f"{module.__name__} needs {', '.join(sorted(missing))}, "
                                 "which the script does not define")
        if docstring or future_or_ours:
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    kept = [line for n, line in enumerate(text.splitlines(), start=1) if n not in drop]
    return "\n".join(kept).strip()


@cache
def _jobs() -> tuple[str, dict[str, ast.stmt]]:
    """The Questions panel's part-1 jobs (``jobs/__init__.py``) as text and its top-level
    statements by name.
    Read, not imported: the file formats stay below the UI (the import rules), yet the
    script states the page's numbers with the page's own functions."""
    text = (files("relulab") / "ui" / "panels" / "questions" / "jobs" / "__init__.py").read_text(
        encoding="utf-8")
    named: dict[str, ast.stmt] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            named[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        named[name.id] = node
    return text, named


def jobs_source(*names: str) -> str:
    """The source of the panel's ``jobs.py`` definitions ``names`` (functions, or the
    assignments of constants), separated as :func:`source` separates them."""
    text, named = _jobs()
    lines = text.splitlines()
    out = []
    for name in names:
        if name not in named:
            raise ValueError(f"the Questions panel's jobs have no {name}")
        node = named[name]
        out.append("\n".join(lines[node.lineno - 1:node.end_lineno]))
    return "\n\n\n".join(out)


def jobs_value(name: str):
    """A constant of the panel's ``jobs.py`` (a literal)."""
    node = _jobs()[1][name]
    assert isinstance(node, ast.Assign)
    value = ast.literal_eval(node.value)
    target = node.targets[0]
    if isinstance(target, ast.Tuple):  # A, B = 1, 2
        names = [e.id for e in target.elts if isinstance(e, ast.Name)]
        return value[names.index(name)]
    return value


def _prelude() -> str:
    return ("ShouldStop = Callable[[], bool] | None\n\n\n"
            + source(cancel.Cancelled, cancel.check, arrays.readonly))


def _run_type(name: str) -> str:
    return f"{name} = SimpleNamespace  # the page's run: its settings and its results\n\n\n"


def _print_readouts(prefix: str, page: str, word: str = "verdict", labels: str = "") -> str:
    """Code printing the page's verdict and details, then what the panel's
    ``readouts()`` holds for the page: its settings' labels, the verdict's one word
    (the numbers' ``word``), the details and the numbers' plain values."""
    return f"""print({prefix}_verdict(run))
print({prefix}_details(run))
readouts = {{{labels}"{prefix}_verdict": {prefix}_numbers(run)["{word}"],
            "{prefix}_details": {prefix}_details(run)}}
for key, value in {prefix}_numbers(run).items():
    if isinstance(value, (int, float, str)):  # the {page} page's readouts
        readouts["{prefix}" + "_" + str(key)] = value
for key, value in readouts.items():
    print(f"{{key}} = {{value!r}}")"""


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
{_print_readouts("dd", "double-descent", "regime", '"dd_n_label": N, "dd_noise_label": NOISE,')}"""
    fit = "the oracle's ridge (tuned on the test error)" if s.tuned_ridge else (
        f"ridge {s.ridge:g}" if s.ridge else "the least-norm fit")
    return [
        Section("Model", "Random ReLU features against their width, the kernel limit H = ∞, "
                "the oracle's ridge and the lottery of feature draws, as the app computes "
                "them. " + _HELPERS,
                _prelude() + "\n\n\n" + module_code(dd)),
        Section("The page's numbers", "What the page's verdict says, read off the results.",
                _run_type("DoubleDescentRun") + constants(LOTTERY_DRAWS=jobs_value('LOTTERY_DRAWS'))
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
{_print_readouts("over", "overparametrisation")}"""
    return [
        Section("Data", f"The {spec.label}: {spec.n_per_class} points per class, noise "
                f"{spec.noise:g}, from the dataset's own generator.", data),
        Section("Model", "2-H-1 nets trained with Adam on the spirals, several seeds at once, "
                "and magnitude pruning, as the app computes them. " + _HELPERS,
                _prelude() + "\n\n\n" + source(dd.run_steps) + "\n\n\n" + _MLP + "\n\n\n"
                + module_code(overparam)),
        Section("The page's numbers", "What the page's verdict says, read off the results.",
                _run_type("OverparametrisationRun") + constants(PRUNE_MARGIN=jobs_value('PRUNE_MARGIN'))
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
{_print_readouts("lazy", "infinite-width")}"""
    return [
        Section("Model", "A 1-m-1 net in NTK parametrisation trained by gradient descent, "
                "and its trained linearisation (the kernel model), as the app computes "
                "them. " + _HELPERS,
                _prelude() + "\n\n\n" + source(dd.run_steps) + "\n\n\n" + module_code(lazy)),
        Section("The page's numbers", "What the page's verdict says, read off the results.",
                _run_type("InfiniteWidthRun")
                + jobs_source("number", "_per_width", "lazy_numbers", "lazy_verdict",
                              "lazy_details")),
        Section("Run", f"Widths {', '.join(map(str, jobs_value('LAZY_WIDTHS')))}, seeds 0 to "
                f"{s.seeds - 1}.", run),
    ]


#: page -> (its settings in the state, its sections, what the header says it is)
_PAGES: dict[str, tuple[str, Callable, str]] = {
    "double-descent": ("double_descent", _double_descent,
                       "the double-descent sweep, its kernel limit and the lottery"),
    "overparametrisation": ("overparametrisation", _overparametrisation,
                            "the spirals by width and the pruning study"),
    "infinite-width": ("infinite_width", _infinite_width, "the lazy-training study"),
}


def _page(state: QuestionsState) -> tuple[str, Callable, str]:
    if state.page not in _PAGES:
        raise ValueError(f"the {state.page} page cannot be exported as code yet "
                         f"(these can: {', '.join(_PAGES)})")
    return _PAGES[state.page]


def sections(state: QuestionsState) -> list[Section]:
    attr, make, _ = _page(state)
    body = make(getattr(state, attr))
    return [Section("Imports", "", imports("\n".join(s.code for s in body))), *body]


def header(state: QuestionsState) -> str:
    _, _, what = _page(state)
    return textwrap.fill(
        f"The ReLU Lab Questions panel's experiment, exported: the {state.page} page, {what}, "
        "rerun with numpy alone, and the numbers its verdict states (the same as the app's "
        "for the same seeds).", 84)
