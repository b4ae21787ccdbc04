"""Command line: ``python -m blowfish_core {reach,synth,schema,presets,pilot} ...``.

Every bad input exits non-zero with one line ``error: ...`` naming the field;
no Python traceback.  The UI calls the same engine functions.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import sys
from typing import Any

from ...io import atomic
from ...io.data import read_text_file
from ...base.errors import BlowfishError, DataError
from ...io.exports import to_csv_safe
from ...base.fields import render
from ...base.input_checks import check_generated_n, check_integer_bounds, check_seeds
from ...io.intake import IntakeResult, check_sep, domain_problems, intake_csv
from ...algorithm.evolution import SCHEDULES, SynthConfig
from ...model.policy import Policy
from ...io.presets import get_preset, load_preset_data, split_line
from ...synthesis import gate as release_gate
from ...synthesis.release import claim_of, release_synthesis
from ...synthesis.spec import RunSpec, check_soft_tau
from ...synthesis.experiment import run_paired
from ...synthesis.gate import DEFAULT_DELTA
from ...synthesis.report import INTERNAL_LABEL, bundle_files, is_bundle_file, ledger_text, policy_summary, release_files
from ...algorithm.evolution import RANDOMNESS, SEEDED_NOTE
from ...model.schema import Schema
from ...privacy.mechanisms import ADDITIVE, get_mechanism
from ...algorithm.methods import METHODS, SOFT, get_method, reference_methods, tau_methods
from ...synthesis.parsing import (apply_protect, parse_budget, parse_methods, parse_noise, parse_population, parse_seeds,
                      require_tau)
from ...model.votes import check_tau

EPILOG = """examples:
  python -m blowfish_core synth --preset xor3 --method tab-pe,hard,bf-soft --tau 0.03 --rho 0.003 --seeds 0,1 --out out/synth.csv --report out/report.json
  python -m blowfish_core synth --preset xor3 --method bf-soft --tau 0.03 --rho 0.003 --out out/release.csv --bundle out/bundle --eval-report out/internal.json   (unseeded release)
  python -m blowfish_core synth --preset adult --data adult.data --no-header --method bf-soft --tau 0.03 --rho 1e-4 --out out/adult.csv
  python -m blowfish_core reach --preset adult --protect hours.per.week --tau 0.03 --json
  python -m blowfish_core synth --preset adult --data ../shared/data/adult.csv --method hard,bf-soft --tau 0.03 --rho 1e-4 --out out/adult.csv
  python -m blowfish_core schema --data my.csv --out my_schema.json     (data-derived: edit the bounds!)
  python -m blowfish_core synth --data my.csv --schema my_schema.json --policy my_policy.json --method bf-soft --tau 0.05 --epsilon 1 --delta 1e-5 --out my_synth.csv
"""


def _float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    return v


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's error contract: one line ``error: ...`` naming the
    argument, exit code 2, no usage dump; numbers like -1e-5 are read as values."""

    def __init__(self, *a, **kw):
        kw.setdefault("allow_abbrev", False)  # '--meth hard' is an error, not --method (issue 15h)
        super().__init__(*a, **kw)
        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")

    def parse_args(self, args=None, namespace=None):  # noqa: D401 - argparse hook
        """As argparse, but unknown arguments point to the subcommand's help (``blowfish synth --help``)."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            cmd = getattr(ns, "command", None)
            prog = f"{self.prog} {cmd}" if cmd else self.prog
            self.exit(2, f"error: unrecognized arguments: {' '.join(extras)} (see {prog} --help)\n")
        return ns

    def error(self, message: str):  # noqa: D401 - argparse hook
        if message.endswith("expected one argument"):
            message += " (a value that starts with '-' must be written as --option=VALUE, e.g. --population=512x8)"
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def add_schedule_args(p: argparse.ArgumentParser) -> None:
    """The synthesis schedule flags (Algorithm 1, DESIGN §3), shared by synth and pilot."""
    p.add_argument("--rounds", type=_int, default=8, help="T (default 8)")
    p.add_argument("--population", help="candidates per round, e.g. '512x3,1024x5' (default: 512 for rounds 1-3, 1024 after)")
    p.add_argument("--release", type=_int, default=512, help="released records (default 512)")
    p.add_argument("--threshold-h", type=_float, default=0.0, help="public count threshold H (App. B; default 0)")
    p.add_argument("--schedule", choices=list(SCHEDULES), default="hybrid",
                   help="named schedule (DESIGN §3): hybrid (default: rank rounds keep the top m/2 parents + 1 "
                        "child each, release = the top final counts) or hybrid-256x3 (the earlier reading: top m/4 "
                        "kept + 3 children each, release drawn proportionally); the flags below override it")
    p.add_argument("--selection", choices=["hybrid", "sample", "rank"], default=None,
                   help="population selection (default from --schedule: hybrid = sample up to round 3, then rank)")
    p.add_argument("--children", type=_int, default=None,
                   help="rank rounds: mutated children per kept parent, the top m/(1+children) kept "
                        "(default from --schedule: 1 for hybrid, 3 for hybrid-256x3)")
    p.add_argument("--release-mode", choices=["top", "top-distinct", "sample"], default=None,
                   help="top: the --release candidates with the largest final noisy counts, each once (default "
                        "for hybrid); top-distinct: the same with equal records once; both repeat in rank order when "
                        "there are fewer than --release; sample: drawn proportionally to the counts (default for "
                        "hybrid-256x3)")
    p.add_argument("--rank-by", choices=["clipped", "raw"], default=None,
                   help="what rank rounds and the top release rank by: clipped (default: the H-thresholded, "
                        "clipped noisy counts) or raw (the unclipped noisy counts, as the reference library)")
    p.add_argument("--mutation-index", choices=["t", "t-1"], default=None,
                   help="round t mutates at rate_t (t, default) or at rate_(t-1) (t-1, as the reference library)")


#: (flag, args attribute, default) of the flags only Algorithm 1's loop reads (not --release).
_LOOP_FLAGS = (("--rounds", "rounds", 8), ("--population", "population", None), ("--threshold-h", "threshold_h", 0.0),
               ("--schedule", "schedule", "hybrid"), ("--selection", "selection", None), ("--children", "children", None),
               ("--release-mode", "release_mode", None), ("--rank-by", "rank_by", None),
               ("--mutation-index", "mutation_index", None))


def check_schedule_flags(args: argparse.Namespace, cfg: SynthConfig, methods: list[str] | None = None) -> None:
    """Refuse schedule flags the run would ignore (never silently): any of them with only reference
    methods (MST, AIM do not run Algorithm 1), --children with sample selection (children are made
    in rank rounds only), --rank-by when nothing is ranked (sample selection and a sample release).
    Raises BlowfishError naming the flags and the fix."""
    if methods and all(get_method(m).is_reference for m in methods):
        given = [f for f, attr, default in _LOOP_FLAGS if getattr(args, attr, default) != default]
        if given:
            what = "Algorithm 1's schedule flags" if len(given) > 1 else "an Algorithm 1 schedule flag"
            raise BlowfishError(f"{', '.join(given)}: {what}, but --method {','.join(methods)} "
                                f"runs no Algorithm 1 loop, so {'they' if len(given) > 1 else 'it'} would be "
                                f"ignored. Fix: drop {'them' if len(given) > 1 else 'it'}, or add an "
                                f"Algorithm 1 method (e.g. --method hard,{methods[0]})")
    if cfg.selection == "sample" and getattr(args, "children", None) is not None:
        raise BlowfishError(f"--children {args.children}: children per kept parent are made in rank rounds only, "
                            "and --selection sample has none; it would be ignored. Fix: drop --children or use "
                            "--selection hybrid or rank")
    if cfg.selection == "sample" and cfg.release_mode == "sample" and getattr(args, "rank_by", None) is not None:
        raise BlowfishError(f"--rank-by {args.rank_by}: nothing is ranked with --selection sample and --release-mode "
                            "sample; it would be ignored. Fix: drop --rank-by, or use --selection hybrid or rank, or "
                            "--release-mode top")


def config_from_args(args: argparse.Namespace) -> SynthConfig:
    """SynthConfig from the add_schedule_args flags: --schedule, then the explicit flags on top.
    Raises BlowfishError naming the field for a bad value."""
    return SynthConfig.from_schedule(
        args.schedule, rounds=args.rounds, population=parse_population(args.population, args.rounds),
        release=args.release, threshold_h=args.threshold_h, selection=args.selection, children=args.children,
        release_mode=args.release_mode, rank_by=args.rank_by, mutation_index=args.mutation_index).validate()


def _prog() -> str:
    """The command as the user typed it: 'blowfish' (the console script) or 'python -m blowfish_core'."""
    return "blowfish" if os.path.basename(sys.argv[0] or "") == "blowfish" else "python -m blowfish_core"


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog=_prog(),
        description="Blowfish Studio engine: policy-aware differentially private synthesis "
                    "(Tab-PE, Hard, BF-Soft; paper 'Soft Voting for Policy-Aware Private Data Synthesis').",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)

    def add_policy_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--preset", help="built-in setting: adult, bank, xor3 (or xorK)")
        p.add_argument("--schema", metavar="JSON", help="schema file (public domain); overrides the preset's")
        p.add_argument("--policy", metavar="JSON", help="policy file; overrides the preset's default policy")
        p.add_argument("--protect", action="append", default=[], metavar="ATTR[=SPEC]",
                       help="protect ATTR with SPEC = threshold:VALUE | block | complete | hierarchy | none "
                            "(the preset's Table 3 graph when SPEC is omitted); repeatable; applied on top of the "
                            "preset default (age on Adult/Bank, X_1 on XOR)")
        p.add_argument("--participation", action="store_true", help="add participation edges (u, bottom) (§5.6)")

    def add_intake_args(p: argparse.ArgumentParser, columns: bool = True) -> None:
        p.add_argument("--sep", default=None,
                       help="field separator of --data (default: detected among , ; tab | and ', '; e.g. ';' or '\\t')")
        p.add_argument("--no-header", action="store_true",
                       help="--data has no header row (names from --names, or the Adult/Bank UCI names when the "
                            "layout matches, else column_1 ..)")
        p.add_argument("--names", help="comma list of column names for a file without a header row (implies --no-header)")
        p.add_argument("--drop-missing", metavar="COLS",
                       help="comma list of columns (or 'all') whose rows with a missing cell are dropped (the count is shown)")
        p.add_argument("--missing-level", action="append", default=[], metavar="COL=TEXT",
                       help="declare TEXT as the missing level of text column COL (its empty cells get it); repeatable")
        if columns:
            p.add_argument("--columns", help="comma list of columns to model (default: intake's choice, at most 30)")

    r = sub.add_parser("reach", help="per-attribute and record-level reach, q and the BF-Soft bound")
    add_policy_args(r)
    r.add_argument("--data", metavar="CSV", help="table to infer a (data-derived) schema from when no schema is given")
    add_intake_args(r)
    r.add_argument("--tau", type=_float, help="temperature for q and the bound")
    r.add_argument("--json", action="store_true", help="print one JSON object")

    s = sub.add_parser("synth", help="run Tab-PE / Hard / BF-Soft with paired seeds and write the release",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    s.add_argument("--method", default="tab-pe,hard,bf-soft",
                   help=f"comma list of {', '.join(METHODS)} (default tab-pe,hard,bf-soft); "
                        f"{' and '.join(reference_methods())} are reference methods (standard DP, not "
                        "policy-aware, zCDP only; they ignore the policy, and --tau is refused for them; optional extra: "
                        "pip install .[baseline])")
    s.add_argument("--tau", type=_float, help=f"temperature of soft votes (needed for {', '.join(tau_methods())}; "
                                              "refused without them)")
    s.add_argument("--mechanism", default=None,
                   help=f"additive noise mechanism of --noise gaussian: {', '.join(ADDITIVE)} (default gaussian: zCDP, "
                        "--rho or --epsilon/--delta; laplace: pure DP, --epsilon only)")
    s.add_argument("--noise", default="gaussian",
                   help="release step of the hard vote: gaussian (default: add noise by --mechanism, then resample), "
                        "pubmix or linmix (papers/003: draw from (1-beta) H/n + beta P_nse; --epsilon/--delta, PLD "
                        "ledger; tab-pe and hard only)")
    s.add_argument("--public", metavar="CSV",
                   help="--noise pubmix: public rows of the same domain, disjoint from the private ones "
                        "(default for Adult/Bank/XOR presets: their pilot split)")
    s.add_argument("--rho", type=_float, help="total zCDP budget")
    s.add_argument("--epsilon", type=_float, help="target epsilon (with --delta) instead of --rho; with "
                                                  "--mechanism laplace the pure-DP epsilon")
    s.add_argument("--delta", type=_float, default=None, help="delta for (epsilon, delta) (default 1e-5; "
                                                              "not with --mechanism laplace)")
    s.add_argument("--conversion", choices=["exact", "eq1"], default=None,
                   help="epsilon -> rho conversion: exact Gaussian curve (default) or the paper's Eq. (1)")
    add_schedule_args(s)
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
    # issue 15: tables of any size, and the vote step on Dask
    s.add_argument("--chunk-rows", type=_int, default=None, metavar="N",
                   help="read --data (with --schema) in chunks of N rows, grouping identical records as it goes "
                        "(memory bounded by the distinct records); automatic for files over --in-memory-mb")
    s.add_argument("--in-memory-mb", type=_float, default=IN_MEMORY_MB, metavar="MB",
                   help="files up to this size are read whole; larger ones in chunks (default 100)")
    s.add_argument("--engine", choices=["local", "dask"], default="local",
                   help="where the vote histograms are computed: this process (default) or a Dask cluster "
                        "(needs dask[distributed]; same seeded release)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="--engine dask: address of a running dask.distributed "
                                                          "scheduler, e.g. tcp://host:8786")
    s.add_argument("--workers", type=_int, default=None, metavar="N",
                   help="--engine dask: start a local cluster of N workers (default 2 when no --scheduler)")

    sc = sub.add_parser("schema", help="infer a schema JSON from a CSV (flagged data-derived; edit it!)")
    sc.add_argument("--data", required=True, metavar="CSV")
    add_intake_args(sc)
    sc.add_argument("--out", metavar="JSON", help="write here instead of stdout")

    pr = sub.add_parser("presets", help="list the built-in presets and their policies")
    pr.add_argument("--json", action="store_true")
    add_pilot_parser(sub, add_policy_args)
    return ap


def _sep(args) -> str | None:
    """--sep with the escapes people type ('\\t' -> tab); None = detect."""
    return check_sep(getattr(args, "sep", None))  # '' is an error, not ','


def _list(text: str | None) -> list[str] | None:
    return None if text is None else [c.strip() for c in str(text).split(",") if c.strip()]


def _missing_levels(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for it in items or []:
        if "=" not in it or not it.split("=", 1)[0].strip():
            raise BlowfishError(f"--missing-level expects COL=TEXT, e.g. --missing-level workclass=unknown (got {it!r})")
        c, v = it.split("=", 1)
        out[c.strip()] = v
    return out


#: the command line reads a file of any size (the 100 MB cap, data.DEFAULT_MAX_BYTES, is the app's
#: upload limit): a --preset run or a small --schema file is read whole, in memory (docs/DECISIONS.md).
NO_SIZE_CAP = sys.maxsize


def read_data(args, columns: list[str] | None = None, release_size: int | None = None,
              schema: Any = None) -> IntakeResult:
    """--data through the intake step (blowfish_core.io.intake.intake_csv) with the intake
    flags; every problem in one DataError (raise_for_problems), with ``schema`` also the
    cells outside its public domain (intake.domain_problems, on the whole table before any
    split, with row numbers).  Memoized on ``args``;
    :func:`intake_lines` gives the separator, header, notes and warnings to print (after
    the checks, so an error stays one ``error:`` block on stderr)."""
    cached = getattr(args, "_intake", None)
    if cached is not None:
        return cached
    # the pilot has only --sep of the intake flags: the others read as unset there
    drop = getattr(args, "drop_missing", None)
    drop_arg: Any = True if drop is not None and drop.strip().lower() == "all" else (_list(drop) or ())
    names = _list(getattr(args, "names", None))
    from ...io.data import DEFAULT_MAX_BYTES

    size = os.path.getsize(args.data) if os.path.isfile(args.data) else 0
    if size > DEFAULT_MAX_BYTES and not getattr(args, "quiet", False):
        print(f"note: reading {args.data} whole, in memory ({size / 2**20:.0f} MB; expect RAM of about 25x the "
              "file size). A preset splits its rows in memory; for a table larger than memory pass --schema "
              "(read in chunks)", file=sys.stderr)
    res = intake_csv(args.data, sep=_sep(args), no_header=True if (getattr(args, "no_header", False) or names) else None,
                     names=names, columns=columns, drop_missing=drop_arg,
                     missing_level=_missing_levels(getattr(args, "missing_level", [])), release_size=release_size,
                     max_bytes=NO_SIZE_CAP)
    if schema is not None:  # value and domain problems in one pass (issue 15g, finding 8)
        order = {a.name: i for i, a in enumerate(schema.attributes)}  # by column, as the chunked reader
        res = dataclasses.replace(res, problems=tuple(sorted(res.problems + domain_problems(schema, res),
                                                             key=lambda p: order.get(p.column, -1))))
    res.raise_for_problems()
    args._intake = res
    return res


def read_other(path: str, args, columns: list[str] | None = None):
    """A further table (--public, the pilot's --data) through the same intake step as --data,
    without --data's header/missing-value flags: its frame (every problem in one DataError)."""
    res = intake_csv(path, sep=_sep(args), columns=columns, max_bytes=NO_SIZE_CAP)
    res.raise_for_problems()
    return res.frame


def intake_lines(args) -> list[str]:
    """The intake's separator / header / notes / warnings lines of --data ([] without)."""
    res = getattr(args, "_intake", None)
    lines = list(getattr(args, "_read_lines", []))  # a chunked / Dask read's notes and warnings
    return lines if res is None else \
        [render("data: " + t if i == 0 else t, "cli") for i, t in enumerate(res.summary_lines())] + lines


def _q_line(tau: float, q: float, bound: float) -> str:
    """The reach command's q line; never divides by zero, never prints inf."""
    head = f"tau = {tau:g}: noise ratio q = {q:.4g}, BF-Soft sensitivity bound = {bound:.4g} (Tab-PE: 1.4142)"
    if q == 0.0:
        return head + "; q = 0: BF-Soft adds no noise (nothing protected, or tau far above the reach)"
    mult = 1.0 / (q * q) if q > 1e-150 else math.inf
    if not math.isfinite(mult):
        return head + "; same noise as Hard at more than 1e300x the budget"
    return head + f"; same noise as Hard at {mult:.3g}x the budget"


def _check_outputs(args, methods: list[str], seeds: list[int] | None) -> None:
    """Refuse, before any work, outputs that would overwrite an input or each other, and inputs or
    internal reports inside the --bundle folder.  Paths are compared resolved (os.path.realpath), so a
    symbolic link to an input or into the bundle is caught like the path itself."""
    real = os.path.realpath

    def same(a: str | None, b: str | None) -> bool:
        return bool(a and b) and real(a) == real(b)

    inputs = [("--data", args.data), ("--schema", args.schema), ("--policy", args.policy),
              ("--public", getattr(args, "public", None))]
    outputs = [("--out", args.out), ("--report", args.report), ("--eval-report", getattr(args, "eval_report", None))]
    for oflag, opath in outputs:
        for iflag, ipath in inputs:
            if same(opath, ipath):
                what = "table" if iflag == "--data" else iflag[2:] + " file"
                raise BlowfishError(f"{oflag} would overwrite the input {what} ({iflag} {ipath}). Fix: choose another path")
    for i, (fa, pa) in enumerate(outputs):
        for fb, pb in outputs[i + 1:]:
            if same(pa, pb):
                raise BlowfishError(f"{fa} and {fb} name the same file. Fix: choose different paths")
    bundle, eval_report = getattr(args, "bundle", None), getattr(args, "eval_report", None)  # synth only
    if bundle and eval_report and (real(os.path.dirname(os.path.abspath(eval_report))) + os.sep).startswith(
            real(bundle) + os.sep):
        raise BlowfishError("--eval-report is inside the --bundle folder, which holds what may be published. "
                            "Fix: write the internal report elsewhere")
    if bundle:  # the bundle folder is replaced as a whole (issue 21, atomic outputs)
        root = real(bundle)
        for flag, path in outputs + [("--out-dir", args.out_dir)]:
            if path and (real(path) == root or real(path).startswith(root + os.sep)):
                raise BlowfishError(f"{flag} is inside the --bundle folder, which a run replaces as a whole (the "
                                    "bundle holds the releases already). Fix: write it elsewhere")
        for flag, path in inputs:
            if path and (real(path) + os.sep).startswith(root + os.sep):
                raise BlowfishError(f"the input {flag} {path} is inside the --bundle folder, which holds what may be "
                                    "published (a private table there would be published with it). Fix: move the "
                                    "input out of it, or choose another --bundle folder")
    if args.out_dir:
        names = [f"{m}.csv" for m in methods] if seeds is None else [f"{m}_seed{sd}.csv" for m in methods for sd in seeds]
        written = {real(os.path.join(args.out_dir, n)) for n in names}
        for flag, path in inputs + [("--report", args.report)]:
            if path and real(path) in written:
                raise BlowfishError(f"--out-dir would overwrite {flag} {path}. Fix: choose another folder or file name")


def _check_ignored_options(args, preset) -> None:
    """Options that would be silently ignored are errors naming the option."""
    generated = preset is not None and preset.generator is not None and not args.data and not args.schema
    split = preset is not None and preset.generator is None and not args.schema
    if not generated:
        for flag, v in (("--n", args.n), ("--data-seed", args.data_seed)):
            if v is not None:
                raise BlowfishError(f"{flag} only applies to a generated XOR preset table (--preset xor3 without "
                                    "--data/--schema); it would be ignored here. Fix: drop it")
    if not split and args.split_seed is not None:
        raise BlowfishError("--split-seed only applies to the Adult/Bank presets (private/pilot split); "
                            "it would be ignored here. Fix: drop it")
    if getattr(args, "command", None) != "synth":
        return  # the pilot's --sep (default ',') also reads --public
    if not args.data:
        given = [flag for flag, v in (("--sep", args.sep), ("--no-header", args.no_header or None),
                                      ("--names", args.names), ("--drop-missing", args.drop_missing),
                                      ("--missing-level", args.missing_level or None), ("--columns", args.columns))
                 if v is not None]
        if given:
            many = len(given) > 1
            raise BlowfishError(f"{', '.join(given)} {'read' if many else 'reads'} --data, but this run generates "
                                f"its table (no --data), so {'they' if many else 'it'} would be ignored. Fix: drop "
                                f"{'them' if many else 'it'}, or give --data CSV")
    check_in_memory_mb(args.in_memory_mb)
    if args.in_memory_mb != IN_MEMORY_MB and not args.schema:
        raise BlowfishError("--in-memory-mb applies to --schema runs (they read --data whole or in chunks; "
                            f"{'a preset reads its table whole' if args.data else 'this run generates its table'}); "
                            "it would be ignored here. Fix: drop it, or pass --schema with the table's schema file")
    if args.engine == "dask" and args.scheduler is not None:
        from ...algorithm.dask_engine import check_scheduler

        check_scheduler(args.scheduler)


#: --in-memory-mb's default (MB).
IN_MEMORY_MB = 100.0


def check_in_memory_mb(mb: float) -> float:
    """--in-memory-mb: a finite number >= 0 (BlowfishError naming the flag)."""
    if not math.isfinite(mb) or mb < 0:
        raise BlowfishError(f"--in-memory-mb must be a finite number >= 0 (got {mb:g}). Fix: e.g. --in-memory-mb 100")
    return mb


def _check_columns(args, schema: Schema) -> None:
    """--columns with a schema from --schema or a preset: the schema decides what is modelled, so
    unknown columns are refused by name, and any other set would be ignored (BlowfishError)."""
    cols = _list(getattr(args, "columns", None))
    if cols is None:
        return
    unknown = [c for c in cols if c not in schema.names]
    src = "--schema" if args.schema else f"preset {args.preset}"
    if unknown:
        raise BlowfishError(f"--columns: no column {', '.join(repr(c) for c in unknown)} in the schema ({src}); "
                            f"its columns are {', '.join(schema.names)}. Fix: name schema columns, or drop --columns")
    if sorted(cols) != sorted(schema.names):
        raise BlowfishError(f"--columns {','.join(cols)}: the schema ({src}) models exactly "
                            f"{','.join(schema.names)}, so --columns would be ignored. Fix: drop --columns, or edit "
                            "the schema to model those columns")


def _write(flag: str, path: str, write) -> None:
    """Run ``write()``; an OSError becomes one BlowfishError line naming the flag and the path
    (for atomic.Outputs.commit: the output whose rename failed, from ``e.output_label``)."""
    try:
        write()
    except OSError as e:
        flag = getattr(e, "output_label", None) or flag
        path = getattr(e, "output_path", None) or path
        raise BlowfishError(f"{flag}: cannot write {path}: {e.strerror or e}") from None


def _check_output_paths(args, flags: tuple[str, ...]) -> None:
    """Before any work: each file output's folder is created and writable (a temporary is created
    and removed beside it; the file itself is not touched) and the path is not a folder."""
    for flag in flags:
        path = getattr(args, flag[2:].replace("-", "_"), None)
        if path:
            d = os.path.dirname(os.path.abspath(path))
            _write(flag, path, lambda d=d: os.makedirs(d, exist_ok=True))
            if os.path.isdir(path):
                raise BlowfishError(f"{flag}: {path} is a folder; give a file path")
            _write(flag, path, lambda p=path: atomic.check_writable(p))


def _commit(outs: atomic.Outputs, flag: str, path: str) -> None:
    """Rename every staged output into place (atomic.Outputs.commit), errors named by their flag."""
    _write(flag, path, outs.commit)


def resolve_setting(args) -> tuple[Schema, Policy, Any]:
    """Schema, policy and preset (or None) from --preset/--schema/--policy/--protect."""
    preset = get_preset(args.preset) if args.preset else None
    if args.schema:
        schema = Schema.from_json(read_text_file(args.schema, "schema"))
    elif preset is not None:
        schema = preset.schema
    if args.schema or preset is not None:
        _check_columns(args, schema)
    elif getattr(args, "data", None):
        schema = read_data(args, _list(getattr(args, "columns", None)),
                           getattr(args, "release", None)).schema()
    else:
        raise BlowfishError("give --preset NAME, or --schema JSON (or --data CSV to infer a data-derived schema)")
    if args.policy:
        policy = Policy.from_json(read_text_file(args.policy, "policy"))
    elif preset is not None and not args.schema:
        policy = preset.default_policy()
    else:
        policy = Policy()
    if args.protect:
        policy = apply_protect(policy, args.protect, preset if (preset is not None and not args.schema) else None)
    if args.participation:
        policy.participation = True
    policy.validate(schema)
    check_integer_bounds(schema)
    return schema, policy, preset


def cmd_reach(args) -> int:
    schema, policy, _ = resolve_setting(args)
    if args.tau is not None:
        check_tau(args.tau)
    summ = policy_summary(schema, policy, args.tau)
    out = {k: summ[k] for k in ("per_attribute", "reach", "tau", "q", "sensitivity_bound")}
    out["protected"] = summ["protected"]
    out["domain_warning"] = schema.domain_warning()
    for line in intake_lines(args):
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print("weighted reach per attribute (w_i * r_i, Gower units):")
    top = max(out["per_attribute"].values()) if out["per_attribute"] else 0
    for name, v in out["per_attribute"].items():
        mark = "  <- sets the record-level reach" if v == top and v > 0 else ""
        desc = summ["protected"].get(name, "not protected")
        print(f"  {name:<20} {v:.4f}   ({desc}){mark}")
    print(f"record-level reach r = {out['reach']:.4f}")
    if args.tau is not None:
        print(_q_line(args.tau, out["q"], out["sensitivity_bound"]))
    if out["domain_warning"]:
        print("WARNING: " + out["domain_warning"])
    return 0


def cmd_synth(args) -> int:
    methods = parse_methods(args.method)
    mechanism = parse_noise(args.noise, args.mechanism)
    sampling = bool(getattr(get_mechanism(mechanism), "samples", False))
    if args.public and not sampling:
        raise BlowfishError("--public only applies to --noise pubmix (and linmix); it would be ignored here. "
                            "Fix: drop it or add --noise pubmix")
    budget = parse_budget(args.rho, args.epsilon, args.delta, mechanism, args.conversion)
    for m in methods:  # reference methods (mst, aim) run in zCDP only
        get_method(m).check_mechanism(budget.mechanism, "--mechanism")
    require_tau(methods, args.tau)
    schema, policy, preset = resolve_setting(args)
    _check_ignored_options(args, preset)
    check_generated_n(args.n, "--n")
    seeds = parse_seeds(args.seeds) if args.seeds is not None else None
    _check_outputs(args, methods, seeds)
    cfg = config_from_args(args)
    check_schedule_flags(args, cfg, methods)
    metric, split_txt = None, None
    if preset is not None and not args.schema:
        if args.chunk_rows is not None:
            raise BlowfishError("--chunk-rows applies to --schema runs (a preset splits its table in memory). "
                                "Fix: drop it, or pass --schema with the preset's schema file")
        table = read_data(args, schema.names, args.release, schema).frame if args.data else None
        split = load_preset_data(preset, table, split_seed=args.split_seed or 0, n=args.n,
                                 data_seed=args.data_seed or 0)
        data, source_txt = split.private, split.source.replace("table (", f"{args.data} (", 1)
        split_txt = split_line(preset, args.data, split, args.split_seed or 0)
        metric = preset.metric_fn()
        public, public_txt = split.public, f"{preset.name} pilot split ({len(split.public)} rows, disjoint)"
    else:
        if not args.data:
            raise BlowfishError("--data CSV is required with --schema (or use --preset xor3)")
        if args.schema:  # any size: in memory, in chunks, or on Dask workers (issue 15)
            data, source_txt = _read_private(args, schema, cfg), args.data
        else:
            intake = read_data(args, _list(args.columns), args.release)
            data, source_txt = intake.modelled_frame(), args.data
    if args.public:
        public, public_txt = read_other(args.public, args, schema.names), f"{args.public} (user-given public rows)"
    if not sampling:
        public, public_txt = None, ""
    # fail before any work if an output folder cannot be written
    _check_output_paths(args, ("--out", "--report", "--eval-report"))
    if args.bundle:
        parent = os.path.dirname(os.path.abspath(args.bundle))
        _write("--bundle", args.bundle, lambda: os.makedirs(parent, exist_ok=True))
        _write("--bundle", args.bundle, lambda: atomic.check_folder(args.bundle))
    grouped, engine = _grouped_and_engine(args, schema, data, cfg)
    unprotected = len(public) if (sampling and public is not None and not args.public and preset is not None
                                  and preset.generator is None) else 0  # a preset's held-out rows as public
    req = RunSpec.build(schema, policy, None if grouped is not None else data, methods, budget.rho,
                        budget.delta or DEFAULT_DELTA, args.tau, seeds, cfg,
                        metric=metric, budget_source=budget.source, data_source=source_txt,
                        allow_empty_policy=args.allow_empty_policy, mechanism=budget.mechanism,
                        epsilon=budget.epsilon, public=public, public_source=public_txt, grouped=grouped,
                        engine=engine, allow_data_domain=args.allow_data_domain, unprotected_rows=unprotected)
    if seeds is None:  # a release: the gate's checks before any work (release_gate.publish repeats them)
        release_gate.check(claim_of(req))
    elif args.allow_data_domain:
        raise BlowfishError("--allow-data-domain applies to a release (no --seeds); a seeded study run is never "
                            "published. Fix: drop it")

    def progress(ev):
        if not args.quiet:
            scale = {"gaussian": "sigma_t", "pubmix": "beta_t", "linmix": "beta_t"}.get(ev.get("mechanism"), "scale_t")
            who = "unseeded" if ev["seed"] is None else f"seed {ev['seed']}"
            how = f"  ({ev['how']})" if ev.get("how") else ""
            print(f"  {ev['method']:<8} {who} round {ev['round']}/{ev['rounds']}  "
                  f"Delta_t={ev['delta_t']:.4g} {scale}={ev['sigma_t']:.4g}{how}", file=sys.stderr)

    # row counts are printed only where n is public (bounded adjacency without participation edges)
    data_lines = intake_lines(args) + ([split_txt] if split_txt else [])
    if not policy.participation:
        for line in data_lines:
            print(line)
    print(f"randomness: {SEEDED_NOTE}" if seeds is not None else f"randomness: {RANDOMNESS}"
          + ("; the methods are separate releases (not paired; give --seeds for a paired comparison)"
             if len(methods) > 1 else ""))
    if seeds is None:  # THE release gate (issue 21): OS entropy, safe samplers, public domain, total
        result = release_synthesis(req, progress=progress).result
    else:
        result = run_paired(req, progress=progress)
    rep = result.report
    _write_synth_outputs(args, result, methods, seeds)
    metric_name = rep["metric"]["name"]
    n_runs = f"{len(seeds)} seed(s)" if seeds is not None else "1 unseeded run"
    print(f"{INTERNAL_LABEL.upper()}:")
    if policy.participation:  # n is private with participation edges: the data lines are internal
        for line in data_lines:
            print(line)
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
    print(ledger_text(rep))  # includes the report's warnings and the randomness line
    wrote = [args.out] + [p for p in (args.report, args.eval_report) if p]
    print(f"wrote {', '.join(wrote)}" + (f" and the release bundle {args.bundle}" if args.bundle else ""))
    return 0


def _write_synth_outputs(args, result, methods: list[str], seeds: list[int] | None) -> None:
    """Write every output of ``synth`` atomically and together (issue 21).

    Order: each output is first written to a temporary beside it (atomic.Outputs) -- --report,
    --eval-report, the --bundle folder (built complete in a temporary sibling), the --out-dir
    files, then --out -- and only when all of them are complete are they renamed into place, in
    that order (SIGINT / SIGTERM held until the last rename).  So an interrupted or failed run
    leaves every earlier file byte for byte as it was, and the release (--out) is renamed last: a
    new --out means every report beside it is new too.  A replaced bundle folder drops the stale
    bundle files of the earlier run (report.is_bundle_file) and keeps anything else in it."""
    rep = result.report
    first = result.run(methods[0], None if seeds is None else seeds[0]).release
    with atomic.Outputs() as outs:
        for flag, path, obj in (("--report", args.report, rep), ("--eval-report", args.eval_report,
                                                                   result.eval_report)):
            if path:
                text = json.dumps(obj, indent=2, allow_nan=False)
                _write(flag, path, lambda f=flag, p=path, t=text: outs.write_text(p, t, label=f))
        if args.bundle:
            files = bundle_files(result, raw=args.raw_values)
            _write("--bundle", args.bundle,
                   lambda: outs.replace_folder(args.bundle, files, label="--bundle", drop=is_bundle_file))
        if args.out_dir:
            _write("--out-dir", args.out_dir, lambda: os.makedirs(args.out_dir, exist_ok=True))
            for key, name in release_files(result).items():
                path, df = os.path.join(args.out_dir, name), result.releases[key]
                _write("--out-dir", path, lambda df=df, p=path: outs.write_with(
                    p, lambda f: to_csv_safe(df, f, raw=args.raw_values), label="--out-dir"))
        _write("--out", args.out, lambda: outs.write_with(
            args.out, lambda f: to_csv_safe(first, f, raw=args.raw_values), label="--out"))
        _commit(outs, "--out", args.out)


def _read_private(args, schema: Schema, cfg):
    """The private table of a --schema run: a DataFrame (small file), or for a file over
    --in-memory-mb / with --chunk-rows a chunked.GroupedTable (or, with --engine dask, a
    dask_engine.DaskEngine that read it on the workers).  Issue 15.

    Every intake flag (--no-header, --names, --drop-missing, --missing-level) applies to the
    chunked read too; the Dask reader refuses them (and says how to read locally).  A
    --missing-level for a column the schema declares numeric is refused before anything runs."""
    from ...model.domain import NumericAttribute
    from ...io.intake import missing_level_numeric

    if not math.isfinite(args.in_memory_mb) or args.in_memory_mb < 0:
        raise BlowfishError(f"--in-memory-mb must be a number >= 0 (got {args.in_memory_mb})")
    if args.chunk_rows is not None and args.chunk_rows < 1:
        raise BlowfishError(f"--chunk-rows must be a whole number >= 1 (got {args.chunk_rows})")
    levels = _missing_levels(args.missing_level)
    attrs = {a.name: a for a in schema.attributes}
    for c, v in levels.items():
        if isinstance(attrs.get(c), NumericAttribute):
            raise DataError(missing_level_numeric(c, v))
    size = os.path.getsize(args.data) if os.path.isfile(args.data) else 0
    chunked = args.chunk_rows is not None or size > args.in_memory_mb * 2**20
    if args.engine == "dask" and chunked:
        used = [f for f, v in (("--no-header", args.no_header), ("--names", args.names),
                               ("--drop-missing", args.drop_missing), ("--missing-level", args.missing_level)) if v]
        if used:
            raise BlowfishError(f"{', '.join(used)}: the Dask reader does not apply the intake flags. Fix: drop "
                                "--engine dask to read the file with the local chunked reader (it applies them), "
                                "or prepare the file first (header row, no missing cells)")
    sep = _sep(args)
    if chunked and sep is None and os.path.isfile(args.data):  # detect it on the head, as the intake does
        from ...io.chunked import sniff_file_separator

        sep = sniff_file_separator(args.data)
        if not args.quiet:
            print(f"separator: {sep!r} (detected; set --sep to override)", file=sys.stderr)
    if args.engine == "dask" and chunked:
        from ...algorithm.dask_engine import DaskEngine

        eng = DaskEngine.read_csv(_dask_client(args), args.data, schema, cfg.sizes(), sep=sep)
        args._read_lines = [f"WARNING: {w}" for w in eng.warnings(cfg.release)]
        return eng
    if not chunked:
        return read_data(args, schema.names, cfg.release, schema).frame  # the intake step (issue 11)
    from ...io.chunked import DEFAULT_CHUNK_ROWS, read_grouped

    def said(k, n):
        if not args.quiet:
            print(f"  read chunk {k}: {n:,} rows so far", file=sys.stderr)

    drop = args.drop_missing
    names = _list(args.names)
    g = read_grouped(args.data, schema, sep=sep, chunk_rows=args.chunk_rows or DEFAULT_CHUNK_ROWS,
                     on_chunk=said, no_header=bool(args.no_header or names), names=names,
                     drop_missing=True if drop is not None and drop.strip().lower() == "all" else (_list(drop) or ()),
                     missing_level=levels, release_size=cfg.release)
    if not args.quiet:
        print(f"read {args.data} in {g.chunks} chunk(s): {g.n_rows:,} rows, {g.n_unique:,} distinct records",
              file=sys.stderr)
    args._read_lines = [render("note: " + t, "cli") for t in g.notes] + [f"WARNING: {t}" for t in g.warnings]
    return g


_CLIENT: list = []


def _dask_client(args):
    if not _CLIENT:
        from ...algorithm.dask_engine import connect

        _CLIENT.append(connect(args.scheduler, args.workers))
    return _CLIENT[0]


def _grouped_and_engine(args, schema: Schema, data, cfg):
    """(grouped table or None, vote engine or None) for RunRequest (issue 15)."""
    if args.engine != "dask":
        for flag in ("scheduler", "workers"):
            if getattr(args, flag) is not None:
                raise BlowfishError(f"--{flag} only applies with --engine dask. Fix: add --engine dask or drop it")
        return (data if hasattr(data, "U") else None), None
    from ...algorithm.dask_engine import DaskEngine, require_dask

    require_dask()
    if isinstance(data, DaskEngine):
        return (data.U, data.counts), data
    if hasattr(data, "U"):
        U, counts = data.U, data.counts
        return data, DaskEngine(_dask_client(args), schema, U, counts, cfg.sizes())
    from ...model.distance import group_records

    U, counts = group_records(schema.encode(data))
    return None, DaskEngine(_dask_client(args), schema, U, counts, cfg.sizes())


def _ci_text(ci, fmt: str) -> str:
    if ci[0] is None or ci[1] is None:
        return "n/a (needs >= 2 seeds)"
    return f"[{ci[0]:{fmt}}, {ci[1]:{fmt}}]"


def cmd_schema(args) -> int:
    schema = read_data(args, _list(args.columns), None).schema()
    text = schema.to_json()
    if args.out:
        if os.path.abspath(args.out) == os.path.abspath(args.data):
            raise BlowfishError(f"--out would overwrite the input table (--data {args.data}). Fix: choose another path")

        _write("--out", args.out, lambda: atomic.write_text(args.out, text + "\n"))
        print(f"wrote {args.out}")
    else:
        print(text)
    for line in intake_lines(args):
        print(line, file=sys.stderr)
    print("WARNING: " + schema.domain_warning(), file=sys.stderr)
    return 0


def cmd_presets(args) -> int:
    from ...io.presets import PRESET_NAMES

    out = {}
    for name in PRESET_NAMES:
        p = get_preset(name)
        out[name] = {
            "description": p.description,
            "schema": p.schema.to_dict(),
            "table3": {k: v.to_dict() for k, v in p.table3.items()},
            "default_protected": p.default_protected,
            "metric": p.metric,
        }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for name, d in out.items():
            print(f"{name}: {d['description']}; metric {d['metric']}; protected by default: {', '.join(d['default_protected'])}")
            for k, v in d["table3"].items():
                print(f"    {k:<16} {v}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    atomic.COMMITTED.clear()  # this run's committed outputs (the interrupt message)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2, already printed as one line)
        return e.code if isinstance(e.code, int) else 2
    try:
        return {"reach": cmd_reach, "synth": cmd_synth, "schema": cmd_schema, "presets": cmd_presets,
                "pilot": cmd_pilot}[args.command](args)
    except BlowfishError as e:  # structured (GateError, intake fixes): the CLI's names (--schema, --sep, ...)
        print(f"error: {e.render('cli')}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e.strerror or e}: {getattr(e, 'filename', '') or ''}".rstrip(": "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if atomic.COMMITTED:  # Ctrl-C during or after the renames (they finish first): the outputs are new
            print(f"error: interrupted after the outputs were written: {', '.join(atomic.COMMITTED)} are complete "
                  "and new", file=sys.stderr)
        else:
            print("error: interrupted: no output was replaced (earlier files are as they were)", file=sys.stderr)
        return 130
    finally:
        while _CLIENT:  # a Dask client (and its local cluster) started by --engine dask
            client = _CLIENT.pop()
            cluster = getattr(client, "cluster", None) if args.workers is not None or not args.scheduler else None
            client.close()
            if cluster is not None:
                cluster.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


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


def add_pilot_parser(sub, add_policy_args) -> argparse.ArgumentParser:
    """The ``pilot`` subcommand: the public pilot (default) or ``--private`` (exponential mechanism)."""
    p = sub.add_parser("pilot", help="choose tau or Hard: public pilot (default, no private budget) or --private "
                                     "(K runs on the private table + an exponential-mechanism choice)",
                       epilog=PILOT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    p.add_argument("--delta", type=_float, default=None, help="delta for (epsilon, delta) (default 1e-5)")
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


def cmd_pilot(args) -> int:
    from ...workflows.pilot import DEFAULT_TIE_TOL, parse_tau_grid, run_pilot, scale_budget, tau_grid
    from ...synthesis.parsing import parse_selection_budget
    from ...model.policy import record_reach
    from ...workflows.private_pilot import INTERNAL, choose_tau_private, private_pilot_plan, release_tau_choice
    from ...synthesis.gate import unprotected_text

    budget = parse_budget(args.rho, args.epsilon, args.delta, "gaussian", args.conversion)
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
    delta = budget.delta or 1e-5

    def progress(ev):
        if not args.quiet:
            sd = "" if ev.get("seed") is None else f" seed {ev['seed']}"
            print(f"  {ev['label']:<20} ({ev['config']}/{ev['configs']}){sd} round "
                  f"{ev['round']}/{ev['rounds']}", file=sys.stderr)

    def write_all(report, internal=None, release=None):
        """--report, --eval-report, then --out: each to a temporary, then all renamed in that order
        (atomic.Outputs; as synth's outputs, the release last)."""
        with atomic.Outputs() as outs:
            for flag, path, obj in (("--report", args.report, report), ("--eval-report", args.eval_report, internal)):
                if path and obj is not None:
                    text = json.dumps(obj, indent=2, allow_nan=False)
                    _write(flag, path, lambda f=flag, p=path, t=text: outs.write_text(p, t, label=f))
            if args.out and release is not None:
                _write("--out", args.out, lambda: outs.write_with(
                    args.out, lambda f: release.to_csv(f, index=False), label="--out"))
            _commit(outs, "--report", args.report or "")

    if args.private:
        plan = private_pilot_plan(schema, policy, n_t, taus, budget.rho, args.rho_sel, args.epsilon_sel,
                                  metric=metric_name, delta=delta, flags=True)
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
        kw = dict(rho_sel=args.rho_sel, epsilon_sel=args.epsilon_sel, config=cfg, metric=metric, delta=delta,
                  data_source=source, flags=True, progress=progress)
        pub = None
        if seeds is None:
            pub = release_tau_choice(schema, policy, data, budget.rho, taus,
                                     allow_data_domain=args.allow_data_domain, **kw)  # main renders a GateError
            res = pub.result
        else:
            res = choose_tau_private(schema, policy, data, budget.rho, taus, seed=seeds[0], **kw)
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
        write_all(res.public_dict(), res.internal_dict() if args.eval_report else None, res.release)
        written = [x for x in (args.out, args.report, args.eval_report) if x]
        if written:
            print("wrote " + " and ".join(written))
        return 0

    tie = DEFAULT_TIE_TOL if args.tie_tol is None else args.tie_tol
    scaling = scale_budget(budget.rho, n_t, len(public), cfg.rounds, cfg.budget_weights, delta)
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
    res = run_pilot(schema, policy, public, budget.rho, n_t, taus, seeds, cfg, metric, delta, tie,
                    public_source=psrc, progress=progress)
    print(f"mean public {res.metric.upper()} (over {len(seeds)} seed(s), 95% t-interval):")
    for c in res.candidates:
        print(f"  {c.label:<20} {c.mean:.4f}  {_ci_text(c.ci95, '.4f')}")
    print(f"recommendation: {res.recommendation.label} ({res.recommendation.reason})")
    print(res.note)
    if warn:
        print(warn)
    write_all({**res.to_dict(), **({"unprotected_rows": held, "unprotected": warn} if held else {})})
    if args.report:
        print(f"wrote {args.report}")
    return 0
