"""The ledger text: the release note a data owner can paste (:func:`ledger_text`) -- budget,
notion per method, policy, reach, BF-Soft's bound and the warnings, one statement per line.

The words for marginals released exactly (issue 25, bf-mst: what the policy does not protect is
released without noise) are built here once (:func:`exact_release_text`, :func:`exact_release_lines`):
the ledger text (CLI output, ledger.txt), the Run step's and the Release step's verdicts
(workflows.verdicts.exact_release_verdicts) all say them in these words.  They name cliques only
(public), never a figure computed on the private table.

Issue 11 (DESIGN §7, docs/PRIVACY.md §6).  Issue 22: split off
:mod:`blowfish_core.synthesis.report`, which re-exports every name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..algorithm.streams import SEEDED_NOTE
from .gate import NOT_DP_LABEL, RELEASE_LABEL, total_text
from .spec import NO_PROTECTION_WARNING
from ..privacy.mechanisms import MECHANISMS, SELECTION_MECHANISMS
from ..algorithm.methods import Method, get_method
from ..model.sensitivity import SQRT2


def ledger_text(report: dict[str, Any]) -> str:
    """A release note a data owner can paste: budget, notion per method, policy, reach, warnings.

    Parameters
    ----------
    report : dict
        The public report (build_public) or a report with its keys (run_bundle.planned_report).

    Returns
    -------
    str
        The note, one statement per line (no trailing newline).
    """
    return _ledger_text(report, [get_method(m) for m in report.get("methods") or []])


def _ledger_text(report: dict[str, Any], methods: "Sequence[Method]") -> str:
    """:func:`ledger_text` with the Method objects of ``report["methods"]`` (RunSpec.checked.methods)."""
    methods = list(methods)
    p = report["privacy"]
    acct = p.get("accountant", "gdp-exact")
    budget, spent = _budget_text(p, acct, _ledger_mechanisms(report))
    lines = []
    if report.get("label") == RELEASE_LABEL:  # a gated release says it may be published, first (ledger.json's label)
        lines.append(f"{RELEASE_LABEL}.")
    if report.get("label") == SEEDED_NOTE:  # a seeded bundle says so first (issue 21)
        lines.append(f"WARNING: {SEEDED_NOTE}: anyone who knows the seed can recompute and subtract the noise; "
                     "do not publish these files.")
    if report.get("label") == NOT_DP_LABEL:  # the first line (issue 21, a contract)
        lines.append(f"WARNING: {NOT_DP_LABEL} (the schema's bounds and levels describe the private records; "
                     "declare them from public knowledge to make a DP release).")
    if p.get("total"):
        lines.append(total_text(p["total"], int(p["total"].get("releases") or 1)))
    each = " (each release)" if int((p.get("total") or {}).get("releases") or 1) > 1 else ""
    lines.append(f"Privacy budget{each}: {budget}.")
    lines += _randomness_lines(report)
    protected = report.get("blowfish_protection", True)
    lines += _method_lines(methods, spent, protected)
    lines += ["  " + line for line in exact_release_lines(report)]
    if not protected and any(m.policy_aware for m in methods):
        lines.append("WARNING: " + NO_PROTECTION_WARNING)
    lines.append(
        f"Policy: {', '.join(f'{k}: {v}' for k, v in _protected(report).items()) or 'nothing protected'}; "
        f"record-level reach r = {report['reach']:.4g} (Gower units).")
    lines += _soft_bound_lines(report, methods, acct)
    if report.get("domain_warning"):
        lines.append("WARNING: " + report["domain_warning"])
    if report.get("unprotected_rows"):
        from .gate import unprotected_text

        lines.append("WARNING: " + unprotected_text(report["unprotected_rows"], report.get("unprotected_source", ""))
                     + ".")
    for w in report.get("warnings", []):
        if w != NO_PROTECTION_WARNING:
            lines.append("WARNING: " + w)
    if any(m.policy_aware for m in methods) or not methods:
        lines.append("Blowfish methods: only substitutions along the policy's edges are protected; values in "
                     "different components of a policy graph are not protected from each other.")
    return "\n".join(lines)


def _ledger_mechanisms(report: dict[str, Any]) -> list[str]:
    """The names of the mechanisms in the report's ledger: the privacy block's ``mechanisms`` (mixed and
    sampling ledgers list them), else the run's ``mechanism`` (one mechanism throughout)."""
    names = report["privacy"].get("mechanisms") or ([report["mechanism"]] if report.get("mechanism") else [])
    return [str(n) for n in names]


def _mechanism_labels(names: Sequence[str], acct: str, sep: str = " or ") -> str:
    """The declared ``label`` of each mechanism in the ledger (``names``), joined by ``sep``.  A report
    without its mechanism (an old one) falls back to the table's mechanisms with accountant ``acct``."""
    table = {**SELECTION_MECHANISMS, **MECHANISMS}
    known = [table[n].label for n in names if n in table]
    return sep.join(known or [m.label for m in MECHANISMS.values() if m.accountant == acct])


def _budget_text(p: dict[str, Any], acct: str, names: Sequence[str] = ()) -> tuple[str, str]:
    """(the budget sentence, the budget each method spent) of the report's privacy block, per accountant;
    ``names``: the mechanisms in the ledger (:func:`_ledger_mechanisms`), named by their declared label."""
    if acct == "gdp-exact":
        budget = (f"rho = {p['rho']:.6g} zCDP over {p['rounds']} rounds "
                  f"(equivalently epsilon = {p['epsilon_exact']:.4g} at delta = {p['delta']:.3g} by the exact Gaussian "
                  f"curve; {p['epsilon_eq1']:.4g} by Eq. (1))")
        spent = f"rho = {p['rho']:.6g}"
    elif acct == "zcdp-eq1":  # zCDP rows that are not all Gaussian (reference methods' selections)
        rows = f" over {p['rounds']} ledger rows" if p.get("rounds") is not None else ""
        budget = (f"rho = {p['rho']:.6g} zCDP{rows} "
                  f"(equivalently epsilon = {p['epsilon_eq1']:.4g} at delta = {p['delta']:.3g} by Eq. (1); "
                  "no exact Gaussian curve: exponential-selection rows are not Gaussian)")
        spent = f"rho = {p['rho']:.6g}"
    elif acct == "pure-sum":
        budget = (f"epsilon = {p['epsilon']:.6g} pure DP over {p['rounds']} rounds "
                  f"({_mechanism_labels(names, acct)} mechanism, "
                  f"epsilon_t = {p['epsilon_per_round'][0]:.4g} per round)")
        spent = f"epsilon = {p['epsilon']:.6g}"
    elif acct == "zcdp-eq1":
        budget = (f"rho = {p['rho']:.6g} zCDP over {p['rounds']} ledger rows ({', '.join(p['mechanisms'])}; "
                  f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g} by Eq. (1))")
        spent = f"rho = {p['rho']:.6g}"
    elif p.get("epsilon_exact_applicable") is False:  # PubMix / LinMix sampling rounds
        mech = _mechanism_labels(names, acct, "/")
        budget = (f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g} over {p['rounds']} {mech} rounds "
                  f"(beta_t {min(p['beta_per_round']):.3g}-{max(p['beta_per_round']):.3g}; PLD accountant). "
                  f"NOTE: {p['note']}")
        spent = f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g}"
    else:
        budget = (f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g} over {p['rounds']} rounds "
                  f"(mixed mechanisms, PLD accountant)")
        spent = f"epsilon = {p['epsilon']:.4g}"
    return budget, spent


def _randomness_lines(report: dict[str, Any]) -> list[str]:
    """The randomness line (seeded, or the release's sampler; PubMix/LinMix's exact draws)."""
    lines: list[str] = []
    rnd = report.get("randomness")
    if rnd == SEEDED_NOTE:
        lines.append(f"Randomness: {SEEDED_NOTE} (anyone who knows the seed can recompute and subtract the noise).")
    elif rnd:  # streams.randomness_of the runs' noise samplers (report.randomness_text)
        samplers = {e.get("noise_sampler") for e in report.get("ledger") or ()}
        lines.append(f"Randomness: {rnd}.")
        if "exact" in samplers:
            lines.append("PubMix/LinMix draws: exact integer-arithmetic sampling from the OS CSPRNG "
                         "(papers/003 Thm 4.1 holds with no floating-point gap).")
    return lines


def _method_lines(methods: list[Method], spent: str, protected: bool) -> list[str]:
    """One line per method: its privacy notion and budget, or why it protects nothing."""
    lines: list[str] = []
    for m in methods:
        if not m.releasable:  # analysis-only methods (release_gate refuses them)
            lines.append(f"  {m.label}: ANALYSIS ONLY, NOT PRIVATE: {m.not_private_reason}.")
        elif m.policy_aware and not protected:
            lines.append(f"  {m.label}: NO PROTECTION - the policy protects nothing, so its histograms carry no noise.")
        else:
            lines.append(f"  {m.label}: {m.notion_text} ({spent}).")
    return lines


def _soft_bound_lines(report: dict[str, Any], methods: list[Method], acct: str) -> list[str]:
    """BF-Soft's noise ratio q and sensitivity bound, for the methods that use it."""
    lines: list[str] = []
    soft_policy = [m for m in methods if m.soft_policy_bound]  # not soft-hard-noise (Hard's noise)
    if report.get("noise_ratio_q") is not None and (soft_policy or not methods):
        if acct == "pure-sum":  # l1 sensitivities (Laplace): 2 q vs 2
            lines.append(f"BF-Soft at tau = {report['tau']:.4g}: noise ratio q = {report['noise_ratio_q']:.4g}, "
                         f"l1 sensitivity bound {2 * report['noise_ratio_q']:.4g} (vs 2).")
        else:
            lines.append(f"BF-Soft at tau = {report['tau']:.4g}: noise ratio q = {report['noise_ratio_q']:.4g}, "
                         f"sensitivity bound {report['sensitivity_bound']:.4g} (vs sqrt(2) = {SQRT2:.4g}).")
    return lines


def _protected(report: dict[str, Any]) -> dict[str, str]:
    return {k: (v.get("type") + (f" {v['theta']}" if v.get("theta") is not None else ""))
            for k, v in report["policy"]["attributes"].items() if v.get("type") != "none"}


#: the head of the sentence naming the marginals released exactly (issue 25).
EXACT_HEAD = "Released exactly (not protected by the policy, no noise)"


def clique_text(clique: Sequence[str]) -> str:
    """A marginal's attributes in brackets.

    Parameters
    ----------
    clique : sequence of str
        The marginal's attribute names.

    Returns
    -------
    str
        '(education, marital.status)'.
    """
    return "(" + ", ".join(str(a) for a in clique) + ")"


def exact_release_text(marginals: dict[str, Any]) -> str:
    """The sentence naming which measured marginals were released exactly and which with noise.

    Parameters
    ----------
    marginals : dict
        ``{"exact": [clique, ...], "noisy": [clique, ...]}`` (a ledger entry's ``marginals``,
        baselines.ledger.released_marginals), each clique a list of attribute names.

    Returns
    -------
    str
        'Released exactly (not protected by the policy, no noise): the marginals (X_2), (X_2, Y);
        noisy: (X_1), (X_1, X_3).'  ('the marginal' for one; 'Released exactly: no marginal' when
        none is exact; 'noisy: none' when none is noisy.)
    """
    exact = [clique_text(c) for c in marginals.get("exact") or ()]
    noisy = [clique_text(c) for c in marginals.get("noisy") or ()]
    if exact:
        head = f"{EXACT_HEAD}: the marginal{'s' if len(exact) > 1 else ''} " + ", ".join(exact)
    else:
        head = "Released exactly: no marginal (every measured marginal is protected by the policy)"
    return f"{head}; noisy: {', '.join(noisy) or 'none'}."


def exact_release_lines(report: dict[str, Any]) -> list[str]:
    """One line per method of the report that released marginals exactly (its ledger entries'
    ``marginals``): '<method>: <exact_release_text>'.  Seeds whose marginals differ (the tree is a DP
    selection) get a line each: '<method>, seed 0: ...', '<method>, seeds 1, 2: ...'.

    Parameters
    ----------
    report : dict
        A public report (build_public), or a union report (build_report: its ``public`` part is read).

    Returns
    -------
    list of str
        The lines, in the ledger's method order; [] when no entry has ``marginals``.
    """
    entries = (report.get("public") or report).get("ledger") or ()
    groups: dict[str, list[tuple[dict[str, Any], list[Any]]]] = {}
    for e in entries:
        if e.get("marginals") is None:
            continue
        seen = groups.setdefault(str(e["method"]), [])
        same = next((g for g in seen if g[0] == e["marginals"]), None)
        if same is None:
            seen.append((e["marginals"], [e.get("seed")]))
        else:
            same[1].append(e.get("seed"))
    lines = []
    for method, found in groups.items():
        name = get_method(method).short_label
        for marginals, seeds in found:
            who = name
            if len(found) > 1:
                known = [str(s) for s in seeds if s is not None]
                who += f", seed{'s' if len(known) > 1 else ''} {', '.join(known)}" if known else ""
            lines.append(f"{who}: {exact_release_text(marginals)}")
    return lines
