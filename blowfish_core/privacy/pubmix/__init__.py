"""PubMix / LinMix: release n_samples i.i.d. draws of a public-aware mixture (papers/003).

The mechanism (papers/003 §2, Eq. (1), Alg. 1): with P_prv the normalized
private histogram over d bins (n records, replace-one neighbours, n public) and
a noise distribution P_nse fixed from public data only, release ``n_samples``
i.i.d. draws from

    P_syn = (1 - beta_mix) P_prv + beta_mix P_nse.

Only the draws are released; P_syn, P_prv and the weights are never returned by
any function here except inside :func:`pubmix_sample` / :func:`exact_mixture_sample`
(which return draws).

Sampling: :func:`pubmix_sample` (numpy's ``choice`` on float weights, a seeded stream: study
runs only) and :func:`exact_mixture_sample` (releases, issue 21: exact integer arithmetic with
uniform integers from the OS CSPRNG, so the sampled law is exactly Thm 4.1's mixture).

Privacy (Thm 4.1, Eqs. (6)-(7) = (22)-(23), App. C): the worst neighbouring pair
reduces to two 3-point laws over (bin i, bin j, rest),

    P = [beta N_a + s, beta N_b,     c],   Q = [beta N_a, beta N_b + s, c],
    s = (1 - beta)/n,  c = 1 - beta (N_a + N_b) - s,

for both labellings (N_a, N_b) = (N1, N2) and (N2, N1), N1 <= N2 the two smallest
entries of P_nse, and the release is (epsilon, delta)-DP iff
``max(h1, h2) = max_labelling E_{e^eps}(P^{(x)m} || Q^{(x)m}) <= delta``.

Evaluation of h (Eq. (23)).  Two exact routes:

* ``method="binomial"`` (default, O(n_samples)): P and Q put the same mass
  p = beta (N_a + N_b) + s on {i, j}, so the count k = lambda + mu of draws in
  {i, j} is Binomial(m, p) under both, and given k, lambda ~ Binomial(k, u) under
  P and Binomial(k, v) under Q with u = (beta N_a + s)/p > v = beta N_a / p.  The
  likelihood ratio is increasing in lambda, so the positive part of Eq. (23) is a
  tail: h = sum_k Bin(m, p)(k) [P(Bin(k,u) >= l_k) - e^eps P(Bin(k,v) >= l_k)].
  This is the same sum as Eq. (23), regrouped by k (ours).
* ``method="grid"``: Eq. (23) literally, every (lambda, mu) term in log space
  (gammaln), vectorized over the grid, restricted to the P-tail window.

Both drop only k (resp. lambda, mu) whose P-probability is below a tail bound; the
dropped P-mass bounds the error (only P-mass enters the positive part), and it is
*added* to h, so the returned value is an upper bound and beta_min is never too
small.  beta_min bisects on beta (h is continuous and decreasing, Lemmas C.3-C.4).

Noise (Defs 4.3-4.4, Remark 4.5, Cor. 4.6, §5): :func:`water_fill`, :func:`mifr`,
:func:`choose_noise`, :func:`linmix_noise`, :func:`gamma_from_folds`,
:func:`inner_max_tv` (Lemma E.1, small d).

Accounting: :func:`pubmix_pld`, the dp-accounting PLD of one release (the
n_samples-fold composition of the 3-point pair at the floor N, App. C).

Errors: BudgetError for epsilon, delta, n_samples, beta, floors (n1, n2, t) and
gamma; DataError for n and for distributions (a, p_private, p_noise, public
histograms), each naming the field.

Modules (issue 22, one idea each; every name above is re-exported here):

* :mod:`.checks` -- the checks of every input (n, n_samples, beta, distributions, floors, gamma).
* :mod:`.delta` -- Thm 4.1's exact delta (h, both routes), pubmix_delta, beta_min, beta_min_curve.
* :mod:`.noise` -- noise constructions: water_fill, mifr, linmix_noise, tv, inner_max_tv(_upper).
* :mod:`.choose` -- choose_noise (the public choice of the noise law), NoiseChoice, gamma_from_folds.
* :mod:`.pld` -- pubmix_pld, the dp-accounting PLD of one release, three_point_pair.
* :mod:`.samplers` -- pubmix_sample (seeded, studies) and the exact sampler of releases
  (exact_noise_weights, exact_mixture_sample) reading the OS CSPRNG below.
"""

from __future__ import annotations

import os
import secrets

from .checks import (
    MAX_N,
    MAX_N_SAMPLES,
    SUM_TOL,
    check_beta,
    check_distribution,
    check_floor,
    check_gamma,
    check_n,
    check_n_samples,
)
from .choose import NoiseChoice, choose_noise, default_t_grid, gamma_from_folds
from .delta import BISECT_STEPS, BISECT_TOL, TAIL, beta_min, beta_min_curve, pubmix_delta
from .delta import _beta_min_cached as _beta_min_cached  # re-exported: callers read it as an attribute of the package
from .noise import (
    MAX_EXACT_D,
    MAX_EXACT_DONORS,
    floor_tv,
    inner_max_tv,
    inner_max_tv_upper,
    linmix_noise,
    mifr,
    tv,
    water_fill,
)
from .pld import pubmix_pld, three_point_pair
from .samplers import _uniform_below as _uniform_below  # re-exported: callers read it as an attribute of the package
from .samplers import exact_mixture_sample, exact_noise_weights, pubmix_sample

#: the OS CSPRNG the exact sampler (:mod:`.samplers`) reads at each call (package attributes so a
#: test can check they are called).
_os_bytes = os.urandom
_randbelow = secrets.randbelow

__all__ = [
    "MAX_N_SAMPLES",
    "MAX_N",
    "SUM_TOL",
    "check_n",
    "check_n_samples",
    "check_beta",
    "check_distribution",
    "check_floor",
    "check_gamma",
    "TAIL",
    "BISECT_STEPS",
    "BISECT_TOL",
    "pubmix_delta",
    "beta_min",
    "beta_min_curve",
    "MAX_EXACT_D",
    "MAX_EXACT_DONORS",
    "water_fill",
    "mifr",
    "floor_tv",
    "tv",
    "linmix_noise",
    "inner_max_tv",
    "inner_max_tv_upper",
    "NoiseChoice",
    "default_t_grid",
    "choose_noise",
    "gamma_from_folds",
    "pubmix_pld",
    "three_point_pair",
    "pubmix_sample",
    "exact_noise_weights",
    "exact_mixture_sample",
]
