"""The run specification: ``RunSpec`` (historically ``RunRequest``), validated once by
:meth:`RunSpec.build` / :func:`validate_request`, and the policy checks every front end shares.

Split from :mod:`blowfish_core.synthesis.experiment` (issue 22) so that the reports
(:mod:`blowfish_core.synthesis.report`) read the spec without importing the runs that call them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..privacy.accounting import check_delta, check_epsilon, check_rho
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError
from ..base.input_checks import check_integer_bounds, check_seeds
from ..algorithm.config import SynthConfig
from ..privacy.mechanisms import DEFAULT_MECHANISM, MECHANISMS, Mechanism, budget_of, get_mechanism
from ..algorithm.methods import METHODS, Method, get_method
from ..model.policy import Policy, record_reach
from ..model.schema import Schema
from ..model.votes import check_tau

MAX_SEEDS = 50


@dataclass(frozen=True)
class Choice:
    """A front end's choice of methods, mechanism, budget and tau, parsed and checked once (the CLI's
    ``synth`` and ``Synthesizer.fit``: parsing.parse_methods, parse_noise, parse_budget, require_tau
    and Method.check_mechanism, with their front-end messages, before any table is read).

    ``RunSpec.build(..., choice=c)`` takes these as checked when they are the spec's own settings
    (the same method and mechanism objects of the tables, the same rho, epsilon, delta and tau); a
    choice that differs is ignored and every setting is checked.

    methods: the Method of each chosen name, in order; mechanism: the registry Mechanism (study
    sampler); rho / epsilon: the checked total budget (zCDP rho, or epsilon; the other None);
    delta: the checked reporting delta; tau: the checked temperature (None when no method needs one).
    """

    methods: tuple[Method, ...]
    mechanism: Mechanism
    rho: float | None
    epsilon: float | None
    delta: float
    tau: float | None


@dataclass(frozen=True)
class Checked:
    """What :meth:`RunSpec.build` checked and resolved, once (issue 22 "validate once"): the layers
    below the spec read these and never re-derive them.

    methods: the Method of each name of ``RunSpec.methods`` (same order); mechanism: the registry
    Mechanism (study sampler 'numpy'); release_mechanism: its release-sampler entry (seeds None),
    else None; budget: the total in the mechanism's own terms (rho or epsilon, decided here by
    privacy.mechanisms.budget_of); budgets: (rounds,) float64 per-round budgets (``mechanism.split``;
    None for a sampling mechanism, whose plan is made per run from n); reach: the record-level reach
    (Cor. 5.2, Gower units); tau: the checked temperature (None when no method needs one); config:
    the SynthConfig as it was checked (a copy: the runs use it).
    """

    methods: tuple[Method, ...]
    mechanism: Mechanism
    release_mechanism: Mechanism | None
    budget: float | None
    budgets: Any
    reach: float
    tau: float | None
    config: SynthConfig

    def method(self, name: str) -> Method:
        """The Method of ``name``, one of the spec's methods (KeyError for another name)."""
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(name)

    def mechanism_for(self, sampler: str) -> Mechanism:
        """The run's mechanism with noise sampler ``sampler`` ('numpy': study streams; 'opendp': a
        release), as mechanisms.get_mechanism gives it (BlowfishError when it has none)."""
        if sampler == "numpy":
            return self.mechanism
        if sampler == "opendp" and self.release_mechanism is not None:
            return self.release_mechanism
        return get_mechanism(self.mechanism.name, sampler=sampler)


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
    Sampling release steps (mechanism 'pubmix' / 'linmix' / 'pubmix-floor', papers/003; hard-vote methods
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
    mechanism: str = DEFAULT_MECHANISM
    epsilon: float | None = None
    public: pd.DataFrame | None = None
    public_source: str = ""
    #: release with a domain read off the private table anyway (the release gate then labels it
    #: release_gate.NOT_DP_LABEL); refused without it (issue 21).
    allow_data_domain: bool = False
    #: rows of the sensitive table used as public data (a preset's pilot split as PubMix's public
    #: rows, the app's hold-out): named as unprotected in the ledger text (issue 21).
    unprotected_rows: int = 0
    #: what :meth:`build` checked and resolved (Checked), None until then (the layers below trust a
    #: spec that has it).  Not an init field: ``dataclasses.replace`` makes an unchecked copy.
    _checked: Checked | None = field(default=None, init=False, compare=False, repr=False)

    @classmethod
    def build(cls, *args: Any, choice: Choice | None = None, **kw: Any) -> "RunSpec":
        """The validated spec (validate_request), marked ``validated``.

        Parameters
        ----------
        *args, **kw
            The same arguments as the constructor.
        choice : Choice, optional
            The front end's checked :class:`Choice` of these settings (trusted only when it matches
            them and holds the table objects; otherwise everything is checked here).

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
        # choice: the front end's checked Choice of these settings (not re-checked; see Choice)
        spec = cls(*args, **kw)
        object.__setattr__(spec, "_checked", _validate(spec, choice))
        return spec

    @property
    def validated(self) -> bool:
        """True once :meth:`build` (or :meth:`validate`) has checked the spec (the layers below then trust it)."""
        return self._checked is not None

    @property
    def checked(self) -> Checked:
        """What the spec's check resolved (:class:`Checked`); an unvalidated spec is checked now (its
        BlowfishError raised), without being marked."""
        return self._checked if self._checked is not None else _validate(self)

    def validate(self) -> "RunSpec":
        """This spec when validated, else a validated copy.

        Returns
        -------
        RunSpec
            ``self`` (already validated) or a validated copy.

        Raises
        ------
        BlowfishError
            BudgetError / SchemaError / PolicyError naming the field for any invalid setting.
        """
        if self._checked is not None:
            return self
        out = replace(self)
        object.__setattr__(out, "_checked", _validate(out))
        return out

    def with_tables(self, **tables: Any) -> "RunSpec":
        """A copy with other private tables, still validated: the checks read no private table.

        Parameters
        ----------
        **tables
            New values of ``data``, ``grouped`` and/or ``engine``.

        Returns
        -------
        RunSpec
            The copy, carrying this spec's checks.

        Raises
        ------
        TypeError
            For any other field.
        """
        other = sorted(set(tables) - {"data", "grouped", "engine"})
        if other:
            raise TypeError(f"with_tables replaces data, grouped and engine only (got {', '.join(other)})")
        out = replace(self, **tables)
        object.__setattr__(out, "_checked", self._checked)
        return out

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
        if self._checked is not None:
            return self._checked.budget
        return budget_of(get_mechanism(self.mechanism), self.rho, self.epsilon)


#: the historical name of the run specification.
RunRequest = RunSpec

#: methods whose noise is calibrated to the policy (Blowfish); Tab-PE is standard DP.
POLICY_METHODS = tuple(m.name for m in METHODS.values() if m.policy_aware)

EMPTY_POLICY_MESSAGE = (
    "the policy protects nothing: every policy-aware method (Hard, BF-Soft, the bf- marginal methods) would "
    "release noise-free results (no record is hidden). Fix: protect at least one attribute, or run anyway with "
    "--allow-empty-policy (command line) / allow_empty_policy=True (Python)"
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


def _protects_nothing(policy: Policy, reach: float) -> bool:
    """:func:`policy_is_empty` for a policy whose record-level reach is known (RunSpec.checked.reach)."""
    return (not policy.participation) and reach == 0.0


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
        if meth.soft_policy_bound or (meth.is_reference and meth.policy_aware):  # bf-soft-mst: the policy's too
            check_noise_ratio(record_reach(schema, policy), tau)
        else:
            check_noise_ratio(schema.gower_diameter, tau, "the Gower diameter (standard DP)")


def _check_soft_tau(schema: Schema, methods: tuple[Method, ...], tau: float | None, reach: float) -> None:
    """:func:`check_soft_tau` for resolved methods, a checked tau and the policy's reach (validate_request)."""
    if tau is None:
        return
    from ..model.sensitivity import _check_noise_ratio

    for meth in methods:
        if not meth.needs_tau:
            continue
        if meth.soft_policy_bound or (meth.is_reference and meth.policy_aware):  # bf-soft-mst: the policy's too
            _check_noise_ratio(reach, tau)
        else:
            _check_noise_ratio(schema.gower_diameter, tau, "the Gower diameter (standard DP)")


def _resolve(req: RunRequest) -> tuple[tuple[Method, ...], Mechanism]:
    """The Method of each name of ``req.methods`` and the mechanism, each looked up once; BlowfishError
    for an unknown name or a method that refuses the mechanism, in the order of the names."""
    first = get_method(req.methods[0])
    mech = get_mechanism(req.mechanism)
    first.check_mechanism(mech.name)
    meths = [first]
    for m in req.methods[1:]:
        meth = get_method(m)
        meth.check_mechanism(mech.name)
        meths.append(meth)
    return tuple(meths), mech


def _is_choice_of(choice: Choice | None, req: RunRequest) -> bool:
    """True when ``choice`` holds the spec's own settings, objects of the method and mechanism tables."""
    if not isinstance(choice, Choice) or MECHANISMS.get(req.mechanism) is not choice.mechanism:
        return False
    if [m.name for m in choice.methods] != list(req.methods) or any(METHODS.get(m.name) is not m
                                                                   for m in choice.methods):
        return False
    if any(m.needs_tau for m in choice.methods) and choice.tau is None:
        return False
    return (choice.rho, choice.epsilon, choice.delta, choice.tau) == (req.rho, req.epsilon, req.delta, req.tau)


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
    _validate(req)


def _validate(req: RunRequest, choice: Choice | None = None) -> Checked:
    """:func:`validate_request`, returning what it checked and resolved (Checked, which RunSpec.build
    keeps on the spec); ``choice``: the front end's Choice of the spec's own settings, not re-checked."""
    if not req.methods:
        raise BlowfishError("choose at least one method")
    trusted = choice is not None and _is_choice_of(choice, req)
    if choice is not None and trusted:  # the front end looked these up and checked them
        meths, mech, tau = tuple(choice.methods), choice.mechanism, choice.tau
    else:
        (meths, mech), tau = _resolve(req), req.tau
    if len(set(req.methods)) != len(req.methods):
        raise BlowfishError("a method is listed twice")
    need_tau = any(m.needs_tau for m in meths)
    tau = (tau if trusted else check_tau(tau)) if need_tau else None
    if not trusted and (mech.budget_name == "rho" or mech.samples):
        check_delta(req.delta)
    if mech.samples:
        from ..privacy.mechanisms.pubmix import check_sampling

        for meth in meths:
            check_sampling(mech, meth, req.policy, req.config.threshold_h, req.public is not None)
        if req.public is not None:
            if not isinstance(req.public, pd.DataFrame) or len(req.public) == 0:
                raise BlowfishError("public rows: give a non-empty table of the same domain")
            req.schema.encode(req.public)  # SchemaError naming the column when outside the domain
    total = budget_of(mech, req.rho, req.epsilon)  # the rho-versus-epsilon decision, made once per run
    if total is None:  # no budget in the mechanism's terms: its check raises the BudgetError naming it
        total = (check_rho if mech.budget_name == "rho" else check_epsilon)(total)
    budgets = mech.split(total, req.config.rounds, req.config.budget_weights,
                         checked=trusted)  # BudgetError for a bad budget (or weights)
    release_mech = None
    if req.seeds is None:
        release_mech = get_mechanism(req.mechanism, sampler="opendp")  # release mode needs an OpenDP sampler
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
    # fewer than two modelled columns: PWErr is skipped with a note (run_paired), never a refusal (issue 27)
    reach = record_reach(req.schema, req.policy)
    if (any(m.policy_aware for m in meths) and not req.allow_empty_policy
            and _protects_nothing(req.policy, reach)):
        raise BlowfishError(EMPTY_POLICY_MESSAGE)
    if need_tau:
        _check_soft_tau(req.schema, meths, tau, reach)
    for meth in meths:
        if meth.is_reference:
            from ..baselines.run import require_reference

            require_reference(meth)
    if not mech.samples:
        budgets.flags.writeable = False  # read by every run of the spec
    return Checked(meths, mech, release_mech, total, None if mech.samples else budgets, reach, tau,
                   copy.deepcopy(req.config))
