"""UI helpers of the Synthesis Runner and Temperature Pilot pages (no math here).

The pages gather inputs, call the engine (blowfish_core.synthesis.experiment / sweeps / pilot)
and draw.  This module turns widget values into engine requests, stores results
only after a run succeeded, and builds the tables the pages show.

Session-state contract of the two pages:
    runner_settings : dict   persistent Runner inputs (widget keys "rn_*", incl. "rn_noise" = the noise
                             step gaussian / pubmix / linmix); the Temperature Pilot writes its
                             choice here (carry_to_runner).  tau is not among them: it is the
                             session's studio.state.TAU_KEY (run_inputs adds it as "rn_tau")
    runner_results  : dict   run id -> record (see execute_run); the last MAX_KEPT runs
    runner_next_id  : int    next run id
    runner_show     : int    id of the run shown
    runner_stop     : bool   Stop was clicked (checked by should_stop between rounds)
    runner_sweeps   : dict   sweep id -> SweepResult record
    pilot_result    : dict   last successful pilot record
    pilot_stop      : bool   Stop was clicked on the pilot page
"""

from __future__ import annotations

import io
import json
import zipfile
import math
from typing import Any, Callable, MutableMapping

import pandas as pd

from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.base.errors import BlowfishError
from blowfish_core.algorithm.evolution import MUTATION_INDEX, RANK_BY, RELEASE_MODES, SCHEDULES, SynthConfig
from blowfish_core.synthesis.experiment import PairedResult, run_paired
from blowfish_core.synthesis.spec import RunRequest, RunSpec
from blowfish_core.algorithm import methods as method_table
from blowfish_core.synthesis import parsing
from blowfish_core.privacy.accounting import epsilon_exact
from blowfish_core.privacy.mechanisms import DEFAULT_MECHANISM, get_mechanism
from blowfish_core.privacy.mechanisms.pubmix import supports
from blowfish_core.algorithm.methods import METHOD_LABELS
from blowfish_core.workflows.sweeps import parse_epsilon_grid, parse_rho_grid, round_errors

#: methods the user picks; 'soft-hard-noise' is added by the decomposition option.
#: every method of the engine's table, in its order; the decomposition method is added by its checkbox.
METHOD_ORDER = tuple(method_table.METHODS)
USER_METHODS = tuple(m for m in METHOD_ORDER if m != method_table.DECOMPOSITION.name)
BUDGET_MODES = ("rho (zCDP)", "epsilon, delta")
#: the default budget entry: the session's epsilon-first budget (studio.budget_ui), one source for every page;
#: the page turns it into BUDGET_MODES[0] with the session's rho (session_budget_settings).
SESSION_BUDGET = "session budget (ε above)"
#: how the Runner words a mechanism's privacy notion, by its declared ``accountant`` (else its ``budget_name``).
NOTION_WORDS = {"gdp-exact": "zCDP", "zcdp-eq1": "zCDP", "pure-sum": "pure ε-DP", "pld": "(ε, δ)",
                "rho": "zCDP", "epsilon": "ε-DP"}


def mechanism_label(name: str | None) -> str:
    """The mechanism's declared ``label`` ('Gaussian', 'PubMix', ...), the name the page shows."""
    return str(get_mechanism(name or DEFAULT_MECHANISM).label)


def needs_public(name: str | None) -> bool:
    """Whether the noise step needs public rows (its declared ``needs_public``: PubMix, not LinMix)."""
    return bool(get_mechanism(name or DEFAULT_MECHANISM).needs_public)


def notion_words(name: str | None) -> str:
    """The privacy notion of a mechanism in words, from its declared accountant / budget_name ('zCDP', '(ε, δ)')."""
    m = get_mechanism(name or DEFAULT_MECHANISM)
    return NOTION_WORDS.get(m.accountant) or NOTION_WORDS.get(m.budget_name, m.budget_name)


def noise_step_label(name: str) -> str:
    """The "Noise step" choice: label and notion, plus "hard votes" for a sampling step (``samples``)."""
    m = get_mechanism(name)
    return f"{m.label} ({notion_words(name)}{', hard votes' if m.samples else ''})"


def noise_step_help(name: str) -> str:
    """One sentence per noise step from its declared capabilities (samples, scale_name, needs_public)."""
    m = get_mechanism(name)
    if not m.samples:
        return (f"{m.label}: add {notion_words(name)} noise (scale {m.scale_name}_t) to the vote histogram, "
                "then resample.")
    src = getattr(m, "law_words", None) or ("P_nse from " + ("the public pilot rows" if m.needs_public
                                                            else "no public rows (uniform noise)"))
    return (f"{m.label} (papers/003): draw the parents and the release from (1 - {m.scale_name}) H/n + "
            f"{m.scale_name} P_nse, {src}; {notion_words(name)}-DP with a PLD ledger; hard votes only.")


#: the noise step of the budget sweep and the Runner's default: the default additive mechanism.
DEFAULT_NOISE = DEFAULT_MECHANISM
#: the Runner's "Noise step" (the CLI's --noise, parsing.NOISE_STEPS): name -> label, read from the mechanism table.
NOISE_STEPS: dict[str, str] = {k: noise_step_label(k) for k in parsing.NOISE_STEPS}
#: the labels of the sampling steps ("PubMix/LinMix"), for the page's notes.
SAMPLING_LABELS = "/".join(mechanism_label(k) for k in parsing.NOISE_STEPS if get_mechanism(k).samples)
#: the epsilon -> rho conversion entry that lets the run's methods choose (parsing.run_conversion).
AUTO_CONVERSION = "auto"
#: results of at most this many runs are kept in the session.
MAX_KEPT = 5

def _default_rho() -> float:
    from studio.state import default_budget

    return float(default_budget()["rho"])


def session_budget_settings(s: dict[str, Any], view: Any) -> dict[str, Any]:
    """The settings a run uses: with the SESSION_BUDGET entry, the session's budget (a
    blowfish_core.workflows.budget.BudgetView, None when the control showed an error).

    The chosen epsilon (``view.chosen_epsilon``) is passed as an epsilon entry with the automatic
    conversion, so every run (Gaussian, PubMix/LinMix, MST/AIM) spends and reports the epsilon the person
    chose (issue 24 "One epsilon"); a budget given as rho is passed as a rho entry.
    """
    if s.get("rn_budget_mode") != SESSION_BUDGET:
        return s  # a numeric entry
    if view is None or (view.rho is None and view.chosen_epsilon is None):
        raise BlowfishError("the privacy budget above is not valid. Fix: choose ε (or ρ in its Advanced entry)")
    eps = float(view.chosen_epsilon if view.chosen_epsilon is not None else view.epsilon)
    if is_sampling(s.get("rn_noise")):  # PubMix / LinMix take (epsilon, delta): the session's, not stale numbers
        return {**s, "rn_epsilon": eps, "rn_delta": float(view.delta)}
    if view.chosen_epsilon is not None:
        return {**s, "rn_budget_mode": BUDGET_MODES[1], "rn_epsilon": eps, "rn_delta": float(view.delta),
                "rn_conversion": AUTO_CONVERSION, "rn_rho": float(view.rho)}
    return {**s, "rn_budget_mode": BUDGET_MODES[0], "rn_rho": float(view.rho), "rn_epsilon": eps,
            "rn_delta": float(view.delta)}


#: Runner defaults: the paper's setting (App. F.2: 8 rounds, 512 then 1024 candidates,
#: release 512, hybrid selection, H = 0; the engine's default 'hybrid' schedule of DESIGN §3:
#: rank rounds keep the top m/2 with one child each, release = the top final counts, ranked by
#: the clipped counts, round t mutating at rate_t) with 6 paired seeds instead of 12, at
#: rho = 6e-4 (one of the paper's three highlighted budgets, epsilon ~ 0.17 by Eq. (1)).
RUNNER_DEFAULTS: dict[str, Any] = {
    "rn_methods": ["tab-pe", "hard", "bf-soft"],
    "rn_noise": DEFAULT_MECHANISM,
    "rn_decomp": False,
    "rn_budget_mode": SESSION_BUDGET,
    "rn_rho": _default_rho(),
    "rn_epsilon": 1.0,
    "rn_delta": DEFAULT_DELTA,
    "rn_conversion": "auto",
    "rn_tau": 0.03,  # build_request's input only: the page's tau is the session's (run_inputs)
    "rn_rounds": 8,
    "rn_population": "",
    "rn_release": 512,
    "rn_h": 0.0,
    "rn_selection": "hybrid",
    "rn_schedule": "hybrid",
    "rn_rank_by": SCHEDULES["hybrid"]["rank_by"],
    "rn_mutation_index": SCHEDULES["hybrid"]["mutation_index"],
    "rn_children": "from the schedule",
    "rn_release_mode": "from the schedule",
    "rn_seeds": 6,
    "rn_first_seed": 0,
    "rn_sweep_grid": "1e-4, 6e-4, 3e-3, 1e-2",
    "rn_sweep_unit": "rho",  # the grid's unit (SWEEP_UNITS): rho, or epsilon at the run's delta (issue 24)
    "rn_sweep_seeds": 3,
}
#: the budget sweep grid's units: key -> label.
SWEEP_UNITS = {"rho": "ρ (zCDP)", "epsilon": "ε (at the run's δ)"}


def sweep_rhos(text: str, unit: str, delta: float) -> list[float]:
    """The sweep's rho grid from the grid box in ``unit`` (SWEEP_UNITS; epsilon at ``delta``, the exact
    Gaussian curve the sweep reports). Raises BudgetError naming the bad entry."""
    return parse_epsilon_grid(text, delta) if unit == "epsilon" else parse_rho_grid(text)


def convert_sweep_grid(text: str, unit_from: str, unit_to: str, delta: float) -> str:
    """The grid box's text in the other unit (the same budgets: rho <-> epsilon at ``delta``), 3
    significant figures; the text unchanged when it does not parse or the unit is the same."""
    if unit_from == unit_to:
        return text
    try:
        rhos = sweep_rhos(text, unit_from, delta)
    except BlowfishError:
        return text
    vals = [float(epsilon_exact(r, delta)) for r in rhos] if unit_to == "epsilon" else rhos
    return ", ".join(f"{v:.3g}" for v in vals)

#: the Runner's "Advanced: schedule" choices, straight from the engine's tables.
SCHEDULE_CHOICES = list(SCHEDULES)
RANK_BY_CHOICES = list(RANK_BY)
MUTATION_INDEX_CHOICES = list(MUTATION_INDEX)
#: children per kept parent and the release rule: the schedule's own value first, then explicit choices.
FROM_SCHEDULE = "from the schedule"
CHILDREN_CHOICES = [FROM_SCHEDULE, 1, 2, 3]
RELEASE_MODE_CHOICES = [FROM_SCHEDULE, *RELEASE_MODES]
#: the settings keys of the schedule (the Pilot passes the Runner's along).
SCHEDULE_KEYS = ("rn_schedule", "rn_rank_by", "rn_mutation_index", "rn_children", "rn_release_mode")


def runner_settings(state: MutableMapping[str, Any], budget: dict[str, Any] | None = None) -> dict[str, Any]:
    """The persistent Runner settings dict in ``state`` (created from the defaults; no tau: see run_inputs).

    budget: the Policy Designer's extras["budget"] ({"mode", "rho", "epsilon", "delta", "rounds"}) if any.
    """
    if "runner_settings" not in state:
        s = {k: v for k, v in RUNNER_DEFAULTS.items() if k != "rn_tau"}
        s["rn_methods"] = list(s["rn_methods"])
        if budget:
            for src, dst in (("rho", "rn_rho"), ("epsilon", "rn_epsilon"), ("delta", "rn_delta")):
                if isinstance(budget.get(src), (int, float)) and not isinstance(budget.get(src), bool):
                    s[dst] = float(budget[src])
        state["runner_settings"] = s
    return state["runner_settings"]


def run_inputs(state: MutableMapping[str, Any], s: dict[str, Any] | None = None) -> dict[str, Any]:
    """A copy of the Runner's settings (``s``, else runner_settings(state)) with "rn_tau" = the
    session's tau (state[TAU_KEY]): the dict build_request, carry_message and the sweep read."""
    from studio.state import DEFAULTS, TAU_KEY

    s = runner_settings(state) if s is None else s
    return {**s, "rn_tau": float(state.get(TAU_KEY, DEFAULTS["tau"]))}


def carry_to_runner(state: MutableMapping[str, Any], method: str, tau: float | None,
                    rho: float | None = None) -> dict[str, Any]:
    """Write the pilot's choice into the Runner's settings (and drop stale widget values).

    method 'hard': the Runner runs Hard; 'bf-soft': Hard and BF-Soft (at ``tau``: the caller sets
    the session's tau with studio.state.set_tau, the one key every page reads).
    """
    s = runner_settings(state)
    if method == method_table.HARD.name:
        s["rn_methods"] = [method_table.HARD.name]
    else:
        s["rn_methods"] = [method_table.HARD.name, method_table.BF_SOFT.name]
    if rho is not None:
        s["rn_budget_mode"] = BUDGET_MODES[0]
        s["rn_rho"] = float(rho)
    s["rn_decomp"] = False
    for k in ("rn_methods", "rn_budget_mode", "rn_rho", "rn_decomp"):
        if k in state:
            del state[k]
    state["runner_carried"] = {"method": method, "tau": tau, "rho": rho}
    return s


def budget_from_inputs(mode: str, rho: Any, epsilon: Any, delta: Any, conversion: str | None,
                       methods: list[str] | None = None) -> tuple[float, float, str]:
    """(rho, delta, budget_source) from the budget widgets: the engine's budget parser (the CLI's).

    conversion: 'exact', 'eq1', or AUTO_CONVERSION / None for the methods' (parsing.run_conversion: an
    epsilon is converted with the accountant the run's ledger uses, so the reported epsilon is the chosen one).

    Raises BudgetError for rho <= 0, epsilon <= 0 or delta outside (0, 1); BlowfishError for 'exact' with
    MST/AIM in ``methods``.
    """
    eps_mode = mode == BUDGET_MODES[1]
    conv = None if conversion in (None, AUTO_CONVERSION) else conversion
    meths = tuple(method_table.METHODS[m] for m in (methods or []))
    b = parsing.parse_budget(None if eps_mode else rho, epsilon if eps_mode else None, delta,
                             conversion=conv if eps_mode else None, flags=False, methods=meths)
    return b.rho, b.delta, b.source


def is_sampling(noise: str | None) -> bool:
    """True for the sampling release steps (PubMix / LinMix): (epsilon, delta) budget, hard votes only."""
    return get_mechanism(noise or DEFAULT_MECHANISM).samples


def method_availability(noise: str | None) -> list[tuple[str, bool, str]]:
    """(method, available, reason) for every user method under the noise step (read from the method table)."""
    mech = get_mechanism(noise or DEFAULT_MECHANISM)
    return [(m, *supports(mech, method_table.METHODS[m])) for m in USER_METHODS]


def unavailable_text(methods: list[str], noise: str | None) -> str:
    """Why ``methods`` cannot run with the noise step, each reason once, from the method table
    (pubmix.supports: soft votes are outside Theorem 4.1; MST/AIM run only with the Gaussian
    mechanism), e.g. "BF-Soft: Theorem 4.1 ... not soft votes; MST, AIM: a marginal-based method (not
    Algorithm 1): it runs only with the Gaussian mechanism"; '' when every method can run."""
    why = {m: r for m, ok, r in method_availability(noise) if not ok}
    groups: dict[str, list[str]] = {}
    for m in methods:
        if m in why:
            groups.setdefault(why[m], []).append(method_table.METHODS[m].short_label)
    return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in groups.items())


def removed_note(methods: list[str], noise: str | None) -> str:
    """The notice when switching the noise step drops ``methods``: their names and their reasons."""
    names = ", ".join(method_table.METHODS[m].short_label for m in methods)
    return f"Removed from the methods: {names} ({unavailable_text(methods, noise)})."


def available_methods(noise: str | None) -> list[str]:
    """The user methods the noise step can run (PubMix/LinMix: the hard-vote methods)."""
    return [m for m, ok, _ in method_availability(noise) if ok]


def drop_unavailable(methods: list[str], noise: str | None) -> tuple[list[str], list[str]]:
    """(kept, dropped): ``methods`` split by availability under the noise step."""
    ok = set(available_methods(noise))
    return [m for m in methods if m in ok], [m for m in methods if m not in ok]


def seeds_from_inputs(count: Any, first: Any = 0) -> list[int]:
    """Paired seeds first, first+1, ..., first+count-1 (blowfish_core.synthesis.parsing.seed_range)."""
    return parsing.seed_range(count, first)


def parse_population(text: str | None, rounds: int) -> list[int] | None:
    """Candidates per round from the "Population schedule" box, e.g. "512x3,1024x5".

    The engine's parser (blowfish_core.synthesis.parsing, the CLI's too) with the box's names in messages;
    empty/None = the paper's schedule (returns None).
    """
    return parsing.parse_population(text, rounds, name="population schedule", rounds_name="Rounds T")


def config_from_inputs(s: dict[str, Any]) -> SynthConfig:
    """SynthConfig from the Runner/Pilot widgets (rounds, population text, release, H, selection,
    and the Advanced schedule: rn_schedule, rn_rank_by, rn_mutation_index, rn_children and
    rn_release_mode (FROM_SCHEDULE = the schedule's value); missing keys take RUNNER_DEFAULTS).
    The named schedule first, the widgets on top (SynthConfig.from_schedule)."""
    rounds = s["rn_rounds"]
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise BlowfishError(f"rounds must be a whole number >= 1 (got {rounds!r})")
    pop = parse_population(str(s.get("rn_population") or "").strip() or None, rounds)
    d = RUNNER_DEFAULTS
    return SynthConfig.from_schedule(
        s.get("rn_schedule", d["rn_schedule"]), rounds=rounds, population=pop, release=s["rn_release"],
        threshold_h=float(s["rn_h"]), selection=s["rn_selection"],
        rank_by=s.get("rn_rank_by", d["rn_rank_by"]),
        mutation_index=s.get("rn_mutation_index", d["rn_mutation_index"]),
        children=_unless_schedule(s.get("rn_children", d["rn_children"])),
        release_mode=_unless_schedule(s.get("rn_release_mode", d["rn_release_mode"]))).validate()


def _unless_schedule(v: Any) -> Any:
    """None (keep the schedule's value) for FROM_SCHEDULE, else the widget's value."""
    return None if v == FROM_SCHEDULE else v


def methods_from_inputs(methods: list[str], decomposition: bool) -> list[str]:
    """Chosen methods in the engine's order; the decomposition adds hard, bf-soft, soft-hard-noise."""
    chosen = set(methods)
    if decomposition:
        chosen |= {method_table.BASELINE.name, method_table.SOFT.name, method_table.DECOMPOSITION.name}
    if not chosen:
        raise BlowfishError("choose at least one method")
    return [m for m in METHOD_ORDER if m in chosen]


def build_request(studio: Any, s: dict[str, Any]) -> RunRequest:
    """RunRequest from the studio (data, schema, policy, metric) and the Runner settings.

    Raises BlowfishError (naming the field) for every bad setting, before any work.
    """
    if not getattr(studio, "has_rows", len(studio.private) > 0):
        raise BlowfishError(f"{studio.dataset_name}: the private table has no rows. Fix: load the table in the "
                            "Policy Designer (synthesis needs the records; policy design does not)")
    noise = s.get("rn_noise") or DEFAULT_MECHANISM
    sampling = is_sampling(noise)
    methods = methods_from_inputs(list(s["rn_methods"]), bool(s["rn_decomp"]) and not sampling)
    public, public_source, epsilon = None, "", None
    if sampling:  # PubMix / LinMix: (epsilon, delta) only, public rows from the studio's pilot split
        b = parsing.parse_budget(None, s["rn_epsilon"], s["rn_delta"], mechanism=noise, flags=False)
        rho, delta, source, epsilon = None, b.delta, b.source, b.epsilon
        public = getattr(studio, "public", None)
        if public is None and get_mechanism(noise).needs_public:
            others = [mechanism_label(k) for k in parsing.NOISE_STEPS if not needs_public(k)]
            raise BlowfishError(f"{studio.dataset_name}: {mechanism_label(noise)} needs public rows of the same domain "
                                "(the preset's held-out pilot split), and this dataset has none. Fix: use "
                                f"{' or '.join(others)}, or a built-in preset")
        if public is not None:
            public_source = f"pilot split ({len(public):,} public rows, disjoint from the private rows)"
    else:
        rho, delta, source = budget_from_inputs(s["rn_budget_mode"], s["rn_rho"], s["rn_epsilon"], s["rn_delta"],
                                                s["rn_conversion"], methods)
    seeds = seeds_from_inputs(s["rn_seeds"], s["rn_first_seed"])
    cfg = config_from_inputs(s)
    soft = method_table.needs_tau(methods)
    # rows held out of the sensitive table (a preset's pilot split, the pilot page's hold-out) used as public
    unprotected = len(public) if (public is not None and studio.table_source != "generated") else 0
    return RunSpec.build(studio.schema, studio.policy, studio.private, methods, rho, delta,
                         float(s["rn_tau"]) if soft else None, seeds, cfg, metric=studio.metric_fn(),
                         budget_source=source, data_source=studio.dataset_name, keep_populations=True,
                         mechanism=noise if sampling else DEFAULT_MECHANISM, epsilon=epsilon, public=public,
                         public_source=public_source, unprotected_rows=unprotected)


def fingerprint(req: RunRequest, studio_version: int, dataset: str) -> str:
    """Settings key of a run: identical keys give identical (seeded) results."""
    return json.dumps({
        "v": studio_version, "data": dataset, "methods": req.methods, "rho": req.rho, "delta": req.delta,
        "tau": req.tau, "seeds": req.seeds, "rounds": req.config.rounds, "pop": req.config.sizes(),
        "release": req.config.release, "h": req.config.threshold_h, "sel": req.config.selection,
        "children": req.config.children, "release_mode": req.config.release_mode, "rank_by": req.config.rank_by,
        "mutation_index": req.config.mutation_index, "src": req.budget_source, "mech": req.mechanism, "eps": req.epsilon,
    }, sort_keys=True)


def execute_run(store: MutableMapping[int, dict[str, Any]], next_id: int, req: RunRequest, studio: Any,
                progress: Callable[[dict[str, Any]], None] | None = None,
                should_stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """Run run_paired and, only after it succeeded, store the record under ``next_id``.

    A failed or stopped run (BlowfishError / RunStopped propagate) leaves ``store``
    untouched.  Keeps the last MAX_KEPT runs.  Returns the record: id, result (the typed
    PairedResult), report (its JSON report, for display and download),
    releases {(method, seed): DataFrame}, round_errors (DataFrame), real (the
    reference table), schema, X_real and X_releases (encoded), studio_version,
    dataset, fingerprint.
    """
    result: PairedResult = run_paired(req, progress=progress, should_stop=should_stop)
    name, fn = req.metric or ("pwerr", None)
    if fn is None:
        from blowfish_core.model.metrics import pwerr as fn  # noqa: N813
    X_ref = req.schema.encode(req.data if req.reference is None else req.reference)
    rerr = pd.DataFrame(columns=["method", "seed", "round", "what", "error"]) if result.metric_note else \
        round_errors(req.schema, X_ref, result.results, fn, progress=progress)  # PWErr skipped: none (issue 27)
    rec = {
        "id": int(next_id),
        "result": result,
        "report": result.report,
        "releases": result.releases,
        "round_errors": rerr,
        "real": req.data if req.reference is None else req.reference,
        "schema": req.schema,
        "X_real": X_ref,
        "X_releases": {(r.method, r.seed): r.synth.release for r in result.runs},
        "studio_version": getattr(studio, "version", 0),
        "dataset": getattr(studio, "dataset_name", ""),
        "fingerprint": fingerprint(req, getattr(studio, "version", 0), getattr(studio, "dataset_name", "")),
    }
    keep_record(store, rec)
    return rec


def keep_record(store: MutableMapping[int, dict[str, Any]], rec: dict[str, Any]) -> None:
    """Store a finished run's record under its id and keep the last MAX_KEPT runs."""
    store[int(rec["id"])] = rec
    for old in sorted(store)[:-MAX_KEPT]:
        del store[old]


def find_identical(store: MutableMapping[int, dict[str, Any]], fp: str) -> dict[str, Any] | None:
    """A stored run with the same settings fingerprint (results would be identical), or None."""
    for rec in store.values():
        if rec.get("fingerprint") == fp:
            return rec
    return None


# ---------------------------------------------------------------- display formatting
#: shown for a missing value (Hard's tau, q, ...).
NA = "—"
#: shown for a 95% interval that needs more than one paired seed.
NA_CI = "n/a (needs ≥ 2 seeds)"


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def fmt_num(v: Any, spec: str = ".4g") -> str:
    """A number with significant figures (7.5e-05, 63.25, 1.414); NA for None/NaN."""
    if isinstance(v, str):
        return v
    return NA if _missing(v) else format(float(v), spec)


def fmt_ci(lo: Any, hi: Any, spec: str = ".4f", unit: str = "") -> str:
    """"[lo, hi]" of a 95% t-interval, or NA_CI when it is missing (one paired seed)."""
    if _missing(lo) or _missing(hi):
        return NA_CI
    return f"[{lo:{spec}}{unit}, {hi:{spec}}{unit}]"


def styled(df: pd.DataFrame, formats: dict[str, str] | None = None, na: dict[str, str] | None = None) -> Any:
    """A pandas Styler for st.dataframe: ``formats`` column -> format spec (e.g. ".4g"),
    missing cells shown as NA ("—") or per column ``na``; the data stay the numbers."""
    sty = df.style.format(na_rep=NA)
    for col, spec in (formats or {}).items():
        if col in df.columns:
            sty = sty.format(lambda v, spec=spec: fmt_num(v, spec), subset=[col], na_rep=NA)
    for col, rep in (na or {}).items():
        if col in df.columns:
            spec = (formats or {}).get(col, ".4g")
            sty = sty.format(lambda v, spec=spec: fmt_num(v, spec), subset=[col], na_rep=rep)
    return sty


#: significant-figure formats of the per-round ledger (rho_t can be 7.5e-05).
ROUNDS_FORMATS = {"rho_t": ".4g", "Delta_t": ".4g", "sigma_t": ".4g", "epsilon_t": ".4g", "delta_dp_t": ".3g",
                  "beta_t": ".4g", "floor": ".3g"}


def identical_lines(round_errors: pd.DataFrame, atol: float = 0.0) -> list[tuple[str, str]]:
    """Pairs of methods whose mean error-by-round lines coincide (one would hide the other).

    round_errors: sweeps.round_errors frame (method, seed, round, what, error).  Returns
    (method, method) keys in METHOD_ORDER, e.g. [("tab-pe", "hard")] when every round
    of Hard certified sqrt(2) and so drew exactly Tab-PE's noise.
    """
    g = round_errors.groupby(["method", "round"])["error"].mean()
    methods = [m for m in METHOD_ORDER if m in set(round_errors["method"])]
    out = []
    for i, a in enumerate(methods):
        for b in methods[i + 1:]:
            ga, gb = g[a], g[b]
            if list(ga.index) == list(gb.index) and bool((abs(ga - gb) <= atol).all()):
                out.append((a, b))
    return out


# ---------------------------------------------------------------- tables
def _typed(result: PairedResult | dict[str, Any]) -> PairedResult | None:
    return result if isinstance(result, PairedResult) else None


def summary_frame(result: PairedResult | dict[str, Any]) -> pd.DataFrame:
    """Per method: mean error, 95% t-interval and number of seeds.

    result: the typed PairedResult (the pages' input; its ``summary``), or a JSON report dict
    (same values: the report's summary is built from the same PairedResult.summary).
    """
    typed = _typed(result)
    metric = typed.metric_name if typed else result["metric"]["name"]
    per = (typed.summary if typed else result["summary"])["per_method"]
    rows = []
    for m, v in per.items():
        rows.append({"method": METHOD_LABELS[m], "key": m, f"mean {metric}": v["mean"],
                     "ci95 low": v["ci95"][0], "ci95 high": v["ci95"][1], "seeds": v["n"]})
    return pd.DataFrame(rows)


def runs_frame(result: PairedResult | dict[str, Any]) -> pd.DataFrame:
    """One row per (method, seed): the error of that run (typed RunResult.error; seconds as the report rounds them)."""
    typed = _typed(result)
    if typed is None:
        metric = result["metric"]["name"]
        return pd.DataFrame([{"method": METHOD_LABELS[r["method"]], "key": r["method"], "seed": r["seed"],
                              metric: r[metric], "seconds": r["seconds"]} for r in result["runs"]])
    return pd.DataFrame([{"method": METHOD_LABELS[r.method], "key": r.method, "seed": r.seed,
                          typed.metric_name: r.error, "seconds": round(r.seconds, 4)} for r in typed.runs])


#: extra per-round columns of PubMix/LinMix rows (public parameters only; never the mixture).
SAMPLING_COLUMNS = ("epsilon_t", "delta_dp_t", "beta_t", "floor", "n_samples")


def rounds_frame(result: PairedResult | dict[str, Any], seed: int) -> pd.DataFrame:
    """Per-round ledger of one seed for every method: rho_t, Delta_t, how, sigma_t, candidates, surviving
    (from the typed LedgerRows); PubMix/LinMix rows add epsilon_t, delta_dp_t, beta_t, floor, n_samples."""
    typed = _typed(result)
    if typed is None:
        runs = [(r["method"], r["seed"], r["rounds"]) for r in result["runs"]]
    else:
        runs = [(r.method, r.seed, [row.to_dict() for row in r.ledger]) for r in typed.runs]
    rows = []
    for method, sd, rounds in runs:
        if sd != seed:
            continue
        for rd in rounds:
            row = {"method": METHOD_LABELS[method], "round": rd["t"], "candidates": rd["candidates"],
                   "rho_t": rd["rho_t"], "Delta_t": rd["sensitivity_t"], "calibration": rd["calibration"],
                   "sigma_t": rd["sigma_t"], "surviving": rd["surviving"]}
            if rd.get("beta_t") is not None:
                row.update({k: rd[k] for k in SAMPLING_COLUMNS})
            rows.append(row)
    return pd.DataFrame(rows)


def budget_label(result: PairedResult) -> str:
    """Short budget text of a stored run: 'rho 0.0006' (Gaussian), 'epsilon 1 (pure)',
    'epsilon 1, delta 1e-05 (PubMix)'."""
    p = result.privacy
    mech = get_mechanism(result.request.mechanism)
    if p.get("accountant") == "gdp-exact":
        return f"rho {p['rho']:.3g}"
    if p.get("accountant") == "pure-sum":
        return f"epsilon {p['epsilon']:.3g} (pure)"
    return f"epsilon {p['epsilon']:.3g}, delta {p['delta']:.3g} ({getattr(mech, 'label', mech.name)})"


def pld_note(result: PairedResult) -> str | None:
    """The red note of a PubMix/LinMix run (the exact Gaussian curve does not apply), else None."""
    p = result.privacy
    return p.get("note") if p.get("epsilon_exact_applicable") is False else None


CALIBRATION_WORDS = {
    "global": "sqrt(2), standard bounded DP (no policy)",
    "bound": "closed-form bound sqrt(2) tanh(r/(2 tau)) (Cor. 5.5), valid for every population",
    "certified-crossing": "sqrt(2): a protected edge whose endpoints have different nearest candidates was found (Cor. 5.3)",
    "exhaustive-zero": "0: every protected edge was checked and none crosses a cell boundary (Cor. 5.3)",
    "fallback": "sqrt(2): the search could not certify 0 within its limit, so the worst case is used",
}


def release_csv(df: pd.DataFrame) -> bytes:
    """CSV bytes of one release, written exactly like the CLI (original column names, no index)."""
    return df.to_csv(index=False).encode("utf-8")


def releases_zip(releases: dict[tuple[str, int], pd.DataFrame]) -> bytes:
    """All releases as <method>_seed<S>.csv in one zip (the CLI's --out-dir names)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for (m, sd), df in releases.items():
            z.writestr(f"{m}_seed{sd}.csv", release_csv(df))
    return buf.getvalue()


def report_json(report: dict[str, Any]) -> str:
    """The engine's JSON report, as the CLI writes it (--report)."""
    return json.dumps(report, indent=2, allow_nan=False)
