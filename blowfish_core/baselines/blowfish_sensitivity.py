"""Exact Blowfish sensitivity of a count marginal over public cells, and of MST's selection score.

Notes: ../shared/design/blowfish-marginals.md ("Hard marginals: exact sensitivity per clique",
"Selection"); issue 25.  Adjacency is the project's Blowfish notion (DESIGN §2-§3): neighbouring
tables differ in one record whose value on ONE attribute moves along that attribute's policy edge
(the record-level graph, Def. 2.3); participation edges (u, bottom) add or remove a record (§5.6).

The marginal h_S over a clique S (a tuple of attributes) counts records per cell of S, a product
of the attributes' public cells (:mod:`.cells`: levels, or public numeric bins).  One record moving
from cell x to cell x' changes h_S by e_x' - e_x, so:

* l2 sensitivity of h_S is **sqrt(2)** if some per-attribute policy edge of an attribute a in S
  joins two values in different cells of a's binning, and **0** if none does (then h_S is the same
  on every pair of neighbouring tables).  The check factorises over attributes: a record-level edge
  changes one attribute, and S's cells are products, so it is decided per attribute, from the
  public domain, the binning and the policy alone (never from records);
* with participation edges, adding or removing a record changes one cell by 1: the sensitivity
  is max(that, 1) -- the **participation floor 1** -- and nothing is exact;
* MST's selection score of a pair S, ||h_S - hhat_S||_1 with hhat_S fixed by the released 1-way
  measurements, changes by at most the l1 change of h_S: 2 for a crossing edge, 1 for a
  participation edge, 0 for an exact marginal.  The exponential mechanism over a set of candidates
  uses the maximum over them (:func:`selection_sensitivity`).

Exactness is checked exhaustively in tests/baselines/test_blowfish_sensitivity.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import PolicyError
from ..model.policy import Policy, attribute_reach, value_edges
from .cells import PublicCells

SQRT2 = math.sqrt(2.0)
#: how a marginal's sensitivity was obtained (the ledger's words, issue 25).
HOW_NONE = "exact: no policy edge changes this marginal"
HOW_SQRT2 = "exact: √2"
HOW_FLOOR = "participation floor 1"
#: a soft marginal's sensitivity: the closed-form bound of Cor. 5.5 on its kernel (baselines.soft_marginals).
HOW_SOFT = "soft bound"
#: the ledger text of a marginal measured without noise.
RELEASED_EXACTLY = "released exactly: not protected by the policy"
#: the engine ledger's calibration name for each way (privacy.ledger.LedgerRow.calibration).
CALIBRATION = {HOW_NONE: "exhaustive-zero", HOW_SQRT2: "certified-crossing", HOW_FLOOR: "participation-floor",
               HOW_SOFT: "bound"}


def calibration_of(how: str) -> str:
    """The engine ledger's calibration name for a ledger row's ``how``.

    Parameters
    ----------
    how : str
        A baseline ledger row's ``how``; its first words name HOW_NONE / HOW_SQRT2 / HOW_FLOOR / HOW_SOFT.

    Returns
    -------
    str
        'exhaustive-zero' / 'certified-crossing' / 'participation-floor' / 'bound'; anything else 'global'.
    """
    return next((c for h, c in CALIBRATION.items() if how.startswith(h)), "global")


@dataclass(frozen=True)
class MarginalSensitivity:
    """The exact Blowfish sensitivity of one count marginal h_S.

    clique: the attribute names of S; sensitivity: l2 sensitivity of h_S (count units: 0, 1 or
    sqrt 2); score: the l1 sensitivity of h_S (count units: 0, 1 or 2), also the sensitivity of
    MST's selection score of S; how: HOW_NONE / HOW_SQRT2 / HOW_FLOOR; witness: for HOW_SQRT2, the
    crossing per-attribute edge {"attribute", "from", "to"} (decoded values; None otherwise).
    """

    clique: tuple[str, ...]
    sensitivity: float
    score: float
    how: str
    witness: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def exact(self) -> bool:
        """True when h_S is the same on all neighbouring tables: measure it without noise."""
        return self.sensitivity == 0.0

    @property
    def calibration(self) -> str:
        """The engine ledger's calibration name for :attr:`how`."""
        return calibration_of(self.how)


@dataclass(frozen=True)
class SelectionSensitivity:
    """The sensitivity of the exponential mechanism's scores over a set of candidate cliques.

    sensitivity: the maximum of the candidates' score sensitivities (score units, l1 counts);
    per_candidate: (clique, its score sensitivity) in candidate order.
    """

    sensitivity: float
    per_candidate: tuple[tuple[tuple[str, ...], float], ...]

    @property
    def how(self) -> str:
        """The ledger's words: the maximum and how many candidates have each value ("" without
        per-candidate values: a global sensitivity)."""
        if not self.per_candidate:
            return ""
        values = sorted({s for _, s in self.per_candidate})
        tally = ", ".join(f"{sum(s == v for _, s in self.per_candidate)} at {v:g}" for v in values)
        return f"max over {len(self.per_candidate)} candidates ({tally}; 0: exact marginal)"


def _crossing_witness(cells: PublicCells, policy: Policy, i: int) -> dict[str, Any] | None:
    """A per-attribute policy edge of attribute i joining two values in different cells, or None.

    Finite domains: every value edge is checked (value_edges) against the cells of its two ends.
    A continuous numeric attribute with a threshold theta > 0 and more than one cell: values on
    either side of a bin boundary, closer than theta, are an edge that crosses it.
    """
    a = cells.schema.attributes[i]
    ap = policy.policy_for(a.name)
    if attribute_reach(a, ap) == 0 or cells.sizes[i] < 2:
        return None
    ve = value_edges(a, ap)
    if ve is None:  # continuous: a threshold > 0 straddles any interior bin boundary
        return {"attribute": a.name, "from": "just below a bin boundary", "to": "just above it"}
    X = np.zeros((ve.size, cells.schema.p))
    X[:, i] = ve.codes
    cell = cells.encode(X)[:, i]
    cross = np.flatnonzero(cell[ve.e0] != cell[ve.e1])
    if cross.size == 0:
        return None
    vals = a.domain_values()
    k = int(cross[0])
    return {"attribute": a.name, "from": vals[int(ve.e0[k])], "to": vals[int(ve.e1[k])]}


@dataclass(frozen=True)
class PolicyMarginals:
    """Exact per-marginal Blowfish sensitivities for one schema's public cells and one policy.

    witnesses: per attribute (schema order), a crossing edge or None (see
    :func:`_crossing_witness`); participation: the policy's participation flag.
    """

    names: tuple[str, ...]
    witnesses: tuple[dict[str, Any] | None, ...]
    participation: bool

    @classmethod
    def of(cls, cells: PublicCells, policy: Policy) -> PolicyMarginals:
        """The per-attribute crossing check, from the public cells and the policy alone.

        Raises PolicyError when the policy does not fit the schema.
        """
        policy.validate(cells.schema)
        wit = tuple(_crossing_witness(cells, policy, i) for i in range(cells.schema.p))
        return cls(tuple(cells.names), wit, bool(policy.participation))

    @property
    def public_total(self) -> bool:
        """True without participation edges: neighbouring tables have the same record count n."""
        return not self.participation

    @property
    def crossing(self) -> tuple[str, ...]:
        """The attributes some policy edge moves to another cell (their marginals are noisy)."""
        return tuple(n for n, w in zip(self.names, self.witnesses) if w is not None)

    def marginal(self, clique: tuple[int, ...]) -> MarginalSensitivity:
        """The exact sensitivity of h_S for S = ``clique`` (column indices).

        Returns a :class:`MarginalSensitivity`: l2 sqrt 2 (l1 2) when an attribute of S has a
        crossing edge; else 1 (l1 1) with participation edges; else 0.
        """
        names = tuple(self.names[c] for c in clique)
        wit = next((self.witnesses[c] for c in clique if self.witnesses[c] is not None), None)
        if wit is not None:
            return MarginalSensitivity(names, SQRT2, 2.0, HOW_SQRT2, wit)
        if self.participation:
            return MarginalSensitivity(names, 1.0, 1.0, HOW_FLOOR)
        return MarginalSensitivity(names, 0.0, 0.0, HOW_NONE)

    def selection(self, candidates: list[tuple[int, ...]]) -> SelectionSensitivity:
        """The selection score's sensitivity over ``candidates`` (cliques of column indices): the
        maximum of the candidates' score sensitivities, with each candidate's value."""
        per = tuple((m.clique, m.score) for m in (self.marginal(c) for c in candidates))
        return SelectionSensitivity(max((s for _, s in per), default=0.0), per)

    def weighted_selection(self, candidates: list[tuple[int, ...]], weights: list[float]) -> SelectionSensitivity:
        """AIM's quality-score sensitivity over ``candidates`` with weights w_r (bf-aim; PRIVACY §10).

        The score w_r (||h_r(D) - hhat_r||_1 - c_r), hhat_r and c_r fixed by earlier releases,
        changes by at most w_r times the l1 sensitivity of h_r (0, 1 or 2): the maximum over the
        candidates, each candidate's value in ``per_candidate``.
        """
        per = tuple((m.clique, float(w) * m.score) for m, w in zip((self.marginal(c) for c in candidates), weights))
        return SelectionSensitivity(max((s for _, s in per), default=0.0), per)


def selection_sensitivity(cells: PublicCells, policy: Policy, candidates: list[tuple[int, ...]]) -> float:
    """The exponential mechanism's score sensitivity over ``candidates`` under ``policy``.

    Parameters
    ----------
    cells : PublicCells
        The public cells of the schema.
    policy : Policy
        The policy (its graphs and participation flag).
    candidates : list of tuple of int
        Candidate cliques (column indices).

    Returns
    -------
    float
        max over candidates of the score sensitivity (score units: l1 counts; 0, 1 or 2).
    """
    return PolicyMarginals.of(cells, policy).selection(candidates).sensitivity


def policy_plan(cells: PublicCells, policy: Policy, method: str) -> PolicyMarginals:
    """The policy's marginal sensitivities; PolicyError when it protects no cell of any attribute.

    Parameters
    ----------
    cells : PublicCells
        The public cells of the schema.
    policy : Policy
        The Blowfish policy.
    method : str
        The method's name, for the message ("bf-mst", "bf-aim").

    Returns
    -------
    PolicyMarginals

    Raises
    ------
    PolicyError
        When no policy edge moves a record to another cell (every marginal would be released
        exactly: there is nothing private to fit), or the policy does not fit the schema.
    """
    plan = PolicyMarginals.of(cells, policy)
    if not plan.crossing and not plan.participation:
        raise PolicyError(f"{method}: no policy edge moves a record to another cell of any attribute, so every "
                          "marginal would be released exactly (nothing is protected). Fix: protect an attribute "
                          f"whose cells the policy crosses, or use {method.removeprefix('bf-')}")
    return plan
