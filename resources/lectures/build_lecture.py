"""Build the built-in lecture (relulab/resources/lectures/) from the real panels.

Each scene is made by setting up the panels through their own ``load_state`` and
saving what ``state_dict`` then says, so the files always match the panels' state
formats. Run from the repository root after a panel changes its state format:

    QT_QPA_PLATFORM=offscreen python resources/lectures/build_lecture.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "relulab" / "resources" / "lectures"

TITLE = "How ReLU networks approximate functions"

# -- how each scene sets up its panels: default state -> scene state -------------
# Each takes the panel's default state_dict() (and the panel, for the few scenes that
# run the panel's own training) and returns the state to store. A panel whose state
# does not have the fields (not written yet) keeps its default.

def _has(state, *keys) -> bool:
    return all(k in state for k in keys)


def _without(state, *keys) -> dict:
    """``state`` less ``keys``: a field left out takes what the panel derives from the
    rest (a Playground state without ``initial`` starts, and replays, from its network)."""
    return {k: v for k, v in state.items() if k not in keys}


def hinged_ruler(state, panel):
    """The notebook, step 2: one ruler c·ReLU(x − b), here c = 0.75, b = −1, free to drag."""
    if not _has(state, "mode", "kinks", "coefficients"):
        return state
    return {**state, "mode": "free", "kinks": [-1.0], "coefficients": [0.75],
            "intercept": 0.0, "slope": 0.0, "selected": None, "show_components": False,
            "show_residual": False, "show_convergence": False}


def least_squares(n):
    """The notebook, step 3: n evenly spaced kinks inside [−3, 3], coefficients by least squares."""
    def setup(state, panel):
        if not _has(state, "mode", "kinks"):
            return state
        kinks = [-3.0 + 6.0 * (i + 1) / (n + 1) for i in range(n)]
        return {**state, "mode": "least squares", "kinks": kinks, "coefficients": [0.0] * n,
                "selected": None, "show_components": False, "show_residual": True,
                "show_convergence": n > 6}
    return setup


def interpolation(n):
    """The lesson: the interpolation construction with n neurons and its error bound."""
    def setup(state, panel):
        if not _has(state, "mode", "interpolation_n"):
            return state
        # the error against n and its bound, not the residual: on a projector the
        # caption leaves room for one plot beside the main one
        return {**state, "mode": "interpolation", "interpolation_n": n, "selected": None,
                "show_components": False, "show_residual": False, "show_convergence": True}
    return setup


def notebook_training(state, panel):
    """The notebook, step 4: 12 hidden neurons, Adam at 0.01, 20000 steps, six starts (the
    panel's defaults); not trained yet, so the room watches it happen (Space)."""
    if not _has(state, "hidden", "restarts"):
        return state
    return {**state, "hidden": 12, "lr": 0.01, "steps": 20000, "restarts": 6,
            "optimizer": "adam", "step": 0}


def tent(depth):
    """The notebook's step 5 and the lesson's sawtooth: the tent composed ``depth`` times."""
    def setup(state, panel):
        if "depth" not in state:
            return state
        tent_only = {k: v for k, v in (("peak", 0.5), ("show_fold", False)) if k in state}
        return {**state, "depth": depth, **tent_only}  # the symmetric tent of the seeds, alone
    return setup


def linear_collapse(state, panel):
    """The lesson's 2-2-1 network W₁ = [[1, 2], [3, −1]], W₂ = [2, 1], no
    activation; on the circles its boundary can only be a straight line."""
    if not _has(state, "architecture", "network"):
        return state
    from relulab.model.networks.collapse import lesson_network

    net = lesson_network("identity")
    return {**_without(state, "initial"),
            "architecture": {**state["architecture"], "hidden": [2], "activation": "identity"},
            "network": {"activation": "identity",
                        "layers": [{"W": W.tolist(), "b": b.tolist()} for W, b in net.layers]},
            "training": {**state["training"], "step": 0},
            "history": {k: [] for k in state["history"]}}


def circles_trained(state, panel):
    """The lesson's 2-6-1 circles network, trained by the panel itself with plain
    gradient descent at rate 0.5 for 2000 full-batch steps from the lesson's start."""
    if not _has(state, "architecture", "network", "points", "training"):
        return state
    from relulab.model.fitting.classify import circles_lesson_setup

    X, y, net = circles_lesson_setup(0, 6)
    start = {**_without(state, "initial"),
             "dataset": {**state["dataset"], "name": "circles", "seed": 0, "test_fraction": 0.0},
             "points": {"x": X.tolist(), "label": [int(v) for v in y], "test": [False] * len(y)},
             "architecture": {**state["architecture"], "hidden": [6], "activation": "relu"},
             "network": {"activation": "relu",
                         "layers": [{"W": W.tolist(), "b": b.tolist()} for W, b in net.layers]},
             "training": {**state["training"], "optimizer": "gd", "learning_rate": 0.5,
                          "loss": "cross_entropy", "batch_size": 0, "steps_per_press": 10,
                          "max_steps": 2000, "step": 0},
             "history": {k: [] for k in state["history"]}}
    panel.load_state(start)
    while panel.trainer.step < 2000:
        panel.step_once()
    return panel.state_dict()


def double_descent(d):
    """The Questions panel's double-descent page at d = ``d``, n = 100, label noise 0.5,
    min-norm least squares, 10 seeds (the issue's measured setting)."""
    def setup(state, panel):
        if not _has(state, "page", "double_descent"):
            return state
        return {**state, "page": "double-descent",
                "double_descent": {**state["double_descent"], "d": d, "n": 100, "noise": 0.5,
                                   "ridge": 0.0, "tuned_ridge": False, "second_scale": False,
                                   "seeds": 10, "view": "error", "lottery_ratio": 1}}
    return setup


def question(page, field, **settings):
    """A part-2 page of the Questions panel (``page``, its settings in ``field``) with
    ``settings`` over the page's defaults; the page runs its own experiment when the
    scene opens, in a few seconds (not the lottery tickets: about 2 s a seed, pruned
    and retrained three times, too long to wait for in front of a room)."""
    def setup(state, panel):
        if not _has(state, "page", field):
            return state
        return {**state, "page": page, field: {**state[field], **settings}}
    return setup


# (file stem, title, panel on screen, {panel: setup}, caption)
SCENES = [
    ("01-hinged-ruler", "A ReLU is a hinged ruler", "hinges", {"hinges": hinged_ruler}, (
        "One ReLU neuron computes c·ReLU(x − b): it lies flat on the axis until its kink at "
        "x = b, and from there on it is a straight line of slope c. Here b = −1 and c = 0.75. "
        "Drag the kink sideways and the bend moves; drag it up or down and the corner follows "
        "the pointer, tilting the line on either side. Everything in this lecture is built "
        "from this one shape; the solid curve, sin(2x) + 0.3x², is what we will build with "
        "it.")),
    ("02-sum-of-hinges", "Adding hinges", "hinges", {"hinges": least_squares(3)}, (
        "Add several hinges and a straight line and you get a continuous piecewise-linear "
        "curve: between two kinks the slope is constant, and at each kink it changes by "
        "exactly that hinge's coefficient. Here a few evenly spaced kinks follow "
        "sin(2x) + 0.3x² on [−3, 3], with the coefficients chosen by least squares. The fit "
        "is rough: 3 hinges leave an RMSE of 0.52.")),
    ("03-more-hinges", "More hinges, smaller error", "hinges", {"hinges": least_squares(24)}, (
        "Double the number of hinges and the RMSE falls by about four: 0.52 with 3 hinges, "
        "0.10 with 6, 0.025 with 12 and 0.0065 with 24, where the curve and its approximation "
        "are hard to tell apart. This is the idea behind the universal approximation theorem: "
        "with enough hinges, a sum of them follows any continuous curve on an interval as "
        "closely as we like.")),
    ("04-training-six-starts", "Letting a network place the kinks", "training",
     {"training": notebook_training}, (
        "A network with one hidden layer of 12 ReLU neurons is exactly a sum of 12 hinges, "
        "but it also learns where to put its kinks. Adam trains it from six random starts at "
        "once. Five starts end between 0.033 and 0.051, one gets stuck near 0.16, and even "
        "the best is no better than 12 evenly spaced hinges fitted by least squares (0.025): "
        "good weights exist, but training does not always find them. Press Space to train and "
        "watch where the kinks gather: where the curve bends most.")),
    ("05-depth-tent", "Why depth helps: folding", "folding", {"folding": tent(3)}, (
        "Two ReLU neurons make a tent on [0, 1]: t(x) = 2·ReLU(x) − 4·ReLU(x − ½) rises to 1 "
        "and falls back. Feed the tent into itself and the interval is folded again: every "
        "layer of just two neurons doubles the number of linear pieces. Here three layers make "
        "8 pieces; 8 layers (16 neurons) give 256 pieces. A single hidden layer gains at most "
        "one piece per neuron and would need 255 neurons for the same shape. The counts here "
        "are exact, never read off a grid.")),
    ("06-linear-collapse", "Without an activation, layers collapse", "playground",
     {"playground": linear_collapse}, (
        "Take away the activation and two layers are one: W₂(W₁x + b₁) + b₂ is a single layer "
        "with weights W₂W₁. With W₁ = [[1, 2], [3, −1]] and W₂ = [2, 1] the whole network is "
        "the one neuron [5, 3], and no number of linear layers can draw anything but a "
        "straight boundary, however long it trains: no line separates the circles. Put ReLU "
        "back and the input (0, 1) gives 4 instead of 3: the collapse breaks, and the "
        "network can bend.")),
    ("07-interpolation", "Universal approximation by interpolation", "hinges",
     {"hinges": interpolation(17)}, (
        "Here the weights are computed, not trained. Put n equally spaced knots on the curve "
        "and give each ReLU neuron the change of slope between two knots: the network passes "
        "through every knot, a piecewise-linear interpolation. If |f''| ≤ M the error is at "
        "most (b − a)²M/(8n²), so doubling the neurons divides the bound by four. For this "
        "curve 17 neurons leave a largest error of 0.0702, under the bound 0.0716; it falls "
        "below 0.05 from 21 neurons on, and with 24 it is 0.0358 under the bound 0.0359.")),
    ("08-sawtooth", "The sawtooth: depth against width", "folding", {"folding": tent(6)}, (
        "Composing the tent k times gives a sawtooth with 2ᵏ straight pieces from only 2k "
        "neurons. A network with one hidden layer of m ReLU neurons has at most m + 1 pieces "
        "in one dimension, so to match the sawtooth it needs at least 2ᵏ − 1 neurons. "
        "Telgarsky used this very function to show that some functions need exponentially "
        "many neurons when the network is shallow: a statement about particular functions, "
        "not a law that depth always wins.")),
    ("09-circles", "A network that learns the circles", "playground",
     {"playground": circles_trained}, (
        "A 2-6-1 network (six ReLU neurons, a sigmoid output) has learnt to separate the "
        "central group from the ring around it with plain gradient descent: 2000 full-batch "
        "steps at learning rate 0.5 reach an accuracy of 1.0 on its 180 points (R and then "
        "Space train a fresh start). Each ReLU neuron cuts the plane with one straight line; "
        "the regions between the lines are where the network is linear, and together they "
        "bend the boundary into a closed curve. All 180 points were used for training: they "
        "show that the network fits them, not how it does on points it has not seen.")),
    ("11-double-descent", "Double descent: when the biggest model wins", "questions",
     {"questions": double_descent(20)}, (
        "Random ReLU features fitted by least squares: 100 training points in 20 dimensions, "
        "label noise 0.5, ten seeds. The test error peaks where the features just suffice to "
        "fit every point, H = n (median 57), and falls again beyond it: with 2,000 features the "
        "median is 0.20, below the best model with fewer features than points (0.45), in 10 "
        "of 10 seeds, and near the kernel limit H = ∞ (0.19). On the right, the lottery: ten "
        "draws of the features at H = n differ 410-fold.")),
    ("12-double-descent-2d", "…and when it does not", "questions",
     {"questions": double_descent(2)}, (
        "The same experiment with 2 input dimensions. The best small model reaches a median "
        "test error of 0.046; past H = n the error stays high, and the widest model ends at "
        "30: it wins in 0 of 10 seeds. Whether bigger wins depends on the dimension of the "
        "data: a picture of double descent in one or two dimensions that "
        "shows the biggest model winning is not what least squares does there.")),
    ("13-parity", "Why parity is hard", "questions",
     {"questions": question("parity", "parity", k=3, seeds=5)}, (
        "30 random ±1 bits, the label the parity or the majority of the first 3: a "
        "30-256-1 ReLU net trained by SGD reaches 95% test accuracy on majority in a median "
        "of 30 steps, on parity only after 970, slower in each of five seeds. Parity's "
        "accuracy stays under 60% for the first 470 steps in every seed, then climbs: a "
        "plateau in which, Barak et al. show, SGD makes hidden progress; this page measures "
        "the accuracy only. "
        "On full 10-bit parity 1-nearest-neighbour scores 0% on unseen strings, a net 96%: "
        "what fails is similarity.")),
    ("14-simplex", "Softmax or sparsemax", "questions",
     {"questions": question("simplex", "simplex", logits=[1.0, 0.5, -1.0], seed=0)}, (
        "Both map logits onto the triangle of distributions; sparsemax is the Euclidean "
        "projection and can give a class exactly 0: z = (1, 0.5, −1) goes to "
        "(0.75, 0.25, 0), under softmax to (0.57, 0.35, 0.08). As linear classifiers on "
        "three overlapping blobs they are as accurate (0.863 and 0.865 on test points), but "
        "sparsemax gives the true class 0 on 2.3% of them, so its log-loss is infinite. On "
        "separable blobs softmax's weights keep growing; sparsemax's stop.")),
    ("15-why-deep", "XOR by a feature, or by layers", "questions",
     {"questions": question("why-deep", "why_deep", m=3, seeds=5)}, (
        "The product x1·x2 as a feature solves XOR (test accuracy 0.989) but not the "
        "Playground's other datasets: 0.590 on the circles, 0.507 on the spirals. A "
        "2-16-16-1 net learns its own features and scores at least 0.970 on all four "
        "(medians of five seeds). Layers can make the product too, since "
        "x·y = ((x + y)² − x² − y²)/2: Yarotsky's deep square, m layers of 3 ReLUs, is "
        "within 4⁻⁽ᵐ⁺¹⁾ of x² on [0, 1], at m = 3 exactly 1/256.")),
    ("16-gelu", "GELU or ReLU", "questions",
     {"questions": question("gelu", "gelu", scale=3, seeds=5)}, (
        "GELU(az)/a approaches ReLU(z) as a grows, so a GELU net comes within "
        "0.17/a·Σ|w| of any ReLU net of the same width: at a = 3 the twins on the left "
        "differ by at most 0.14 (bound 0.26). Trained alike, 1-16-1 nets each win where "
        "their shape fits: on the smooth sin(πx) GELU's median test error is 83 times "
        "smaller, and smaller in 5 of 5 seeds; on the kink |x| ReLU's is 79 times smaller, "
        "in 5 of 5. Neither is more expressive in practice; which fits better depends on the "
        "target.")),
    ("17-targets", "One-hot or soft targets", "questions",
     {"questions": question("targets", "targets", seeds=5)}, (
        "Four Gaussian blobs, classes 1 and 2 close together. Trained on one-hot labels, a "
        "classifier still learns which classes look alike: it gives a point of class 1 a "
        "probability 0.15 of class 2 and 0.00074 of each far class (medians of five seeds). "
        "A teacher's soft targets still help a student that sees 2 points a class: higher "
        "test accuracy in all five seeds (median +3.0 points). Label smoothing and "
        "hierarchy-aware labels are not shown: they help in some seeds only.")),
]


#: Scenes written by hand, not by this script (the digits classifier sliced through three
#: pictures: the Deep → shallow panel's example network and its slice points); the
#: playlist keeps them, in the order of their file names among the scenes made here.
HAND_MADE = ("10-digits-slice",)


def build(write: bool = True) -> list[dict]:
    from relulab.app import build_main_window
    from relulab.io.scenes import PLAYLIST_FORMAT, VERSION, Scene, dump_scene

    window = build_main_window()
    defaults = {name: panel.state_dict() for name, panel in window.panels.items()}
    docs = []
    for stem, title, current, setups, caption in SCENES:
        states = {}
        for name in sorted({current, *setups}):
            panel = window.panel(name)
            panel.load_state(defaults[name])
            state = panel.state_dict()
            if name in setups:
                state = setups[name](state, panel)
                panel.load_state(state)  # the panel validates what the scene will hold
            states[name] = panel.state_dict()
        scene = Scene(panels=states, current=current, title=title, caption=caption)
        docs.append(scene.to_dict())
        if write:
            (OUT / f"{stem}.relulab.json").write_text(dump_scene(scene))
    if write:
        playlist = {"format": PLAYLIST_FORMAT, "version": VERSION, "title": TITLE,
                    "scenes": [f"{stem}.relulab.json"
                               for stem in sorted([*(s[0] for s in SCENES), *HAND_MADE])]}
        (OUT / "playlist.json").write_text(json.dumps(playlist, indent=1, ensure_ascii=False) + "\n")
    window.close()
    return docs


if __name__ == "__main__":
    build()
    print(f"wrote {len(SCENES)} scenes to {OUT} (and kept {len(HAND_MADE)} made by hand)")
