"""``presets``: list the built-in presets and their policies."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ...io.presets import get_preset
from .parser import COMMAND_HELP


def add_presets_parser(sub) -> argparse.ArgumentParser:
    """The ``presets`` subcommand.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the main parser (build_parser).

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    pr = sub.add_parser("presets", help=COMMAND_HELP["presets"])
    pr.add_argument("--json", action="store_true")
    return pr


def cmd_presets(args) -> int:
    """``presets``: every built-in preset's description, schema, Table 3 policies, default protection and metric.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``presets`` flags (``--json``: one JSON object instead of text).

    Returns
    -------
    int
        Exit code 0.
    """
    from ...io.presets import PRESET_NAMES

    out: dict[str, dict[str, Any]] = {}
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
