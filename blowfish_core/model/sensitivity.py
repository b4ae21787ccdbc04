"""Sensitivity and per-round calibration of the vote histogram (paper §5, Table 1).

All calibrations depend only on the policy, tau, the public domain and the current
candidate population -- never on private records (DESIGN §7).

* Tab-PE: Delta = sqrt(2) (bounded DP, one record moves its vote).
* Hard: exact policy-specific sensitivity for the current population (Cor. 5.3):
  sqrt(2) if some protected record-level edge (u, v) has nn(u) != nn(v), else 0.
  A fast crossing search certifies sqrt(2); 0 is certified only by an exhaustive
  search when the record-level edge set is small enough; otherwise we fall back to
  sqrt(2) and record "fallback".
* BF-Soft: Delta = sqrt(2) tanh(r / (2 tau)) (Cor. 5.5), r the record-level reach, padded by the
  relative margin SOFT_BOUND_PAD for the float64 rounding of the computed soft vote.
* Soft vote at standard DP: r = the whole Gower diameter (sum of weights).
* Participation edges (§5.6, Remark 3): Delta >= 1 for either vote (calibration.calibrate_round).

l1 versions (Laplace variant): hard 2, soft 2 tanh(r / (2 tau)) (same pad).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .gower_kernel import GowerKernel
from .edges import CONTINUOUS_GRID, iter_edge_blocks, search_edges  # noqa: F401  (CONTINUOUS_GRID re-exported)
from .policy import Policy, ValueEdges, record_edge_count
from .schema import Schema
from ..base.errors import BudgetError
from .votes import check_tau

SQRT2 = math.sqrt(2.0)

#: exhaustive certification of Hard's 0 is attempted up to this many record-level edges.
DEFAULT_MAX_EDGES = 200_000
#: candidate contexts tried by the crossing search before exhaustive/fallback.
CROSSING_CONTEXTS = 256
#: the smallest noise ratio q = tanh(r / (2 tau)) a soft vote may run at (docs/DECISIONS.md
#: "tau floor"): below it the soft vote is uniform to 1e-6 and sigma_t is near float rounding.
MIN_NOISE_RATIO = 1e-6
#: relative margin (dimensionless) added to BF-Soft's closed-form bound (Cor. 5.5), see :func:`soft_bound`.
SOFT_BOUND_PAD = 1e-9


def noise_ratio(reach: float, tau: float) -> float:
    """Noise ratio q = tanh(r / (2 tau)) = sigma_BF-Soft / sigma_Hard (§6.1).

    Parameters
    ----------
    reach : float
        Record-level reach r in Gower units, >= 0.
    tau : float
        Softmax temperature, > 0.

    Returns
    -------
    float
        q, in [0, 1].

    Raises
    ------
    BudgetError
        For a bad tau.
    ValueError
        For a reach that is negative or not finite.
    """
    return _noise_ratio(reach, check_tau(tau))


def _noise_ratio(reach: float, tau: float) -> float:
    """:func:`noise_ratio` for a tau already checked (a RunSpec carries it): only the reach is checked."""
    if reach < 0 or not math.isfinite(reach):
        raise ValueError(f"reach must be a finite number >= 0 (got {reach})")
    return float(math.tanh(reach / 2.0 / tau))  # not reach / (2 tau): 2 tau overflows for tau > 8.9e307


def check_noise_ratio(reach: float, tau: float, what: str = "the policy's record-level reach") -> float:
    """q = noise_ratio(reach, tau), refused below MIN_NOISE_RATIO (reach > 0).

    A reach of 0 is not refused here (an empty policy has its own refusal, spec.EMPTY_POLICY_MESSAGE).

    Parameters
    ----------
    reach : float
        Record-level reach r in Gower units, >= 0.
    tau : float
        Softmax temperature, > 0.
    what : str
        What the reach is, in the message.

    Returns
    -------
    float
        q.

    Raises
    ------
    BudgetError
        Naming tau, with a tau that works (the reach itself: q = tanh(1/2) = 0.46), when
        q < MIN_NOISE_RATIO; or for a bad tau (:func:`noise_ratio`).
    ValueError
        For a bad reach (:func:`noise_ratio`).
    """
    return _check_noise_ratio(reach, check_tau(tau), what)


def _check_noise_ratio(reach: float, tau: float, what: str = "the policy's record-level reach") -> float:
    """:func:`check_noise_ratio` for a tau already checked (RunSpec.build): the tau floor only."""
    q = _noise_ratio(reach, tau)
    if reach > 0 and q < MIN_NOISE_RATIO:
        raise BudgetError(
            f"tau = {tau:g} is too large for {what} r = {reach:.4g}: the noise ratio q = tanh(r / (2 tau)) = "
            f"{q:.3g}" + (f" ({q!r})" if f"{q:.3g}" == f"{MIN_NOISE_RATIO:g}" else "") + f" is below {MIN_NOISE_RATIO:g}: its sensitivity and noise (q times Hard's) would be near float "
            f"rounding, a release with almost no noise. Fix: use tau at most about r, e.g. tau {reach:.3g} (q = 0.46), or tau 0.03 as in the paper")
    return q


def soft_bound(reach: float, tau: float, norm: str = "l2", pad: float = SOFT_BOUND_PAD) -> float:
    """BF-Soft's sensitivity as calibrated: the closed-form bound of Cor. 5.5, padded for float64.

    The value is valid for every candidate population.

    The pad (:data:`SOFT_BOUND_PAD` = 1e-9 by default; 0 gives the paper's value): Cor. 5.5
    bounds the change of the *exact* softmax, but the engine releases the float64 softmax rows
    (votes.soft_rows), which are off by a few ulps per entry.  At a pair that attains the bound
    (two candidates, the pair symmetric between them, Prop. 5.6) the computed change exceeds the
    exact bound: issue 21 measured a relative 7.3e-13; over 3,000 random attaining pairs (mixed
    schemas, q from 1 down to MIN_NOISE_RATIO = 1e-6) at most 2.8e-11, about 0.7 u / q at small q
    (u = 2^-53: cancellation in the difference of two nearly equal rows) and up to 5e-13 near q = 1
    (rounding of the Gower distances).  1e-9 covers that 35 times over, and a relative 1e-9 more
    noise changes no release visibly (the rows of the seeded releases pinned in tests are
    byte-identical; the ledger's sensitivity_t and sigma_t move in the 9th significant digit).
    The pad covers the per-record vote rows, not the summation of a histogram over n records
    (absolute rounding of order n u; docs/PRIVACY.md §9).

    The l2 value is capped at SQRT2 (Hard's, so BF-Soft is never noisier than Hard): any two
    computed rows (entries in [0, 1], sums within gamma = m u of 1) differ by at most
    ``sqrt(2) sqrt(1 + 4 gamma^2)`` in l2, less than the float SQRT2 (which exceeds sqrt(2) by
    7e-17 relative).  No such cap holds in l1 (the sums' rounding enters linearly), so there the
    padded value stands, 2 (1 + pad) at q = 1.

    Parameters
    ----------
    reach : float
        Record-level reach r in Gower units, >= 0 (Cor. 5.2).
    tau : float
        Softmax temperature, > 0.
    norm : str
        'l2' (Gaussian) or 'l1' (Laplace).
    pad : float
        Relative margin, dimensionless.

    Returns
    -------
    float
        ``min(sqrt(2) tanh(r / (2 tau)) (1 + pad), sqrt(2))`` (norm 'l2') or
        ``2 tanh(r / (2 tau)) (1 + pad)`` ('l1'), in vote-histogram units.

    Raises
    ------
    BudgetError
        For a bad tau (:func:`noise_ratio`).
    ValueError
        For a bad reach (:func:`noise_ratio`).
    """
    return _soft_bound(reach, check_tau(tau), norm, pad)


def _soft_bound(reach: float, tau: float, norm: str = "l2", pad: float = SOFT_BOUND_PAD) -> float:
    """:func:`soft_bound` for a tau already checked (a RunSpec's, the round loop's): nothing re-checked
    but the reach."""
    q = _noise_ratio(reach, tau)
    if norm == "l2":
        return min(SQRT2 * q * (1.0 + pad), SQRT2)
    return 2.0 * q * (1.0 + pad)


def tau_for_noise_ratio(reach: float, q: float) -> float:
    """Matched noise ratio (App. F.4): tau = r / (2 atanh(q)).

    Parameters
    ----------
    reach : float
        Record-level reach r in Gower units.
    q : float
        The noise ratio, 0 < q < 1.

    Returns
    -------
    float
        tau, in Gower units.

    Raises
    ------
    ValueError
        If q is not in (0, 1).
    """
    if not 0 < q < 1:
        raise ValueError(f"q must be in (0, 1) (got {q})")
    return reach / (2.0 * math.atanh(q))


def standard_dp_reach(schema: Schema) -> float:
    """Record-level reach of the complete record graph: the Gower diameter sum_i w_i.

    Parameters
    ----------
    schema : Schema
        The schema (its Gower weights).

    Returns
    -------
    float
        The reach, in Gower units.
    """
    return schema.gower_diameter


@dataclass(frozen=True)
class Calibration:
    """Sensitivity of one round's release.

    sensitivity: Delta_t in the requested norm (l2 by default, vote-histogram units).  how: 'global'
    (Tab-PE's sqrt(2)), 'bound' (Cor. 5.5), 'certified-crossing', 'exhaustive-zero', 'fallback', or
    'participation-floor'.  witness: for a certified crossing, the edge found (decoded values), else None.
    """

    sensitivity: float
    how: str
    witness: dict[str, Any] | None = None  # a :class:`Witness` for a certified crossing
    edges_checked: int = 0
    notes: list[str] = field(default_factory=list)


def hard_sensitivity(
    schema: Schema,
    policy: Policy,
    C: np.ndarray,
    max_edges: float = DEFAULT_MAX_EDGES,
    contexts: int = CROSSING_CONTEXTS,
    kernel: GowerKernel | None = None,
) -> Calibration:
    """Exact policy-specific l2 sensitivity of the hard vote for population C (Cor. 5.3).

    The participation floor (Delta >= 1) is applied by calibration.calibrate_round, not here.

    Parameters
    ----------
    schema : Schema
        The schema.
    policy : Policy
        The policy graphs.
    C : (m, p) float64 ndarray
        Encoded candidates.
    max_edges : float
        Exhaustive certification of 0 is attempted up to this many record-level edges.
    contexts : int
        Candidate contexts tried by the crossing search.
    kernel : GowerKernel or None
        A kernel over ``C`` to reuse; None builds one.

    Returns
    -------
    Calibration
        sensitivity in {0, sqrt(2)}, how: 'certified-crossing' (a protected edge whose endpoints have
        different nearest candidates, reported as ``witness``), 'exhaustive-zero' (every
        record-level edge checked, none crosses; only when there are at most ``max_edges`` of
        them and every attribute is enumerable) or 'fallback' (sqrt(2) without a certificate).
    """
    k = kernel if kernel is not None else GowerKernel(schema, C)
    protected = policy.protected(schema)
    if not protected:
        return Calibration(0.0, "exhaustive-zero", notes=["no protected edge: the policy graph is empty"])
    attrs = [schema.index(name) for name in protected]
    # 1. fast crossing search with contexts taken from the (public) candidates
    ctx = k.sorted_distinct()[:contexts]  # np.unique(C, axis=0)'s rows, from the vote's sort
    searched: list[ValueEdges | None] = [None] * schema.p
    for i in attrs:
        a = schema.attributes[i]
        searched[i] = search_edges(a, policy.policy_for(a.name), crossing_only=True)
    hit, checked = _first_crossing(schema, k, iter_edge_blocks(searched, _search_batch, contexts=ctx, attrs=attrs))
    if hit is not None:
        return Calibration(SQRT2, "certified-crossing", witness=hit, edges_checked=checked)
    # 2. exhaustive certification of 0 where the record-level edge set is small enough
    total = record_edge_count(schema, policy)
    if total <= max_edges:
        # every attribute is enumerable here: contexts are the product of the other domains
        grid = [searched[j] if searched[j] is not None else ValueEdges(a.domain_codes(), _NO_PAIR, _NO_PAIR)
                for j, a in enumerate(schema.attributes)]
        hit, n = _first_crossing(schema, k, iter_edge_blocks(grid, _search_batch, attrs=attrs))
        checked += n
        if hit is not None:
            return Calibration(SQRT2, "certified-crossing", witness=hit, edges_checked=checked)
        return Calibration(0.0, "exhaustive-zero", edges_checked=checked)
    note = (
        f"no crossing found among {len(ctx)} candidate contexts and the record-level edge set "
        f"({'infinite' if math.isinf(total) else int(total)} edges) exceeds the exhaustive limit "
        f"({int(max_edges)}): calibrated to sqrt(2) without a certificate"
    )
    return Calibration(SQRT2, "fallback", edges_checked=checked, notes=[note])


_NO_PAIR = np.zeros(0, dtype=np.intp)


def _search_batch(i: int, ve: ValueEdges, n_ctx: int, batch: int = 16) -> int:
    """Contexts per block of the crossing search: at most 16 and about 65,536 records."""
    return max(1, min(batch, 65536 // max(ve.size, 1)))


def attribute_edge_grid(
    schema: Schema, policy: Policy, name: str, crossing_only: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The values and protected pairs of :func:`blowfish_core.model.edges.search_edges` for ``name``.

    Parameters
    ----------
    schema : Schema
        The schema.
    policy : Policy
        The policy graphs.
    name : str
        An attribute name.
    crossing_only : bool
        Keep only consecutive pairs of a threshold on an ordered domain.

    Returns
    -------
    codes : (L,) float64 ndarray
        Encoded values.
    e0, e1 : (E,) int ndarray
        The pairs, indices into ``codes``.
    """
    ve = search_edges(schema[name], policy.policy_for(name), crossing_only)
    return ve.codes, ve.e0, ve.e1


def _first_crossing(schema: Schema, k: GowerKernel, blocks) -> tuple[Witness | None, int]:
    """The first record-level edge (in enumeration order) whose endpoints have different
    nearest candidates.  Returns (witness or None, edges checked).

    The nearest candidates of a block's records come from :meth:`GowerKernel.nearest_lines` (the
    vote's float32 tables on the same kernel, near ties decided in float64): the float64 argmin,
    so the same edge as a float64 block per record would find.  The witness decodes lazily."""
    checked = 0
    for blk in blocks:
        ve = blk.edges
        NN = k.nearest_lines(blk.Z, blk.attr, ve.codes)
        cross = NN[:, ve.e0] != NN[:, ve.e1]
        checked += cross.size
        if cross.any():
            zi, ei = divmod(int(np.flatnonzero(cross)[0]), cross.shape[1])  # row-major: np.argwhere's first
            return Witness.edge(schema, ve.name, blk.endpoint(zi, ei, 0), blk.endpoint(zi, ei, 1),
                                int(NN[zi, ve.e0[ei]]), int(NN[zi, ve.e1[ei]])), checked
    return None, checked


def decode_record(schema: Schema, x: np.ndarray) -> dict[str, Any]:
    """One encoded record in the original units: ``schema.decode(x[None]).iloc[0].to_dict()``, without pandas.

    Each value comes from its attribute's own decode (``Attribute.decode_array``, the array
    ``Attribute.decode`` puts in a Series); the types follow pandas' row rule: when every column
    decodes to numbers and one to floats, every value is a float (a row of a frame with int64 and
    float64 columns is float64), else each value is the plain Python value of its column.

    Parameters
    ----------
    schema : Schema
        The schema.
    x : (p,) float64 ndarray
        An encoded record.

    Returns
    -------
    dict
        Attribute name -> decoded value (int, float, str, ...).
    """
    cols = [a.decode_array(np.asarray(x[i : i + 1], dtype=float)) for i, a in enumerate(schema.attributes)]
    kinds = {c.dtype.kind for c in cols}
    if kinds <= {"i", "u", "f"}:
        cast = float if "f" in kinds else int
        return {a.name: cast(c[0]) for a, c in zip(schema.attributes, cols)}
    return {a.name: _native(c[0]) for a, c in zip(schema.attributes, cols)}


def _native(v: Any) -> Any:
    """A numpy scalar as the Python value pandas' ``to_dict`` gives."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.str_):
        return str(v)
    return v


class Witness(dict):
    """The crossing edge certifying Hard's sqrt(2): ``{'attribute', 'u', 'v', 'nn_u', 'nn_v'}``.

    ``u`` and ``v`` are the edge's endpoints decoded (:func:`decode_record`), computed on the first
    read (issue 23: the run only stores the two encoded records; a report or a test that reads the
    witness decodes it then).  A plain dict to every reader: item access, iteration, ``items()``,
    ``json.dumps``, ``dict(w)``, equality, ``repr``, copies and pickles all see the decoded values.
    """

    __slots__ = ("_pending",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: tuple[Schema, np.ndarray, np.ndarray] | None = None

    @classmethod
    def edge(cls, schema: Schema, attribute: str, u: np.ndarray, v: np.ndarray, nn_u: int, nn_v: int) -> "Witness":
        """The witness of the edge (u, v) along ``attribute``, decoded when first read.

        Parameters
        ----------
        schema : Schema
            The schema (decodes u and v).
        attribute : str
            The attribute the edge changes.
        u, v : (p,) float64 ndarray
            The encoded endpoints (copied).
        nn_u, nn_v : int
            Their nearest candidates.

        Returns
        -------
        Witness
            The witness, ``u`` and ``v`` not yet decoded.
        """
        w = cls(attribute=attribute, u=None, v=None, nn_u=int(nn_u), nn_v=int(nn_v))
        w._pending = (schema, np.array(u, dtype=float), np.array(v, dtype=float))
        return w

    def _load(self) -> None:
        if self._pending is not None:
            schema, u, v = self._pending
            self._pending = None
            dict.__setitem__(self, "u", decode_record(schema, u))
            dict.__setitem__(self, "v", decode_record(schema, v))

    def __getitem__(self, key: str) -> Any:
        self._load()
        return dict.__getitem__(self, key)

    def __iter__(self):
        self._load()
        return dict.__iter__(self)

    def __eq__(self, other: object) -> bool:
        self._load()
        if isinstance(other, Witness):
            other._load()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # a dict: unhashable

    def __repr__(self) -> str:
        self._load()
        return dict.__repr__(self)

    def __or__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        return dict(self) | other

    def __ror__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        return other | dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Witness, (dict(self.items()),))

    def get(self, key: str, default: Any = None) -> Any:
        self._load()
        return dict.get(self, key, default)

    def items(self):
        self._load()
        return dict.items(self)

    def values(self):
        self._load()
        return dict.values(self)

    def copy(self) -> "Witness":
        self._load()
        return Witness(dict.items(self))

    def pop(self, key: str, *default: Any) -> Any:
        self._load()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        self._load()
        return dict.popitem(self)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._load()
        return dict.setdefault(self, key, default)

    def __setitem__(self, key: str, value: Any) -> None:
        self._load()
        dict.__setitem__(self, key, value)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._load()
        dict.update(self, *args, **kwargs)
