"""The Training panel's state: the target and its sampling, the network and optimiser of
every restart, how far training went and how it is viewed; and its replay.

The training itself and the limits of the panel's controls are in
:mod:`relulab.model.fitting.training`.
"""

from __future__ import annotations

from dataclasses import dataclass

from relulab.model.core.cancel import ShouldStop, check
from relulab.model.core.fields import Fields
from relulab.model.data.expression import ExpressionError
from relulab.model.data.targets import DEFAULT_TARGET, Target, target_from_text
from relulab.model.fitting.training import (
    DOMAIN_LIMIT,
    FINAL_VIEWS,
    INITS,
    LR_RANGE,
    MAX_POINTS,
    MAX_RESTARTS,
    MAX_STEPS,
    MAX_WIDTH,
    MIN_POINTS,
    OPTIMIZERS,
    SPEED_LABELS_READ,
    HingeNetTrainer,
    speed_label,
)


@dataclass(frozen=True)
class TrainingState:
    """What the Training panel shows: the target and its sampling, the network and the
    optimiser of every restart, how far training went (``step``, replayed from the
    seeds) and how it is viewed (``speed``, ``final_view``, ``selected`` restart, −1 =
    the best). ``from_dict`` accepts only states the panel can show: the target parses
    and is finite on [a, b], and every number is within the panel's limits."""

    target: str = DEFAULT_TARGET.name
    a: float = DEFAULT_TARGET.a
    b: float = DEFAULT_TARGET.b
    points: int = 400
    hidden: int = 12
    lr: float = 0.01
    steps: int = 20_000
    restarts: int = 6
    optimizer: str = "adam"
    batch_size: int = 0
    init: str = "spread"
    speed: str = "1,000 steps/s"  # 20,000 steps in 20 s: the kinks can be watched moving
    final_view: str = "sorted"
    selected: int = -1
    step: int = 0

    def to_dict(self) -> dict:
        return {"target": self.target, "a": self.a, "b": self.b, "points": self.points,
                "hidden": self.hidden, "lr": self.lr, "steps": self.steps,
                "restarts": self.restarts, "optimizer": self.optimizer,
                "batch_size": self.batch_size, "init": self.init, "speed": self.speed,
                "final_view": self.final_view, "selected": self.selected, "step": self.step}

    @classmethod
    def from_dict(cls, d) -> TrainingState:
        """Validate every field first; a ValueError names the one that is wrong."""
        f = Fields(d, defaults=cls().to_dict(), where="training")
        target = f.text("target", 1000).strip()
        a = f.number("a", -DOMAIN_LIMIT, DOMAIN_LIMIT)
        b = f.number("b", -DOMAIN_LIMIT, DOMAIN_LIMIT)
        if not a < b:
            raise ValueError(f"training.b: the domain [{a:g}, {b:g}] is empty (a must be below b)")
        restarts = f.integer("restarts", 1, MAX_RESTARTS)
        steps = f.integer("steps", 1, MAX_STEPS)
        state = cls(
            target=target, a=a, b=b, points=f.integer("points", MIN_POINTS, MAX_POINTS),
            hidden=f.integer("hidden", 1, MAX_WIDTH), lr=f.number("lr", *LR_RANGE), steps=steps,
            restarts=restarts, optimizer=f.choice("optimizer", OPTIMIZERS),
            batch_size=f.integer("batch_size", 0, MAX_POINTS), init=f.choice("init", INITS),
            speed=speed_label(f.choice("speed", SPEED_LABELS_READ)),
            final_view=f.choice("final_view", FINAL_VIEWS),
            selected=f.integer("selected", -1, restarts - 1), step=f.integer("step", 0, steps))
        f.done()
        try:
            state.target_function()
        except ExpressionError as exc:
            raise ValueError(f"training.target: {exc}") from None
        return state

    def target_function(self) -> Target:
        """The target on [a, b] (a preset's name or an expression); ExpressionError
        when it does not parse, is not finite there, or the domain is empty."""
        return target_from_text(self.target, self.a, self.b)

    def run_settings(self) -> tuple:
        """The settings that make the random starts: changing one starts a new run."""
        return (self.target, self.a, self.b, self.points, self.hidden, self.restarts,
                self.optimizer, self.batch_size, self.init)

    def trainer(self, target: Target | None = None) -> HingeNetTrainer:
        """A trainer at step 0 with these settings, one restart per seed 0 … R − 1."""
        target = target or self.target_function()
        x, y = target.sample(self.points)
        return HingeNetTrainer(x, y, hidden=self.hidden, seeds=range(self.restarts), lr=self.lr,
                               optimizer=self.optimizer, batch_size=self.batch_size or None,
                               init=self.init, domain=(target.a, target.b))

    def replay_cost(self) -> float:
        """About how much work replaying ``step`` steps is: restarts × steps × (points +
        10·hidden), a step's cost in the prefix-sum kernels (≈ 2·10⁹ per second)."""
        return float(self.step) * self.restarts * (self.points + 10 * self.hidden)


def replay(state: TrainingState, should_stop: ShouldStop = None,
           chunk: int = 256) -> HingeNetTrainer:
    """The run of ``state`` trained again from its seeds to ``state.step`` (training is
    deterministic: the same seeds give the same weights). ``should_stop`` is checked
    between chunks of ``chunk`` steps; Cancelled is raised when it returns True."""
    trainer = state.trainer()
    while trainer.step < state.step:
        check(should_stop, "replay")
        trainer.run(min(chunk, state.step - trainer.step))
    return trainer
