"""scikit-learn-style Python API: ``Synthesizer(...).fit(df).sample(n)``.

    syn = Synthesizer(schema, policy, method="bf-soft", tau=0.03, rho=1e-3, seed=0)
    syn.fit(df)              # df in the original column names and formats; runs Algorithm 1
    out = syn.sample(512)    # DataFrame in the original names and formats
    syn.ledger_              # tuple of ledger.LedgerRow, one per round
    syn.privacy_             # totals as in the CLI report's "privacy"

The constructor only stores its arguments; every check happens once, in :meth:`fit`,
with the CLI's parsers and messages (blowfish_core.synthesis.parsing).  A fitted synthesizer
with the same settings and seed releases exactly what
``python -m blowfish_core synth --method M --seeds S ...`` writes for that method
and seed (tests/interfaces/test_api.py checks the CSV byte for byte).

Randomness (issue 11, DESIGN §7):

* ``seed=None`` (the default) is **release mode**: the public draws come from the
  operating system's entropy (evolution.OsEntropyStreams, a fresh
  ``numpy.random.SeedSequence()``) and the noise from OpenDP's samplers (discrete
  Gaussian / Laplace for hard votes; PubMix/LinMix draw exactly).  Nothing about the randomness
  is kept except ``randomness_ == "unseeded, OS entropy, sampler opendp"`` (``... sampler exact``
  for ``noise='pubmix'`` / ``'linmix'``: streams.randomness_of); two fits differ.
* ``seed`` (a whole number >= 0) gives the paired, reproducible study streams
  (evolution.SeededStreams) with numpy's samplers: ``randomness_`` is
  "seeded: for study, not for publication".
* ``streams``: any callable ``streams(purpose, t) -> numpy Generator`` (its ``sampler``
  attribute, default 'numpy', picks the noise sampler).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..model.rows import domain_index, group_records
from ..base.errors import BlowfishError, NotFittedError, PolicyError, SchemaError
from ..algorithm.config import SynthConfig
from ..algorithm.resample import release_indices
from ..algorithm.result import SynthResult
from ..algorithm.streams import _RELEASE, make_streams
from ..synthesis.spec import Choice, RunSpec
from ..synthesis.experiment import _run_spec_method
from ..synthesis.gate import DEFAULT_DELTA, _compose_total, check
from ..synthesis.release import claim_of, release_synthesis
from ..synthesis.report import randomness_text
from ..base.input_checks import check_seeds
from ..privacy.ledger import LedgerRow
from ..privacy.totals import _privacy_totals
from ..algorithm.methods import get_method
from ..privacy.mechanisms import DEFAULT_MECHANISM, get_mechanism
from ..privacy.mechanisms.pubmix import check_sampling
from ..synthesis.parsing import mechanism_field, parse_budget, parse_methods, parse_noise, require_tau
from ..model.policy import Policy
from ..model.schema import Schema


def _no_metric(schema: Schema, real: np.ndarray, synthetic: np.ndarray) -> float:
    """The API computes no error against the private table (nothing internal is kept): 0.0."""
    return 0.0


_no_metric.grouped_ok = True  # type: ignore[attr-defined]  # reads no rows: fine on a grouped table
#: run_paired's metric for the API (no evaluation; issue 21).
NO_METRIC = ("none", _no_metric)


class Synthesizer:
    """Policy-aware DP synthesizer (paper Algorithm 1 with ResampleMutate).

    Parameters
    ----------
    schema, policy : the public domain and the Blowfish policy.
    method : a name of the method table ('tab-pe', 'hard', 'bf-soft', 'soft-dp', 'soft-hard-noise',
        or the reference methods 'mst' / 'aim': standard DP on mbi, zCDP only, policy and tau
        ignored; 'bf-mst' / 'bf-aim': MST / AIM under the policy, exact per-marginal sensitivity;
        'bf-soft-mst': bf-mst with soft marginals at the given tau; optional extra ``pip install .[baseline]``).
    tau : temperature (> 0) of soft votes; required by the methods that need it.
    rho : total zCDP budget (Gaussian), or epsilon (with delta, default 1e-5) converted by
        ``conversion`` (None: the method's, parsing.run_conversion: 'exact' for Algorithm 1, 'eq1' for MST/AIM; or 'exact' / 'eq1'; refused with rho); with ``mechanism='laplace'``: epsilon only (pure DP).
    mechanism : 'gaussian' (default) or 'laplace': the additive noise of ``noise='gaussian'``.
    noise : the release step of the hard vote: 'gaussian' (default: add noise by ``mechanism``,
        then resample), 'pubmix', 'linmix' or 'pubmix-floor' (papers/003: draw from
        (1 - beta) H/n + beta P_nse; 'pubmix' picks P_nse and beta per round from the public
        rows by Remark 4.5, 'pubmix-floor' water-fills them at the fixed floor 0.25/m_t,
        'linmix' mixes in the uniform law; budget ``epsilon`` at ``delta``, PLD ledger;
        hard-vote methods only, so BF-Soft is refused).  ``mechanism`` must then stay at its default.
    public : pubmix: public rows of the same domain, disjoint from the private table (DataFrame).
    seed : whole number >= 0 (paired study streams, numpy noise), or None (default: release mode,
        OS entropy and OpenDP noise; see the module docstring).
    config : SynthConfig (default: SynthConfig() = the 'hybrid' schedule of DESIGN §3, 8 rounds,
        512 released, rank rounds keep the top m/2 with one child each, release = the top final
        counts; rank_by / mutation_index / children / release_mode are its fields; the earlier
        reading: ``SynthConfig.from_schedule('hybrid-256x3')``).
    allow_empty_policy : run a Blowfish method even when the policy protects nothing.
    streams : optional source of randomness ``streams(purpose, t) -> Generator`` (overrides seed).
    engine : 'local' (default) or 'dask' (the vote histograms on a dask.distributed cluster,
        same seeded release; needs dask[distributed]).  client : the dask.distributed Client
        for engine='dask' (None: a local cluster of 2 workers, closed after fit).
    chunk_rows : rows per chunk when ``fit`` is given a CSV path (default chunked.DEFAULT_CHUNK_ROWS).
    allow_data_domain : release (seed=None) although ``schema`` was read off the private table
        (``schema.data_derived``); refused without it (release_gate), and then labelled
        "domain read from the private data: this release is not differentially private".

    Releases (seed=None, no streams) go through the release gate (release.release_synthesis):
    OS entropy for every draw, OpenDP / exact samplers, a declared public domain, a private method;
    ``publication_`` holds the gate's Publication (label, total).  Raises GateError naming the
    arguments (``seed=``, ``schema=``, ``allow_data_domain=True``) when it refuses.

    Fitted attributes: ``result_`` (evolution.SynthResult), ``ledger_`` (tuple of LedgerRow),
    ``privacy_`` (dict, as the report's "privacy"), ``randomness_`` (str: the seeded note or
    "unseeded, OS entropy, sampler opendp" / "... sampler exact"), ``n_samples_drawn_``.
    """

    def __init__(self, schema: Schema, policy: Policy, method: str = "bf-soft", tau: float | None = None,
                 rho: float | None = None, epsilon: float | None = None, delta: float | None = None,
                 mechanism: str = DEFAULT_MECHANISM, seed: int | None = None, config: SynthConfig | None = None,
                 conversion: str | None = None, allow_empty_policy: bool = False,
                 streams: Callable[[int, int], np.random.Generator] | None = None,
                 noise: str = DEFAULT_MECHANISM, public: pd.DataFrame | None = None,
                 engine: str = "local", client: Any = None, chunk_rows: int | None = None,
                 allow_data_domain: bool = False) -> None:
        self.schema = schema
        self.policy = policy
        self.method = method
        self.tau = tau
        self.rho = rho
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.seed = seed
        self.config = config
        self.conversion = conversion
        self.allow_empty_policy = allow_empty_policy
        self.streams = streams
        self.noise = noise
        self.public = public
        self.engine = engine
        self.client = client
        self.chunk_rows = chunk_rows
        self.allow_data_domain = allow_data_domain

    #: attributes set by :meth:`fit`; reading one before raises NotFittedError.
    _FITTED = ("result_", "ledger_", "privacy_", "randomness_", "config_", "budget_", "n_samples_drawn_")

    def __getattr__(self, name: str) -> Any:
        # called only when normal lookup fails: a fitted attribute before fit
        if name in Synthesizer._FITTED:
            raise NotFittedError(f"this Synthesizer is not fitted yet: {name} is set by fit. "
                                 "Fix: call fit first (syn.fit(df))")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor arguments by name (scikit-learn convention).

        Parameters
        ----------
        deep : bool, default True
            Accepted and ignored: no argument is itself an estimator.

        Returns
        -------
        dict
            Argument name -> value, for every constructor argument.
        """
        import inspect

        return {k: getattr(self, k) for k in inspect.signature(Synthesizer.__init__).parameters if k != "self"}

    def _check_arguments(self) -> None:
        """The types of the constructor arguments that are objects (the fit boundary).
        Raises SchemaError / PolicyError / BlowfishError naming the argument."""
        if not isinstance(self.schema, Schema):
            raise SchemaError(f"schema must be a blowfish_core.Schema (got {type(self.schema).__name__}). "
                              "Fix: pass e.g. bc.Schema.from_dict(d) or bc.get_preset('xor3').schema")
        if not isinstance(self.policy, Policy):
            raise PolicyError(f"policy must be a blowfish_core.Policy (got {type(self.policy).__name__}). "
                              "Fix: pass e.g. bc.Policy.from_dict(d) or preset.default_policy()")
        if self.config is not None and not isinstance(self.config, SynthConfig):
            raise BlowfishError(f"config must be a blowfish_core.SynthConfig or None (got "
                                f"{type(self.config).__name__}). Fix: config=SynthConfig(rounds=2, ...)")

    # ------------------------------------------------------------------ fit
    def _check_engine_options(self, is_path: bool) -> None:
        """Refuse chunk_rows / client settings fit would ignore or could not use (BlowfishError naming
        the field): chunk_rows a whole number >= 1 and only with a CSV path read by the local engine;
        client only with engine='dask', and then a dask.distributed Client."""
        c = self.chunk_rows
        if c is not None:
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 1:
                raise BlowfishError(f"chunk_rows must be a whole number >= 1 (got {c!r}). Fix: e.g. chunk_rows=200000, "
                                    "or None for the default")
            if not is_path or self.engine == "dask":
                raise BlowfishError(f"chunk_rows={c}: only a CSV path read by the local engine is read in chunks "
                                    f"({'a DataFrame is already in memory' if not is_path else 'the Dask workers read in blocks'}); "
                                    "it would be ignored. Fix: drop chunk_rows")
        if self.client is not None:
            if self.engine != "dask":
                raise BlowfishError("client only applies to engine='dask'; it would be ignored. "
                                    "Fix: drop client or set engine='dask'")
            if not all(hasattr(self.client, a) for a in ("scheduler_info", "scatter", "submit")):
                raise BlowfishError(f"client must be a dask.distributed Client (got {type(self.client).__name__}). "
                                    "Fix: client=distributed.Client('tcp://host:8786'), or None for a local cluster")

    def fit(self, df: "pd.DataFrame | str | os.PathLike", *, no_header: bool = False,
            names: "list[str] | None" = None, drop_missing: "list[str] | tuple[str, ...] | bool" = (),
            missing_level: "dict[str, str] | None" = None) -> Synthesizer:
        """Validate every setting (CLI messages), encode ``df`` and run Algorithm 1 once.

        The size warnings (fewer rows than the release, under 1,000 rows) are issued as
        UserWarnings and kept in ``data_warnings_``.  A release (seed=None, no streams) goes
        through the release gate (``publication_``).

        Parameters
        ----------
        df : pandas.DataFrame or str or os.PathLike
            The private table, original column names and formats (every schema column), or the path
            of a CSV file of any size: read in chunks and grouped as it goes (chunked.read_grouped;
            with engine='dask', read by the Dask workers), its separator detected.
        no_header : bool, default False
            The CSV has no header row (the CLI's --no-header).
        names : list of str, optional
            Column names of a CSV without a header row (--names).
        drop_missing : list of str or bool, optional
            Columns whose rows with a missing cell are dropped, or True for all (--drop-missing).
        missing_level : dict of str to str, optional
            {column: marker} of text columns (--missing-level).

            The four reading options apply to a CSV path read by the local engine only (refused
            with a DataFrame or engine='dask', where they would be ignored).

        Returns
        -------
        Synthesizer
            ``self``, fitted: ``result_``, ``ledger_``, ``privacy_``, ``randomness_``, ``config_``,
            ``budget_``, ``n_samples_drawn_``.

        Raises
        ------
        BlowfishError
            BlowfishError / BudgetError / SchemaError / DataError / PolicyError naming the field (every
            bad cell of the table in one DataError); GateError naming the arguments when the release
            gate refuses a release.
        """
        read_opts = {"no_header": no_header, "names": names, "drop_missing": drop_missing,
                     "missing_level": missing_level}
        self._check_read_options(df, read_opts)
        self._check_arguments()
        choice, budget, cfg, public = self._check_settings()
        is_path = self._check_input(df)
        seed = None if self.seed is None else int(self.seed)
        self._streams = self.streams if self.streams is not None else make_streams(seed)
        # the one validated run specification (issue 21): every check, the integer bounds included;
        # the choice _check_settings checked is not checked again
        spec0 = RunSpec.build(self.schema, self.policy, None, [choice.methods[0].name], budget.rho,
                              budget.delta or DEFAULT_DELTA, self.tau, None if seed is None else [seed], cfg,
                              metric=NO_METRIC, budget_source=budget.source,
                              allow_empty_policy=self.allow_empty_policy, mechanism=budget.mechanism,
                              epsilon=budget.epsilon, public=self.public, allow_data_domain=self.allow_data_domain,
                              choice=choice)
        if self.streams is None and seed is None:  # a release: the gate's checks before reading the data
            check(claim_of(spec0))
        res = self._run(df, is_path, spec0, cfg, public, seed, read_opts)
        c = spec0.checked
        self.config_ = cfg
        self.budget_ = budget
        self.result_ = res
        self.ledger_: tuple[LedgerRow, ...] = tuple(res.rounds)
        self.privacy_: dict[str, Any] = {
            **_privacy_totals(res.rounds, spec0.delta, c.mechanism, c.budget),
            "budget_source": budget.source,
            "total": {**_compose_total(res.rounds, spec0.delta, c.mechanism), "releases": 1}}
        self.randomness_: str = (  # a release: report.randomness_text (what drew the noise)
            randomness_text(self.publication_.result) if self.publication_ is not None else
            res.randomness or cast(str, getattr(self._streams, "randomness", "custom streams")))
        self.n_samples_drawn_ = 0
        return self

    def _check_read_options(self, df: Any, read_opts: dict[str, Any]) -> None:
        """fit's reading options apply to a CSV path read by the local engine only (BlowfishError otherwise)."""
        given = [k for k, v in read_opts.items() if v not in (False, None, (), [], {})]
        if given and (not isinstance(df, (str, os.PathLike)) or self.engine == "dask"):
            raise BlowfishError(f"{', '.join(given)}: reading options for a CSV path read by the local engine; "
                                + ("a DataFrame is already read" if not isinstance(df, (str, os.PathLike)) else
                                   "the Dask reader does not apply them")
                                + ", so they would be ignored. Fix: "
                                + ("clean the DataFrame first (e.g. df.dropna(subset=[...])) and drop them"
                                   if not isinstance(df, (str, os.PathLike)) else "use engine='local' to read the file"))

    def _check_settings(self) -> tuple[Choice, Any, SynthConfig, Any]:
        """(the checked Choice, budget, validated config, grouped public rows or None): every setting checked
        with the CLI's parsers and messages (BlowfishError / BudgetError / PolicyError naming the field)."""
        # the empty-policy and tau-floor checks are RunSpec.build's (fit builds the spec with this choice)
        if not isinstance(self.method, str):
            raise BlowfishError(f"method must be one name such as 'bf-soft' (got {self.method!r})")
        methods = parse_methods([self.method])
        if not methods:
            raise BlowfishError("choose a method, e.g. method='bf-soft'")
        (method,) = methods
        given = None if self.mechanism == DEFAULT_MECHANISM else self.mechanism  # None: the default
        mech = get_mechanism(parse_noise(self.noise, given))
        meth = get_method(method)
        budget = parse_budget(self.rho, self.epsilon, self.delta, mech, self.conversion, methods=(meth,))
        tau = require_tau([method], self.tau)
        if self.streams is None and self.seed is not None:
            check_seeds([self.seed])
        cfg = (self.config or SynthConfig()).validate()
        meth.check_mechanism(budget.mechanism, mechanism_field(  # the argument the user gave
            None if self.noise == DEFAULT_MECHANISM else self.noise, given, "noise", "mechanism"))
        self.policy.validate(self.schema)
        public = None
        if mech.samples:
            check_sampling(mech, meth, self.policy, cfg.threshold_h, self.public is not None,
                           "public=DataFrame")
            if self.public is not None:
                if not isinstance(self.public, pd.DataFrame) or len(self.public) == 0:
                    raise BlowfishError("public must be a non-empty pandas DataFrame of the same domain")
                Up, cp = group_records(self.schema.encode(self.public))
                public = (Up, cp, domain_index(self.schema, Up))
        elif self.public is not None:
            raise BlowfishError("public only applies to noise='pubmix' (or 'linmix'); it would be ignored here. "
                                "Fix: drop it or set noise='pubmix'")
        return Choice((meth,), mech, budget.rho, budget.epsilon, budget.delta or DEFAULT_DELTA, tau), budget, cfg, public

    def _check_input(self, df: Any) -> bool:
        """The engine and ``df`` (a DataFrame or a CSV path: True for a path) and the engine options."""
        if self.engine not in ("local", "dask"):
            raise BlowfishError(f"engine must be 'local' or 'dask' (got {self.engine!r})")
        is_path = isinstance(df, (str, os.PathLike))
        if not is_path and not isinstance(df, pd.DataFrame):
            raise BlowfishError(f"fit needs a pandas DataFrame or a CSV path (got {type(df).__name__})")
        self._check_engine_options(is_path)
        return is_path

    def _run(self, df: Any, is_path: bool, spec0: RunSpec, cfg: SynthConfig, public: Any, seed: int | None,
             read_opts: dict[str, Any]) -> SynthResult:
        """Read ``df``, run Algorithm 1 once (a release through the release gate), close what it opened."""
        engine, own_client = None, None
        if self.engine == "dask":
            from ..algorithm.dask_engine import connect, require_dask

            require_dask()
            client = self.client
            if client is None:
                client = own_client = connect(workers=2)
        try:
            U, counts, engine = self._read(df, is_path, cfg, client if self.engine == "dask" else None, read_opts)
            for w in self.data_warnings_:
                warnings.warn(w, UserWarning, stacklevel=3)  # at fit's caller
            self.publication_ = None
            spec = spec0.with_tables(grouped=(U, counts), engine=engine)  # still validated
            if self.streams is None and seed is None:  # a release: THE release gate (issue 21)
                self.publication_ = release_synthesis(spec)
            res: SynthResult = self.publication_.result.runs[0].synth if self.publication_ is not None else \
                _run_spec_method(spec, spec.checked.methods[0], seed, U, (U, counts, domain_index(self.schema, U)),
                                 public, self._streams)
        finally:
            if engine is not None:
                engine.close()
            if own_client is not None:
                cluster = getattr(own_client, "cluster", None)
                own_client.close()
                if cluster is not None:
                    cluster.close()
        return res

    def _read(self, df: Any, is_path: bool, cfg: SynthConfig, client: Any,
              read_opts: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, Any]:
        """(distinct records, counts, Dask engine or None) of ``df``; sets ``data_warnings_``."""
        engine = None
        self.data_warnings_: tuple[str, ...] = ()
        if is_path:
            from ..io.chunked import sniff_file_separator

            sep = sniff_file_separator(os.fspath(df))  # as the command line does
        if is_path and self.engine == "dask":
            from ..algorithm.dask_engine import DaskEngine

            engine = DaskEngine.read_csv(client, os.fspath(df), self.schema, cfg.sizes(), sep=sep)
            U, counts = engine.U, engine.counts
            self.data_warnings_ = tuple(engine.warnings(cfg.release))
        elif is_path:
            from ..io.chunked import DEFAULT_CHUNK_ROWS, read_grouped

            g = read_grouped(df, self.schema, sep=sep, chunk_rows=self.chunk_rows or DEFAULT_CHUNK_ROWS,
                             release_size=cfg.release, no_header=bool(read_opts["no_header"]),
                             names=read_opts["names"], drop_missing=read_opts["drop_missing"],
                             missing_level=read_opts["missing_level"])
            U, counts = g.U, g.counts
            self.data_warnings_ = g.warnings
        else:
            U, counts = group_records(self.schema.encode(df))
        if self.engine == "dask" and engine is None:
            from ..algorithm.dask_engine import DaskEngine

            engine = DaskEngine(client, self.schema, U, counts, cfg.sizes())
        return U, counts, engine

    # --------------------------------------------------------------- sample
    def sample(self, n: int | None = None) -> pd.DataFrame:
        """n records (default: config.release) from the last noisy histogram, decoded.

        Post-processing only.  The k-th call (k = 0, 1, ...) uses release stream k, so the first
        ``sample(config.release)`` equals the run's (and the CLI's) release; with release_mode
        'top' / 'top-distinct' (the default) every call returns the top-n candidates (no draw).  PubMix/LinMix: the
        first ``sample(config.release)`` returns the run's release (made from the round-T draws:
        the draws themselves with release_mode 'sample', the candidates with the most draws
        with 'top', the default, or 'top-distinct'); any other call
        resamples the released draws (post-processing of the release, no new draw from the mixture).
        Reference methods
        (MST, AIM): the first ``sample(config.release)`` is the fitted release; other calls draw
        afresh from the fitted model with release stream k.

        Parameters
        ----------
        n : int, optional
            The number of records, 1 to 10,000,000 (default: config.release).

        Returns
        -------
        pandas.DataFrame
            n records in the original column names and formats.

        Raises
        ------
        BlowfishError
            Before fit, or for n that is not a whole number in [1, 10,000,000].
        """
        if not hasattr(self, "result_"):
            raise BlowfishError("the synthesizer is not fitted. Fix: call fit(df) first")
        n = self.config_.release if n is None else n
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1 or n > 10_000_000:
            raise BlowfishError(f"release size must be a whole number between 1 and 10,000,000 (got {n!r})")
        res = self.result_
        if res.sampler is not None:  # a reference method: its fitted model samples
            first = self.n_samples_drawn_ == 0 and int(n) == res.release.shape[0]
            X = res.release if first else res.sampler(int(n), self._streams(_RELEASE, self.n_samples_drawn_))
            self.n_samples_drawn_ += 1
            return self.schema.decode(X)
        if get_mechanism(self.budget_.mechanism).samples and self.n_samples_drawn_ == 0 \
                and n == self.config_.release:
            self.n_samples_drawn_ += 1
            return self.schema.decode(res.release)
        # Algorithm 1 (no sampler) always keeps its last population and counts (evolution.SynthResult)
        C, w = cast(np.ndarray, res.final_population), cast(np.ndarray, res.final_weights)
        idx = release_indices(w, int(n), self.config_.release_mode,
                              self._streams(_RELEASE, self.n_samples_drawn_), res.final_scores, C)
        self.n_samples_drawn_ += 1
        return self.schema.decode(C[idx])
