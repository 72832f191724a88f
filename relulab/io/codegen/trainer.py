"""The training of the Playground and the Training panel's classifier as script text:
the trainer's own methods (:class:`relulab.model.fitting.classify.Trainer`) copied
into a small class of the same shape, and the readouts its snapshot reports."""

from __future__ import annotations

from collections.abc import Sequence

from relulab.io.codegen.sources import Section, constants, source
from relulab.model.fitting import classify
from relulab.model.fitting.classify import (
    DIVERGENCE_LIMIT,
    LOSSES,
    OPTIMIZERS,
    REGRESSION_LOSSES,
    TrainConfig,
    Trainer,
)
from relulab.model.networks import activations as act
from relulab.model.networks.activations import Activation, get_activation


def activation_section(names: Sequence[str]) -> Section:
    """φ and φ' of the hidden layers' activations (and σ, which every classifier uses)."""
    funcs: list = [act._floats, act.sigmoid]
    table = []
    for name in dict.fromkeys(names):
        a = get_activation(name)
        if a.name == "gelu":
            funcs.append(act.erf)
        for f in (a.f, a.df, a.df_given_output):
            if f is not None and f not in funcs:
                funcs.append(f)
        given = a.df_given_output.__name__ if a.df_given_output else "None"
        table.append(f"    {name!r}: Activation({a.f.__name__}, {a.df.__name__}, {given}),")
    cls = ("class Activation:\n"
           "    \"\"\"An activation φ, its derivative φ', and φ' given also h = φ(z) where cheaper.\"\"\"\n\n"
           "    def __init__(self, f, df, df_given_output=None):\n"
           "        self.f, self.df, self.df_given_output = f, df, df_given_output\n\n"
           + source(Activation.derivative).replace("\n", "\n    ").join(["    ", ""]))
    code = (constants(LEAKY_SLOPE=act.LEAKY_SLOPE) + "\n_SQRT2 = np.sqrt(2.0)\n"
            "_SQRT2PI = np.sqrt(2.0 * np.pi)\n\n" + source(*funcs) + "\n\n\n" + cls
            + "\n\n\nACTIVATIONS = {\n" + "\n".join(table) + "\n}")
    return Section("Activations", "Each hidden layer computes h = φ(W·x + b).", code)


def trainer_section() -> Section:
    """The Trainer: the app's update, batches, optimisers and divergence check, verbatim."""
    methods = [Trainer._batch, Trainer._output_gradient, Trainer.gradients, Trainer._update,
               Trainer._step, Trainer._finite, Trainer.run]
    body = "\n\n".join("    " + source(m).replace("\n", "\n    ") for m in methods)
    body = body.replace("\n    \n", "\n\n")
    init = '''class Trainer:
    """Trains the network (params = [W1, b1, W2, b2, ...], W of shape (out, in)) on the
    training points; the methods below are the app's own."""

    def __init__(self, params, activations, X, y, config):
        self.params = [np.array(p, dtype=float) for p in params]
        self._phis = [ACTIVATIONS[a] for a in activations]
        self.X, self.y, self.config = X, y, config
        self.step = 0
        self._m = [np.zeros_like(p) for p in self.params]
        self._v = [np.zeros_like(p) for p in self.params]
        self._adam_t = 0
        self._rng = np.random.default_rng(config.seed)
        self._order = np.zeros(0, dtype=int)
        self._cursor = 0
        self.diverged = False
        self.message = ""
        self._net = self._snapshot = None
'''
    helpers = source(classify.softmax, classify.predicted_classes, classify.loss_from_logits,
                     classify._share_right)
    code = (constants(DIVERGENCE_LIMIT=DIVERGENCE_LIMIT, LOSSES=LOSSES) + "\n\n\n" + helpers
            + "\n\n\n" + init + "\n" + body)
    text = ("Full-batch or mini-batch gradient descent or Adam on the loss, with the weight "
            "penalty if any; an update whose weights stop being finite is undone and training "
            "stops.")
    return Section("Training", text, code)


def readout_section(classes: int) -> Section:
    """The forward pass, the penalty and the panel's status lines."""
    labels = {**LOSSES, **REGRESSION_LOSSES}
    code = constants(OPTIMIZERS=OPTIMIZERS, LOSS_LABELS=labels, CLASSES=classes) + '''


def logits(params, activations, X):
    """The network's outputs: (N,) for one output (a logit), (N, C) for C."""
    h = X
    for i in range(len(params) // 2):
        z = h @ params[2 * i].T + params[2 * i + 1]
        if i < len(activations):
            h = ACTIVATIONS[activations[i]].f(z)
    return z[:, 0] if z.shape[1] == 1 else z


def weight_penalty(params, regularization, rate):
    """r·Σ|w| (L1) or r·½Σw² (L2) over the weight matrices, never the biases."""
    if regularization is None or rate == 0:
        return 0.0
    Ws = params[0::2]
    if regularization == "l1":
        return float(rate * sum(np.abs(W).sum() for W in Ws))
    return float(rate * 0.5 * sum((W * W).sum() for W in Ws))


def readouts(trainer, activations, X_test, y_test):
    """What the panel reports: step, loss (with the penalty) and accuracy."""
    c = trainer.config
    with np.errstate(all="ignore"):
        z_tr = logits(trainer.params, activations, trainer.X)
        z_te = logits(trainer.params, activations, X_test)
        penalty = weight_penalty(trainer.params, c.regularization, float(c.regularization_rate))
        return {"step": trainer.step,
                "train_loss": loss_from_logits(z_tr, trainer.y, c.loss) + penalty,
                "train_accuracy": _share_right(z_tr, trainer.y, CLASSES),
                "test_loss": loss_from_logits(z_te, y_test, c.loss),
                "test_accuracy": _share_right(z_te, y_test, CLASSES)}


def percent(v):
    return "—" if not math.isfinite(v) else f"{100 * v:.1f} %"


def number(v):
    return "—" if not math.isfinite(v) else f"{v:.3g}"


def print_readouts(r, config, n_train, n_test):
    """The panel's status lines, then every readout in full."""
    print(f"Step {r['step']} · {OPTIMIZERS[config.optimizer]}, "
          f"rate {config.learning_rate:g}, {LOSS_LABELS[config.loss]}")
    print(f"Train ({n_train}): accuracy {percent(r['train_accuracy'])}, loss {number(r['train_loss'])}")
    print(f"Test ({n_test}): accuracy {percent(r['test_accuracy'])}, loss {number(r['test_loss'])}")
    for key, value in r.items():
        print(f"{key} = {value!r}")'''
    return Section("Readouts", "The panel's readouts: loss and accuracy on the training and "
                   "test points (the training loss includes the weight penalty).", code)


def config_code(config: TrainConfig) -> str:
    """The training settings as a plain namespace with the trainer's field names."""
    fields = ", ".join(f"{k}={getattr(config, k)!r}" for k in config.__dataclass_fields__)
    return f"config = SimpleNamespace({fields})"
