"""Run a reference method (MST, AIM) as a method of the table: ``run_reference -> SynthResult``.

The method table (blowfish_core.algorithm.methods) registers MST and AIM with ``runner="baseline"``
and ``fit`` = the name of their fit function here (fit_mst, fit_aim).  This module gives
them the call signature of Algorithm 1 (evolution.run_synthesis), so experiment.run_paired,
the CLI report, the sweeps and the Synthesizer run them like any method, and maps their
ledger rows onto the engine's typed :class:`blowfish_core.privacy.ledger.LedgerRow`:

* a Gaussian measurement -> mechanism 'gaussian', norm 'l2', scale sigma, rho_t =
  Delta^2 / (2 sigma^2), candidates = cells of the measured marginal;
* an exponential-mechanism selection -> mechanism 'exponential', norm 'score' (the score
  sensitivity, score units), scale = the Gumbel scale 2 Delta / epsilon (score units),
  epsilon_t = epsilon, rho_t = epsilon^2 / 8 (bounded range, Cesar & Rogers 2021),
  candidates = cliques it chose among.

Every row has calibration 'global' (a fixed, data-independent sensitivity), surviving =
candidates (no threshold H applies) and a note naming the algorithm step and clique.  The
totals of such a ledger: totals.privacy_totals -> ledger.zcdp_totals (rho, Eq. (1);
accountant 'zcdp-eq1').  Standard DP only: the policy is validated and then ignored, so is
tau; the budget must be zCDP (mechanism 'gaussian').  A reference method that needs tau
(bf-soft-mst) receives the run's tau.  A policy-aware reference method (bf-mst, bf-aim)
receives the run's policy; its rows carry how each sensitivity was obtained (calibration
'exhaustive-zero' / 'certified-crossing' / 'participation-floor', and a note).

Randomness (DESIGN §7, issue 21): seeded study streams give the fit its seed (numpy noise,
byte-identical per seed); release streams (evolution.OsEntropyStreams, made for seed None)
make it a release: OpenDP's Gaussian for the measurements, OpenDP's Gumbel noisy max for the
selections (baselines.common.FitRandomness), SynthResult.noise_sampler 'opendp'.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..base.errors import BlowfishError
from ..algorithm.events import RoundEvent
from ..privacy.ledger import LedgerRow as EngineRow
from ..privacy.mechanisms import MECHANISMS
from .blowfish_sensitivity import calibration_of
from .ledger import BaselineResult, released_marginals


def engine_rows(res: BaselineResult, label: str) -> list[EngineRow]:
    """The baseline's ledger rows as engine LedgerRows (t = 1, 2, ...); see module docstring.

    Parameters
    ----------
    res : BaselineResult
        A reference method's fit.
    label : str
        The method's label for every row's note (e.g. "MST").

    Returns
    -------
    list of blowfish_core.privacy.ledger.LedgerRow
        One engine row per baseline row, in order.
    """
    out = []
    for r in res.ledger:
        note = (f"{label}: step '{r.step}' on ({', '.join(r.clique)})",) + ((r.how,) if r.how else ())
        cal = calibration_of(r.how)
        if r.mechanism in MECHANISMS:  # an additive noise round (Gaussian): its table entry's name and norm
            m = MECHANISMS[r.mechanism]
            out.append(EngineRow(r.round + 1, r.candidates, m.name, float(r.sensitivity), m.norm, float(r.scale),
                                 cal, surviving=r.candidates, rho_t=float(r.rho), notes=note))
        else:  # exponential selection: scale field = the mechanism's epsilon in the baseline row
            eps = float(r.scale)
            out.append(EngineRow(r.round + 1, r.candidates, "exponential", float(r.sensitivity), "score",
                                 2.0 * float(r.sensitivity) / eps, cal, surviving=r.candidates,
                                 rho_t=float(r.rho), epsilon_t=eps, notes=note))
    return out


def require_reference(method) -> None:
    """MissingDependencyError (with the install command) when the method's optional extra is absent.

    Parameters
    ----------
    method : Method
        A reference method (its name names the extra).

    Raises
    ------
    MissingDependencyError
        When mbi (the optional extra) is not installed.
    """
    from ._mbi import require_mbi

    require_mbi(method.name.upper())


def run_reference(schema, X: np.ndarray, policy, method, rho: float | None, tau: float | None = None,
                  config=None, seed: "int | None | str" = 0, progress: Callable[[RoundEvent], None] | None = None,
                  should_stop: Callable[[], bool] | None = None, grouped=None, keep_populations: bool = False,
                  mechanism=None, epsilon: float | None = None, streams=None, delta: float | None = None,
                  public=None):
    """A reference method's release with the signature of evolution.run_synthesis.

    Seeded study streams (evolution.SeededStreams) pass their seed to the fit function (the
    same seed gives the same release; numpy noise); release streams
    (evolution.OsEntropyStreams: ``seeded`` False, ``sampler`` 'opendp', also made for seed
    None) make the fit a release: OpenDP's Gaussian for every measurement, OpenDP's Gumbel
    noisy max for every selection, streams(7, 0) for the public draws (common.FitRandomness;
    DESIGN §7, issue 21); any other ``streams`` supplies one integer seed from streams(7, 0).

    Parameters
    ----------
    schema : Schema
        The public schema.
    X : (n, p) float ndarray
        Encoded private records (ignored when ``grouped`` is given).
    policy : Policy
        Validated; passed to the fit of a policy-aware method (``Method.policy_aware``: bf-mst, bf-aim),
        ignored by the standard-DP ones (MST, AIM).
    method : Method or str
        A Method (or name) with runner 'baseline'.
    rho : float or None
        Total zCDP budget.
    tau : float, optional
        Passed to the fit of a method that needs it (``Method.needs_tau``: bf-soft-mst); ignored
        by the others.
    config : SynthConfig, optional
        Only ``release`` (rows released) is used.
    seed : int or None, default 0
        The run's randomness with ``streams`` (streams default
        evolution.make_streams(seed)).
    progress : callable, optional
        Called once after the fit with the last row's round, scale and sensitivity.
    should_stop : callable, optional
        Checked once, before the fit.
    grouped : tuple of (U, counts, ...), optional
        The records are U repeated by counts; marginals do not depend on row order.
    keep_populations : bool, default False
        As run_synthesis (an empty list of populations).
    mechanism : str or Mechanism, optional
        Must be zCDP ('gaussian', the default).
    epsilon : float, optional
        Unused (the budget is rho).
    streams : callable, optional
        The run's streams (see above).
    delta : float, optional
        Unused.
    public : tuple, optional
        Unused.

    Returns
    -------
    SynthResult
        Release encoded (release, p), rounds = engine LedgerRows summing to rho
        with the noise scales used, final_population = the release, sampler for
        more rows, noise_sampler 'opendp' / 'numpy', randomness = the streams'
        text; seed None for a release.

    Raises
    ------
    BudgetError
        For a non-zCDP mechanism.
    MissingDependencyError
        Without mbi.
    BlowfishError
        When ``method`` is not a reference method, or neither a whole-number seed
        nor streams is given.
    RunStopped
        When should_stop() is True before the fit.
    """
    from .. import baselines
    from ..algorithm.config import SynthConfig
    from ..algorithm.result import RunStopped, SynthResult
    from ..algorithm.streams import make_streams
    from ..privacy.mechanisms import get_mechanism
    from ..algorithm.methods import get_method

    meth = get_method(method)
    if not meth.is_reference or meth.fit is None:
        raise BlowfishError(f"{meth.label} is not a reference method")
    mech = get_mechanism(mechanism)
    meth.check_mechanism(mech.name, "mechanism")
    cfg = (config or SynthConfig()).validate()
    policy.validate(schema)  # checked like every method's; ignored by a standard-DP method (MST, AIM)
    require_reference(meth)
    if should_stop is not None and should_stop():
        raise RunStopped(f"run stopped by the user before {meth.label}")
    if streams is None:
        if isinstance(seed, str):  # experiment.run_method's "no seed given" marker
            raise BlowfishError(f"{meth.label} needs seed= or streams=: a whole number for a reproducible study "
                                "run, or seed=None for a release from OS entropy")
        streams = make_streams(seed)
    if grouped is not None:  # the distinct records and their counts (X may hold only the distinct records)
        X = np.repeat(grouped[0], np.asarray(grouped[1]).astype(np.int64), axis=0)
    # the fit takes its draws from the streams (baselines.common.fit_randomness): a seeded study
    # run's seed, a release's OpenDP noise and OS-entropy public draws
    policy_kw = {"policy": policy} if meth.policy_aware else {}  # bf-mst reads the run's policy
    if meth.needs_tau:  # bf-soft-mst's soft marginals read the run's tau (checked by the fit)
        policy_kw["tau"] = tau
    res: BaselineResult = getattr(baselines, meth.fit)(schema, X, rho, rows=int(cfg.release), streams=streams,
                                                       **policy_kw)
    seeded = getattr(streams, "seeded", True)
    if not seeded:
        run_seed = None
    elif isinstance(seed, (int, float, np.integer)) and not isinstance(seed, bool):  # a numeric seed
        run_seed = int(seed)
    else:
        run_seed = getattr(streams, "seed", None)
    rows = engine_rows(res, meth.name.upper())
    if progress is not None:
        last = rows[-1]
        progress(RoundEvent(len(rows), len(rows), meth.name, run_seed, last.candidates, float(last.sensitivity),
                            float(last.scale), get_mechanism(last.mechanism).scale_name, last.mechanism))
    Xr = np.asarray(res.X, dtype=float)
    return SynthResult(meth.name, run_seed, Xr, rows, float(res.seconds), [float(res.seconds)],
                       [] if keep_populations else None, Xr, np.ones(Xr.shape[0]), sampler=res.sampler,
                       noise_sampler=res.noise_sampler, randomness=getattr(streams, "randomness", "custom streams"),
                       marginals=released_marginals(res))
