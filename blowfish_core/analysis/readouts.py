"""Live read-outs of a policy: everything the Policy Designer shows, in one pure call.

The page (and any other front end) calls :func:`policy_readout` on every change and
only formats and draws the numbers it returns; :func:`pair_path` answers "how well
are these two values protected from each other?" (group privacy).

Sources: reach Def. 2.7 / Cor. 5.2 (a max over attributes, not a sum); q and the
BF-Soft bound Cor. 5.5; Hard's worst case sqrt(2) (Cor. 5.3); Gaussian noise
Thm 2.6; Eq. (1) and the exact Gaussian curve (DESIGN §3); Remark 3 (attributes at
their diameter are a floor on reach); §5.6 (participation edges); DESIGN §3 "Policy
graph" (components and group privacy l*epsilon, l^2*rho).

Nothing here reads private records: the inputs are the public schema, the policy,
tau and the budget (DESIGN §7).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from ..privacy.accounting import (
    epsilon_eq1, epsilon_exact, equivalent_budget_multiplier, gaussian_sigma, rho_from_budget, split_budget,
)
from ..model.calibration import floor_value
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BudgetError, PolicyError
from ..algorithm.methods import BF_SOFT, HARD, TAB_PE
from ..model.policy import Policy, attribute_reach, components, group_privacy, path_length
from ..model.schema import Schema, _fmt
from ..model.sensitivity import SQRT2, noise_ratio, soft_bound, standard_dp_reach
from ..model.votes import check_tau

#: default temperature grid of the q-versus-tau curve: 1e-3 .. 1, log-spaced.
CURVE_TAUS = np.logspace(-3, 0, 61)

#: attributes with more values than this are not split into components for warnings.
MAX_COMPONENT_VALUES = 5000

#: q at or above this is "near 1": soft voting has little to gain (Remark 3).
Q_NEAR_ONE = 0.9

_READOUT_METHODS = (TAB_PE.name, HARD.name, BF_SOFT.name)


def _budget(rho: float | None, epsilon: float | None, delta: float, rounds: int,
            conversion: str) -> dict[str, Any] | None:
    """Total rho, its split and both (epsilon, delta) reports; None without a budget."""
    if rho is None and epsilon is None:
        return None
    total = rho_from_budget(rho=rho, epsilon=epsilon, delta=delta, conversion=conversion)
    per_round = split_budget(total, rounds)
    return {
        "source": "rho" if rho is not None else "epsilon",
        "rho": float(total),
        "epsilon_target": None if epsilon is None else float(epsilon),
        "delta": float(delta),
        "rounds": int(rounds),
        "rho_t": float(per_round[0]),
        "conversion": conversion,
        "epsilon_eq1": float(epsilon_eq1(total, delta)),
        "epsilon_exact": float(epsilon_exact(total, delta)),
    }


def _warnings(schema: Schema, policy: Policy, per: dict[str, float], unweighted: dict[str, float],
              reach: float, argmax: list[str], q: float, data_derived: str | None) -> list[dict[str, Any]]:
    """The paper's warnings for this policy, each {kind, severity, attribute, message}."""
    out: list[dict[str, Any]] = []

    def add(kind: str, severity: str, attribute: str | None, message: str) -> None:
        out.append({"kind": kind, "severity": severity, "attribute": attribute, "message": message})

    if data_derived:
        add("data-derived", "warning", None, data_derived)
    if reach == 0.0:
        add("no-protection", "warning", None,
            "The policy protects no pair of values: reach is 0, BF-Soft's bound is 0 and Hard can certify "
            "sensitivity 0, so nothing about any record is hidden. Protect at least one attribute.")
    for a in schema.attributes:
        ap = policy.policy_for(a.name)
        r = unweighted[a.name]
        if r <= 0.0:
            continue
        if r >= 1.0 - 1e-12:
            why = a.diameter_reason
            if ap.kind == "complete":
                why = "a complete graph contains the pair at the attribute's diameter"
            sets = " and it sets the record-level reach" if a.name in argmax else ""
            add("full-weight", "warning", a.name,
                f"'{a.name}' contributes its full weight {per[a.name]:.4g} to the reach ({why}){sets}. "
                f"A protected pair at the diameter is a floor on reach (Remark 3): "
                + (f"q = {q:.2f} is near 1, so BF-Soft has little to gain over Hard."
                   if a.name in argmax and q >= Q_NEAR_ONE else
                   "with this attribute protected, reach cannot drop below that weight."))
        if not a.bounded and a.size is not None and a.size <= MAX_COMPONENT_VALUES:
            comps = components(a, ap)
            if len(comps) > 1:
                ex, other = comps[0], comps[1]
                add("components", "warning", a.name,
                    f"The graph of '{a.name}' has {len(comps)} connected components: values in different "
                    f"components are not protected from each other (e.g. '{_fmt(ex[0])}' vs '{_fmt(other[0])}' "
                    "can be told apart at any budget).")
        if ap.kind == "threshold" and a.graded:
            theta = cast(float, ap.theta)  # the policy was validated: a threshold has a finite theta
            if a.whole_steps and not float(theta).is_integer():
                add("threshold-rounds", "info", a.name,
                    f"The threshold {_fmt(theta)} on '{a.name}' acts as "
                    f"{f'{math.floor(theta + 1e-9)} {a.threshold_unit}'.strip()}: the domain moves in whole steps.")
    if policy.participation:
        add("participation", "warning", None,
            "Participation edges (u, bottom) make adding or removing a record a neighbour: the sensitivity of "
            "either vote is at least 1 (§5.6), so BF-Soft's noise never drops below 1/sqrt(2) of Hard's "
            "worst case however small the reach.")
    unprotected = [a.name for a in schema.attributes if unweighted[a.name] == 0.0]
    if unprotected and reach > 0.0:
        add("unprotected", "info", None,
            f"Changes to {', '.join(repr(n) for n in unprotected)} are not protected: the policy hides only "
            "the substitutions it names.")
    return out


def _reaches(schema: Schema, policy: Policy) -> tuple[np.ndarray, dict[str, float], dict[str, float], float, list[str]]:
    """(weights, {name: r_i}, {name: w_i r_i}, r = max_i w_i r_i, every attribute attaining r > 0)."""
    w = schema.weights
    unweighted = {a.name: float(attribute_reach(a, policy.policy_for(a.name))) for a in schema.attributes}
    per = {a.name: float(w[i] * unweighted[a.name]) for i, a in enumerate(schema.attributes)}
    reach = max(per.values())
    argmax_all = [n for n, v in per.items() if v == reach and reach > 0.0]
    return w, unweighted, per, reach, argmax_all


def _q_curve(curve_taus: np.ndarray | None, reach: float, r_dp: float) -> dict[str, list[float]]:
    """The q-vs-tau plot at the policy's reach and at standard DP (BudgetError for bad curve_taus)."""
    taus = CURVE_TAUS if curve_taus is None else np.asarray(curve_taus, dtype=float)
    if taus.ndim != 1 or taus.size == 0 or not np.all(np.isfinite(taus)) or np.any(taus <= 0):
        raise BudgetError("curve_taus must be a non-empty 1-d list of temperatures > 0")
    curve = {
        "tau": taus.tolist(),
        "q": np.tanh(reach / (2.0 * taus)).tolist(),
        "q_standard_dp": np.tanh(r_dp / (2.0 * taus)).tolist(),
    }
    return curve


def _sigmas(sens: dict[str, float], budget: dict[str, Any] | None) -> dict[str, float] | None:
    """sigma_t per round of every read-out method (Thm 2.6), or None without a budget."""
    sigma = None
    if budget is not None:
        sigma = {m: float(gaussian_sigma(sens[m], budget["rho_t"])) for m in _READOUT_METHODS}
    return sigma


def policy_readout(
    schema: Schema,
    policy: Policy,
    tau: float,
    rho: float | None = None,
    epsilon: float | None = None,
    delta: float = DEFAULT_DELTA,
    rounds: int = 8,
    conversion: str = "exact",
    curve_taus: np.ndarray | None = None,
) -> dict[str, Any]:
    """All numbers of the Policy Designer's live read-outs for one policy.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy graphs (PolicyError if they do not fit the schema).
    tau : float
        Softmax temperature in Gower units (> 0; BudgetError).
    rho : float, optional
        Total zCDP budget.  Give rho or (epsilon, delta), not both; neither -> no noise figures.
    epsilon : float, optional
        Total epsilon at ``delta``, converted with ``conversion``.
    delta : float, default DEFAULT_DELTA
        DP delta of the (epsilon, delta) reports.
    rounds : int, default 8
        T: the budget is split equally rho_t = rho / T (Algorithm 1).
    conversion : {'exact', 'eq1'}, default 'exact'
        How epsilon becomes rho (accounting.rho_from_budget).
    curve_taus : (k,) float ndarray, optional
        Temperatures (> 0) of the q-vs-tau curve (default CURVE_TAUS).

    Returns
    -------
    dict
        Plain floats, JSON-ready except ``inf`` for 1/q^2 at q = 0:

        per_attribute: {name: w_i r_i} weighted reach, Gower units (Cor. 5.2)
        unweighted:    {name: r_i} in [0, 1];  weights: {name: w_i}
        protected:     {name: policy description} for attributes with r_i > 0
        reach:         record-level reach r = max_i w_i r_i
        argmax:        attribute setting r (first in schema order) or None when r = 0;
        argmax_all:    every attribute attaining the max
        tau, q:        q = tanh(r / (2 tau)) (Cor. 5.5)
        bound:         BF-Soft l2 sensitivity as calibrated, sqrt(2) q (1 + SOFT_BOUND_PAD)
                       (sensitivity.soft_bound), at least 1 with participation edges
        bound_l1:      2 q (1 + SOFT_BOUND_PAD) (Laplace variant), at least 1 with participation edges
        q_effective:   bound / sqrt(2): BF-Soft's sigma relative to Hard's worst case
        multiplier:    1 / q^2 (equivalent_budget_multiplier; inf when q = 0)
        standard_dp_reach, q_standard_dp: the soft vote at standard DP (reach = Gower diameter)
        sensitivity:   {'tab-pe': sqrt 2, 'hard': sqrt 2 (worst case, Cor. 5.3), 'bf-soft': bound}
        budget:        None or {source, rho, epsilon_target, delta, rounds, rho_t, conversion,
                       epsilon_eq1, epsilon_exact}
        sigma:         None or {method: sigma_t per round} = Delta / sqrt(2 rho_t) (Thm 2.6)
        curve:         {'tau': [...], 'q': [...], 'q_standard_dp': [...]} for the q-vs-tau plot
        warnings:      list of {kind, severity ('warning'|'info'), attribute, message}; kinds:
                       data-derived, no-protection, full-weight (Remark 3), components,
                       threshold-rounds, participation (§5.6), unprotected

    Raises
    ------
    PolicyError
        If the policy does not fit the schema.
    BudgetError
        If tau, rho, epsilon, delta, rounds or curve_taus is out of range.
    """
    tau = check_tau(tau)
    policy.validate(schema)
    w, unweighted, per, reach, argmax_all = _reaches(schema, policy)
    q = noise_ratio(reach, tau)
    bound = floor_value(soft_bound(reach, tau), policy)  # the calibration's padded bound (Cor. 5.5)
    bound_l1 = floor_value(soft_bound(reach, tau, "l1"), policy)
    r_dp = standard_dp_reach(schema)
    curve = _q_curve(curve_taus, reach, r_dp)
    budget = _budget(rho, epsilon, delta, rounds, conversion)
    sens = {TAB_PE.name: SQRT2, HARD.name: SQRT2, BF_SOFT.name: float(bound)}
    sigma = _sigmas(sens, budget)
    return {
        "per_attribute": per,
        "unweighted": unweighted,
        "weights": {a.name: float(w[i]) for i, a in enumerate(schema.attributes)},
        "protected": {a.name: policy.policy_for(a.name).describe(a) for a in schema.attributes
                      if unweighted[a.name] > 0},
        "participation": bool(policy.participation),
        "reach": float(reach),
        "argmax": argmax_all[0] if argmax_all else None,
        "argmax_all": argmax_all,
        "tau": tau,
        "q": float(q),
        "bound": float(bound),
        "bound_l1": float(bound_l1),
        "q_effective": float(bound / SQRT2),
        "multiplier": float(equivalent_budget_multiplier(q)),
        "standard_dp_reach": float(r_dp),
        "q_standard_dp": float(noise_ratio(r_dp, tau)),
        "sensitivity": sens,
        "budget": budget,
        "sigma": sigma,
        "curve": curve,
        "warnings": _warnings(schema, policy, per, unweighted, reach, argmax_all, q, schema.domain_warning()),
    }


def pair_path(
    schema: Schema,
    policy: Policy,
    attr: str,
    u: Any,
    v: Any,
    rho: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
) -> dict[str, Any]:
    """Group privacy of two values of one attribute (DESIGN §3 "Policy graph").

    Two records differing only in ``attr`` by u -> v are joined by a path of l protected
    edges, so they get l^2 rho (zCDP) -- the figure valid for the Gaussian release; with
    ``delta`` its (epsilon, delta) is reported on the exact Gaussian curve and by Eq. (1).
    ``epsilon_pair`` = l epsilon is the pure-DP reading of group privacy: it applies only
    to a pure epsilon-DP mechanism (e.g. a Laplace variant), not to this zCDP release.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    attr : str
        The attribute's name.
    u, v : Any
        Values in the attribute's own units/labels (numbers for numeric attributes).
    rho : float, optional
        zCDP budget of one edge.
    epsilon : float, optional
        Pure-DP epsilon of one edge (``epsilon_pair``).
    delta : float, optional
        DP delta of the (epsilon, delta) reports of rho_pair.

    Returns
    -------
    dict
        {attribute, u, v, length (None = different components), connected,
        rho_pair, epsilon_exact_pair, epsilon_eq1_pair (both None without rho and delta),
        epsilon_pair (l * epsilon, pure DP only), message}.

    Raises
    ------
    SchemaError
        For an unknown attribute.
    PolicyError
        For a value outside the public domain, values that cannot be compared, or a policy
        that does not fit.
    BudgetError
        If rho, epsilon or delta is out of range.
    """
    a = schema[attr]
    policy.validate(schema)
    ap = policy.policy_for(attr)
    try:
        length = path_length(a, ap, u, v)
    except (TypeError, ValueError) as e:
        if isinstance(e, PolicyError):
            raise
        raise PolicyError(f"'{attr}': cannot compare {u!r} and {v!r}: {e}") from None
    gp = group_privacy(length, rho if rho is not None else 0.0, epsilon)
    rho_pair = gp["rho"] if rho is not None else None
    eps_exact = eps_eq1 = None
    if rho_pair is not None and delta is not None and length:
        eps_exact = float(epsilon_exact(rho_pair, delta))
        eps_eq1 = float(epsilon_eq1(rho_pair, delta))
    if length is None:
        msg = (f"'{_fmt(u)}' and '{_fmt(v)}' lie in different components of the '{attr}' policy graph: "
               "they are not protected from each other.")
    elif length == 0:
        msg = f"'{_fmt(u)}' and '{_fmt(v)}' are the same value."
    elif length == 1:
        msg = f"'{_fmt(u)}' and '{_fmt(v)}' are a protected pair (one edge): the full guarantee applies."
    else:
        msg = (f"'{_fmt(u)}' and '{_fmt(v)}' are {length} edges apart: they get {length}^2 rho "
               f"= {length ** 2} x rho (zCDP group privacy).")
    return {
        "attribute": attr,
        "u": u,
        "v": v,
        "length": length,
        "connected": length is not None,
        "rho_pair": rho_pair,
        "epsilon_pair": gp["epsilon"],
        "epsilon_exact_pair": eps_exact,
        "epsilon_eq1_pair": eps_eq1,
        "message": msg,
    }
