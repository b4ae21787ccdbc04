"""Ways of setting the EM's scale: the :class:`ScaleRule` protocol, ``global`` and
``shifted_laplace`` (Cor. 5.3), the broken demonstrations ``local`` (Prop. 4.1) and ``smooth_fixed``
(Thm 4.3), and the :data:`SCALE_RULES` table (``ptr`` lives in :mod:`.ptr`)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ...base._lazy import stats  # imported on first use: not at import (issue 23)
from ...base.errors import BudgetError, PolicyError
from .em import _prob, _real, em_probabilities, regret_bound
from .graph import SelectionGraph
from .law import SelectionLaw, _discrete, _fixed_scale_law
from .ptr import PTR

#: label carried by every broken calibration, on every screen and table row.
NOT_PRIVATE = "demonstration: not private"


# ------------------------------------------------------------- calibrations
@runtime_checkable
class ScaleRule(Protocol):
    """A way of setting the EM's scale (a "calibration" of papers/001, the word the screens and
    ``--calibration`` use; not :class:`blowfish_core.model.sensitivity.Calibration`, a round's
    sensitivity).  name: key in :data:`SCALE_RULES`; private: False
    for the demonstrations (their label contains :data:`NOT_PRIVATE`); releases_scale: the
    scale is part of the release.  Read-only (the rules are frozen dataclasses)."""

    @property
    def name(self) -> str: ...

    @property
    def private(self) -> bool: ...

    @property
    def releases_scale(self) -> bool: ...

    @property
    def label(self) -> str: ...

    def claim(self) -> tuple[float, float]:
        """The (epsilon, delta) the calibration claims."""

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        """The law of the release on dataset v of the graph."""

    def scale(self, graph: SelectionGraph, v: int) -> float:
        """The scale used on dataset v (its expectation when random)."""

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        """(gap bound in score units, failure probability) on dataset v."""


def _broken_label(text: str) -> str:
    return f"{text} — {NOT_PRIVATE}"


@dataclass(frozen=True)
class GlobalScale:
    """``global``: a public scale (e.g. the policy's global sensitivity).  Pure epsilon_s-DP.

    scale: > 0 score units; None = the graph's global sensitivity GS_q (computed from
    the public dataset graph, never from the dataset at hand).
    """

    epsilon_s: float = 1.0
    scale_value: float | None = None
    name: str = "global"
    private: bool = True
    releases_scale: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon_s", _real(self.epsilon_s, "epsilon_s"))
        if self.scale_value is not None:
            object.__setattr__(self, "scale_value", _real(self.scale_value, "scale",
                                                          fix="use the policy's global sensitivity"))

    @property
    def label(self) -> str:
        return "global scale (public sensitivity): pure ε_s-DP"

    def claim(self) -> tuple[float, float]:
        return self.epsilon_s, 0.0

    def scale(self, graph: SelectionGraph, v: int) -> float:
        if self.scale_value is not None:
            return self.scale_value
        gs = graph.global_sensitivity()
        if gs <= 0:
            raise PolicyError("global scale: the graph's GS is 0 (no edge moves a score). Fix: give scale_value > 0")
        return gs

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        return _fixed_scale_law(graph, v, self.scale(graph, v), self.epsilon_s, False)

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        return regret_bound(self.scale(graph, v), self.epsilon_s, graph.m, rho), rho


@dataclass(frozen=True)
class LocalScale:
    """``local``: b = max(b0, LS_q(x)) -- Prop. 4.1: NOT private even with identical scores.
    Claims (epsilon_s, 0) by misapplying Lemma 2.3.  For the audit and the Lab only."""

    epsilon_s: float = 1.0
    b0: float = 0.01
    name: str = "local"
    private: bool = False
    releases_scale: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon_s", _real(self.epsilon_s, "epsilon_s"))
        object.__setattr__(self, "b0", _real(self.b0, "b0", fix="use a small positive floor such as 0.01"))

    @property
    def label(self) -> str:
        return _broken_label("local sensitivity b = max(b0, LS(x))")

    def claim(self) -> tuple[float, float]:
        return self.epsilon_s, 0.0

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return max(self.b0, float(graph.local_sensitivity()[v]))

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        return _fixed_scale_law(graph, v, self.scale(graph, v), self.epsilon_s, False)

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        return regret_bound(self.scale(graph, v), self.epsilon_s, graph.m, rho), rho


@dataclass(frozen=True)
class SmoothFixed:
    """``smooth_fixed``: Q_x(r) ∝ exp(lam q / S*_beta(x)) with beta, lam fixed independently of
    m -- Thm 4.3: no (epsilon, delta < 1) guarantee over all m.  NOT private.  Equals the EM
    at epsilon = 2 lam and scale S*_beta(x) (floored at b0).  epsilon_claimed: the claim
    shown (default 1, the notes' evaluation point).  For the audit and the Lab only."""

    lam: float = 0.25
    beta: float = 0.5
    epsilon_claimed: float = 1.0
    b0: float = 1e-6
    name: str = "smooth_fixed"
    private: bool = False
    releases_scale: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "lam", _real(self.lam, "lam",
                                              fix="use a positive temperature coefficient such as 0.25"))
        object.__setattr__(self, "beta", _real(self.beta, "beta", fix="use a positive smoothness such as 0.5"))
        object.__setattr__(self, "epsilon_claimed", _real(self.epsilon_claimed, "epsilon_claimed"))
        object.__setattr__(self, "b0", _real(self.b0, "b0"))

    @property
    def epsilon_s(self) -> float:
        return 2.0 * self.lam

    @property
    def label(self) -> str:
        return _broken_label(f"smooth sensitivity with fixed β = {self.beta:g}, λ = {self.lam:g}")

    def claim(self) -> tuple[float, float]:
        return self.epsilon_claimed, 0.0

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return max(self.b0, float(graph.smooth_sensitivity(self.beta)[v]))

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        return _fixed_scale_law(graph, v, self.scale(graph, v), self.epsilon_s, False)

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        return regret_bound(self.scale(graph, v), self.epsilon_s, graph.m, rho), rho


@dataclass(frozen=True)
class ShiftedLaplace:
    """``shifted_laplace`` (Cor. 5.3): release ``B = max(b0, LS_q(x) + Lap(C/epsilon_t) +
    (C/epsilon_t) log(1/(2 eta)))``, then R ~ Q_x^B; (B, R) is (epsilon_t + epsilon_s, eta)-DP.

    C: >= GS of LS_q (None = the graph's, :meth:`SelectionGraph.ls_sensitivity`, floored at
    1e-12); b0: public floor > 0; eta: the underestimation probability (in delta).
    """

    epsilon_s: float = 1.0
    epsilon_t: float = 1.0
    eta: float = 1e-6
    b0: float = 0.01
    C: float | None = None
    name: str = "shifted_laplace"
    private: bool = True
    releases_scale: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon_s", _real(self.epsilon_s, "epsilon_s"))
        object.__setattr__(self, "epsilon_t", _real(self.epsilon_t, "epsilon_t",
                                                    fix="use a positive budget for the scale, e.g. 1"))
        object.__setattr__(self, "eta", _prob(self.eta, "eta", "use a small probability such as 1e-6"))
        object.__setattr__(self, "b0", _real(self.b0, "b0", fix="use a small positive floor such as 0.01"))
        if self.C is not None:
            object.__setattr__(self, "C", _real(self.C, "C", fix="use an upper bound on the global sensitivity of LS"))

    @property
    def label(self) -> str:
        return "shifted Laplace upper scale (Cor. 5.3): (ε_t + ε_s, η)"

    def claim(self) -> tuple[float, float]:
        return self.epsilon_t + self.epsilon_s, self.eta

    def c_value(self, graph: SelectionGraph) -> float:
        return self.C if self.C is not None else max(graph.ls_sensitivity(), 1e-12)

    def shift(self, graph: SelectionGraph) -> float:
        """The upward shift (C/epsilon_t) log(1/(2 eta)) (score units)."""
        return self.c_value(graph) / self.epsilon_t * math.log(1.0 / (2.0 * self.eta))

    def sample_scale(self, ls: float, C: float, rng: np.random.Generator) -> float:
        """One draw of B for local sensitivity ls (the mechanism itself)."""
        a = C / self.epsilon_t
        return max(self.b0, ls + rng.laplace(0.0, a) + a * math.log(1.0 / (2.0 * self.eta)))

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        a = self.c_value(graph) / self.epsilon_t
        mu = float(graph.local_sensitivity()[v]) + self.shift(graph)
        atom = float(stats.laplace.cdf(self.b0, loc=mu, scale=a))
        P = em_probabilities(graph.scores[v], self.b0, self.epsilon_s, counts=graph.counts)
        law = _discrete([self.b0], atom * P[None, :], graph.scores[v], graph.counts, self.epsilon_s, True)
        return dataclasses.replace(law, continuous=(mu, a, self.b0))

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return self.law(graph, v).expected_scale()

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        """(7) with xi = rho: B <= max(b0, LS + (C/eps_t)(log(1/(2 eta)) + log(1/(2 rho)))) except
        with probability rho (upper Laplace tail), then Eq. (2): failure <= 2 rho."""
        r = _prob(rho, "rho", "use a failure probability such as 0.05")
        bbar = max(self.b0, float(graph.local_sensitivity()[v]) + self.shift(graph)
                   + self.c_value(graph) / self.epsilon_t * math.log(1.0 / (2.0 * r)))
        return regret_bound(bbar, self.epsilon_s, graph.m, r), 2.0 * r


#: the scale rules (papers/001's calibrations), one entry each (name -> class).  Broken ones: private = False.
SCALE_RULES: dict[str, type[GlobalScale | ShiftedLaplace | PTR | LocalScale | SmoothFixed]] = {
    "global": GlobalScale,
    "shifted_laplace": ShiftedLaplace,
    "ptr": PTR,
    "local": LocalScale,
    "smooth_fixed": SmoothFixed,
}
VALID_SCALE_RULES = ("global", "shifted_laplace", "ptr")
#: broken calibrations -> what is wrong (never use; audit and Lab only).
BROKEN_SCALE_RULES = {
    "local": "scale = local sensitivity of the dataset at hand (Prop. 4.1)",
    "smooth_fixed": "scale = smooth sensitivity with beta, lambda fixed independently of m (Thm 4.3)",
}


def make_scale_rule(name: str, **params: Any) -> ScaleRule:
    """A scale rule (a calibration) from :data:`SCALE_RULES` by name.

    Parameters
    ----------
    name : str
        A key of :data:`SCALE_RULES` ('global', 'shifted_laplace', 'ptr', or the
        broken 'local', 'smooth_fixed').
    **params
        The calibration's dataclass fields (not name, private, releases_scale).

    Returns
    -------
    ScaleRule
        The scale rule instance.

    Raises
    ------
    BudgetError
        For an unknown name or parameter.
    """
    if name not in SCALE_RULES:
        raise BudgetError(f"calibration must be one of {tuple(SCALE_RULES)} (got {name!r}). "
                          "Fix: use 'global', 'shifted_laplace' or 'ptr'")
    cls = SCALE_RULES[name]
    fields = {f for f in cls.__dataclass_fields__ if f not in ("name", "private", "releases_scale")}
    bad = sorted(set(params) - fields)
    if bad:
        raise BudgetError(f"calibration '{name}' has no parameter {bad[0]!r}. Fix: use one of {sorted(fields)}")
    return cls(**params)


#: deprecated aliases, kept for one release (CHANGELOG "Unreleased"): read SCALE_RULES / make_scale_rule.
CALIBRATIONS = SCALE_RULES
make_calibration = make_scale_rule
