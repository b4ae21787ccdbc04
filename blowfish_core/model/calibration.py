"""Calibrators: the sensitivity of one round's vote histogram (paper §5, Table 1).

A calibrator maps the round's *public* inputs (policy, tau, public domain, the
current candidate population C_t; DESIGN §7) to a :class:`Calibration`
(sensitivity Delta_t in the requested norm, how it was obtained, its witness).
It never sees private records.

* :class:`Global`     Tab-PE: sqrt(2) (l2) / 2 (l1), bounded DP.
* :class:`ExactHard`  Hard: exact policy-specific sensitivity for C_t (Cor. 5.3), 0 or sqrt(2) / 2.
* :class:`SoftBound`  BF-Soft: sqrt(2) tanh(r/(2 tau)) (l2) / 2 tanh(r/(2 tau)) (l1) (Cor. 5.5);
                      ``reach="standard"``: r = the Gower diameter (soft vote at standard DP).
* :class:`HardNoise`  the decomposition's soft vote with Hard's noise (§6.2.3): Hard's Delta_t.

The participation floor (§5.6, Remark 3: an edge (u, bottom) removes one vote, so
Delta >= 1 in l1 and l2) is applied in ONE place, :func:`calibrate_round`, to every
method whose notion is Blowfish.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np

from .gower_kernel import GowerKernel
from .policy import Policy, record_reach
from .schema import Schema
from .sensitivity import DEFAULT_MAX_EDGES, SQRT2, Calibration, _soft_bound, hard_sensitivity, standard_dp_reach
from .votes import check_tau
from ..base.errors import BlowfishError


class CalibratedMethod(Protocol):
    """What :func:`calibrate_round` reads of a method (blowfish_core.algorithm.methods.Method, one layer up)."""

    calibrator: "Calibrator"
    notion: str

NORMS = ("l2", "l1")
#: the global (bounded-DP) sensitivity of a one-hot or simplex vote per norm.
GLOBAL = {"l2": SQRT2, "l1": 2.0}


@dataclass(frozen=True)
class RoundInputs:
    """Public inputs of one round's calibration.

    C: (m, p) encoded candidates or None (for data-independent calibrators);
    reach: record-level reach (None -> computed from the policy); kernel: a
    GowerKernel on C to share; norm: 'l2' (Gaussian) or 'l1' (Laplace).
    """

    schema: Schema
    policy: Policy
    tau: float | None = None
    C: np.ndarray | None = None
    reach: float | None = None
    max_edges: float = DEFAULT_MAX_EDGES
    kernel: GowerKernel | None = None
    norm: str = "l2"
    #: True when tau and reach come from a checked run (the round loop of a RunSpec / run_synthesis):
    #: calibrators then check only what they compute anew for the round.
    checked: bool = False


class Calibrator(Protocol):
    """sensitivity(inputs) -> Calibration of the round (before the participation floor)."""

    def sensitivity(self, x: RoundInputs) -> Calibration: ...


@dataclass(frozen=True)
class Global:
    """Tab-PE: one record moves its whole vote: sqrt(2) (l2) or 2 (l1)."""

    def sensitivity(self, x: RoundInputs) -> Calibration:
        return Calibration(GLOBAL[x.norm], "global")


@dataclass(frozen=True)
class ExactHard:
    """Hard: exact policy-specific sensitivity for C_t (Cor. 5.3; sensitivity.hard_sensitivity).

    l2 in {0, sqrt(2)}; l1 in {0, 2} (a crossing moves one unit of vote between two cells).
    """

    def sensitivity(self, x: RoundInputs) -> Calibration:
        if x.C is None:
            raise BlowfishError("Hard's exact sensitivity needs the round's candidate population C_t "
                                "(RoundInputs.C is None). Fix: pass the encoded candidates as C")
        cal = hard_sensitivity(x.schema, x.policy, x.C, max_edges=x.max_edges, kernel=x.kernel)
        if x.norm == "l1":
            cal = dataclasses.replace(cal, sensitivity=GLOBAL["l1"] if cal.sensitivity > 0 else 0.0)
        return cal


@dataclass(frozen=True)
class SoftBound:
    """BF-Soft's closed-form bound (Cor. 5.5), valid for every population.

    reach: 'policy' (record-level reach of the policy, Cor. 5.2) or 'standard'
    (the Gower diameter: the complete record graph, standard DP).
    """

    reach: str = "policy"

    def sensitivity(self, x: RoundInputs) -> Calibration:
        # x.checked: tau was checked once for the run (RunSpec.build), so it is a float > 0
        tau = cast(float, x.tau) if x.checked else check_tau(x.tau)
        if self.reach == "standard":
            return Calibration(_soft_bound(standard_dp_reach(x.schema), tau, x.norm), "bound",
                               notes=["standard DP: reach = Gower diameter"])
        r = record_reach(x.schema, x.policy) if x.reach is None else x.reach
        return Calibration(_soft_bound(r, tau, x.norm), "bound")


@dataclass(frozen=True)
class HardNoise:
    """Soft vote with Hard's noise (§6.2.3): the Delta_t Hard has on the same round."""

    def sensitivity(self, x: RoundInputs) -> Calibration:
        if x.C is None:  # no population given: Hard's worst case
            return Calibration(GLOBAL[x.norm], "global", notes=["decomposition: soft vote with Hard's noise (§6.2.3)"])
        hard = ExactHard().sensitivity(x)  # the floor follows in calibrate_round() (a Blowfish notion)
        return Calibration(hard.sensitivity, "global", notes=["decomposition: soft vote with Hard's noise (§6.2.3)"])


def participation_floor(cal: Calibration, policy: Policy) -> Calibration:
    """Delta >= 1 when the policy has participation edges (u, bottom) (§5.6), in l1 and l2.

    Parameters
    ----------
    cal : Calibration
        The round's calibration before the floor.
    policy : Policy
        The policy (its ``participation`` flag).

    Returns
    -------
    Calibration
        ``cal``, or a 'participation-floor' calibration with Delta = 1 when the floor applies.
    """
    if policy.participation and cal.sensitivity < 1.0:
        return Calibration(1.0, "participation-floor", edges_checked=cal.edges_checked,
                           notes=cal.notes + ["participation edges (u, bottom): Delta >= 1 (§5.6)"])
    return cal


def floor_value(value: float, policy: Policy) -> float:
    """The participation floor on a plain sensitivity value (read-outs, report summaries).

    Parameters
    ----------
    value : float
        A sensitivity Delta, in vote-histogram units.
    policy : Policy
        The policy (its ``participation`` flag).

    Returns
    -------
    float
        max(value, 1) with participation edges, else ``value``.
    """
    return max(value, 1.0) if policy.participation else value


def calibrate_round(method: CalibratedMethod, x: RoundInputs) -> Calibration:
    """The method's calibration of one round, the participation floor applied once (Blowfish notions).

    Parameters
    ----------
    method : CalibratedMethod
        The method (its ``calibrator`` and ``notion``).
    x : RoundInputs
        The round's public inputs.

    Returns
    -------
    Calibration
        The sensitivity Delta_t in ``x.norm``, how it was obtained, its witness.

    Raises
    ------
    ValueError
        For an unknown norm.
    BudgetError
        For a bad tau (soft calibrators).
    """
    if x.norm not in NORMS:
        raise ValueError(f"norm must be 'l2' or 'l1' (got {x.norm!r})")
    cal = method.calibrator.sensitivity(x)
    if method.notion == "blowfish":
        cal = participation_floor(cal, x.policy)
    return cal
