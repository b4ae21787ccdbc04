"""Typed privacy-ledger rows and the result of a reference (baseline) method.

A temporary, subpackage-local row type: when the engine's typed ledger (issue 10) lands,
these rows map one-to-one onto it (round/step, mechanism, sensitivity, scale, rho).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

MECHANISMS = ("gaussian", "exponential")


@dataclass(frozen=True)
class LedgerRow:
    """One private measurement or selection, in zCDP.

    round: 0-based index of the row within the run; step: which algorithm step
    ("measure-1way", "select", "measure-2way", "measure" ... see the method's docstring).
    mechanism: "gaussian" or "exponential".
    clique: attribute names measured (gaussian) or the selected clique (exponential).
    sensitivity: l2 sensitivity of the marginal (gaussian, count units) or the score's
        sensitivity (exponential, score units).
    scale: gaussian: noise standard deviation sigma (count units); exponential: the
        mechanism's epsilon (nats; selection probability ~ exp(epsilon score / (2 sensitivity))).
    rho: zCDP spent: sensitivity^2 / (2 sigma^2) (Gaussian, Bun & Steinke 2016) or
        epsilon^2 / 8 (exponential mechanism, Cesar & Rogers 2021 bounded range).
    candidates: cells of the measured marginal (gaussian) or cliques the selection chose
        among (exponential); 0 when not recorded.
    how: how the sensitivity was obtained, "" for the method's global value (bf-mst:
        blowfish_sensitivity.HOW_* ; an exact measurement adds RELEASED_EXACTLY, with
        sensitivity 0, scale 0 and rho 0).
    """

    round: int
    step: str
    mechanism: str
    clique: tuple[str, ...]
    sensitivity: float
    scale: float
    rho: float
    candidates: int = 0
    how: str = ""

    def __post_init__(self) -> None:
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"ledger row mechanism must be one of {MECHANISMS} (got {self.mechanism!r})")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["clique"] = list(self.clique)
        if not self.how:  # MST / AIM rows keep their historical keys
            del d["how"]
        return d


def ledger_total(rows) -> float:
    """Total zCDP rho of ledger rows (math.fsum of their rho).

    Parameters
    ----------
    rows : iterable of LedgerRow
        The rows.

    Returns
    -------
    float
        Their total rho (zCDP).
    """
    return math.fsum(r.rho for r in rows)


@dataclass(frozen=True)
class BaselineResult:
    """Release of a reference method.

    release: DataFrame (rows, p) in the schema's original column names and values.
    X: the same release encoded (rows, p) float64 (blowfish_core.model.schema encoding).
    ledger: tuple of LedgerRow; their rho sums to the stated rho.
    seconds: wall-clock seconds of the whole fit (measure, estimate, sample, decode).
    rho: the stated total budget; method: "mst" | "aim".
    cliques: the measured cliques (names) in measurement order.
    info: method-specific extras (JSON-safe).
    sampler: ``sampler(n, rng) -> (n, p)`` encoded records drawn afresh from the fitted model
        (post-processing: no privacy cost); rng a numpy Generator.  Not compared.
    noise_sampler: what drew the noise: 'numpy' (a seeded study fit) or 'opendp' (a release:
        OpenDP's Gaussian for the measurements and its Gumbel noisy max for the selections).
    """

    release: pd.DataFrame
    X: Any
    ledger: tuple[LedgerRow, ...]
    seconds: float
    rho: float
    method: str
    cliques: tuple[tuple[str, ...], ...] = ()
    info: dict[str, Any] = field(default_factory=dict)
    sampler: Callable[[int, Any], Any] | None = field(default=None, compare=False, repr=False)
    noise_sampler: str = "numpy"

    def __iter__(self):
        """Unpack as (release, ledger, seconds)."""
        return iter((self.release, self.ledger, self.seconds))

    @property
    def rho_spent(self) -> float:
        return ledger_total(self.ledger)


def released_marginals(res: BaselineResult) -> dict[str, list[list[str]]] | None:
    """Which measured marginals a fit released exactly and which with noise (issue 25).

    Parameters
    ----------
    res : BaselineResult
        A reference method's fit.  A fit that can release a marginal exactly says so in
        ``info["exact"]`` (the exactly released cliques, bf-mst); the others (MST, AIM) have no
        such key.

    Returns
    -------
    dict or None
        ``{"exact": [clique, ...], "noisy": [clique, ...]}`` in measurement order, each clique a
        list of attribute names, duplicates dropped: ``exact`` from ``info["exact"]``, ``noisy`` the
        other cliques of the ledger's Gaussian measurements.  None when the fit has no
        ``info["exact"]``.  Only cliques (public: the policy and the DP selections decide them),
        never a figure computed on the private table.
    """
    if "exact" not in res.info:
        return None
    exact: list[list[str]] = []
    for c in res.info["exact"]:
        if list(c) not in exact:
            exact.append([str(a) for a in c])
    noisy: list[list[str]] = []
    for r in res.ledger:
        c = [str(a) for a in r.clique]
        if r.mechanism == "gaussian" and c not in exact and c not in noisy:
            noisy.append(c)
    return {"exact": exact, "noisy": noisy}
