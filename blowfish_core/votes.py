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

import numpy as np

from .distance import GowerKernel, chunk_rows, domain_index, tile_rows
from .input_checks import check_tau_normal
from .errors import BudgetError
from .schema import Schema


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


def vote_histogram(
    schema: Schema,
    C: np.ndarray,
    U: np.ndarray,
    counts: np.ndarray | None = None,
    vote: str = "hard",
    tau: float | None = None,
    I: np.ndarray | None = None,
    kernel: GowerKernel | None = None,
) -> np.ndarray:
    """Vote histogram H(D; C): float64 (m,), summing to sum(counts).

    C: (m, p) encoded candidate population.  U: (u, p) encoded (grouped) records,
    counts: (u,) multiplicities (ones when None).  vote: 'hard' or 'soft' (then tau > 0).
    Work is chunked so memory stays bounded (distance.BLOCK_BYTES): hard votes are
    reduced tile by tile (cache-sized, distance.TILE_BYTES); soft rows are computed
    tile by tile into a block of ``chunk_rows(m)`` rows that is then summed with one
    matrix-vector product, so the float result does not depend on the tile size
    (hard: exact whenever the counts are whole numbers, as grouped counts are).
    Raises BudgetError for a bad tau, ValueError for an unknown vote.
    """
    if vote not in ("hard", "soft"):
        raise ValueError(f"vote must be 'hard' or 'soft' (got {vote!r})")
    if vote == "soft":
        tau = check_tau(tau)
    k = kernel if kernel is not None else GowerKernel(schema, C)
    if counts is None:
        counts = np.ones(U.shape[0])
    if I is None:
        I = domain_index(schema, U)
    H = np.zeros(k.m)
    n = U.shape[0]
    tile = tile_rows(k.m)
    if vote == "hard":
        for sl, D in k.iter_blocks(U, I, rows=tile):
            H += np.bincount(np.argmin(D, axis=1), weights=counts[sl], minlength=k.m)
        return H
    step = chunk_rows(k.m)
    P = np.empty((min(step, n), k.m))
    scratch = np.empty((min(tile, n), k.m))
    for s in range(0, n, step):
        e = min(s + step, n)
        for a in range(s, e, tile):
            b = min(a + tile, e)
            D = k.block(U[a:b], I[a:b], out=P[a - s:], scratch=scratch)
            soft_rows(D, tau, out=D)
        H += counts[s:e] @ P[: e - s]
    return H


def vote_vectors(schema: Schema, C: np.ndarray, X: np.ndarray, vote: str = "hard", tau: float | None = None) -> np.ndarray:
    """Per-record votes v(x): float64 (n, m), each row on the simplex (small inputs, tests, pages)."""
    k = GowerKernel(schema, C)
    out = np.zeros((X.shape[0], k.m))
    for sl, D in k.iter_blocks(X):
        if vote == "hard":
            out[sl] = _one_hot(np.argmin(D, axis=1), k.m)
        elif vote == "soft":
            out[sl] = soft_rows(D, tau)
        else:
            raise ValueError(f"vote must be 'hard' or 'soft' (got {vote!r})")
    return out


def _one_hot(idx: np.ndarray, m: int) -> np.ndarray:
    o = np.zeros((idx.size, m))
    o[np.arange(idx.size), idx] = 1.0
    return o


def nearest(schema: Schema, C: np.ndarray, X: np.ndarray, kernel: GowerKernel | None = None) -> np.ndarray:
    """nn(x) = argmin_j d(x, c_j) for each record (ties -> lowest index): int (n,)."""
    k = kernel if kernel is not None else GowerKernel(schema, C)
    out = np.empty(X.shape[0], dtype=np.intp)
    for sl, D in k.iter_blocks(X, rows=tile_rows(k.m)):
        out[sl] = np.argmin(D, axis=1)
    return out
