"""Fidelity metrics: PWErr, HOErr, paired relative reduction, t-intervals.

DESIGN §3 "Metrics"; paper §6.1 and App. F.2.  These compare a synthetic table
with the real one for *evaluation*; they are not part of any private release.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from ..base._lazy import stats  # scipy.stats, imported on first use (issue 15)

from .schema import Schema

#: equal-width bins for numeric attributes over their public domain (reference library: ~20).
NUMERIC_BINS = 20


def bin_codes(schema: Schema, X: np.ndarray, bins: int | str = NUMERIC_BINS) -> tuple[np.ndarray, list[int]]:
    """Discretize encoded records for marginals: int (n, p) cell indices and the cell count per attribute.

    Numeric: ``bins`` equal-width bins over the public domain [lo, hi], or with
    bins="exact" one cell per whole number (integer attributes only); finite
    attributes: one cell per level.  ValueError for "exact" on a continuous attribute.
    """
    out = np.empty(X.shape, dtype=np.int64)
    sizes = []
    for i, a in enumerate(schema.attributes):
        out[:, i], size = a.bin_codes(X[:, i], bins)
        sizes.append(size)
    return out, sizes


def marginal(codes: np.ndarray, sizes: list[int], cols: tuple[int, ...], weights: np.ndarray | None = None) -> np.ndarray:
    """Normalized marginal over ``cols`` (flattened, length prod sizes); sums to 1."""
    flat = np.zeros(codes.shape[0], dtype=np.int64)
    for c in cols:
        flat = flat * sizes[c] + codes[:, c]
    n = int(np.prod([sizes[c] for c in cols]))
    h = np.bincount(flat, weights=weights, minlength=n).astype(float)
    s = h.sum()
    return h / s if s > 0 else h


def pwerr(schema: Schema, X_real: np.ndarray, X_syn: np.ndarray, bins: int | str = NUMERIC_BINS,
          weights: np.ndarray | None = None) -> float:
    """PWErr: mean l1 distance between normalized 2-way marginals over all attribute pairs.

    X_real: (n, p), X_syn: (r, p) encoded.  weights: optional (n,) multiplicities of the
    rows of X_real (grouped records; whole-number counts give the same value as the
    expanded table).  Value in [0, 2].  Needs p >= 2 (ValueError otherwise).
    """
    if schema.p < 2:
        raise ValueError("PWErr needs at least two modeled attributes")
    a, sizes = bin_codes(schema, X_real, bins)
    b, _ = bin_codes(schema, X_syn, bins)
    errs = [np.abs(marginal(a, sizes, pair, weights) - marginal(b, sizes, pair)).sum()
            for pair in itertools.combinations(range(schema.p), 2)]
    return float(np.mean(errs))


def one_way_errors(schema: Schema, X_real: np.ndarray, X_syn: np.ndarray, bins: int = NUMERIC_BINS) -> dict[str, float]:
    """l1 error of each 1-way marginal, by attribute name."""
    a, sizes = bin_codes(schema, X_real, bins)
    b, _ = bin_codes(schema, X_syn, bins)
    return {att.name: float(np.abs(marginal(a, sizes, (i,)) - marginal(b, sizes, (i,))).sum())
            for i, att in enumerate(schema.attributes)}


def xor_cells(schema: Schema, X: np.ndarray, inputs: list[str], label: str, cut: int = 4) -> np.ndarray:
    """Cell index of (B_1..B_k, Y) per record, B_i = [X_i >= cut] in original units: int (n,)."""
    df = schema.decode(X)
    flat = np.zeros(len(df), dtype=np.int64)
    for name in inputs:
        flat = flat * 2 + (df[name].to_numpy(dtype=float) >= cut).astype(np.int64)
    y = schema[label]
    ycode = np.array([y.levels.index(v) if v in y.levels else int(v) for v in df[label]], dtype=np.int64)
    return flat * 2 + ycode


def hoerr(schema: Schema, X_real: np.ndarray, X_syn: np.ndarray, inputs: list[str], label: str, cut: int = 4) -> float:
    """HOErr for XOR-k: l1 distance over the 2^(k+1)-cell joint of (B_1..B_k, Y), in [0, 2]."""
    n_cells = 2 ** (len(inputs) + 1)
    pr = np.bincount(xor_cells(schema, X_real, inputs, label, cut), minlength=n_cells) / X_real.shape[0]
    ps = np.bincount(xor_cells(schema, X_syn, inputs, label, cut), minlength=n_cells) / X_syn.shape[0]
    return float(np.abs(pr - ps).sum())


def relative_reduction(e_hard: np.ndarray, e_soft: np.ndarray) -> np.ndarray:
    """Per paired run R_s = 100 (E_H - E_S) / E_H (App. F.2), percent, (s,)."""
    e_hard = np.asarray(e_hard, dtype=float)
    e_soft = np.asarray(e_soft, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = 100.0 * (e_hard - e_soft) / e_hard
    return np.where(e_hard > 0, r, 0.0)


def t_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and pointwise Student-t interval (scipy.stats.t) over paired runs.

    Returns (mean, low, high); with one value the interval is (mean, mean).
    """
    v = np.asarray(values, dtype=float)
    mean = float(v.mean())
    if v.size < 2:
        return mean, mean, mean
    se = float(v.std(ddof=1) / math.sqrt(v.size))
    half = float(stats.t.ppf(0.5 + level / 2, df=v.size - 1) * se)
    return mean, mean - half, mean + half


def crossing_budget(rhos, e_hard, e_soft) -> float | None:
    """Interpolated crossing budget (App. F.3): first sign change of mean(E_S - E_H),
    interpolated linearly in log rho.  None when the sign never changes."""
    rhos = np.asarray(rhos, dtype=float)
    g = np.asarray(e_soft, dtype=float) - np.asarray(e_hard, dtype=float)
    for k in range(len(rhos) - 1):
        if g[k] == 0:
            return float(rhos[k])
        if g[k] * g[k + 1] < 0:
            x0, x1 = math.log(rhos[k]), math.log(rhos[k + 1])
            x = x0 + (x1 - x0) * (-g[k]) / (g[k + 1] - g[k])
            return float(math.exp(x))
    return None
