"""Public-aware marginal sampler: PubMix / LinMix on a k-way marginal (papers/003 Alg. 1; issue 13).

Choose attributes (a k-way marginal over the schema's public bins, as in
:func:`blowfish_core.model.metrics.bin_codes`: one cell per level of a finite attribute,
``bins`` equal-width bins over [lo, hi] for a numeric one), a public table from the
same domain, (epsilon, delta) and n_samples; release n_samples rows drawn i.i.d. from
(1 - beta) P_prv + beta P_nse, with P_nse and beta fixed from public data only
(:func:`blowfish_core.privacy.pubmix.choose_noise`, or uniform noise for LinMix).

Two actions (issue 21):
* :func:`public_aware_sample` -- a SEEDED STUDY PREVIEW (``seed``, numpy's sampler): labelled
  ``label = evolution.SEEDED_NOTE`` ("seeded: for study, not for publication"); never a release.
* :func:`release_marginal_samples` -- THE RELEASE: through ``release_gate.publish`` (Claim
  "marginal samples", mechanism pubmix/linmix), drawn with the exact integer sampler from the OS
  CSPRNG (:func:`blowfish_core.privacy.pubmix.exact_mixture_sample`), labelled by the gate; public rows
  held out of the sensitive table are named as unprotected (``unprotected_rows``).

What the result holds:
* the draws: ``rows`` (n_samples decoded rows; a numeric attribute shows its bin
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
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..privacy.accounting import (
    check_delta,
    check_epsilon,
    gaussian_sigma,
    rho_from_epsilon_exact,
)
from ..base.errors import BlowfishError, DataError, SchemaError
from ..algorithm.streams import SEEDED_NOTE
from ..model.metrics import NUMERIC_BINS, bin_codes
from ..privacy.mechanisms import get_mechanism
from ..privacy.pubmix import (
    beta_min,
    check_gamma,
    check_n_samples,
    choose_noise,
    exact_mixture_sample,
    gamma_from_folds,
    linmix_noise,
    pubmix_sample,
)
from ..model.domain import FrozenList
from ..model.domain.base import declared_bounds
from ..model.schema import Schema

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
    at the chosen floor and at 1/d ("pubmix" None for LinMix).  evaluation: EVALUATION_LABEL -> see module docstring.
    label: what the rows are: evolution.SEEDED_NOTE for the seeded study preview, the gate's label
    (release_gate.RELEASE_LABEL / NOT_DP_LABEL) for a release; sampler: 'numpy' (study) or 'exact'.
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
    curve: dict[str, list[int] | list[float] | None]
    evaluation: dict[str, Any] = field(default_factory=dict)
    label: str = SEEDED_NOTE
    sampler: str = "numpy"

    @property
    def publishable(self) -> bool:
        """True only for rows that passed the release gate (never for a seeded preview)."""
        return self.label != SEEDED_NOTE and self.sampler == "exact"

    @property
    def d(self) -> int:
        return len(self.cells)

    def summary(self) -> dict[str, Any]:
        """Public, JSON-safe parameters of the release (no private quantity)."""
        return {"method": self.method, "attributes": list(self.attrs), "cells": self.d, "epsilon": self.epsilon,
                "delta": self.delta, "n_samples": self.n_samples, "n": self.n, "beta": self.beta,
                "floor": self.floor, "noise": self.which, "gamma": self.gamma, "gamma_source": self.gamma_source,
                "label": self.label, "sampler": self.sampler}


def _bin_label(lo: float, hi: float, k: int, bins: int, integer: bool) -> str:
    w = (hi - lo) / bins
    a, b = lo + k * w, lo + (k + 1) * w

    def f(x: float) -> str:
        return f"{x:.4g}"

    return f"[{f(a)}, {f(b)}]" if k == bins - 1 else f"[{f(a)}, {f(b)})"


def marginal_cells(schema: Schema, attrs: Sequence[str], bins: int = NUMERIC_BINS) -> tuple[Schema, list[int], list[list[str]]]:
    """Sub-schema of ``attrs``, cells per attribute, and the label of every cell per attribute.

    Parameters
    ----------
    schema : Schema
        The public schema.
    attrs : sequence of str
        k >= 1 distinct attribute names.
    bins : int, default NUMERIC_BINS
        Cells of a numeric attribute.

    Returns
    -------
    sub : Schema
        The schema of ``attrs``.
    sizes : list of int
        Cells per attribute (d = their product).
    labels : list of list of str
        The label of every cell, per attribute.

    Raises
    ------
    SchemaError
        For no attribute (or not a list), an attribute named twice, an unknown name, or more
        than MAX_CELLS cells.
    """
    if isinstance(attrs, str) or not isinstance(attrs, (list, tuple)) or not attrs:
        raise SchemaError("attributes: choose at least one attribute (a list of column names)")
    attrs = [str(a) for a in attrs]
    if len(set(attrs)) != len(attrs):
        raise SchemaError(f"attributes: each attribute at most once (got {attrs})")
    sub = Schema(FrozenList([schema[a] for a in attrs]))
    sizes, labels = [], []
    for a in sub.attributes:
        if a.bounded:
            sizes.append(bins)
            lo, hi = declared_bounds(a)
            labels.append([_bin_label(lo, hi, k, bins, a.integer) for k in range(bins)])
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
        if a.bounded:
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
    """n_samples values for the beta_min curve: 1 .. max(4 n_samples, 1024), geometric, plus n_samples.

    Parameters
    ----------
    n_samples : int
        The release's draws.

    Returns
    -------
    list of int
        Distinct values, ascending.
    """
    hi = max(4 * n_samples, 1024)
    return sorted({int(x) for x in np.unique(np.rint(np.geomspace(1, hi, 24)))} | {int(n_samples)})


def public_aware_sample(schema: Schema, attrs: Sequence[str], private_df: pd.DataFrame, public_df: pd.DataFrame,
                        epsilon: float, delta: float, n_samples: int, method: str = "pubmix",
                        gamma: float | None = None, k_folds: int = 5, seed: int = 0, bins: int = NUMERIC_BINS,
                        evaluate: bool = True, eval_grid: Sequence[int] | None = None,
                        eval_reps: int = 3) -> PublicSample:
    """SEEDED STUDY PREVIEW of n_samples rows of the ``attrs`` marginal by PubMix or LinMix.

    Not a release: the draws come from numpy's sampler on a stream seeded by ``seed``, and the
    result is labelled ``label = evolution.SEEDED_NOTE`` ("seeded: for study, not for
    publication"); anyone who knows the seed can recompute the draws (issue 21).  Publish only
    :func:`release_marginal_samples`.

    Parameters
    ----------
    schema : Schema
        The public schema.
    attrs : sequence of str
        k >= 1 attribute names.
    private_df : pandas.DataFrame
        The private table (n = its rows, public).
    public_df : pandas.DataFrame
        Public rows of the same domain (disjoint from the private rows), used for the noise and
        gamma (PubMix) -- LinMix ignores it except for display.
    epsilon : float
        In nats, > 0.
    delta : float
        DP delta, in (0, 1).
    n_samples : int
        Rows drawn, >= 1.
    method : {'pubmix', 'linmix'}, default 'pubmix'
        The mechanism (papers/003).
    gamma : float, optional
        TV radius; None = :func:`gamma_from_folds` with ``k_folds`` folds (mean pairwise TV).
    k_folds : int, default 5
        Folds of the public rows for gamma.
    seed : int, default 0
        The study seed.
    bins : int, default NUMERIC_BINS
        Cells of a numeric attribute.
    evaluate : bool, default True
        Also compute the evaluation-only TV comparison.
    eval_grid : sequence of int, optional
        n_samples values of the evaluation (default: n_samples/8, /4, /2, n_samples).
    eval_reps : int, default 3
        Repetitions per evaluated value.

    Returns
    -------
    PublicSample
        The preview and the mechanism's public parameters.

    Raises
    ------
    BudgetError
        For epsilon, delta, n_samples or gamma.
    SchemaError
        For attrs, or values outside the public domain.
    DataError
        For empty tables.
    BlowfishError
        For the method.
    """
    q = _prepare(schema, attrs, private_df, public_df, epsilon, delta, n_samples, method, gamma, k_folds, seed,
                 bins, exact=False)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 52021]))
    counts = q.pop("counts").astype(float)
    draws = pubmix_sample(counts / q["n"], q["p_noise"], q["beta"], q["m"], rng)
    res = _result(q, draws, SEEDED_NOTE, "numpy")
    if evaluate:
        res.evaluation = _evaluate(counts, q["p_public"], q["g"], q["eps"], q["dl"], q["m"], eval_grid, eval_reps,
                                   seed)
    del counts
    return res


def release_marginal_samples(schema: Schema, attrs: Sequence[str], private_df: pd.DataFrame,
                             public_df: pd.DataFrame, epsilon: float, delta: float, n_samples: int,
                             method: str = "pubmix", gamma: float | None = None, k_folds: int = 5,
                             bins: int = NUMERIC_BINS, unprotected_rows: int = 0, unprotected_source: str = "",
                             allow_data_domain: bool = False) -> Any:
    """RELEASE n_samples rows of the ``attrs`` marginal by PubMix / LinMix through the release gate.

    The claim: Claim("marginal samples", schema, mechanisms=(method,)) -- refused (GateError)
    for a data-derived schema without allow_data_domain.  The draws: the exact integer sampler
    (:func:`blowfish_core.privacy.pubmix.exact_mixture_sample`) on the marginal's counts, beta and
    P_nse from public data only, uniform integers from the OS CSPRNG; the floor of the
    accounting is N* = min P_nse (LinMix: the largest float f with d f <= 1 exactly), and
    every noise mass of the sampled law is >= N* exactly (papers/003 Thm 4.1 with
    N1 = N2 = N*, Remark 4.5).  One ledger row (mechanism ``method``; PLD total).

    Parameters
    ----------
    schema, attrs, private_df, public_df, epsilon, delta, n_samples, method, gamma, k_folds, bins
        As :func:`public_aware_sample` (no seed: nothing about the randomness is chosen or
        recorded).
    unprotected_rows : int, default 0
        How many of ``public_df``'s rows were held out of the sensitive table (a preset's pilot
        split, the app's hold-out): they get no protection and the gate's notes name them
        (release_gate.unprotected_text).
    unprotected_source : str, default ''
        Describes the unprotected rows.
    allow_data_domain : bool, default False
        Release with a data-derived schema anyway (labelled NOT_DP_LABEL).

    Returns
    -------
    Publication
        The release_gate.Publication; ``publication.result`` is the :class:`PublicSample`
        (label = the gate's label, sampler 'exact', no evaluation: nothing computed on private
        data beyond the draws).

    Raises
    ------
    GateError
        When the gate refuses.
    BlowfishError
        For the method.
    DataError
        For unprotected_rows < 0, and as :func:`public_aware_sample`.
    BudgetError, SchemaError
        As :func:`public_aware_sample`.
    """
    from ..privacy.ledger import LedgerRow
    from ..synthesis.gate import Claim, Part, publish

    if method not in METHODS:
        raise BlowfishError(f"method must be 'pubmix' or 'linmix' (got {method!r})")
    nu = int(unprotected_rows)
    if nu < 0:
        raise DataError(f"unprotected_rows must be >= 0 (got {unprotected_rows!r})")
    dl = check_delta(delta)
    claim = Claim("marginal samples", schema, (), (method,), (), False, bool(allow_data_domain), nu, dl,
                  len(private_df) if hasattr(private_df, "__len__") else None)

    def produce(entropy):
        streams = entropy()  # the gate's OS entropy; the exact sampler reads the OS CSPRNG itself
        q = _prepare(schema, attrs, private_df, public_df, epsilon, delta, n_samples, method, gamma, k_folds, 0,
                     bins, exact=True)
        counts = q.pop("counts")
        draws = exact_mixture_sample(counts, q["p_noise"], q["beta"], q["m"], floor=q["floor"])
        del counts
        row = LedgerRow(1, q["d"], method, 1.0, "l1", float(q["beta"]), "replace-one (one row moves one count)",
                        epsilon_t=float(q["eps"]), delta_dp_t=float(q["dl"]), beta_t=float(q["beta"]),
                        floor=float(q["floor"]), n_samples=int(q["m"]), n_private=int(q["n"]),
                        notes=(f"unprotected: {unprotected_source}",) if nu and unprotected_source else ())
        res = _result(q, draws, "", "exact")
        return [Part(f"{method}_marginal_samples.csv", (row,), "exact", streams.randomness, res)]

    pub = publish(claim, produce, result_of=lambda parts: parts[0].value)
    pub.result.label = pub.label
    return pub


def _prepare(schema, attrs, private_df, public_df, epsilon, delta, n_samples, method, gamma, k_folds, seed, bins,
             exact: bool) -> dict[str, Any]:
    """The marginal's public parameters and its private counts (int64 (d,), under 'counts').

    exact=True (release): the floor of the accounting is min P_nse, lowered for LinMix to the
    largest float f with d f <= 1 exactly (mechanisms.pubmix.exact_floor_of), and beta is
    beta_min at that floor."""
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
    if get_mechanism(method).needs_public:
        ch = choose_noise(p_public, g, eps, dl, n, m)
        p_noise, beta, t, which = ch.p_noise, ch.beta, ch.t, ch.which
    else:
        p_noise, t, which = linmix_noise(d), lin_floor, "linmix"
        beta = beta_min(eps, dl, n, m, lin_floor)
    floor = float(p_noise.min())
    if exact:
        from ..privacy.mechanisms.pubmix import exact_floor_of

        safe = min(floor, exact_floor_of(1.0, d))
        if safe < floor:
            floor, beta = safe, beta_min(eps, dl, n, m, safe)
    counts = np.bincount(priv, minlength=d).astype(np.int64)
    del priv
    return {"sub": sub, "sizes": sizes, "labels": labels, "d": d, "n": n, "m": m, "eps": eps, "dl": dl,
            "method": method, "p_public": p_public, "g": float(g), "gsrc": gsrc, "p_noise": p_noise,
            "beta": float(beta), "t": float(t), "which": which, "floor": floor, "lin_floor": lin_floor,
            "counts": counts}


def _result(q: dict[str, Any], draws: np.ndarray, label: str, sampler: str) -> PublicSample:
    sub, sizes, labels, d, m = q["sub"], q["sizes"], q["labels"], q["d"], q["m"]
    eps, dl, n, floor = q["eps"], q["dl"], q["n"], q["floor"]
    rows = _decode(sub, sizes, labels, draws)
    grid = default_curve_grid(m)
    curve = {"n_samples": grid,
             "pubmix": [beta_min(eps, dl, n, k, floor) for k in grid] if get_mechanism(q["method"]).needs_public else None,
             "linmix": [beta_min(eps, dl, n, k, q["lin_floor"]) for k in grid]}
    cells = [", ".join(f"{a}={labels[i][c]}" for i, (a, c) in enumerate(zip(sub.names, cell)))
             for cell in np.ndindex(*sizes)] if d <= 5000 else [str(i) for i in range(d)]
    return PublicSample(rows, list(sub.names), cells, q["method"], eps, dl, m, n, float(q["beta"]), floor,
                        float(q["t"]), q["which"], float(q["g"]), q["gsrc"], q["p_public"], q["p_noise"], curve,
                        label=label, sampler=sampler)


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
        vals: dict[str, list[float]] = {"pubmix": [], "linmix": [], "gaussian": []}
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
