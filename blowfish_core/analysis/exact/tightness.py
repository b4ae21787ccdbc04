"""The Prop. 5.6 construction (App. E): a population and protected pair that attain the BF-Soft bound."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...base.errors import SchemaError
from ...model.policy import AttributePolicy, Policy
from ...model.domain import FrozenList
from ...model.schema import Attribute, Schema
from ...model.sensitivity import SQRT2
from ...model.votes import check_tau
from .metric import soft_votes


# --------------------------------------------------------------- tightness
@dataclass
class Tightness:
    """Prop. 5.6 construction and the value it attains.

    schema: one numeric attribute 'x' on [0, H] with Gower weight H, so the Gower distance
    equals the raw distance |x - y| (the paper's d on the real line).  policy: threshold
    theta on 'x'.  C: (m, 1) encoded candidates; candidates: their raw positions
    (0, L, then L + R + k for k = 3..m).  u, v: raw positions of the protected pair
    (L -+ theta)/2.  attained: ||v(u) - v(v)||_2 of the soft vote at tau (via
    :func:`blowfish_core.model.votes.soft_rows`); bound: sqrt(2) tanh(theta / (2 tau)).
    """

    theta: float
    tau: float
    m: int
    L: float
    R: float
    schema: Schema
    policy: Policy
    C: np.ndarray
    candidates: np.ndarray
    u: float
    v: float
    attained: float
    bound: float

    @property
    def gap(self) -> float:
        """bound - attained (0 up to rounding for m = 2; -> 0 as R grows for m > 2)."""
        return self.bound - self.attained


def tightness_construction(theta: float, tau: float, m: int = 2, L: float | None = None,
                           R: float | None = None) -> Tightness:
    """Prop. 5.6 (App. E): the population and protected pair that attain the BF-Soft bound.

    Candidates c_1 = 0, c_2 = L and, for m > 2, c_k = L + R + k (k = 3..m), pushed R away.
    For m = 2 attained = sqrt(2) tanh(theta / (2 tau)) exactly (up to rounding); for m > 2 it
    approaches it as R grows.  theta = 0 gives u = v and 0.

    Parameters
    ----------
    theta : float
        Threshold (= d(u, v)), >= 0.
    tau : float
        Softmax temperature, > 0.
    m : int, default 2
        Candidates, >= 2.
    L : float, optional
        Position of c_2, >= theta and > 0 (default max(2 theta, 1)).
    R : float, optional
        Push of the extra candidates, >= 0 (default tau (ln m + 40), far enough that the extra
        candidates' mass is below 1e-17 of the pair's).

    Returns
    -------
    Tightness
        The construction, the value it attains and the bound.

    Raises
    ------
    BudgetError
        For a bad tau.
    SchemaError
        For a bad theta, m, L or R.
    """
    tau = check_tau(tau)
    if isinstance(theta, bool) or not isinstance(theta, (int, float, np.floating)) or not math.isfinite(theta) or theta < 0:
        raise SchemaError(f"theta must be a finite number >= 0 (got {theta!r})")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
        raise SchemaError(f"m must be a whole number >= 2 (got {m!r}); Prop. 5.6 needs two candidates")
    theta = float(theta)
    L = max(2.0 * theta, 1.0) if L is None else float(L)
    if not math.isfinite(L) or L < theta or L <= 0:
        raise SchemaError(f"L must be a finite number >= theta and > 0 (got L={L}, theta={theta})")
    R = tau * (math.log(m) + 40.0) if R is None else float(R)
    if not math.isfinite(R) or R < 0:
        raise SchemaError(f"R must be a finite number >= 0 (got {R})")
    cand = np.concatenate([[0.0, L], L + R + np.arange(3, m + 1, dtype=float)])
    H = float(cand.max())
    schema = Schema(FrozenList([Attribute("x", "numeric", lo=0.0, hi=H, weight=H)]))
    policy = Policy({"x": AttributePolicy("threshold", theta=theta)})
    u, v = (L - theta) / 2.0, (L + theta) / 2.0
    C = (cand / H)[:, None]
    X = np.array([[u / H], [v / H]])
    P = soft_votes(schema, C, X, tau)
    attained = float(np.linalg.norm(P[0] - P[1]))
    bound = float(SQRT2 * math.tanh(theta / (2.0 * tau)))
    return Tightness(theta, tau, int(m), L, R, schema, policy, C, cand, u, v, attained, bound)
