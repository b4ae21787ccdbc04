"""``reach``: per-attribute and record-level reach, q and the BF-Soft bound."""

from __future__ import annotations

import argparse
import json
import math
import sys

from ...model.votes import check_tau
from ...synthesis.report import policy_summary
from .parser import COMMAND_HELP, add_intake_args, add_policy_args, _float
from .reading import intake_lines
from .setting import resolve_setting


def add_reach_parser(sub) -> argparse.ArgumentParser:
    """The ``reach`` subcommand.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the main parser (build_parser).

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    r = sub.add_parser("reach", help=COMMAND_HELP["reach"])
    add_policy_args(r)
    r.add_argument("--data", metavar="CSV", help="table to infer a (data-derived) schema from when no schema is given")
    add_intake_args(r)
    r.add_argument("--tau", type=_float, help="temperature for q and the bound")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    return r


def _q_line(tau: float, q: float, bound: float) -> str:
    """The reach command's q line; never divides by zero, never prints inf."""
    head = f"tau = {tau:g}: noise ratio q = {q:.4g}, BF-Soft sensitivity bound = {bound:.4g} (Tab-PE: 1.4142)"
    if q == 0.0:
        return head + "; q = 0: BF-Soft adds no noise (nothing protected, or tau far above the reach)"
    mult = 1.0 / (q * q) if q > 1e-150 else math.inf
    if not math.isfinite(mult):
        return head + "; same noise as Hard at more than 1e300x the budget"
    return head + f"; same noise as Hard at {mult:.3g}x the budget"


def cmd_reach(args) -> int:
    """``reach``: per-attribute and record-level reach, and with --tau q and the BF-Soft bound (Cor. 5.2, 5.5).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``reach`` flags (setting, --data intake flags, --tau, --json).

    Returns
    -------
    int
        Exit code 0 (text, or one JSON object with --json, on stdout).

    Raises
    ------
    BlowfishError
        From resolve_setting (no setting, a bad schema or policy); BudgetError for a bad --tau.
    """
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
