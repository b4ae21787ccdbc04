"""Reference methods: standard-DP marginal-based synthesis on Private-PGM (``mbi``).

Not policy-aware: these are the state-of-the-art baselines (MST, McKenna, Miklau, Sheldon
2021; AIM, McKenna et al. 2022) to put beside Tab-PE / Hard / BF-Soft at the same zCDP
budget, on the same modeled columns, with the domain and bins taken from the public
schema.  Optional extra: ``mbi`` and ``jax`` (``pip install .[baseline]``); without them
the fit functions raise MissingDependencyError saying how to install them.

Entry points (to be registered in the method table as ``mst`` / ``aim``):
    fit_mst(schema, data, rho, seed=0, rows=512, ..., streams=None) -> BaselineResult
    fit_aim(schema, data, rho, seed=0, rows=512, workload=None, ..., streams=None) -> BaselineResult
    fit_bf_mst(schema, data, rho, policy, seed=0, ...) -> BaselineResult  (MST under a Blowfish
    policy: exact per-marginal sensitivity, issue 25; entry ``bf-mst``)
    fit_bf_soft_mst(schema, data, rho, policy, tau, seed=0, ...) -> BaselineResult  (bf-mst with soft
    marginals K_S h_S, baselines.soft_marginals; entry ``bf-soft-mst``)
    fit_bf_aim(schema, data, rho, policy, seed=0, ...) -> BaselineResult  (AIM under a Blowfish
    policy, the same sensitivities; entry ``bf-aim``)
    (seed=None or OS-entropy streams: a release, OpenDP noise; see common.FitRandomness)
    BaselineResult: release (DataFrame), X (encoded), ledger (LedgerRow...), seconds
"""

from ._mbi import INSTALL_HINT, MissingDependencyError, mbi_available, require_mbi
from .aim import fit_aim
from .bf_aim import fit_bf_aim, fit_bf_soft_aim
from .bf_mst import fit_bf_mst, fit_bf_soft_mst
from .cells import PublicCells
from .ledger import BaselineResult, LedgerRow, ledger_total
from .mst import fit_mst

__all__ = [
           "INSTALL_HINT",
           "BaselineResult",
           "LedgerRow",
           "MissingDependencyError",
           "PublicCells",
           "fit_aim",
           "fit_bf_aim",
           "fit_bf_soft_aim",
           "fit_bf_mst",
           "fit_bf_soft_mst",
    "fit_mst",
           "ledger_total",
           "mbi_available",
           "require_mbi",
]
