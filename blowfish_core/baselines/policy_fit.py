"""The policy plan and the released-marginals info shared by the policy-aware marginal fits (issue 25):
bf-mst, bf-soft-mst (:mod:`.bf_mst`), bf-aim, bf-soft-aim (:mod:`.bf_aim`)."""

from __future__ import annotations

from typing import Any

from ..model.policy import Policy
from .blowfish_sensitivity import HOW_SOFT, policy_plan
from .cells import PublicCells
from .ledger import BaselineResult
from .soft_marginals import SoftPolicyMarginals


class PolicyPlans:
    """``plan_of(cells)`` for a pipeline (:func:`.mst.fit_tree`, :func:`.aim.fit_workload`): the policy's
    plan (hard, or soft at ``tau``), refused by PolicyError when it protects nothing (policy_plan); the
    plan built is kept for :meth:`finish`.

    Parameters
    ----------
    policy : Policy
        The Blowfish policy (validated by the caller).
    method : str
        The method's name, for messages ("bf-mst", "bf-soft-aim", ...).
    tau : float, optional
        The soft marginals' temperature (> 0; checked here, BudgetError before any work); None: hard.

    Raises
    ------
    BudgetError
        For a bad tau.
    """

    def __init__(self, policy: Policy, method: str, tau: float | None = None):
        if tau is not None:
            SoftPolicyMarginals.check_tau(tau)
        self.policy, self.method, self.tau = policy, method, tau
        self.plan: Any = None

    def __call__(self, cells: PublicCells) -> Any:
        """The plan for ``cells`` (PolicyMarginals, or SoftPolicyMarginals with tau)."""
        hard = policy_plan(cells, self.policy, self.method)
        self.plan = hard if self.tau is None else SoftPolicyMarginals.of(cells, self.policy, self.tau)
        return self.plan

    def extra_info(self) -> dict[str, Any]:
        """The fit's policy (and tau) for the result's ``info``."""
        return {"policy": self.policy.to_dict(), **({} if self.tau is None else {"tau": float(self.tau)})}

    def finish(self, res: BaselineResult) -> BaselineResult:
        """``res`` with ``info["exact"]`` (the exactly released cliques), ``info["protected"]`` (the attributes
        some policy edge moves across cells) and, with tau, ``info["soft"]`` (the softly measured cliques)."""
        exact = [list(r.clique) for r in res.ledger if r.mechanism == "gaussian" and r.sensitivity == 0]
        res.info.update(exact=exact, protected=list(self.plan.crossing))
        if self.tau is not None:
            res.info["soft"] = [list(r.clique) for r in res.ledger if r.how.startswith(HOW_SOFT)]
        return res


