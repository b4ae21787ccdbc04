"""Command line: ``python -m blowfish_core {reach,synth,schema,presets} ...``.

Every bad input exits non-zero with one line ``error: ...`` naming the field;
no Python traceback.  The UI calls the same engine functions.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from typing import Any

from .data import read_table, read_text_file
from .errors import BlowfishError
from .exports import to_csv_safe
from .input_checks import check_generated_n, check_integer_bounds
from .intake import check_sep
from .evolution import SynthConfig
from .policy import Policy
from .presets import get_preset, load_preset_data
from .experiment import RunRequest, run_paired, validate_request
from .report import ledger_text, policy_summary
from .schema import Schema, infer_schema
from .mechanisms import MECHANISMS
from .methods import METHODS, tau_methods
from .parsing import apply_protect, parse_budget, parse_methods, parse_population, parse_seeds, require_tau
from .votes import check_tau

EPILOG = """examples:
  python -m blowfish_core synth --preset xor3 --method tab-pe,hard,bf-soft --tau 0.03 --rho 0.003 --seeds 0,1 --out out/synth.csv --report out/report.json
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
        super().__init__(*a, **kw)
        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")

    def error(self, message: str):  # noqa: D401 - argparse hook
        if message.endswith("expected one argument"):
            message += " (a value that starts with '-' must be written as --option=VALUE, e.g. --population=512x8)"
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="python -m blowfish_core",
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

    r = sub.add_parser("reach", help="per-attribute and record-level reach, q and the BF-Soft bound")
    add_policy_args(r)
    r.add_argument("--data", metavar="CSV", help="table to infer a (data-derived) schema from when no schema is given")
    r.add_argument("--sep", default=",", help="field separator of --data (default ','; e.g. ';' or '\\t')")
    r.add_argument("--tau", type=_float, help="temperature for q and the bound")
    r.add_argument("--json", action="store_true", help="print one JSON object")

    s = sub.add_parser("synth", help="run Tab-PE / Hard / BF-Soft with paired seeds and write the release",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_policy_args(s)
    s.add_argument("--data", metavar="CSV", help="private table (XOR presets generate it when omitted)")
    s.add_argument("--sep", default=",", help="field separator of --data (default ','; e.g. ';' or '\\t')")
    s.add_argument("--n", type=_int, help="XOR presets without --data: number of generated private records (default 12000)")
    s.add_argument("--data-seed", type=_int, default=None, help="XOR presets without --data: generator seed (default 0)")
    s.add_argument("--split-seed", type=_int, default=None,
                   help="Adult/Bank presets: seed of the private/pilot split (default 0)")
    s.add_argument("--method", default="tab-pe,hard,bf-soft",
                   help=f"comma list of {', '.join(METHODS)} (default tab-pe,hard,bf-soft)")
    s.add_argument("--tau", type=_float, help=f"temperature of soft votes (needed for {', '.join(tau_methods())})")
    s.add_argument("--mechanism", default="gaussian",
                   help=f"noise mechanism: {', '.join(MECHANISMS)} (default gaussian: zCDP, --rho or --epsilon/--delta; "
                        "laplace: pure DP, --epsilon only)")
    s.add_argument("--rho", type=_float, help="total zCDP budget")
    s.add_argument("--epsilon", type=_float, help="target epsilon (with --delta) instead of --rho; with "
                                                  "--mechanism laplace the pure-DP epsilon")
    s.add_argument("--delta", type=_float, default=None, help="delta for (epsilon, delta) (default 1e-5; "
                                                              "not with --mechanism laplace)")
    s.add_argument("--conversion", choices=["exact", "eq1"], default="exact",
                   help="epsilon -> rho conversion: exact Gaussian curve (default) or the paper's Eq. (1)")
    s.add_argument("--rounds", type=_int, default=8, help="T (default 8)")
    s.add_argument("--population", help="candidates per round, e.g. '512x3,1024x5' (default: 512 for rounds 1-3, 1024 after)")
    s.add_argument("--release", type=_int, default=512, help="released records (default 512)")
    s.add_argument("--threshold-h", type=_float, default=0.0, help="public count threshold H (App. B; default 0)")
    s.add_argument("--selection", choices=["hybrid", "sample", "rank"], default="hybrid")
    s.add_argument("--children", type=_int, default=3,
                   help="rank rounds: mutated children per kept parent (default 3: top m/4 kept; 1: top m/2 kept)")
    s.add_argument("--release-mode", choices=["sample", "top"], default="sample",
                   help="release drawn proportionally to the last noisy counts (default) or the top-count candidates")
    s.add_argument("--seeds", default="0", help="comma list of seeds, paired across methods (default 0)")
    s.add_argument("--out", required=True, metavar="SYNTH.csv", help="release of the first method and seed")
    s.add_argument("--out-dir", metavar="DIR", help="also write every release as DIR/<method>_seed<S>.csv")
    s.add_argument("--report", metavar="REPORT.json", help="JSON report with the privacy ledger")
    s.add_argument("--raw-values", action="store_true",
                   help="write text cells as they are (default: cells starting with = + - @ tab CR get a leading ' "
                        "so spreadsheets do not run them as formulas)")
    s.add_argument("--allow-empty-policy", action="store_true",
                   help="run Hard/BF-Soft even when the policy protects nothing (their releases then carry NO noise)")
    s.add_argument("--quiet", action="store_true", help="no progress lines")
    # issue 15: tables of any size, and the vote step on Dask
    s.add_argument("--chunk-rows", type=_int, default=None, metavar="N",
                   help="read --data (with --schema) in chunks of N rows, grouping identical records as it goes "
                        "(memory bounded by the distinct records); automatic for files over --in-memory-mb")
    s.add_argument("--in-memory-mb", type=_float, default=100.0, metavar="MB",
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
    sc.add_argument("--sep", default=",", help="field separator (default ',')")
    sc.add_argument("--columns", help="comma list of columns to model (default all)")
    sc.add_argument("--out", metavar="JSON", help="write here instead of stdout")

    pr = sub.add_parser("presets", help="list the built-in presets and their policies")
    pr.add_argument("--json", action="store_true")
    return ap


def _sep(args) -> str:
    """--sep with the escapes people type ('\\t' -> tab)."""
    sep = check_sep(getattr(args, "sep", ",")) or ","  # '' is an error, not ','
    if len(sep) != 1:
        raise BlowfishError(f"--sep must be one character such as ',' ';' or '\\t' (got {sep!r})")
    return sep


_SEP_FIX = re.compile(r"Fix: choose the (semicolon|tab|pipe) separator or save it comma-separated")


def _cli_message(msg: str) -> str:
    """CLI wording of engine messages (the engine's are interface-neutral)."""
    flag = {"semicolon": "--sep ';'", "tab": "--sep '\\t'", "pipe": "--sep '|'"}
    return _SEP_FIX.sub(lambda m: f"Fix: pass {flag[m.group(1)]} or save it comma-separated", msg)


def _q_line(tau: float, q: float, bound: float) -> str:
    """The reach command's q line; never divides by zero, never prints inf."""
    head = f"tau = {tau:g}: noise ratio q = {q:.4g}, BF-Soft sensitivity bound = {bound:.4g} (Tab-PE: 1.4142)"
    if q == 0.0:
        return head + "; q = 0: BF-Soft adds no noise (nothing protected, or tau far above the reach)"
    mult = 1.0 / (q * q) if q > 1e-150 else math.inf
    if not math.isfinite(mult):
        return head + "; same noise as Hard at more than 1e300x the budget"
    return head + f"; same noise as Hard at {mult:.3g}x the budget"


def _check_outputs(args, methods: list[str], seeds: list[int]) -> None:
    """Refuse, before any work, outputs that would overwrite an input or each other."""
    def same(a: str | None, b: str | None) -> bool:
        return bool(a and b) and os.path.abspath(a) == os.path.abspath(b)

    inputs = [("--data", args.data), ("--schema", args.schema), ("--policy", args.policy)]
    outputs = [("--out", args.out), ("--report", args.report)]
    for oflag, opath in outputs:
        for iflag, ipath in inputs:
            if same(opath, ipath):
                what = "table" if iflag == "--data" else iflag[2:] + " file"
                raise BlowfishError(f"{oflag} would overwrite the input {what} ({iflag} {ipath}). Fix: choose another path")
    if same(args.out, args.report):
        raise BlowfishError("--out and --report name the same file. Fix: choose different paths")
    if args.out_dir:
        written = {os.path.abspath(os.path.join(args.out_dir, f"{m}_seed{sd}.csv")) for m in methods for sd in seeds}
        for flag, path in inputs + [("--report", args.report)]:
            if path and os.path.abspath(path) in written:
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


def _write(flag: str, path: str, write) -> None:
    try:
        write()
    except OSError as e:
        raise BlowfishError(f"{flag}: cannot write {path}: {e.strerror or e}") from None


def resolve_setting(args) -> tuple[Schema, Policy, Any]:
    """Schema, policy and preset (or None) from --preset/--schema/--policy/--protect."""
    preset = get_preset(args.preset) if args.preset else None
    if args.schema:
        schema = Schema.from_json(read_text_file(args.schema, "schema"))
    elif preset is not None:
        schema = preset.schema
    elif getattr(args, "data", None):
        schema = infer_schema(read_table(args.data, sep=_sep(args)))
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
    budget = parse_budget(args.rho, args.epsilon, args.delta, args.mechanism, args.conversion)
    require_tau(methods, args.tau)
    schema, policy, preset = resolve_setting(args)
    _check_ignored_options(args, preset)
    check_generated_n(args.n, "--n")
    seeds = parse_seeds(args.seeds)
    _check_outputs(args, methods, seeds)
    cfg = SynthConfig(rounds=args.rounds, population=parse_population(args.population, args.rounds),
                      release=args.release, threshold_h=args.threshold_h, selection=args.selection,
                      children=args.children, release_mode=args.release_mode).validate()
    metric = None
    if preset is not None and not args.schema:
        if args.chunk_rows is not None:
            raise BlowfishError("--chunk-rows applies to --schema runs (a preset splits its table in memory). "
                                "Fix: drop it, or pass --schema with the preset's schema file")
        table = read_table(args.data, sep=_sep(args)) if args.data and _sep(args) != "," else args.data
        split = load_preset_data(preset, table, split_seed=args.split_seed or 0, n=args.n,
                                 data_seed=args.data_seed or 0)
        data, source_txt = split.private, split.source
        metric = preset.metric_fn()
    else:
        if not args.data:
            raise BlowfishError("--data CSV is required with --schema (or use --preset xor3)")
        data, source_txt = _read_private(args, schema, cfg), args.data
    # fail before any work if the output folder cannot be written
    for flag, path in [("--out", args.out), ("--report", args.report)]:
        if path:
            d = os.path.dirname(os.path.abspath(path))
            _write(flag, path, lambda: os.makedirs(d, exist_ok=True))
            if os.path.isdir(path):
                raise BlowfishError(f"{flag}: {path} is a folder; give a file path")
            if not os.path.exists(path):  # probe writability now, not after the run
                def probe(p=path):
                    open(p, "a").close()
                    os.remove(p)
                _write(flag, path, probe)
    grouped, engine = _grouped_and_engine(args, schema, data, cfg)
    req = RunRequest(schema, policy, None if grouped is not None else data, methods, budget.rho,
                     budget.delta or 1e-5, args.tau, seeds, cfg,
                     metric=metric, budget_source=budget.source, data_source=source_txt,
                     allow_empty_policy=args.allow_empty_policy, mechanism=budget.mechanism, epsilon=budget.epsilon,
                     grouped=grouped, engine=engine)
    validate_request(req)  # every setting error before any work (and before --out is created)

    def progress(ev):
        if not args.quiet:
            scale = "sigma_t" if ev.get("mechanism", "gaussian") == "gaussian" else "scale_t"
            print(f"  {ev['method']:<8} seed {ev['seed']} round {ev['round']}/{ev['rounds']}  "
                  f"Delta_t={ev['delta_t']:.4g} {scale}={ev['sigma_t']:.4g}", file=sys.stderr)

    result = run_paired(req, progress=progress)
    rep = result.report
    first = result.run(methods[0], seeds[0]).release
    _write("--out", args.out, lambda: to_csv_safe(first, args.out, raw=args.raw_values))
    if args.out_dir:
        _write("--out-dir", args.out_dir, lambda: os.makedirs(args.out_dir, exist_ok=True))
        for (m, sd), df in result.releases.items():
            path = os.path.join(args.out_dir, f"{m}_seed{sd}.csv")
            _write("--out-dir", path, lambda: to_csv_safe(df, path, raw=args.raw_values))
    if args.report:
        def dump():
            with open(args.report, "w", encoding="utf-8") as f:
                json.dump(rep, f, indent=2, allow_nan=False)
        _write("--report", args.report, dump)
    metric_name = rep["metric"]["name"]
    print(f"{metric_name} by method (mean over {len(seeds)} seed(s), 95% t-interval, low end clipped at 0):")
    for m, v in rep["summary"]["per_method"].items():
        print(f"  {m:<16} {v['mean']:.4f}  {_ci_text(v['ci95'], '.4f')}")
    rr = rep["summary"].get("relative_reduction_bf_soft_vs_hard")
    if rr:
        print(f"  BF-Soft vs Hard paired reduction R_s: {rr['mean_percent']:.1f}% {_ci_text(rr['ci95'], '.1f')}")
    print(ledger_text(rep))  # includes the report's warnings
    print(f"wrote {args.out}" + (f" and {args.report}" if args.report else ""))
    return 0


def _read_private(args, schema: Schema, cfg):
    """The private table of a --schema run: a DataFrame (small file), or for a file over
    --in-memory-mb / with --chunk-rows a chunked.GroupedTable (or, with --engine dask, a
    dask_engine.DaskEngine that read it on the workers).  Issue 15."""
    if not math.isfinite(args.in_memory_mb) or args.in_memory_mb < 0:
        raise BlowfishError(f"--in-memory-mb must be a number >= 0 (got {args.in_memory_mb})")
    if args.chunk_rows is not None and args.chunk_rows < 1:
        raise BlowfishError(f"--chunk-rows must be a whole number >= 1 (got {args.chunk_rows})")
    size = os.path.getsize(args.data) if os.path.isfile(args.data) else 0
    chunked = args.chunk_rows is not None or size > args.in_memory_mb * 2**20
    if args.engine == "dask" and chunked:
        from .dask_engine import DaskEngine

        return DaskEngine.read_csv(_dask_client(args), args.data, schema, cfg.sizes(), sep=_sep(args))
    if not chunked:
        return read_table(args.data, sep=_sep(args), max_bytes=max(int(args.in_memory_mb * 2**20), 1))
    from .chunked import DEFAULT_CHUNK_ROWS, read_grouped

    def said(k, n):
        if not args.quiet:
            print(f"  read chunk {k}: {n:,} rows so far", file=sys.stderr)

    g = read_grouped(args.data, schema, sep=_sep(args), chunk_rows=args.chunk_rows or DEFAULT_CHUNK_ROWS,
                     on_chunk=said)
    if not args.quiet:
        print(f"read {args.data} in {g.chunks} chunk(s): {g.n_rows:,} rows, {g.n_unique:,} distinct records",
              file=sys.stderr)
    return g


_CLIENT: list = []


def _dask_client(args):
    if not _CLIENT:
        from .dask_engine import connect

        _CLIENT.append(connect(args.scheduler, args.workers))
    return _CLIENT[0]


def _grouped_and_engine(args, schema: Schema, data, cfg):
    """(grouped table or None, vote engine or None) for RunRequest (issue 15)."""
    if args.engine != "dask":
        for flag in ("scheduler", "workers"):
            if getattr(args, flag) is not None:
                raise BlowfishError(f"--{flag} only applies with --engine dask. Fix: add --engine dask or drop it")
        return (data if hasattr(data, "U") else None), None
    from .dask_engine import DaskEngine, require_dask

    require_dask()
    if isinstance(data, DaskEngine):
        return (data.U, data.counts), data
    if hasattr(data, "U"):
        U, counts = data.U, data.counts
        return data, DaskEngine(_dask_client(args), schema, U, counts, cfg.sizes())
    from .distance import group_records

    U, counts = group_records(schema.encode(data))
    return None, DaskEngine(_dask_client(args), schema, U, counts, cfg.sizes())


def _ci_text(ci, fmt: str) -> str:
    if ci[0] is None or ci[1] is None:
        return "n/a (needs >= 2 seeds)"
    return f"[{ci[0]:{fmt}}, {ci[1]:{fmt}}]"


def cmd_schema(args) -> int:
    df = read_table(args.data, sep=_sep(args))
    cols = [c.strip() for c in args.columns.split(",")] if args.columns else None
    schema = infer_schema(df, cols)
    text = schema.to_json()
    if args.out:
        if os.path.abspath(args.out) == os.path.abspath(args.data):
            raise BlowfishError(f"--out would overwrite the input table (--data {args.data}). Fix: choose another path")

        def write():
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        _write("--out", args.out, write)
        print(f"wrote {args.out}")
    else:
        print(text)
    print("WARNING: " + schema.domain_warning(), file=sys.stderr)
    return 0


def cmd_presets(args) -> int:
    from .presets import PRESET_NAMES

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
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2, already printed as one line)
        return e.code if isinstance(e.code, int) else 2
    try:
        return {"reach": cmd_reach, "synth": cmd_synth, "schema": cmd_schema, "presets": cmd_presets}[args.command](args)
    except BlowfishError as e:
        print(f"error: {_cli_message(str(e))}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e.strerror or e}: {getattr(e, 'filename', '') or ''}".rstrip(": "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
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
