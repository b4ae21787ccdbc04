"""A finite dataset graph with a score vector per dataset (papers/001 §2): oscillation, local /
global / smooth sensitivity, distances to unsafe sets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np

from ...base._lazy import lazy_module
from ...base.errors import PolicyError
from .em import _counts, _real

sparse = lazy_module("scipy.sparse")  # imported on first use: not at import (issue 23)
csgraph = lazy_module("scipy.sparse.csgraph")


# ------------------------------------------------------------- dataset graph
@dataclass(frozen=True)
class SelectionGraph:
    """A finite dataset graph (X, ∼) with the score vector of every dataset (papers/001 §2).

    names: (V,) labels of the datasets; scores: (V, k) float, score units -- distinct score
    groups; counts: (k,) multiplicities (group g stands for counts[g] candidates with the
    same score on every dataset, so m = counts.sum()); edges: (E, 2) int pairs of neighbours.
    group_labels: (k,) names of the groups.  Raises PolicyError for malformed input.
    """

    names: list[str]
    scores: np.ndarray
    edges: np.ndarray
    counts: np.ndarray | None = None
    group_labels: list[str] | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", np.asarray(self.scores, dtype=float))
        if self.scores.ndim != 2 or self.scores.shape[0] != len(self.names) or self.scores.shape[1] < 1:
            raise PolicyError(f"scores must be (V, k) with V = {len(self.names)} datasets "
                              f"(got shape {self.scores.shape}). Fix: one score row per dataset")
        if not np.all(np.isfinite(self.scores)):
            raise PolicyError("scores must be finite. Fix: replace NaN/inf scores")
        k = self.scores.shape[1]
        object.__setattr__(self, "counts", np.ones(k) if self.counts is None else _counts(self.counts, k))
        e = np.asarray(self.edges, dtype=np.intp).reshape(-1, 2)
        if e.size and (e.min() < 0 or e.max() >= len(self.names) or np.any(e[:, 0] == e[:, 1])):
            raise PolicyError("edges must join two different datasets by index in [0, V). Fix: check the edge list")
        object.__setattr__(self, "edges", e)
        if self.group_labels is None:
            object.__setattr__(self, "group_labels", [f"#{g}" for g in range(k)])

    @property
    def m(self) -> float:
        """Number of candidates (sum of the group multiplicities)."""
        return float(cast(np.ndarray, self.counts).sum())  # set by __post_init__

    def oscillation(self) -> np.ndarray:
        """ω_q(x, x') = max_r |q(x,r) − q(x',r)| of every edge: (E,) score units."""
        if not self.edges.size:
            return np.zeros(0)
        return np.abs(self.scores[self.edges[:, 0]] - self.scores[self.edges[:, 1]]).max(axis=1)

    def local_sensitivity(self) -> np.ndarray:
        """LS_q(x) = max over neighbours of ω: (V,) (0 for an isolated dataset)."""
        ls = np.zeros(len(self.names))
        w = self.oscillation()
        np.maximum.at(ls, self.edges[:, 0], w)
        np.maximum.at(ls, self.edges[:, 1], w)
        return ls

    def global_sensitivity(self) -> float:
        """GS_q = max over edges of ω (score units)."""
        w = self.oscillation()
        return float(w.max()) if w.size else 0.0

    def ls_sensitivity(self) -> float:
        """GS of LS_q itself, max over edges |LS(x) − LS(x')| (the C of Cor. 5.3)."""
        if not self.edges.size:
            return 0.0
        ls = self.local_sensitivity()
        return float(np.abs(ls[self.edges[:, 0]] - ls[self.edges[:, 1]]).max())

    def distances(self) -> np.ndarray:
        """Shortest-path distances (V, V) (inf between components), scipy csgraph."""
        if "d" not in self._cache:
            V = len(self.names)
            A = sparse.coo_matrix((np.ones(len(self.edges)), (self.edges[:, 0], self.edges[:, 1])), shape=(V, V))
            self._cache["d"] = csgraph.shortest_path(A.tocsr(), directed=False, unweighted=True)
        return self._cache["d"]

    def smooth_sensitivity(self, beta: float) -> np.ndarray:
        """The minimal beta-smooth upper bound S*(x) = max_z LS(z) e^{−beta d(x,z)}: (V,)."""
        b = _real(beta, "beta", fix="use a positive smoothness such as beta = 0.5")
        with np.errstate(over="ignore"):
            return (self.local_sensitivity()[None, :] * np.exp(-b * self.distances())).max(axis=1)

    def distance_to(self, mask: np.ndarray) -> np.ndarray:
        """d(x, H) for H = {z : mask[z]}: (V,), +inf for an empty or unreachable H (papers/001 §2)."""
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            return np.full(len(self.names), np.inf)
        return self.distances()[:, mask].min(axis=1)
