"""Verdicts: the exact rule (the pair's own epsilon against the claim), the empirical rule, one
:class:`AuditResult` per case, and a suite's verdict and table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ...privacy.accounting import epsilon_exact
from .pair import AuditPair
from .statistic import _statistic_kind

#: relative slack of the exact rule: the pair's exact epsilon may exceed the claim by this much
#: (root-finding of epsilon_exact and float rounding of sigma; Tab-PE's and Hard's pairs attain
#: their sensitivity, so their exact epsilon equals the claim to about 1e-12).
EXACT_TOLERANCE = 1e-9


@dataclass
class AuditResult:
    """Outcome of one audit.

    eps_lb: lower bound on epsilon at ``delta`` holding with probability >= 1 - alpha.
    fpr, fnr: empirical error rates on the evaluation half (n_samples - n_samples // 2 runs
    per side) at ``threshold``; fpr_ub, fnr_ub their Clopper-Pearson upper bounds.
    eps_pair: the exact epsilon at delta of this pair's two Gaussians when their sigmas are
    equal (mu = shift / sigma; pure epsilon shift / b for Laplace), else None.
    passed_empirical: eps_lb <= claimed_eps.  passed_exact: eps_pair <= claimed_eps (1 +
    EXACT_TOLERANCE), None when eps_pair is None.  passed: both (passed_exact None counts as
    held).  sensitivity_scale: the factor on the engine's calibration (1 unless mutated).
    """

    method: str
    claimed_eps: float
    eps_lb: float
    n_samples: int
    threshold: float
    fpr: float
    fnr: float
    passed: bool
    calibration: str = "correct"
    rho_t: float = 0.0
    delta: float = 0.0
    alpha: float = 0.05
    fpr_ub: float = 1.0
    fnr_ub: float = 1.0
    sensitivity: float = 0.0
    sensitivity_prime: float = 0.0
    sigma: float = 0.0
    sigma_prime: float = 0.0
    shift: float = 0.0
    eps_pair: float | None = None
    statistic: str = "projection"
    sampler: str = "scalar"
    how: str = ""
    edge: dict[str, Any] = field(default_factory=dict)
    passed_empirical: bool = True
    passed_exact: bool | None = None
    sensitivity_scale: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @property
    def failed_rules(self) -> tuple[str, ...]:
        """The rules this result fails: a subset of ('exact', 'empirical'), empty when it passes."""
        return tuple(name for name, ok in (("exact", self.passed_exact), ("empirical", self.passed_empirical))
                     if ok is False)


def exact_verdict(eps_pair: float | None, claimed_eps: float) -> bool | None:
    """The exact rule: eps_pair <= claimed_eps (1 + EXACT_TOLERANCE).

    Parameters
    ----------
    eps_pair : float or None
        The pair's exact epsilon (:func:`pair_epsilon`).
    claimed_eps : float
        The epsilon the calibration claims.

    Returns
    -------
    bool or None
        The verdict; None when eps_pair is None (no closed form: the two sides' sigmas differ).
        inf (sigma 0 < shift) fails.
    """
    if eps_pair is None:
        return None
    return bool(eps_pair <= claimed_eps * (1.0 + EXACT_TOLERANCE))


def audit_result(pair: AuditPair, n_samples: int, alpha: float, sampler: str,
                 split: tuple[float, float, float, float, float, float]) -> AuditResult:
    """The AuditResult of ``pair``: both rules applied (see the module docstring).

    Parameters
    ----------
    pair : AuditPair
        The audited pair.
    n_samples : int
        Mechanism runs per dataset.
    alpha : float
        Error probability of the bound.
    sampler : str
        How the statistic was drawn.
    split : tuple of 6 float
        :func:`split_half_bound`'s output (threshold, eps_lb, fpr, fnr, fpr_ub, fnr_ub).

    Returns
    -------
    AuditResult
        passed = the empirical rule holds and the exact rule does not fail.
    """
    best, eps_lb, fpr, fnr, fpr_ub, fnr_ub = split
    eps_pair = pair_epsilon(pair)
    empirical = bool(eps_lb <= pair.claimed_eps)
    exact = exact_verdict(eps_pair, pair.claimed_eps)
    return AuditResult(
        method=pair.method, claimed_eps=float(pair.claimed_eps), eps_lb=eps_lb, n_samples=int(n_samples),
        threshold=best, fpr=fpr, fnr=fnr, passed=empirical and exact is not False,
        calibration=pair.calibration, rho_t=pair.rho_t, delta=pair.delta, alpha=alpha, fpr_ub=fpr_ub,
        fnr_ub=fnr_ub, sensitivity=pair.sensitivity, sensitivity_prime=pair.sensitivity_prime, sigma=pair.sigma,
        sigma_prime=pair.sigma_prime, shift=pair.shift, eps_pair=eps_pair, statistic=_statistic_kind(pair),
        sampler=sampler, how=pair.how, edge=pair.edge, passed_empirical=empirical, passed_exact=exact,
        sensitivity_scale=pair.sensitivity_scale,
    )


def pair_epsilon(pair: AuditPair) -> float | None:
    """Exact epsilon at pair.delta of N(H, s^2 I) vs N(H', s^2 I): mu-GDP with mu = shift / s.

    Laplace pairs: the pure epsilon shift / b (l1 shift).

    Parameters
    ----------
    pair : AuditPair
        The audited pair.

    Returns
    -------
    float or None
        None when the two sigmas differ; inf when s = 0 < shift; 0 when shift = 0.
    """
    if pair.sigma != pair.sigma_prime:
        return None
    if pair.pure:  # pure epsilon of Lap(b) with l1 shift d: d / b
        d = pair.shift
        return 0.0 if d == 0 else (math.inf if pair.sigma == 0 else d / pair.sigma)
    d = pair.shift
    if d == 0:
        return 0.0
    if pair.sigma == 0:
        return math.inf
    mu = d / pair.sigma
    return epsilon_exact(mu * mu / 2.0, pair.delta)


def suite_verdict(results: list[tuple[AuditResult, bool]]) -> tuple[bool, list[str]]:
    """Whether every case of a suite came out as expected.

    Parameters
    ----------
    results : list of (AuditResult, bool)
        (result, expected_pass) per case.

    Returns
    -------
    ok : bool
        All as expected.
    problems : list of str
        A problem line for every engine case ('correct') that fails (the engine's calibration
        does not hold its claim) and every broken case that passes (the audit lacks power).
    """
    problems = []
    for r, expected in results:
        if r.passed is expected:
            continue
        suite = "laplace" if r.statistic.startswith("laplace") else r.sampler
        label = f"{r.method} {r.calibration} [{suite}]" + (f" (sensitivity x {r.sensitivity_scale:g})"
                                                           if r.sensitivity_scale != 1.0 else "")
        if expected:
            problems.append(f"FAIL {label}: " + " and ".join(
                {"exact": f"exact pair epsilon {r.eps_pair:.3f} > claimed {r.claimed_eps:.3f}",
                 "empirical": f"eps_lb {r.eps_lb:.3f} > claimed {r.claimed_eps:.3f}"}[k] for k in r.failed_rules))
        else:
            problems.append(f"UNEXPECTED PASS {label}: a broken calibration was not detected (audit power)")
    return not problems, problems


def audit_table(results: list[tuple[AuditResult, bool]]) -> str:
    """Plain-text table of a suite's results.

    Parameters
    ----------
    results : list of (AuditResult, bool)
        (result, expected_pass) per case.

    Returns
    -------
    str
        One line per case: method, calibration, claimed eps, eps lower bound, pair eps, verdict
        (with the failed rules: exact, empirical).
    """
    head = "Delta_t (D/D')"
    lines = [f"{'method':<8} {'calibration':<17} {head:>15} {'claimed eps':>11} {'eps_lb':>8} "
             f"{'pair eps':>9} {'FPR':>9} {'FNR':>9}  verdict (expected)"]
    for r, exp in results:
        pe = "-" if r.eps_pair is None else ("inf" if math.isinf(r.eps_pair) else f"{r.eps_pair:.3f}")
        verdict = "PASS" if r.passed else f"FAIL [{'+'.join(r.failed_rules)}]"
        sens = (f"{r.sensitivity:.4f}" if r.sensitivity == r.sensitivity_prime
                else f"{r.sensitivity:.4f}/{r.sensitivity_prime:.4f}")
        ok = "ok" if r.passed == exp else "UNEXPECTED"
        lines.append(
            f"{r.method:<8} {r.calibration:<17} {sens:>15} {r.claimed_eps:>11.3f} {r.eps_lb:>8.3f} "
            f"{pe:>9} {r.fpr:>9.2e} {r.fnr:>9.2e}  {verdict} ({'pass' if exp else 'fail'}; {ok})"
        )
    return "\n".join(lines)


def report_verdict(results, seconds: float) -> int:
    """Print the audit scripts' closing block (benchmarks/audit_privacy.py, audit_opendp.py).

    Every unexpected verdict, then ``verdict: PASS|FAIL (k/n cases as expected; T s)``.

    Parameters
    ----------
    results : list of (AuditResult, bool)
        (result, expected_pass) per case.
    seconds : float
        Run time shown, in seconds.

    Returns
    -------
    int
        The exit code: 0 when every case is as expected, else 1 (issue 21: an audit that can fail).
    """
    ok, problems = suite_verdict(results)
    print()
    for line in problems:
        print(line)
    print(f"verdict: {'PASS' if ok else 'FAIL'} ({len(results) - len(problems)}/{len(results)} cases as expected; "
          f"{seconds:.1f} s)")
    return 0 if ok else 1
