"""What the audit knows: the engine's and the deliberately broken calibrations (Gaussian and
Laplace), the suites' cases and the default audit setting."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...algorithm.methods import BF_SOFT, HARD, TAB_PE
from ...model.policy import AttributePolicy, Policy
from ...model.domain import FrozenList
from ...model.schema import Attribute, Schema

#: calibrations the audit knows: the engine's own ("correct") and deliberately broken ones.
CALIBRATIONS = ("correct", "soft-small-reach", "hard-zero", "soft-local", "hard-local")
#: broken calibration -> (method it applies to, description)
BROKEN_CALIBRATIONS = {
    "soft-small-reach": (BF_SOFT.name, "BF-Soft bound computed with reach r/10 instead of r"),
    "hard-zero": (HARD.name, "Hard calibrated to 0 although a crossing edge exists"),
    "soft-local": (BF_SOFT.name, "BF-Soft noise from the local sensitivity of the records at hand"),
    "hard-local": (HARD.name, "Hard noise from the local sensitivity of the records at hand"),
}
#: the audit suite: (method, calibration, expected verdict: True = must pass).
AUDIT_CASES = (
    (TAB_PE.name, "correct", True),
    (HARD.name, "correct", True),
    (BF_SOFT.name, "correct", True),
    (BF_SOFT.name, "soft-small-reach", False),
    (HARD.name, "hard-zero", False),
    (BF_SOFT.name, "soft-local", False),
    (HARD.name, "hard-local", False),
)
#: methods the audit covers (its setting has one hard and one soft vote).
AUDITED_METHODS = (TAB_PE.name, HARD.name, BF_SOFT.name)
#: broken Laplace calibration (any method): the scale divided by 4, so the round spends 4 epsilon_t.
LAPLACE_BROKEN = {"quarter-scale": "Laplace scale b_t / 4 (claims epsilon_t, spends 4 epsilon_t)"}
#: the Laplace (pure epsilon) audit suite: (method, calibration, expected verdict).
LAPLACE_AUDIT_CASES = (
    (TAB_PE.name, "correct", True),
    (HARD.name, "correct", True),
    (BF_SOFT.name, "correct", True),
    (HARD.name, "quarter-scale", False),
    (BF_SOFT.name, "quarter-scale", False),
)
#: per-round epsilon of the Laplace audit (claims pure epsilon_t = 1).
LAPLACE_EPSILON_T = 1.0
#: largest enumerated domain (points) for the edge search.
MAX_AUDIT_POINTS = 20_000
_CHUNK = 1 << 16


# --------------------------------------------------------------------- setting
@dataclass(frozen=True)
class AuditSetting:
    """A small public setting for the audit.

    schema: finite schema (every attribute enumerable, at most MAX_AUDIT_POINTS records).
    policy: substitution edges only (no participation edges).
    C: (m, p) float64 encoded public candidate population.
    tau: temperature of BF-Soft (> 0).
    background: (n0, p) float64 encoded records shared by D and D'.
    """

    schema: Schema
    policy: Policy
    C: np.ndarray
    tau: float
    background: np.ndarray


def default_setting() -> AuditSetting:
    """The audit's small domain.

    X1 ordinal 0..15, X2 ordinal 0..3 (Gower weights 1/2); policy: X1 one level
    (record-level reach r = 1/30 Gower units); tau = 0.025 (q = tanh(2/3) = 0.583);
    candidates at X1 in {0, 15} x X2 in {0..3} (m = 8), so the protected pair
    (7, 8) sits symmetrically between two candidates -- the configuration in which
    the BF-Soft bound is nearly tight (Prop. 5.6) -- and Hard has a crossing.
    Background: one record on each candidate (far from every decision boundary).

    Returns
    -------
    AuditSetting
        The setting above (C and background (8, 2) float64).
    """
    schema = Schema(FrozenList([
        Attribute("X1", "ordinal", levels=list(range(16))),
        Attribute("X2", "ordinal", levels=list(range(4))),
    ]))
    policy = Policy({"X1": AttributePolicy("threshold", theta=1)}).validate(schema)
    C = np.array([[x1 / 15.0, x2 / 3.0] for x1 in (0, 15) for x2 in range(4)], dtype=float)
    return AuditSetting(schema, policy, C, 0.025, C.copy())


def positive_scale(text: str) -> float:
    """argparse type of ``--sensitivity-scale``: a finite number > 0.

    Parameters
    ----------
    text : str
        The flag's value.

    Returns
    -------
    float
        The scale, finite and > 0.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a number, or not a finite number > 0.
    """
    import argparse

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v > 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0 (got {text})")
    return v


def add_audit_args(ap) -> None:
    """The audit scripts' shared flags (benchmarks/audit_privacy.py, audit_opendp.py; issue 21 contract).

    ``--method M`` (one of AUDITED_METHODS or 'all') and ``--sensitivity-scale S`` (> 0, default 1:
    multiplies the engine's calibration; 0.5 must FAIL).

    Parameters
    ----------
    ap : argparse.ArgumentParser
        The parser the flags are added to (in place).
    """
    ap.add_argument("--method", default="all", choices=(*AUDITED_METHODS, "all"),
                    help="audit this method's cases only (default all)")
    ap.add_argument("--sensitivity-scale", type=positive_scale, default=1.0,
                    help="multiply the engine's calibration by this factor (default 1; 0.5 must FAIL)")
