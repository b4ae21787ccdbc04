"""The mechanism tables and :func:`register`, the one way an entry gets into them (issue 22).

A mechanism module defines its class(es) and, at the bottom, registers its instance(s)::

    register(Laplace(), release=LaplaceOpenDP())

``mechanisms/__init__.py`` imports each module once (that import line is the table line: the
import order is the order of :data:`MECHANISMS`).  The tables are filled here and read through
the package (``from blowfish_core.privacy.mechanisms import MECHANISMS``); this module imports
nothing of the package, so no module of it imports the package back (no import circle).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from ...base.errors import BlowfishError
from ..ledger import LedgerRow
from ...model.sensitivity import Calibration


class Mechanism(Protocol):
    """name: ledger name; norm: 'l2' or 'l1'; budget_name: 'rho' or 'epsilon'; the declared
    capabilities label, scale_name, accountant, samples and needs_public (read instead of the name).

    The attributes are read-only (frozen dataclass fields or class constants).  ``row`` takes the
    round's release parameters after ``cal``: ``scale, budget_t`` for an additive mechanism, the
    :class:`~.pubmix.SamplingPlan` for a sampling one (``samples = True``; those also have ``plan``,
    ``noise_distribution`` and ``draw``, see :class:`~.pubmix.PubMix`).
    """

    @property
    def name(self) -> str: ...

    @property
    def norm(self) -> str: ...

    @property
    def budget_name(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def scale_name(self) -> str: ...

    @property
    def accountant(self) -> str: ...

    @property
    def samples(self) -> bool: ...

    @property
    def needs_public(self) -> bool: ...

    # checked=True (split, scale, totals): the values come from a checked run (RunSpec.build, the round
    # loop); the mechanism checks only what it computes anew (rounds and weights, the sensitivity)
    def split(self, budget: float, rounds: int, weights: Sequence[float] | None = None, *,
              checked: bool = False) -> np.ndarray: ...

    def scale(self, sensitivity: float, budget_t: float, *, checked: bool = False) -> float: ...

    def noise(self, scale: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray: ...

    def release(self, hist: np.ndarray, scale: float, rng: np.random.Generator,
                integer: bool = False) -> np.ndarray: ...

    def row(self, t: int, candidates: int, cal: Calibration, *args: Any, **extra: Any) -> LedgerRow: ...

    def totals(self, rows: Sequence[LedgerRow], delta: float, total: float | None = None, *,
               checked: bool = False) -> dict[str, Any]: ...

    def pld(self, row: LedgerRow, pld: Any, discretization: float) -> Any: ...


#: name -> mechanism instance (the only mechanism registry): the study entries (sampler 'numpy').
MECHANISMS: dict[str, Mechanism] = {}
#: (name, sampler) -> the same mechanism with another noise sampler (release mode).
#: PubMix/LinMix's release entry samples exactly (sampler 'exact', PubMixExact) under the 'opendp' key
#: release streams ask for.
SAMPLED: dict[tuple[str, str], Mechanism] = {}
#: mechanisms that release a choice, not a histogram: ledger rows only, not a ``--mechanism`` of synth.
SELECTION_MECHANISMS: dict[str, Any] = {}
#: the noise samplers a release variant may be registered under (besides the study sampler 'numpy').
RELEASE_SAMPLER = "opendp"

_M = TypeVar("_M")


def _check_new(name: Any) -> str:
    if not isinstance(name, str) or not name or name != name.strip().lower():
        raise BlowfishError(f"mechanism name {name!r} must be a non-empty lower-case string. Fix: set its name field")
    if name in MECHANISMS or name in SELECTION_MECHANISMS:
        raise BlowfishError(f"mechanism {name!r} is registered twice. Fix: give the new mechanism its own name")
    return name


def register(mechanism: _M, release: Any = None, *, selection: bool = False) -> _M:
    """Register a mechanism instance (and its release variant) in the tables.

    Parameters
    ----------
    mechanism : Mechanism
        The study entry (``sampler = "numpy"``): a frozen instance with the attributes and methods
        of :class:`Mechanism` (or, with ``selection``, a selection mechanism such as
        :class:`~.exponential.Exponential`).
    release : Mechanism, optional
        The same mechanism with a floating-point-safe release sampler (``GaussianOpenDP``,
        ``PubMixExact``): registered in :data:`SAMPLED` under ``(name, "opendp")``.  Without one, an
        unseeded release with this mechanism is refused (never a silent numpy fallback).
    selection : bool, default False
        Register in :data:`SELECTION_MECHANISMS` (a choice's ledger row, not a histogram mechanism).

    Returns
    -------
    Mechanism
        ``mechanism`` itself (so a module may write ``GAUSSIAN = register(Gaussian(), ...)``).

    Raises
    ------
    BlowfishError
        For a name already registered, a name that is not a lower-case string, a study entry whose
        sampler is not 'numpy', or a release variant of another name or with the 'numpy' sampler.
    """
    name = _check_new(getattr(mechanism, "name", None))
    if getattr(mechanism, "sampler", "numpy") != "numpy":
        raise BlowfishError(f"mechanism {name!r}: the registered entry is the study sampler ('numpy'). "
                            "Fix: register the other sampler as release=")
    if release is not None:
        if selection:
            raise BlowfishError(f"mechanism {name!r}: a selection mechanism draws its release itself. "
                                "Fix: drop release=")
        if getattr(release, "name", None) != name:
            raise BlowfishError(f"mechanism {name!r}: its release variant is named "
                                f"{getattr(release, 'name', None)!r}. Fix: give both the same name")
        if getattr(release, "sampler", "numpy") == "numpy":
            # a dataclass subclass of (the study entry, the parent's release variant) takes the study
            # entry's sampler default: the variant would draw numpy noise in a release
            raise BlowfishError(f"mechanism {name!r}: its release variant {type(release).__name__} has sampler "
                                "'numpy'. Fix: restate the field in the variant, sampler: str = \"opendp\"")
    if selection:
        SELECTION_MECHANISMS[name] = mechanism
    else:
        MECHANISMS[name] = mechanism  # type: ignore[assignment]
        if release is not None:
            SAMPLED[(name, RELEASE_SAMPLER)] = release
    return mechanism
