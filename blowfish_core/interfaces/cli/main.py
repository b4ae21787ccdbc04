"""Command line: ``python -m blowfish_core {reach,synth,schema,presets,pilot} ...``.

Every bad input exits non-zero with one line ``error: ...`` naming the field;
no Python traceback.  The UI calls the same engine functions.

One module per command (issue 22): :mod:`.reach`, :mod:`.synth`, :mod:`.schema`, :mod:`.presets`,
:mod:`.pilot`; shared flags in :mod:`.parser`, the run's setting in :mod:`.setting`, the tables in
:mod:`.reading`, the output files in :mod:`.outputs`.  This module puts the parser together and
runs one command (:func:`main`, the ``blowfish`` console script).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Collection
from types import ModuleType

from ...base.errors import BlowfishError
from ...io import atomic
from .parser import COMMAND_HELP, EPILOG, _Parser, _prog


def _command(name: str) -> ModuleType:
    """The module of one subcommand (``.synth``, ...), imported on first use (issue 23)."""
    return importlib.import_module(f"{__package__}.{name}")


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The parser: the subcommands in the order ``--help`` lists them (each from its module).

    Only the modules of ``commands`` are imported and given their full subparser; every other
    subcommand is listed by name and help line (:data:`~.parser.COMMAND_HELP`), which is all that
    ``--help`` and a top-level usage error show.  So ``--help`` imports no engine module and a run
    imports its own command's modules only (issue 23 "Lean imports").

    Parameters
    ----------
    commands : collection of str, optional
        The subcommands to build in full (default: all of them).

    Returns
    -------
    argparse.ArgumentParser
        The CLI's parser (error contract of parser._Parser).
    """
    ap = _Parser(
        prog=_prog(),
        description="Blowfish Studio engine: policy-aware differentially private synthesis "
                    "(Tab-PE, Hard, BF-Soft; paper 'Soft Voting for Policy-Aware Private Data Synthesis').",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)
    for name, help_line in COMMAND_HELP.items():
        if commands is None or name in commands:
            getattr(_command(name), f"add_{name}_parser")(sub)
        else:  # listed only: a run of this command builds it in full
            sub.add_parser(name, help=help_line)
    return ap


def _chosen_command(argv: list[str] | None) -> str | None:
    """The subcommand a command line names: its first word that is not an option (the top level
    has no option taking a value), or None."""
    words = sys.argv[1:] if argv is None else argv
    first = next((w for w in words if not w.startswith("-")), None)
    return first if first in COMMAND_HELP else None


def _run(args, dask) -> int:
    """Run the chosen command (synth is given this run's Dask client)."""
    cmd = getattr(_command(args.command), f"cmd_{args.command}")
    return cmd(args, dask) if args.command == "synth" else cmd(args)


def main(argv: list[str] | None = None) -> int:
    """Run one command line (the ``blowfish`` console script).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit code: 0, 2 after one ``error:`` line on stderr (a BlowfishError, an OSError or a usage
        error), 130 when interrupted.
    """
    chosen = _chosen_command(argv)
    parser = build_parser(() if chosen is None else (chosen,))
    atomic.COMMITTED.clear()  # this run's committed outputs (the interrupt message)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2, already printed as one line)
        return e.code if isinstance(e.code, int) else 2
    from .reading import DaskClient

    dask = DaskClient(getattr(args, "scheduler", None), getattr(args, "workers", None))  # owned by this run
    try:
        return _run(args, dask)
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
        dask.close()  # a Dask client (and its local cluster) started by --engine dask


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
