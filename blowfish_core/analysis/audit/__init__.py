"""Empirical privacy audit of one round of Tab-PE, Hard and BF-Soft.

A release round is the Gaussian mechanism ``M(D) = H(D; C) + N(0, sigma^2 I_m)``
on the vote histogram of a fixed public candidate population C (Algorithm 1,
lines 5-20), with ``sigma = Delta_t / sqrt(2 rho_t)`` (Thm 2.6) and Delta_t from
:func:`blowfish_core.algorithm.methods.calibrate`.  The round claims
``epsilon = epsilon_exact(rho_t, delta)`` (mu-GDP curve, per round).

The audit (Jagielski et al. 2020; Nasr et al. 2021 style):

1. enumerate every record-level edge of a small finite domain (policy edges for
   Hard and BF-Soft; every pair of records, i.e. bounded DP, for Tab-PE) and take
   the edge (x, x') that attains the exact l2 sensitivity ``max ||v(x') - v(x)||_2``
   of the vote for C (:func:`worst_case_edge`);
2. form D = B + {x}, D' = B + {x'} for a fixed background B of records;
3. sample the mechanism many times on both, apply a test statistic (the
   projection onto H(D') - H(D) when both sides have the same sigma -- the
   Neyman-Pearson test for a Gaussian shift; the exact log-likelihood ratio when
   a data-dependent calibration gives the two sides different sigmas);
4. choose the threshold on the first half of the samples, count false
   positives/negatives on the second half (so the threshold is independent of
   the counts), bound the rates with one-sided Clopper-Pearson intervals at level
   1 - alpha/2 each (union bound: the result holds with probability >= 1 - alpha)
   and report ``eps_lb = max(log((1 - delta - FNR_ub) / FPR_ub),
   log((1 - delta - FPR_ub) / FNR_ub))``, clamped at 0.

Sampling: the statistic of a Gaussian mechanism depends on the noise only through
its component along H(D') - H(D) (a scalar normal) and, for unequal sigmas, the
squared norm of the orthogonal rest (a chi-square with m - 1 degrees of freedom).
The ``"scalar"`` sampler draws exactly these, which makes 10^6 samples instant;
the ``"full"`` sampler draws whole noisy histograms (m normals each) and is kept
to validate the shortcut.

Verdict (issue 21).  Two rules; the audit PASSES only when both hold:

* exact: where the pair's exact epsilon is computable -- two Gaussians with one shared
  sigma, whose (epsilon, delta) curve is the Gaussian mechanism's with mu = ||H(D') - H(D)||_2 /
  sigma (Dong, Roth & Su 2019; :func:`pair_epsilon`), or two Laplace products with one scale
  b (pure epsilon ||H(D') - H(D)||_1 / b) -- it must not exceed the claim by more than the
  relative :data:`EXACT_TOLERANCE`.  This needs no sampling, so a calibration that is off by
  any factor on the audited pair fails at any run count;
* empirical: eps_lb <= claimed epsilon (the only rule when the two sides' sigmas differ).

A pass is evidence, not proof: eps_lb is a statistical lower bound for one pair of datasets
and one test, the exact rule covers the audited pair only.  Deliberately broken calibrations
(:data:`BROKEN_CALIBRATIONS`) must FAIL; they are defined here only to show that the audit
has power -- never use them.  ``sensitivity_scale`` S multiplies the engine's own
calibration ('correct') by S, a mutation the audit must catch for S < 1 (S = 0.5: the pair's
exact epsilon is 6.56 against the claim 2.94 at rho_t = 0.25, delta = 1e-5).

Power (of the empirical rule; :func:`detection_power`, :func:`runs_for_power`).  A calibration
off by the factor S = :data:`POWER_SCALE` = 0.5 on a pair that attains its sensitivity has
mu = sqrt(2 rho_t) / S.  At a fixed threshold t of the projection (in sigma units) the
held-out half of n runs per side (N = n - n // 2) counts FP ~ Bin(N, 1 - Phi(t)) and
FN ~ Bin(N, Phi(t - mu)); the audit detects when eps_lb(FP, FN) > claim, and since eps_lb
falls as FN grows, P(detect) = sum_k P(FP = k) P(FN <= f*(k)) exactly, f*(k) the largest FN
that still detects.  At rho_t = 0.25, delta = 1e-5, alpha = 0.05 and BF-Soft's pair
(mu = 1.4124; Tab-PE's and Hard's 1.4142 need fewer) the best threshold needs
n = :data:`POWER_RUNS_95` = 27,425 runs per side for P >= 0.95 (0.84 at 20,000, the old OpenDP
default).  The audit learns its threshold on the first half, which costs power: simulated over
400 seeds, BF-Soft x 0.5 is detected by the empirical rule alone in 86.5% of audits at 27,500
runs, 94% at 41,000 (1.5 times), 98-99% at 50,000-60,000.  So every default run count is at
least :data:`POWER_MARGIN` = 2 times POWER_RUNS_95: 55,000 for the OpenDP audit (the slowest:
its float sampler takes ~0.05 ms per value; its broken controls, off by far more than x 0.5 and
each caught by the empirical rule in 200/200 audits at 2,000 runs, run 10,000), 200,000 for the
whole-histogram and Laplace suites, 2,000,000 for the scalar sampler (2 s).

Modules (issue 22, one idea each; every name is re-exported here):

* :mod:`.cases` -- the calibrations and suites the audit knows, the audit setting.
* :mod:`.edges` -- record-level policy edges of the setting and the worst-case edge.
* :mod:`.pair` -- the neighbouring pair and one calibrated round on each side (build_pair,
  build_laplace_pair).
* :mod:`.statistic` -- sampling the test statistic on both sides.
* :mod:`.bounds` -- Clopper-Pearson and the split-half lower bound on epsilon.
* :mod:`.power` -- the power of the empirical rule (detection_power, runs_for_power).
* :mod:`.verdicts` -- the exact and empirical verdicts, AuditResult, suite verdicts and tables.
* :mod:`.suites` -- audit_pair, audit and the suites.
* :mod:`.marginals` -- the audit of bf-mst's and bf-soft-mst's marginal measurements (issue 25): the
  method's own plan for a marginal, every record-level policy edge of a small domain, the release
  path's OpenDP noise (FitRandomness.gaussian); the exact and empirical rules as above.
"""

from __future__ import annotations

from .bounds import clopper_pearson_upper, epsilon_lower_bound, split_half_bound
from .cases import (
    AUDIT_CASES,
    AUDITED_METHODS,
    add_audit_args,
    positive_scale,
    BROKEN_CALIBRATIONS,
    CALIBRATIONS,
    LAPLACE_AUDIT_CASES,
    LAPLACE_BROKEN,
    LAPLACE_EPSILON_T,
    MAX_AUDIT_POINTS,
    AuditSetting,
    default_setting,
)
from .edges import WorstEdge, domain_points, record_level_edges, worst_case_edge
from .pair import AuditPair, build_laplace_pair, build_pair, check_sensitivity_scale
from .power import POWER_MARGIN, POWER_RUNS_95, POWER_SCALE, POWER_TARGET, detection_power, runs_for_power, scaled_mu
from .statistic import pair_statistic, sample_statistic
from .suites import audit, audit_pair, run_audit_suite, run_laplace_audit_suite, select_cases
from .marginals import (
    MARGINAL_BROKEN,
    MARGINAL_CASES,
    MARGINAL_METHODS,
    MarginalSetting,
    audit_marginal_pair,
    build_marginal_pair,
    marginal_audit_table,
    marginal_setting,
    run_marginal_audit_suite,
)
from .verdicts import (
    EXACT_TOLERANCE,
    AuditResult,
    audit_result,
    audit_table,
    exact_verdict,
    pair_epsilon,
    report_verdict,
    suite_verdict,
)

__all__ = [
    "CALIBRATIONS",
    "BROKEN_CALIBRATIONS",
    "AUDIT_CASES",
    "AUDITED_METHODS",
    "add_audit_args",
    "positive_scale",
    "LAPLACE_BROKEN",
    "LAPLACE_AUDIT_CASES",
    "LAPLACE_EPSILON_T",
    "MAX_AUDIT_POINTS",
    "AuditSetting",
    "default_setting",
    "domain_points",
    "record_level_edges",
    "WorstEdge",
    "worst_case_edge",
    "AuditPair",
    "check_sensitivity_scale",
    "build_pair",
    "build_laplace_pair",
    "sample_statistic",
    "pair_statistic",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "split_half_bound",
    "POWER_SCALE",
    "POWER_TARGET",
    "POWER_RUNS_95",
    "POWER_MARGIN",
    "detection_power",
    "runs_for_power",
    "scaled_mu",
    "EXACT_TOLERANCE",
    "AuditResult",
    "exact_verdict",
    "audit_result",
    "pair_epsilon",
    "report_verdict",
    "suite_verdict",
    "audit_table",
    "audit_pair",
    "audit",
    "select_cases",
    "run_audit_suite",
    "run_laplace_audit_suite",
    "MARGINAL_METHODS",
    "MARGINAL_BROKEN",
    "MARGINAL_CASES",
    "MarginalSetting",
    "marginal_setting",
    "build_marginal_pair",
    "audit_marginal_pair",
    "run_marginal_audit_suite",
    "marginal_audit_table",
]
