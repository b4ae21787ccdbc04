"""Numbers for people: significant figures without '1e-09' notation, exact zeros, temperatures,
tolerances, percentages, noise ratios and intervals (issue 16; split off
:mod:`blowfish_core.workflows.verdicts`, which re-exports every name, issue 22).

Pure functions; no streamlit.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from ..base.errors import BlowfishError
from ..model.votes import check_tau

#: |gap| below this prints as "0 (exact)" (floating-point rounding of an exact zero).
EXACT_ZERO = 1e-12

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_MINUS = "−"  # U+2212, typographic minus


def _finite(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(float(x)):
        raise BlowfishError(f"{name} must be a finite number (got {x!r})")
    return float(x)


def round_sig(x: float, digits: int = 2) -> float:
    """x rounded to ``digits`` significant figures (0.047299 -> 0.047; 0 stays 0).

    For grids a person reads (tau grids, budget grids).

    Parameters
    ----------
    x : float
        A finite number.
    digits : int, default 2
        Significant figures, >= 1.

    Returns
    -------
    float
        The rounded value.

    Raises
    ------
    BlowfishError
        For a non-finite x or digits < 1.
    """
    x = _finite(x, "value")
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise BlowfishError(f"digits must be a whole number >= 1 (got {digits!r})")
    if x == 0:
        return 0.0
    return float(f"{x:.{digits}g}")


def _plain(v: float, digits: int) -> str:
    """v (already rounded) without an exponent, trailing zeros dropped."""
    if v == 0:
        return "0"
    e = math.floor(math.log10(abs(v)))
    decimals = max(0, digits - 1 - e)
    s = f"{v:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    if abs(v) >= 1e4:
        s = f"{int(round(v)):,}"
    return s.replace("-", _MINUS)


def fmt_power(mantissa: float, exponent: int) -> str:
    """'2.7 × 10⁻⁴' (mantissa 1 -> '10⁻⁴').

    Parameters
    ----------
    mantissa : float
        The factor before the power (±1: none).
    exponent : int
        The power of ten.

    Returns
    -------
    str
        The number with a superscript exponent and a typographic minus.
    """
    e = str(int(exponent)).translate(_SUPERSCRIPT)
    if mantissa == 1:
        return f"10{e}"
    if mantissa == -1:
        return f"{_MINUS}10{e}"
    return f"{_plain(mantissa, 6)} × 10{e}"


def fmt_sig(x: float | None, digits: int = 2) -> str:
    """A number for people: ``digits`` significant figures, no '1e-09' notation.

    Plain decimals for 1e-4 <= |x| < 1e6 (0.00027, 0.069, 5.5, 12,000); powers of ten
    outside ('2.7 × 10⁻⁵', '10⁻⁹'); None -> '—', inf -> '∞', a typographic minus.

    Parameters
    ----------
    x : float or None
        The number.
    digits : int, default 2
        Significant figures, >= 1.

    Returns
    -------
    str
        The formatted number.

    Raises
    ------
    BlowfishError
        For NaN or digits < 1 (:func:`round_sig`).
    """
    if x is None:
        return "—"
    if isinstance(x, numbers.Real) and math.isinf(float(x)):
        return "∞" if x > 0 else f"{_MINUS}∞"
    v = round_sig(x, digits)
    if v == 0:
        return "0"
    if 1e-4 <= abs(v) < 1e6:
        return _plain(v, digits)
    return _power_form(v, digits)


def _power_form(v: float, digits: int) -> str:
    """A non-zero ``v`` (already rounded to ``digits``) as mantissa × 10^e (:func:`fmt_power`)."""
    e = math.floor(math.log10(abs(v)))
    mant = round_sig(v / 10.0 ** e, digits)
    if abs(mant) >= 10:  # 9.96e-5 rounds up to 1.0e-4
        mant, e = mant / 10.0, e + 1
    return fmt_power(mant, e)


def fmt_delta(delta: float | None, digits: int = 2) -> str:
    """A δ, one format wherever δ is offered or shown (issue 24 item 10): always a power of ten below 1
    ('10⁻⁴', '10⁻⁵', '2.5 × 10⁻⁶'), never '0.0001' beside '10⁻⁵'; 0 as '0', None as '—'.

    Parameters
    ----------
    delta : float or None
        The δ of an (ε, δ) statement.
    digits : int, default 2
        Significant figures of the mantissa, >= 1.

    Returns
    -------
    str
        The δ with a superscript exponent ('10⁻⁵'); a δ of 1e-3 or more in :func:`fmt_sig` form.

    Raises
    ------
    BlowfishError
        For NaN or digits < 1 (:func:`round_sig`).
    """
    if delta is None:
        return "—"
    v = round_sig(delta, digits)
    if v == 0 or not 0 < abs(v) < 1e-3:
        return fmt_sig(delta, digits)
    return _power_form(v, digits)


def fmt_crossing(epsilon: float | None) -> str:
    """The crossing epsilon of a budget sweep, as every place shows it (the sweep's verdict headline,
    the chart's marker, the metric): two significant figures, one formatting (issue 24).

    Parameters
    ----------
    epsilon : float or None
        The crossing epsilon (sweeps.SweepResult.crossing_epsilon_exact).

    Returns
    -------
    str
        E.g. '0.15'; '—' for None.

    Raises
    ------
    BlowfishError
        For NaN (:func:`fmt_sig`).
    """
    return fmt_sig(epsilon, 2)


def fmt_gap(x: float | None, digits: int = 3) -> str:
    """A difference that is exactly zero in theory: '0 (exact)' when |x| < 1e-12 (no 2.22e-16).

    Parameters
    ----------
    x : float or None
        The difference (None -> '—').
    digits : int, default 3
        Significant figures otherwise.

    Returns
    -------
    str
        The formatted difference.

    Raises
    ------
    BlowfishError
        For a non-finite x.
    """
    if x is None:
        return "—"
    x = _finite(x, "gap")
    if abs(x) < EXACT_ZERO:
        return "0 (exact)"
    return fmt_sig(x, digits)


def fmt_tau(tau: float) -> str:
    """A temperature shown in a grid or a label: 2 significant figures (0.047299 -> '0.047').

    Parameters
    ----------
    tau : float
        Softmax temperature, > 0.

    Returns
    -------
    str
        The formatted temperature.

    Raises
    ------
    BudgetError
        For a tau <= 0 (votes.check_tau).
    """
    return fmt_sig(check_tau(tau), 2)


def tau_grid_for_people(taus: Sequence[float]) -> list[float]:
    """A tau grid rounded to 2 significant figures, duplicates dropped, sorted (0.047299 -> 0.047).

    Parameters
    ----------
    taus : sequence of float
        Softmax temperatures, > 0.

    Returns
    -------
    list of float
        The rounded grid, ascending.

    Raises
    ------
    BudgetError
        For a tau <= 0 (votes.check_tau).
    """
    return sorted({round_sig(check_tau(t), 2) for t in taus})


def fmt_tolerance(tol: float) -> str:
    """A tolerance in words: 0 -> '0 (exact ties only)', 1e-9 -> '10⁻⁹ (floating-point rounding only)',
    0.005 -> '0.005'.  Never '1e-09'.

    Parameters
    ----------
    tol : float
        The tolerance, finite and >= 0.

    Returns
    -------
    str
        The tolerance in words.

    Raises
    ------
    BlowfishError
        For a non-finite or negative tolerance.
    """
    tol = _finite(tol, "tolerance")
    if tol < 0:
        raise BlowfishError(f"tolerance must be >= 0 (got {tol!r})")
    if tol == 0:
        return "0 (exact ties only)"
    text = fmt_sig(tol, 2)
    if tol <= 1e-6:
        text += " (floating-point rounding only)"
    return text


def fmt_percent(x: float | None, decimals: int = 1, signed: bool = False) -> str:
    """'14.6%' (signed=True: '+14.6%' / '−14.9%'); None -> '—'.

    Parameters
    ----------
    x : float or None
        The value, in percent.
    decimals : int, default 1
        Decimals shown.
    signed : bool, default False
        Show '+' before a positive value.

    Returns
    -------
    str
        The formatted percentage.

    Raises
    ------
    BlowfishError
        For a non-finite x.
    """
    if x is None:
        return "—"
    x = _finite(x, "percent")
    s = f"{abs(x):.{decimals}f}%"
    if x < 0 and s.strip("0.%"):
        return _MINUS + s
    return ("+" + s) if signed and x > 0 else s


def fmt_q(q: float) -> str:
    """Noise ratio q: 2 decimals from 0.1 up ('0.43', '1.00'), 2 significant figures below.

    Parameters
    ----------
    q : float
        The noise ratio.

    Returns
    -------
    str
        The formatted ratio.

    Raises
    ------
    BlowfishError
        For a non-finite q.
    """
    q = _finite(q, "q")
    return f"{q:.2f}" if q == 0 or abs(q) >= 0.1 else fmt_sig(q, 2)


def fmt_interval(lo: float, hi: float, percent: bool = False) -> str:
    """'[−82%, 52%]' / '[0.11, 0.24]'.

    Parameters
    ----------
    lo, hi : float
        The interval's ends.
    percent : bool, default False
        The ends are percentages (0 decimals from 10% up, else 1); else 3 significant figures.

    Returns
    -------
    str
        The formatted interval.
    """
    if percent:
        return f"[{fmt_percent(lo, 0 if max(abs(lo), abs(hi)) >= 10 else 1)}, " \
               f"{fmt_percent(hi, 0 if max(abs(lo), abs(hi)) >= 10 else 1)}]"
    return f"[{fmt_sig(lo, 3)}, {fmt_sig(hi, 3)}]"
