"""scikit-learn-style Python API: ``Synthesizer(...).fit(df).sample(n)``.

    syn = Synthesizer(schema, policy, method="bf-soft", tau=0.03, rho=1e-3, seed=0)
    syn.fit(df)              # df in the original column names and formats; runs Algorithm 1
    out = syn.sample(512)    # DataFrame in the original names and formats
    syn.ledger_              # tuple of ledger.LedgerRow, one per round
    syn.privacy_             # totals as in the CLI report's "privacy"

The constructor only stores its arguments; every check happens once, in :meth:`fit`,
with the CLI's parsers and messages (blowfish_core.parsing).  A fitted synthesizer
with the same settings and seed releases exactly what
``python -m blowfish_core synth --method M --seeds S ...`` writes for that method
and seed (tests/test_api.py checks the CSV byte for byte).

Randomness: ``seed`` (a whole number >= 0) gives the paired, reproducible study
streams (evolution.SeededStreams).  A seeded run is for study, not for a real release
(DESIGN §7).  ``seed=None`` is refused for now; ``streams`` is the hook for another
source (issue 11: OS entropy): any callable ``streams(purpose, t) -> numpy Generator``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
from ._lazy import pd  # pandas, imported on first use (issue 15)

from .distance import domain_index, group_records
from .errors import BlowfishError
from .evolution import _RELEASE, SeededStreams, SynthConfig, SynthResult, release_indices, run_synthesis
from .experiment import EMPTY_POLICY_MESSAGE, policy_is_empty
from .ledger import LedgerRow, privacy_totals
from .methods import get_method
from .parsing import parse_budget, parse_methods, require_tau
from .policy import Policy
from .schema import Schema


class Synthesizer:
    """Policy-aware DP synthesizer (paper Algorithm 1 with ResampleMutate).

    Parameters
    ----------
    schema, policy : the public domain and the Blowfish policy.
    method : a name of the method table ('tab-pe', 'hard', 'bf-soft', 'soft-dp', 'soft-hard-noise').
    tau : temperature (> 0) of soft votes; required by the methods that need it.
    rho : total zCDP budget (Gaussian), or epsilon (with delta, default 1e-5) converted by
        ``conversion`` ('exact' or 'eq1'); with ``mechanism='laplace'``: epsilon only (pure DP).
    mechanism : 'gaussian' (default) or 'laplace'.
    seed : whole number >= 0 (paired study streams); None is refused (see module docstring).
    config : SynthConfig (default: the paper's schedule, 8 rounds, 512 released).
    allow_empty_policy : run a Blowfish method even when the policy protects nothing.
    streams : optional source of randomness ``streams(purpose, t) -> Generator`` (overrides seed).
    engine : 'local' (default) or 'dask' (the vote histograms on a dask.distributed cluster,
        same seeded release; needs dask[distributed]).  client : the dask.distributed Client
        for engine='dask' (None: a local cluster of 2 workers, closed after fit).
    chunk_rows : rows per chunk when ``fit`` is given a CSV path (default chunked.DEFAULT_CHUNK_ROWS).

    Fitted attributes: ``result_`` (evolution.SynthResult), ``ledger_`` (tuple of LedgerRow),
    ``privacy_`` (dict, as the report's "privacy"), ``n_samples_drawn_``.
    """

    def __init__(self, schema: Schema, policy: Policy, method: str = "bf-soft", tau: float | None = None,
                 rho: float | None = None, epsilon: float | None = None, delta: float | None = None,
                 mechanism: str = "gaussian", seed: int | None = 0, config: SynthConfig | None = None,
                 conversion: str = "exact", allow_empty_policy: bool = False,
                 streams: Callable[[int, int], np.random.Generator] | None = None,
                 engine: str = "local", client: Any = None, chunk_rows: int | None = None) -> None:
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
        self.engine = engine
        self.client = client
        self.chunk_rows = chunk_rows

    # ------------------------------------------------------------------ fit
    def fit(self, df: "pd.DataFrame | str | os.PathLike") -> Synthesizer:
        """Validate every setting (CLI messages), encode ``df`` and run Algorithm 1 once.

        df: the private table, original column names and formats (every schema column), or
        the path of a CSV file of any size: read in chunks and grouped as it goes
        (chunked.read_grouped; with engine='dask', read by the Dask workers).
        Raises BlowfishError / BudgetError / SchemaError / DataError / PolicyError naming the field.
        """
        if not isinstance(self.method, str):
            raise BlowfishError(f"method must be one name such as 'bf-soft' (got {self.method!r})")
        (method,) = parse_methods([self.method]) or [None]
        if method is None:
            raise BlowfishError("choose a method, e.g. method='bf-soft'")
        budget = parse_budget(self.rho, self.epsilon, self.delta, self.mechanism, self.conversion)
        require_tau([method], self.tau)
        if self.streams is None:
            if self.seed is None:
                raise BlowfishError("seed=None: give a whole-number seed for a study run; an OS-entropy release "
                                    "mode is not available yet")
            if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
                raise BlowfishError(f"seeds must be whole numbers >= 0 (got {self.seed!r})")
        cfg = (self.config or SynthConfig()).validate()
        self.policy.validate(self.schema)
        if (get_method(method).policy_aware and not self.allow_empty_policy
                and policy_is_empty(self.schema, self.policy)):
            raise BlowfishError(EMPTY_POLICY_MESSAGE)
        if self.engine not in ("local", "dask"):
            raise BlowfishError(f"engine must be 'local' or 'dask' (got {self.engine!r})")
        is_path = isinstance(df, (str, os.PathLike))
        if not is_path and not isinstance(df, pd.DataFrame):
            raise BlowfishError(f"fit needs a pandas DataFrame or a CSV path (got {type(df).__name__})")
        seed = 0 if self.seed is None else int(self.seed)
        self._streams = self.streams if self.streams is not None else SeededStreams(seed)
        engine, own_client = None, None
        if self.engine == "dask":
            from .dask_engine import DaskEngine, connect, require_dask

            require_dask()
            client = self.client
            if client is None:
                client = own_client = connect(workers=2)
        try:
            if is_path and self.engine == "dask":
                engine = DaskEngine.read_csv(client, os.fspath(df), self.schema, cfg.sizes())
                U, counts = engine.U, engine.counts
            elif is_path:
                from .chunked import DEFAULT_CHUNK_ROWS, read_grouped

                g = read_grouped(df, self.schema, chunk_rows=self.chunk_rows or DEFAULT_CHUNK_ROWS)
                U, counts = g.U, g.counts
            else:
                U, counts = group_records(self.schema.encode(df))
            if self.engine == "dask" and engine is None:
                engine = DaskEngine(client, self.schema, U, counts, cfg.sizes())
            res: SynthResult = run_synthesis(
                self.schema, U, self.policy, method, budget.rho, self.tau, cfg, seed,
                grouped=(U, counts, domain_index(self.schema, U)), mechanism=budget.mechanism,
                epsilon=budget.epsilon, streams=self._streams, engine=engine)
        finally:
            if engine is not None:
                engine.close()
            if own_client is not None:
                cluster = getattr(own_client, "cluster", None)
                own_client.close()
                if cluster is not None:
                    cluster.close()
        self.config_ = cfg
        self.budget_ = budget
        self.result_ = res
        self.ledger_: tuple[LedgerRow, ...] = tuple(res.rounds)
        self.privacy_: dict[str, Any] = {
            **privacy_totals(res.rounds, budget.delta or 1e-5, rho=budget.rho, epsilon=budget.epsilon),
            "budget_source": budget.source}
        self.n_samples_drawn_ = 0
        return self

    # --------------------------------------------------------------- sample
    def sample(self, n: int | None = None) -> pd.DataFrame:
        """n records (default: config.release) from the last noisy histogram, decoded.

        Post-processing only.  The k-th call (k = 0, 1, ...) uses release stream k, so the first
        ``sample(config.release)`` equals the run's (and the CLI's) release.
        Raises BlowfishError before fit or for n < 1.
        """
        if not hasattr(self, "result_"):
            raise BlowfishError("the synthesizer is not fitted. Fix: call fit(df) first")
        n = self.config_.release if n is None else n
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1 or n > 10_000_000:
            raise BlowfishError(f"release size must be a whole number between 1 and 10,000,000 (got {n!r})")
        res = self.result_
        idx = release_indices(res.final_weights, int(n), self.config_.release_mode,
                              self._streams(_RELEASE, self.n_samples_drawn_))
        self.n_samples_drawn_ += 1
        return self.schema.decode(res.final_population[idx])
