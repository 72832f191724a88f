"""The inputs a network file says its network takes: the Playground's feature inputs
(:mod:`relulab.model.fitting.features`), ``"features"`` in JSON (a list of names) and
a string array ``features`` in NPZ, one name per input in order. A file without them
takes the point itself, (x₁, x₂, …). ONNX files do not record them: a network whose
inputs are other features is not written as ONNX.

Programs that give a network the point's coordinates (the Deep → shallow converter,
``relulab convert`` and ``relulab slice``) read files through
:func:`relulab.io.networks.load_network`, which refuses a network taking other
features in one line; the Playground reads them with
:func:`relulab.io.networks.load_network_and_features`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relulab.io.limits import shown_name
from relulab.model.fitting.features import FEATURE_NAMES, FeatureMap

#: The key (JSON) and array (NPZ) that hold the feature names.
FEATURES_KEY = "features"


def checked_features(value: Any, n_in: int, name: str) -> tuple[str, ...]:
    """The feature names ``value`` as a tuple, one per input of a network with ``n_in``
    inputs; a ValueError (one line) says what is wrong."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "U" or value.ndim != 1:
            raise ValueError(f"{name}: features must be a 1-D array of feature names")
        value = [str(v) for v in value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name}: \"features\" must be a list of feature names "
                         f"({', '.join(FEATURE_NAMES)})")
    unknown = [v for v in value if v not in FEATURE_NAMES]
    if unknown:
        raise ValueError(f"{name}: unknown feature '{shown_name(unknown[0])}'; the features are "
                         f"{', '.join(FEATURE_NAMES)}")
    if len(set(value)) < len(value):
        raise ValueError(f"{name}: \"features\" names a feature twice")
    if len(value) != n_in:
        raise ValueError(f"{name}: {len(value)} features for a network of {n_in} inputs")
    return tuple(value)


def recorded_features(doc: dict, n_in: int, name: str) -> tuple[str, ...] | None:
    """The features a JSON document or an NPZ's arrays record (None: none), checked
    against the network's ``n_in`` inputs."""
    return checked_features(doc[FEATURES_KEY], n_in, name) if FEATURES_KEY in doc else None


def refuse_other_inputs(features: tuple[str, ...] | None, name: str) -> None:
    """Refuse a network whose inputs are not the point (x₁, x₂) itself, for a reader that
    gives it the point's coordinates."""
    if features is not None and not FeatureMap(features).is_identity:
        shown = ", ".join(FeatureMap(features).labels)
        raise ValueError(f"{name}: the network takes the features {shown}, not the point "
                         "(x₁, x₂); open it in the Playground")


def features_to_write(features: Any, n_in: int, fmt: str) -> tuple[str, ...] | None:
    """The features to record in a file of format ``fmt`` (None: none given); ONNX
    records none, so a network taking other features than (x₁, x₂) is refused there."""
    if features is None:
        return None
    names = checked_features(list(FeatureMap.of(features).names), n_in, "the network")
    if fmt == "onnx":
        refuse_other_inputs(names, "ONNX records no feature inputs")
        return None
    return names
