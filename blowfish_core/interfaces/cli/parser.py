"""The argument parser of the command line: the CLI's error contract (:class:`_Parser`), the
number types, and the flag groups several commands share (policy, intake, schedule).

Each command module adds its own subcommand (``add_<command>_parser``); :mod:`.main` puts them
together in :func:`~blowfish_core.interfaces.cli.main.build_parser`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

# This module imports nothing of the engine at import time: ``--help`` and the top-level usage
# errors are answered from it and :data:`COMMAND_HELP` alone (issue 23 "Lean imports").

#: The subcommands in the order ``--help`` lists them, with their one-line help.  main.py builds
#: the full parser only for the command being run; the others are listed from this table.
COMMAND_HELP: dict[str, str] = {
    "reach": "per-attribute and record-level reach, q and the BF-Soft bound",
    "synth": "run Tab-PE / Hard / BF-Soft with paired seeds and write the release",
    "schema": "infer a schema JSON from a CSV (flagged data-derived; edit it!)",
    "presets": "list the built-in presets and their policies",
    "pilot": "choose tau or Hard: public pilot (default, no private budget) or --private "
             "(K runs on the private table + an exponential-mechanism choice)",
}

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


def _prog() -> str:
    """The command as the user typed it: 'blowfish' (the console script) or 'python -m blowfish_core'."""
    return "blowfish" if os.path.basename(sys.argv[0] or "") == "blowfish" else "python -m blowfish_core"


def add_policy_args(p: argparse.ArgumentParser) -> None:
    """The setting flags (--preset, --schema, --policy, --protect, --participation), shared by reach, synth and pilot.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser (changed in place).
    """
    p.add_argument("--preset", help="built-in setting: adult, bank, xor3 (or xorK)")
    p.add_argument("--schema", metavar="JSON", help="schema file (public domain); overrides the preset's")
    p.add_argument("--policy", metavar="JSON", help="policy file; overrides the preset's default policy")
    p.add_argument("--protect", action="append", default=[], metavar="ATTR[=SPEC]",
                   help="protect ATTR with SPEC = threshold:VALUE | block | complete | hierarchy | none "
                        "(the preset's Table 3 graph when SPEC is omitted); repeatable; applied on top of the "
                        "preset default (age on Adult/Bank, X_1 on XOR)")
    p.add_argument("--participation", action="store_true", help="add participation edges (u, bottom) (§5.6)")


def add_intake_args(p: argparse.ArgumentParser, columns: bool = True) -> None:
    """The intake flags of --data (--sep, --no-header, --names, --drop-missing, --missing-level, --columns).

    Shared by reach, synth and schema.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser (changed in place).
    columns : bool, default True
        Add --columns too.
    """
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


def add_schedule_args(p: argparse.ArgumentParser) -> None:
    """The synthesis schedule flags (Algorithm 1, DESIGN §3), shared by synth and pilot.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser (changed in place).
    """
    from ...algorithm.config import SCHEDULES

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


#: --in-memory-mb's default (MB).
IN_MEMORY_MB = 100.0
