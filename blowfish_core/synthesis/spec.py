"""The run specification: ``RunSpec`` (historically ``RunRequest``), validated once by
:meth:`RunSpec.build` / :func:`validate_request`, and the policy checks every front end shares.

Split from :mod:`blowfish_core.synthesis.experiment` (issue 22) so that the reports
(:mod:`blowfish_core.synthesis.report`) read the spec without importing the runs that call them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..privacy.accounting import check_delta, check_epsilon, check_rho
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError, BudgetError
from ..base.input_checks import check_integer_bounds, check_seeds
from ..algorithm.evolution import SynthConfig
from ..privacy.mechanisms import get_mechanism
from ..algorithm.methods import METHODS, any_policy_aware, get_method, needs_tau
from ..model.policy import Policy, record_reach
from ..model.schema import Schema
from ..model.votes import check_tau

MAX_SEEDS = 50


@dataclass(frozen=True)
class RunSpec:
    """The one validated run specification (issue 21): everything one paired comparison needs
    (all public except ``data``).  Frozen; every front end (CLI ``synth``, ``Synthesizer.fit``,
    ``RunSettings.validate``, the app) builds it with :meth:`RunSpec.build`, which validates
    every setting once (:func:`validate_request`, the integer-bound check included); the layers
    below (run_paired, the release gate) trust a built spec.  ``RunRequest`` is the same class
    (its historical name); constructing one directly leaves it unvalidated, and run_paired then
    validates it.

    data: the private table (DataFrame, original columns).  methods: names of the method
    table (blowfish_core.algorithm.methods.METHODS).  mechanism: 'gaussian' (budget ``rho``: total
    zCDP, already converted from (epsilon, delta) if needed) or 'laplace' (budget
    ``epsilon``: pure DP; ``rho`` and ``delta`` unused).
    metric: (name, f(schema, X_real, X_syn)).  reference: optional table the metric
    compares against (default: the private table itself).  seeds: whole numbers (paired,
    reproducible study streams; numpy noise) or None (**release mode**: one run per method,
    each from its own OS entropy with OpenDP noise; not paired, nothing recorded about the
    randomness -- docs/DECISIONS.md "unseeded comparisons").  keep_populations: keep
    every round's candidate population C_t in the results (for per-round errors;
    does not change any draw or released value).
    Sampling release steps (mechanism 'pubmix' / 'linmix', papers/003; hard-vote methods
    only): budget ``epsilon`` at ``delta`` (PLD); ``public``: public rows of the same
    domain, disjoint from ``data`` (required by PubMix; the preset's pilot split or a
    user file), described by ``public_source``.
    """

    schema: Schema
    policy: Policy
    data: pd.DataFrame
    methods: list[str]
    rho: float
    delta: float = DEFAULT_DELTA
    tau: float | None = None
    seeds: list[int] | None = field(default_factory=lambda: [0])
    config: SynthConfig = field(default_factory=SynthConfig)
    metric: tuple[str, Callable] | None = None
    reference: pd.DataFrame | None = None
    budget_source: str = "rho"
    data_source: str = ""
    keep_populations: bool = False
    allow_empty_policy: bool = False
    mechanism: str = "gaussian"
    epsilon: float | None = None
    public: pd.DataFrame | None = None
    public_source: str = ""
    #: release with a domain read off the private table anyway (the release gate then labels it
    #: release_gate.NOT_DP_LABEL); refused without it (issue 21).
    allow_data_domain: bool = False
    #: rows of the sensitive table used as public data (a preset's pilot split as PubMix's public
    #: rows, the app's hold-out): named as unprotected in the ledger text (issue 21).
    unprotected_rows: int = 0
    #: True once :meth:`build` has validated the spec (the layers below then trust it).
    validated: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def build(cls, *args: Any, **kw: Any) -> "RunSpec":
        """The validated spec (validate_request), marked ``validated``.

        Parameters
        ----------
        *args, **kw
            The same arguments as the constructor.

        Returns
        -------
        RunSpec
            The spec, with ``validated=True`` (the layers below then trust it).

        Raises
        ------
        BlowfishError
            BudgetError / SchemaError / PolicyError (or BlowfishError) naming the field for any invalid
            setting (validate_request).
        """
        from dataclasses import replace

        spec = cls(*args, **kw)
        validate_request(spec)
        return replace(spec, validated=True)

    @property
    def seeded(self) -> bool:
        """True for a study run (seeds given), False for release mode (seeds=None)."""
        return self.seeds is not None

    #: optional pre-grouped private table (chunked.GroupedTable or (U, counts)): used instead
    #: of ``data`` (which may then be None) for tables read in chunks (issue 15).
    grouped: Any = None
    #: optional vote engine (e.g. dask_engine.DaskEngine); None = the local engine.
    engine: Any = None

    @property
    def budget(self) -> float | None:
        """The total budget in the mechanism's own terms (rho or epsilon)."""
        return self.rho if get_mechanism(self.mechanism).budget_name == "rho" else self.epsilon


#: the historical name of the run specification.
RunRequest = RunSpec

#: methods whose noise is calibrated to the policy (Blowfish); Tab-PE is standard DP.
POLICY_METHODS = tuple(m.name for m in METHODS.values() if m.policy_aware)

EMPTY_POLICY_MESSAGE = (
    "the policy protects nothing: Hard/BF-Soft would release noise-free histograms (no record is hidden). "
    "Fix: protect at least one attribute, or set allow_empty_policy / --allow-empty-policy to run anyway"
)

NO_PROTECTION_WARNING = (
    "NO BLOWFISH PROTECTION: the policy protects nothing (record-level reach 0, no participation edges), "
    "so the Hard/BF-Soft releases were computed from noise-free histograms and hide no record."
)


def policy_is_empty(schema: Schema, policy: Policy) -> bool:
    """True when the policy protects nothing: record-level reach 0 and no participation edges (Def. 2.7).

    Parameters
    ----------
    schema : Schema
        The public schema.
    policy : Policy
        The policy.

    Returns
    -------
    bool
        True when nothing is protected.
    """
    return (not policy.participation) and record_reach(schema, policy) == 0.0


def check_soft_tau(schema: Schema, policy: Policy, methods, tau: float | None) -> None:
    """Refuse a tau so large that a soft vote's noise ratio q = tanh(r / (2 tau)) is below
    sensitivity.MIN_NOISE_RATIO (BudgetError with a tau that works; docs/DECISIONS.md "tau floor").

    r: the record-level reach for BF-Soft (Cor. 5.5), the Gower diameter for the standard-DP soft
    vote and the soft vote with Hard's noise (the spread of its distances).  Methods without tau and
    a reach of 0 (an empty policy, refused or allowed on its own) are not checked here.

    Parameters
    ----------
    schema : Schema
        The public schema.
    policy : Policy
        The policy (its record-level reach).
    methods : iterable of str
        Method names of the method table.
    tau : float or None
        Softmax temperature; None: nothing to check.

    Raises
    ------
    BudgetError
        From sensitivity.check_noise_ratio, when q is below MIN_NOISE_RATIO (with a tau that works).
    """
    if tau is None:
        return
    from ..model.sensitivity import check_noise_ratio

    for m in methods:
        meth = get_method(m)
        if not meth.needs_tau:
            continue
        if meth.soft_policy_bound:
            check_noise_ratio(record_reach(schema, policy), tau)
        else:
            check_noise_ratio(schema.gower_diameter, tau, "the Gower diameter (standard DP)")


def validate_request(req: RunRequest) -> None:
    """Raise BlowfishError naming the field for any invalid setting.

    Reference methods (MST, AIM) need a zCDP budget and their optional extra (mbi): a
    MissingDependencyError saying how to install it, before any work.  They ignore the
    policy, so an empty policy is not refused for them (only for policy-aware methods).

    Parameters
    ----------
    req : RunRequest
        The spec to check (not changed).

    Raises
    ------
    BlowfishError
        For no or repeated methods or seeds, more than MAX_SEEDS seeds, empty public rows, PWErr on
        fewer than two modelled attributes, or an empty policy for a policy-aware method (unless
        allowed); BudgetError for tau, delta or the budget; SchemaError / PolicyError from the schema
        and policy checks; MissingDependencyError for a reference method without its extra.
    """
    if not req.methods:
        raise BlowfishError("choose at least one method")
    for m in req.methods:
        get_method(m).check_mechanism(get_mechanism(req.mechanism).name)
    if len(set(req.methods)) != len(req.methods):
        raise BlowfishError("a method is listed twice")
    if needs_tau(req.methods):
        if req.tau is None:  # check_tau's own refusal of a missing tau
            raise BudgetError("tau must be a finite number > 0 (got None). Fix: use a positive temperature such as "
                              "0.03")
        check_tau(req.tau)
    mech = get_mechanism(req.mechanism)
    if mech.budget_name == "rho" or mech.samples:
        check_delta(req.delta)
    if mech.samples:
        from ..privacy.mechanisms.pubmix import check_sampling

        for m in req.methods:
            check_sampling(mech, get_method(m), req.policy, req.config.threshold_h, req.public is not None)
        if req.public is not None:
            if not isinstance(req.public, pd.DataFrame) or len(req.public) == 0:
                raise BlowfishError("public rows: give a non-empty table of the same domain")
            req.schema.encode(req.public)  # SchemaError naming the column when outside the domain
    budget = req.budget
    if budget is None:  # no budget in the mechanism's terms: the check split would make raises BudgetError
        budget = (check_rho if mech.budget_name == "rho" else check_epsilon)(budget)
    mech.split(budget, req.config.rounds, req.config.budget_weights)  # BudgetError for a bad budget
    if req.seeds is None:
        get_mechanism(req.mechanism, sampler="opendp")  # release mode needs an OpenDP sampler
    elif not req.seeds:
        raise BlowfishError("give at least one seed")
    if len(req.seeds or ()) > MAX_SEEDS:
        raise BlowfishError(f"at most {MAX_SEEDS} seeds per comparison (got {len(req.seeds or ())})")
    if req.seeds is not None and len(set(req.seeds)) != len(req.seeds):
        raise BlowfishError("a seed is listed twice")
    check_seeds(req.seeds or ())
    req.config.validate()
    req.policy.validate(req.schema)
    check_integer_bounds(req.schema)
    if (req.metric is None or req.metric[0] == "pwerr") and req.schema.p < 2:
        raise BlowfishError(
            f"PWErr needs at least two modeled attributes (the schema has {req.schema.p}). "
            "Fix: model two or more columns"
        )
    if (any_policy_aware(req.methods) and not req.allow_empty_policy
            and policy_is_empty(req.schema, req.policy)):
        raise BlowfishError(EMPTY_POLICY_MESSAGE)
    if needs_tau(req.methods):
        check_soft_tau(req.schema, req.policy, req.methods, req.tau)
    for m in req.methods:
        if get_method(m).is_reference:
            from ..baselines.run import require_reference

            require_reference(get_method(m))
