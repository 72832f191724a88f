"""The Questions panel's softmax page: both maps at the logit vector typed or dragged,
drawn to scale on the triangle (sparsemax the nearest point to z), and the two
classifiers, trained on the page's worker, stated by their own numbers."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from relulab.model import fit_linear_classifier, softmax, sparsemax
from relulab.model.lessons.questions import (
    DoubleDescentSettings,
    QuestionsState,
    SimplexSettings,
)
from relulab.model.questions.simplex import blobs
from relulab.ui.panels.questions.page_simplex import CORNERS, from_plane, logit_point, to_plane
from tests.ui.questions_pages import settle_questions

SMALL = QuestionsState(page="simplex", double_descent=DoubleDescentSettings(n=50, seeds=3))


def settle(panel) -> None:
    settle_questions(panel)


@pytest.fixture
def panel(questions_panel):
    return questions_panel(SMALL)


def test_the_simplex_settings_round_trip_and_refuse_what_is_wrong():
    s = QuestionsState(page="simplex", simplex=SimplexSettings(logits=(2, -1.5, 0), seed=9))
    assert QuestionsState.from_dict(s.to_dict()) == s and s.simplex.logits == (2.0, -1.5, 0.0)
    for bad, words in (({"simplex": {"logits": [1, 2]}}, r"simplex\.logits"),
                       ({"simplex": {"logits": [1, 2, 9]}}, r"simplex\.logits"),
                       ({"simplex": {"seed": 10}}, r"simplex\.seed")):
        with pytest.raises(ValueError, match=words):
            QuestionsState.from_dict(bad)


def test_the_drawing_is_to_scale():
    """The plane's map keeps distances (up to 1/√2): sparsemax, the nearest point of
    the simplex to z, is drawn as the nearest point of the triangle to z's point."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        p, q = rng.normal(size=3), rng.normal(size=3)
        p, q = p - p.mean() + 1 / 3, q - q.mean() + 1 / 3
        assert np.linalg.norm(to_plane(p) - to_plane(q)) == pytest.approx(
            np.linalg.norm(p - q) / np.sqrt(2))
        np.testing.assert_allclose(from_plane(*to_plane(p)), p, atol=1e-12)
    np.testing.assert_allclose(to_plane(np.eye(3)), CORNERS)


def test_typed_logits_show_both_maps(panel):
    c = panel.page_controls["simplex"]
    c.z[2].setValue(-2.0)  # as typing would: one undo step
    z = (1.0, 0.5, -2.0)
    assert panel.state.simplex.logits == z
    f = panel.figures["simplex"]
    np.testing.assert_allclose(np.r_[f.soft.getData()], to_plane(softmax(z)))
    np.testing.assert_allclose(np.r_[f.sparse.getData()], to_plane(sparsemax(z)))
    np.testing.assert_allclose(np.r_[f.handle.getData()], logit_point(z))
    p = softmax(z)  # against numpy's own: exp(z) / Σ exp(z)
    np.testing.assert_allclose(p, np.exp(z) / np.exp(z).sum())
    assert c.maps.shown_text == (
        f"z = (1.00, 0.50, −2.00): softmax ({p[0]:.2f}, {p[1]:.2f}, {p[2]:.2f}), "
        "sparsemax (0.75, 0.25, 0), one class at exactly 0")
    assert not any(w.busy for w in panel._workers.values())  # the fits do not run again
    panel.undo_stack.undo()
    assert panel.state.simplex.logits == SimplexSettings().logits == tuple(
        s.value() for s in c.z)


def test_a_drag_moves_z_live_and_commits_once(panel):
    f = panel.figures["simplex"]
    count = panel.undo_stack.count()
    target = to_plane([0.2, 0.1, 0.7])  # inside the triangle: sparsemax is z itself
    f.handle.drag_moved.emit(0, QPointF(*target))
    assert panel.undo_stack.count() == count  # live: no edit until the drag ends
    np.testing.assert_allclose(np.r_[f.sparse.getData()], target, atol=0.01)
    f.handle.drag_finished.emit(0)
    assert panel.undo_stack.count() == count + 1
    z = panel.state.simplex.logits
    assert z == pytest.approx((0.2 - 1 / 3, 0.1 - 1 / 3, 0.7 - 1 / 3), abs=0.005)
    np.testing.assert_allclose(sparsemax(z), [0.2, 0.1, 0.7], atol=0.01)


def test_the_verdict_states_the_classifiers_numbers(panel):
    run = panel.result()
    X, y, Xt, yt = blobs(0)
    soft = fit_linear_classifier(X, y, "softmax", steps=3000, X_test=Xt, y_test=yt,
                                 record=[0, 3000])
    assert run.blobs[0].accuracy == soft.accuracy
    sparse = run.blobs[1]
    s_soft, s_sparse = run.separable
    verdict = panel.views["simplex"].verdict.shown_text
    assert (f"(test accuracy {soft.accuracy:.3f} with softmax, {sparse.accuracy:.3f} with "
            f"sparsemax); sparsemax gives the true class probability 0 on "
            f"{sparse.zero_true:.1%} of test points, so its log-loss is ∞ (softmax "
            f"{soft.log_loss:.2f})") in verdict
    assert sparse.zero_true > 0 and np.isinf(sparse.log_loss)
    growth, change = s_soft.growth(1000), s_sparse.change(1000)
    assert change < 0.6 * growth
    assert (f"softmax's weights keep growing ({growth:+.0%} from step 1,000 to 3,000); "
            f"sparsemax's stop (they move {change:.1%})") in verdict
    assert panel.readouts()["simplex_verdict"] == "sparsemax settles"
    _x, yv = panel.figures["simplex"].soft_curve.getOriginalDataset()
    np.testing.assert_allclose(yv, s_soft.norms()[1:])


def test_a_new_seed_runs_on_the_worker_and_export_has_the_data(panel, qtbot):
    panel.page_controls["simplex"].seed.setValue(3)
    assert panel.result() is None and panel.progress.isVisibleTo(panel)
    with qtbot.waitSignal(panel.finished, timeout=60_000):
        pass
    assert panel.result().settings.seed == 3
    assert list(panel.plots()) == ["main", "norms"]
    tables = panel.data_tables()
    assert tables["weights over training"][0] == ["step", "|W| softmax", "|W| sparsemax"]
    assert tables["blobs"][1][1][3] == "inf"
    quote = panel.views["simplex"].quote.shown_text
    assert "the Euclidean projection onto the probability simplex is sparsemax. Then why " \
           "softmax?" in quote and "Before NN101" in quote
