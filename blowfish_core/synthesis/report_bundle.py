"""The release bundle of a paired comparison: its file names (:func:`release_files`,
:func:`is_bundle_file`), its files (:func:`bundle_files`) and the composed total of its releases
(:func:`bundle_total`).  Nothing computed on the private table.

Issue 11 (DESIGN §7, docs/PRIVACY.md §6).  Issue 22: split off
:mod:`blowfish_core.synthesis.report`, which re-exports every name.
"""

from __future__ import annotations

from typing import Any, cast

from ..algorithm.methods import METHODS
from .paired_runs import PairedRuns
from .report_text import _ledger_text


def _run_label(method: str, seed: int | None) -> str:
    return method if seed is None else f"{method}_seed{seed}"


def release_files(result: PairedRuns) -> dict[tuple[str, int | None], str]:
    """The release CSV's file name of every run in a bundle / --out-dir.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.

    Returns
    -------
    dict
        (method, seed) -> ``<method>.csv`` for an unseeded run, ``<method>_seed<S>.csv`` for a seeded one.
    """
    return {(r.method, r.seed): _run_label(r.method, r.seed) + ".csv" for r in result.runs}

def bundle_total(result: PairedRuns) -> dict[str, Any]:
    """The composed total of every release of ``result``: what publishing them together spends.

    release_gate.compose_total over all the runs' ledger rows.  One release: its own budget.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.

    Returns
    -------
    dict
        gate.compose_total's total at the request's delta, plus ``releases`` (the number of runs).
    """
    from .gate import _compose_total

    req = result.request
    return {**_compose_total([row for r in result.runs for row in r.ledger], req.delta, req.checked.mechanism),
            "releases": len(result.runs)}


#: the fixed files of a release bundle (bundle_files); the release CSVs are named by release_files.
BUNDLE_FIXED_FILES = ("schema.json", "policy.json", "budget.json", "ledger.json", "ledger.txt")


def is_bundle_file(name: str) -> bool:
    """True for a file name a release bundle writes.

    A fixed file (BUNDLE_FIXED_FILES) or ``<method>[_seed<S>].csv`` of a method in the method
    table.  When --bundle replaces an earlier bundle folder, these (stale releases of other methods
    or seeds) are dropped; any other entry is kept.

    Parameters
    ----------
    name : str
        A file name (no folder).

    Returns
    -------
    bool
        True when a bundle writes files of this name.
    """
    if name in BUNDLE_FIXED_FILES:
        return True
    stem, dot, ext = name.rpartition(".")
    if not dot or ext != "csv":
        return False
    method, sep, seed = stem.rpartition("_seed")
    if sep and seed.isdigit() and seed.isascii():
        stem = method
    return stem in METHODS


def bundle_files(result: PairedRuns, raw: bool = False) -> dict[str, str]:
    """The release bundle as {file name: text}.

    Every synthetic CSV (spreadsheet-safe, exports.to_csv_safe), schema.json, policy.json,
    budget.json, ledger.json (build_public) and ledger.txt (ledger_text).  Nothing computed on the
    private table.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.
    raw : bool, default False
        Keep text cells as they are (default: neutralised for spreadsheets).

    Returns
    -------
    dict of str to str
        File name -> text.
    """
    import json

    from ..io.exports import to_csv_safe

    pub = result.public_report
    # path None: to_csv_safe returns the CSV text
    files = {name: cast(str, to_csv_safe(result.run(m, sd).release, None, raw=raw))
             for (m, sd), name in release_files(result).items()}
    files["schema.json"] = result.request.schema.to_json() + "\n"
    files["policy.json"] = result.request.policy.to_json() + "\n"
    files["budget.json"] = json.dumps({"randomness": pub["randomness"], "mechanism": pub["mechanism"],
                                       **pub["privacy"]}, indent=2, allow_nan=False) + "\n"
    files["ledger.json"] = json.dumps(pub, indent=2, allow_nan=False) + "\n"
    files["ledger.txt"] = _ledger_text(pub, result.request.checked.methods) + "\n"
    return files
