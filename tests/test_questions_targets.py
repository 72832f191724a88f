"""One-hot against soft targets (seeds 0–9): a one-hot classifier gives the look-alike
class far more probability than the far classes, and a teacher's soft targets raise a
student trained on two points a class."""

import numpy as np

from relulab.model import fit_linear_classifier, one_hot_similarity, soft_targets
from relulab.model.questions.simplex import softmax
from relulab.model.questions.targets import lookalike_blobs


def test_one_hot_learns_which_classes_look_alike():
    """Measured: 0.13–0.19 on the look-alike class (the issue's prototype: 0.21)
    against 0.0002–0.0015 on each far class (prototype: 0.0008)."""
    s = one_hot_similarity(10)
    assert np.all(s.lookalike > 0.1) and np.all(s.others < 0.005)
    assert np.all(s.lookalike > 50 * s.others)


def test_soft_targets_help_a_student_of_two_points_a_class():
    """Measured: +0.1 to +11.5 points in 10/10 seeds, median +3 (the prototype: about
    9 points in 10/10)."""
    r = soft_targets(10, n_per_class=2)
    assert np.all(r.gain() > 0)
    assert 0.015 < np.median(r.gain()) < 0.1
    assert r.to_dict()["n_per_class"] == 2


def test_soft_targets_follow_the_distributions_gradient():
    """A soft target equal to one-hot trains exactly as the label; a uniform target
    leaves W at zero (the gradient link(z) − target vanishes at z = 0)."""
    X, y = lookalike_blobs(0, 5)
    a = fit_linear_classifier(X, y, steps=50, record=[0, 50])
    b = fit_linear_classifier(X, np.eye(4)[y], steps=50, record=[0, 50])
    np.testing.assert_allclose(a.W, b.W)
    c = fit_linear_classifier(X, np.full((len(X), 4), 0.25), steps=50, record=[0, 50])
    assert np.all(c.W == 0)
    np.testing.assert_allclose(softmax(np.zeros(4)), 0.25)
