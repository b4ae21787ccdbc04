"""Shared pieces of the marginal-based baselines (MST, AIM): inputs, marginals, mechanisms.

Neighbouring notion, the exponential mechanism (McSherry & Talwar 2007; zCDP by Cesar &
Rogers 2021), the Private-PGM estimate (McKenna, Sheldon, Miklau 2019), seeding of mbi's
sampler, and :class:`FitRandomness`: where a fit's draws come from (seeded numpy for a
study run; OpenDP noise and OS-entropy public draws for a release, DESIGN §7, issue 21).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..base.errors import BlowfishError, BudgetError, SchemaError
from ..model.schema import Schema

NEIGHBOURS = ("replace-one", "add-remove")
SAMPLING = ("round", "sample")


def check_fit_args(method: str, schema: Schema, rows: Any, sampling: str, why: str = "") -> None:
    """The argument checks MST and AIM share.

    Parameters
    ----------
    method : str
        The method's name, for the message.
    schema : Schema
        The public schema (at least two modeled attributes).
    rows : int or None
        Release size, an integer >= 1, or None.
    sampling : {"round", "sample"}
        How the release is drawn from the fitted model.
    why : str, default ""
        Appended to the message about too few attributes.

    Raises
    ------
    SchemaError
        Naming the argument: fewer than two modeled attributes, a release size that
        is not an integer >= 1 (or None), an unknown ``sampling``.
    """
    if schema.p < 2:
        raise SchemaError(f"{method} needs at least two modeled attributes{why}")
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1):
        raise SchemaError(f"rows (release size) must be an integer >= 1 or None (got {rows!r})")
    if sampling not in SAMPLING:
        raise SchemaError(f"sampling must be one of {', '.join(SAMPLING)} (got {sampling!r})")


def sensitivities(neighbours: str) -> tuple[float, float]:
    """(marginal l2 sensitivity, selection-score sensitivity) for the neighbouring notion.

    Parameters
    ----------
    neighbours : {"replace-one", "add-remove"}
        The neighbouring notion.

    Returns
    -------
    tuple of (float, float)
        replace-one: (sqrt 2, 2); add-remove: (1, 1).

    Raises
    ------
    BudgetError
        For any other notion.
    """
    if neighbours == "replace-one":
        return math.sqrt(2.0), 2.0
    if neighbours == "add-remove":
        return 1.0, 1.0
    raise BudgetError(f"neighbours must be one of {', '.join(NEIGHBOURS)} (got {neighbours!r})")


def encoded_table(schema: Schema, data: Any) -> np.ndarray:
    """The private table as float64 (n, p), encoded.

    Parameters
    ----------
    schema : Schema
        The public schema.
    data : pandas.DataFrame or (n, p) array_like
        A DataFrame (encoded with the schema, which checks the public domain) or an
        encoded (n, p) float matrix (checked for shape and range).

    Returns
    -------
    (n, p) float64 ndarray
        The encoded records.

    Raises
    ------
    SchemaError
        For a matrix of the wrong shape, non-finite values or values outside the
        public domain (or data the schema cannot encode).
    """
    if isinstance(data, pd.DataFrame):
        return schema.encode(data)
    X = np.asarray(data, dtype=float)
    if X.ndim != 2 or X.shape[1] != schema.p or X.shape[0] < 1:
        raise SchemaError(f"encoded data must be a (n >= 1, p = {schema.p}) matrix (got shape {X.shape})")
    if not np.isfinite(X).all():
        raise SchemaError("encoded data contains NaN or inf")
    for i, a in enumerate(schema.attributes):
        col = X[:, i]
        hi = 1.0 if a.ordered else len(a.levels) - 1  # ordered types (numeric, ordinal) encode into [0, 1]
        if col.min() < 0 or col.max() > hi:
            raise SchemaError(f"column '{a.name}': encoded values outside the public domain [0, {hi}]")
        if not a.ordered and not np.all(col == np.round(col)):
            raise SchemaError(f"column '{a.name}': encoded {a.kind} codes must be whole numbers 0..{hi}")
    return X


def counts(codes: np.ndarray, sizes: tuple[int, ...], cols: tuple[int, ...]) -> np.ndarray:
    """Unnormalized marginal over ``cols`` (flattened in C order of cols).

    Parameters
    ----------
    codes : (n, p) int ndarray
        Cell codes of the records.
    sizes : tuple of int
        Number of cells of every attribute.
    cols : tuple of int
        The attributes of the marginal.

    Returns
    -------
    (prod sizes[cols],) float64 ndarray
        The counts.
    """
    flat = np.zeros(codes.shape[0], dtype=np.int64)
    for c in cols:
        flat = flat * sizes[c] + codes[:, c]
    return np.bincount(flat, minlength=int(np.prod([sizes[c] for c in cols]))).astype(float)


def exponential_mechanism(scores: np.ndarray, epsilon: float, sensitivity: float,
                          rng: np.random.Generator) -> int:
    """Index drawn with probability ~ exp(epsilon * score / (2 sensitivity)) (McSherry-Talwar).

    epsilon-DP and epsilon^2/8-zCDP (Cesar & Rogers 2021, bounded range).  Uses the
    Gumbel-max trick (an exact sampler of that distribution).

    Parameters
    ----------
    scores : (K,) float ndarray
        Score units.
    epsilon : float
        ``> 0``, nats.
    sensitivity : float
        The score's sensitivity, ``> 0`` (score units).
    rng : numpy.random.Generator
        The stream of the Gumbel draws.

    Returns
    -------
    int
        The chosen index, in [0, K).
    """
    logits = epsilon * np.asarray(scores, dtype=float) / (2.0 * sensitivity)
    return int(np.argmax(logits + rng.gumbel(size=logits.size)))


#: stream purpose of a reference method's public draws (evolution uses purposes 0-4): a
#: release's post-processing draws (mbi's sampling, cell decoding) come from streams(7, 0); a
#: run on other unseeded streams takes its one integer seed from the same stream.
PUBLIC_DRAWS = 7


def is_release(streams: Any) -> bool:
    """True for release streams: the fit then draws its noise with OpenDP (issue 21).

    Parameters
    ----------
    streams : object or None
        evolution.OsEntropyStreams, or anything with ``seeded`` False and
        ``sampler`` 'opendp'.

    Returns
    -------
    bool
        Whether ``streams`` are release streams.
    """
    return streams is not None and getattr(streams, "seeded", True) is False \
        and getattr(streams, "sampler", None) == "opendp"


@dataclass(frozen=True)
class FitRandomness:
    """Every draw of one MST/AIM fit, by kind (DESIGN §7: numpy noise for study runs only).

    rng: numpy Generator for the public, post-processing draws (mbi's sampling through
    :func:`seeded_global_numpy`, cell decoding); in a study run it also draws the noise, in
    the order the seeded fit always drew it (releases stay byte-identical per seed).
    release: True -> :meth:`gaussian` is OpenDP's Gaussian (opendp_samplers.opendp_noisy,
    float vector, exact sampling on a 2^k grid) and :meth:`select` OpenDP's Gumbel noisy max
    (mechanisms.exponential.Exponential.draw: the exponential mechanism exactly, zCDP
    epsilon^2/8); both draw from the OS CSPRNG, and ``rng`` is an OS-entropy stream.
    """

    rng: np.random.Generator
    release: bool = False

    @property
    def noise_sampler(self) -> str:
        """'opendp' (a release: OpenDP's Gaussian and Gumbel noisy max) or 'numpy' (a study run)."""
        return "opendp" if self.release else "numpy"

    def gaussian(self, x: np.ndarray, sigma: float) -> np.ndarray:
        """x + N(0, sigma^2 I): x (m,) float64 counts, sigma > 0 (count units) -> (m,) float64."""
        if self.release:
            from ..privacy.mechanisms.opendp_samplers import opendp_noisy

            return opendp_noisy(np.asarray(x, dtype=np.float64), float(sigma), "gaussian", discrete=False)
        return x + self.rng.normal(0.0, sigma, size=x.size)

    def select(self, scores: np.ndarray, epsilon: float, sensitivity: float) -> int:
        """Exponential-mechanism index, P(k) ~ exp(epsilon score_k / (2 sensitivity)) (McSherry-Talwar):
        scores (K,) score units, epsilon > 0 (nats), sensitivity > 0 (score units) -> int in [0, K)."""
        if self.release:
            from ..privacy.mechanisms.exponential import Exponential

            return Exponential().draw(np.asarray(scores, dtype=float), float(sensitivity), float(epsilon))
        return exponential_mechanism(scores, epsilon, sensitivity, self.rng)


def fit_randomness(seed: Any, streams: Any, tag: int) -> FitRandomness:
    """The draws of one fit from ``seed`` / ``streams``.

    streams None: make_streams(seed) (seed None -> OS entropy, a release).  Release streams
    (:func:`is_release`): OpenDP noise, public draws from streams(PUBLIC_DRAWS, 0).  Seeded study
    streams (evolution.SeededStreams): their seed; other streams: one integer from
    streams(PUBLIC_DRAWS, 0); a study fit's Generator is SeedSequence([seed, tag]), as before.

    Parameters
    ----------
    seed : int or None
        A whole number (study run) or None (release).
    streams : callable, optional
        The run's streams (see above).
    tag : int
        The method's stream tag ("MST"/"AIM").

    Returns
    -------
    FitRandomness
        Where the fit's draws come from.

    Raises
    ------
    BlowfishError
        For a seed that is not a whole number.
    """
    from ..algorithm.streams import SeededStreams, make_streams

    if streams is None:
        if isinstance(seed, str):
            raise BlowfishError(f"seed must be a whole number (a study run) or None (a release; got {seed!r})")
        streams = make_streams(seed)
    if is_release(streams):
        return FitRandomness(streams(PUBLIC_DRAWS, 0), True)
    s = int(streams.seed) if isinstance(streams, SeededStreams) else int(streams(PUBLIC_DRAWS, 0).integers(2 ** 63))
    return FitRandomness(np.random.default_rng(np.random.SeedSequence([s, int(tag)])))


@contextlib.contextmanager
def seeded_global_numpy(seed: int):
    """mbi's sampler draws from numpy's global RandomState: seed it, restore it afterwards.

    Parameters
    ----------
    seed : int
        The seed (taken modulo 2^32).

    Yields
    ------
    None
        Inside the block numpy's global state is seeded; it is restored on exit.
    """
    state = np.random.get_state()
    np.random.seed(seed % (2 ** 32))
    try:
        yield
    finally:
        np.random.set_state(state)


#: convergence test of every Private-PGM estimate (mbi's ``tol`` / ``patience``): mirror descent runs
#: in blocks of 50 iterations and stops after PATIENCE consecutive blocks whose loss fell by at most
#: TOL x max(|loss|, 1) (relative), or at the ``iters`` cap.
TOL = 1e-4
PATIENCE = 2
#: the numpy marginals of :func:`model_marginals` build the full joint up to this many cells.
JOINT_MAX_CELLS = 2 ** 22


@dataclass(frozen=True)
class CellWeights:
    """mbi's WeightedQuery (the datavector times fixed per-cell weights), compared by value.

    mbi compares its WeightedQuery by identity, and a query is static in the jit of every
    estimate: each MST fit's compressed 1-way measurements then compile afresh even when an
    identical program is already compiled.  Equal weights compare equal here, so they reuse it.
    """

    weights: tuple[float, ...]

    def __call__(self, f: Any) -> Any:
        """The weighted datavector of factor ``f`` (a jax array)."""
        return f.datavector() * np.asarray(self.weights)

    def op_norm_sq(self) -> float:
        """Squared operator norm (mbi's Lipschitz bound reads it)."""
        return max(w * w for w in self.weights)


def by_value(measurement: Any) -> Any:
    """``measurement`` with a WeightedQuery replaced by the equal :class:`CellWeights` (others as is).

    Parameters
    ----------
    measurement : mbi LinearMeasurement
        A measurement, e.g. from ``LinearMeasurement.compress``.

    Returns
    -------
    mbi LinearMeasurement
        The same measurement, its query compared by value.
    """
    w = getattr(measurement.query, "weights", None)
    if w is None or isinstance(measurement.query, CellWeights):
        return measurement
    return dataclasses.replace(measurement, query=CellWeights(tuple(float(x) for x in np.asarray(w).ravel())))


@dataclass
class Estimate:
    """A Private-PGM estimate: ``model`` (mbi MarkovRandomField) and the iterations it ran."""

    model: Any
    iters_run: int


def estimate(mbi, domain, measurements, known_total: float, iters: int, warm_start=None,
             tol: float | None = TOL) -> Estimate:
    """Private-PGM estimate (mirror descent, McKenna, Sheldon, Miklau 2019 Alg. 1), stopped by a test.

    Convergence test (mbi's ``tol``/``patience``): the iterations run in blocks of 50; the
    estimate stops after :data:`PATIENCE` consecutive blocks whose loss (the weighted l2
    distance to the measurements) decreased by at most ``tol`` x max(|loss|, 1), or after
    ``iters`` iterations (the cap), whichever comes first.

    Parameters
    ----------
    mbi : module
        The mbi package.
    domain : mbi.Domain
        The (compressed) domain.
    measurements : iterable of mbi LinearMeasurement
        The noisy measurements.
    known_total : float
        The record count the model is fitted to.
    iters : int
        The cap on mirror-descent iterations (a multiple of 50 is run).
    warm_start : mbi model, optional
        A previous model whose potentials start the descent (AIM's rounds).
    tol : float or None, default TOL
        Relative loss decrease per block below which a block counts as converged; None
        runs the full ``iters`` (mbi's fixed count).

    Returns
    -------
    Estimate
        The fitted graphical model and the iterations run.
    """
    from mbi import estimation

    blocks = [0]

    def count(_value: Any) -> None:
        blocks[0] += 1

    model = _mirror_descent()().estimate(domain, list(measurements), known_total=float(known_total),
                                                iters=int(iters), warm_start=warm_start, callback_fn=count,
                                                tol=tol, patience=PATIENCE)
    return Estimate(model, blocks[0] * estimation.CALLBACK_EVERY)


_MD: dict[str, Any] = {}


def _mirror_descent() -> Any:
    """mbi's MirrorDescent without the compilations of its initialization (built once per process).

    mbi's ``_init`` runs eagerly, op by op: the potentials' expansion (a warm start), then the
    marginals and the loss of the starting point, some tens of small compiled programs per
    clique structure plus a message-passing program.  The starting point's marginals and loss
    are never read (each mirror-descent step recomputes both from the potentials, and the
    convergence test starts from an infinite previous loss), so here they are zero placeholders
    of the same shapes; the expansion is one jitted function.  The iterates are mbi's exactly.
    The final model's marginals come from the numpy joint (:func:`_joint_marginals`, exact) when
    the domain is small enough, instead of one more compiled message passing per clique set.
    """
    if "md" in _MD:
        return _MD["md"]
    import functools

    import jax
    from mbi import estimation
    from mbi.clique_vector import CliqueVector
    from mbi.factor import Factor
    from mbi.markov_random_field import MarkovRandomField

    @functools.partial(jax.jit, static_argnames=("cliques",))
    def expand(potentials, cliques):
        return potentials.expand(cliques)

    def zeros(domain, cliques):
        return CliqueVector(domain, cliques, {cl: Factor(domain.project(cl), np.zeros(domain.project(cl).shape))
                                              for cl in cliques})

    @dataclass(frozen=True)
    class LeanInitMirrorDescent(estimation.MirrorDescent):
        """MirrorDescent (Armijo step, mbi's default) with a compilation-free initialization."""

        def _init(self, domain, loss_fn, known_total, *, warm_start=None, constraints=()):
            if self.stepsize is not None:  # not used here: mbi's own initialization
                return super()._init(domain, loss_fn, known_total, warm_start=warm_start, constraints=constraints)
            cliques = tuple(loss_fn.cliques)
            if warm_start is None:
                pot = zeros(domain, cliques)
            else:
                w = warm_start if isinstance(warm_start, CliqueVector) else warm_start.potentials
                pot = expand(w, cliques)
            alpha = 2.0 / (loss_fn.lipschitz * known_total)  # mbi's initial step, 2 / (L n)
            return estimation.MirrorDescentState(zeros(domain, cliques), pot, alpha, np.float64(np.inf))

        def _finalize(self, state, known_total, constraints=()):
            pot = state.potentials
            if constraints or int(pot.domain.size()) > JOINT_MAX_CELLS:
                return super()._finalize(state, known_total, constraints=constraints)
            # the model's marginals from the numpy joint (exact) instead of a compiled message passing
            margs = _joint_marginals(pot, float(known_total), pot.cliques)
            tables = {cl: Factor(pot.domain.project(cl), margs[cl]) for cl in pot.cliques}
            return MarkovRandomField(potentials=pot, marginals=CliqueVector(pot.domain, pot.cliques, tables),
                                     total=known_total, constraints=tuple(constraints))

    _MD["md"] = LeanInitMirrorDescent
    return LeanInitMirrorDescent


def independent_estimate(measurements: list[Any], total: float) -> dict[Any, np.ndarray]:
    """Private-PGM's estimate from 1-way measurements alone, solved exactly (no mirror descent).

    With only 1-way measurements the model is a product of independent attributes, and the
    l2 loss splits into one problem per attribute: minimize sum_c (w_c x_c - z_c)^2 over
    x >= 0, sum x = total (w: the measurement's query weights, 1 without compression; a soft 1-way,
    whose query has ``simplex_fit``, solves min ||K x - z|| on the same set with it).  Its
    solution is x_c = max(0, z_c / w_c - lam / w_c^2) with lam the root of sum x = total,
    found by bisection to float64 resolution.  Mirror descent converges to the same point.

    Parameters
    ----------
    measurements : list of mbi LinearMeasurement
        1-way measurements, one per attribute (plain or ``by_value`` weighted).
    total : float
        The record count (> 0).

    Returns
    -------
    dict of attribute to (cells,) float64 ndarray
        Each attribute's estimated 1-way counts, summing to ``total`` (keyed by the mbi attribute
        name: the column index in MST and AIM).
    """
    out = {}
    for m in measurements:
        z = np.asarray(m.noisy_measurement, dtype=float).ravel()
        fit = getattr(m.query, "simplex_fit", None)  # a soft 1-way (soft_marginals.KernelQuery): min ||K x - z||
        if fit is not None:
            out[m.clique[0]] = fit(z, total)
            continue
        w = np.asarray(getattr(m.query, "weights", np.ones(z.size)), dtype=float).ravel()
        t, a = z / w, w * w
        lo, hi = float(np.min(a * (t - total))), float(np.max(a * t))  # sum x >= total at lo, 0 at hi
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if np.maximum(0.0, t - mid / a).sum() > total:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-15 * max(abs(lo), abs(hi), 1.0):
                break
        x = np.maximum(0.0, t - 0.5 * (lo + hi) / a)
        out[m.clique[0]] = x * (total / x.sum())
    return out


def model_marginals(model: Any, cliques: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], np.ndarray]:
    """The model's marginals on ``cliques`` as float64 numpy vectors (C order of each clique).

    Exact, and without a jax compilation per clique: the full joint exp(sum of the potentials),
    scaled to the model's total, summed down to each clique (in numpy).  A domain of more than
    :data:`JOINT_MAX_CELLS` cells falls back to mbi's own ``project`` (variable elimination).

    Parameters
    ----------
    model : mbi MarkovRandomField
        A fitted model.
    cliques : list of tuple
        Cliques of the model's (mbi) attribute names; MST and AIM name attributes by column index.

    Returns
    -------
    dict of tuple to (cells,) float64 ndarray
        Each clique's marginal counts, flattened in the clique's attribute order.
    """
    if int(model.domain.size()) > JOINT_MAX_CELLS:
        return {cl: np.asarray(model.project(cl).datavector(), dtype=float) for cl in cliques}
    return {cl: m.ravel() for cl, m in _joint_marginals(model.potentials, float(model.total), cliques).items()}


def _joint_marginals(potentials: Any, total: float, cliques) -> dict[tuple[Any, ...], np.ndarray]:
    """{clique: marginal counts, an array shaped in the clique's attribute order} from the full joint
    exp(sum of the potentials) scaled to ``total`` (numpy; the domain must be small enough)."""
    dom = potentials.domain
    attrs = list(dom.attributes)
    shape = tuple(int(k) for k in dom.shape)
    logp = np.zeros(shape)
    for cl in potentials.cliques:
        f = potentials[cl]
        axes = [attrs.index(a) for a in f.domain.attributes]
        vals = np.transpose(np.asarray(f.values, dtype=float), np.argsort(axes))
        logp = logp + vals.reshape([shape[k] if k in axes else 1 for k in range(len(shape))])
    p = np.exp(logp - logp.max())
    p *= total / p.sum()
    out = {}
    for cl in cliques:
        keep = [attrs.index(a) for a in cl]
        m = p.sum(axis=tuple(k for k in range(len(shape)) if k not in keep))
        out[tuple(cl)] = np.transpose(m, np.argsort(np.argsort(keep)))
    return out
