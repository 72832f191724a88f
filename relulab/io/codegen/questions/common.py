"""What every page's script shares: its imports, the model's modules copied whole, the
page's own functions read from the panel's jobs, and the lines printing the readouts.

The model's modules are pure numpy: their source is copied whole (less their docstring
and their relulab imports, which the script defines itself), and so are the functions
that read the page's numbers off the results, so the script and the app agree bit for
bit.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterable
from functools import cache
from importlib.resources import files
from types import ModuleType

from relulab.io.codegen.sources import source
from relulab.model.core import arrays, cancel

#: What the script may import (module -> names; "" for the module itself), each line
#: written only when the code uses one of its names.
_IMPORTABLE = (("math", ("",)), ("collections.abc", ("Callable", "Generator", "Sequence")),
               ("dataclasses", ("dataclass", "field")), ("fractions", ("Fraction",)),
               ("functools", ("cache",)), ("itertools", ("pairwise",)),
               ("types", ("SimpleNamespace",)), ("typing", ("Any", "Literal")),
               ("numpy", ("",)), ("numpy.typing", ("ArrayLike", "DTypeLike")))
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

HELPERS = ("Stopping early is the app's (a script never asks to); read-only arrays keep "
           "the results as the app holds them.")

MLP_CODE = '''class MLP:
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


def _drop_ours(text: str, nodes: Iterable[ast.stmt], known: set[str] | None, where: str
               ) -> set[int]:
    """The lines (1-based) of ``nodes``' imports from relulab, anywhere inside them, and
    the blank line after each; ValueError when such an import brings a name not in
    ``known`` (the names the script defines in their stead; None: any name)."""
    lines = text.splitlines()
    drop: set[int] = set()
    for top in nodes:
        for node in ast.walk(top):
            if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("relulab")):
                continue
            missing = {a.asname or a.name for a in node.names} - (known or set())
            if known is not None and missing:
                raise ValueError(f"{where} needs {', '.join(sorted(missing))}, which the script "
                                 "does not define")
            end = node.end_lineno or node.lineno
            drop.update(range(node.lineno, end + 1))
            if end < len(lines) and not lines[end].strip():
                drop.add(end + 1)
    return drop


def module_code(module: ModuleType, defined: Iterable[str] = (), leave: Iterable[str] = ()
                ) -> str:
    """``module``'s source without its docstring and its imports (the script's first
    section makes them; each name they bring must be one the script imports or, for
    relulab's, defines: the usual helpers, or ``defined``, the names of the modules
    copied before it). Imports from relulab inside a function go too, and so do the
    functions ``leave`` (what the experiment does not call and needs data it lacks)."""
    text = inspect.getsource(module)
    tree = ast.parse(text)
    known = _PROVIDED | set(defined)
    drop: set[int] = set()
    left = set(leave)
    for i, node in enumerate(tree.body):
        docstring = (i == 0 and isinstance(node, ast.Expr)
                     and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
        if isinstance(node, ast.FunctionDef) and node.name in left:
            left.discard(node.name)
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            drop.update(range(start, (node.end_lineno or node.lineno) + 1))
        if isinstance(node, ast.Import | ast.ImportFrom) and not (
                isinstance(node, ast.ImportFrom) and (node.module or "").startswith("relulab")):
            missing = {a.asname or a.name for a in node.names} - _IMPORTED - {"annotations"}
            if missing:
                raise ValueError(f"{module.__name__} needs {', '.join(sorted(missing))}, "
                                 "which the script does not import")
            docstring = True  # dropped like the docstring: the script imports it
        if docstring:
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    if left:
        raise ValueError(f"{module.__name__} has no function {', '.join(sorted(left))}")
    drop |= _drop_ours(text, tree.body, known, module.__name__)
    kept = "\n".join(line for n, line in enumerate(text.splitlines(), start=1) if n not in drop)
    if leave:  # the blank lines around a function left out
        kept = re.sub(r"\n{4,}", "\n\n\n", kept)
    return kept.strip()


@cache
def _jobs(file: str) -> tuple[str, dict[str, ast.stmt]]:
    """One of the Questions panel's jobs files (``jobs/__init__.py``: part 1's and the
    shared helpers; ``jobs/<page>.py``: a part-2 page's) as text, and its top-level
    statements by name.
    Read, not imported: the file formats stay below the UI (the import rules), yet the
    script states the page's numbers with the page's own functions."""
    path = files("relulab") / "ui" / "panels" / "questions" / "jobs" / file
    text = path.read_text(encoding="utf-8")
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


def jobs_source(*names: str, file: str = "__init__.py", rename: dict[str, str] | None = None
                ) -> str:
    """The source of the panel's jobs definitions ``names`` (functions with their
    decorators, classes, or the assignments of constants with their ``#:`` comment)
    from ``file``: functions and classes apart as :func:`source` separates them,
    constants in a block. Their imports from relulab inside a function go (the script
    copies the model's modules they come from; running the script shows a name it
    lacks); ``rename`` renames a name throughout the text (a helper whose name a model
    module uses for another)."""
    text, named = _jobs(file)
    lines = text.splitlines()
    code, taken, before = "", set(), None
    for name in names:
        if name not in named:
            raise ValueError(f"the Questions panel's jobs/{file} has no {name}")
        node = named[name]
        if id(node) in taken:  # A, B = 1, 2 asked for as A and B
            continue
        taken.add(id(node))
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        while start > 1 and lines[start - 2].startswith("#:"):  # what the constant is
            start -= 1
        drop = _drop_ours(text, [node], None, f"jobs/{file}")
        piece = "\n".join(line for n, line in enumerate(
            lines[start - 1:node.end_lineno], start=start) if n not in drop)
        constant = isinstance(node, ast.Assign)
        if before is not None:
            code += "\n" if constant and before else "\n\n\n"
        code, before = code + piece, constant
    for old, new in (rename or {}).items():
        code = re.sub(rf"\b{re.escape(old)}\b", new, code)
    return code


def jobs_value(name: str, file: str = "__init__.py"):
    """A constant of the panel's jobs ``file`` (a literal)."""
    node = _jobs(file)[1][name]
    assert isinstance(node, ast.Assign)
    value = ast.literal_eval(node.value)
    target = node.targets[0]
    if isinstance(target, ast.Tuple):  # A, B = 1, 2
        names = [e.id for e in target.elts if isinstance(e, ast.Name)]
        return value[names.index(name)]
    return value


def prelude() -> str:
    return ("ShouldStop = Callable[[], bool] | None\n\n\n"
            + source(cancel.Cancelled, cancel.check, arrays.readonly))


def run_type(name: str) -> str:
    return f"{name} = SimpleNamespace  # the page's run: its settings and its results\n\n\n"


def print_readouts(prefix: str, page: str, word: str = "verdict", labels: str = "",
                   functions: str | None = None) -> str:
    """Code printing the page's verdict and details, then what the panel's
    ``readouts()`` holds for the page: its settings' labels (``labels``, the dict's
    entries as code), the verdict's one word (the numbers' ``word``), the details and
    the numbers' plain values. The page's functions are ``<functions>_numbers`` …
    (``functions``: the readouts' ``prefix`` unless told)."""
    f = functions or prefix
    return f"""print({f}_verdict(run))
print({f}_details(run))
readouts = {{{labels}"{prefix}_verdict": {f}_numbers(run)["{word}"],
            "{prefix}_details": {f}_details(run)}}
for key, value in {f}_numbers(run).items():
    if isinstance(value, (int, float, str)):  # the {page} page's readouts
        readouts["{prefix}" + "_" + str(key)] = value
for key, value in readouts.items():
    print(f"{{key}} = {{value!r}}")"""


def top_level_functions(code: str) -> list[str]:
    """The names of the functions and classes ``code`` defines at its top level."""
    return [n.name for n in ast.parse(code).body
            if isinstance(n, ast.FunctionDef | ast.ClassDef)]
