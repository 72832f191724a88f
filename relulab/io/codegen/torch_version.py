"""The PyTorch versions of the Playground's and the Training panel's experiments: the
same data and first weights (numpy, as in the numpy script), the training written with
torch's autograd and optimisers in float64, and the same readouts. torch's Adam and the
app's differ only in rounding, so the accuracy after training agrees to within a point
or two (the tests' tolerance: 0.02 of accuracy, 1e-3 of RMSE), not to the last bit."""

from __future__ import annotations

from relulab.io.codegen import playground, training
from relulab.io.codegen.sources import Section
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.lessons.training import TrainingState

_TORCH_ACTIVATIONS = '''import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

TORCH_ACTIVATIONS = {
    "relu": torch.relu,
    "identity": lambda z: z,
    "leaky_relu": lambda z: F.leaky_relu(z, 0.01),
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "gelu": F.gelu,
}'''

_PLAYGROUND_TRAINING = '''def torch_loss(z, y, loss):
    """The app's losses: the mean over the points, from the outputs z (N, C)."""
    if loss == "mse":
        return torch.mean((z[:, 0] - y) ** 2)
    if z.shape[1] == 1:
        if loss == "cross_entropy":
            return F.binary_cross_entropy_with_logits(z[:, 0], y)
        return 0.5 * torch.mean((torch.sigmoid(z[:, 0]) - y) ** 2)
    if loss == "cross_entropy":
        return F.cross_entropy(z, y.long())
    one_hot = F.one_hot(y.long(), z.shape[1]).to(z.dtype)
    return 0.5 * torch.mean(torch.sum((torch.softmax(z, dim=1) - one_hot) ** 2, dim=1))


def train_torch(params, activations, X, y, config, steps):
    """Train copies of params with torch; returns them as numpy arrays."""
    P = [torch.tensor(p, requires_grad=True) for p in params]
    Xt, yt = torch.tensor(X), torch.tensor(y)
    if config.optimizer == "adam":
        opt = torch.optim.Adam(P, lr=config.learning_rate, betas=(config.beta1, config.beta2),
                               eps=config.eps)
    else:
        opt = torch.optim.SGD(P, lr=config.learning_rate)
    rng = np.random.default_rng(config.seed)  # the app's mini-batch order
    order, cursor, n, bs = np.zeros(0, dtype=int), 0, len(y), int(config.batch_size)
    rate = float(config.regularization_rate)
    for _ in range(steps):
        if bs <= 0 or bs >= n:
            idx = slice(None)
        else:
            if cursor + bs > len(order):
                order, cursor = rng.permutation(n), 0
            idx = torch.as_tensor(order[cursor:cursor + bs])
            cursor += bs
        h = Xt[idx]
        for i in range(len(P) // 2):
            z = h @ P[2 * i].T + P[2 * i + 1]
            if i < len(activations):
                h = TORCH_ACTIVATIONS[activations[i]](z)
        loss = torch_loss(z, yt[idx], config.loss)
        if config.regularization == "l2" and rate:
            loss = loss + rate * 0.5 * sum((W * W).sum() for W in P[0::2])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if config.regularization == "l1" and rate:
            with torch.no_grad():  # the proximal step of r·|w|, as the app takes it
                for W in P[0::2]:
                    W.copy_(torch.sign(W) * torch.clamp(W.abs() - config.learning_rate * rate, min=0))
    return [p.detach().numpy() for p in P]'''

_TRAINING_TORCH = '''def train_torch_restarts(x, y, hidden, seeds, lr, optimizer, batch_size, init, domain,
                         steps):
    """Every restart's f(x) = Σ aᵢ·ReLU(wᵢx + bᵢ) + c trained with torch on the mean
    squared error, each on its own mini-batches (the app's order); returns each RMSE."""
    start = Restarts(x, y, hidden, seeds, lr, optimizer, batch_size, init, domain)
    H = hidden
    xs, ys = torch.tensor(start.x), torch.tensor(start.y)
    w, b, a = (torch.tensor(start.P[:, k * H:(k + 1) * H], requires_grad=True) for k in range(3))
    c = torch.tensor(start.P[:, 3 * H], requires_grad=True)
    params = [w, b, a, c]
    if optimizer == "adam":
        opt = torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), eps=1e-8)
    else:
        opt = torch.optim.SGD(params, lr=lr, momentum=0.9 if optimizer == "momentum" else 0.0)
    for s in range(steps):
        if start.batch_size is None:
            bx, by = xs.expand(len(start.seeds), -1), ys.expand(len(start.seeds), -1)
        else:
            idx = torch.as_tensor(start._batches(1)[:, 0, :])
            bx, by = xs[idx], ys[idx]
        f = (a[:, :, None] * torch.relu(w[:, :, None] * bx[:, None, :] + b[:, :, None])).sum(1)
        loss = ((f + c[:, None] - by) ** 2).mean(dim=1).sum()  # restarts are independent
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        f = (a[:, :, None] * torch.relu(w[:, :, None] * xs + b[:, :, None])).sum(1) + c[:, None]
        return torch.sqrt(((f - ys) ** 2).mean(dim=1)).numpy()'''


def playground_sections(state: PlaygroundState) -> list[Section]:
    numpy_sections = playground.sections(state)
    run = next(s for s in numpy_sections if s.title == "Run").code.splitlines()
    config, steps, inputs = run[0], run[1], run[3]
    code = (f"{config}\n{steps}\n\n{inputs}\n"
            "trained = train_torch(params, activations, inputs, y, config, STEPS)\n"
            "done = SimpleNamespace(params=trained, X=inputs, y=y, config=config, step=STEPS)\n"
            "print_readouts(readouts(done, activations, inputs_test, y_test), config, "
            "len(y), len(y_test))")
    keep = [s for s in numpy_sections if s.title != "Run"]
    return [*keep, Section("PyTorch", "The same training with torch's autograd and optimisers "
                           "(float64).", _TORCH_ACTIVATIONS + "\n\n\n" + _PLAYGROUND_TRAINING),
            Section("Run", f"Train with torch for {playground.steps_of(state)} steps and print "
                    "the panel's readouts.", code)]


def training_sections(state: TrainingState) -> list[Section]:
    numpy_sections = training.sections(state)
    keep = [s for s in numpy_sections if s.title != "Run"]
    steps = training.steps_of(state)
    code = (f"STEPS = {steps}\n"
            f"rmse = train_torch_restarts(x, y, {state.hidden!r}, range({state.restarts!r}), "
            f"{state.lr!r}, {state.optimizer!r}, {state.batch_size!r}, {state.init!r}, DOMAIN, "
            "STEPS)\n"
            "for r, value in enumerate(rmse):\n"
            "    print(f\"rmse[{r}] = {float(value)!r}\")")
    return [*keep, Section("PyTorch", "The same training with torch's autograd and optimisers "
                           "(float64).", _TORCH_ACTIVATIONS + "\n\n\n" + _TRAINING_TORCH),
            Section("Run", f"Train every restart with torch for {steps} steps.", code)]
