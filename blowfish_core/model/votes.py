"""Hard and soft vote histograms (paper §2.3, Eq. (2), Algorithm 1 lines 5-12).

Hard: ``v(x) = e_{nn(x)}`` with ``nn(x) = argmin_j d(x, c_j)`` (ties -> lowest index).
Soft (BF-Soft): ``v(x) = softmax_j(-d(x, c_j) / tau)``, computed stably by
subtracting each row's minimum distance, so tau -> 0 tends to the hard vote
(ties split evenly) and tau -> inf to the uniform vote; never NaN.

Histograms sum the votes over records: ``H = sum_x v(x)``, shape (m,), summing to n.
Identical records are grouped (:func:`blowfish_core.model.distance.group_records`) and
voted once with their count as weight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .gower_kernel import GowerKernel
from .rows import domain_index
from .tiling import TILE32_BYTES, chunk_rows, tile_rows
from ..base.input_checks import check_tau_normal
from ..base.errors import BudgetError
from .schema import Schema


_BLAS = None

#: largest per-entry relative vote error (bound of :meth:`SoftVote.rel_error`'s softmax part) for
#: which the soft vote runs in float32 (issue 15d); a smaller tau runs in float64.
SOFT32_MAX_REL = 1e-3


def one_blas_thread():
    """Context manager: BLAS limited to one thread (threadpoolctl) for the soft vote's mat-vecs.

    A (chunk_rows, m) mat-vec is a few ms; OpenBLAS's thread hand-off costs more than it
    saves there, and on a busy machine much more (issue 15: 30% of a BF-Soft run).  The
    sums are the same float sums with 1 or more threads (bit-identical releases, checked).

    Returns
    -------
    context manager
        threadpoolctl's limit, active inside ``with``.
    """
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


def check_tau(tau: float | None) -> float:
    """Validate a temperature: finite float > 0.

    Parameters
    ----------
    tau : float or None
        The softmax temperature (None, a bool or a non-number is refused).

    Returns
    -------
    float
        ``tau`` as a float.

    Raises
    ------
    BudgetError
        Naming tau, if it is not a finite number > 0 or is subnormal
        (:func:`~blowfish_core.base.input_checks.check_tau_normal`).
    """
    if isinstance(tau, bool) or not isinstance(tau, (int, float, np.floating)) or not math.isfinite(float(tau)) or tau <= 0:
        raise BudgetError(f"tau must be a finite number > 0 (got {tau!r}). Fix: use a positive temperature such as 0.03")
    return check_tau_normal(float(tau))  # a subnormal tau overflows 1/tau (issue 11)


def soft_rows(D: np.ndarray, tau: float, out: np.ndarray | None = None) -> np.ndarray:
    """Row-wise softmax(-D / tau), stable.

    Parameters
    ----------
    D : (rows, m) float64 ndarray
        Gower distances.
    tau : float
        Softmax temperature, > 0, in Gower units.
    out : (rows, m) float64 ndarray or None
        Buffer for the result (may be ``D``); None allocates one.

    Returns
    -------
    (rows, m) float64 ndarray
        The soft votes; rows sum to 1.

    Raises
    ------
    BudgetError
        For a bad tau (:func:`check_tau`).
    """
    return _soft_rows(D, check_tau(tau), out)


def _soft_rows(D: np.ndarray, tau: float, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`soft_rows` for a tau already checked (a SoftVote's own): nothing re-checked."""
    P = np.subtract(D, D.min(axis=1, keepdims=True), out=out)
    P *= -1.0 / tau
    np.exp(P, out=P)
    P /= P.sum(axis=1, keepdims=True)
    return P


def whole_counts(counts: np.ndarray) -> bool:
    """Whether any order of summing any subset of ``counts`` is exact in float64.

    Parameters
    ----------
    counts : (u,) float ndarray
        Record multiplicities.

    Returns
    -------
    bool
        True when counts are whole numbers with sum |counts| <= 2^52 (the check's own float sum,
        with room for its rounding, so the exact sum is < 2^53); NaN / inf: False.
    """
    c = np.asarray(counts, dtype=float)
    return bool(np.all(c == np.rint(c))) and float(np.abs(c).sum()) <= 2.0 ** 52


@dataclass(frozen=True)
class HardVote:
    """Hard vote v(x) = e_nn(x) (Eq. (2), tau -> 0): one-hot on the nearest candidate."""

    name: ClassVar[str] = "hard"
    #: declared capabilities: needs_tau (built from a temperature), whole_counts (histograms of whole counts).
    needs_tau: ClassVar[bool] = False
    whole_counts: ClassVar[bool] = True
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


#: the soft vote's arithmetic: 'float64' (every entry to 1e-15; releases) or 'float32' (float32
#: tiles within :meth:`SoftVote.rel_error`; seeded study runs).  run_synthesis takes it from the
#: run's randomness source (``streams.vote_precision``), as it takes the noise sampler.
PRECISIONS = ("float64", "float32")


@dataclass(frozen=True)
class SoftVote:
    """Soft vote v(x) = softmax_j(-d(x, c_j) / tau) (BF-Soft, Eq. (2)); tau > 0 (BudgetError otherwise).

    precision: 'float64' (default) or 'float32' (:data:`PRECISIONS`; ValueError otherwise).
    Float32 tiles are about 2.5x faster and within ``rel_error(kernel)`` per bin of the float64
    histogram (issue 15d), but then one record's change can move the histogram by more than the
    sensitivity the calibration states (its float32 row is off by up to ``rel_error`` per entry,
    and the tile's float32 mat-vec re-rounds the other records' sums); so releases (OS randomness)
    vote in float64 and only seeded study runs, whose noise is known from the seed anyway, vote
    in float32 (docs/DECISIONS.md, issue 15 session 4).
    """

    tau: float
    precision: str = "float64"
    name: ClassVar[str] = "soft"
    needs_tau: ClassVar[bool] = True
    whole_counts: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "tau", check_tau(self.tau))
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)} (got {self.precision!r})")

    @classmethod
    def _checked(cls, tau: float, precision: str = "float64") -> "SoftVote":
        """The vote for a tau already checked by :func:`check_tau` (a RunSpec or run_synthesis's set-up
        carries it): the constructor's check of tau is not repeated.  ValueError for a bad precision."""
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)} (got {precision!r})")
        vote = object.__new__(cls)
        object.__setattr__(vote, "tau", tau)
        object.__setattr__(vote, "precision", precision)
        return vote

    def histogram(self, schema: Schema, C: np.ndarray, U: np.ndarray, counts: np.ndarray,
                  I: np.ndarray, kernel: GowerKernel) -> np.ndarray:
        """H = counts @ softmax rows: float64 (m,), the sum of :meth:`block_sums` in block order.

        Within ``rel_error(kernel) * H64_j`` (+ 1e-12 n) of the float64 softmax histogram per bin."""
        H = np.zeros(kernel.m)
        for part in self.block_sums(U, counts, I, kernel):
            H += part
        return H

    def rel_error(self, kernel: GowerKernel) -> float:
        """Relative error bound per bin of the histogram vs the float64 softmax histogram; 0.0 on the
        float64 path (precision 'float64', or a tau too small for float32).  Derivation (u = 2^-24, p attributes, S = the kernel's largest distance
        :meth:`GowerKernel.distance_bound`, r = float32 tile rows):

        * distances: ``|D32 - D| <= E = 2 p (u + 2^-53) S`` (:meth:`GowerKernel.nearest`);
        * the exponent ``-(D32 - min D32) / tau`` in float32 (one subtraction, k = fl(-1/tau), one
          product), then exp (<= 4 u, numpy's float32 exp, with 4 u spare): off by at most
          ``delta = (E + 3 u S) / tau + 8 u`` per entry beyond a per-row constant (the row shift
          cancels in the softmax);
        * the softmax ratio then moves each vote entry by a factor within ``exp(+-2 delta)``; the
          weight ``counts / row sum`` (float64 sum, one float32 rounding) and the product add 2 u;
        * the float32 mat-vec of r rows of non-negative terms: ``gamma_r <= (r + 1) u`` relative
          (Higham 2002 §3.1); the float64 block sums are exact to 1e-15.

        So ``|H32_j - H64_j| <= (expm1(2 delta) (1 + (r + 3) u) + (r + 3) u) H64_j``.
        """
        if not self.float32_ok(kernel):
            return 0.0
        u = 2.0 ** -24
        delta = self._delta(kernel)
        r = tile_rows(kernel.m, 2 * TILE32_BYTES)
        g = (r + 3) * u
        return math.expm1(2.0 * delta) * (1.0 + g) + g

    def precision_used(self, kernel: GowerKernel) -> str:
        """The arithmetic this round's histogram runs in: 'float32' (tiles, when :meth:`float32_ok`)
        or 'float64' (a release, or a tau too small for float32).  Public (tau, schema, candidates)."""
        return "float32" if self.float32_ok(kernel) else "float64"

    def float32_ok(self, kernel: GowerKernel) -> bool:
        """Whether the float32 block applies: precision 'float32', its per-entry vote error bound
        at most ``SOFT32_MAX_REL`` (small tau makes float32 distance rounding matter; then float64)
        and 1/tau a float32 number.  Depends on tau, the schema and the candidates only (public)."""
        if self.precision != "float32":
            return False
        inv = 1.0 / self.tau
        if not inv < 1e30:
            return False
        delta = self._delta(kernel)
        return delta < 1.0 and math.expm1(2.0 * delta) <= SOFT32_MAX_REL  # (a huge delta overflows expm1)

    def _delta(self, kernel: GowerKernel) -> float:
        """delta of :meth:`rel_error`: the float32 exponent's error bound per entry (natural-log units)."""
        u = 2.0 ** -24
        S = kernel.distance_bound()
        E = 2.0 * kernel.schema.p * (u + 2.0 ** -53) * S
        return (E + 3.0 * u * S) / self.tau + 8.0 * u

    def block_sums(self, U: np.ndarray, counts: np.ndarray, I: np.ndarray, kernel: GowerKernel):
        """Yield ``counts[s:e] @ softmax rows`` per block of ``chunk_rows(m)`` records: float64 (m,).

        The histogram is their sum in block order; the Dask engine sums the blocks of every
        partition in the same order, so its histogram is the same float sum (issue 15).
        Float32 (issue 15d, when :meth:`float32_ok`): each block is cut into float32 tiles of
        ``tile_rows(m, 2 TILE32_BYTES)`` records (256 at m = 1,024); per tile the Gower distances
        (:meth:`GowerKernel.tile32`), the stable softmax in float32 (subtract the row minimum,
        times fl(-1/tau), exp), the weights ``counts / row sum`` (row sums in float64) and one
        float32 mat-vec, added to the block's float64 sum.  Otherwise float64 rows in tiles of
        ``tile_rows(m)`` and one float64 mat-vec per block (the pre-15d engine).
        """
        if self.float32_ok(kernel):
            yield from self._block_sums32(U, counts, I, kernel)
        else:
            yield from self._block_sums64(U, counts, I, kernel)

    def _block_sums32(self, U, counts, I, kernel):
        n, m = U.shape[0], kernel.m
        if n == 0:
            return
        step = chunk_rows(m)
        tile = tile_rows(m, 2 * TILE32_BYTES)  # 4-byte entries
        tabs, gidx, top = kernel.tables32(I)
        h = min(tile, n)
        D = np.empty((h, m), dtype=np.float32)
        buf = np.empty((h, m), dtype=np.float32)
        buf64 = np.empty((h, m)) if kernel.direct else None
        k = np.float32(-1.0 / self.tau)
        with one_blas_thread():
            for s in range(0, n, step):
                e = min(s + step, n)
                Hb = np.zeros(m)
                for a in range(s, e, tile):
                    b = min(a + tile, e)
                    d = D[: b - a]
                    kernel.tile32(U, tabs, gidx, a, b, d, buf, buf64, top)
                    d -= d.min(axis=1, keepdims=True)
                    d *= k
                    np.exp(d, out=d)
                    wts = (counts[a:b] / d.sum(axis=1, dtype=np.float64)).astype(np.float32)
                    Hb += wts @ d
                yield Hb

    def _block_sums64(self, U, counts, I, kernel):
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
                    _soft_rows(D, self.tau, out=D)  # the vote's tau, checked when it was made
                yield counts[s:e] @ P[: e - s]

    def rows(self, D: np.ndarray) -> np.ndarray:
        return _soft_rows(D, self.tau)


#: the vote kinds by name (the only place a vote name is mapped to its class).
VOTES = {"hard": HardVote, "soft": SoftVote}

Vote = HardVote | SoftVote


def as_vote(vote: "str | Vote", tau: float | None = None) -> Vote:
    """A Vote object from a Vote or a vote name.

    Parameters
    ----------
    vote : str or Vote
        A HardVote / SoftVote (returned as is), or 'hard' or 'soft'.
    tau : float or None
        Softmax temperature, > 0, for 'soft'.

    Returns
    -------
    Vote
        HardVote() or SoftVote(tau).

    Raises
    ------
    ValueError
        For an unknown name.
    BudgetError
        For a bad tau (raised by SoftVote).
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
    """Vote histogram H(D; C).

    Work is chunked so memory stays bounded (distance.BLOCK_BYTES): hard votes are
    reduced tile by tile (cache-sized, distance.TILE_BYTES); soft rows are computed
    tile by tile into a block of ``chunk_rows(m)`` rows that is then summed with one
    matrix-vector product, so the float result does not depend on the tile size
    (hard: exact whenever the counts are whole numbers, as grouped counts are).

    Parameters
    ----------
    schema : Schema
        The schema.
    C : (m, p) float64 ndarray
        Encoded candidate population.
    U : (u, p) float64 ndarray
        Encoded (grouped) records.
    counts : (u,) float ndarray or None
        Multiplicities (ones when None).
    vote : str or Vote
        A Vote (HardVote, SoftVote(tau)) or its name 'hard' / 'soft' (then tau > 0).
    tau : float or None
        Softmax temperature for the name 'soft'.
    I : (u, p) int32 ndarray or None
        :func:`~blowfish_core.model.distance.domain_index` of U (computed when None).
    kernel : GowerKernel or None
        A kernel over C to reuse (built when None).

    Returns
    -------
    (m,) float64 ndarray
        H, summing to sum(counts).

    Raises
    ------
    BudgetError
        For a bad tau (:func:`as_vote`).
    ValueError
        For an unknown vote (:func:`as_vote`).
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
    """Per-record votes v(x) (small inputs, tests, pages).

    Parameters
    ----------
    schema : Schema
        The schema.
    C : (m, p) float64 ndarray
        Encoded candidates.
    X : (n, p) float64 ndarray
        Encoded records.
    vote : str or Vote
        A Vote or its name 'hard' / 'soft' (then tau > 0).
    tau : float or None
        Softmax temperature for the name 'soft'.

    Returns
    -------
    (n, m) float64 ndarray
        Each row on the simplex.

    Raises
    ------
    BudgetError
        For a bad tau (:func:`as_vote`).
    ValueError
        For an unknown vote (:func:`as_vote`).
    """
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
    """nn(x) = argmin_j d(x, c_j) for each record (ties -> lowest index).

    Parameters
    ----------
    schema : Schema
        The schema.
    C : (m, p) float64 ndarray
        Encoded candidates.
    X : (n, p) float64 ndarray
        Encoded records.
    kernel : GowerKernel or None
        A kernel over C to reuse (built when None).

    Returns
    -------
    (n,) int ndarray
        The nearest candidate's index per record.
    """
    k = kernel if kernel is not None else GowerKernel(schema, C)
    return k.nearest(X)
