"""The Qt-free core of ReLU Lab: numpy (and scipy) only.

Everything the panels show is computed here, so it can be used from a notebook::

    from relulab.model import MLP, parse_expression
"""

from relulab.model.activations import ACTIVATIONS, Activation, get_activation
from relulab.model.expression import Expression, ExpressionError, parse_expression
from relulab.model.mlp import MLP, compose
from relulab.model.targets import DEFAULT_TARGET, PRESETS, Target, target_from_text

__all__ = [
    "ACTIVATIONS", "Activation", "get_activation",
    "Expression", "ExpressionError", "parse_expression",
    "MLP", "compose",
    "DEFAULT_TARGET", "PRESETS", "Target", "target_from_text",
]
