"""The fold animation of the Folding panel: each layer of the tent turns the part of
[0, 1] above the peak over while the part below stretches, one layer after another.

:class:`FoldAnimation` is a mixin of the panel: it uses its ``_state``, ``_timer`` (the
frame timer, FRAME_MS), ``play`` button, ``figures``, ``_tent``, ``_set_status`` and
``_refresh``.
"""

from __future__ import annotations

from relulab.model.pieces.folding import fold_frame
from relulab.ui.panels.base import signals_blocked
from relulab.ui.panels.folding.jobs import sync_depth

#: The fold animation stops adding layers here: 4096 pieces already fill the plot.
ANIMATION_LAYERS = 12
#: A fold is watched: each layer turns over in FRAMES_PER_LAYER frames of FRAME_MS
#: (1.2 s), then rests HOLD_FRAMES (0.5 s) on its result before the next one.
FRAMES_PER_LAYER = 24
FRAME_MS = 50
HOLD_FRAMES = 10


def animation_plan(depth: int, peak: float, max_frames: int | None = None) -> list[tuple[int, float]]:
    """(layer, share folded) per frame of the fold animation at ``depth`` and ``peak``;
    the live animation rests on each finished layer, an export (``max_frames``) spends
    its frames on the folding."""
    layers = min(depth, ANIMATION_LAYERS, sync_depth(peak))
    steps, hold = FRAMES_PER_LAYER, HOLD_FRAMES
    if max_frames is not None:
        steps, hold = max(2, min(steps, max_frames // layers)), 0
    return [(layer, min(i, steps - 1) / (steps - 1)) for layer in range(1, layers + 1)
            for i in range(steps + hold)]


class FoldAnimation:
    def _animation_plan(self, max_frames: int | None = None) -> list[tuple[int, float]]:
        return animation_plan(self._state.depth, self._state.peak, max_frames)

    def _show_frame(self, layer: int, s: float) -> None:
        peak = self._state.peak
        before = None if layer == 1 else self._tent(layer - 1, peak)
        after = self._tent(layer, peak)
        x, y = fold_frame(None if before is None else before.pl, after.pl, s)
        self.figures.draw_frame(x, y, layer, s)
        self._set_status(f"Layer {layer}: the part above p = {peak:.2f} turns over, "
                         "the part below stretches.")

    def _stop_animation(self) -> None:
        """A change of depth, peak or fold ends a running animation."""
        if self._timer.isActive():
            self._timer.stop()
            with signals_blocked(self.play):
                self.play.setChecked(False)
            self.play.setText("Fold ▶")
            self._set_status("")

    def toggle_animation(self) -> None:
        self.play.toggle()

    def _on_play(self, on: bool) -> None:
        if on:
            self._frames = self._animation_plan()
            self._frame_index = 0
            self.play.setText("Stop ■")
            self._timer.start()
        else:
            self._timer.stop()
            self.play.setText("Fold ▶")
            self._set_status("")
            self._refresh()

    def _animation_tick(self) -> None:
        if self._frame_index >= len(self._frames):
            self.play.setChecked(False)  # ends the animation and redraws g^(k)
            return
        self._show_frame(*self._frames[self._frame_index])
        self._frame_index += 1

    def animation_running(self) -> bool:
        return self._timer.isActive()

    def animation_frames(self, max_frames: int = 120):
        """Folding [0, 1] one layer at a time, one yield per frame (for GIF export)."""
        self.play.setChecked(False)
        try:
            for layer, s in self._animation_plan(max_frames)[:max_frames]:
                self._show_frame(layer, s)
                yield
        finally:
            self._refresh()
