"""Sensitivity and per-round calibration of the vote histogram (paper §5, Table 1).

All calibrations depend only on the policy, tau, the public domain and the current
candidate population -- never on private records (DESIGN §7).

* Tab-PE: Delta = sqrt(2) (bounded DP, one record moves its vote).
* Hard: exact policy-specific sensitivity for the current population (Cor. 5.3):
  sqrt(2) if some protected record-level edge (u, v) has nn(u) != nn(v), else 0.
  A fast crossing search certifies sqrt(2); 0 is certified only by an exhaustive
  search when the record-level edge set is small enough; otherwise we fall back to
  sqrt(2) and record "fallback".
* BF-Soft: Delta = sqrt(2) tanh(r / (2 tau)) (Cor. 5.5), r the record-level reach.
* Soft vote at standard DP: r = the whole Gower diameter (sum of weights).
* Participation edges (§5.6, Remark 3): Delta >= 1 for either vote.

l1 versions (Laplace variant): hard 2, soft 2 tanh(r / (2 tau)).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .distance import GowerKernel, domain_index
from .policy import Policy, record_edge_count, record_reach, value_edges
from .schema import Schema
from .votes import check_tau

SQRT2 = math.sqrt(2.0)

#: exhaustive certification of Hard's 0 is attempted up to this many record-level edges.
DEFAULT_MAX_EDGES = 200_000
#: candidate contexts tried by the crossing search before exhaustive/fallback.
CROSSING_CONTEXTS = 256
#: grid points along a continuous protected attribute in the crossing search.
CONTINUOUS_GRID = 256

METHODS = ("tab-pe", "hard", "bf-soft", "soft-dp", "soft-hard-noise")
METHOD_LABELS = {
    "tab-pe": "Tab-PE",
    "hard": "Hard",
    "bf-soft": "BF-Soft",
    "soft-dp": "Soft vote (standard DP)",
    "soft-hard-noise": "Soft vote with Hard's noise",
}


def noise_ratio(reach: float, tau: float) -> float:
    """Noise ratio q = tanh(r / (2 tau)) = sigma_BF-Soft / sigma_Hard (§6.1).

    reach: record-level reach in Gower units (>= 0); tau > 0 (BudgetError otherwise).
    """
    tau = check_tau(tau)
    if reach < 0 or not math.isfinite(reach):
        raise ValueError(f"reach must be a finite number >= 0 (got {reach})")
    return float(math.tanh(reach / (2.0 * tau)))


def soft_bound(reach: float, tau: float, norm: str = "l2") -> float:
    """Closed-form BF-Soft sensitivity bound (Cor. 5.5): sqrt(2) tanh(r/(2 tau)) (l2) or
    2 tanh(r/(2 tau)) (l1).  Valid for every candidate population."""
    q = noise_ratio(reach, tau)
    return (SQRT2 if norm == "l2" else 2.0) * q


def tau_for_noise_ratio(reach: float, q: float) -> float:
    """Matched noise ratio (App. F.4): tau = r / (2 atanh(q)), 0 < q < 1."""
    if not 0 < q < 1:
        raise ValueError(f"q must be in (0, 1) (got {q})")
    return reach / (2.0 * math.atanh(q))


def standard_dp_reach(schema: Schema) -> float:
    """Record-level reach of the complete record graph: the Gower diameter sum_i w_i."""
    return schema.gower_diameter


@dataclass
class Calibration:
    """Sensitivity of one round's release.

    delta: l2 sensitivity Delta_t.  how: 'global' (Tab-PE's sqrt(2)), 'bound' (Cor. 5.5),
    'certified-crossing', 'exhaustive-zero', 'fallback', or 'participation-floor'.
    witness: for a certified crossing, the edge found (decoded values), else None.
    """

    delta: float
    how: str
    witness: dict[str, Any] | None = None
    edges_checked: int = 0
    notes: list[str] = field(default_factory=list)


def hard_sensitivity(
    schema: Schema,
    policy: Policy,
    C: np.ndarray,
    max_edges: float = DEFAULT_MAX_EDGES,
    contexts: int = CROSSING_CONTEXTS,
    kernel: GowerKernel | None = None,
) -> Calibration:
    """Exact policy-specific l2 sensitivity of the hard vote for population C (Cor. 5.3).

    C: (m, p) encoded candidates.  Returns Calibration with delta in {0, sqrt(2)}:
    'certified-crossing' (a protected edge whose endpoints have different nearest
    candidates, reported as ``witness``), 'exhaustive-zero' (every record-level edge
    checked, none crosses; only when there are at most ``max_edges`` of them and every
    attribute is enumerable) or 'fallback' (sqrt(2) without a certificate).
    Participation edges make the sensitivity at least 1 and are reported as such.
    """
    k = kernel if kernel is not None else GowerKernel(schema, C)
    protected = policy.protected(schema)
    if not protected:
        cal = Calibration(0.0, "exhaustive-zero", notes=["no protected edge: the policy graph is empty"])
        return _participation(cal, policy)
    # 1. fast crossing search with contexts taken from the (public) candidates
    ctx = np.unique(np.asarray(C, dtype=float), axis=0)[:contexts]
    checked = 0
    for name in protected:
        hit, n = _search(schema, policy, k, name, ctx)
        checked += n
        if hit is not None:
            return Calibration(SQRT2, "certified-crossing", witness=hit, edges_checked=checked)
    # 2. exhaustive certification of 0 where the record-level edge set is small enough
    total = record_edge_count(schema, policy)
    if total <= max_edges:
        for name in protected:
            i = schema.index(name)
            others = [a for j, a in enumerate(schema.attributes) if j != i]
            grids = [a.domain_codes() for a in others]
            for batch in _product_batches(grids, 4096):
                full = np.zeros((batch.shape[0], schema.p))
                full[:, [j for j in range(schema.p) if j != i]] = batch
                hit, n = _search(schema, policy, k, name, full)
                checked += n
                if hit is not None:
                    return Calibration(SQRT2, "certified-crossing", witness=hit, edges_checked=checked)
        return _participation(Calibration(0.0, "exhaustive-zero", edges_checked=checked), policy)
    note = (
        f"no crossing found among {len(ctx)} candidate contexts and the record-level edge set "
        f"({'infinite' if math.isinf(total) else int(total)} edges) exceeds the exhaustive limit "
        f"({int(max_edges)}): calibrated to sqrt(2) without a certificate"
    )
    return Calibration(SQRT2, "fallback", edges_checked=checked, notes=[note])


def _participation(cal: Calibration, policy: Policy) -> Calibration:
    if policy.participation and cal.delta < 1.0:
        return Calibration(1.0, "participation-floor", edges_checked=cal.edges_checked,
                           notes=cal.notes + ["participation edges (u, bottom): Delta >= 1 (§5.6)"])
    return cal


def _product_batches(grids: list[np.ndarray], size: int):
    """Yield (b, len(grids)) arrays enumerating the product of the grids in batches."""
    it = itertools.product(*[g.tolist() for g in grids])
    while True:
        rows = list(itertools.islice(it, size))
        if not rows:
            return
        yield np.array(rows, dtype=float).reshape(len(rows), len(grids))


def attribute_edge_grid(
    schema: Schema, policy: Policy, name: str, crossing_only: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values along attribute ``name`` and protected pairs among them, for searches.

    Returns (codes (L,), e0 (E,), e1 (E,)).  Finite domains: every value and every
    protected pair.  Continuous numeric: a grid of CONTINUOUS_GRID points g and the
    points g + theta (clipped), paired, so every pair is a true protected edge.
    crossing_only: for a threshold >= 1 step on an ordered finite domain keep only
    consecutive pairs -- enough to decide whether *some* protected edge crosses a
    decision boundary (if nn(a) != nn(b) with |a - b| <= theta, some consecutive pair
    between them differs too), not for measuring the largest soft change.
    """
    a = schema[name]
    ap = policy.policy_for(name)
    ve = value_edges(a, ap)
    if ve is not None:
        if crossing_only and ap.kind == "threshold" and a.kind in ("numeric", "ordinal") and ve.e0.size:
            first = ve.e1 - ve.e0 == 1
            return ve.codes, ve.e0[first], ve.e1[first]
        return ve.codes, ve.e0, ve.e1
    theta = float(ap.theta) / (a.hi - a.lo)
    g = np.linspace(0.0, 1.0 - min(theta, 1.0), CONTINUOUS_GRID)
    h = np.minimum(g + theta, 1.0)
    codes = np.concatenate([g, h])
    G = g.size
    return codes, np.arange(G), np.arange(G, 2 * G)


def _search(schema: Schema, policy: Policy, k: GowerKernel, name: str, ctx: np.ndarray, batch: int = 16):
    """Look for a protected edge on ``name`` with a context from ``ctx`` crossing a
    decision boundary.  Returns (witness or None, edges checked)."""
    i = schema.index(name)
    codes, e0, e1 = attribute_edge_grid(schema, policy, name, crossing_only=True)
    if e0.size == 0:
        return None, 0
    L = codes.size
    checked = 0
    step = max(1, min(batch, 65536 // max(L, 1)))
    for s in range(0, ctx.shape[0], step):
        Z = ctx[s : s + step]
        R = np.repeat(Z, L, axis=0)
        R[:, i] = np.tile(codes, Z.shape[0])
        I = domain_index(schema, R)
        nn = np.empty(R.shape[0], dtype=np.intp)
        for sl, D in k.iter_blocks(R, I):
            nn[sl] = np.argmin(D, axis=1)
        NN = nn.reshape(Z.shape[0], L)
        cross = NN[:, e0] != NN[:, e1]
        checked += cross.size
        if cross.any():
            zi, ei = np.argwhere(cross)[0]
            u = R[zi * L + e0[ei]]
            v = R[zi * L + e1[ei]]
            return {
                "attribute": name,
                "u": schema.decode(u[None, :]).iloc[0].to_dict(),
                "v": schema.decode(v[None, :]).iloc[0].to_dict(),
                "nn_u": int(NN[zi, e0[ei]]),
                "nn_v": int(NN[zi, e1[ei]]),
            }, checked
    return None, checked


def calibrate(
    method: str,
    schema: Schema,
    policy: Policy,
    tau: float | None,
    C: np.ndarray | None = None,
    reach: float | None = None,
    max_edges: float = DEFAULT_MAX_EDGES,
    kernel: GowerKernel | None = None,
    hard_delta: float | None = None,
) -> Calibration:
    """Per-round l2 sensitivity Delta_t of ``method`` (Algorithm 1 lines 13-19).

    method: one of METHODS.  'soft-hard-noise' (the decomposition's soft vote with
    Hard's noise, §6.2.3) uses ``hard_delta`` (Hard's Delta_t of the same round,
    default sqrt(2)).  Raises ValueError for an unknown method.
    """
    if method == "tab-pe":
        return Calibration(SQRT2, "global")
    if method == "hard":
        return hard_sensitivity(schema, policy, C, max_edges=max_edges, kernel=kernel)
    if method == "bf-soft":
        r = record_reach(schema, policy) if reach is None else reach
        return _participation(Calibration(soft_bound(r, tau), "bound"), policy)
    if method == "soft-dp":
        return Calibration(soft_bound(standard_dp_reach(schema), tau), "bound",
                           notes=["standard DP: reach = Gower diameter"])
    if method == "soft-hard-noise":
        d = SQRT2 if hard_delta is None else hard_delta
        return Calibration(d, "global", notes=["decomposition: soft vote with Hard's noise (§6.2.3)"])
    raise ValueError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
