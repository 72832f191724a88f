"""Dragging a hinge's handle, in the four phases of every drag in the app: start
(remember the state and where the pointer pressed), move (the state follows the
pointer; the least-squares refit runs on every move and fits in a frame), finish (one
undo step) and cancel (a right click puts the state back).

A mixin of :class:`relulab.ui.panels.hinges.panel.HingesPanel`: it reads and sets the
panel's ``_state`` and calls its ``_refresh``, ``_sync_widgets``, ``commit`` and
``apply_state``.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QPointF, Qt


class HandleDrags:
    """The handles' drag signals, turned into states."""

    def _on_drag_start(self, i: int, pos: QPointF) -> None:
        s = self._state
        self.plot.setFocus(Qt.FocusReason.MouseFocusReason)
        height = s.height(s.kinks[i]) if s.mode == "free" else 0.0
        self._drag = (i, s, QPointF(pos), s.kinks[i], height)
        self._state = replace(s, selected=i)
        self._sync_widgets()

    def _on_drag_move(self, i: int, pos: QPointF) -> None:
        if self._drag is None:
            return
        _, before, press, k0, y0 = self._drag
        k = k0 + (pos.x() - press.x())
        if before.mode == "free":
            # the corner follows the pointer both ways, from the state the drag began
            # in: the handle stays under the pointer
            s = replace(before, selected=i).move_kink(i, k)
            s = s.raise_kink(i, y0 + (pos.y() - press.y()) - s.height(s.kinks[i]))
        else:  # least squares puts the corner on the fit: only the kink follows
            s = self._state.move_kink(i, k)
        self._state = s
        self._refresh()

    def _on_drag_finish(self, i: int) -> None:
        if self._drag is None:
            return
        before = self._drag[1]
        self._drag = None
        after = self._state
        self._state = before
        self.commit(after, "Drag hinge")
        if after == before:
            self.apply_state(after)

    def _on_drag_cancel(self, i: int) -> None:
        if self._drag is None:
            return
        before = self._drag[1]
        self._drag = None
        self.apply_state(before)
