"""Shared pieces of the marginal-based baselines (MST, AIM): inputs, marginals, mechanisms.

Neighbouring notion, the exponential mechanism (McSherry & Talwar 2007; zCDP by Cesar &
Rogers 2021), the Private-PGM estimate (McKenna, Sheldon, Miklau 2019) and seeding of
mbi's sampler.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np
import pandas as pd

from ..errors import BudgetError, SchemaError
from ..schema import Schema

NEIGHBOURS = ("replace-one", "add-remove")
SAMPLING = ("round", "sample")


def check_fit_args(method: str, schema: Schema, rows: Any, sampling: str, why: str = "") -> None:
    """The argument checks MST and AIM share.  Raises SchemaError naming the argument:
    fewer than two modeled attributes, a release size that is not an integer >= 1 (or None),
    an unknown ``sampling``."""
    if schema.p < 2:
        raise SchemaError(f"{method} needs at least two modeled attributes{why}")
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1):
        raise SchemaError(f"rows (release size) must be an integer >= 1 or None (got {rows!r})")
    if sampling not in SAMPLING:
        raise SchemaError(f"sampling must be one of {', '.join(SAMPLING)} (got {sampling!r})")


def sensitivities(neighbours: str) -> tuple[float, float]:
    """(marginal l2 sensitivity, selection-score sensitivity) for the neighbouring notion.

    replace-one: (sqrt 2, 2); add-remove: (1, 1).  Raises BudgetError otherwise.
    """
    if neighbours == "replace-one":
        return math.sqrt(2.0), 2.0
    if neighbours == "add-remove":
        return 1.0, 1.0
    raise BudgetError(f"neighbours must be one of {', '.join(NEIGHBOURS)} (got {neighbours!r})")


def encoded_table(schema: Schema, data: Any) -> np.ndarray:
    """A DataFrame (encoded with the schema, which checks the public domain) or an encoded
    (n, p) float matrix (checked for shape and range) -> float64 (n, p).  Raises SchemaError."""
    if isinstance(data, pd.DataFrame):
        return schema.encode(data)
    X = np.asarray(data, dtype=float)
    if X.ndim != 2 or X.shape[1] != schema.p or X.shape[0] < 1:
        raise SchemaError(f"encoded data must be a (n >= 1, p = {schema.p}) matrix (got shape {X.shape})")
    if not np.isfinite(X).all():
        raise SchemaError("encoded data contains NaN or inf")
    for i, a in enumerate(schema.attributes):
        col = X[:, i]
        hi = 1.0 if a.kind in ("numeric", "ordinal") else len(a.levels) - 1
        if col.min() < 0 or col.max() > hi:
            raise SchemaError(f"column '{a.name}': encoded values outside the public domain [0, {hi}]")
        if a.kind not in ("numeric", "ordinal") and not np.all(col == np.round(col)):
            raise SchemaError(f"column '{a.name}': encoded {a.kind} codes must be whole numbers 0..{hi}")
    return X


def counts(codes: np.ndarray, sizes: tuple[int, ...], cols: tuple[int, ...]) -> np.ndarray:
    """Unnormalized marginal over ``cols`` (flattened in C order of cols): float64 (prod sizes,)."""
    flat = np.zeros(codes.shape[0], dtype=np.int64)
    for c in cols:
        flat = flat * sizes[c] + codes[:, c]
    return np.bincount(flat, minlength=int(np.prod([sizes[c] for c in cols]))).astype(float)


def exponential_mechanism(scores: np.ndarray, epsilon: float, sensitivity: float,
                          rng: np.random.Generator) -> int:
    """Index drawn with probability ~ exp(epsilon * score / (2 sensitivity)) (McSherry-Talwar).

    epsilon-DP and epsilon^2/8-zCDP (Cesar & Rogers 2021, bounded range).  Uses the
    Gumbel-max trick (an exact sampler of that distribution).
    """
    logits = epsilon * np.asarray(scores, dtype=float) / (2.0 * sensitivity)
    return int(np.argmax(logits + rng.gumbel(size=logits.size)))


@contextlib.contextmanager
def seeded_global_numpy(seed: int):
    """mbi's sampler draws from numpy's global RandomState: seed it, restore it afterwards."""
    state = np.random.get_state()
    np.random.seed(seed % (2 ** 32))
    try:
        yield
    finally:
        np.random.set_state(state)


def estimate(mbi, domain, measurements, known_total: float, iters: int, warm_start=None):
    """Private-PGM estimate (mirror descent, McKenna, Sheldon, Miklau 2019 Alg. 1) from
    mbi LinearMeasurements; ``warm_start``: a previous model (AIM's rounds)."""
    from mbi import estimation

    return estimation.MirrorDescent().estimate(domain, list(measurements), known_total=float(known_total),
                                               iters=int(iters), warm_start=warm_start)
