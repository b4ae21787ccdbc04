"""Public-aware marginal sampler: PubMix / LinMix on a k-way marginal (papers/003 Alg. 1; issue 13).

Choose attributes (a k-way marginal over the schema's public bins, as in
:func:`blowfish_core.metrics.bin_codes`: one cell per level of a finite attribute,
``bins`` equal-width bins over [lo, hi] for a numeric one), a public table from the
same domain, (epsilon, delta) and n_samples; release n_samples rows drawn i.i.d. from
(1 - beta) P_prv + beta P_nse, with P_nse and beta fixed from public data only
(:func:`blowfish_core.pubmix.choose_noise`, or uniform noise for LinMix).

What the result holds:
* the release: ``rows`` (n_samples decoded rows; a numeric attribute shows its bin
  as "[lo, hi)"), and public quantities (beta, the floor, the noise distribution and
  the public histogram, gamma, the beta_min-vs-n_samples curves);
* ``evaluation`` -- EVALUATION ONLY, COMPUTED ON PRIVATE DATA, do not publish: TV
  between the private marginal and the empirical distribution of the draws, for
  PubMix, LinMix and the Gaussian mechanism (noisy histogram, replace-one l2
  sensitivity sqrt(2), sigma from the exact Gaussian curve at the same (epsilon,
  delta), negative counts clipped, then n_samples draws), over a grid of n_samples.
The private marginal and the mixture are never stored in the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from ._lazy import pd  # pandas, imported on first use (issue 15)

from .accounting import (
    check_delta,
    check_epsilon,
    gaussian_sigma,
    rho_from_epsilon_exact,
)
from .errors import BlowfishError, DataError, SchemaError
from .metrics import NUMERIC_BINS, bin_codes
from .pubmix import (
    beta_min,
    check_gamma,
    check_n_samples,
    choose_noise,
    gamma_from_folds,
    linmix_noise,
    pubmix_sample,
)
from .schema import Schema

METHODS = ("pubmix", "linmix")
#: largest marginal (cells) the sampler accepts.
MAX_CELLS = 200_000
#: label of everything computed on private data.
EVALUATION_LABEL = "evaluation only: computed on private data (do not publish)"


@dataclass
class PublicSample:
    """Result of :func:`public_aware_sample`.

    rows: (n_samples, k) DataFrame, the release.  attrs: the k attributes; cells: (d,)
    cell labels ("a=1, b=[20, 30)").  beta, floor (= min p_noise), t, which ('mifr' /
    'wf' / 'linmix'), gamma, gamma_source: the mechanism's public parameters; p_public,
    p_noise: (d,) public histogram and noise distribution (public).  n: private rows;
    curve: {"n_samples": [...], "pubmix": [...], "linmix": [...]} beta_min vs n_samples
    at the chosen floor and at 1/d.  evaluation: EVALUATION_LABEL -> see module docstring.
    """

    rows: pd.DataFrame
    attrs: list[str]
    cells: list[str]
    method: str
    epsilon: float
    delta: float
    n_samples: int
    n: int
    beta: float
    floor: float
    t: float
    which: str
    gamma: float
    gamma_source: str
    p_public: np.ndarray
    p_noise: np.ndarray
    curve: dict[str, list]
    evaluation: dict[str, Any] = field(default_factory=dict)

    @property
    def d(self) -> int:
        return len(self.cells)

    def summary(self) -> dict[str, Any]:
        """Public, JSON-safe parameters of the release (no private quantity)."""
        return {"method": self.method, "attributes": list(self.attrs), "cells": self.d, "epsilon": self.epsilon,
                "delta": self.delta, "n_samples": self.n_samples, "n": self.n, "beta": self.beta,
                "floor": self.floor, "noise": self.which, "gamma": self.gamma, "gamma_source": self.gamma_source}


def _bin_label(lo: float, hi: float, k: int, bins: int, integer: bool) -> str:
    w = (hi - lo) / bins
    a, b = lo + k * w, lo + (k + 1) * w

    def f(x: float) -> str:
        return f"{x:.4g}"

    return f"[{f(a)}, {f(b)}]" if k == bins - 1 else f"[{f(a)}, {f(b)})"


def marginal_cells(schema: Schema, attrs: Sequence[str], bins: int = NUMERIC_BINS) -> tuple[Schema, list[int], list[list[str]]]:
    """Sub-schema of ``attrs``, cells per attribute, and the label of every cell per attribute."""
    if isinstance(attrs, str) or not isinstance(attrs, (list, tuple)) or not attrs:
        raise SchemaError("attributes: choose at least one attribute (a list of column names)")
    attrs = [str(a) for a in attrs]
    if len(set(attrs)) != len(attrs):
        raise SchemaError(f"attributes: each attribute at most once (got {attrs})")
    sub = Schema([schema[a] for a in attrs])
    sizes, labels = [], []
    for a in sub.attributes:
        if a.kind == "numeric":
            sizes.append(bins)
            labels.append([_bin_label(a.lo, a.hi, k, bins, a.integer) for k in range(bins)])
        else:
            vals = a.domain_values()
            sizes.append(len(vals))
            labels.append([str(v) for v in vals])
    d = math.prod(sizes)
    if d > MAX_CELLS:
        raise SchemaError(f"attributes: the marginal has {d:,} cells (> {MAX_CELLS:,}). Fix: choose fewer "
                          "attributes or fewer numeric bins")
    return sub, sizes, labels


def _flat_codes(sub: Schema, df: pd.DataFrame, sizes: list[int], bins: int, what: str) -> np.ndarray:
    if not isinstance(df, pd.DataFrame) or len(df) == 0:
        raise DataError(f"{what}: needs a table with at least one row")
    try:
        X = sub.encode(df)
    except SchemaError as e:
        raise SchemaError(f"{what}: {e}") from None
    codes, _ = bin_codes(sub, X, bins)
    return np.ravel_multi_index(tuple(codes[:, i] for i in range(codes.shape[1])), sizes).astype(np.int64)


def _decode(sub: Schema, sizes: list[int], labels: list[list[str]], flat: np.ndarray) -> pd.DataFrame:
    idx = np.unravel_index(flat, sizes)
    cols = {}
    for i, a in enumerate(sub.attributes):
        if a.kind == "numeric":
            cols[a.name] = np.array(labels[i], dtype=object)[idx[i]]
        else:
            cols[a.name] = a.decode(a.domain_codes()[idx[i]]).to_numpy()
    return pd.DataFrame(cols)


def _tv_emp(p: np.ndarray, draws: np.ndarray) -> float:
    e = np.bincount(draws, minlength=p.size) / max(draws.size, 1)
    return 0.5 * float(np.abs(e - p).sum())


def _gaussian_draws(counts: np.ndarray, epsilon: float, delta: float, m: int, rng: np.random.Generator) -> np.ndarray:
    """Gaussian mechanism on the count histogram (l2 sensitivity sqrt(2)), clip, normalize, m draws."""
    sigma = gaussian_sigma(math.sqrt(2.0), rho_from_epsilon_exact(epsilon, delta))
    noisy = np.maximum(counts + sigma * rng.standard_normal(counts.size), 0.0)
    s = noisy.sum()
    w = noisy / s if s > 0 else np.full(counts.size, 1.0 / counts.size)
    return rng.choice(counts.size, size=m, p=w)


def default_curve_grid(n_samples: int) -> list[int]:
    """n_samples values for the beta_min curve: 1 .. max(4 n_samples, 1024), geometric, plus n_samples."""
    hi = max(4 * n_samples, 1024)
    return sorted({int(x) for x in np.unique(np.rint(np.geomspace(1, hi, 24)))} | {int(n_samples)})


def public_aware_sample(schema: Schema, attrs: Sequence[str], private_df: pd.DataFrame, public_df: pd.DataFrame,
                        epsilon: float, delta: float, n_samples: int, method: str = "pubmix",
                        gamma: float | None = None, k_folds: int = 5, seed: int = 0, bins: int = NUMERIC_BINS,
                        evaluate: bool = True, eval_grid: Sequence[int] | None = None,
                        eval_reps: int = 3) -> PublicSample:
    """Release n_samples rows of the ``attrs`` marginal by PubMix or LinMix (module docstring).

    schema: the public schema; attrs: k >= 1 attribute names; private_df: the private
    table (n = its rows, public); public_df: public rows of the same domain (disjoint
    from the private rows), used for the noise and gamma (PubMix) -- LinMix ignores it
    except for display; epsilon (nats), delta in (0, 1), n_samples >= 1; gamma: TV
    radius, None = :func:`gamma_from_folds` with ``k_folds`` folds (mean pairwise TV);
    seed: release seed.  evaluate: also compute the evaluation-only TV comparison over
    ``eval_grid`` (default: n_samples/8, /4, /2, n_samples) with ``eval_reps`` repetitions.
    Returns :class:`PublicSample`.  Raises BudgetError (epsilon, delta, n_samples, gamma),
    SchemaError (attrs, values outside the public domain), DataError (empty tables),
    BlowfishError (method).
    """
    if method not in METHODS:
        raise BlowfishError(f"method must be 'pubmix' or 'linmix' (got {method!r})")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    m = check_n_samples(n_samples)
    sub, sizes, labels = marginal_cells(schema, attrs, bins)
    d = math.prod(sizes)
    priv = _flat_codes(sub, private_df, sizes, bins, "private table")
    pub = _flat_codes(sub, public_df, sizes, bins, "public table")
    n = int(priv.size)
    p_public = np.bincount(pub, minlength=d) / pub.size
    if gamma is None:
        if pub.size < max(k_folds, 2):
            raise DataError(f"public table: gamma from {k_folds} folds needs at least {k_folds} rows "
                            f"(got {pub.size}). Fix: give gamma or more public rows")
        g = gamma_from_folds(pub, d, k=k_folds, seed=seed)
        gsrc = f"mean pairwise TV of {k_folds} public folds"
    else:
        g = check_gamma(gamma)
        gsrc = "given"
    lin_floor = 1.0 / d
    if method == "pubmix":
        ch = choose_noise(p_public, g, eps, dl, n, m)
        p_noise, beta, t, which = ch.p_noise, ch.beta, ch.t, ch.which
    else:
        p_noise, t, which = linmix_noise(d), lin_floor, "linmix"
        beta = beta_min(eps, dl, n, m, lin_floor)
    floor = float(p_noise.min())
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 52021]))
    counts = np.bincount(priv, minlength=d).astype(float)
    draws = pubmix_sample(counts / n, p_noise, beta, m, rng)
    rows = _decode(sub, sizes, labels, draws)
    grid = default_curve_grid(m)
    curve = {"n_samples": grid,
             "pubmix": [beta_min(eps, dl, n, k, floor) for k in grid] if method == "pubmix" else None,
             "linmix": [beta_min(eps, dl, n, k, lin_floor) for k in grid]}
    cells = [", ".join(f"{a}={labels[i][c]}" for i, (a, c) in enumerate(zip(sub.names, cell)))
             for cell in np.ndindex(*sizes)] if d <= 5000 else [str(i) for i in range(d)]
    res = PublicSample(rows, list(sub.names), cells, method, eps, dl, m, n, float(beta), floor, float(t), which,
                       float(g), gsrc, p_public, p_noise, curve)
    if evaluate:
        res.evaluation = _evaluate(counts, p_public, g, eps, dl, m, eval_grid, eval_reps, seed)
    del counts, priv
    return res


def _evaluate(counts, p_public, gamma, eps, delta, m, grid, reps, seed) -> dict[str, Any]:
    """EVALUATION ONLY (private data): TV(private marginal, draws) for PubMix / LinMix / Gaussian."""
    n = int(counts.sum())
    p_prv = counts / n
    d = counts.size
    grid = sorted({max(1, int(x)) for x in (grid or [m // 8, m // 4, m // 2, m])})
    out = {"label": EVALUATION_LABEL, "n_samples": grid, "pubmix": [], "linmix": [], "gaussian": [],
           "beta_pubmix": [], "beta_linmix": []}
    for k in grid:
        ch = choose_noise(p_public, gamma, eps, delta, n, k)
        b_lin = beta_min(eps, delta, n, k, 1.0 / d)
        u = linmix_noise(d)
        vals = {"pubmix": [], "linmix": [], "gaussian": []}
        for r in range(int(reps)):
            rng = np.random.default_rng(np.random.SeedSequence([int(seed), 7057, int(k), r]))
            vals["pubmix"].append(_tv_emp(p_prv, pubmix_sample(p_prv, ch.p_noise, ch.beta, k, rng)))
            vals["linmix"].append(_tv_emp(p_prv, pubmix_sample(p_prv, u, b_lin, k, rng)))
            vals["gaussian"].append(_tv_emp(p_prv, _gaussian_draws(counts, eps, delta, k, rng)))
        for key, v in vals.items():
            out[key].append(float(np.mean(v)))
        out["beta_pubmix"].append(float(ch.beta))
        out["beta_linmix"].append(float(b_lin))
    return out
