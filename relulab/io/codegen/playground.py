"""The Playground's experiment as a script: its data, its network's first weights, its
training, and the readouts of its status strip after as many steps as it made."""

from __future__ import annotations

from typing import Any

from relulab.io.codegen import trainer
from relulab.io.codegen.sources import Section, constants, literal, source
from relulab.model.data import datasets as ds
from relulab.model.lessons.playground import PlaygroundState, same_network, shuffled_labels

#: What each dataset's generator needs beside itself (functions and constants).
_NEEDS: dict[str, tuple[list, dict[str, Any]]] = {
    "circles": ([ds._check, ds._labels], {}),
    "xor": ([ds._check], {}),
    "xor_corners": ([ds._check], {"XOR_CORNERS": ds.XOR_CORNERS}),
    "spirals": ([ds._check, ds._labels], {}),
    "gaussians": ([ds._check, ds._labels], {}),
    "checkerboard": ([ds._check, ds._labels], {}),
    "regress_plane": ([ds._check_points, ds._regression, ds.plane_target], {}),
    "regress_gaussians": ([ds._check_points, ds._regression, ds.bumps_target],
                          {"REGRESS_BUMPS": ds.REGRESS_BUMPS,
                           "REGRESS_BUMP_RADIUS": ds.REGRESS_BUMP_RADIUS}),
}

FEATURE_CODE = '''FEATURES = {
    "x1": lambda a, b: a,
    "x2": lambda a, b: b,
    "x1^2": lambda a, b: a * a,
    "x2^2": lambda a, b: b * b,
    "x1*x2": lambda a, b: a * b,
    "sin(x1)": lambda a, b: np.sin(a),
    "sin(x2)": lambda a, b: np.sin(b),
}


def features(X, names):
    """The network's inputs: column i is feature names[i] of the points X (N, 2)."""
    a, b = X[:, 0], X[:, 1]
    out = np.empty((len(X), len(names)))
    for i, name in enumerate(names):
        out[:, i] = FEATURES[name](a, b)
    return out'''


def formula_code(text: str) -> str:
    """The typed regression target as a numpy function, written from the app's parse
    of ``text`` (the script evaluates no string), and the problem's generator."""
    f = ds.parse_formula(text)
    typed = " ".join(text.split())  # a tab typed in f would end the comment's line
    return (source(ds._check_points, ds._regression) + f"""


def formula_target(X):
    # f(x₁, x₂) = {typed}, as typed in the panel
    x1, x2 = X[:, 0], X[:, 1]
    with np.errstate(all="ignore"):
        y = {f.python()}
    return np.broadcast_to(np.asarray(y, dtype=float), x1.shape).copy()""")


def data_section(state: PlaygroundState) -> Section:
    """The points from the dataset's own generator where they are its points, else as
    they are in the panel (points added or moved by hand, a typed boundary curve)."""
    d = state.dataset
    generated = d.name in _NEEDS and state.points == d.points()
    if d.name == "regress_formula" and state.points == d.points():
        code = (constants(MAX_POINTS=ds.MAX_POINTS) + "\n\n\n" + source(ds._rng) + "\n\n\n"
                + formula_code(d.formula) + "\n\n\n" + source(ds.held_out_mask)
                + f"\n\n\nX_all, y_all = _regression(formula_target, {d.seed!r}, "
                  f"{d.n_per_class!r}, {d.noise!r})\n"
                  f"is_test = held_out_mask(len(y_all), {d.test_fraction!r}, {d.seed!r})")
        text = (f"The typed regression problem f(x₁, x₂) = {' '.join(d.formula.split())} from "
                f"seed {d.seed}, {d.n_per_class} points, noise {d.noise:g}; a share of "
                f"{d.test_fraction:g} held out to test.")
    elif generated:
        helpers, consts = _NEEDS[d.name]
        maker = ds.DATASETS[d.name].make
        options = f", classes={d.classes}" if d.classes != 2 else ""
        consts = {"MAX_POINTS": ds.MAX_POINTS, "MAX_CLASSES": ds.MAX_CLASSES, **consts}
        code = (constants(**consts) + "\n\n\n"
                + source(ds._rng, *helpers, maker, ds.held_out_mask)
                + f"\n\n\nX_all, y_all = {maker.__name__}({d.seed!r}, {d.n_per_class!r}, "
                  f"{d.noise!r}{options})\n"
                  f"is_test = held_out_mask(len(y_all), {d.test_fraction!r}, {d.seed!r})")
        text = (f"The {ds.DATASETS[d.name].label} dataset from seed {d.seed}, "
                f"{d.n_per_class} points per class, noise {d.noise:g}; a share of "
                f"{d.test_fraction:g} held out to test.")
    else:
        p = state.points
        code = (f"X_all = {literal(p.x)}\ny_all = {literal(p.label)}\n"
                f"is_test = {literal(p.test)}")
        text = ("The panel's points as they are (edited by hand, or drawn from a typed "
                "curve this script does not parse).")
    code += "\nX, y = X_all[~is_test], y_all[~is_test]\nX_test, y_test = X_all[is_test], y_all[is_test]"
    if d.random_labels:
        code = (source(shuffled_labels) + "\n\n\n" + code
                + f"\ny = shuffled_labels(y, {d.seed!r})  # random labels: the same classes, shuffled")
    return Section("Data", text, code)


def network_section(state: PlaygroundState, names: tuple[str, ...] | None) -> Section:
    """The weights training starts from: He initialisation from the weights seed when
    they are that, else the panel's own numbers."""
    arch = state.architecture
    net = state.initial
    acts = repr(list(net.activations))
    if same_network(net, arch.random_network()):
        code = f'''def he_network(sizes, seed):
    """W ~ N(0, 2/fan_in) of shape (out, in), b ~ U(-0.5, 0.5), drawn in layer order."""
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        params.append(rng.normal(0.0, np.sqrt(2.0 / n_in), (n_out, n_in)))
        params.append(rng.uniform(-0.5, 0.5, n_out))
    return params


params = he_network({list(net.sizes)!r}, {arch.init_seed!r})'''
        text = (f"A {'-'.join(map(str, net.sizes))} network, He-initialised from weights seed "
                f"{arch.init_seed}.")
    else:
        rows = ",\n    ".join(f"{literal(a)}" for layer in net.layers for a in layer)
        code = f"params = [\n    {rows},\n]"
        text = f"The {'-'.join(map(str, net.sizes))} network's first weights, as in the panel."
    code += f"\nactivations = {acts}"
    if names is not None:
        code = FEATURE_CODE + "\n\n\n" + code + f"\nfeature_names = {list(names)!r}"
    return Section("Network", text, code)


def steps_of(state: PlaygroundState) -> int:
    """The steps the panel made, or (none yet) the step it stops at."""
    return state.training.step or state.training.max_steps


def sections(state: PlaygroundState) -> list[Section]:
    config = state.training.config()
    fmap = state.architecture.feature_map
    names = None if fmap.is_identity else tuple(fmap.names)
    steps = steps_of(state)
    inputs = ("features(X, feature_names)", "features(X_test, feature_names)") if names else (
        "X", "X_test")
    run = (trainer.config_code(config) + f"\nSTEPS = {steps}\n\n"
           f"inputs, inputs_test = {inputs[0]}, {inputs[1]}\n"
           "training = Trainer(params, activations, inputs, y, config)\n"
           "training.run(STEPS)\n"
           "if training.diverged:\n    print(training.message)\n"
           "print_readouts(readouts(training, activations, inputs_test, y_test), config, "
           "len(y), len(y_test))")
    return [
        Section("Imports", "", "import math\n" + (
            # the regression generator's annotation names it
            "from collections.abc import Callable\n" if state.dataset.regress else "")
            + "from types import SimpleNamespace\n\nimport numpy as np"),
        data_section(state),
        network_section(state, names),
        trainer.activation_section(state.initial.activations),
        trainer.trainer_section(),
        trainer.readout_section(state.classes if not config.is_regression else 0),
        Section("Run", f"Train for {steps} steps and print the panel's readouts.", run),
    ]


def header(state: PlaygroundState) -> str:
    return ("The ReLU Lab Playground's experiment, exported: it rebuilds the data, the\n"
            "network and the training with numpy alone and prints the panel's readouts\n"
            f"after {steps_of(state)} steps (the same numbers as the app for the same seeds).")
