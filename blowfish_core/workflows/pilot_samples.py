"""The public-data pilot's public sample: its smallest size, a seeded subset of a public table and a
seeded hold-out split of an uploaded table.

Paper §6.2.4 (pilots of n_p = 3,000 public rows).  Issue 22: split off
:mod:`blowfish_core.workflows.pilot`, which re-exports every name.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..base.errors import BlowfishError

#: smallest public sample the pilot accepts.  Eq. (4) scales the budget by (n_t/n_p)^2 to keep the
#: signal-to-noise ratio of the vote histograms, but with a few dozen records the marginals the
#: pilot scores (PWErr/HOERR over 20 bins or more) are themselves mostly sampling noise, so the
#: pilot's ranking says nothing about the private run (the paper's pilots use n_p = 3,000).
MIN_PILOT_ROWS = 50


def check_pilot_size(n_pilot: Any) -> int:
    """The public sample size n_p, checked: a whole number >= MIN_PILOT_ROWS.

    Parameters
    ----------
    n_pilot : int
        Rows of the public sample.

    Returns
    -------
    int
        n_p.

    Raises
    ------
    BlowfishError
        Naming n_p and why small pilots are refused.
    """
    if isinstance(n_pilot, bool) or not isinstance(n_pilot, (int, np.integer)):
        raise BlowfishError(f"pilot size n_p must be a whole number (got {n_pilot!r})")
    if n_pilot < MIN_PILOT_ROWS:
        raise BlowfishError(
            f"pilot size n_p = {int(n_pilot):,} rows is too small: use at least {MIN_PILOT_ROWS} (the paper uses "
            "3,000). With fewer rows the pilot's marginals are mostly sampling noise, so its ranking of tau "
            "says nothing about the private run")
    return int(n_pilot)


def _rng(seed: int, purpose: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), 4391, int(purpose)]))


def _check_size(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise BlowfishError(f"{name} must be a whole number >= 1 (got {n!r})")
    return int(n)


def subsample(public: pd.DataFrame, n_pilot: int, seed: int = 0) -> pd.DataFrame:
    """A seeded random subset of ``n_pilot`` rows of a public table (all rows when n_pilot == len).

    Rows keep their original order; the input is not modified.

    Parameters
    ----------
    public : pandas.DataFrame
        The public table.
    n_pilot : int
        Rows kept, 1 <= n_pilot <= len(public).
    seed : int, default 0
        Seed of the subset.

    Returns
    -------
    pandas.DataFrame
        The subset, index reset.

    Raises
    ------
    BlowfishError
        When n_pilot < 1 or exceeds the rows available.
    """
    n_pilot = _check_size(n_pilot, "pilot size n_p")
    if n_pilot > len(public):
        raise BlowfishError(f"pilot size n_p = {n_pilot:,} but only {len(public):,} public rows are available. "
                            f"Fix: choose n_p <= {len(public):,}")
    if n_pilot == len(public):
        return public.reset_index(drop=True)
    idx = np.sort(_rng(seed, 1).permutation(len(public))[:n_pilot])
    return public.iloc[idx].reset_index(drop=True)


def holdout_split(table: pd.DataFrame, n_pilot: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split an uploaded table into (private rows, held-out public rows), seeded and disjoint.

    Both parts keep the original row order and columns; the input is not modified.

    Parameters
    ----------
    table : pandas.DataFrame
        The uploaded table.
    n_pilot : int
        Rows held out uniformly at random, 1 <= n_pilot <= len(table) - 1.
    seed : int, default 0
        Seed of the split.

    Returns
    -------
    private, public : pandas.DataFrame
        The two parts, indexes reset.

    Raises
    ------
    BlowfishError
        For a size out of range.
    """
    n_pilot = _check_size(n_pilot, "pilot size n_p")
    if n_pilot >= len(table):
        raise BlowfishError(f"cannot hold out {n_pilot:,} of {len(table):,} rows: the private table would be "
                            f"empty. Fix: choose n_p < {len(table):,}")
    perm = _rng(seed, 2).permutation(len(table))
    pub = np.sort(perm[:n_pilot])
    priv = np.sort(perm[n_pilot:])
    return table.iloc[priv].reset_index(drop=True), table.iloc[pub].reset_index(drop=True)
