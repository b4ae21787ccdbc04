"""Empirical privacy audit of one PubMix release (papers/003 Thm 4.1).

One release = n_samples i.i.d. draws from P_syn = (1 - beta) P_prv + beta P_nse.
The audited neighbouring pair is the worst case of App. C: D' has no record in
bin i and one in bin j; D moves that record from j to i (replace-one, n fixed),
and the noise puts its two smallest masses (the floor t) on i and j.  The test
statistic is the exact log-likelihood ratio of the draw counts on (i, j, rest),
which is a post-processing of the draws, so every threshold test gives a valid
lower bound.  As in :mod:`blowfish_core.audit`: the threshold is chosen on the
first half of the runs, the false positive/negative counts of the second half are
bounded by one-sided Clopper-Pearson intervals (union bound, level 1 - alpha) and
``eps_lb = max(log((1 - delta - FNR_ub)/FPR_ub), log((1 - delta - FPR_ub)/FNR_ub), 0)``.

Variants (:data:`PUBMIX_VARIANTS`):

* ``correct``: beta = beta_min(t, t) (the engine's claim) -- must PASS;
* ``beta-quarter``: beta = beta_min(t, t) / 4 -- must FAIL;
* ``private-noise``: the noise is water_fill(P_prv, t), the *private* histogram
  floor-raised (the pitfall "never floor-raise using private counts"), with the
  same claimed beta -- must FAIL.

The broken variants exist only to show the audit has power; never use them.
Power needs a small n and a floor t well below 1/n (so the private record moves
a mass comparable to the noise); :func:`default_pubmix_setting` is such a case.

Samplers: 'counts' draws the multinomial counts on (i, j, rest) directly;
'full' draws every bin index with :func:`blowfish_core.privacy.pubmix.pubmix_sample`
and counts them (slower; validates the shortcut).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .audit import clopper_pearson_upper, split_half_bound
from ..base.errors import BlowfishError
from ..privacy.pubmix import beta_min, pubmix_delta, pubmix_sample, water_fill

#: variant -> (expected verdict: True = must pass, description)
PUBMIX_VARIANTS = {
    "correct": (True, "beta = beta_min(t, t), noise from public data"),
    "beta-quarter": (False, "beta = beta_min(t, t) / 4"),
    "private-noise": (False, "noise = water_fill(private histogram, t), same claimed beta"),
}


@dataclass(frozen=True)
class PubMixAuditSetting:
    """The audited release: n private rows over d bins, floor t, (epsilon, delta), n_samples draws.

    background: (d,) int counts of the n - 1 records shared by D and D' (bins i = 0 and
    j = 1 empty); public: (d,) public histogram whose water-filling at t is the noise.
    """

    n: int
    d: int
    t: float
    epsilon: float
    delta: float
    n_samples: int
    background: np.ndarray
    public: np.ndarray

    @property
    def beta(self) -> float:
        """The claimed beta_min(t, t)."""
        return beta_min(self.epsilon, self.delta, self.n, self.n_samples, self.t)


def default_pubmix_setting() -> PubMixAuditSetting:
    """The audit's default release.

    n = 20 rows over d = 8 bins, floor t = 0.2/d = 0.025 (< 1/n = 0.05), epsilon = 1,
    delta = 1e-3, n_samples = 10 draws.  Background: 19 records on bins 2..7; public
    histogram empty on bins 0, 1 (so water-filling puts the floor there).

    Returns
    -------
    PubMixAuditSetting
        The setting above.
    """
    d = 8
    bg = np.array([0, 0, 4, 3, 3, 3, 3, 3])
    pub = np.array([0.0, 0.0, 0.2, 0.2, 0.15, 0.15, 0.15, 0.15])
    return PubMixAuditSetting(n=20, d=d, t=0.2 / d, epsilon=1.0, delta=1e-3, n_samples=10,
                              background=bg, public=pub)


def _hists(s: PubMixAuditSetting) -> tuple[np.ndarray, np.ndarray]:
    """Normalized private histograms of D (record in bin 0) and D' (record in bin 1)."""
    h = np.asarray(s.background, dtype=float)
    hd, hdp = h.copy(), h.copy()
    hd[0] += 1
    hdp[1] += 1
    return hd / s.n, hdp / s.n


def variant_mixtures(s: PubMixAuditSetting, variant: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """The private and noise distributions on D and D', and beta, of a variant.

    Parameters
    ----------
    s : PubMixAuditSetting
        The audited release.
    variant : str
        One of PUBMIX_VARIANTS.

    Returns
    -------
    p_private_D, p_noise_D, p_private_D_prime, p_noise_D_prime : (d,) float ndarray
        The distributions over the d bins.
    beta : float
        The mixing weight of the noise.

    Raises
    ------
    BlowfishError
        For an unknown variant.
    """
    if variant not in PUBMIX_VARIANTS:
        raise BlowfishError(f"pubmix audit: unknown variant {variant!r}; use one of {', '.join(PUBMIX_VARIANTS)}")
    pd_, pdp = _hists(s)
    b = s.beta
    if variant == "private-noise":
        return pd_, water_fill(pd_, s.t), pdp, water_fill(pdp, s.t), b
    nse = water_fill(s.public, s.t)
    return pd_, nse, pdp, nse, (b / 4.0 if variant == "beta-quarter" else b)


@dataclass
class PubMixAuditResult:
    """Outcome of one PubMix audit: eps_lb at delta (probability >= 1 - alpha), verdict eps_lb <= claimed."""

    variant: str
    claimed_eps: float
    eps_lb: float
    delta: float
    beta: float
    runs: int
    fpr: float
    fnr: float
    fpr_ub: float
    fnr_ub: float
    passed: bool
    expected_pass: bool
    true_delta_at_claim: float | None
    sampler: str
    how: str
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _llr(counts: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """log P(counts)/Q(counts) for (runs, 3) counts on (i, j, rest): +inf where Q = 0 < P."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.where(p > 0, np.log(p) - np.log(np.where(q > 0, q, 1.0)), 0.0)
        lr = np.where((q == 0) & (p > 0), np.inf, lr)
        zero_p = (p == 0) & (q > 0)
        out = np.where(counts > 0, counts * lr, 0.0).sum(axis=1)
        neg = (counts[:, zero_p] > 0).any(axis=1) if zero_p.any() else np.zeros(counts.shape[0], bool)
    return np.where(neg, -np.inf, out)


def audit_pubmix(variant: str = "correct", setting: PubMixAuditSetting | None = None, runs: int = 400_000,
                 seed: int = 0, alpha: float = 0.05, sampler: str = "counts") -> PubMixAuditResult:
    """Audit one PubMix release under ``variant`` (module docstring).

    Half the runs choose the threshold, half are counted.

    Parameters
    ----------
    variant : str, default 'correct'
        One of PUBMIX_VARIANTS.
    setting : PubMixAuditSetting, optional
        The audited release (default :func:`default_pubmix_setting`).
    runs : int, default 400_000
        Releases per dataset (>= 100).
    seed : int, default 0
        Seed of the runs (combined with the variant).
    alpha : float, default 0.05
        Error probability of the bound, in (0, 1).
    sampler : {'counts', 'full'}, default 'counts'
        'counts' draws the multinomial counts on (i, j, rest) directly; 'full' draws every
        bin index with pubmix_sample.

    Returns
    -------
    PubMixAuditResult
        eps_lb at delta, the verdict eps_lb <= claimed and, for public noise, the exact delta
        at the claim (Thm 4.1).

    Raises
    ------
    BlowfishError
        For a bad variant, runs, alpha or sampler.
    """
    s = setting or default_pubmix_setting()
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 100:
        raise BlowfishError(f"pubmix audit: runs must be a whole number >= 100 (got {runs!r})")
    if not 0 < alpha < 1:
        raise BlowfishError(f"pubmix audit: alpha must be in (0, 1) (got {alpha!r})")
    if sampler not in ("counts", "full"):
        raise BlowfishError(f"pubmix audit: sampler must be 'counts' or 'full' (got {sampler!r})")
    pp, pn, ppp, pnp, beta = variant_mixtures(s, variant)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), zlib.crc32(f"pubmix/{variant}".encode())]))

    def collapse(w: np.ndarray) -> np.ndarray:
        return np.array([w[0], w[1], max(1.0 - w[0] - w[1], 0.0)])

    w_d = (1 - beta) * pp + beta * pn
    w_dp = (1 - beta) * ppp + beta * pnp
    P3, Q3 = collapse(w_d / w_d.sum()), collapse(w_dp / w_dp.sum())

    def draw(pri: np.ndarray, noi: np.ndarray, w3: np.ndarray) -> np.ndarray:
        if sampler == "counts":
            return rng.multinomial(s.n_samples, w3 / w3.sum(), size=runs)
        out = np.empty((runs, 3), dtype=np.int64)
        for r in range(runs):
            x = pubmix_sample(pri, noi, beta, s.n_samples, rng)
            c0, c1 = int((x == 0).sum()), int((x == 1).sum())
            out[r] = (c0, c1, s.n_samples - c0 - c1)
        return out

    c0 = draw(pp, pn, P3)
    c1 = draw(ppp, pnp, Q3)
    # statistic: larger points to D' (log Q/P); guess D' iff T > thr
    t0, t1 = _llr(c0, Q3, P3), _llr(c1, Q3, P3)
    def every_value(s0: np.ndarray, s1: np.ndarray) -> np.ndarray:  # the statistic takes few values
        vals = np.unique(np.concatenate([s0, s1]))
        return np.concatenate([[-np.inf], vals[np.isfinite(vals)]])

    best, eps_lb, fpr, fnr, fpr_ub, fnr_ub = split_half_bound(t0, t1, s.delta, alpha, every_value)
    exp_pass, how = PUBMIX_VARIANTS[variant]
    true_delta = None
    if variant != "private-noise":  # public noise: the exact delta at the claim (Thm 4.1)
        true_delta = pubmix_delta(beta, s.epsilon, s.n, s.n_samples, s.t)
    return PubMixAuditResult(
        variant=variant, claimed_eps=float(s.epsilon), eps_lb=eps_lb, delta=float(s.delta), beta=float(beta),
        runs=int(runs), fpr=fpr, fnr=fnr, fpr_ub=fpr_ub,
        fnr_ub=fnr_ub, passed=bool(eps_lb <= s.epsilon), expected_pass=exp_pass,
        true_delta_at_claim=true_delta, sampler=sampler, how=how,
        extra={"threshold": best, "P_ij_rest": P3.tolist(), "Q_ij_rest": Q3.tolist()},
    )


def run_pubmix_audit(runs: int = 400_000, seed: int = 0, alpha: float = 0.05, sampler: str = "counts",
                     setting: PubMixAuditSetting | None = None) -> list[PubMixAuditResult]:
    """Every variant of PUBMIX_VARIANTS, in order.

    Parameters
    ----------
    runs : int, default 400_000
        Releases per dataset and variant.
    seed : int, default 0
        Seed of the runs.
    alpha : float, default 0.05
        Error probability of each bound.
    sampler : {'counts', 'full'}, default 'counts'
        How the draws are sampled (:func:`audit_pubmix`).
    setting : PubMixAuditSetting, optional
        The audited release (default :func:`default_pubmix_setting`).

    Returns
    -------
    list of PubMixAuditResult
        One per variant.

    Raises
    ------
    BlowfishError
        As :func:`audit_pubmix`.
    """
    return [audit_pubmix(v, setting, runs, seed, alpha, sampler) for v in PUBMIX_VARIANTS]


def pubmix_audit_table(results: list[PubMixAuditResult]) -> str:
    """Plain-text table of PubMix audit results.

    Parameters
    ----------
    results : list of PubMixAuditResult
        The audits.

    Returns
    -------
    str
        One line per result: variant, beta, claimed eps, eps lower bound, exact delta at the
        claim, verdict.
    """
    lines = [f"{'variant':<14} {'beta':>8} {'claimed eps':>11} {'eps_lb':>8} {'delta':>8} {'exact delta':>12} "
             f"{'FPR':>9} {'FNR':>9}  verdict (expected)"]
    for r in results:
        td = "-" if r.true_delta_at_claim is None else f"{r.true_delta_at_claim:.2e}"
        ok = "ok" if r.passed == r.expected_pass else "UNEXPECTED"
        lines.append(f"{r.variant:<14} {r.beta:>8.4f} {r.claimed_eps:>11.3f} {r.eps_lb:>8.3f} {r.delta:>8.0e} "
                     f"{td:>12} {r.fpr:>9.2e} {r.fnr:>9.2e}  {'PASS' if r.passed else 'FAIL'} "
                     f"({'pass' if r.expected_pass else 'fail'}; {ok})")
    return "\n".join(lines)


__all__ = ["PUBMIX_VARIANTS", "PubMixAuditSetting", "PubMixAuditResult", "default_pubmix_setting",
           "audit_pubmix", "run_pubmix_audit", "pubmix_audit_table", "variant_mixtures",
           "clopper_pearson_upper"]
