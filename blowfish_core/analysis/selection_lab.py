"""Everything the Selection Lab page shows, in one call (papers/001 §4; design/selection.md B5(c)).

:func:`selection_lab` builds a preset dataset graph (§4.1 path or §4.2 multiplicity, from
:mod:`blowfish_core.selection_audit`), takes its two neighbouring datasets with *identical*
scores, and for one calibration returns the two selection laws, the exact delta(epsilon)
curve against the claim, the regret bound and -- the "fix it" table -- the same numbers
for every valid calibration.  Broken calibrations carry ``private = False`` and the label
"demonstration: not private".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np

from ..base.errors import BudgetError
from ..privacy.selection import (
    NOT_PRIVATE, PTR, SCALE_RULES, VALID_SCALE_RULES, GlobalScale, LocalScale, ScaleRule, SelectionLaw, ShiftedLaplace,
    SmoothFixed, law_delta,
)
from .selection_audit import Construction, construction_multiplicity, construction_path

PRESETS = ("path", "multiplicity")
#: the preset's broken calibration (what the construction defeats).
PRESET_BROKEN = {"path": "local", "multiplicity": "smooth_fixed"}
CLOSING_NOTE = ("A calibration may use public state (the policy, the candidate population C_t), never the "
                "records: a scale computed from the dataset at hand leaks even when the scores are identical.")


@dataclass
class CalibrationRow:
    """One calibration on the focus edge: claim, exact delta at the claimed epsilon, regret."""

    name: str
    label: str
    private: bool
    claim: tuple[float, float]
    exact_delta: float
    passed: bool
    scale_x: float
    scale_x_prime: float
    regret_gap: float
    regret_failure: float


@dataclass
class LabView:
    """What the Selection Lab draws.

    preset, description; datasets: (name x, name x'); scores: (k,) identical on both;
    group_labels, counts: (k,); calibration: the chosen row; law_x, law_x_prime: (k,) laws of
    the index; curve_epsilon, curve_delta: (n,) the exact delta(epsilon) of the chosen
    calibration; fixes: the valid calibrations' rows; gap_max: the score range (units of
    the regret); note: the closing card.
    """

    preset: str
    description: str
    datasets: tuple[str, str]
    scores: np.ndarray
    group_labels: list[str]
    counts: np.ndarray
    local_sensitivity: tuple[float, float]
    calibration: CalibrationRow
    law_x: np.ndarray
    law_x_prime: np.ndarray
    curve_epsilon: np.ndarray
    curve_delta: np.ndarray
    fixes: list[CalibrationRow] = field(default_factory=list)
    note: str = CLOSING_NOTE


def lab_construction(preset: str, *, G: float = 10.0, M: float | None = None, m: int | None = None,
                     C: float = 18.0, lam: float = 0.25, beta: float = 0.5, epsilon_s: float = 1.0) -> Construction:
    """The preset's construction.

    Parameters
    ----------
    preset : {'path', 'multiplicity'}
        "path" (§4.1) or "multiplicity" (§4.2).
    G : float, default 10.0
        path: the local sensitivity at x.
    M : float, optional
        path: the score of 'a' (default G^2).
    m : int, optional
        Candidates (default 2 for path, 1001 for multiplicity).
    C : float, default 18.0
        multiplicity: the score of 'a'.
    lam : float, default 0.25
        multiplicity: lam of the fixed-smooth calibration.
    beta : float, default 0.5
        multiplicity: beta of the fixed-smooth calibration.
    epsilon_s : float, default 1.0
        path: selection epsilon of the local-scale calibration.

    Returns
    -------
    Construction
        :func:`construction_path` or :func:`construction_multiplicity`.

    Raises
    ------
    BudgetError
        For an unknown preset (or bad parameters of the construction).
    """
    if preset == "path":
        return construction_path(G, epsilon_s, M=M, m=2 if m is None else m)
    if preset == "multiplicity":
        return construction_multiplicity(1001 if m is None else m, C, lam, beta)
    raise BudgetError(f"preset must be one of {PRESETS} (got {preset!r}). Fix: 'path' (§4.1) or 'multiplicity' (§4.2)")


def make_lab_calibration(name: str, *, epsilon_s: float, b0: float, lam: float, beta: float, epsilon_t: float,
                         eta: float) -> ScaleRule:
    """The Lab's calibration ``name`` with the page's parameters (broken ones claim epsilon_s).

    Parameters
    ----------
    name : str
        A key of SCALE_RULES: 'global', 'local', 'smooth_fixed', 'shifted_laplace' or 'ptr'.
    epsilon_s : float
        The EM's epsilon (and the broken calibrations' claim).
    b0 : float
        Public floor of the scale (local, shifted_laplace), score units.
    lam : float
        lam of smooth_fixed.
    beta : float
        beta of smooth_fixed.
    epsilon_t : float
        Scale budget of shifted_laplace / ptr.
    eta : float
        Failure probability of shifted_laplace / ptr.

    Returns
    -------
    ScaleRule
        The scale rule.

    Raises
    ------
    BudgetError
        For an unknown name.
    """
    if name == "global":
        return GlobalScale(epsilon_s=epsilon_s)
    if name == "local":
        return LocalScale(epsilon_s=epsilon_s, b0=b0)
    if name == "smooth_fixed":
        return SmoothFixed(lam=lam, beta=beta, epsilon_claimed=epsilon_s)
    if name == "shifted_laplace":
        return ShiftedLaplace(epsilon_s=epsilon_s, epsilon_t=epsilon_t, eta=eta, b0=b0)
    if name == "ptr":
        return PTR(epsilon_s=epsilon_s, epsilon_t=epsilon_t, eta=eta)
    raise BudgetError(f"calibration must be one of {tuple(SCALE_RULES)} (got {name!r}). Fix: pick one of the list")


def _row(cons: Construction, cal: ScaleRule, rho: float) -> tuple[CalibrationRow, SelectionLaw, SelectionLaw]:
    i, j = cons.focus
    P, Q = cal.law(cons.graph, i), cal.law(cons.graph, j)
    eps, dlt = cal.claim()
    d = law_delta(P, Q, eps)
    gap, fail = cal.regret(cons.graph, i, rho)
    return (CalibrationRow(cal.name, cal.label, cal.private, (eps, dlt), d, d <= dlt + 1e-12,
                           cal.scale(cons.graph, i), cal.scale(cons.graph, j), gap, fail), P, Q)


def selection_lab(preset: str = "path", calibration: str | None = None, *, G: float = 10.0,
                  M: float | None = None, m: int | None = None, C: float = 18.0, lam: float = 0.25,
                  beta: float = 0.5, epsilon_s: float = 1.0, b0: float = 0.01, epsilon_t: float = 1.0,
                  eta: float = 1e-6, rho: float = 0.05, curve: tuple[float, float, int] = (0.0, 6.0, 61)) -> LabView:
    """Everything the Selection Lab shows for one preset and one calibration.

    Parameters
    ----------
    preset : {'path', 'multiplicity'}, default 'path'
        The construction.
    calibration : str, optional
        A key of SCALE_RULES (None = the preset's broken one).
    G, M, m, C, lam, beta : float, float or None, int or None, float, float, float
        The construction (:func:`lab_construction`).
    epsilon_s : float, default 1.0
        The EM's epsilon (and the broken calibrations' claim).
    b0 : float, default 0.01
        Public floor.
    epsilon_t : float, default 1.0
        Scale budget of shifted_laplace / ptr.
    eta : float, default 1e-6
        Failure probability of shifted_laplace / ptr.
    rho : float, default 0.05
        Regret failure probability.
    curve : (float, float, int), default (0.0, 6.0, 61)
        (epsilon min, max, points) of the delta(epsilon) curve.

    Returns
    -------
    LabView
        The laws on the focus edge, the delta(epsilon) curve and the valid calibrations' rows.

    Raises
    ------
    BudgetError
        For bad parameters.
    """
    cons = lab_construction(preset, G=G, M=M, m=m, C=C, lam=lam, beta=beta, epsilon_s=epsilon_s)
    name = PRESET_BROKEN[preset] if calibration is None else calibration
    params = dict(epsilon_s=epsilon_s, b0=b0, lam=lam, beta=beta, epsilon_t=epsilon_t, eta=eta)
    cal = make_lab_calibration(name, **params)
    row, P, Q = _row(cons, cal, rho)
    lo, hi, n = curve
    eps_grid = np.linspace(float(lo), float(hi), int(n))
    deltas = np.array([law_delta(P, Q, float(e)) for e in eps_grid])
    fixes = [_row(cons, make_lab_calibration(v, **params), rho)[0] for v in VALID_SCALE_RULES]
    i, j = cons.focus
    g = cons.graph
    ls = g.local_sensitivity()
    assert (NOT_PRIVATE in row.label) is (not row.private)
    # SelectionGraph.__post_init__ sets counts and group_labels
    labels, counts = cast("list[str]", g.group_labels), cast(np.ndarray, g.counts)
    return LabView(preset, cons.description, (g.names[i], g.names[j]), g.scores[i].copy(), list(labels),
                   counts.copy(), (float(ls[i]), float(ls[j])), row, P.marginal(), Q.marginal(), eps_grid, deltas,
                   fixes)
