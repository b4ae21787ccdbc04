"""The scripts of a runnable export: the exact CLI command (:func:`cli_args`, :func:`cli_command`),
``run.sh`` (:func:`run_sh`) and ``run.py`` through the Python API (:func:`run_py`, its code blocks
:func:`py_blocks` also the cells of run.ipynb: :mod:`.run_notebook`), and the bundle's file names.
The scripts write the same seeded release byte for byte as the CLI with the same settings
(tests/interfaces/test_run_bundle.py); they read the private table with the CLI's reading options
(io.intake.read_checked, issue 24).

Issue 16 "Runnable export".  Issue 22: split off :mod:`blowfish_core.interfaces.run_bundle`, which
re-exports every name.
"""

from __future__ import annotations

import shlex
from typing import cast

from ..privacy.mechanisms import get_mechanism
from ..synthesis.parsing import parse_methods
from ..io.presets import get_preset
from .run_settings import RunSettings

SCHEMA_FILE, POLICY_FILE, RUN_PY, RUN_SH, README = "schema.json", "policy.json", "run.py", "run.sh", "README.md"
RUN_IPYNB = "run.ipynb"
#: the first line of every script of a bundle: what a seeded bundle is for (DESIGN §7).
STUDY_NOTE = "Seeded: reproducible for study, not for publication (a release needs fresh randomness)."


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


def _reading_args(s: RunSettings) -> list[str]:
    """The reading flags of --data (--sep, --no-header, --names, --columns, --drop-missing, --missing-level)."""
    out: list[str] = []
    if s.sep is not None:
        out += ["--sep", s.sep]
    if s.names:
        out += ["--names", ",".join(s.names)]  # implies --no-header
    elif s.no_header:
        out += ["--no-header"]
    if s.columns:
        out += ["--columns", ",".join(s.columns)]
    if s.drop_missing is True:
        out += ["--drop-missing", "all"]
    elif s.drop_missing:
        out += ["--drop-missing", ",".join(s.drop_missing)]
    for c, v in (s.missing_level or {}).items():
        out += ["--missing-level", f"{c}={v}"]
    return out


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
        args += ["--data", str(s.data_path), *_reading_args(s)]
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
        args += ["--conversion", cast(str, s.budget_conversion)]
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
            "# Blowfish Studio study bundle: the CLI command with every setting of this run.\n"
            f"# {STUDY_NOTE}\n"
            "set -e\n"
            'cd "$(dirname "$0")"\n'
            f'"${{PYTHON:-python}}" {cmd}\n')


# -------------------------------------------------------------------- Python
#: how run.py and run.ipynb find the bundle folder (paths in the settings are relative to it).
HERE_PY = "HERE = Path(__file__).resolve().parent"
HERE_IPYNB = "HERE = Path.cwd()  # Jupyter runs a notebook in its own folder: the bundle folder"


def py_blocks(settings: RunSettings, here: str = HERE_PY) -> list[tuple[str, str]]:
    """The code of run.py as (title, code) blocks: run.py joins them, run.ipynb has one cell each.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    here : str, optional
        The line that sets ``HERE``, the bundle folder (run.py: its own folder; run.ipynb: the
        working folder).

    Returns
    -------
    list of (str, str)
        (title, code) of each step: imports, settings, private table, run.

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    src = s._source()
    c = s.config
    read = ("READING = " + repr(s.read_options) + "  # the CLI's --sep, --no-header, --names, --drop-missing, "
            "--missing-level\n"
            f"table = read_checked(str(HERE / {str(s.data_path)!r}), columns=schema.names, "
            "release_size=config.release, schema=schema,\n                     **READING).frame")
    if src == "generated":
        n = "None" if s.n is None else _num(int(s.n))
        data = (f"split = bc.load_preset_data(bc.get_preset({s.preset!r}), None, n={n}, "
                f"data_seed={int(s.data_seed or 0)})\ndf = split.private")
    elif src == "preset-split":
        data = (f"{read}\nsplit = bc.load_preset_data(bc.get_preset({s.preset!r}), table, "
                f"split_seed={int(s.split_seed or 0)})\ndf = split.private")
    else:
        data = f"{read}\ndf = table"
    budget = []
    for k in ("rho", "epsilon", "delta"):
        v = getattr(s, k)
        if v is not None:
            budget.append(f"{k}={_num(v)}")
    budget_txt = ", ".join(budget)
    imports = """from pathlib import Path

import blowfish_core as bc
from blowfish_core.io.atomic import write_with
from blowfish_core.io.exports import to_csv_safe
from blowfish_core.io.intake import read_checked
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.algorithm.methods import get_method"""
    setting = f"""{here}
schema = bc.Schema.from_json((HERE / {SCHEMA_FILE!r}).read_text(encoding="utf-8"))
policy = bc.Policy.from_json((HERE / {POLICY_FILE!r}).read_text(encoding="utf-8"))
config = SynthConfig(rounds={c.rounds!r}, population={c.sizes()!r}, release={c.release!r},
                     threshold_h={float(c.threshold_h)!r}, selection={c.selection!r}, children={c.children!r},
                     release_mode={c.release_mode!r}, rank_by={c.rank_by!r},
                     mutation_index={c.mutation_index!r})
METHODS = {parse_methods(s.methods, "methods")!r}
SEEDS = {[int(x) for x in s.seeds]!r}
TAU = {None if s.tau is None else _num(s.tau)}  # soft votes only (a tau is refused for the others)
OUT = HERE / {s.out!r}
OUT_DIR = {None if not s.out_dir else s.out_dir!r}"""
    run = f"""for method in METHODS:
    for seed in SEEDS:
        syn = bc.Synthesizer(schema, policy, method=method, tau=TAU if get_method(method).needs_tau else None,
                             {budget_txt}, mechanism={get_mechanism(s.mechanism).name!r},
                             conversion={s.budget_conversion!r}, seed=seed, config=config,
                             allow_empty_policy={bool(s.allow_empty_policy)!r}).fit(df)
        release = syn.sample(config.release)
        if method == METHODS[0] and seed == SEEDS[0]:  # the CLI's --out: the first method and seed
            OUT.parent.mkdir(parents=True, exist_ok=True)
            write_with(OUT, lambda f: to_csv_safe(release, f))  # a temporary, renamed into place
        if OUT_DIR is not None:
            folder = HERE / OUT_DIR
            folder.mkdir(parents=True, exist_ok=True)
            write_with(folder / f"{{method}}_seed{{seed}}.csv", lambda f: to_csv_safe(release, f))
        print(method, "seed", seed, "privacy:", syn.privacy_)
print("wrote", OUT)"""
    return [("Imports", imports), ("Settings: schema, policy, schedule, methods, seeds, outputs", setting),
            ("The private table (read as the CLI reads --data)", data), ("Run: one fit per method and seed", run)]


def run_py(settings: RunSettings) -> str:
    """run.py: the same run through the Python API (blowfish_core.Synthesizer), one fit per (method, seed).

    It reads the private table with the CLI's reading options (io.intake.read_checked) and writes
    the first method's first-seed release to ``out`` as the CLI does (io.exports.to_csv_safe).

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
    body = "\n\n".join(code for _, code in py_blocks(settings))
    return f'''"""Blowfish Studio study bundle: the run through the Python API.

{STUDY_NOTE}
Run from anywhere: python run.py  (paths are relative to this folder)
"""

{body}
'''
