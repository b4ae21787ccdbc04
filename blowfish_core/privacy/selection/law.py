"""The law of a calibration's release on one dataset, and its exact delta(epsilon) between
neighbours (composite Gauss-Legendre quadrature over a continuous scale)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...base._lazy import stats  # imported on first use: not at import (issue 23)
from ...base.errors import PolicyError
from .em import _real, em_probabilities
from .graph import SelectionGraph
from .hockey import _gibbs_rows


# ---------------------------------------------------------------------- laws
@dataclass(frozen=True)
class SelectionLaw:
    """The law of one calibration's release on one dataset.

    releases_scale: True when the scale B is part of the release (then the law is over
    (B, index)), False when only the index is released.
    scales: (a,) atoms of B; joint: (a, k) Pr[B = scales[i], group g].
    continuous: None, or (mu, a, floor): B also has the density of Laplace(mu, a) on
    (floor, inf) (the atom at floor carries its lower tail); with it, R given B = b
    follows the Gibbs law of ``scores`` at scale b and ``epsilon_s``.
    scores, counts: (k,) the dataset's score groups (for the continuous part).
    """

    releases_scale: bool
    scales: np.ndarray
    joint: np.ndarray
    scores: np.ndarray
    counts: np.ndarray
    epsilon_s: float
    continuous: tuple[float, float, float] | None = None

    def density(self, b: np.ndarray) -> np.ndarray:
        """Joint density of (B, group) on the continuous part: (len(b), k).  PolicyError when the law
        has no continuous part."""
        if self.continuous is None:
            raise PolicyError("this law has no continuous scale part (continuous is None). Fix: use joint")
        mu, a, _ = self.continuous
        k = stats.laplace.pdf(b, loc=mu, scale=a)
        return k[:, None] * _gibbs_rows(self.scores, self.counts, b, self.epsilon_s)

    def marginal(self) -> np.ndarray:
        """Law of the index alone (k,) (groups' total mass); the continuous part by quadrature."""
        out = self.joint.sum(axis=0)
        if self.continuous is not None:
            b, w = _quadrature_nodes([self.continuous])
            out = out + (w[:, None] * self.density(b)).sum(axis=0)
        return out / out.sum()

    def expected_scale(self) -> float:
        """E[B] (score units)."""
        e = float((self.scales * self.joint.sum(axis=1)).sum())
        if self.continuous is not None:
            b, w = _quadrature_nodes([self.continuous])
            e += float((w * b * stats.laplace.pdf(b, loc=self.continuous[0], scale=self.continuous[1])).sum())
        return e


#: composite Gauss-Legendre for the continuous scale: pieces and points per piece, and the
#: Laplace tail cut (density below e^-TAIL_CUT of its peak is dropped: mass < e^-60).
QUAD_PIECES = 512
QUAD_POINTS = 16
TAIL_CUT = 60.0


def _piece_edges(parts: list[tuple[float, float, float]]) -> np.ndarray:
    """Piece boundaries over [max(floor, min mu − 60a), max mu + 60a], with every mu (the
    Laplace kink) as a boundary."""
    floor = parts[0][2]
    lo = max(floor, min(mu - TAIL_CUT * a for mu, a, _ in parts))
    hi = max(mu + TAIL_CUT * a for mu, a, _ in parts)
    if hi <= lo:
        return np.zeros(0)
    mus = [mu for mu, _, _ in parts if lo < mu < hi]
    return np.unique(np.concatenate([np.linspace(lo, hi, QUAD_PIECES + 1), mus]))


def _gauss(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes and weights on the pieces between ``edges``."""
    if edges.size < 2:
        return np.zeros(0), np.zeros(0)
    x, w = np.polynomial.legendre.leggauss(QUAD_POINTS)
    half = np.diff(edges) / 2.0
    mid = (edges[:-1] + edges[1:]) / 2.0
    return (mid[:, None] + half[:, None] * x[None, :]).ravel(), (half[:, None] * w[None, :]).ravel()


def _quadrature_nodes(parts: list[tuple[float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    return _gauss(_piece_edges(parts))


def _hockey_integral(P: SelectionLaw, Q: SelectionLaw, e: float,
                     parts: list[tuple[float, float, float]]) -> float:
    """∫ Σ_g max(0, p(b,g) − e q(b,g)) db over the continuous part.  The kinks of max(0, ·)
    (sign changes of each group's difference, located by vectorized bisection between piece
    boundaries to 2^-60 of a piece) become piece boundaries too, so each piece's integrand
    is smooth and 16-point Gauss-Legendre is accurate to rounding."""
    edges = _piece_edges(parts)
    if edges.size < 2:
        return 0.0

    def diff(b: np.ndarray) -> np.ndarray:
        return P.density(b) - e * Q.density(b)

    H = diff(edges)
    iv, gv = np.nonzero(H[:-1] * H[1:] < 0)
    roots = np.zeros(0)
    if iv.size:
        a, c = edges[iv].copy(), edges[iv + 1].copy()
        sa = np.sign(H[iv, gv])
        rows = np.arange(iv.size)
        for _ in range(60):
            mid = 0.5 * (a + c)
            same = np.sign(diff(mid)[rows, gv]) == sa
            a = np.where(same, mid, a)
            c = np.where(same, c, mid)
        roots = 0.5 * (a + c)
    b, w = _gauss(np.unique(np.concatenate([edges, roots])))
    return float((w[:, None] * np.maximum(0.0, diff(b))).sum())


def _one_way(P: SelectionLaw, Q: SelectionLaw, epsilon: float) -> float:
    e = math.exp(epsilon)
    if not P.releases_scale:
        return float(np.maximum(0.0, P.marginal() - e * Q.marginal()).sum())
    atoms = np.union1d(P.scales, Q.scales)

    def on(law: SelectionLaw) -> np.ndarray:
        J = np.zeros((atoms.size, law.joint.shape[1]))
        J[np.searchsorted(atoms, law.scales)] += law.joint
        return J

    total = float(np.maximum(0.0, on(P) - e * on(Q)).sum())
    if P.continuous is not None or Q.continuous is not None:
        if P.continuous is None or Q.continuous is None or P.continuous[2] != Q.continuous[2]:
            raise PolicyError("both laws need the same continuous scale part (same floor). Fix: same calibration")
        total += _hockey_integral(P, Q, e, [P.continuous, Q.continuous])
    return total


def law_delta(P: SelectionLaw, Q: SelectionLaw, epsilon: float) -> float:
    """Exact delta(epsilon) between two releases (max over both orders).

    Discrete parts: the hockey stick over (scale atom, group).  A continuous scale
    (shifted Laplace): ``∫ Σ_g max(0, p(b,g) − e^eps q(b,g)) db`` by composite 16-point
    Gauss-Legendre on 512 pieces over the Laplace bulk ±60 scales (the dropped tails
    carry < e^-60 mass, and the integrand is below the density), with the Laplace kinks
    and every sign change of the integrand as piece boundaries (so each piece is smooth);
    checked against scipy.integrate.quad in tests/privacy/test_selection.py.

    Parameters
    ----------
    P : SelectionLaw
        The release's law on one dataset.
    Q : SelectionLaw
        Its law on a neighbour, from the same calibration.
    epsilon : float
        ``>= 0``, nats.

    Returns
    -------
    float
        delta, in [0, 1].

    Raises
    ------
    PolicyError
        If the two laws come from different calibrations (one releases the scale,
        the other not; or their continuous parts differ in floor).
    BudgetError
        For a negative or non-finite epsilon.
    """
    eps = _real(epsilon, "epsilon", allow_zero=True, fix="use epsilon >= 0")
    if P.releases_scale != Q.releases_scale:
        raise PolicyError("the two laws must come from the same calibration. Fix: compare like with like")
    return max(_one_way(P, Q, eps), _one_way(Q, P, eps))


def _discrete(scales, joint, scores, counts, eps, releases) -> SelectionLaw:
    return SelectionLaw(releases, np.asarray(scales, dtype=float), np.asarray(joint, dtype=float),
                        scores, counts, eps)


def _fixed_scale_law(g: SelectionGraph, v: int, b: float, eps: float, releases: bool) -> SelectionLaw:
    P = em_probabilities(g.scores[v], b, eps, counts=g.counts)
    return _discrete([b], P[None, :], g.scores[v], g.counts, eps, releases)
