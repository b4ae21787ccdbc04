"""Small input checks that the CLI and the app share (issue 11, "smaller items").

Each function raises the engine's error type with a message naming the field, the
value and the fix, instead of a traceback or a misleading message later in the run.
"""

from __future__ import annotations

import math
import sys

from .errors import BlowfishError, BudgetError, SchemaError

#: cap on generated XOR-k private records (``--n``): 1,000,000 rows (about 100 MB
#: for the table and its encoding); the paper uses 12,000.  Uncapped, --n 10^9 filled
#: 9.4 GB in 90 s before failing.
MAX_GENERATED_ROWS = 1_000_000
#: integer attributes: bounds must be whole numbers float64 holds exactly (|v| <= 2^53);
#: beyond it (and certainly from 2^63 on) sampling and decoding would overflow int64.
MAX_EXACT_INTEGER = 2**53


def check_generated_n(n: int | None, flag: str = "n") -> int | None:
    """The number of generated XOR-k records: None (default) or a whole number in [1, MAX_GENERATED_ROWS].

    Parameters
    ----------
    n : int or None
        The number of records asked for.
    flag : str
        The field's name in messages.

    Returns
    -------
    int or None
        ``n`` as given.

    Raises
    ------
    BlowfishError
        Naming ``flag``, if ``n`` is not a whole number, is < 1 or is above MAX_GENERATED_ROWS.
    """
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int):
        raise BlowfishError(f"{flag} must be a whole number (got {n!r})")
    if n < 1:
        raise BlowfishError(f"{flag} must be >= 1 (got {n})")
    if n > MAX_GENERATED_ROWS:
        raise BlowfishError(
            f"{flag} = {n:,} generated records is above the cap of {MAX_GENERATED_ROWS:,}. "
            f"Fix: use at most {MAX_GENERATED_ROWS:,} (the paper's XOR-3 uses 12,000)"
        )
    return n


def check_tau_normal(tau: float, flag: str = "tau") -> float:
    """A temperature must be a finite, *normal* float > 0 (>= 2.2e-308).

    A subnormal tau (e.g. 1e-320) makes 1/tau overflow to inf, and the soft vote turns
    into NaN (0 * inf) -- which used to surface as "no candidate survived the threshold
    H".

    Parameters
    ----------
    tau : float
        The softmax temperature.
    flag : str
        The field's name in messages.

    Returns
    -------
    float
        ``tau`` as a float.

    Raises
    ------
    BudgetError
        Naming ``flag``, if ``tau`` is not a finite number > 0 or is below the smallest normal float.
    """
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not math.isfinite(float(tau)) or tau <= 0:
        raise BudgetError(f"{flag} must be a finite number > 0 (got {tau!r}). Fix: use a positive temperature "
                          "such as 0.03")
    if float(tau) < sys.float_info.min:
        raise BudgetError(
            f"{flag} = {float(tau)!r} is below the smallest normal float ({sys.float_info.min:.3g}): 1/{flag} "
            "overflows and the soft vote cannot be computed. Fix: use a temperature such as 0.03 (a tau far below "
            "the reach already votes like Hard; use the hard method for that)"
        )
    return float(tau)


def check_integer_bounds(schema) -> None:
    """Integer numeric attributes need bounds with |lo|, |hi| <= 2^53 (MAX_EXACT_INTEGER).

    Parameters
    ----------
    schema : Schema
        A blowfish_core Schema.

    Raises
    ------
    SchemaError
        Naming the attribute, the bound and the fix, if an integer bound is beyond +-2^53 (bounds
        >= 2^63 used to crash with a traceback in the uniform sampler).
    """
    for a in schema.attributes:
        if not getattr(a, "bounded", False) or not getattr(a, "integer", False):  # integer numeric types
            continue
        for key in ("lo", "hi"):
            v = getattr(a, key)
            if v is not None and abs(float(v)) > MAX_EXACT_INTEGER:
                raise SchemaError(
                    f"attribute '{a.name}': integer bound {key}={_whole(v)} is beyond +-2^53 "
                    f"({MAX_EXACT_INTEGER:,}), the largest whole numbers the engine represents exactly. "
                    "Fix: rescale the attribute (e.g. thousands) or declare it non-integer (\"integer\": false)"
                )


def _whole(v: float) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else repr(f)


def check_seeds(seeds) -> list[int]:
    """Paired seeds, returned as given.

    The one check of a seed's type and range (RunSpec, Synthesizer, RunSettings).

    Parameters
    ----------
    seeds : list of int
        Seeds >= 0; numpy integers accepted.

    Returns
    -------
    list of int
        The seeds as given.

    Raises
    ------
    BlowfishError
        Structured (field 'seeds': ``--seeds`` on the CLI, the Seeds box in the app; its API text
        is "seeds must be whole numbers >= 0 (got ...)"), for a bool, a non-integer or a negative
        seed.
    """
    import numpy as np

    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise BlowfishError.of("{seeds_at}seeds must be whole numbers >= 0 (got {got!r})", field="seeds", got=s)
    return list(seeds)
