"""The Qt-free core of ReLU Lab: numpy, scipy and numba only.

Everything the panels show is computed here, so it can be used from a notebook::

    from relulab.model import MLP, fit_hinges, piecewise_linear, tent_network
    net = tent_network(8)
    piecewise_linear(net).restrict(0, 1).n_pieces        # 256, counted exactly

The submodules hold more (``relulab.model.hinges``, ``.training``, ``.piecewise``,
``.folding``, ``.regions``, ``.shallow``, ``.datasets``, ``.classify``,
``.collapse``, ``.depth``); the names below are the ones most used.
"""

from relulab.model.activations import ACTIVATIONS, Activation, get_activation
from relulab.model.classify import (
    ClassifierSnapshot,
    TrainConfig,
    Trainer,
    decision_map,
    seed002_run,
)
from relulab.model.collapse import collapse, collapsed_network
from relulab.model.datasets import DATASETS, circles, make_dataset
from relulab.model.depth import parameter_count, regions_against_depth
from relulab.model.expression import Expression, ExpressionError, parse_expression
from relulab.model.folding import tent_network
from relulab.model.hinges import (
    HingeFit,
    convergence_study,
    evenly_spaced_kinks,
    fit_hinges,
    interpolate_hinges,
    interpolation_bound,
)
from relulab.model.mlp import MLP, compose
from relulab.model.piecewise import PiecewiseLinear, piecewise_linear
from relulab.model.regions import (Region, RegionPolygon, count_linear_regions, linear_regions,
                                   region_polygons)
from relulab.model.shallow import (
    ExtendedNetwork,
    convert,
    corollary_bound,
    to_shallow,
    to_shallow_extended,
)
from relulab.model.targets import DEFAULT_TARGET, PRESETS, Target, target_from_text
from relulab.model.training import (
    HingeNetTrainer,
    RestartsSnapshot,
    init_hinge_net,
    iter_hinge_net,
    refit_output_layer,
    train_hinge_net,
)

__all__ = [
    "ACTIVATIONS", "Activation", "get_activation",
    "ClassifierSnapshot", "TrainConfig", "Trainer", "decision_map", "seed002_run",
    "collapse", "collapsed_network",
    "DATASETS", "circles", "make_dataset",
    "parameter_count", "regions_against_depth",
    "Expression", "ExpressionError", "parse_expression",
    "tent_network",
    "HingeFit", "convergence_study", "evenly_spaced_kinks", "fit_hinges",
    "interpolate_hinges", "interpolation_bound",
    "MLP", "compose",
    "PiecewiseLinear", "piecewise_linear",
    "Region", "RegionPolygon", "count_linear_regions", "linear_regions", "region_polygons",
    "ExtendedNetwork", "convert", "corollary_bound", "to_shallow", "to_shallow_extended",
    "DEFAULT_TARGET", "PRESETS", "Target", "target_from_text",
    "HingeNetTrainer", "RestartsSnapshot", "init_hinge_net", "iter_hinge_net", "refit_output_layer",
    "train_hinge_net",
]
