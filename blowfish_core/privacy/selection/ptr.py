"""Propose-test-release for the EM's scale (papers/001 §6): the certificate-search binary search."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from ...base._lazy import stats  # imported on first use: not at import (issue 23)
from ...base.errors import BudgetError, PolicyError
from .em import _prob, _real, regret_bound
from .graph import SelectionGraph
from .hockey import _gibbs_rows
from .law import SelectionLaw, _discrete


def ptr_tests(J: int) -> int:
    """Largest number of tests the §6 binary search makes on a grid of J scales (ceil(log2 J)).

    Parameters
    ----------
    J : int
        Number of scales on the grid, ``>= 1``.

    Returns
    -------
    int
        The depth of the search, ceil(log2 J).
    """
    def depth(lo: int, hi: int) -> int:
        if lo >= hi:
            return 0
        i = (lo + hi) // 2
        return 1 + max(depth(lo, i), depth(i + 1, hi))
    return depth(0, J - 1)


@dataclass(frozen=True)
class PTR:
    """``ptr`` (§6): binary search over a public grid b_1 < ... < b_J (b_J >= GS_q, used
    untested) with noisy tests ``phi_i(x) + Lap(s) > tau``; phi_i(x) = min(d(x, H_i), cap),
    H_i = {z : LS_q(z) > b_i} (a 1-Lipschitz lower certificate).  L = :func:`ptr_tests`
    (J) tests of epsilon_t/L each: s = L/epsilon_t [R], tau = s log(L/(2 eta)) [R]; the
    released (B, R) is (epsilon_t + epsilon_s, eta)-DP (Thm 5.2).  grid None = powers of 2
    from the graph's smallest positive LS up to the first >= GS_q.
    """

    epsilon_s: float = 1.0
    epsilon_t: float = 1.0
    eta: float = 1e-6
    grid: tuple[float, ...] | None = None
    cap: float = 64.0
    name: str = "ptr"
    private: bool = True
    releases_scale: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon_s", _real(self.epsilon_s, "epsilon_s"))
        object.__setattr__(self, "epsilon_t", _real(self.epsilon_t, "epsilon_t",
                                                    fix="use a positive budget for the search, e.g. 1"))
        object.__setattr__(self, "eta", _prob(self.eta, "eta", "use a small probability such as 1e-6"))
        object.__setattr__(self, "cap", _real(self.cap, "cap", fix="use a public distance cap such as 64"))
        if self.grid is not None:
            g = np.asarray(self.grid, dtype=float)
            if g.ndim != 1 or g.size == 0 or not np.all(np.isfinite(g)) or np.any(g <= 0) or np.any(np.diff(g) <= 0):
                raise BudgetError(f"grid must be increasing positive scales (got {self.grid!r}). "
                                  "Fix: e.g. (0.25, 0.5, 1.0) with the last >= the global sensitivity")
            object.__setattr__(self, "grid", tuple(float(x) for x in g))

    @property
    def label(self) -> str:
        return "PTR certificate search (§6): (ε_t + ε_s, η)"

    def claim(self) -> tuple[float, float]:
        return self.epsilon_t + self.epsilon_s, self.eta

    def grid_for(self, graph: SelectionGraph) -> np.ndarray:
        gs = graph.global_sensitivity()
        if self.grid is not None:
            g = np.asarray(self.grid)
            if g[-1] < gs - 1e-12:
                raise PolicyError(f"ptr: the grid's last scale {g[-1]:g} is below the global sensitivity {gs:g}; "
                                  "the untested fallback would not be safe. Fix: end the grid at >= GS")
            return g
        ls = graph.local_sensitivity()
        lo = float(ls[ls > 0].min()) if np.any(ls > 0) else max(gs, 1.0)
        top = max(gs, lo)
        k = max(0, math.ceil(math.log2(top / lo) - 1e-12))
        return lo * 2.0 ** np.arange(k + 1)

    def parameters(self, J: int) -> tuple[int, float, float]:
        """(L, s, tau) for a grid of J scales."""
        L = ptr_tests(J)
        if L == 0:
            return 0, math.inf, math.inf
        s = L / self.epsilon_t
        return L, s, s * math.log(L / (2.0 * self.eta))

    def certificates(self, graph: SelectionGraph, grid: np.ndarray) -> np.ndarray:
        """phi_i(x) = min(d(x, H_i), cap) for every dataset: (V, J)."""
        ls = graph.local_sensitivity()
        return np.column_stack([np.minimum(graph.distance_to(ls > b + 1e-12), self.cap) for b in grid])

    def scale_law(self, phi: np.ndarray, J: int) -> np.ndarray:
        """Exact law of the searched index (J,) from one dataset's certificates phi (J,):
        every path of the binary search tree, test i passing w.p. Pr[Lap(s) > tau − phi_i]."""
        L, s, tau = self.parameters(J)
        out = np.zeros(J)
        if L == 0:
            out[-1] = 1.0
            return out
        pas = stats.laplace.sf(tau - np.asarray(phi, dtype=float), scale=s)

        def walk(lo: int, hi: int, w: float) -> None:
            if lo >= hi:
                out[hi] += w
                return
            i = (lo + hi) // 2
            walk(lo, i, w * pas[i])
            walk(i + 1, hi, w * (1.0 - pas[i]))

        walk(0, J - 1, 1.0)
        return out

    def sample_index(self, phi: np.ndarray, J: int, rng: np.random.Generator) -> int:
        """One run of the search (the mechanism itself): the chosen grid index."""
        _, s, tau = self.parameters(J)
        lo, hi = 0, J - 1
        while lo < hi:
            i = (lo + hi) // 2
            if phi[i] + rng.laplace(0.0, s) > tau:
                hi = i
            else:
                lo = i + 1
        return hi

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        grid = self.grid_for(graph)
        w = self.scale_law(self.certificates(graph, grid)[v], grid.size)
        counts = cast(np.ndarray, graph.counts)  # set by SelectionGraph.__post_init__
        rows = _gibbs_rows(graph.scores[v], counts, grid, self.epsilon_s)
        return _discrete(grid, w[:, None] * rows, graph.scores[v], graph.counts, self.epsilon_s, True)

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return self.law(graph, v).expected_scale()

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        """(21) with zeta = rho: B <= b_{i+}, i+ the first index with phi_i >= tau + s log(L/(2 rho)),
        except w.p. rho; then Eq. (2): failure <= 2 rho."""
        r = _prob(rho, "rho", "use a failure probability such as 0.05")
        grid = self.grid_for(graph)
        L, s, tau = self.parameters(grid.size)
        i_plus = grid.size - 1
        if L:
            phi = self.certificates(graph, grid)[v]
            ok = np.nonzero(phi >= tau + s * math.log(L / (2.0 * r)))[0]
            if ok.size:
                i_plus = int(ok[0])
        return regret_bound(float(grid[i_plus]), self.epsilon_s, graph.m, r), 2.0 * r
