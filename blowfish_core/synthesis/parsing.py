"""What every front end parses, in one place (CLI flags and Studio boxes alike).

Each parser takes the field's name as the user sees it (``--population`` on the
CLI, ``population schedule`` in the app), so both accept and refuse the same inputs
with the same message.  Method and mechanism names are read from their tables
(blowfish_core.algorithm.methods, blowfish_core.privacy.mechanisms); nothing else parses them.
Every failure raises an engine error (BlowfishError / BudgetError) naming the field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..privacy.accounting import check_delta, check_epsilon, check_rho, rho_from_budget
from ..base.constants import DEFAULT_DELTA, DEFAULT_DELTA_TEXT
from ..base.errors import BlowfishError, BudgetError
from ..privacy.mechanisms import ADDITIVE, DEFAULT_MECHANISM, MECHANISMS, SAMPLING, Mechanism, get_mechanism
from ..algorithm.methods import METHODS, Method, tau_methods
from ..model.policy import AttributePolicy, Policy, parse_protect_spec
from ..model.votes import check_tau
from .spec import MAX_SEEDS


def parse_methods(text: str | list[str], name: str = "--method") -> list[str]:
    """Method names from "tab-pe,hard,bf-soft" (or a list), lower-cased, in the given order.

    Parameters
    ----------
    text : str or list of str
        Comma-separated names, or a list of names (blank entries are dropped).
    name : str, optional
        The field's name in messages (default the CLI flag ``--method``).

    Returns
    -------
    list of str
        Names of the method table.

    Raises
    ------
    BlowfishError
        Naming ``name`` for an unknown method.
    """
    parts = text.split(",") if isinstance(text, str) else list(text)
    methods = [m.strip().lower() for m in parts if m.strip()]
    for m in methods:
        if m not in METHODS:
            raise BlowfishError(f"{name}: unknown method '{m}'; use {', '.join(METHODS)}")
    return methods


def require_tau(methods: list[str], tau: float | None, name: str = "--tau") -> float | None:
    """tau validated when a chosen method needs it, and refused when none does.

    A tau no method uses would be ignored, yet the report would record a tau and a noise ratio.

    Parameters
    ----------
    methods : list of str
        Names of the method table.
    tau : float or None
        Softmax temperature.
    name : str, optional
        The field's name in messages (default ``--tau``).

    Returns
    -------
    float or None
        The checked tau (None when no method needs it).

    Raises
    ------
    BlowfishError
        When tau is missing for a soft-vote method, or given when none is chosen; BudgetError when
        it is not a finite number > 0.
    """
    need = [m for m in methods if METHODS[m].needs_tau]
    if not need:
        if tau is not None:
            names = tau_methods()
            fix = f"--method {','.join(methods)},bf-soft" if name.startswith("--") else "method 'bf-soft'"
            votes = [m for m in names if METHODS[m].vote is not None]
            marginals = [m for m in names if METHODS[m].vote is None]  # bf-soft-mst: soft marginals, no vote
            users = f"votes ({', '.join(votes)})" + (f" and soft marginals ({', '.join(marginals)})" if marginals else "")
            raise BlowfishError(f"{name} {tau!r}: no chosen method ({', '.join(methods)}) uses tau; only the soft "
                                f"{users} do, so it would be ignored. Fix: drop {name}, "
                                f"or choose a soft-vote method (e.g. {fix})")
        return tau
    if tau is None:
        names = tau_methods()
        raise BlowfishError(f"{name} is required for {', '.join(names[:-1])} and {names[-1]} (e.g. {name} 0.03)")
    return check_tau(tau)


def parse_mechanism(text: str | None, name: str = "--mechanism") -> str:
    """A mechanism name of the registry (None -> 'gaussian').

    Parameters
    ----------
    text : str or None
        The name as typed (case and surrounding spaces ignored).
    name : str, optional
        The field's name in messages (default ``--mechanism``).

    Returns
    -------
    str
        A MECHANISMS name.

    Raises
    ------
    BlowfishError
        Naming ``name`` for a name the registry does not have.
    """
    if text is None:
        return DEFAULT_MECHANISM
    m = str(text).strip().lower()
    if m not in MECHANISMS:
        raise BlowfishError(f"{name}: unknown mechanism '{m}'; use {', '.join(ADDITIVE)} "
                            f"(or --noise {'|'.join(SAMPLING)})")
    return m


#: the --noise choices: the release step of the vote histogram (contract: gaussian|pubmix|linmix): the
#: default additive mechanism (its --mechanism picks another additive one), then the sampling steps.
NOISE_STEPS = (DEFAULT_MECHANISM,) + SAMPLING
#: retired noise-step names -> what they are called now (an unknown value's message adds the hint).
RETIRED_NOISE_STEPS = {"pubmix-remark45": "retired: Remark 4.5's law is now the default, 'pubmix'"}


def mechanism_field(noise: str | None, mechanism: str | None, name: str = "--noise",
                    mechanism_name: str = "--mechanism") -> str:
    """The field that chose the run's mechanism, as the front end calls it (for the messages of
    Method.check_mechanism): ``name`` when a noise step was given and no additive mechanism
    (``--noise pubmix`` / ``noise="pubmix"``), else ``mechanism_name``.

    Parameters
    ----------
    noise, mechanism : str or None
        The two fields as given (None: not given; the API passes None for its default mechanism).
    name, mechanism_name : str, optional
        The two fields' names (default ``--noise``, ``--mechanism``; the API: ``noise``, ``mechanism``).

    Returns
    -------
    str
        ``name`` or ``mechanism_name``.
    """
    return name if noise is not None and mechanism is None else mechanism_name


def parse_noise(noise: str | None, mechanism: str | None, name: str = "--noise",
                mechanism_name: str = "--mechanism") -> str:
    """The run's mechanism from --noise (the release step) and --mechanism (the additive noise).

    noise 'gaussian' (default): add noise to the vote histogram with ``mechanism``
    ('gaussian' default, or 'laplace'), then resample.  noise 'pubmix' / 'linmix' / 'pubmix-floor':
    draw from the PubMix / LinMix mixture instead (papers/003); ``mechanism`` must then be
    None (it names an additive step that would not run).

    Parameters
    ----------
    noise : str or None
        The release step: 'gaussian' (None), 'pubmix', 'linmix' or 'pubmix-floor'.
    mechanism : str or None
        The additive mechanism ('gaussian' or 'laplace'), or None.
    name, mechanism_name : str, optional
        The two fields' names in messages (default ``--noise``, ``--mechanism``).

    Returns
    -------
    str
        A MECHANISMS name.

    Raises
    ------
    BlowfishError
        Naming the fields for an unknown value or a conflicting pair.
    """
    nz = DEFAULT_MECHANISM if noise is None else str(noise).strip().lower()
    if nz not in NOISE_STEPS:
        retired = f" ({RETIRED_NOISE_STEPS[nz]})" if nz in RETIRED_NOISE_STEPS else ""
        raise BlowfishError(f"{name}: unknown noise step '{nz}'{retired}; use {', '.join(NOISE_STEPS)}")
    if mechanism is not None:
        mech = str(mechanism).strip().lower()
        if mech in SAMPLING:
            raise BlowfishError(f"{mechanism_name} {mech}: a sampling release step is chosen with {name} {mech}. "
                                f"Fix: write {name} {mech}")
        mech = parse_mechanism(mech, mechanism_name)
        if nz != DEFAULT_MECHANISM:
            raise BlowfishError(f"{name} {nz} replaces the additive-noise step, so {mechanism_name} {mech} "
                                f"conflicts with it. Fix: drop {mechanism_name} (or use {name} gaussian)")
        return mech
    return nz


@dataclass(frozen=True)
class Budget:
    """A parsed budget: mechanism, total rho (Gaussian) or epsilon (Laplace), reporting delta, source text."""

    mechanism: str
    rho: float | None
    epsilon: float | None
    delta: float
    source: str


def parse_budget(rho: float | None = None, epsilon: float | None = None, delta: float | None = None,
                 mechanism: "str | Mechanism | None" = None, conversion: str | None = None, flags: bool = True,
                 methods: Sequence[Method] = ()) -> Budget:
    """The run's budget from rho / (epsilon, delta) and the mechanism.

    Gaussian: give rho, or epsilon (with delta, default 1e-5), converted to rho once by ``conversion``
    (default :func:`run_conversion` of ``methods``: the exact mu-GDP curve for Algorithm 1's all-Gaussian
    ledgers, Eq. (1) when a method's ledger is totalled by Eq. (1), MST/AIM), so the epsilon the run's
    ledger reports is the epsilon chosen (issue 24 "One epsilon").  Laplace: give epsilon only (pure DP
    has no delta and no rho).  PubMix / LinMix: epsilon at delta (PLD).  A conversion given with rho
    (nothing to convert) is refused, not ignored.

    Parameters
    ----------
    rho : float, optional
        Total zCDP budget (Gaussian).
    epsilon : float, optional
        epsilon in nats (converted to rho for the Gaussian mechanism).
    delta : float, optional
        DP delta in (0, 1) (default 1e-5; none for Laplace).
    mechanism : str, optional
        A MECHANISMS name (default 'gaussian').
    conversion : str, optional
        'exact' (the default when None) or 'eq1', for epsilon -> rho.
    flags : bool, default True
        Name the CLI flags (--rho ...) in messages, else the field names.
    methods : sequence of Method, optional
        The run's methods (their ``epsilon_conversion`` picks the default conversion).

    Returns
    -------
    Budget
        The mechanism, rho or epsilon, the reporting delta (0 for pure DP) and the source text.

    Raises
    ------
    BlowfishError
        Naming the field for a missing budget or a combination that does not apply (``conversion``
        'exact' with a method whose ledger is totalled by Eq. (1) included); BudgetError for a bad value.
    """
    # mechanism: a name, or the registry Mechanism a front end resolved already (not looked up again)
    m = (get_mechanism(parse_mechanism(mechanism, "--mechanism" if flags else "mechanism"))
         if mechanism is None or isinstance(mechanism, str) else mechanism)
    mech = m.name
    f = (lambda s: f"--{s}") if flags else (lambda s: s)
    gaussian = m.budget_name == "rho" and not m.samples
    if conversion is not None and not gaussian:
        raise BlowfishError(f"{f('conversion')} {conversion} converts a Gaussian (zCDP) budget; {mech} takes "
                            f"{f('epsilon')} as it is. Fix: drop {f('conversion')}")
    if m.samples:  # PubMix / LinMix: (epsilon, delta), PLD ledger
        if rho is not None:
            raise BlowfishError(f"{f('rho')} is a zCDP budget; {f('noise')} {mech} is (epsilon, delta)-DP. "
                                f"Fix: give {f('epsilon')} E {f('delta')} D")
        if epsilon is None:
            raise BlowfishError(f"give a budget: {f('epsilon')} E (with {f('delta')} D, default {DEFAULT_DELTA_TEXT}) "
                                f"with {f('noise')} {mech}")
        d = DEFAULT_DELTA if delta is None else delta
        check_delta(d)
        eps = check_epsilon(epsilon)
        return Budget(mech, None, eps, d, f"epsilon={eps:g}, delta={d:g} ({mech}, PLD)")
    if m.budget_name == "epsilon":
        if delta is not None:
            raise BlowfishError(f"{f('delta')} does not apply to {f('mechanism')} {mech}: pure epsilon-DP has no "
                                f"delta. Fix: drop {f('delta')}")
        if rho is not None:
            raise BlowfishError(f"{f('rho')} is a zCDP budget; {f('mechanism')} {mech} takes {f('epsilon')} E")
        if epsilon is None:
            raise BlowfishError(f"give a budget: {f('epsilon')} E with {f('mechanism')} {mech}")
        eps = check_epsilon(epsilon)
        return Budget(mech, None, eps, 0.0, f"epsilon={eps:g} (pure DP)")
    d = DEFAULT_DELTA if delta is None else delta
    check_delta(d)
    if rho is not None and epsilon is not None:
        raise BlowfishError(f"give either {f('rho')} or {f('epsilon')}/{f('delta')}, not both")
    if rho is not None:
        if conversion is not None:
            raise BlowfishError(f"{f('conversion')} {conversion} converts {f('epsilon')} to rho; with "
                                f"{f('rho')} there is nothing to convert. Fix: drop {f('conversion')}")
        return Budget(mech, check_rho(rho), None, d, "rho")
    if epsilon is not None:
        conversion = _conversion_for(methods, conversion, f)
        r = rho_from_budget(epsilon=epsilon, delta=d, conversion=conversion)
        return Budget(mech, r, None, d, f"epsilon={epsilon:g}, delta={d:g} via {conversion}")
    raise BlowfishError(f"give a budget: {f('rho')} R, or {f('epsilon')} E {f('delta')} D")


def run_conversion(methods: Sequence[Method]) -> str:
    """The epsilon -> rho conversion of a run of ``methods``: 'eq1' when any method's ledger is totalled
    by Eq. (1) (``Method.epsilon_conversion``; MST/AIM, whose Gaussian + exponential rows the exact
    Gaussian curve does not cover, design/selection.md B4), else 'exact' (the mu-GDP curve).

    Parameters
    ----------
    methods : sequence of Method
        The run's methods (empty: 'exact').

    Returns
    -------
    str
        'exact' or 'eq1'.
    """
    return "eq1" if any(m.epsilon_conversion == "eq1" for m in methods) else "exact"


def _conversion_for(methods: Sequence[Method], conversion: str | None, f: Callable[[str], str]) -> str:
    """The conversion to use: ``conversion`` if given, else the methods' (run_conversion); an explicit
    'exact' with a method whose ledger states epsilon by Eq. (1) is refused (its ledger would report a
    larger epsilon than the one chosen)."""
    needed = run_conversion(methods)
    if conversion is None:
        return needed
    if conversion == "exact" and needed == "eq1":
        eq1 = ", ".join(m.name for m in methods if m.epsilon_conversion == "eq1")
        raise BlowfishError(f"{f('conversion')} exact: the ledger of {eq1} (Gaussian measurements and exponential "
                            f"selections) states epsilon by Eq. (1), so it would report a larger epsilon than the "
                            f"{f('epsilon')} you chose. Fix: drop {f('conversion')} (the run converts by Eq. (1))")
    return conversion


def parse_population(text: str | None, rounds: int, name: str = "--population",
                     rounds_name: str = "--rounds") -> list[int] | None:
    """Candidates per round from "512x3,1024x5" (size x repeat count; "x1" may be omitted).

    Parameters
    ----------
    text : str or None
        The schedule; empty / None -> None (the paper's schedule).
    rounds : int
        The number of rounds T the schedule must add up to.
    name, rounds_name : str, optional
        The fields' names in messages (default ``--population``, ``--rounds``).

    Returns
    -------
    list of int or None
        m_t per round (length ``rounds``), or None.

    Raises
    ------
    BlowfishError
        Naming ``name`` for an unreadable part, a size or count < 1, or a total != rounds.
    """
    if not text or not str(text).strip():
        return None
    sizes: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        size, _, times = part.lower().partition("x")
        try:
            k, t = int(size), (int(times) if times.strip() else 1)
        except ValueError:
            raise BlowfishError(f"{name}: cannot read {part!r}. Fix: write candidates per round "
                                "as size x rounds, e.g. 512x3,1024x5") from None
        if k < 1 or t < 1:
            extra = f"; it repeats a size {t} times" if t < 1 else ""
            raise BlowfishError(f"{name}: {part!r}: sizes and repeat counts must be whole numbers >= 1{extra}. "
                                "Fix: use e.g. 512x3,1024x5")
        sizes += [k] * t
    if len(sizes) != rounds:
        raise BlowfishError(f"{name} lists {len(sizes)} round(s) but {rounds_name} is {rounds}. Fix: make "
                            "the counts add up to the rounds (e.g. 512x3,1024x5 for 8 rounds), or leave the "
                            "schedule empty for the paper's default")
    return sizes


def parse_seeds(text: str, name: str = "--seeds") -> list[int]:
    """Seeds from "0,1,2" (whole numbers).

    Parameters
    ----------
    text : str
        Comma-separated whole numbers.
    name : str, optional
        The field's name in messages (default ``--seeds``).

    Returns
    -------
    list of int
        The seeds, in the given order.

    Raises
    ------
    BlowfishError
        Naming ``name`` for an empty entry or one that is not a whole number.
    """
    parts = [x.strip() for x in str(text).split(",")]
    if any(x == "" for x in parts):
        raise BlowfishError(f"{name}: an empty entry in {text!r}; use whole numbers like 0,1,2")
    try:
        return [int(x) for x in parts]
    except ValueError:
        raise BlowfishError(f"{name}: expected whole numbers like 0,1,2 (got {text!r})") from None


def parse_positive_grid(text: str, name: str, item: str, example: str, check) -> set[float]:
    """Distinct values from text like "1e-4, 6e-4; 3e-3" (commas, semicolons or spaces).

    Count limits are the caller's.

    Parameters
    ----------
    text : str
        The grid, entries separated by commas, semicolons or spaces.
    name : str
        The grid's label in messages ("tau grid").
    item : str
        What one entry is ("temperature").
    example : str
        A valid list for the fix.
    check : callable
        Validator raising BudgetError (e.g. check_rho); returns the checked float.

    Returns
    -------
    set of float
        The distinct checked values.

    Raises
    ------
    BudgetError
        Naming the bad entry (not a number, or refused by ``check``).
    """
    out: set[float] = set()
    for p in str(text).replace(";", ",").replace(" ", ",").split(","):
        if not p.strip():
            continue
        try:
            v = float(p)
        except ValueError:
            raise BudgetError(f"{name}: {p.strip()!r} is not a number. Fix: list {example}") from None
        try:
            out.add(check(v))
        except BudgetError:
            raise BudgetError(f"{name}: every {item} must be a finite number > 0 (got {p.strip()})") from None
    return out


def apply_protect(policy: Policy, specs: list[str], preset=None, name: str = "--protect") -> Policy:
    """``policy`` with ATTR[=SPEC] items applied (SPEC = threshold:VALUE | block | complete | hierarchy | none).

    With a preset, a bare ATTR (or 'block') takes the preset's Table 3 graph (Preset.policy_with);
    without one, SPEC must be explicit.

    Parameters
    ----------
    policy : Policy
        The policy to start from (not changed).
    specs : list of str
        ATTR[=SPEC] items, each attribute at most once.
    preset : Preset, optional
        The preset whose Table 3 graphs a bare ATTR takes.
    name : str, optional
        The field's name in messages (default ``--protect``).

    Returns
    -------
    Policy
        The new policy (participation kept).

    Raises
    ------
    BlowfishError
        Naming ``name`` for an attribute named twice, or a bare ATTR / 'block' without a preset;
        PolicyError for an unreadable SPEC.
    """
    _refuse_repeats(specs, name)
    if preset is not None:
        return preset.policy_with(specs, base=policy)
    per = dict(policy.per_attribute)
    for item in specs:
        attr, kind, theta = parse_protect_spec(item)
        if kind in ("", "block"):
            raise BlowfishError(f"{name} {item}: without a preset, give an explicit SPEC "
                                "(threshold:VALUE, complete, hierarchy, none) or use --policy for blocks")
        if kind == "none":
            per.pop(attr, None)
        else:
            per[attr] = AttributePolicy(kind, theta=theta)
    return Policy(per, policy.participation)


def _refuse_repeats(specs: list[str], name: str) -> None:
    """Raise BlowfishError when one attribute is named by two ATTR[=SPEC] items (the later one would win silently)."""
    seen: dict[str, list[str]] = {}
    for item in specs:
        seen.setdefault(str(item).split("=", 1)[0].strip(), []).append(str(item))
    twice = {a: items for a, items in seen.items() if len(items) > 1}
    if twice:
        listed = "; ".join(f"{a}: {', '.join(items)}" for a, items in twice.items())
        raise BlowfishError(f"{name} names an attribute more than once ({listed}). Fix: give each attribute once")


def seed_range(count, first=0, name: str = "number of paired seeds") -> list[int]:
    """Paired seeds first, first+1, ..., first+count-1 (the app's two boxes).

    Parameters
    ----------
    count : int
        How many seeds, 1 to spec.MAX_SEEDS.
    first : int, optional
        The first seed, >= 0 (default 0).
    name : str, optional
        The count's name in messages.

    Returns
    -------
    list of int
        The seeds.

    Raises
    ------
    BlowfishError
        For a count < 1 or above spec.MAX_SEEDS, or a first seed < 0 (or not whole numbers).
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise BlowfishError(f"{name} must be a whole number >= 1 (got {count!r})")
    if count > MAX_SEEDS:
        raise BlowfishError(f"{name}: at most {MAX_SEEDS} per comparison (got {count}). "
                            f"Fix: use {MAX_SEEDS} or fewer")
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise BlowfishError(f"first seed must be a whole number >= 0 (got {first!r})")
    return list(range(first, first + count))


@dataclass(frozen=True)
class SelectionBudget:
    """A parsed selection budget: the exponential mechanism's epsilon_sel (nats) and its zCDP cost
    rho_sel = epsilon_sel^2 / 8 (bounded range; selection.selection_rho)."""

    epsilon: float
    rho: float
    source: str


def parse_selection_budget(rho_sel: float | None = None, epsilon_sel: float | None = None,
                           flags: bool = True) -> SelectionBudget:
    """The selection budget from rho_sel (zCDP) or epsilon_sel (pure DP of the exponential mechanism).

    Give exactly one; epsilon_sel = sqrt(8 rho_sel).

    Parameters
    ----------
    rho_sel : float, optional
        zCDP cost of the selection.
    epsilon_sel : float, optional
        Pure-DP epsilon of the exponential mechanism, in nats.
    flags : bool, default True
        Name the CLI flags (--rho-sel, --epsilon-sel) in messages, else the field names (rho_sel,
        epsilon_sel).

    Returns
    -------
    SelectionBudget
        epsilon_sel, rho_sel = epsilon_sel^2 / 8 and the source text.

    Raises
    ------
    BlowfishError
        When both or neither are given; BudgetError for a bad value (naming the field).
    """
    from ..privacy.selection import selection_epsilon, selection_rho

    r_name, e_name = ("--rho-sel", "--epsilon-sel") if flags else ("rho_sel", "epsilon_sel")
    if rho_sel is not None and epsilon_sel is not None:
        raise BlowfishError(f"give either {r_name} or {e_name}, not both (epsilon_sel = sqrt(8 rho_sel))")
    if rho_sel is not None:
        r = check_rho(rho_sel, name=r_name)
        return SelectionBudget(selection_epsilon(r), r, f"{r_name}={r:g}")
    if epsilon_sel is not None:
        e = check_epsilon(epsilon_sel, name=e_name)
        return SelectionBudget(e, selection_rho(e), f"{e_name}={e:g}")
    raise BlowfishError(f"give a selection budget: {r_name} R (zCDP, e.g. 1e-4) or {e_name} E")
