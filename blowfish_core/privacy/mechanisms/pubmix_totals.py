"""The totals rule of Remark 4.5 PubMix releases published together (issue 26; docs/PRIVACY.md §5).

Each round of mechanism 'pubmix' is composed as its canonical (epsilon_t, delta_t) pair, which keeps
delta_t of infinite privacy loss (delta_t = delta / (2T)).  One release keeps delta / 2 of it, and is
stated at delta; R >= 2 releases together (a paired run's methods x seeds) keep about R delta / 2, so
epsilon at delta is infinite (R >= 3) or about the sum of every epsilon_t (R = 2),
and :meth:`PubMix.totals <blowfish_core.privacy.mechanisms.pubmix.PubMix.totals>` states them at
:func:`stated_delta` = R x delta with the words of :func:`delta_note`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def stated_delta(delta: float, delta_per_round: Sequence[float]) -> float:
    """The delta a Remark 4.5 total is stated at: max(delta, 2 sum_t delta_t) (docs/PRIVACY.md §5).

    Each round's canonical (epsilon_t, delta_t) pair keeps delta_t of infinite privacy loss, so the
    composition of R releases (delta_t = delta / (2T), T rounds each) keeps about R delta / 2 of it and
    is unbounded (R >= 3) or left without slack (R = 2) at delta.  The total is then stated at the sum
    of the releases' deltas, 2 sum_t delta_t = R delta (basic composition of the delta part); one
    release stays at delta.

    Parameters
    ----------
    delta : float
        The requested DP delta, in (0, 1).
    delta_per_round : sequence of float
        Every composed row's delta_t (all releases together).

    Returns
    -------
    float
        ``max(delta, 2 * fsum(delta_per_round))``.
    """
    return max(float(delta), 2.0 * math.fsum(float(x) for x in delta_per_round))


def delta_note(delta: float, stated: float, epsilon_at_delta: float = math.inf) -> str:
    """The words of a total stated above the requested delta (:func:`stated_delta`).

    Parameters
    ----------
    delta : float
        The requested DP delta.
    stated : float
        The delta the total is stated at (R x delta).
    epsilon_at_delta : float, default inf
        The composition's epsilon at ``delta`` (finite but close to the sum of the rounds' epsilon_t for
        R = 2).

    Returns
    -------
    str
        One sentence naming R, both deltas and why (basic composition of the releases' delta), and
        for a finite ``epsilon_at_delta`` the composition's epsilon at ``delta`` itself.
    """
    r = stated / delta
    rs = f"{round(r)}" if abs(r - round(r)) < 1e-9 * r else f"{r:.4g}"
    at_delta = ("" if math.isinf(epsilon_at_delta) else
                f"; at the chosen delta = {delta:.3g} itself they are (epsilon = {epsilon_at_delta:.4g}, "
                f"delta = {delta:.3g})-DP, about the sum of every round's epsilon_t")
    return (f"stated at delta = {stated:.3g} = {rs} x the chosen delta (basic composition of the releases' delta: each "
            f"Remark 4.5 round keeps delta_t as a failure probability, so {rs} releases together are "
            f"(epsilon, {rs} x delta)-DP, not (epsilon, delta)-DP{at_delta})")
