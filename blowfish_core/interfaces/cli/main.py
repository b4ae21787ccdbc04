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
import sys

from ...base.errors import BlowfishError
from ...io import atomic
from .parser import EPILOG, _Parser, _prog
from .pilot import add_pilot_parser, cmd_pilot
from .presets import add_presets_parser, cmd_presets
from .reach import add_reach_parser, cmd_reach
from .reading import DaskClient
from .schema import add_schema_parser, cmd_schema
from .synth import add_synth_parser, cmd_synth


def build_parser() -> argparse.ArgumentParser:
    """The whole parser: the subcommands in the order ``--help`` lists them (each from its module).

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
    for add in (add_reach_parser, add_synth_parser, add_schema_parser, add_presets_parser, add_pilot_parser):
        add(sub)
    return ap


def _run(args, dask: DaskClient) -> int:
    """Run the chosen command (synth is given this run's Dask client)."""
    if args.command == "synth":
        return cmd_synth(args, dask)
    return {"reach": cmd_reach, "schema": cmd_schema, "presets": cmd_presets, "pilot": cmd_pilot}[args.command](args)


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
    parser = build_parser()
    atomic.COMMITTED.clear()  # this run's committed outputs (the interrupt message)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2, already printed as one line)
        return e.code if isinstance(e.code, int) else 2
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
