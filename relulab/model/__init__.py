"""The Qt-free core of ReLU Lab: numpy, scipy and numba only.

Everything the panels show is computed here, so it can be used from a notebook::

    from relulab.model import MLP, fit_hinges, piecewise_linear, tent_network
    net = tent_network(8)
    piecewise_linear(net).restrict(0, 1).n_pieces        # 256, counted exactly

The submodules hold more (``relulab.model.fitting.hinges``, ``.training``, ``.piecewise``,
``.folding``, ``.regions``, ``.shallow``, ``.datasets``, ``.classify``,
``.collapse``, ``.depth``, ``.questions``); the names below are the ones most used. They are
imported on first use (PEP 562), so importing one submodule does not import them
all, nor scipy: the window opens faster.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "networks.activations": ["ACTIVATIONS", "Activation", "get_activation"],
    "fitting.classify": ["ClassifierSnapshot", "TrainConfig", "Trainer", "decision_map",
                         "circles_lesson_run"],
    "networks.collapse": ["collapse", "collapsed_network"],
    "data.datasets": ["DATASETS", "circles", "make_dataset"],
    "regions.depth": ["parameter_count", "regions_against_depth"],
    "data.expression": ["Expression", "ExpressionError", "parse_expression"],
    "pieces.folding": ["tent_network"],
    "fitting.hinges": ["HingeFit", "convergence_study", "evenly_spaced_kinks", "fit_hinges",
               "interpolate_hinges", "interpolation_bound"],
    "networks.mlp": ["MLP", "compose"],
    "pieces.piecewise": ["PiecewiseLinear", "piecewise_linear"],
    "regions.activation": ["Region", "RegionPolygon", "count_linear_regions", "linear_regions",
                "region_polygons"],
    "shallow.extended": ["ExtendedNetwork"],
    "shallow.construction": ["convert", "corollary_bound", "to_shallow", "to_shallow_extended"],
    "data.targets": ["DEFAULT_TARGET", "PRESETS", "Target", "target_from_text"],
    "questions.double_descent": ["DoubleDescent", "Lottery", "double_descent", "lottery",
                                 "tuned_ridge"],
    "questions.lazy": ["LazyTraining", "lazy_training"],
    "questions.lottery_ticket": ["LotteryTickets", "lottery_tickets"],
    "questions.overparam": ["Pruning", "SpiralsByWidth", "pruning", "spirals_by_width"],
    "questions.simplex": ["LinearFit", "fit_linear_classifier", "softmax", "sparsemax"],
    "questions.gelu": ["GeluVsRelu", "gelu_vs_relu", "relu_as_gelu"],
    "questions.parity": ["ParityRace", "mlp_full_parity", "nearest_neighbour_parity",
                         "parity_race"],
    "questions.targets": ["Similarity", "SoftTargets", "one_hot_similarity", "soft_targets"],
    "questions.why_deep": ["FeatureScores", "deep_square", "hidden_layer_fits",
                           "product_feature"],
    "fitting.training": ["HingeNetTrainer", "RestartsSnapshot", "init_hinge_net", "iter_hinge_net",
                 "refit_output_layer", "train_hinge_net"],
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = list(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'relulab.model' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"relulab.model.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
