"""``schema``: infer a schema JSON from a CSV (flagged data-derived; edit it!)."""

from __future__ import annotations

import argparse
import os
import sys

from ...base.errors import BlowfishError
from ...io import atomic
from .outputs import _write
from .parser import COMMAND_HELP, add_intake_args
from .reading import _list, intake_lines, read_data


def add_schema_parser(sub) -> argparse.ArgumentParser:
    """The ``schema`` subcommand.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the main parser (build_parser).

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    sc = sub.add_parser("schema", help=COMMAND_HELP["schema"])
    sc.add_argument("--data", required=True, metavar="CSV")
    add_intake_args(sc)
    sc.add_argument("--out", metavar="JSON", help="write here instead of stdout")
    return sc


def cmd_schema(args) -> int:
    """``schema``: infer a data-derived schema JSON from --data (stdout, or --out) and warn that it is data-derived.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``schema`` flags (--data, the intake flags, --out).

    Returns
    -------
    int
        Exit code 0.

    Raises
    ------
    BlowfishError
        When --out names the --data file; DataError / SchemaError from the intake step.
    """
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
    warning = schema.domain_warning()  # always set: an inferred schema is data-derived
    if warning is not None:
        print("WARNING: " + warning, file=sys.stderr)
    return 0
