"""Exponential selection and its calibrations (papers/001; working notes design/selection.md).

One idea: choose one of m public candidates with the exponential mechanism (EM) and say
exactly how private that choice is, for each way of setting the EM's scale b.

* :func:`em_probabilities` -- the Gibbs law ``Q_x^b(r) ∝ exp(epsilon q(x,r) / (2 b))``
  (papers/001 Eq. (1), [R] in the notes), log-sum-exp stable.
* :func:`hockey_stick`, :func:`selection_delta` -- the exact delta(epsilon) between two
  finite selection laws (max over both orders).
* :func:`regret_bound` -- Eq. (2) [R]: ``Pr[gap > (2b/epsilon) log(m/rho)] <= rho``.
* :func:`selection_rho` / :func:`selection_epsilon` -- a pure epsilon-DP EM is
  epsilon-bounded-range, hence (epsilon^2/8)-zCDP (Cesar & Rogers 2021).
* The private choice of tau (pure pieces): :func:`score_sensitivity`,
  :func:`error_scores`, :func:`select_private` (seeded study draw, numpy) and
  :func:`blowfish_core.privacy.mechanisms.select_release` (release draw, OpenDP's Gumbel noisy max;
  in the mechanism registry, which it reads).
* :class:`SelectionGraph` -- a finite dataset graph with a score vector per dataset
  (oscillation, local/global sensitivity, smooth sensitivity, distances to unsafe sets).
* Calibrations (:data:`SCALE_RULES`, one entry each, all following :class:`ScaleRule`):
  ``global`` (any public scale, pure epsilon_s-DP), ``shifted_laplace`` (Cor. 5.3,
  (epsilon_t + epsilon_s, eta)), ``ptr`` (§6 certificate-search binary search,
  (epsilon_t + epsilon_s, eta)), and the broken ``local`` (b = LS(x), Prop. 4.1) and
  ``smooth_fixed`` (b = S*_beta(x) with fixed beta and lambda, Thm 4.3).  The broken ones
  exist only for the selection audit and the Selection Lab; their ``private`` flag is
  False and every label says :data:`NOT_PRIVATE`.  Each calibration returns, for a dataset
  of the graph, the law of what it releases: (scale, index) when the scale is part of the
  release, the index alone otherwise (:class:`SelectionLaw`).

Units: scores and scales in score units (votes, or (n/2)·error); epsilon in nats.

Modules (issue 22, one idea each; every name above is re-exported here):

* :mod:`.em` -- the exponential mechanism: em_probabilities, regret_bound.
* :mod:`.hockey` -- hockey-stick divergence of finite laws, selection_delta, selection_rho/epsilon.
* :mod:`.choice` -- the private choice of tau: score_sensitivity, error_scores, the plan, select_private.
* :mod:`.graph` -- SelectionGraph, the finite dataset graph.
* :mod:`.law` -- SelectionLaw and its delta by quadrature over the continuous scale (law_delta).
* :mod:`.calibrations` -- the ScaleRule protocol, global, shifted_laplace, the broken local and
  smooth_fixed, and the SCALE_RULES table (make_scale_rule; the deprecated CALIBRATIONS / make_calibration).
* :mod:`.ptr` -- propose-test-release (ptr_tests, PTR).
"""

from __future__ import annotations

from .calibrations import (
    BROKEN_SCALE_RULES,
    CALIBRATIONS,
    NOT_PRIVATE,
    SCALE_RULES,
    VALID_SCALE_RULES,
    GlobalScale,
    LocalScale,
    ScaleRule,
    ShiftedLaplace,
    SmoothFixed,
    make_calibration,
    make_scale_rule,
)
from .choice import (
    SCORE_METRICS,
    SCORE_NOTIONS,
    PrivateChoicePlan,
    Selection,
    error_regret_bound,
    error_scores,
    private_choice_plan,
    score_sensitivity,
    select_private,
)
from .em import em_probabilities, regret_bound
from .graph import SelectionGraph
from .hockey import hockey_stick, selection_delta, selection_epsilon, selection_rho
from .law import QUAD_PIECES, QUAD_POINTS, TAIL_CUT, SelectionLaw, law_delta
from .law import _quadrature_nodes as _quadrature_nodes  # re-exported: callers read it as an attribute of the package
from .ptr import PTR, ptr_tests

__all__ = [
    "em_probabilities",
    "regret_bound",
    "hockey_stick",
    "selection_delta",
    "selection_rho",
    "selection_epsilon",
    "SCORE_NOTIONS",
    "SCORE_METRICS",
    "score_sensitivity",
    "error_scores",
    "error_regret_bound",
    "PrivateChoicePlan",
    "private_choice_plan",
    "Selection",
    "select_private",
    "SelectionGraph",
    "SelectionLaw",
    "QUAD_PIECES",
    "QUAD_POINTS",
    "TAIL_CUT",
    "law_delta",
    "NOT_PRIVATE",
    "ScaleRule",
    "GlobalScale",
    "LocalScale",
    "SmoothFixed",
    "ShiftedLaplace",
    "SCALE_RULES",
    "VALID_SCALE_RULES",
    "BROKEN_SCALE_RULES",
    "make_scale_rule",
    "CALIBRATIONS",
    "make_calibration",
    "ptr_tests",
    "PTR",
]
