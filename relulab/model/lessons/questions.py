"""The Questions panel's state: which page is shown and each page's settings.

Each page runs one experiment of :mod:`relulab.model.questions` on the panel's worker;
its settings here are what a scene file, an undo step and a test hold. The limits
keep a live run within a few seconds on a laptop (the double-descent sweep's cost
grows with n³ and with its widest model, 20n).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Self

from relulab.model.core.fields import Fields

PAGES = ("double-descent", "overparametrisation", "infinite-width", "parity", "simplex",
         "why-deep", "gelu", "targets", "tickets")
#: The input dimensions the double-descent page offers: the answer depends on them
#: (catastrophic at 2, tempered at 5–10, benign at 20).
DIMENSIONS = (2, 5, 10, 20, 50)
N_RANGE = (25, 200)
N_STEP = 25
NOISE_RANGE = (0.0, 2.0)
#: Ridges offered besides none: a log grid.
RIDGES = (0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: What the double-descent page's main plot shows against H.
DD_VIEWS = ("error", "weight norm", "condition")
#: The lottery's width as a multiple of n: at the peak, past it, far past it.
LOTTERY_RATIOS = (1, 4, 20)
SEEDS_RANGE = (3, 10)
#: The widths the pruning study trains, one chosen on the page.
PRUNE_WIDTHS = (32, 64, 128)
#: How many of the parity race's 30 bits decide the label (parity or majority of them).
PARITY_KS = (2, 3, 4)


@dataclass(frozen=True)
class DoubleDescentSettings:
    """Random ReLU features fitted by least squares: the data (d, n, label noise), the
    fit (ridge, or the oracle's tuned ridge), a second feature scale, what the main
    plot shows and where the lottery draws."""

    d: int = 20
    n: int = 100
    noise: float = 0.5
    ridge: float = 0.0
    tuned_ridge: bool = False
    second_scale: bool = False
    seeds: int = 10
    view: str = "error"
    show_train: bool = True
    lottery_ratio: int = 1

    def __post_init__(self):
        if self.d not in DIMENSIONS:
            raise ValueError(f"d must be one of {', '.join(map(str, DIMENSIONS))}, got {self.d}")
        lo, hi = N_RANGE
        if not lo <= self.n <= hi or self.n % N_STEP:
            raise ValueError(f"n must be a multiple of {N_STEP} in {lo}…{hi}, got {self.n}")
        if not NOISE_RANGE[0] <= self.noise <= NOISE_RANGE[1]:
            raise ValueError(f"noise must lie in [{NOISE_RANGE[0]}, {NOISE_RANGE[1]}], "
                             f"got {self.noise}")
        if self.ridge not in RIDGES:
            raise ValueError(f"ridge must be one of {', '.join(f'{r:g}' for r in RIDGES)}, "
                             f"got {self.ridge}")
        if not SEEDS_RANGE[0] <= self.seeds <= SEEDS_RANGE[1]:
            raise ValueError(f"seeds must be in {SEEDS_RANGE[0]}…{SEEDS_RANGE[1]}, got {self.seeds}")
        if self.view not in DD_VIEWS:
            raise ValueError(f"view must be one of {', '.join(DD_VIEWS)}, got {self.view!r}")
        if self.lottery_ratio not in LOTTERY_RATIOS:
            raise ValueError(f"lottery_ratio must be one of {LOTTERY_RATIOS}, "
                             f"got {self.lottery_ratio}")

    def to_dict(self) -> dict:
        return {"d": self.d, "n": self.n, "noise": self.noise, "ridge": self.ridge,
                "tuned_ridge": self.tuned_ridge, "second_scale": self.second_scale,
                "seeds": self.seeds, "view": self.view, "show_train": self.show_train,
                "lottery_ratio": self.lottery_ratio}

    @classmethod
    def from_dict(cls, d, where: str = "double_descent") -> DoubleDescentSettings:
        f = Fields(d, defaults=cls().to_dict(), where=where)
        dim = f.integer("d", min(DIMENSIONS), max(DIMENSIONS))
        if dim not in DIMENSIONS:
            raise ValueError(f"{f.name('d')}: expected one of {', '.join(map(str, DIMENSIONS))}, "
                             f"got {dim}")
        n = f.integer("n", *N_RANGE)
        if n % N_STEP:
            raise ValueError(f"{f.name('n')}: expected a multiple of {N_STEP}, got {n}")
        noise = f.number("noise", *NOISE_RANGE)
        ridge = f.number("ridge", 0.0, max(RIDGES))
        if ridge not in RIDGES:
            raise ValueError(f"{f.name('ridge')}: expected one of "
                             f"{', '.join(f'{r:g}' for r in RIDGES)}, got {ridge:g}")
        ratio = f.integer("lottery_ratio", min(LOTTERY_RATIOS), max(LOTTERY_RATIOS))
        if ratio not in LOTTERY_RATIOS:
            raise ValueError(f"{f.name('lottery_ratio')}: expected one of "
                             f"{', '.join(map(str, LOTTERY_RATIOS))}, got {ratio}")
        out = cls(d=dim, n=n, noise=noise, ridge=ridge, tuned_ridge=f.flag("tuned_ridge"),
                  second_scale=f.flag("second_scale"), seeds=f.integer("seeds", *SEEDS_RANGE),
                  view=f.choice("view", DD_VIEWS), show_train=f.flag("show_train"),
                  lottery_ratio=ratio)
        f.done()
        return out


@dataclass(frozen=True)
class OverparametrisationSettings:
    """How many seeds the spirals are tried from, and the width whose trained nets are
    pruned (with the real and with shuffled labels)."""

    seeds: int = 10
    prune_width: int = 128

    def __post_init__(self):
        if not SEEDS_RANGE[0] <= self.seeds <= SEEDS_RANGE[1]:
            raise ValueError(f"seeds must be in {SEEDS_RANGE[0]}…{SEEDS_RANGE[1]}, got {self.seeds}")
        if self.prune_width not in PRUNE_WIDTHS:
            raise ValueError(f"prune_width must be one of {PRUNE_WIDTHS}, got {self.prune_width}")

    def to_dict(self) -> dict:
        return {"seeds": self.seeds, "prune_width": self.prune_width}

    @classmethod
    def from_dict(cls, d, where: str = "overparametrisation") -> OverparametrisationSettings:
        f = Fields(d, defaults=cls().to_dict(), where=where)
        seeds = f.integer("seeds", *SEEDS_RANGE)
        width = f.integer("prune_width", min(PRUNE_WIDTHS), max(PRUNE_WIDTHS))
        if width not in PRUNE_WIDTHS:
            raise ValueError(f"{f.name('prune_width')}: expected one of "
                             f"{', '.join(map(str, PRUNE_WIDTHS))}, got {width}")
        f.done()
        return cls(seeds=seeds, prune_width=width)


@dataclass(frozen=True)
class SeedsSettings:
    """A page whose only setting is how many seeds it runs; each such page's class
    sets its default and ``KEY``, the QuestionsState field (and the ``where`` of its
    errors)."""

    KEY: ClassVar[str] = "seeds"
    seeds: int = 3

    def __post_init__(self):
        if not SEEDS_RANGE[0] <= self.seeds <= SEEDS_RANGE[1]:
            raise ValueError(f"seeds must be in {SEEDS_RANGE[0]}…{SEEDS_RANGE[1]}, got {self.seeds}")

    def to_dict(self) -> dict:
        return {"seeds": self.seeds}

    @classmethod
    def from_dict(cls, d, where: str | None = None) -> Self:
        f = Fields(d, defaults=cls().to_dict(), where=cls.KEY if where is None else where)
        seeds = f.integer("seeds", *SEEDS_RANGE)
        f.done()
        return cls(seeds=seeds)


@dataclass(frozen=True)
class InfiniteWidthSettings(SeedsSettings):
    """How many seeds the lazy-training study averages over."""

    KEY: ClassVar[str] = "infinite_width"
    seeds: int = 3


@dataclass(frozen=True)
class ParitySettings:
    """The parity page: how many relevant bits k (parity and majority of the same k
    bits race) and how many seeds."""

    k: int = 3
    seeds: int = 5

    def __post_init__(self):
        if self.k not in PARITY_KS:
            raise ValueError(f"k must be one of {PARITY_KS}, got {self.k}")
        if not SEEDS_RANGE[0] <= self.seeds <= SEEDS_RANGE[1]:
            raise ValueError(f"seeds must be in {SEEDS_RANGE[0]}…{SEEDS_RANGE[1]}, got {self.seeds}")

    def to_dict(self) -> dict:
        return {"k": self.k, "seeds": self.seeds}

    @classmethod
    def from_dict(cls, d, where: str = "parity") -> ParitySettings:
        f = Fields(d, defaults=cls().to_dict(), where=where)
        k = f.integer("k", min(PARITY_KS), max(PARITY_KS))
        seeds = f.integer("seeds", *SEEDS_RANGE)
        f.done()
        return cls(k=k, seeds=seeds)


#: The logits a user may give the simplex page, each: past ±5 both maps are a vertex.
LOGIT_RANGE = (-5.0, 5.0)
#: The seeds of the simplex page's data (the blobs and the separable blobs).
DATA_SEEDS = (0, 9)


@dataclass(frozen=True)
class SimplexSettings:
    """The simplex page: the logit vector of three classes that both maps are shown for
    (typed or dragged), and the seed of the blobs the two classifiers are trained on."""

    logits: tuple[float, float, float] = (1.0, 0.5, -1.0)
    seed: int = 0

    def __post_init__(self):
        z = tuple(float(v) for v in self.logits)
        if len(z) != 3 or not all(LOGIT_RANGE[0] <= v <= LOGIT_RANGE[1] for v in z):
            raise ValueError(f"logits must be three numbers in [{LOGIT_RANGE[0]:g}, "
                             f"{LOGIT_RANGE[1]:g}], got {self.logits!r}")
        object.__setattr__(self, "logits", z)
        if not DATA_SEEDS[0] <= self.seed <= DATA_SEEDS[1]:
            raise ValueError(f"seed must be in {DATA_SEEDS[0]}…{DATA_SEEDS[1]}, got {self.seed}")

    def to_dict(self) -> dict:
        return {"logits": list(self.logits), "seed": self.seed}

    @classmethod
    def from_dict(cls, d, where: str = "simplex") -> SimplexSettings:
        f = Fields(d, defaults=cls().to_dict(), where=where)
        z = f.get("logits")
        if (not isinstance(z, (list, tuple)) or len(z) != 3
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in z)
                or not all(LOGIT_RANGE[0] <= v <= LOGIT_RANGE[1] for v in z)):
            raise ValueError(f"{f.name('logits')}: expected three numbers in "
                             f"[{LOGIT_RANGE[0]:g}, {LOGIT_RANGE[1]:g}], got {z!r}")
        seed = f.integer("seed", *DATA_SEEDS)
        f.done()
        return cls(logits=(float(z[0]), float(z[1]), float(z[2])), seed=seed)


#: Depths of Yarotsky's deep square the why-deep page offers: its exact error is
#: computed on every change, within 10 ms up to m = 6 (70 ms at m = 8).
DEPTHS = (0, 6)


@dataclass(frozen=True)
class WhyDeepSettings:
    """The why-deep page: the depth m of the deep square, and how many seeds the
    feature x1·x2 and the 2-16-16-1 nets are scored over."""

    m: int = 3
    seeds: int = 5

    def __post_init__(self):
        if not DEPTHS[0] <= self.m <= DEPTHS[1]:
            raise ValueError(f"m must be in {DEPTHS[0]}…{DEPTHS[1]}, got {self.m}")
        if not SEEDS_RANGE[0] <= self.seeds <= SEEDS_RANGE[1]:
            raise ValueError(f"seeds must be in {SEEDS_RANGE[0]}…{SEEDS_RANGE[1]}, got {self.seeds}")

    def to_dict(self) -> dict:
        return {"m": self.m, "seeds": self.seeds}

    @classmethod
    def from_dict(cls, d, where: str = "why_deep") -> WhyDeepSettings:
        f = Fields(d, defaults=cls().to_dict(), where=where)
        m = f.integer("m", *DEPTHS)
        seeds = f.integer("seeds", *SEEDS_RANGE)
        f.done()
        return cls(m=m, seeds=seeds)


#: The scales a of the GELU twin of a ReLU net: its gap is at most 0.17/a·Σ|w|.
GELU_SCALES = (1, 3, 10, 30, 100)


@dataclass(frozen=True)
class GeluSettings:
    """The GELU page: the scale a of the GELU net drawn against a ReLU net, and how
    many seeds the fits of the two activations are compared over."""

    scale: int = 3
    seeds: int = 5

    def __post_init__(self):
        if self.scale not in GELU_SCALES:
            raise ValueError(f"scale must be one of {GELU_SCALES}, got {self.scale}")
        if not SEEDS_RANGE[0] <= self.seeds <= SEEDS_RANGE[1]:
            raise ValueError(f"seeds must be in {SEEDS_RANGE[0]}…{SEEDS_RANGE[1]}, got {self.seeds}")

    def to_dict(self) -> dict:
        return {"scale": self.scale, "seeds": self.seeds}

    @classmethod
    def from_dict(cls, d, where: str = "gelu") -> GeluSettings:
        f = Fields(d, defaults=cls().to_dict(), where=where)
        scale = f.integer("scale", min(GELU_SCALES), max(GELU_SCALES))
        if scale not in GELU_SCALES:
            raise ValueError(f"{f.name('scale')}: expected one of "
                             f"{', '.join(map(str, GELU_SCALES))}, got {scale}")
        seeds = f.integer("seeds", *SEEDS_RANGE)
        f.done()
        return cls(scale=scale, seeds=seeds)


@dataclass(frozen=True)
class TargetsSettings(SeedsSettings):
    """The targets page: how many seeds the one-hot classifier and the students are
    trained from."""

    KEY: ClassVar[str] = "targets"
    seeds: int = 5


@dataclass(frozen=True)
class TicketsSettings(SeedsSettings):
    """The lottery-ticket page: how many seeds are pruned and retrained (about 2 s a
    seed)."""

    KEY: ClassVar[str] = "tickets"
    seeds: int = 3


@dataclass(frozen=True)
class QuestionsState:
    """What the Questions panel shows: the page, and every page's settings (a page not
    shown keeps its own, so that switching back finds it as it was)."""

    page: str = "double-descent"
    double_descent: DoubleDescentSettings = field(default_factory=DoubleDescentSettings)
    overparametrisation: OverparametrisationSettings = field(
        default_factory=OverparametrisationSettings)
    infinite_width: InfiniteWidthSettings = field(default_factory=InfiniteWidthSettings)
    parity: ParitySettings = field(default_factory=ParitySettings)
    simplex: SimplexSettings = field(default_factory=SimplexSettings)
    why_deep: WhyDeepSettings = field(default_factory=WhyDeepSettings)
    gelu: GeluSettings = field(default_factory=GeluSettings)
    targets: TargetsSettings = field(default_factory=TargetsSettings)
    tickets: TicketsSettings = field(default_factory=TicketsSettings)

    def __post_init__(self):
        if self.page not in PAGES:
            raise ValueError(f"page must be one of {', '.join(PAGES)}, got {self.page!r}")

    def to_dict(self) -> dict:
        return {"page": self.page, "double_descent": self.double_descent.to_dict(),
                "overparametrisation": self.overparametrisation.to_dict(),
                "infinite_width": self.infinite_width.to_dict(), "parity": self.parity.to_dict(),
                "simplex": self.simplex.to_dict(), "why_deep": self.why_deep.to_dict(),
                "gelu": self.gelu.to_dict(), "targets": self.targets.to_dict(),
                "tickets": self.tickets.to_dict()}

    @classmethod
    def from_dict(cls, d) -> QuestionsState:
        """Validate everything first; a ValueError names the field that is wrong."""
        default = cls()
        f = Fields(d, defaults=default.to_dict(), where="")
        page = f.choice("page", PAGES)
        dd = DoubleDescentSettings.from_dict(f.get("double_descent"))
        over = OverparametrisationSettings.from_dict(f.get("overparametrisation"))
        lazy = InfiniteWidthSettings.from_dict(f.get("infinite_width"))
        parity = ParitySettings.from_dict(f.get("parity"))
        simplex = SimplexSettings.from_dict(f.get("simplex"))
        why_deep = WhyDeepSettings.from_dict(f.get("why_deep"))
        gelu = GeluSettings.from_dict(f.get("gelu"))
        targets = TargetsSettings.from_dict(f.get("targets"))
        tickets = TicketsSettings.from_dict(f.get("tickets"))
        f.done()
        return cls(page=page, double_descent=dd, overparametrisation=over, infinite_width=lazy,
                   parity=parity, simplex=simplex, why_deep=why_deep, gelu=gelu,
                   targets=targets, tickets=tickets)
