"""Runnable export: a run's settings as files anyone can rerun (issue 16 "Runnable export").

A bundle holds ``schema.json``, ``policy.json``, ``run.py`` (the Python API:
``Synthesizer(schema, policy, method=..., tau=..., rho=... | epsilon=..., delta=..., seed=...)
.fit(df).sample(n)``), ``run.sh`` (the CLI command with every setting, ``python -m blowfish_core
synth ...``) and ``README.md`` (what to run, where the data must be, and the privacy ledger in
words, report.ledger_text).  :func:`cli_command` is the exact CLI command as one string (for a
code block).  Both scripts write the same seeded release byte for byte as the CLI with the same
settings (tests/interfaces/test_run_bundle.py).

The private table is never written into a bundle: ``run.sh`` / ``run.py`` read it from the path
in the settings (or generate XOR-k rows).  A seeded run is for study, not for a real release
(DESIGN §7); the README says so.
"""

from __future__ import annotations

import io
import shlex
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ..privacy.accounting import PrivacyLedger, epsilon_eq1
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError
from ..algorithm.evolution import SynthConfig
from ..synthesis.spec import RunSpec, policy_is_empty
from ..privacy.mechanisms import get_mechanism
from ..algorithm.methods import get_method
from ..synthesis.parsing import parse_budget, parse_methods, require_tau
from ..model.policy import Policy
from ..io.presets import get_preset
from ..synthesis.report import ledger_text, policy_summary
from ..model.schema import Schema

SCHEMA_FILE, POLICY_FILE, RUN_PY, RUN_SH, README = "schema.json", "policy.json", "run.py", "run.sh", "README.md"
#: SynthConfig fields the CLI has no flag for: a bundle refuses non-default values of them.
_NOT_ON_CLI = ("switch_round", "mutation_start", "mutation_end", "max_edges", "budget_weights")


@dataclass(frozen=True)
class RunSettings:
    """Everything a run needs, as the Studio holds it.

    Dataset source: ``preset`` ('xor3', 'adult', 'bank') and/or ``data_path`` (CSV of the
    private table; for Adult/Bank the preset's private split of it is used); XOR presets without
    ``data_path`` generate ``n`` rows (default 12,000) from ``data_seed``; ``split_seed`` picks
    the Adult/Bank split.  schema, policy: public domain and policy.  methods: method-table
    names; tau; budget: ``rho`` or ``epsilon`` (+ ``delta``), ``mechanism``, ``conversion``;
    config: the schedule (SynthConfig); seeds: paired seeds.  out / report / out_dir: output
    paths (relative paths are relative to the bundle folder).
    """

    schema: Schema
    policy: Policy
    methods: list[str]
    seeds: list[int]
    tau: float | None = None
    rho: float | None = None
    epsilon: float | None = None
    delta: float | None = None
    mechanism: str = "gaussian"
    conversion: str = "exact"
    config: SynthConfig = field(default_factory=SynthConfig)
    preset: str | None = None
    data_path: str | None = None
    sep: str = ","
    n: int | None = None
    data_seed: int | None = None
    split_seed: int | None = None
    out: str = "release.csv"
    report: str | None = "report.json"
    out_dir: str | None = None
    allow_empty_policy: bool = False

    @property
    def budget_conversion(self) -> str | None:
        """The epsilon -> rho conversion to pass on: None when the budget is rho or pure epsilon (nothing to convert)."""
        if self.epsilon is None or get_mechanism(self.mechanism).budget_name != "rho":
            return None
        return self.conversion

    def validate(self) -> RunSettings:
        """Check every setting; BlowfishError naming the field.

        The settings' parsers (methods, budget, tau: the same as the CLI's) give the run's
        values, and the scalar checks (seeds, budget split, tau floor, policy, integer bounds)
        are RunSpec.build's (experiment.validate_request, with no table: a bundle holds none).
        Then the bundle's own checks: schedule settings without a CLI flag, the dataset source.
        """
        methods = parse_methods(self.methods, "methods")
        if not methods:
            raise BlowfishError("methods: choose at least one method")
        budget = parse_budget(self.rho, self.epsilon, self.delta, self.mechanism, self.budget_conversion, flags=False)
        require_tau(methods, self.tau, "tau")
        RunSpec.build(self.schema, self.policy, None, methods, budget.rho, budget.delta, self.tau, list(self.seeds or []),
                      self.config, allow_empty_policy=self.allow_empty_policy, mechanism=budget.mechanism,
                      epsilon=budget.epsilon)
        default = SynthConfig()
        for name in _NOT_ON_CLI:
            if getattr(self.config, name) != getattr(default, name):
                raise BlowfishError(f"schedule setting '{name}' = {getattr(self.config, name)!r} has no CLI flag, so "
                                    "run.sh could not repeat it. Fix: keep its default to export a bundle")
        src = self._source()
        if src == "generated" and self.data_path is None and self.sep != ",":
            raise BlowfishError("sep applies to a CSV; a generated table has none")
        if not self.out:
            raise BlowfishError("out: give a file name for the release CSV")
        return self

    def _source(self) -> str:
        """'generated' (XOR rows), 'preset-split' (Adult/Bank CSV, the preset's private split) or 'csv'."""
        if self.preset is None:
            if not self.data_path:
                raise BlowfishError("dataset source: give a preset or the path of the private CSV (data_path)")
            return "csv"
        p = get_preset(self.preset)
        if self.schema.to_dict() != p.schema.to_dict():
            if p.generator is not None and not self.data_path:
                raise BlowfishError(f"the schema differs from preset '{p.name}', and a generated table needs the "
                                    "preset's schema. Fix: use the preset schema or give data_path")
            if not self.data_path:
                raise BlowfishError("dataset source: a custom schema needs the path of the private CSV (data_path)")
            return "csv"
        if p.generator is not None and not self.data_path:
            return "generated"
        if p.generator is None and not self.data_path:
            raise BlowfishError(f"preset '{p.name}' needs the path of its table (data_path), e.g. "
                                f"../shared/data/{p.csv_name}")
        return "preset-split" if p.generator is None else "csv"


# ----------------------------------------------------------------------- CLI
def _num(x: float) -> str:
    """Shortest exact text of a number (repr round-trips floats)."""
    return repr(int(x)) if isinstance(x, int) else repr(float(x))


def _population(sizes: list[int]) -> str:
    parts: list[tuple[int, int]] = []
    for s in sizes:
        if parts and parts[-1][0] == s:
            parts[-1] = (s, parts[-1][1] + 1)
        else:
            parts.append((s, 1))
    return ",".join(f"{s}x{k}" for s, k in parts)


def cli_args(settings: RunSettings, schema_path: str = SCHEMA_FILE, policy_path: str = POLICY_FILE) -> list[str]:
    """The ``synth`` arguments with every setting (after ``python -m blowfish_core``).

    The policy is read from ``policy_path``; the schema from ``schema_path`` unless the
    preset's own schema is used (the CLI then takes it from the preset).

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    schema_path, policy_path : str, optional
        The schema and policy files as the command names them (default the bundle's file names).

    Returns
    -------
    list of str
        The arguments, starting with ``synth``.

    Raises
    ------
    BlowfishError
        For invalid settings (RunSettings.validate).
    """
    s = settings.validate()
    src = s._source()
    args = ["synth"]
    if src in ("generated", "preset-split"):  # sources of a preset (_source): s.preset is set
        args += ["--preset", get_preset(cast(str, s.preset)).name]
    if src == "csv":
        args += ["--schema", schema_path]
    if s.data_path:
        args += ["--data", str(s.data_path)]
        if s.sep != ",":
            args += ["--sep", s.sep]
    if src == "generated":
        if s.n is not None:
            args += ["--n", _num(int(s.n))]
        if s.data_seed is not None:
            args += ["--data-seed", _num(int(s.data_seed))]
    if src == "preset-split" and s.split_seed is not None:
        args += ["--split-seed", _num(int(s.split_seed))]
    args += ["--policy", policy_path]
    args += ["--method", ",".join(parse_methods(s.methods, "methods"))]
    if s.tau is not None:
        args += ["--tau", _num(s.tau)]
    args += ["--mechanism", get_mechanism(s.mechanism).name]
    if s.rho is not None:
        args += ["--rho", _num(s.rho)]
    if s.epsilon is not None:
        args += ["--epsilon", _num(s.epsilon)]
    if s.delta is not None:
        args += ["--delta", _num(s.delta)]
    if s.epsilon is not None and get_mechanism(s.mechanism).budget_name == "rho":
        args += ["--conversion", s.conversion]
    c = s.config
    args += ["--rounds", _num(c.rounds), f"--population={_population(c.sizes())}", "--release", _num(c.release),
             "--threshold-h", _num(c.threshold_h), "--selection", c.selection, "--children", _num(c.children),
             "--release-mode", c.release_mode, "--rank-by", c.rank_by, f"--mutation-index={c.mutation_index}",
             "--seeds", ",".join(str(int(x)) for x in s.seeds),
             "--out", s.out]
    if s.report:
        args += ["--report", s.report]
    if s.out_dir:
        args += ["--out-dir", s.out_dir]
    if s.allow_empty_policy:
        args += ["--allow-empty-policy"]
    return args


def cli_command(settings: RunSettings, python: str = "python", schema_path: str = SCHEMA_FILE,
                policy_path: str = POLICY_FILE) -> str:
    """The exact CLI command as one shell-quoted line: ``python -m blowfish_core synth ...``.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    python : str, optional
        The interpreter's name in the command (default ``python``).
    schema_path, policy_path : str, optional
        The schema and policy files as the command names them (cli_args).

    Returns
    -------
    str
        The command.

    Raises
    ------
    BlowfishError
        For invalid settings (cli_args).
    """
    return shlex.join([python, "-m", "blowfish_core", *cli_args(settings, schema_path, policy_path)])


def run_sh(settings: RunSettings) -> str:
    """run.sh: the CLI command, run from the bundle folder (``PYTHON`` overrides the interpreter).

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).

    Returns
    -------
    str
        The script's text.

    Raises
    ------
    BlowfishError
        For invalid settings (cli_args).
    """
    cmd = shlex.join(["-m", "blowfish_core", *cli_args(settings)])
    return ("#!/bin/sh\n"
            "# Blowfish Studio run bundle: the CLI command with every setting of this run.\n"
            "# Seeded: reproducible for study, not for a real release (a release needs fresh randomness).\n"
            "set -e\n"
            'cd "$(dirname "$0")"\n'
            f'"${{PYTHON:-python}}" {cmd}\n')


# -------------------------------------------------------------------- Python
def run_py(settings: RunSettings) -> str:
    """run.py: the same run through the Python API (blowfish_core.Synthesizer), one fit per (method, seed).

    It writes the first method's first-seed release to ``out`` (as the CLI does).

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).

    Returns
    -------
    str
        The script's text.

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    src = s._source()
    c = s.config
    if src == "generated":
        n = "None" if s.n is None else _num(int(s.n))
        data = (f"split = bc.load_preset_data(bc.get_preset({s.preset!r}), None, n={n}, "
                f"data_seed={int(s.data_seed or 0)})\ndf = split.private")
    elif src == "preset-split":
        data = (f"table = read_table(str(HERE / {str(s.data_path)!r}), sep={s.sep!r})\n"
                f"split = bc.load_preset_data(bc.get_preset({s.preset!r}), table, split_seed={int(s.split_seed or 0)})"
                "\ndf = split.private")
    else:
        data = f"df = read_table(str(HERE / {str(s.data_path)!r}), sep={s.sep!r})"
    budget = []
    for k in ("rho", "epsilon", "delta"):
        v = getattr(s, k)
        if v is not None:
            budget.append(f"{k}={_num(v)}")
    budget_txt = ", ".join(budget)
    return f'''"""Blowfish Studio run bundle: the run through the Python API.

Seeded: reproducible for study, not for a real release (a release needs fresh randomness).
Run from anywhere: python run.py  (paths are relative to this folder)
"""

from pathlib import Path

import blowfish_core as bc
from blowfish_core.io.atomic import write_with
from blowfish_core.io.data import read_table
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.algorithm.methods import get_method

HERE = Path(__file__).resolve().parent
schema = bc.Schema.from_json((HERE / {SCHEMA_FILE!r}).read_text(encoding="utf-8"))
policy = bc.Policy.from_json((HERE / {POLICY_FILE!r}).read_text(encoding="utf-8"))
{data}

config = SynthConfig(rounds={c.rounds!r}, population={c.sizes()!r}, release={c.release!r},
                     threshold_h={float(c.threshold_h)!r}, selection={c.selection!r}, children={c.children!r},
                     release_mode={c.release_mode!r}, rank_by={c.rank_by!r},
                     mutation_index={c.mutation_index!r})
METHODS = {parse_methods(s.methods, "methods")!r}
SEEDS = {[int(x) for x in s.seeds]!r}
TAU = {None if s.tau is None else _num(s.tau)}  # soft votes only (a tau is refused for the others)
OUT = HERE / {s.out!r}
OUT_DIR = {None if not s.out_dir else s.out_dir!r}

for method in METHODS:
    for seed in SEEDS:
        syn = bc.Synthesizer(schema, policy, method=method, tau=TAU if get_method(method).needs_tau else None,
                             {budget_txt}, mechanism={get_mechanism(s.mechanism).name!r},
                             conversion={s.budget_conversion!r}, seed=seed, config=config,
                             allow_empty_policy={bool(s.allow_empty_policy)!r}).fit(df)
        release = syn.sample(config.release)
        if method == METHODS[0] and seed == SEEDS[0]:
            OUT.parent.mkdir(parents=True, exist_ok=True)
            write_with(OUT, lambda f: release.to_csv(f, index=False))  # a temporary, renamed into place
        if OUT_DIR is not None:
            folder = HERE / OUT_DIR
            folder.mkdir(parents=True, exist_ok=True)
            write_with(folder / f"{{method}}_seed{{seed}}.csv", lambda f: release.to_csv(f, index=False))
        print(method, "seed", seed, "privacy:", syn.privacy_)
print("wrote", OUT)
'''


# -------------------------------------------------------------------- README
def planned_report(settings: RunSettings) -> dict[str, Any]:
    """The report fields report.ledger_text needs, from the settings alone (before any run).

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).

    Returns
    -------
    dict
        ``privacy`` (the planned totals: gdp-exact, zcdp-eq1 for reference methods, or pure-sum),
        methods, blowfish_protection, policy, reach, tau, noise_ratio_q, sensitivity_bound,
        domain_warning and warnings ([]).

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    methods = parse_methods(s.methods, "methods")
    b = parse_budget(s.rho, s.epsilon, s.delta, s.mechanism, s.budget_conversion, flags=False)
    rounds = s.config.rounds
    privacy: dict[str, Any]
    if b.rho is not None and any(get_method(m).is_reference for m in methods):
        # reference methods (MST, AIM): Gaussian + exponential rows, Eq. (1) only (ledger.zcdp_totals);
        # their number of rows is known only after the run
        eps = epsilon_eq1(b.rho, b.delta)
        privacy = {"rho": b.rho, "delta": b.delta, "epsilon": eps, "epsilon_eq1": eps, "rounds": None,
                   "accountant": "zcdp-eq1"}
    elif b.rho is not None:
        privacy = {**PrivacyLedger.from_budget(rho=b.rho, delta=b.delta, rounds=rounds).to_dict(),
                   "accountant": "gdp-exact"}
    else:
        # parse_budget gives rho or epsilon: here epsilon (pure DP)
        per = [float(x) for x in get_mechanism(b.mechanism).split(cast(float, b.epsilon), rounds)]
        privacy = {"epsilon": b.epsilon, "delta": 0.0, "rounds": rounds, "epsilon_per_round": per,
                   "accountant": "pure-sum"}
    pol = policy_summary(s.schema, s.policy, s.tau)
    return {"privacy": privacy, "methods": methods, "blowfish_protection": not policy_is_empty(s.schema, s.policy),
            "policy": s.policy.to_dict(), "reach": pol["reach"], "tau": s.tau, "noise_ratio_q": pol["q"],
            "sensitivity_bound": pol["sensitivity_bound"], "domain_warning": s.schema.domain_warning(),
            "warnings": []}


def _rounds_in_words(report: dict[str, Any]) -> list[str]:
    lines = []
    for run in report.get("runs", [])[:1]:
        lines.append(f"Per round ({get_method(run['method']).label}, seed {run['seed']}):")
        for r in run["rounds"]:
            budget = (f"rho_t = {r['rho_t']:.4g}" if r.get("rho_t") is not None
                      else f"epsilon_t = {r.get('epsilon_t', 0):.4g}")
            lines.append(f"- round {r['t']}: {r['candidates']} candidates, sensitivity {r['sensitivity_t']:.4g} "
                         f"({r['calibration']}), noise scale {r['scale_t']:.4g}, {budget}")
    return lines


def _budget_view(s: RunSettings):
    """The epsilon-first view of the settings' budget (blowfish_core.workflows.budget)."""
    from ..workflows.budget import budget_from_epsilon, budget_from_rho

    if s.rho is not None:
        return budget_from_rho(s.rho, DEFAULT_DELTA if s.delta is None else s.delta, s.config.rounds)
    # validated settings have rho or epsilon (parse_budget): here epsilon
    return budget_from_epsilon(cast(float, s.epsilon), s.delta, s.config.rounds, s.mechanism, s.conversion)


def readme(settings: RunSettings, report: dict[str, Any] | None = None) -> str:
    """README.md: how to rerun, where the data come from, and the ledger in words.

    The ledger is report.ledger_text of ``report`` when a run's report is given, else of the
    planned budget (planned_report).

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    report : dict, optional
        The run's report (its ``runs`` give the per-round lines).

    Returns
    -------
    str
        The README's Markdown text.

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    src = s._source()
    if src == "generated":
        # a generated source has a preset (_source)
        where = (f"The table is generated ({s.preset}, n = {s.n or get_preset(cast(str, s.preset)).default_n:,}, "
                 f"seed {s.data_seed or 0}); no data file is needed.")
    elif src == "preset-split":
        where = (f"The private table is read from `{s.data_path}` (the {s.preset} preset's private split, "
                 f"seed {s.split_seed or 0}). It is NOT in this bundle: put the file there first.")
    else:
        where = f"The private table is read from `{s.data_path}`. It is NOT in this bundle: put the file there first."
    led = ledger_text(report if report is not None else planned_report(s))
    view = _budget_view(s)
    words = "\n".join(_rounds_in_words(report)) if report is not None else ""
    return "\n".join([
        "# Blowfish Studio run bundle", "",
        "Files: `schema.json` (public domain), `policy.json` (Blowfish policy), `run.sh` (the CLI command with "
        "every setting), `run.py` (the same run through the Python API), this README.", "",
        "## Run it", "",
        "```sh", "sh run.sh            # or: PYTHON=/path/to/python sh run.sh", "python run.py", "```", "",
        "Both need `blowfish_core` importable (install the Blowfish Studio repository or set PYTHONPATH to it) "
        f"and write `{s.out}`: the release of the first method and seed, byte for byte the same from either.", "",
        where, "",
        "The command in run.sh:", "", "```sh", cli_command(s), "```", "",
        "## Privacy ledger in words", "",
        f"In one number: {view.label} (the accountant's epsilon; every figure follows).", "", led, "", *([words, ""] if words else []),
        "Seeded runs are reproducible for study; a real release must use fresh randomness (a known seed lets "
        "anyone recompute and subtract the noise).", "",
    ])


# ------------------------------------------------------------------- bundle
def bundle_files(settings: RunSettings, report: dict[str, Any] | None = None) -> dict[str, str]:
    """{file name: text} of the bundle: schema.json, policy.json, run.py, run.sh, README.md.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    report : dict, optional
        The run's report, for the README's ledger (default: the planned budget).

    Returns
    -------
    dict of str to str
        File name -> text.

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    return {
        SCHEMA_FILE: s.schema.to_json() + "\n",
        POLICY_FILE: s.policy.to_json() + "\n",
        RUN_PY: run_py(s),
        RUN_SH: run_sh(s),
        README: readme(s, report),
    }


def write_bundle(settings: RunSettings, folder: str | Path, report: dict[str, Any] | None = None) -> dict[str, Path]:
    """Write the bundle as the folder ``folder`` (its parents created); run.sh is executable (0o755).

    Atomic (issue 21, atomic.replace_folder): the bundle is built complete in a temporary sibling
    folder and swapped into place, so a failed or interrupted export leaves an earlier ``folder``
    as it was.  An earlier folder's five bundle files are replaced; everything else in it (such as
    the release.csv / report.json that run.sh wrote there) is kept.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    folder : str or Path
        The bundle folder.
    report : dict, optional
        The run's report, for the README's ledger (default: the planned budget).

    Returns
    -------
    dict of str to Path
        File name -> its path.

    Raises
    ------
    OSError
        When it cannot be written (``folder`` is a file, the current folder, or its parent is
        read-only); BlowfishError for invalid settings.
    """
    from ..io.atomic import replace_folder

    files = bundle_files(settings, report)
    root = Path(folder)
    root.parent.mkdir(parents=True, exist_ok=True)
    replace_folder(root, files, modes={RUN_SH: 0o755})
    return {name: root / name for name in files}


def bundle_zip(settings: RunSettings, report: dict[str, Any] | None = None, folder: str = "blowfish_run") -> bytes:
    """The bundle as a zip archive for a download button.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    report : dict, optional
        The run's report, for the README's ledger (default: the planned budget).
    folder : str, optional
        The folder the files sit under in the archive (default ``blowfish_run``).

    Returns
    -------
    bytes
        The zip archive (fixed file dates; run.sh 0o755).

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in bundle_files(settings, report).items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name == RUN_SH else 0o644) << 16
            z.writestr(info, text)
    return buf.getvalue()


def settings_from_request(req: Any, **source: Any) -> RunSettings:
    """RunSettings from a spec.RunRequest (what the Runner executes) plus the dataset source and output paths.

    The budget is exported as the request's rho (Gaussian; exact, so the release is identical) or
    epsilon (Laplace).

    Parameters
    ----------
    req : RunRequest
        A seeded run spec.
    **source
        The dataset source and output paths (``preset``, ``data_path``, ``n``, ``data_seed``,
        ``split_seed``, ``sep``, ``out``, ``report``, ``out_dir``), which a RunRequest does not carry.

    Returns
    -------
    RunSettings
        The settings (not validated).

    Raises
    ------
    BlowfishError
        For an unseeded release (issue 11: it records no seed, so it cannot be rerun).
    """
    if req.seeds is None:  # issue 11: an unseeded release records no seed, so it cannot be rerun
        raise BlowfishError("a runnable export reruns a seeded study run; this run is an unseeded release "
                            "(OS entropy) and cannot be reproduced. Fix: give seeds to export the run")
    gaussian = get_mechanism(req.mechanism).budget_name == "rho"
    return RunSettings(req.schema, req.policy, list(req.methods), [int(s) for s in req.seeds], tau=req.tau,
                       rho=req.rho if gaussian else None, epsilon=None if gaussian else req.epsilon,
                       delta=req.delta if gaussian else None, mechanism=get_mechanism(req.mechanism).name,
                       config=req.config, allow_empty_policy=req.allow_empty_policy, **source)


def settings_from_files(schema_json: str, policy_json: str, **kwargs: Any) -> RunSettings:
    """RunSettings from a bundle's schema.json and policy.json texts (round trip) plus the other settings.

    Parameters
    ----------
    schema_json, policy_json : str
        The texts of schema.json and policy.json.
    **kwargs
        The other RunSettings fields (methods, seeds, budget, ...).

    Returns
    -------
    RunSettings
        The settings (not validated).

    Raises
    ------
    SchemaError
        For a schema text that is not a valid schema; PolicyError for the policy text.
    """
    return RunSettings(Schema.from_json(schema_json), Policy.from_json(policy_json), **kwargs)


__all__ = [
    "RunSettings",
    "bundle_files",
    "bundle_zip",
    "cli_args",
    "cli_command",
    "planned_report",
    "readme",
    "run_py",
    "run_sh",
    "settings_from_files",
    "write_bundle",
]
