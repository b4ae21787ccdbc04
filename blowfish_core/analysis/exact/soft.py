"""Soft exact along one ordered axis: ||v(u) - v(v)||_2 and ||.||_1 of every edge from log-domain
prefix / suffix sums over the sorted candidates (the 'line' method, exact)."""

from __future__ import annotations

import numpy as np

from .metric import BLOCK_ELEMS


def _log_cum(v: np.ndarray, reverse: bool = False) -> np.ndarray:
    """Exclusive log-sum-exp prefix (or suffix) along axis 1: (b, m) -> (b, m + 1).

    Prefix: out[:, t] = log sum_{j < t} exp(v[:, j]).  Suffix: out[:, t] = log sum_{j >= t}.
    """
    b, m = v.shape
    out = np.full((b, m + 1), -np.inf)
    if reverse:
        acc = np.logaddexp.accumulate(v[:, ::-1], axis=1)[:, ::-1]
        out[:, :m] = acc
    else:
        out[:, 1:] = np.logaddexp.accumulate(v, axis=1)
    return out


def _seg_sum(vals: np.ndarray, starts: np.ndarray, nseg: int, seg_of_start: np.ndarray) -> np.ndarray:
    """Sum (b, T) flat items into (b, nseg) segments; starts: offsets of nonempty segments."""
    out = np.zeros((vals.shape[0], nseg))
    if starts.size:
        out[:, seg_of_start] = np.add.reduceat(vals, starts, axis=1)
    return out


def _soft_mid(l2sq: np.ndarray, l1: np.ndarray, iu: np.ndarray, jv: np.ndarray, cs: np.ndarray,
              Bs: np.ndarray, k: float, xu: np.ndarray, xv: np.ndarray, lzu: np.ndarray,
              lzv: np.ndarray) -> None:
    """Add, in place to l2sq and l1 (b, E), the terms of the candidates strictly between u and v
    (sorted positions iu .. jv - 1 of cs) of every edge, in edge chunks of at most about
    BLOCK_ELEMS elements.  The middle sum of :func:`_soft_line`."""
    b = Bs.shape[0]
    cnt = np.maximum(jv - iu, 0)
    if cnt.any():
        cum = np.cumsum(cnt)
        budget = max(int(cnt.max()), BLOCK_ELEMS // max(b, 1))
        s = 0
        E = cnt.size
        while s < E:
            base = cum[s - 1] if s else 0
            t = int(np.searchsorted(cum, base + budget, side="right"))
            t = max(t, s + 1)
            sl = slice(s, t)
            c_ = cnt[sl]
            total = int(c_.sum())
            if total:
                n = c_.size
                offs = np.concatenate([[0], np.cumsum(c_)[:-1]])
                seg = np.repeat(np.arange(n), c_)
                j = iu[sl][seg] + (np.arange(total) - offs[seg])
                cj = cs[j]
                pu = np.exp(Bs[:, j] - k * (cj - xu[sl][seg]) - lzu[:, sl][:, seg])
                pv = np.exp(Bs[:, j] - k * (xv[sl][seg] - cj) - lzv[:, sl][:, seg])
                d = pu - pv
                nz = c_ > 0
                starts = offs[nz]
                segs = np.nonzero(nz)[0]
                l2sq[:, sl] += _seg_sum(d * d, starts, n, segs)
                l1[:, sl] += _seg_sum(np.abs(d), starts, n, segs)
            s = t


def _soft_line(x: np.ndarray, e0: np.ndarray, e1: np.ndarray, c: np.ndarray, B: np.ndarray,
               k: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact ||v(u) - v(v)||_2 and ||.||_1 of every edge along one numeric/ordinal axis.

    x: (L,) codes; e0, e1: (E,) edges; c: (m,) candidate codes on this axis;
    B: (b, m) log prior weights of the candidates per context (-A/tau, A the Gower
    distance over the other attributes; zeros for a one-attribute schema); k = w_i / tau.
    The soft vote at value x in context z is p_j ∝ exp(B_zj - k |x - c_j|).
    Returns (l2 (b, E), l1 (b, E)).

    Derivation.  For an edge u < v with S = k (v - u), candidates left of u (c <= u) are
    all tilted by e^{-S}, those right of v (c >= v) by e^{+S}, so with r = Z_v / Z_u,
    p_v = p_u e^{-S}/r on the left and p_u e^{S}/r on the right:
    ||p_u - p_v||_2^2 = S2_L a_L^2 + S2_R a_R^2 + sum_mid (p_u - p_v)^2 with
    a_L = 1 - e^{-S}/r, a_R = 1 - e^{S}/r and S2_* the sums of p_u^2 over each side,
    taken from log-domain prefix/suffix sums over the sorted candidates.  Candidates
    strictly between u and v are summed directly.
    """
    b, m = B.shape
    x = np.asarray(x, dtype=float)
    xu, xv = x[e0], x[e1]
    swap = xu > xv
    xu, xv = np.where(swap, xv, xu), np.where(swap, xu, xv)
    order = np.argsort(c, kind="stable")
    cs = c[order]
    Bs = B[:, order]
    LA1 = _log_cum(Bs + k * cs)
    RA1 = _log_cum(Bs - k * cs, reverse=True)
    LA2 = _log_cum(2 * Bs + 2 * k * cs)
    RA2 = _log_cum(2 * Bs - 2 * k * cs, reverse=True)
    # log partition function of every value
    il = np.searchsorted(cs, x, side="right")
    logZ = np.logaddexp(LA1[:, il] - k * x, RA1[:, il] + k * x)            # (b, L)
    # edges: left group j < iu (c <= u), right group j >= jv (c >= v), mid in between
    iu = np.searchsorted(cs, xu, side="right")
    jv = np.searchsorted(cs, xv, side="left")
    lzu = np.where(swap, logZ[:, e1], logZ[:, e0])
    lzv = np.where(swap, logZ[:, e0], logZ[:, e1])
    S = k * (xv - xu)
    lr = lzv - lzu
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lPL = LA1[:, iu] - k * xu - lzu
        lPR = RA1[:, jv] + k * xu - lzu
        lS2L = LA2[:, iu] - 2 * k * xu - 2 * lzu
        lS2R = RA2[:, jv] + 2 * k * xu - 2 * lzu
        yL = np.maximum(S + lr, 0.0)          # a_L = 1 - e^{-yL} >= 0
        yR = np.maximum(S - lr, 0.0)          # |a_R| = e^{yR} - 1 >= 0
        log_aL = np.log(-np.expm1(-yL))
        log_aR = yR + np.log(-np.expm1(-yR))
        tL2 = np.where(np.isfinite(lS2L) & (yL > 0), np.exp(lS2L + 2 * log_aL), 0.0)
        tR2 = np.where(np.isfinite(lS2R) & (yR > 0), np.exp(lS2R + 2 * log_aR), 0.0)
        tL1 = np.where(np.isfinite(lPL) & (yL > 0), np.exp(lPL + log_aL), 0.0)
        tR1 = np.where(np.isfinite(lPR) & (yR > 0), np.exp(lPR + log_aR), 0.0)
    l2sq = tL2 + tR2
    l1 = tL1 + tR1
    # candidates strictly between u and v: summed directly, in edge chunks of bounded size
    _soft_mid(l2sq, l1, iu, jv, cs, Bs, k, xu, xv, lzu, lzv)
    return np.sqrt(l2sq), l1
