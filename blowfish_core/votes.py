"""Hard and soft vote histograms (paper §2.3, Eq. (2), Algorithm 1 lines 5-12).

Hard: ``v(x) = e_{nn(x)}`` with ``nn(x) = argmin_j d(x, c_j)`` (ties -> lowest index).
Soft (BF-Soft): ``v(x) = softmax_j(-d(x, c_j) / tau)``, computed stably by
subtracting each row's minimum distance, so tau -> 0 tends to the hard vote
(ties split evenly) and tau -> inf to the uniform vote; never NaN.

Histograms sum the votes over records: ``H = sum_x v(x)``, shape (m,), summing to n.
Identical records are grouped (:func:`blowfish_core.distance.group_records`) and
voted once with their count as weight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .distance import GowerKernel, chunk_rows, domain_index, tile_rows
from .input_checks import check_tau_normal
from .errors import BudgetError
from .schema import Schema


_BLAS = None


def one_blas_thread():
    """Context manager: BLAS limited to one thread (threadpoolctl) for the soft vote's mat-vecs.

    A (chunk_rows, m) mat-vec is a few ms; OpenBLAS's thread hand-off costs more than it
    saves there, and on a busy machine much more (issue 15: 30% of a BF-Soft run).  The
    sums are the same float sums with 1 or more threads (bit-identical releases, checked).
    """
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


def check_tau(tau: float) -> float:
    """Validate a temperature: finite float > 0. Raises BudgetError naming tau."""
    if isinstance(tau, bool) or not isinstance(tau, (int, float, np.floating)) or not math.isfinite(float(tau)) or tau <= 0:
        raise BudgetError(f"tau must be a finite number > 0 (got {tau!r}). Fix: use a positive temperature such as 0.03")
    return check_tau_normal(float(tau))  # a subnormal tau overflows 1/tau (issue 11)


def soft_rows(D: np.ndarray, tau: float, out: np.ndarray | None = None) -> np.ndarray:
    """Row-wise softmax(-D / tau), stable.  D: (rows, m) Gower distances -> (rows, m), rows sum to 1."""
    tau = check_tau(tau)
    P = np.subtract(D, D.min(axis=1, keepdims=True), out=out)
    P *= -1.0 / tau
    np.exp(P, out=P)
    P /= P.sum(axis=1, keepdims=True)
    return P


def whole_counts(counts: np.ndarray) -> bool:
    """True when counts ((u,) float) are whole numbers with sum |counts| <= 2^52 (the check's own
    float sum, with room for its rounding, so the exact sum is < 2^53): then any order of summing
    any subset of them is exact in float64 (NaN / inf: False)."""
    c = np.asarray(counts, dtype=float)
    return bool(np.all(c == np.rint(c))) and float(np.abs(c).sum()) <= 2.0 ** 52


@dataclass(frozen=True)
class HardVote:
    """Hard vote v(x) = e_nn(x) (Eq. (2), tau -> 0): one-hot on the nearest candidate."""

    name: ClassVar[str] = "hard"
    tau: None = None

    def histogram(self, schema: Schema, C: np.ndarray, U: np.ndarray, counts: np.ndarray,
                  I: np.ndarray, kernel: GowerKernel) -> np.ndarray:
        """H = sum_x counts[x] e_nn(x): float64 (m,), reduced tile by tile (exact for whole counts).

        nn(x) from :meth:`GowerKernel.nearest` (float32 distances, near ties recomputed exactly
        in float64): the same argmin as float64 distances, so the same histogram (issue 15).
        Whole counts (grouped records) with sum |counts| <= 2^52: every partial sum is an exact
        integer, so one bincount gives the same float64 values as the tile-by-tile sums (15e)."""
        nn = kernel.nearest(U, I)
        if whole_counts(counts):
            return np.bincount(nn, weights=counts, minlength=kernel.m)
        H = np.zeros(kernel.m)
        step = tile_rows(kernel.m)
        for s in range(0, U.shape[0], step):  # the same per-tile float sums as before
            e = min(s + step, U.shape[0])
            H += np.bincount(nn[s:e], weights=counts[s:e], minlength=kernel.m)
        return H

    def rows(self, D: np.ndarray) -> np.ndarray:
        """Per-record votes from distances D (rows, m) -> (rows, m) one-hot."""
        return _one_hot(np.argmin(D, axis=1), D.shape[1])


@dataclass(frozen=True)
class SoftVote:
    """Soft vote v(x) = softmax_j(-d(x, c_j) / tau) (BF-Soft, Eq. (2)); tau > 0 (BudgetError otherwise)."""

    tau: float
    name: ClassVar[str] = "soft"

    def __post_init__(self) -> None:
        object.__setattr__(self, "tau", check_tau(self.tau))

    def histogram(self, schema: Schema, C: np.ndarray, U: np.ndarray, counts: np.ndarray,
                  I: np.ndarray, kernel: GowerKernel) -> np.ndarray:
        """H = counts @ softmax rows: float64 (m,); independent of the tile size (one mat-vec per block)."""
        H = np.zeros(kernel.m)
        for part in self.block_sums(U, counts, I, kernel):
            H += part
        return H

    def block_sums(self, U: np.ndarray, counts: np.ndarray, I: np.ndarray, kernel: GowerKernel):
        """Yield ``counts[s:e] @ softmax rows`` per block of ``chunk_rows(m)`` records: float64 (m,).

        The histogram is their sum in block order; the Dask engine sums the blocks of every
        partition in the same order, so its histogram is the same float sum (issue 15).
        """
        n = U.shape[0]
        tile = tile_rows(kernel.m)
        step = chunk_rows(kernel.m)
        P = np.empty((min(step, n), kernel.m))
        scratch = np.empty((min(tile, n), kernel.m))
        kernel.prepare(I)
        with one_blas_thread():
            for s in range(0, n, step):
                e = min(s + step, n)
                for a in range(s, e, tile):
                    b = min(a + tile, e)
                    D = kernel.block(U[a:b], I[a:b], out=P[a - s:], scratch=scratch)
                    soft_rows(D, self.tau, out=D)
                yield counts[s:e] @ P[: e - s]

    def rows(self, D: np.ndarray) -> np.ndarray:
        return soft_rows(D, self.tau)


#: the vote kinds by name (the only place a vote name is mapped to its class).
VOTES = {"hard": HardVote, "soft": SoftVote}

Vote = HardVote | SoftVote


def as_vote(vote: "str | Vote", tau: float | None = None) -> Vote:
    """A Vote object from a Vote or a vote name ('hard' or 'soft', then tau > 0).

    Raises ValueError for an unknown name, BudgetError for a bad tau.
    """
    if isinstance(vote, (HardVote, SoftVote)):
        return vote
    cls = VOTES.get(vote) if isinstance(vote, str) else None
    if cls is None:
        raise ValueError(f"vote must be 'hard' or 'soft' (got {vote!r})")
    return cls() if cls is HardVote else cls(tau)


def vote_histogram(
    schema: Schema,
    C: np.ndarray,
    U: np.ndarray,
    counts: np.ndarray | None = None,
    vote: "str | Vote" = "hard",
    tau: float | None = None,
    I: np.ndarray | None = None,
    kernel: GowerKernel | None = None,
) -> np.ndarray:
    """Vote histogram H(D; C): float64 (m,), summing to sum(counts).

    C: (m, p) encoded candidate population.  U: (u, p) encoded (grouped) records,
    counts: (u,) multiplicities (ones when None).  vote: a Vote (HardVote, SoftVote(tau))
    or its name 'hard' / 'soft' (then tau > 0).
    Work is chunked so memory stays bounded (distance.BLOCK_BYTES): hard votes are
    reduced tile by tile (cache-sized, distance.TILE_BYTES); soft rows are computed
    tile by tile into a block of ``chunk_rows(m)`` rows that is then summed with one
    matrix-vector product, so the float result does not depend on the tile size
    (hard: exact whenever the counts are whole numbers, as grouped counts are).
    Raises BudgetError for a bad tau, ValueError for an unknown vote.
    """
    v = as_vote(vote, tau)
    k = kernel if kernel is not None else GowerKernel(schema, C)
    if counts is None:
        counts = np.ones(U.shape[0])
    if I is None:
        I = domain_index(schema, U)
    return v.histogram(schema, C, U, counts, I, k)


def vote_vectors(schema: Schema, C: np.ndarray, X: np.ndarray, vote: "str | Vote" = "hard",
                 tau: float | None = None) -> np.ndarray:
    """Per-record votes v(x): float64 (n, m), each row on the simplex (small inputs, tests, pages)."""
    v = as_vote(vote, tau)
    k = GowerKernel(schema, C)
    out = np.zeros((X.shape[0], k.m))
    for sl, D in k.iter_blocks(X):
        out[sl] = v.rows(D)
    return out


def _one_hot(idx: np.ndarray, m: int) -> np.ndarray:
    o = np.zeros((idx.size, m))
    o[np.arange(idx.size), idx] = 1.0
    return o


def nearest(schema: Schema, C: np.ndarray, X: np.ndarray, kernel: GowerKernel | None = None) -> np.ndarray:
    """nn(x) = argmin_j d(x, c_j) for each record (ties -> lowest index): int (n,)."""
    k = kernel if kernel is not None else GowerKernel(schema, C)
    return k.nearest(X)
