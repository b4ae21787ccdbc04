"""Noise mechanisms: plug-ins that release one round's vote histogram.

A mechanism knows its sensitivity norm, how to split a total budget over rounds,
the noise scale for a sensitivity and a per-round budget, how to draw the noise,
how to write the round's ledger row, how a ledger of its rows composes (``totals``)
and its privacy-loss distribution for mixed ledgers (``pld``, dp-accounting).  Algorithm 1 (evolution.run_synthesis)
only calls these; adding a mechanism is one module here that registers itself
(:func:`.registry.register`) plus its import line below (CONTRIBUTING.md "A mechanism").

* gaussian: zCDP Gaussian mechanism (Thm 2.6), l2 sensitivity, budget rho.
* laplace:  pure epsilon-DP Laplace mechanism, l1 sensitivity, budget epsilon.
* exponential (SELECTION_MECHANISMS): one private choice among K candidates (papers/001),
  epsilon_sel-DP, epsilon_sel^2/8 zCDP; a ledger row, not a histogram mechanism.
* pubmix / linmix / pubmix-floor: sampling release steps of the hard vote (papers/003): the
  round's draws come from (1 - beta_t) H_t/n + beta_t P_nse,t ('pubmix': Remark 4.5 per round, the
  default; 'pubmix-floor': the fixed floor 0.25/m_t; 'linmix': uniform); budget (epsilon, delta), PLD
  ledger.  They have ``samples = True`` and, instead of scale/noise, ``plan`` and
  ``noise_distribution`` (see mechanisms/pubmix.py).  Additive mechanisms declare
  ``samples = False``.

Samplers (issue 11): the loop calls ``mech.release(hist, scale, rng, integer=...)``, the
noisy histogram.  Each mechanism has a study sampler ('numpy': the round's seeded stream)
and may have a release sampler ('opendp': OpenDP's floating-point-safe and discrete
samplers, :mod:`.opendp_samplers`).  The randomness source picks it once per run
(``get_mechanism(name, sampler=streams.sampler)``: SeededStreams -> 'numpy',
OsEntropyStreams -> 'opendp'); both entries share the name, ledger rows and accounting.
PubMix/LinMix's 'opendp' entry is :class:`~.pubmix.PubMixExact` (its ``sampler`` is 'exact':
integer-arithmetic sampling from the OS CSPRNG, issue 21); the PubMix class declares
``release_sampler = 'exact'`` for release_gate.release_sampler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...base.errors import BlowfishError
from .registry import MECHANISMS, SAMPLED, SELECTION_MECHANISMS, Mechanism, register
# the table: one import line per mechanism module (each registers itself; this order is MECHANISMS')
from .gaussian import Gaussian, GaussianOpenDP
from .laplace import Laplace, LaplaceOpenDP
from .exponential import Exponential
from .pubmix import PubMix, PubMixExact

if TYPE_CHECKING:  # pragma: no cover
    from ..selection import Selection


#: the additive-noise mechanisms (--mechanism) and the sampling release steps (--noise pubmix|linmix).
ADDITIVE = tuple(k for k, m in MECHANISMS.items() if not m.samples)
SAMPLING = tuple(k for k, m in MECHANISMS.items() if m.samples)
DEFAULT_MECHANISM = "gaussian"
SAMPLERS = ("numpy", "opendp")


def get_mechanism(mechanism: str | Mechanism | None, sampler: str = "numpy") -> Mechanism:
    """The mechanism for a name with the given noise sampler.

    A Mechanism instance is returned as it is for 'numpy', or swapped for its OpenDP entry.

    Parameters
    ----------
    mechanism : str or Mechanism or None
        A name of :data:`MECHANISMS` or :data:`SELECTION_MECHANISMS`, a Mechanism
        instance, or None (-> Gaussian).
    sampler : {"numpy", "opendp"}, default "numpy"
        The noise sampler: 'numpy' (study streams) or 'opendp' (release mode).

    Returns
    -------
    Mechanism
        The registered mechanism (its :data:`SAMPLED` entry for 'opendp').

    Raises
    ------
    BlowfishError
        For an unknown sampler or name, or a mechanism without an OpenDP sampler
        asked for one (a release must not fall back to numpy's sampler).
    """
    if sampler not in SAMPLERS:
        raise BlowfishError(f"unknown noise sampler {sampler!r}; use one of {', '.join(SAMPLERS)}")
    if mechanism is None:
        mechanism = DEFAULT_MECHANISM
    if not isinstance(mechanism, str):
        if sampler == "numpy" or getattr(mechanism, "sampler", "numpy") == sampler:
            return mechanism
        if (mechanism.name, sampler) not in SAMPLED:
            raise BlowfishError(f"the {mechanism.name} mechanism has no {sampler} sampler, so it cannot make an "
                                "unseeded release. Fix: give seeds for a study run")
        mechanism = mechanism.name
    m = MECHANISMS.get(mechanism) or SELECTION_MECHANISMS.get(mechanism)
    if m is None:
        raise BlowfishError(f"unknown mechanism {mechanism!r}; use one of {', '.join(MECHANISMS)}")
    if sampler == "numpy":
        return m
    s = SAMPLED.get((m.name, sampler))
    if s is None:
        raise BlowfishError(f"the {m.name} mechanism has no {sampler} sampler, so it cannot make an unseeded "
                            f"release. Fix: use {' or '.join(n for n, _ in SAMPLED)}, or give seeds for a study run")
    return s

def budget_of(mechanism: Mechanism, rho: float | None, epsilon: float | None) -> float | None:
    """The total budget of a run in the mechanism's own terms (rho or epsilon).

    The one rule that reads ``budget_name`` to choose: RunSpec.build decides it once per run
    (``RunSpec.checked.budget``); run_synthesis and totals.privacy_totals, called directly, read it here.

    Parameters
    ----------
    mechanism : Mechanism
        An entry of the registry; its ``budget_name`` is 'rho' (zCDP) or 'epsilon'.
    rho : float or None
        The total zCDP budget, if any.
    epsilon : float or None
        The total epsilon (nats), if any.

    Returns
    -------
    float or None
        ``rho`` when ``mechanism.budget_name`` is 'rho', else ``epsilon`` (not checked here: the
        mechanism's ``split`` checks it).
    """
    return rho if mechanism.budget_name == "rho" else epsilon


def select_release(errors: Any, n: int, sensitivity: float, epsilon_sel: float) -> "Selection":
    """The release-mode draw of :func:`blowfish_core.privacy.selection.select_private` (issue 21): the same law, drawn by OpenDP.

    Same arguments (no rng): the index is drawn by the exponential mechanism's release sampler,
    ``SELECTION_MECHANISMS["exponential"].draw`` -- OpenDP's report-noisy-max with
    Gumbel noise of scale 2·sensitivity/epsilon_sel (OS CSPRNG), which is exactly the law
    :func:`~blowfish_core.privacy.selection.em_probabilities` computes (papers/001 Eq. (1); McSherry & Talwar 2007).
    Pure epsilon_sel-DP (epsilon_sel^2/8 zCDP), like the seeded draw.

    Parameters
    ----------
    errors : (K,) array_like of float
        Errors of the K releases against the private table.
    n : int
        The private table's row count.
    sensitivity : float
        The score's global sensitivity (score units; ``score_sensitivity``).
    epsilon_sel : float
        Selection budget in nats.

    Returns
    -------
    Selection
        (index, probabilities (K,)).  The probabilities are the law, computed on
        the private data without noise: internal figures, never published.

    Raises
    ------
    BudgetError
        For bad input (OpenDP's privacy map is checked against epsilon_sel^2/8).
    """
    from ..selection import Selection, em_probabilities, error_scores  # scipy: not at import (issue 15)

    u = error_scores(errors, n)
    P = em_probabilities(u, sensitivity, epsilon_sel)
    return Selection(int(SELECTION_MECHANISMS["exponential"].draw(u, sensitivity, epsilon_sel)), P)


__all__ = ["ADDITIVE", "DEFAULT_MECHANISM", "MECHANISMS", "SAMPLED", "SAMPLERS", "SAMPLING", "SELECTION_MECHANISMS", "select_release",
           "Exponential", "Gaussian", "GaussianOpenDP", "Laplace", "LaplaceOpenDP", "Mechanism", "PubMix",
           "PubMixExact", "get_mechanism", "register"]
