"""ResampleMutate (Tab-PE style) and the release, post-processing of the noisy counts.

Paper Algorithm 1, App. B; DESIGN §3 "ResampleMutate".  Out of evolution.py (issue 22), which
re-exports every name.

Selection (:func:`_select`): 'sample' draws the parents proportionally to the clipped counts
(one mutated child each, parents not kept); 'rank' keeps the top m/(1+children) by
:func:`rank_order` plus ``children`` mutated children each.  If every clipped count is zero,
parents are drawn uniformly (documented fallback).
Mutation (rate_t = a - (a - b) (t/T)^0.2, a=0.5, b=0.01; round t mutates at rate_t,
or at rate_{t-1} with ``mutation_index='t-1'``, as the reference library): numeric and ordinal
values move by a uniform step in [-rate, rate] x (domain width), rounded to the
grid and clipped; categorical/binary/hierarchical values are redrawn uniformly
with probability rate.
The release (:func:`release_indices`, :func:`top_release`) is taken from C_T unmutated:
release_mode 'top' = the candidates with the largest counts (each once), 'top-distinct' = the
same with equal records once, 'sample' = drawn proportionally to the clipped counts.
"""

from __future__ import annotations

import numpy as np

from ..model.schema import Schema
from .config import SynthConfig


def mutation_rate(t: int, T: int, a: float = 0.5, b: float = 0.01) -> float:
    """rate_t = a - (a - b) (t/T)^0.2 (DESIGN §3).

    Parameters
    ----------
    t : int
        Round, in [0, T] (rate_0 = a).
    T : int
        Number of rounds.
    a : float, default 0.5
        Starting rate.
    b : float, default 0.01
        Final rate (at t = T).

    Returns
    -------
    float
        The mutation rate, in [b, a].
    """
    return a - (a - b) * (t / T) ** 0.2


def round_mutation_rate(t: int, cfg: SynthConfig) -> float:
    """The rate round t (1..T-1) mutates its parents at.

    rate_t (mutation_index 't') or rate_{t-1} ('t-1', the reference library's indexing).

    Parameters
    ----------
    t : int
        Round, 1..T-1.
    cfg : SynthConfig
        The run's settings (rounds, mutation_index, mutation_start/end).

    Returns
    -------
    float
        The mutation rate.
    """
    i = t if cfg.mutation_index == "t" else t - 1
    return mutation_rate(i, cfg.rounds, cfg.mutation_start, cfg.mutation_end)


def mutate(schema: Schema, parents: np.ndarray, rate: float, rng: np.random.Generator) -> np.ndarray:
    """Tab-PE-style mutation of encoded parents (k, p) -> children (k, p).

    Draws for every attribute regardless of its type so streams stay paired; each
    attribute applies its own step (Attribute.mutate, blowfish_core.model.domain).

    Parameters
    ----------
    schema : Schema
        The public schema.
    parents : (k, p) float ndarray
        Encoded parents.
    rate : float
        Mutation rate, in [0, 1].
    rng : numpy.random.Generator
        The round's mutation stream.

    Returns
    -------
    (k, p) float ndarray
        The encoded children.
    """
    k, p = parents.shape
    out = parents.copy()
    steps = rng.uniform(-1.0, 1.0, size=(k, p)) * rate
    redraw = rng.random(size=(k, p)) < rate
    picks = rng.random(size=(k, p))
    for i, a in enumerate(schema.attributes):
        out[:, i] = a.mutate(out[:, i], steps[:, i], redraw[:, i], picks[:, i])
    return out


def rank_order(w: np.ndarray, scores: np.ndarray | None = None) -> np.ndarray:
    """Candidate indices from the highest count down (stable: ties keep index order).

    Parameters
    ----------
    w : (m,) float ndarray
        Clipped counts.
    scores : (m,) float ndarray, optional
        What to rank by instead (the raw noisy counts for rank_by='raw'); None
        ranks by w (as w / sum(w), which is the same order).

    Returns
    -------
    (m,) int ndarray
        Candidate indices, best first.
    """
    if scores is not None:
        return np.argsort(-scores, kind="stable")
    total = w.sum()
    prob = w / total if total > 0 else np.full(w.size, 1.0 / w.size)
    return np.argsort(-prob, kind="stable")


def _select(mode: str, w: np.ndarray, size: int, children: int, rng: np.random.Generator,
            scores: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Return (kept parent indices, parent index of every child to mutate).

    'sample': size parents drawn proportionally to the clipped counts w; 'rank': the top
    size // (1 + children) by rank_order(w, scores) kept, children cycled over them."""
    m = w.size
    u = rng.random(size)
    total = w.sum()
    prob = w / total if total > 0 else np.full(m, 1.0 / m)
    if mode == "sample":
        cdf = np.cumsum(prob)
        cdf[-1] = 1.0
        return np.zeros(0, dtype=np.intp), np.searchsorted(cdf, u, side="right").astype(np.intp)
    keep_n = max(1, size // (1 + children))
    order = rank_order(w, scores)
    kept = order[: min(keep_n, m)]
    n_child = size - kept.size
    child_parents = np.resize(kept, n_child)
    return kept.astype(np.intp), child_parents.astype(np.intp)


def top_release(C: np.ndarray | None, order: np.ndarray, n: int, distinct: bool = False) -> np.ndarray:
    """The first n indices of ``order`` (candidate indices in rank order, best first).

    Each candidate appears once; when there are fewer than n, they repeat cyclically in rank
    order.  Post-processing only.

    Parameters
    ----------
    C : (m, p) ndarray or None
        The candidates (needed with ``distinct``).
    order : (m,) int ndarray
        Candidate indices in rank order, best first.
    n : int
        Number of indices to return.
    distinct : bool, default False
        'top-distinct': a record that appears several times in C counts once, at
        its best-ranked copy, before the cut.

    Returns
    -------
    (n,) int ndarray
        Indices into C.
    """
    if distinct and C is not None and order.size:
        _, first = np.unique(C[order], axis=0, return_index=True)
        order = order[np.sort(first)]
    return np.resize(order[: min(n, order.size)], n)


def release_indices(w: np.ndarray, n: int, mode: str, rng: np.random.Generator,
                    scores: np.ndarray | None = None, C: np.ndarray | None = None) -> np.ndarray:
    """Indices into C_T of n released records, from the last clipped noisy counts w (m_T,).

    Post-processing only (no privacy cost).

    Parameters
    ----------
    w : (m_T,) float ndarray
        The last clipped noisy counts.
    n : int
        Number of released records.
    mode : {"sample", "top", "top-distinct"}
        'sample': drawn proportionally to w (uniformly when every w is 0), by n
        uniforms of ``rng``; 'top': the n candidates of C with the largest counts
        (rank_order(w, scores); stable order); 'top-distinct': the same with equal
        records once; see top_release.
    rng : numpy.random.Generator
        The release stream (n uniforms are drawn in every mode).
    scores : (m_T,) float ndarray, optional
        The raw noisy counts for rank_by='raw'.
    C : (m_T, p) ndarray, optional
        The final candidates (for 'top-distinct').

    Returns
    -------
    (n,) int ndarray
        Indices into C_T.
    """
    total = w.sum()
    prob = w / total if total > 0 else np.full(w.size, 1.0 / w.size)
    cdf = np.cumsum(prob)
    cdf[-1] = 1.0
    u = rng.random(n)
    if mode in ("top", "top-distinct"):
        return top_release(C, rank_order(w, scores), n, mode == "top-distinct")
    return np.searchsorted(cdf, u, side="right")
