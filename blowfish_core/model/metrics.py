"""Fidelity metrics: PWErr, HOErr, paired relative reduction, t-intervals.

DESIGN §3 "Metrics"; paper §6.1 and App. F.2.  These compare a synthetic table
with the real one for *evaluation*; they are not part of any private release.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..base.numerics import student_t_ppf  # math only: no scipy for a pilot's intervals (issue 23)

from .schema import Schema

#: equal-width bins for numeric attributes over their public domain (reference library: ~20).
NUMERIC_BINS = 20


#: the note of a run whose schema models fewer than two columns: PWErr (pairwise marginals) is skipped,
#: never a refusal (issue 27; reports' metric "skipped", the CLI's and the app's evaluation lines).
PWERR_SKIPPED = "PWErr needs two modelled columns; skipped"


def bin_codes(schema: Schema, X: np.ndarray, bins: int | str = NUMERIC_BINS) -> tuple[np.ndarray, list[int]]:
    """Discretize encoded records for marginals.

    Numeric: ``bins`` equal-width bins over the public domain [lo, hi], or with
    bins="exact" one cell per whole number (integer attributes only); finite
    attributes: one cell per level.

    Parameters
    ----------
    schema : Schema
        The schema.
    X : (n, p) float64 ndarray
        Encoded records.
    bins : int or str
        Bins per numeric attribute, or 'exact'.

    Returns
    -------
    codes : (n, p) int64 ndarray
        Cell indices.
    sizes : list of int
        The cell count per attribute.

    Raises
    ------
    ValueError
        For "exact" on a continuous attribute (raised by ``Attribute.bin_codes``).
    """
    out = np.empty(X.shape, dtype=np.int64)
    sizes = []
    for i, a in enumerate(schema.attributes):
        out[:, i], size = a.bin_codes(X[:, i], bins)
        sizes.append(size)
    return out, sizes


def marginal(codes: np.ndarray, sizes: list[int], cols: tuple[int, ...], weights: np.ndarray | None = None) -> np.ndarray:
    """Normalized marginal over ``cols``.

    Parameters
    ----------
    codes : (n, p) int ndarray
        Cell indices (:func:`bin_codes`).
    sizes : list of int
        The cell count per attribute.
    cols : tuple of int
        The attributes of the marginal.
    weights : (n,) float ndarray or None
        Row multiplicities (ones when None).

    Returns
    -------
    (prod sizes[cols],) float ndarray
        The flattened marginal; sums to 1 (all zeros for no mass).
    """
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

    Parameters
    ----------
    schema : Schema
        The schema, p >= 2 attributes.
    X_real : (n, p) float64 ndarray
        Encoded real records.
    X_syn : (r, p) float64 ndarray
        Encoded synthetic records.
    bins : int or str
        Bins per numeric attribute, or 'exact' (:func:`bin_codes`).
    weights : (n,) float ndarray or None
        Optional multiplicities of the rows of X_real (grouped records; whole-number counts
        give the same value as the expanded table).

    Returns
    -------
    float
        PWErr, in [0, 2].

    Raises
    ------
    ValueError
        If p < 2.
    """
    if schema.p < 2:
        raise ValueError("PWErr needs at least two modeled attributes")
    a, sizes = bin_codes(schema, X_real, bins)
    b, _ = bin_codes(schema, X_syn, bins)
    errs = [np.abs(marginal(a, sizes, pair, weights) - marginal(b, sizes, pair)).sum()
            for pair in itertools.combinations(range(schema.p), 2)]
    return float(np.mean(errs))


def one_way_errors(schema: Schema, X_real: np.ndarray, X_syn: np.ndarray, bins: int = NUMERIC_BINS) -> dict[str, float]:
    """l1 error of each 1-way marginal.

    Parameters
    ----------
    schema : Schema
        The schema.
    X_real : (n, p) float64 ndarray
        Encoded real records.
    X_syn : (r, p) float64 ndarray
        Encoded synthetic records.
    bins : int
        Bins per numeric attribute.

    Returns
    -------
    dict of str to float
        Attribute name -> l1 error, in [0, 2].
    """
    a, sizes = bin_codes(schema, X_real, bins)
    b, _ = bin_codes(schema, X_syn, bins)
    return {att.name: float(np.abs(marginal(a, sizes, (i,)) - marginal(b, sizes, (i,))).sum())
            for i, att in enumerate(schema.attributes)}


def xor_cells(schema: Schema, X: np.ndarray, inputs: list[str], label: str, cut: int = 4) -> np.ndarray:
    """Cell index of (B_1..B_k, Y) per record, B_i = [X_i >= cut] in original units.

    Parameters
    ----------
    schema : Schema
        The schema.
    X : (n, p) float64 ndarray
        Encoded records.
    inputs : list of str
        The k input attributes X_1..X_k.
    label : str
        The label attribute Y.
    cut : int
        The threshold of B_i, in the inputs' units.

    Returns
    -------
    (n,) int64 ndarray
        Cell indices in [0, 2^(k+1)).
    """
    df = schema.decode(X)
    flat = np.zeros(len(df), dtype=np.int64)
    for name in inputs:
        flat = flat * 2 + (df[name].to_numpy(dtype=float) >= cut).astype(np.int64)
    y = schema[label]
    ycode = np.array([y.levels.index(v) if v in y.levels else int(v) for v in df[label]], dtype=np.int64)
    return flat * 2 + ycode


def hoerr(schema: Schema, X_real: np.ndarray, X_syn: np.ndarray, inputs: list[str], label: str, cut: int = 4) -> float:
    """HOErr for XOR-k: l1 distance over the 2^(k+1)-cell joint of (B_1..B_k, Y).

    Parameters
    ----------
    schema : Schema
        The schema.
    X_real : (n, p) float64 ndarray
        Encoded real records.
    X_syn : (r, p) float64 ndarray
        Encoded synthetic records.
    inputs : list of str
        The k input attributes.
    label : str
        The label attribute Y.
    cut : int
        The threshold of B_i (:func:`xor_cells`).

    Returns
    -------
    float
        HOErr, in [0, 2].
    """
    n_cells = 2 ** (len(inputs) + 1)
    pr = np.bincount(xor_cells(schema, X_real, inputs, label, cut), minlength=n_cells) / X_real.shape[0]
    ps = np.bincount(xor_cells(schema, X_syn, inputs, label, cut), minlength=n_cells) / X_syn.shape[0]
    return float(np.abs(pr - ps).sum())


def relative_reduction(e_hard: np.ndarray, e_soft: np.ndarray) -> np.ndarray:
    """Per paired run R_s = 100 (E_H - E_S) / E_H (App. F.2).

    Parameters
    ----------
    e_hard : (s,) float ndarray
        Hard's errors E_H per paired run.
    e_soft : (s,) float ndarray
        The soft method's errors E_S on the same runs.

    Returns
    -------
    (s,) float ndarray
        R_s in percent; 0 where E_H = 0.
    """
    e_hard = np.asarray(e_hard, dtype=float)
    e_soft = np.asarray(e_soft, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = 100.0 * (e_hard - e_soft) / e_hard
    return np.where(e_hard > 0, r, 0.0)


def t_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and pointwise Student-t interval over paired runs.

    The quantile is :func:`~blowfish_core.base.numerics.student_t_ppf` (at level 0.95 within 4e-15 of
    the exact quantile, as ``scipy.stats.t.ppf`` is; no scipy import).

    Parameters
    ----------
    values : array_like of float
        One value per paired run.
    level : float
        Confidence level, in (0, 1).

    Returns
    -------
    mean, low, high : float
        With one value the interval is (mean, mean).
    """
    v = np.asarray(values, dtype=float)
    mean = float(v.mean())
    if v.size < 2:
        return mean, mean, mean
    se = float(v.std(ddof=1) / math.sqrt(v.size))
    half = float(student_t_ppf(0.5 + level / 2, v.size - 1) * se)
    return mean, mean - half, mean + half


def crossing_budget(rhos, e_hard, e_soft) -> float | None:
    """Interpolated crossing budget (App. F.3).

    Parameters
    ----------
    rhos : array_like of float
        The budgets rho (zCDP), in sweep order.
    e_hard, e_soft : array_like of float
        Mean errors of Hard and of the soft method at each rho.

    Returns
    -------
    float or None
        The first sign change of mean(E_S - E_H), interpolated linearly in log rho; None when
        the sign never changes.
    """
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
