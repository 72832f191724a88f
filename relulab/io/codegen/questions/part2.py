"""The Questions panel's part-2 pages as scripts (parity, softmax, why layers, GELU,
one-hot, lottery tickets): each reruns the page's experiment with its settings and
prints the numbers its verdict states, as the panel's ``readouts()`` names them
(``<short>_*``: ``parity_*``, ``simplex_*``, ``deep_*``, ``gelu_*``, ``targets_*``,
``tickets_*``), with what the page shows of its settings without the job (the maps at
the logit vector, the deep square's error, the GELU twin's gap).

Each page's job is ``jobs/<page>.py``: its numbers, verdict and details are read from
there as text and copied, its run is written out here step by step as the job takes it.
"""

from __future__ import annotations

from collections.abc import Callable

from relulab.io.codegen.questions import cephes
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
    GeluSettings,
    ParitySettings,
    SimplexSettings,
    TargetsSettings,
    TicketsSettings,
    WhyDeepSettings,
)
from relulab.model.networks import activations, exact
from relulab.model.questions import double_descent as dd
from relulab.model.questions import (
    gelu,
    lottery_ticket,
    overparam,
    parity,
    simplex,
    targets,
    why_deep,
)

#: The network with what the exact pieces (why-deep) and the GELU twin ask of it.
MLP_FULL = '''class MLP:
    """The app's network as far as the experiments use it: its (W, b) layers (W of
    shape (out, in)), one activation for its hidden layers (ReLU or GELU), and He
    initialisation W ~ N(0, 2/fan_in), b ~ U(-0.5, 0.5), drawn in layer order."""

    def __init__(self, layers, activation="relu"):
        self.layers = [(np.array(W, dtype=float, ndmin=2), np.array(b, dtype=float).reshape(-1))
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
        return cls(layers)

    @property
    def n_in(self):
        return self.layers[0][0].shape[1]

    @property
    def n_out(self):
        return self.layers[-1][0].shape[0]

    @property
    def n_hidden_neurons(self):
        return sum(W.shape[0] for W, _ in self.layers[:-1])

    def is_finite(self):
        return all(np.all(np.isfinite(W)) and np.all(np.isfinite(b)) for W, b in self.layers)

    def forward(self, x):
        """The pre-activations z_1 … z_L at inputs x (N, n_in), the last one the output."""
        h = np.asarray(x, dtype=float)
        zs = []
        for i, (W, b) in enumerate(self.layers):
            z = h @ W.T + b
            zs.append(z)
            if i < len(self.layers) - 1:
                h = gelu(z) if self.activation == "gelu" else np.maximum(z, 0.0)
        return zs'''

_MAKE_DATASET = '''def make_dataset(name, seed=0, n_per_class=None, noise=None, classes=2):
    """The dataset ``name`` with its defaults where not given, in ``classes`` classes."""
    make, default_noise, default_points = DATASET_DEFAULTS[name]
    options = {} if classes == 2 else {"classes": classes}
    return make(seed, default_points if n_per_class is None else n_per_class,
                default_noise if noise is None else noise, **options)'''

_NUMBERS = "What the page's verdict says, read off the results."


def _datasets(*names: str) -> Section:
    """The Playground's datasets ``names``, from their own generators, and
    ``make_dataset`` with their defaults."""
    specs = [ds.DATASETS[n] for n in names]
    table = "\n".join(f'    "{s.name}": ({s.make.__name__}, {s.noise!r}, {s.n_per_class!r}),'
                      for s in specs)
    code = (constants(MAX_POINTS=ds.MAX_POINTS, MAX_CLASSES=ds.MAX_CLASSES) + "\n\n\n"
            + source(ds._rng, ds._check, ds._labels, *(s.make for s in specs)) + "\n\n\n"
            + "#: name -> (its generator, its noise, its points a class), the app's defaults\n"
            + "DATASET_DEFAULTS = {\n" + table + "\n}\n\n\n" + _MAKE_DATASET)
    labels = [s.label for s in specs]
    said = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
    return Section("Data", f"The Playground's {said}, from the datasets' own generators with "
                   "their defaults.", code)


def _model(text: str, *parts: str) -> Section:
    return Section("Model", text + " " + HELPERS, "\n\n\n".join(
        (prelude(), source(dd.run_steps), *parts)))


def _seeds(n: int) -> str:
    return f"seeds 0 to {n - 1}"


def _parity(s: ParitySettings) -> list[Section]:
    file = "parity.py"
    bits, steps, full = (jobs_value(n, file) for n in ("N_BITS", "RACE_STEPS", "FULL_BITS"))
    run = f"""{constants(K=s.k, SEEDS=s.seeds)}

race = parity_race(N_BITS, K, steps=RACE_STEPS, seeds=SEEDS)
nearest = tuple(nearest_neighbour_parity(FULL_BITS, seed) for seed in range(SEEDS))
mlp = tuple(float(a) for a in mlp_full_parity(FULL_BITS, SEEDS))
run = SimpleNamespace(settings=SimpleNamespace(k=K, seeds=SEEDS), race=race, nearest=nearest,
                      mlp=mlp)
{print_readouts("parity", "parity")}"""
    return [
        _model("Sparse parity against majority of the same k bits (n-256-1 ReLU nets trained "
               "online with SGD, all seeds at once), then 1-nearest-neighbour and the same "
               "kind of net on full parity, as the app computes them.", module_code(parity)),
        Section("The page's numbers", _NUMBERS, run_type("ParityRun") + jobs_source(
            "N_BITS", "RACE_STEPS", "FULL_BITS", "_steps", "parity_numbers", "_steps_text",
            "parity_verdict", "parity_details", file=file)),
        Section("Run", f"Parity and majority of k = {s.k} of {bits} random ±1 bits, "
                f"{_seeds(s.seeds)}, at most {steps:,} steps; full parity of {full} bits.", run),
    ]


def _simplex(s: SimplexSettings) -> list[Section]:
    file = "simplex.py"
    steps, blob_lr, separable_lr = (jobs_value(n, file)
                                    for n in ("STEPS", "BLOB_LR", "SEPARABLE_LR"))
    run = f"""{constants(LOGITS=s.logits, SEED=s.seed)}

X, y, X_test, y_test = blobs(SEED)
X_separable, y_separable = separable(SEED)
fits = [fit_linear_classifier(X, y, link, steps=STEPS, X_test=X_test, y_test=y_test,
                              lr=BLOB_LR, record=[0, STEPS]) for link in LINKS]
fits += [fit_linear_classifier(X_separable, y_separable, link, steps=STEPS, lr=SEPARABLE_LR)
         for link in LINKS]
run = SimpleNamespace(settings=SimpleNamespace(seed=SEED), blobs=(fits[0], fits[1]),
                      separable=(fits[2], fits[3]))
{print_readouts("simplex", "simplex", labels='"simplex_maps": maps(LOGITS)["zeros"], ')}"""
    z = ", ".join(f"{v:g}" for v in s.logits)
    return [
        _datasets("gaussians"),
        _model("Softmax and sparsemax, the simplex's two projections, and a linear "
               "classifier trained full-batch with either link, as the app computes them.",
               module_code(simplex)),
        Section("The page's numbers", _NUMBERS, run_type("SimplexRun") + jobs_source(
            "STEPS", "BLOB_LR", "SEPARABLE_LR", "FROM", "SETTLED", "maps", "simplex_numbers", "_loss",
            "simplex_verdict", "simplex_details", file=file, rename={"_loss": "_loss_text"})),
        Section("Run", f"The blobs of seed {s.seed}: {steps:,} full-batch steps with each link "
                f"on the overlapping blobs (learning rate {blob_lr:g}) and on the separable "
                f"ones ({separable_lr:g}); both maps at z = ({z}).", run),
    ]


def _why_deep(s: WhyDeepSettings) -> list[Section]:
    run = f"""{constants(M=s.m, SEEDS=s.seeds)}

feature = product_feature(DATASETS, SEEDS)
net = hidden_layer_fits(DATASETS, SEEDS)
run = SimpleNamespace(settings=SimpleNamespace(m=M, seeds=SEEDS), feature=feature, net=net)
{print_readouts("deep", "why-deep", labels='"deep_square": float(square(M).error), ',
                functions="why_deep")}"""
    return [
        _datasets(*why_deep.DATASETS),
        _model("The feature x1·x2 alone (logistic regression) against 2-16-16-1 ReLU nets "
               "trained with Adam, all seeds at once; Yarotsky's deep square and its exact "
               "error, from the net's exact pieces in rational arithmetic, as the app "
               "computes them.", MLP_FULL, module_code(exact),
               module_code(why_deep, defined=["exact_line"])),
        Section("The page's numbers", _NUMBERS, run_type("WhyDeepRun") + jobs_source(
            "Square", "square", "DATASET_NAMES", "why_deep_numbers", "why_deep_verdict",
            "why_deep_details", file="why_deep.py")),
        Section("Run", f"Each dataset from {_seeds(s.seeds)}; the deep square of depth "
                f"m = {s.m}.", run),
    ]


def _gelu(s: GeluSettings) -> list[Section]:
    run = f"""{constants(SCALE=s.scale, SEEDS=s.seeds)}

fits = gelu_vs_relu(seeds=SEEDS)
run = SimpleNamespace(settings=SimpleNamespace(scale=SCALE, seeds=SEEDS), fits=fits)
{print_readouts("gelu", "gelu", labels='"gelu_twin": twin(SCALE).gap, ')}"""
    act = activations
    return [
        _model("GELU with scipy's error function (its algorithm in numpy, bit for bit), "
               "1-16-1 ReLU and GELU nets trained alike with Adam, and the GELU twin of a "
               "ReLU net, as the app computes them.", module_code(cephes),
               "_SQRT2 = np.sqrt(2.0)\n_SQRT2PI = np.sqrt(2.0 * np.pi)\n\n\n"
               + source(act._floats, act.gelu, act.gelu_prime), MLP_FULL,
               module_code(gelu, defined=["gelu", "gelu_prime"])),
        Section("The page's numbers", _NUMBERS, run_type("GeluRun") + jobs_source("number")
                + "\n\n\n" + jobs_source("TWIN_X", "Twin", "twin", "gelu_numbers",
                                         "gelu_verdict", "gelu_details", file="gelu.py")),
        Section("Run", f"sin(πx) and |x| from {_seeds(s.seeds)}; the twin at a = {s.scale}.",
                run),
    ]


def _targets(s: TargetsSettings) -> list[Section]:
    file = "targets.py"
    run = f"""{constants(SEEDS=s.seeds)}

lookalike, others, one_hot, soft = [], [], [], []
for seed in range(SEEDS):  # one at a time, as the page runs them
    similarity = one_hot_similarity([seed])
    lookalike.append(float(similarity.lookalike[0]))
    others.append(float(similarity.others[0]))
    students = soft_targets([seed], n_per_class=STUDENT_POINTS)
    one_hot.append(float(students.one_hot[0]))
    soft.append(float(students.soft[0]))
run = SimpleNamespace(settings=SimpleNamespace(seeds=SEEDS), lookalike=np.array(lookalike),
                      others=np.array(others), one_hot=np.array(one_hot), soft=np.array(soft))
{print_readouts("targets", "targets")}"""
    return [
        _model("Linear classifiers trained full-batch with the softmax link (the softmax "
               "page's, less its blobs), the look-alike blobs, what one-hot labels teach and "
               "what a teacher's soft targets add, as the app computes them.",
               module_code(simplex, leave=("blobs", "separable")),
               module_code(targets, defined=["fit_linear_classifier", "softmax"])),
        Section("The page's numbers", _NUMBERS, run_type("TargetsRun") + jobs_source("number")
                + "\n\n\n" + jobs_source("STUDENT_POINTS", "targets_numbers", "targets_verdict",
                                         "targets_details", file=file)),
        Section("Run", f"{_seeds(s.seeds).capitalize()}, one at a time; students of "
                f"{jobs_value('STUDENT_POINTS', file)} points a class.", run),
    ]


def _tickets(s: TicketsSettings) -> list[Section]:
    file = "tickets.py"
    run = f"""{constants(SEEDS=s.seeds)}


def seed_done(done, total):
    \"\"\"A line as each seed's four trainings are done (each takes a few seconds).\"\"\"
    per_seed = len(PHASES) * STEPS
    if done % per_seed == 0:
        print(f"seed {{done // per_seed}} of {{total // per_seed}} trained", flush=True)


tickets = lottery_tickets(SEEDS, steps=STEPS, progress=seed_done)
run = SimpleNamespace(settings=SimpleNamespace(seeds=SEEDS), tickets=tickets)
{print_readouts("tickets", "tickets")}"""
    lt = lottery_ticket
    return [
        _datasets("spirals"),
        _model("2-H-1 nets trained with Adam on the spirals (the over-parametrisation "
               "page's), one round of magnitude pruning and the three sparse retrainings, as "
               "the app computes them.", MLP_CODE, module_code(overparam),
               module_code(lt, defined=["LEARNING_RATE", "STEPS", "_Batch", "_train"])),
        Section("The page's numbers", _NUMBERS, run_type("TicketsRun") + jobs_source(
            "STEPS", "tickets_numbers", "tickets_verdict", "tickets_details", file=file)),
        Section("Run", f"{_seeds(s.seeds).capitalize()}: a dense 2-{lt.WIDTH}-1 net, "
                f"{lt.KEEP:.0%} of each layer's weights kept, {jobs_value('STEPS', file):,} "
                "Adam steps each training; a line as each seed is done.", run),
    ]


#: page -> (its settings in the state, its sections, what the header says it is)
PAGES: dict[str, tuple[str, Callable, str]] = {
    "parity": ("parity", _parity, "sparse parity against majority and nearest neighbours"),
    "simplex": ("simplex", _simplex, "softmax against sparsemax"),
    "why-deep": ("why_deep", _why_deep, "one feature against hidden layers, and the deep "
                 "square"),
    "gelu": ("gelu", _gelu, "GELU against ReLU"),
    "targets": ("targets", _targets, "what one-hot labels teach and soft targets add"),
    "tickets": ("tickets", _tickets, "the lottery tickets"),
}
