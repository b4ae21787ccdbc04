"""``synth``: run Tab-PE / Hard / BF-Soft (or any method of the table) with paired seeds, or as a
release through the release gate, and write the release, the bundle and the reports."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from ...algorithm.events import RoundEvent
from ...algorithm.streams import SEEDED_NOTE
from ...algorithm.methods import METHODS, get_method, reference_methods, tau_methods
from ...base.errors import BlowfishError
from ...base.input_checks import check_generated_n
from ...io.presets import split_line
from ...privacy.mechanisms import ADDITIVE, DEFAULT_MECHANISM, get_mechanism
from ...synthesis import gate as release_gate
from ...synthesis.experiment import run_paired
from ...base.constants import DEFAULT_DELTA_TEXT
from ...synthesis.gate import DEFAULT_DELTA
from ...synthesis.parsing import (
    mechanism_field, parse_budget, parse_methods, parse_noise, parse_seeds, require_tau,
)
from ...synthesis.release import claim_of, release_synthesis
from ...synthesis.report import INTERNAL_LABEL, randomness_text
from ...synthesis.report_text import _ledger_text
from ...synthesis.spec import Choice, RunSpec
from .outputs import _check_bundle_folder, _check_output_paths, _check_outputs, _ci_text, _write_synth_outputs
from .parser import (
    COMMAND_HELP, EPILOG, IN_MEMORY_MB, _float, _int, add_intake_args, add_policy_args, add_schedule_args,
)
from .reading import (
    DaskClient, _grouped_and_engine, _list, _read_private, intake_lines, read_data, read_other, read_preset_split,
)
from .setting import _check_ignored_options, check_schedule_flags, config_from_args, resolve_setting


def add_synth_parser(sub) -> argparse.ArgumentParser:
    """The ``synth`` subcommand (its flags in the order ``synth --help`` lists them).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the main parser (build_parser).

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    s = sub.add_parser("synth", help=COMMAND_HELP["synth"], epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_policy_args(s)
    s.add_argument("--data", metavar="CSV",
                   help="private table (XOR presets generate it when omitted; with --preset adult|bank it is split "
                        "into a private part and held-out pilot rows, as in the paper; a separate public file goes "
                        "in --public)")
    add_intake_args(s)
    s.add_argument("--n", type=_int, help="XOR presets without --data: number of generated private records (default 12000)")
    s.add_argument("--data-seed", type=_int, default=None, help="XOR presets without --data: generator seed (default 0)")
    s.add_argument("--split-seed", type=_int, default=None,
                   help="Adult/Bank presets: seed of the private/pilot split (default 0)")
    _add_method_args(s)
    add_schedule_args(s)
    _add_output_args(s)
    _add_scale_args(s)
    return s


def _add_method_args(s: argparse.ArgumentParser) -> None:
    """--method, --tau, the noise and the budget flags."""
    s.add_argument("--method", default="tab-pe,hard,bf-soft",
                   help=f"comma list of {', '.join(METHODS)} (default tab-pe,hard,bf-soft); "
                        f"{' and '.join(m for m in reference_methods() if not METHODS[m].policy_aware)} are "
                        "reference methods (standard DP, not policy-aware, zCDP only; they ignore the policy, and "
                        f"--tau is refused for them); {', '.join(m for m in reference_methods() if METHODS[m].policy_aware)} "
                        "run MST's and AIM's pipelines under the policy (exact per-marginal sensitivity; with --tau, "
                        f"{', '.join(m for m in reference_methods() if METHODS[m].needs_tau)}'s soft marginals at "
                        "√2·tanh(r_S/(2τ)); zCDP only); "
                        "optional extra: pip install .[baseline]")
    s.add_argument("--tau", type=_float, help=f"temperature of soft votes (needed for {', '.join(tau_methods())}; "
                                              "refused without them)")
    s.add_argument("--mechanism", default=None,
                   help=f"additive noise mechanism of --noise gaussian: {', '.join(ADDITIVE)} (default gaussian: zCDP, "
                        "--rho or --epsilon/--delta; laplace: pure DP, --epsilon only)")
    s.add_argument("--noise", default=DEFAULT_MECHANISM,
                   help="release step of the hard vote: gaussian (default: add noise by --mechanism, then resample), "
                        "pubmix, linmix or pubmix-floor (papers/003: draw from (1-beta) H/n + beta P_nse; "
                        "--epsilon/--delta, PLD ledger; tab-pe and hard only; pubmix: P_nse and beta per round from "
                        "the public rows by Remark 4.5; pubmix-floor: water-filling at the fixed floor 0.25/m_t; "
                        "linmix: uniform P_nse)")
    s.add_argument("--public", metavar="CSV",
                   help="--noise pubmix: public rows of the same domain, disjoint from the private ones "
                        "(default for Adult/Bank/XOR presets: their pilot split)")
    s.add_argument("--rho", type=_float, help="total zCDP budget")
    s.add_argument("--epsilon", type=_float, help="target epsilon (with --delta) instead of --rho; with "
                                                  "--mechanism laplace the pure-DP epsilon")
    s.add_argument("--delta", type=_float, default=None, help=f"delta for (epsilon, delta) (default {DEFAULT_DELTA_TEXT}; "
                                                              "not with --mechanism laplace)")
    s.add_argument("--conversion", choices=["exact", "eq1"], default=None,
                   help="epsilon -> rho conversion: exact Gaussian curve (default for Algorithm 1's methods) or "
                        "the paper's Eq. (1) (default, and required, when mst or aim is in --method: their "
                        "ledgers state epsilon by Eq. (1))")


def _add_output_args(s: argparse.ArgumentParser) -> None:
    """--seeds, the outputs and the release switches."""
    s.add_argument("--seeds", default=None,
                   help="comma list of seeds for a STUDY run: paired across methods and reproducible, every output "
                        "says 'seeded: for study, not for publication'; BF-Soft votes in float32 tiles.  Default: no seeds "
                        "= a release (OS entropy, OpenDP's samplers, the soft vote in float64, nothing about the "
                        "randomness recorded; several methods are not paired)")
    s.add_argument("--out", required=True, metavar="SYNTH.csv", help="release of the first method (and seed)")
    s.add_argument("--out-dir", metavar="DIR",
                   help="also write every release as DIR/<method>.csv (unseeded) or DIR/<method>_seed<S>.csv")
    s.add_argument("--bundle", metavar="DIR",
                   help="write what may be published: the synthetic CSV(s), schema.json, policy.json, budget.json, "
                        "ledger.json and ledger.txt (no figure computed on the private table)")
    s.add_argument("--eval-report", metavar="FILE.json",
                   help="write the figures computed on the private table (errors, n_unique, timings), labelled "
                        "'internal: computed on private data - do not publish'")
    s.add_argument("--report", metavar="REPORT.json",
                   help="JSON report for experiments: the union, with 'public' and 'internal' parts marked")
    s.add_argument("--raw-values", action="store_true",
                   help="write text cells as they are (default: cells starting with = + - @ tab CR get a leading ' "
                        "so spreadsheets do not run them as formulas)")
    s.add_argument("--allow-empty-policy", action="store_true",
                   help="run Hard/BF-Soft even when the policy protects nothing (their releases then carry NO noise)")
    s.add_argument("--allow-data-domain", action="store_true",
                   help="release (no --seeds) even though the public domain was read off the private table (no "
                        "--schema): the bundle then says 'domain read from the private data: this release is not "
                        "differentially private' in its first line; refused without this flag")
    s.add_argument("--quiet", action="store_true", help="no progress lines")


def _add_scale_args(s: argparse.ArgumentParser) -> None:
    """Issue 15: tables of any size, and the vote step on Dask."""
    s.add_argument("--chunk-rows", type=_int, default=None, metavar="N",
                   help="read --data in chunks of N rows: with --schema grouping identical records as it goes "
                        "(memory bounded by the distinct records), with --preset adult|bank keeping its private "
                        "and pilot rows; automatic for files over --in-memory-mb")
    s.add_argument("--in-memory-mb", type=_float, default=IN_MEMORY_MB, metavar="MB",
                   help="files up to this size are read whole; larger ones in chunks (default 100)")
    s.add_argument("--engine", choices=["local", "dask"], default="local",
                   help="where the vote histograms are computed: this process (default) or a Dask cluster "
                        "(needs dask[distributed]; same seeded release)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="--engine dask: address of a running dask.distributed "
                                                          "scheduler, e.g. tcp://host:8786")
    s.add_argument("--workers", type=_int, default=None, metavar="N",
                   help="--engine dask: start a local cluster of N workers (default 2 when no --scheduler)")


@dataclasses.dataclass(frozen=True)
class _Inputs:
    """The tables of a synth run and the texts that name them."""

    data: Any  # DataFrame, chunked.GroupedTable or dask_engine.DaskEngine
    source: str
    split_txt: str | None
    metric: Any
    public: Any
    public_txt: str


def _parse_method_and_budget(args) -> tuple[list[str], Any, Choice]:
    """(methods, budget, the checked Choice the spec is built with) from --method, --noise/--mechanism
    and the budget flags; --public without a sampling mechanism, a mechanism a method refuses and a
    missing --tau are errors.  Each method and the mechanism are looked up once, here."""
    methods = parse_methods(args.method)
    mech = get_mechanism(parse_noise(args.noise, args.mechanism))
    if args.public and not mech.samples:
        raise BlowfishError("--public only applies to --noise pubmix (and linmix); it would be ignored here. "
                            "Fix: drop it or add --noise pubmix")
    meths = tuple(get_method(m) for m in methods)
    budget = parse_budget(args.rho, args.epsilon, args.delta, mech, args.conversion, methods=meths)
    flag = mechanism_field(args.noise, args.mechanism)  # the flag the user gave
    for meth in meths:  # reference methods (mst, aim) run in zCDP only
        meth.check_mechanism(budget.mechanism, flag)
    tau = require_tau(methods, args.tau)
    return methods, budget, Choice(meths, mech, budget.rho, budget.epsilon, budget.delta or DEFAULT_DELTA, tau)


def _check_options(args, preset, methods: list[str], choice: Choice) -> tuple[list[int] | None, Any]:
    """(seeds or None, SynthConfig) after the checks of options the run would ignore and of the outputs."""
    _check_ignored_options(args, preset)
    check_generated_n(args.n, "--n")
    seeds = parse_seeds(args.seeds) if args.seeds is not None else None
    _check_outputs(args, methods, seeds)
    cfg = config_from_args(args)
    check_schedule_flags(args, cfg, choice.methods)
    return seeds, cfg


def _read_inputs(args, schema, preset, cfg, sampling: bool, dask: DaskClient) -> _Inputs:
    """The private table (a preset's private split, or --data) and the public rows of a sampling
    mechanism (--public, or a preset's pilot split)."""
    metric, split_txt = None, None
    public, public_txt = None, ""
    if preset is not None and not args.schema:
        split = read_preset_split(args, preset, schema)  # whole, or in chunks over --in-memory-mb (issue 23)
        data, source_txt = split.private, split.source.replace("table (", f"{args.data} (", 1)
        split_txt = split_line(preset, args.data, split, args.split_seed or 0)
        metric = preset.metric_fn()
        public, public_txt = split.public, f"{preset.name} pilot split ({len(split.public)} rows, disjoint)"
    else:
        if not args.data:
            raise BlowfishError("--data CSV is required with --schema (or use --preset xor3)")
        if args.schema:  # any size: in memory, in chunks, or on Dask workers (issue 15)
            data, source_txt = _read_private(args, schema, cfg, dask), args.data
        else:
            intake = read_data(args, _list(args.columns), args.release)
            data, source_txt = intake.modelled_frame(), args.data
    if args.public:
        public, public_txt = read_other(args.public, args, schema.names), f"{args.public} (user-given public rows)"
    if not sampling:
        public, public_txt = None, ""
    return _Inputs(data, source_txt, split_txt, metric, public, public_txt)


def _build_spec(args, schema, policy, preset, methods, budget, seeds, cfg, inputs: _Inputs, choice: Choice,
                dask: DaskClient) -> RunSpec:
    """The one validated RunSpec of the run (grouped table and vote engine included); a release
    passes the gate's checks here, before any work."""
    grouped, engine = _grouped_and_engine(args, schema, inputs.data, cfg, dask)
    public = inputs.public
    unprotected = len(public) if (choice.mechanism.samples and public is not None and not args.public and preset is not None
                                  and preset.generator is None) else 0  # a preset's held-out rows as public
    req = RunSpec.build(schema, policy, None if grouped is not None else inputs.data, methods, budget.rho,
                        budget.delta or DEFAULT_DELTA, args.tau, seeds, cfg,
                        metric=inputs.metric, budget_source=budget.source, data_source=inputs.source,
                        allow_empty_policy=args.allow_empty_policy, mechanism=budget.mechanism,
                        epsilon=budget.epsilon, public=public, public_source=inputs.public_txt, grouped=grouped,
                        engine=engine, allow_data_domain=args.allow_data_domain, unprotected_rows=unprotected,
                        choice=choice)
    if seeds is None:  # a release: the gate's checks before any work (release_gate.publish repeats them)
        release_gate.check(claim_of(req))
    elif args.allow_data_domain:
        raise BlowfishError("--allow-data-domain applies to a release (no --seeds); a seeded study run is never "
                            "published. Fix: drop it")
    return req


def _progress(args):
    """The progress callback: one stderr line per method, seed and round (none with --quiet); the
    scale is named by the mechanism table (RoundEvent.scale_name: sigma_t, b_t, beta_t)."""
    def progress(ev: RoundEvent) -> None:
        if not args.quiet:
            who = "unseeded" if ev.seed is None else f"seed {ev.seed}"
            how = f"  ({ev.how})" if ev.how else ""
            print(f"  {ev.method:<8} {who} round {ev.t}/{ev.rounds}  "
                  f"Delta_t={ev.sensitivity:.4g} {ev.scale_key}={ev.scale:.4g}{how}", file=sys.stderr)
    return progress


def cmd_synth(args, dask: DaskClient) -> int:
    """``synth``: check everything, read the tables, run, write the outputs together, then print the summary.

    The run is a release through the gate (no --seeds), or the seeded study runs.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``synth`` flags.
    dask : DaskClient
        This run's Dask client (connected only with --engine dask).

    Returns
    -------
    int
        Exit code 0.

    Raises
    ------
    BlowfishError
        For any bad flag, setting, table or output path, before any work (the engine's errors, naming
        the flag); GateError when the release gate refuses.
    """
    methods, budget, choice = _parse_method_and_budget(args)
    schema, policy, preset = resolve_setting(args)
    seeds, cfg = _check_options(args, preset, methods, choice)
    inputs = _read_inputs(args, schema, preset, cfg, choice.mechanism.samples, dask)
    # fail before any work if an output folder cannot be written
    _check_output_paths(args, ("--out", "--report", "--eval-report"))
    _check_bundle_folder(args)
    req = _build_spec(args, schema, policy, preset, methods, budget, seeds, cfg, inputs, choice, dask)
    progress = _progress(args)
    # row counts are printed only where n is public (bounded adjacency without participation edges)
    data_lines = intake_lines(args) + ([inputs.split_txt] if inputs.split_txt else [])
    if not policy.participation:
        for line in data_lines:
            print(line)
    if seeds is None:  # THE release gate (issue 21): OS entropy, safe samplers, public domain, total
        result = release_synthesis(req, progress=progress).result
    else:
        result = run_paired(req, progress=progress)
    # after the run: the text is decided from what drew the noise (report.randomness_text); the
    # progress lines go to stderr, so stdout keeps its order
    print(f"randomness: {randomness_text(result)}" + (
        "; the methods are separate releases (not paired; give --seeds for a paired comparison)"
        if seeds is None and len(methods) > 1 else ""))
    _write_synth_outputs(args, result, methods, seeds)
    _print_summary(args, result, policy, seeds, data_lines)
    return 0


def _print_summary(args, result, policy, seeds: list[int] | None, data_lines: list[str]) -> None:
    """After the outputs are written: the internal figures, the public parameters, what was written."""
    rep = result.report
    metric_name = rep["metric"]["name"]
    n_runs = f"{len(seeds)} seed(s)" if seeds is not None else "1 unseeded run"
    print(f"{INTERNAL_LABEL.upper()}:")
    if policy.participation:  # n is private with participation edges: the data lines are internal
        for line in data_lines:
            print(line)
    if rep["metric"].get("skipped"):  # fewer than two modelled columns (issue 27)
        print(f"evaluation: {rep['metric']['skipped']}")
    else:
        print(f"{metric_name} by method (mean over {n_runs}, 95% t-interval, low end clipped at 0):")
    for m, v in rep["summary"]["per_method"].items():
        print(f"  {m:<16} {v['mean']:.4f}  {_ci_text(v['ci95'], '.4f')}")
    rr = rep["summary"].get("relative_reduction_bf_soft_vs_hard")
    if rr:
        kind = "paired reduction" if seeds is not None else "reduction (one unpaired run each)"
        print(f"  BF-Soft vs Hard {kind} R_s: {rr['mean_percent']:.1f}% {_ci_text(rr['ci95'], '.1f')}")
    pub = getattr(result, "publication", None)
    print("PUBLIC PARAMETERS (NOT differentially private: the domain was read from the private data):"
          if pub is not None and pub.data_domain else
          "PUBLIC (may be published with the release):" if pub is not None else
          f"PUBLIC PARAMETERS ({SEEDED_NOTE}):")
    print(_ledger_text(rep, result.request.checked.methods))  # includes the report's warnings and the randomness line
    wrote = [args.out] + [p for p in (args.report, args.eval_report) if p]
    print(f"wrote {', '.join(wrote)}" + (f" and the release bundle {args.bundle}" if args.bundle else ""))
