"""``pilot``: choose tau or Hard -- the public pilot (default: no private budget) or ``--private``
(K runs on the private table and an exponential-mechanism choice; issue 14)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Any, cast

from ...algorithm.streams import SEEDED_NOTE
from ...algorithm.methods import SOFT
from ...base.constants import DEFAULT_DELTA, DEFAULT_DELTA_TEXT
from ...base.errors import BlowfishError
from ...base.input_checks import check_seeds
from ...io.presets import load_preset_data, split_line
from ...privacy.mechanisms import DEFAULT_MECHANISM
from ...synthesis import gate as release_gate
from ...synthesis.parsing import parse_budget, parse_seeds
from ...synthesis.spec import check_soft_tau
from .outputs import _check_output_paths, _check_outputs, _ci_text, _write_pilot_outputs
from .parser import COMMAND_HELP, _float, _int, add_policy_args, add_schedule_args
from .reading import read_other
from .setting import _check_ignored_options, check_schedule_flags, config_from_args, resolve_setting


# ---------------------------------------------------------------- pilot (issue 14, phase 2)
PILOT_EPILOG = """examples:
  python -m blowfish_core pilot --preset xor3 --rho 3e-3 --rounds 4 --population 128x4 --seeds 0,1
  python -m blowfish_core pilot --preset adult --data ../shared/data/adult.csv --rho 1e-4
  python -m blowfish_core pilot --preset adult --data ../shared/data/adult.csv --rho 1e-4 --private \
      --rho-sel 1e-4 --dry-run
  python -m blowfish_core pilot --preset adult --data ../shared/data/adult.csv --rho 1e-4 --private \
      --rho-sel 1e-4 --out out/chosen.csv --report out/choice.json
      (a release: unseeded, OS entropy, OpenDP samplers, through the release gate)
  python -m blowfish_core pilot --preset adult --data ../shared/data/adult.csv --rho 1e-4 --private \
      --rho-sel 1e-4 --seeds 0
      (a seeded study run: for study, not for publication)
"""


def add_pilot_parser(sub) -> argparse.ArgumentParser:
    """The ``pilot`` subcommand: the public pilot (default) or ``--private`` (exponential mechanism).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the main parser (build_parser).

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = sub.add_parser("pilot", help=COMMAND_HELP["pilot"], epilog=PILOT_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_policy_args(p)
    p.add_argument("--data", metavar="CSV",
                   help="private table. With --preset adult|bank the preset splits it into a private part and "
                        "held-out pilot rows, as in the paper (Adult 80/20, Bank 60/40; the public pilot runs on "
                        "the held-out rows, n_t = the private part's size); to use a separate public file pass "
                        "--public. With --schema: only its row count n_t is used by the public pilot")
    p.add_argument("--sep", default=",", help="field separator of --data and --public (default ',')")
    p.add_argument("--n", type=_int,
                   help="XOR presets without --data: number of generated private records (default 12000)")
    p.add_argument("--data-seed", type=_int, default=None,
                   help="XOR presets without --data: generator seed (default 0)")
    p.add_argument("--split-seed", type=_int, default=None,
                   help="Adult/Bank presets: seed of the private/pilot split (default 0)")
    p.add_argument("--public", metavar="CSV", help="public pilot sample (default: the preset's held-out or "
                                                   "generated pilot rows)")
    p.add_argument("--n-pilot", type=_int, help="public pilot: use a seeded subset of this many public rows "
                                                "(default all; at least 50)")
    p.add_argument("--pilot-seed", type=_int, default=0, help="seed of the --n-pilot subset (default 0)")
    p.add_argument("--n-target", type=_int, help="public pilot without --data: rows n_t of the private table")
    p.add_argument("--tau-grid", help="temperatures, e.g. '0.003,0.03,0.3' (default: the paper's pilot grid "
                                      "App. F.8 plus the tau with q = 0.2)")
    p.add_argument("--rho", type=_float, help="zCDP budget of one synthesis run (public pilot: the target run, "
                                              "scaled by Eq. (4); --private: spent by EACH of the K runs)")
    p.add_argument("--epsilon", type=_float, help="target epsilon (with --delta) instead of --rho")
    p.add_argument("--delta", type=_float, default=None, help=f"delta for (epsilon, delta) (default {DEFAULT_DELTA_TEXT})")
    p.add_argument("--conversion", choices=["exact", "eq1"], default=None,
                   help="epsilon -> rho conversion of --epsilon (default exact)")
    add_schedule_args(p)
    p.add_argument("--seeds", default=None, help="public pilot: paired seeds (default 0,1,2,3). --private: "
                                                 "without --seeds (default) a RELEASE through the release gate "
                                                 "(OS entropy, OpenDP samplers; the only output that may be "
                                                 "published); with ONE seed a seeded study run (for study, not "
                                                 "for publication)")
    p.add_argument("--tie-tol", type=_float, default=None, help="public pilot: tie tolerance (default 1e-9)")
    p.add_argument("--private", action="store_true",
                   help="choose on the PRIVATE table: run every setting (each spends --rho) and select with the "
                        "exponential mechanism at --rho-sel / --epsilon-sel; a release unless --seeds is given")
    p.add_argument("--rho-sel", type=_float, help="--private: selection budget, zCDP (epsilon_sel = sqrt(8 rho_sel))")
    p.add_argument("--epsilon-sel", type=_float, help="--private: selection budget, pure epsilon of the "
                                                      "exponential mechanism (costs epsilon_sel^2/8 zCDP)")
    p.add_argument("--allow-data-domain", action="store_true",
                   help="--private release: release even though the schema's bounds or levels were read off the "
                        "private table (labelled 'not differentially private'); refused without it")
    p.add_argument("--dry-run", action="store_true", help="print the plan (cost, regret bound) and stop")
    p.add_argument("--out", metavar="CHOSEN.csv", help="--private: write the chosen setting's release")
    p.add_argument("--report", metavar="REPORT.json",
                   help="write the result as JSON (--private: no figure computed on the private data: the plan, "
                        "the choice, the ledger and privacy totals, the settings; a release adds the gate's label "
                        "and total, a seeded run says 'seeded: for study, not for publication')")
    p.add_argument("--eval-report", metavar="FILE.json",
                   help="--private: write the per-setting errors and selection probabilities, labelled "
                        "'internal: computed on private data - do not publish'")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(out_dir=None)
    return p


def _pilot_inputs(args, preset):
    """(private table or None, n_t, public sample or None, their source texts, held-out rows) for the
    pilot.  held-out rows: how many rows of the sensitive table (a preset's held-out split) the
    public pilot uses as public data (0 for --public, generated XOR rows or --private); they get no
    protection (release_gate.unprotected_text, issue 21)."""
    from ...workflows.pilot import check_pilot_size, subsample

    split = line = None
    if preset is not None and not args.schema:
        table = read_other(args.data, args) if args.data else None
        split = load_preset_data(preset, table, split_seed=args.split_seed or 0, n=args.n,
                                 data_seed=args.data_seed or 0)
        data, source = split.private, split.source
        line = split_line(preset, args.data, split, args.split_seed or 0)
        if line:
            print(line)
    elif args.data:
        data, source = read_other(args.data, args), args.data
    else:
        data, source = None, ""
    if args.private:
        if data is None:
            raise BlowfishError("--private needs the private table: --data CSV (or a preset)")
        return data, len(data), None, source, "", 0
    if args.public:
        public, psrc = read_other(args.public, args), f"--public {args.public}"
    elif split is not None:
        public, psrc = split.public, f"the preset's pilot rows ({len(split.public):,})"
    else:
        raise BlowfishError("the public pilot needs public rows: --public CSV (or a preset with pilot rows)")
    if args.n_pilot is not None:
        check_pilot_size(args.n_pilot)
        public = subsample(public, args.n_pilot, args.pilot_seed)
        psrc += f", subset of {args.n_pilot:,} (seed {args.pilot_seed})"
    check_pilot_size(len(public))
    if args.n_target is not None:
        if data is not None:
            raise BlowfishError("--n-target is taken from the private table here; it would be ignored. Fix: drop it")
        n_t = args.n_target
    elif data is not None:
        n_t = len(data)
    else:
        raise BlowfishError("give the private table's size: --data CSV or --n-target N")
    held = len(public) if split is not None and line and not args.public else 0
    return data, n_t, public, source, psrc, held


@dataclasses.dataclass(frozen=True)
class _Pilot:
    """What both pilots need, checked: the setting, the budget, the seeds, the grid and the tables."""

    schema: Any
    policy: Any
    budget: Any
    seeds: list[int] | None
    cfg: Any
    taus: list[float]
    metric: Any
    metric_name: str
    data: Any
    n_t: int
    public: Any
    source: str
    psrc: str
    held: int
    delta: float


def _check_pilot_flags(args) -> list[int] | None:
    """The flags of the other pilot are errors; the seeds (None: a --private release)."""
    from ...synthesis.parsing import parse_selection_budget

    if args.private:
        parse_selection_budget(args.rho_sel, args.epsilon_sel)
        if args.tie_tol is not None:
            raise BlowfishError("--tie-tol applies to the public pilot only; --private chooses with the exponential "
                                "mechanism. Fix: drop it")
        for flag, v in (("--public", args.public), ("--n-pilot", args.n_pilot), ("--n-target", args.n_target)):
            if v is not None:
                raise BlowfishError(f"{flag} applies to the public pilot only; --private reads the private table. "
                                    "Fix: drop it")
    else:
        for flag, v in (("--rho-sel", args.rho_sel), ("--epsilon-sel", args.epsilon_sel), ("--out", args.out),
                        ("--eval-report", args.eval_report), ("--allow-data-domain", args.allow_data_domain or None)):
            if v is not None:
                raise BlowfishError(f"{flag} applies to --private only (the public pilot spends and releases "
                                    "nothing). Fix: add --private or drop it")
    # --private without --seeds: a release through the gate (seeds None); with --seeds: one seed, a study run
    seeds = (None if args.private and args.seeds is None
             else check_seeds(parse_seeds(args.seeds if args.seeds is not None else "0,1,2,3")))
    if args.private and seeds is not None and len(seeds) != 1:
        raise BlowfishError(f"--private runs each setting once on the private table (every run spends --rho); "
                            f"give one seed (got {len(seeds)}) for a study run, or drop --seeds for a release. "
                            "Fix: --seeds 0")
    if args.private and seeds is not None and args.allow_data_domain:
        raise BlowfishError("--allow-data-domain applies to a release (--private without --seeds); a seeded study "
                            "run is never published. Fix: drop it")
    return seeds


def _setup(args) -> _Pilot:
    """Every check before any run, then the tables (the pilot's inputs)."""
    from ...model.policy import record_reach
    from ...workflows.pilot import parse_tau_grid, tau_grid

    budget = parse_budget(args.rho, args.epsilon, args.delta, DEFAULT_MECHANISM, args.conversion)
    seeds = _check_pilot_flags(args)
    schema, policy, preset = resolve_setting(args)
    _check_ignored_options(args, preset)
    _check_outputs(args, [], seeds)
    if args.public and args.report and os.path.abspath(args.public) == os.path.abspath(args.report):
        raise BlowfishError(f"--report would overwrite the input --public {args.public}. Fix: choose another path")
    cfg = config_from_args(args)
    check_schedule_flags(args, cfg)
    reach = record_reach(schema, policy)
    taus = parse_tau_grid(args.tau_grid) if args.tau_grid is not None else tau_grid(reach)
    for t in taus:  # every grid tau before any run (the soft role of the pilot: BF-Soft)
        check_soft_tau(schema, policy, [SOFT.name], t)
    metric = preset.metric_fn() if preset is not None and not args.schema else None
    metric_name = preset.metric if preset is not None and not args.schema else "pwerr"
    data, n_t, public, source, psrc, held = _pilot_inputs(args, preset)
    _check_output_paths(args, ("--out", "--report", "--eval-report"))
    return _Pilot(schema, policy, budget, seeds, cfg, taus, metric, metric_name, data, n_t, public, source, psrc,
                  held, budget.delta or DEFAULT_DELTA)


def _progress(args):
    """The progress callback: one stderr line per setting, seed and round (none with --quiet)."""
    def progress(ev):
        if not args.quiet:
            sd = "" if ev.get("seed") is None else f" seed {ev['seed']}"
            print(f"  {ev['label']:<20} ({ev['config']}/{ev['configs']}){sd} round "
                  f"{ev['round']}/{ev['rounds']}", file=sys.stderr)
    return progress


def cmd_pilot(args) -> int:
    """``pilot``: the public pilot (default) or ``--private``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``pilot`` flags.

    Returns
    -------
    int
        Exit code 0.

    Raises
    ------
    BlowfishError
        From the checks before any run (flags of the other pilot, seeds, budget, setting, outputs, the
        tau grid); GateError when the release gate refuses a --private release.
    """
    run = _setup(args)
    return _private_pilot(args, run) if args.private else _public_pilot(args, run)


def _private_pilot(args, run: _Pilot) -> int:
    """``pilot --private``: the plan, then K runs on the private table and the exponential mechanism's
    choice (a release through the gate without --seeds)."""
    from ...workflows.private_pilot import INTERNAL, choose_tau_private, private_pilot_plan, release_tau_choice

    schema, policy, seeds, metric_name = run.schema, run.policy, run.seeds, run.metric_name
    plan = private_pilot_plan(schema, policy, run.n_t, run.taus, run.budget.rho, args.rho_sel, args.epsilon_sel,
                              metric=metric_name, delta=run.delta, flags=True)
    print("plan (private choice on the private table; nothing is spent until it runs):")
    for line in plan.lines():
        print("  " + line)
    if seeds is None:  # the gate's refusal before the plan says "a release" (and before --dry-run stops)
        from ...workflows.private_pilot import release_claim

        release_gate.check(release_claim(schema, plan, allow_data_domain=args.allow_data_domain))
    print("  " + ("a release through the release gate: unseeded, OS entropy, OpenDP samplers" if seeds is None
                  else f"a seeded study run (seed {seeds[0]}): {SEEDED_NOTE}"))
    if args.dry_run:
        print("dry run: nothing was run and nothing was spent")
        return 0
    kw = dict(rho_sel=args.rho_sel, epsilon_sel=args.epsilon_sel, config=run.cfg, metric=run.metric, delta=run.delta,
              data_source=run.source, flags=True, progress=_progress(args))
    pub = None
    if seeds is None:
        pub = release_tau_choice(schema, policy, run.data, run.budget.rho, run.taus,
                                 allow_data_domain=args.allow_data_domain, **kw)  # main renders a GateError
        res = pub.result
    else:
        res = choose_tau_private(schema, policy, run.data, run.budget.rho, run.taus, seed=seeds[0], **kw)
    p = res.privacy
    print(f"randomness: {res.randomness}")  # SEEDED_NOTE for a seeded run, never offered for publication
    print(f"chosen: {res.label}")
    if pub is not None:
        print(f"release: {pub.label}")
        for line in pub.head_lines:
            print(line)
    print(f"privacy: rho = {p['rho']:.6g} zCDP over {p['rounds']} ledger rows "
          f"({plan.K} runs x {plan.rho_run:.4g} + exponential {plan.choice.rho_selection:.4g}); "
          f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g} by Eq. (1); accountant {p['accountant']}")
    print(f"{metric_name.upper()} per setting ({INTERNAL}; do not publish):")
    for row in res.internal_table().itertuples(index=False):
        mark = "  <- chosen" if row.setting == res.label else ""
        print(f"  {row.setting:<20} {getattr(row, metric_name):.4f}  P = {row.probability:.4g}{mark}")
    _write_pilot_outputs(args, res.public_dict(), res.internal_dict() if args.eval_report else None, res.release)
    written = [x for x in (args.out, args.report, args.eval_report) if x]
    if written:
        print("wrote " + " and ".join(written))
    return 0


def _public_pilot(args, run: _Pilot) -> int:
    """The public pilot: every setting on the public rows with paired seeds (no private budget spent)."""
    from ...synthesis.gate import unprotected_text
    from ...workflows.pilot import DEFAULT_TIE_TOL, run_pilot, scale_budget

    # the public pilot always has seeds (_check_pilot_flags: None only for a --private release)
    taus, seeds, public, held = run.taus, cast(list[int], run.seeds), run.public, run.held
    tie = DEFAULT_TIE_TOL if args.tie_tol is None else args.tie_tol
    scaling = scale_budget(run.budget.rho, run.n_t, len(public), run.cfg.rounds, run.cfg.budget_weights, run.delta)
    print(f"plan (public pilot: {len(taus) + 1} settings x {len(seeds)} paired seed(s) on {len(public):,} public "
          f"rows; no private budget is spent):")
    print("  settings: Hard, " + ", ".join(f"BF-Soft tau={t:g}" for t in taus))
    print("  " + scaling.explain())
    warn = "WARNING: " + unprotected_text(held, "the preset's held-out pilot split") + "." if held else None
    if warn:
        print(warn)
    if args.dry_run:
        print("dry run: nothing was run")
        return 0
    res = run_pilot(run.schema, run.policy, public, run.budget.rho, run.n_t, taus, seeds, run.cfg, run.metric,
                    run.delta, tie, public_source=run.psrc, progress=_progress(args))
    print(f"mean public {res.metric.upper()} (over {len(seeds)} seed(s), 95% t-interval):")
    for c in res.candidates:
        print(f"  {c.label:<20} {c.mean:.4f}  {_ci_text(c.ci95, '.4f')}")
    print(f"recommendation: {res.recommendation.label} ({res.recommendation.reason})")
    print(res.note)
    if warn:
        print(warn)
    _write_pilot_outputs(args, {**res.to_dict(), **({"unprotected_rows": held, "unprotected": warn} if held else {})})
    if args.report:
        print(f"wrote {args.report}")
    return 0
