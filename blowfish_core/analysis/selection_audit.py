"""Exact selection audit (papers/001; design/selection.md B2, B5(b)).

For a small finite dataset graph, every edge (x, x') is enumerated and the release law
of a calibration (:mod:`blowfish_core.privacy.selection`) is computed exactly on both sides; the
audit reports the worst ``delta(epsilon_claimed)`` over all edges and both orders.  No
sampling.  A case PASSES when the worst delta <= delta_claimed + :data:`TOLERANCE`.

Domains (each a :class:`Construction`):

* :func:`construction_path` -- §4.1 / Prop. 4.1: a path z ∼ x ∼ x' ∼ w, candidates
  {a, b} (or one a and m−1 b's), q(x) = q(x') = (M, 0), ω(z,x) = G, ω(x',w) = G^3, so
  LS(x) = G, LS(x') = G^3.  With M = G^2 the local calibration's delta(epsilon_s) -> 1/2.
* :func:`construction_multiplicity` -- §4.2 / Thm 4.3: a path x ∼ x' ∼ w, ω(x,x') = 0,
  ω(x',w) = 1, S*(x) = e^{-beta}, S*(x') = 1; one candidate with score C, m − 1 with 0.
  The fixed-smooth calibration's delta(1) -> 1 as m (and C) grow.
* :func:`construction_table` -- the project-native instance: X1 ∈ 0..15, X2 ∈ 0..3,
  policy X1 one level, 8 candidates at X1 ∈ {0, 15}, background one record per candidate,
  datasets D = B + {x} for every record x, joined by the policy's record-level edges;
  scores = hard-vote counts.  D = B + (7,0) and D' = B + (6,0) have identical votes
  (2,1,1,1,1,1,1,1) but LS 1 and 0.

The constructions are ours (design/selection.md B2), matching the limits the truncated
paper states.  The shifted-Laplace scale is continuous: its delta is an integral, done by
composite Gauss-Legendre (see :func:`blowfish_core.privacy.selection.law_delta`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..base.errors import BudgetError
from ..model.policy import AttributePolicy, Policy, value_edges
from ..model.domain import FrozenList
from ..model.schema import Attribute, Schema
from ..privacy.selection import (
    BROKEN_SCALE_RULES, NOT_PRIVATE, GlobalScale, LocalScale, PTR, ScaleRule, SelectionGraph,
    ShiftedLaplace, SmoothFixed, law_delta,
)
from ..model.votes import vote_vectors

#: numerical slack of a pass (the continuous case is a quadrature).
TOLERANCE = 1e-12


# --------------------------------------------------------------- constructions
@dataclass(frozen=True)
class Construction:
    """A dataset graph with a focus edge where a broken calibration leaks.

    graph: the dataset graph; focus: (i, j) indices of the two neighbouring datasets with
    identical scores; broken: the broken calibration the construction defeats;
    description: one line for tables and the Lab.
    """

    name: str
    graph: SelectionGraph
    focus: tuple[int, int]
    broken: ScaleRule
    description: str

    @property
    def delta(self) -> float:
        """Exact delta(epsilon_claimed) of the broken calibration on the focus edge."""
        i, j = self.focus
        eps, _ = self.broken.claim()
        return law_delta(self.broken.law(self.graph, i), self.broken.law(self.graph, j), eps)


def _int(x, name: str, lo: int) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < lo:
        raise BudgetError(f"{name} must be a whole number >= {lo} (got {x!r}). Fix: e.g. {name} = {max(lo, 2)}")
    return int(x)


def construction_path(G: float, epsilon_s: float = 1.0, M: float | None = None, m: int = 2) -> Construction:
    """§4.1 (Prop. 4.1): path z ∼ x ∼ x' ∼ w.

    q(x) = q(x') = (M, 0, ..., 0), LS(x) = G, LS(x') = G^3 (ω(z,x) = G, ω(x',w) = G^3);
    m candidates: one 'a' with score M and m − 1 'others' with 0 (one group).
    Local scale, epsilon_s = 1, G = 10: delta(1) = 0.46931 (-> 1/2 as G grows).

    Parameters
    ----------
    G : float
        The local sensitivity at x, score units (finite, > 0).
    epsilon_s : float, default 1.0
        Selection epsilon of the local-scale calibration.
    M : float, optional
        Score of 'a' on x and x'; None means M = G^2 (the paper's choice).
    m : int, default 2
        Candidates, >= 2.

    Returns
    -------
    Construction
        The path graph, focus edge (x, x') and the local-scale calibration it defeats.

    Raises
    ------
    BudgetError
        For G not a finite number > 0, or m not a whole number >= 2.
    """
    G = float(G)
    if not math.isfinite(G) or G <= 0:
        raise BudgetError(f"G must be a finite number > 0 (got {G!r}). Fix: e.g. G = 10")
    M = G * G if M is None else float(M)
    m = _int(m, "m", 2)
    scores = np.array([[M + G, 0.0], [M, 0.0], [M, 0.0], [M + G ** 3, 0.0]])
    graph = SelectionGraph(["z", "x", "x'", "w"], scores, np.array([(0, 1), (1, 2), (2, 3)], dtype=np.intp),
                           counts=np.array([1, m - 1], dtype=float),
                           group_labels=["a", "b" if m == 2 else f"each of the {m - 1} others (total)"])
    return Construction("path", graph, (1, 2), LocalScale(epsilon_s=epsilon_s, b0=0.01),
                        f"§4.1 path z∼x∼x'∼w, G = {G:g}, M = {M:g}, m = {m}: LS(x) = G, LS(x') = G³")


def construction_multiplicity(m: int, C: float, lam: float = 0.25, beta: float = 0.5) -> Construction:
    """§4.2 (Thm 4.3): path x ∼ x' ∼ w with ω(x,x') = 0, ω(x',w) = 1.

    So S*(x) = e^{-beta}, S*(x') = 1; one candidate 'a' with score C and m − 1 with 0 (one group
    of multiplicity m − 1, so m = 10^12 + 1 is cheap).  Fixed-smooth calibration (lam, beta),
    claim epsilon = 1: (m, C) = (1001, 18) gives delta = 0.40067, (10^6 + 1, 40) gives 0.87675
    (-> 1).

    Parameters
    ----------
    m : int
        Candidates, >= 2.
    C : float
        Score of 'a', score units (finite, > 0).
    lam : float, default 0.25
        lam of the fixed-smooth calibration.
    beta : float, default 0.5
        beta of the fixed-smooth calibration.

    Returns
    -------
    Construction
        The path graph, focus edge (x, x') and the fixed-smooth calibration it defeats.

    Raises
    ------
    BudgetError
        For m not a whole number >= 2, or C not a finite number > 0.
    """
    m = _int(m, "m", 2)
    C = float(C)
    if not math.isfinite(C) or C <= 0:
        raise BudgetError(f"C must be a finite number > 0 (got {C!r}). Fix: e.g. C = 18")
    scores = np.array([[C, 0.0], [C, 0.0], [C + 1.0, 0.0]])
    graph = SelectionGraph(["x", "x'", "w"], scores, np.array([(0, 1), (1, 2)], dtype=np.intp),
                           counts=np.array([1, m - 1], dtype=float),
                           group_labels=["a", f"each of the {m - 1} others (total)"])
    return Construction("multiplicity", graph, (0, 1), SmoothFixed(lam=lam, beta=beta),
                        f"§4.2 multiplicity x∼x'∼w, m = {m}, C = {C:g}, λ = {lam:g}, β = {beta:g}")


def table_schema() -> tuple[Schema, Policy, np.ndarray]:
    """The audit's small domain: X1 ordinal 0..15, X2 ordinal 0..3, policy X1 one level.

    Returns
    -------
    schema : Schema
        The two ordinal attributes.
    policy : Policy
        X1 one level, validated.
    C : (8, 2) float64 ndarray
        Candidates encoded at X1 ∈ {0, 15} × X2 ∈ {0..3}.
    """
    schema = Schema(FrozenList([Attribute("X1", "ordinal", levels=list(range(16))),
                                Attribute("X2", "ordinal", levels=list(range(4)))]))
    policy = Policy({"X1": AttributePolicy("threshold", theta=1)}).validate(schema)
    C = np.array([[x1 / 15.0, x2 / 3.0] for x1 in (0, 15) for x2 in range(4)], dtype=float)
    return schema, policy, C


def policy_dataset_graph(schema: Schema, policy: Policy, C: np.ndarray, background: np.ndarray) -> tuple[
        SelectionGraph, np.ndarray]:
    """Datasets D = background + {x} for every record x of a finite domain.

    Joined by the policy's record-level edges (change one attribute by a protected value pair);
    scores = hard-vote histogram.

    Parameters
    ----------
    schema : Schema
        A finite public domain.
    policy : Policy
        The policy.
    C : (m, p) float ndarray
        Encoded candidates.
    background : (n0, p) float ndarray
        Encoded records shared by every dataset.

    Returns
    -------
    graph : SelectionGraph
        One dataset per record, scores (N, m) vote counts.
    records : (N, p) float ndarray
        The encoded records x.
    """
    grids = [a.domain_codes() for a in schema.attributes]
    P = np.array(list(itertools.product(*[g.tolist() for g in grids])), dtype=float)
    sizes = [g.size for g in grids]
    strides = [math.prod(sizes[i + 1:]) for i in range(schema.p)]
    idx = np.arange(P.shape[0])
    edges = []
    for i, a in enumerate(schema.attributes):
        ve = value_edges(a, policy.policy_for(a.name))
        if ve is None or ve.e0.size == 0:
            continue
        base = idx[(idx // strides[i]) % sizes[i] == 0]
        edges.append(np.column_stack([(base[:, None] + ve.e0[None, :] * strides[i]).ravel(),
                                      (base[:, None] + ve.e1[None, :] * strides[i]).ravel()]))
    E = np.concatenate(edges) if edges else np.zeros((0, 2), dtype=np.intp)
    H0 = vote_vectors(schema, C, background, "hard").sum(axis=0)
    scores = H0[None, :] + vote_vectors(schema, C, P, "hard")
    names = ["B+(" + ", ".join(str(v) for v in row) + ")" for row in schema.decode(P).itertuples(index=False)]
    return SelectionGraph(names, scores, E, group_labels=[f"c{j}" for j in range(C.shape[0])]), P


def construction_table(b0: float = 0.01, epsilon_s: float = 1.0, extra: int = 0) -> Construction:
    """The project-native instance (design/selection.md B2).

    Focus D = B + (7,0) (LS 1) and D' = B + (6,0) (LS 0), identical votes (2,1,1,1,1,1,1,1).
    Local scale with b0 = 0.01: delta(1) = 0.80937; b0 = 0.1: 0.68693; b0 = 0.5: this domain
    passes.

    Parameters
    ----------
    b0 : float, default 0.01
        Floor of the local scale, score units.
    epsilon_s : float, default 1.0
        Selection epsilon of the local-scale calibration.
    extra : int, default 0
        More background records on candidate (0, 0) (votes (2 + extra, 1, ...)): with b0 = 0.5
        and extra = 3 the same pair fails again (a floor masks the bug for one domain, it does
        not fix it).

    Returns
    -------
    Construction
        The dataset graph of :func:`table_schema`, the focus edge and the local-scale calibration.

    Raises
    ------
    BudgetError
        For extra not a whole number >= 0.
    """
    schema, policy, C = table_schema()
    extra = _int(extra, "extra", 0)
    background = np.vstack([C, np.repeat(C[:1], extra, axis=0)])
    graph, _ = policy_dataset_graph(schema, policy, C, background)
    names = graph.names
    return Construction("table", graph, (names.index("B+(7, 0)"), names.index("B+(6, 0)")),
                        LocalScale(epsilon_s=epsilon_s, b0=b0),
                        "table X1∈0..15 × X2∈0..3, policy X1 one level, 8 candidates, D = B + {x}")


# ------------------------------------------------------------------ the audit
@dataclass
class SelectionAuditResult:
    """One audit case: worst exact delta(epsilon_claimed) over every edge and both orders.

    case: short id; domain: construction name; calibration: name; label: the calibration's
    label (broken ones say "demonstration: not private"); claim: (epsilon, delta); worst_delta;
    worst_edge: (name, name); edges: edges enumerated; passed: worst_delta <= delta + TOLERANCE.
    """

    case: str
    domain: str
    calibration: str
    label: str
    private: bool
    claim: tuple[float, float]
    worst_delta: float
    worst_edge: tuple[str, str]
    edges: int
    passed: bool


def audit_selection(graph: SelectionGraph, calibration: ScaleRule, *, case: str = "", domain: str = "") -> (
        SelectionAuditResult):
    """Enumerate every edge of ``graph``; exact delta(epsilon_claimed) of ``calibration`` both ways.

    Parameters
    ----------
    graph : SelectionGraph
        The dataset graph.
    calibration : Calibration
        The selection calibration audited.
    case : str, default ''
        Short id of the case (default the calibration's name).
    domain : str, default ''
        Name of the construction.

    Returns
    -------
    SelectionAuditResult
        The worst delta over every edge and both orders; passed when it is at most the claimed
        delta + TOLERANCE.
    """
    eps, dlt = calibration.claim()
    laws = {}
    worst, arg = -1.0, (0, 0)
    for i, j in graph.edges:
        for v in (i, j):
            if v not in laws:
                laws[v] = calibration.law(graph, int(v))
        d = law_delta(laws[i], laws[j], eps)
        if d > worst:
            worst, arg = d, (int(i), int(j))
    worst = max(worst, 0.0)
    return SelectionAuditResult(case or calibration.name, domain, calibration.name, calibration.label,
                                calibration.private, (eps, dlt), worst,
                                (graph.names[arg[0]], graph.names[arg[1]]), len(graph.edges),
                                worst <= dlt + TOLERANCE)


def _domains() -> dict:
    return {"table": construction_table(), "path G=10": construction_path(10),
            "multiplicity m=1001": construction_multiplicity(1001, 18.0)}


#: the suite: (domain, calibration factory, expected verdict: True = must pass).
SELECTION_AUDIT_CASES = (
    ("table", lambda: GlobalScale(epsilon_s=1.0), True),
    ("path G=10", lambda: GlobalScale(epsilon_s=1.0), True),
    ("multiplicity m=1001", lambda: GlobalScale(epsilon_s=1.0), True),
    ("table", lambda: LocalScale(epsilon_s=1.0, b0=0.01), False),
    ("path G=10", lambda: LocalScale(epsilon_s=1.0, b0=0.01), False),
    ("multiplicity m=1001", lambda: SmoothFixed(lam=0.25, beta=0.5, epsilon_claimed=1.0), False),
    ("table", lambda: ShiftedLaplace(epsilon_s=1.0, epsilon_t=1.0, eta=1e-6, b0=0.01), True),
    ("path G=10", lambda: ShiftedLaplace(epsilon_s=1.0, epsilon_t=1.0, eta=1e-6, b0=0.01), True),
    ("table", lambda: PTR(epsilon_s=1.0, epsilon_t=1.0, eta=1e-6, grid=(0.25, 0.5, 1.0), cap=64.0), True),
    ("path G=10", lambda: PTR(epsilon_s=1.0, epsilon_t=1.0, eta=1e-6), True),
)


def run_selection_audit() -> list[tuple[SelectionAuditResult, bool]]:
    """Run :data:`SELECTION_AUDIT_CASES`.

    Returns
    -------
    list of (SelectionAuditResult, bool)
        (result, expected verdict) per case.
    """
    doms = _domains()
    out = []
    for dom, make, expected in SELECTION_AUDIT_CASES:
        cal = make()
        out.append((audit_selection(doms[dom].graph, cal, case=f"em/{cal.name}", domain=dom), expected))
    return out


def selection_audit_table(results: list[tuple[SelectionAuditResult, bool]]) -> str:
    """Plain-text table of selection audit results.

    Parameters
    ----------
    results : list of (SelectionAuditResult, bool)
        (result, expected verdict) per case.

    Returns
    -------
    str
        One line per case: case, domain, claimed (epsilon, delta), exact worst delta, verdict,
        expected.
    """
    head = f"{'case':<20} {'domain':<20} {'claimed (ε, δ)':<16} {'exact worst δ(ε)':>17}  verdict  expected  note"
    lines = [head, "-" * len(head)]
    for r, exp in results:
        eps, dlt = r.claim
        verdict = "pass" if r.passed else "FAIL"
        note = "" if r.private else NOT_PRIVATE
        lines.append(f"{r.case:<20} {r.domain:<20} {f'({eps:g}, {dlt:g})':<16} {r.worst_delta:>17.6g}  "
                     f"{verdict:<7}  {'pass' if exp else 'FAIL':<8}  {note}")
    return "\n".join(lines)


__all__ = [
    "BROKEN_SCALE_RULES", "Construction", "SELECTION_AUDIT_CASES", "SelectionAuditResult", "TOLERANCE",
    "audit_selection", "construction_multiplicity", "construction_path", "construction_table",
    "policy_dataset_graph", "run_selection_audit", "selection_audit_table", "table_schema",
]
