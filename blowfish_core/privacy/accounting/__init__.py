"""Privacy accounting for the Gaussian mechanism under zero-concentrated DP.

Source: "Soft Voting for Policy-Aware Private Data Synthesis", §2.1 and
Thm 2.6 (zCDP Gaussian mechanism), Eq. (1) (zCDP -> (epsilon, delta)),
Eq. (4) (public-data pilot budget); spec in DESIGN.md §3 "Gaussian mechanism
and accounting".

Units and conventions
---------------------
* ``rho`` is the zCDP parameter (Bun & Steinke 2016), dimensionless, in
  natural-log units; ``rho > 0``. Budgets of rounds add up (composition).
* ``epsilon`` is in nats (natural logarithm), ``epsilon >= 0``.
* ``delta`` is a probability in the open interval (0, 1).
* ``mu`` is the Gaussian-DP parameter (Dong, Roth & Su 2019, "Gaussian
  Differential Privacy"); a rho-zCDP run of Gaussian mechanisms is mu-GDP with
  ``mu = sqrt(2 rho)``.

Per round t the Gaussian mechanism with l2 sensitivity ``Delta_t`` and budget
``rho_t`` adds noise ``N(0, sigma_t^2)`` with ``sigma_t^2 = Delta_t^2 /
(2 rho_t)`` (Thm 2.6); the default split is ``rho_t = rho / T``.

(epsilon, delta) is reported two ways:

* Eq. (1): ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` (Bun & Steinke 2016,
  Prop. 1.3) -- simple, loose.
* The exact Gaussian curve: the whole run is mu-GDP and
  ``delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)``
  (Dong, Roth & Su 2019, Cor. 2.13; Balle & Wang 2018, Thm 8) -- tight.

Both are statements about a single pair of neighbours, so both hold for
Blowfish (policy) neighbours as well.

Every validation failure raises :class:`blowfish_core.base.errors.BudgetError`
whose message names the field, the accepted range, the received value and a
fix.

Modules (issue 22, one idea each; every name is re-exported here):

* :mod:`.checks` -- the checks of rho, delta, epsilon (and mu, whole counts): BudgetError with a fix.
* :mod:`.conversions` -- zCDP / GDP to (epsilon, delta) and back: Eq. (1), the exact Gaussian curve,
  rho_from_budget.
* :mod:`.budgets` -- spending a budget: split_budget, gaussian_sigma, the pilot budget (Eq. (4)),
  equivalent_budget_multiplier and the PrivacyLedger.
"""

from __future__ import annotations

from .budgets import (PrivacyLedger, equivalent_budget_multiplier, gaussian_sigma, pilot_budget, pilot_scaling,
                      split_budget)
from .checks import MAX_EPSILON as MAX_EPSILON  # the budget limits, importable here as before (not in __all__)
from .checks import MAX_RHO as MAX_RHO
from .checks import check_delta, check_epsilon, check_rho
from .conversions import (
    CONVERSIONS,
    delta_exact,
    epsilon_eq1,
    epsilon_exact,
    gdp_mu,
    rho_from_budget,
    rho_from_epsilon_eq1,
    rho_from_epsilon_exact,
)

__all__ = [
    "check_rho",
    "check_delta",
    "check_epsilon",
    "epsilon_eq1",
    "rho_from_epsilon_eq1",
    "gdp_mu",
    "delta_exact",
    "epsilon_exact",
    "rho_from_epsilon_exact",
    "rho_from_budget",
    "split_budget",
    "gaussian_sigma",
    "equivalent_budget_multiplier",
    "pilot_budget",
    "pilot_scaling",
    "PrivacyLedger",
    "CONVERSIONS",
]
