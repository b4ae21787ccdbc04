"""The one release gate (issue 21; DESIGN §7): everything the studio calls publishable passes here.

Every front end that offers a release -- ``synth`` without seeds, ``Synthesizer(seed=None).fit``,
the app's Release step, the public-aware sampler's release, the private tau choice, MST/AIM and
PubMix/LinMix -- calls :func:`publish` (directly, or through :func:`blowfish_core.synthesis.release.release_synthesis`).  It
refuses, naming every problem in one pass (:class:`GateError`), unless

1. **randomness** is OS entropy for every draw: the gate itself makes the run's
   :class:`~blowfish_core.algorithm.evolution.OsEntropyStreams` (a fresh ``SeedSequence()`` per release)
   and hands them to the producer; a seeded claim is refused (seeded results are "for study,
   not for publication");
2. every **noise vector** comes from a floating-point-safe sampler: each mechanism named by the
   claim declares a release sampler (``release_sampler``: 'opendp' for the Gaussian/Laplace
   mechanisms, 'exact' for PubMix/LinMix's integer-arithmetic sampling, 'opendp-gumbel' for the
   exponential mechanism), and every part the producer returns says which sampler drew it;
3. the **domain is declared public**: a schema whose bounds or levels were read off the private
   table (``Schema.data_derived``) is refused with a fix; ``allow_data_domain`` releases anyway,
   and then the label and the first line of ``ledger.txt`` say :data:`NOT_DP_LABEL`;
4. every **method is private** (``Method.releasable``): the decomposition device
   ``soft-hard-noise`` and the demonstration calibrations are analysis-only;
5. the **ledger covers everything published together**: the returned :class:`Publication`
   composes the ledger rows of every part into one total (``privacy.total``).

Rows of the sensitive table used as public data (a preset's pilot split, PubMix's public noise
distribution, the app's hold-out) are named as unprotected (:func:`unprotected_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.constants import DEFAULT_DELTA  # also read as gate.DEFAULT_DELTA by older imports
from ..base.errors import BlowfishError
from ..base.fields import FIELDS, Text, join
from ..base.fields import field_name  # noqa: F401  (re-exported: gate.field_name, gate.FIELDS)
from ..privacy.ledger import LedgerRow
from ..privacy.totals import _privacy_totals, privacy_totals

#: the label of a release whose domain was read from the private data (issue 21, a contract).
NOT_DP_LABEL = "domain read from the private data: this release is not differentially private"
#: the label of a release that passed the gate (DP outputs and public parameters only).
RELEASE_LABEL = "public: DP outputs and public parameters only; may be published with the release"
#: floating-point-safe samplers a published noise vector or draw may come from.
SAFE_SAMPLERS = frozenset({"opendp", "opendp-gumbel", "exact"})
#: a private table of at most this many rows is never released with a domain read from it, even with
#: allow_data_domain: the inferred bounds and levels would be the records themselves (issue 27;
#: docs/PRIVACY.md "Tiny tables").  With a declared domain it releases with the tiny-table warning.
TINY_TABLE_ROWS = 3


class GateError(BlowfishError):
    """A release refused by the gate.  ``problems``: tuple of (field, problem, fix) triples, every
    problem found in one pass; ``field`` / ``fix``: those of the first.  ``str()`` is the
    interface-neutral (API) message; :meth:`render` names the front end's controls (fields.FIELDS):
    the message is a fields.Text, as every structured BlowfishError's."""

    def __init__(self, problems: Sequence[tuple[str, str, str]]):
        self.problems = tuple(problems)
        texts = [Text(("{" + f + "}" if f in FIELDS else f.replace("{", "{{").replace("}", "}}"))
                      + ": " + problem + ". Fix: " + fix) for f, problem, fix in self.problems]
        head = "the release gate refused this release" + (f" ({len(texts)} problems)" if len(texts) > 1 else "")
        super().__init__(head + ": " + join("; ", texts), field=self.problems[0][0], fix=self.problems[0][2])


@dataclass(frozen=True)
class Claim:
    """What is about to be published, as the gate checks it (all public).

    what: plain words ('synthetic table', 'marginal samples', 'tau choice'); schema: the domain
    (its ``data_derived`` flag is checked; None when the output has no schema, e.g. a choice);
    methods: method-table names (each must be ``releasable``); mechanisms: mechanism names
    (each must declare a floating-point-safe ``release_sampler``); calibrations: selection
    calibrations (each must be private, selection.NOT_PRIVATE lists those that are not);
    seeded: True for a seeded (study) request, which the gate refuses; allow_data_domain: release
    with a data-derived domain anyway (labelled NOT_DP_LABEL); unprotected_rows: rows of the
    sensitive table used as public data (named as unprotected); delta: the DP delta of the
    (epsilon, delta) statements of the total; private_rows: the private table's rows (None when
    unknown), for the tiny-table rule (TINY_TABLE_ROWS).
    """

    what: str
    schema: Any = None
    methods: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()
    calibrations: tuple[str, ...] = ()
    seeded: bool = False
    allow_data_domain: bool = False
    unprotected_rows: int = 0
    delta: float = DEFAULT_DELTA
    private_rows: int | None = None


@dataclass(frozen=True)
class Part:
    """One published output: name (file name or key), rows (its ledger rows), sampler (what drew
    its noise, one of SAFE_SAMPLERS), randomness (the text its streams recorded), value (the table,
    the choice, ...: whatever the producer publishes)."""

    name: str
    rows: tuple[LedgerRow, ...]
    sampler: str
    randomness: str
    value: Any = None
    #: False for a part that is not a released table (the tau choice's selection): the total's
    #: wording counts tables only.
    counted: bool = True


@dataclass(frozen=True)
class Publication:
    """What the gate let through: the parts, the composed total, the label and the text lines
    that go first in ``ledger.txt``.  ``result``: the producer's own result object (e.g. the
    PairedResult of a synthesis), for the front end to write or show."""

    claim: Claim
    parts: tuple[Part, ...]
    total: dict[str, Any]
    label: str
    data_domain: bool
    result: Any = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def head_lines(self) -> list[str]:
        """The first lines of ledger.txt: the not-DP warning (if any), then the total, then the notes."""
        out = [f"WARNING: {NOT_DP_LABEL}" + " (the schema's bounds and levels describe the private records; "
               "declare them from public knowledge to make a DP release)"] if self.data_domain else []
        tables = sum(1 for p in self.parts if p.counted)
        return out + [total_text(self.total, tables, self.claim.what if tables < len(self.parts) else "")] \
            + list(self.notes)


def total_text(total: dict[str, Any], releases: int, what: str = "") -> str:
    """'Total privacy budget of ...: ...' in words (rho where zCDP, epsilon at delta).

    Parameters
    ----------
    total : dict
        A composed total (compose_total): ``rho`` (None unless zCDP), ``epsilon``, ``delta``, ``accountant``;
        its ``delta_note`` (a total stated above the requested delta) is appended in words.
    releases : int
        How many released tables the total covers (everything published together).
    what : str, optional
        A description of the release when it is more than its tables (e.g. 'tau choice': the chosen
        table, the K runs it spent and the selection).

    Returns
    -------
    str
        One sentence.
    """
    what = (f"this {what} (every run it spent and the selection)" if what else "this release" if releases == 1
            else f"the {releases} releases of this run together (everything published together)")
    why = f" The total is {total['delta_note']}." if total.get("delta_note") else ""
    if total.get("rho") is not None:
        return (f"Total privacy budget of {what}: rho = {total['rho']:.6g} zCDP (epsilon = {total['epsilon']:.4g} "
                f"at delta = {total['delta']:.3g}; accountant {total['accountant']}).")
    if total.get("delta"):
        return (f"Total privacy budget of {what}: epsilon = {total['epsilon']:.4g} at delta = {total['delta']:.3g} "
                f"(accountant {total['accountant']}).{why}")
    return f"Total privacy budget of {what}: epsilon = {total['epsilon']:.6g} pure DP (accountant {total['accountant']})."


def compose_total(rows: Sequence[LedgerRow], delta: float = DEFAULT_DELTA) -> dict[str, Any]:
    """The total of every ledger row published together (totals.privacy_totals over all of them).

    Parameters
    ----------
    rows : sequence of LedgerRow
        Every row published together (at least one).
    delta : float, optional
        DP delta in (0, 1) of the (epsilon, delta) statements (default DEFAULT_DELTA).

    Returns
    -------
    dict
        {'rho' (None unless every row is zCDP), 'epsilon', 'delta', 'accountant'}: the contract keys
        of ``ledger.json["privacy"]["total"]``.

    Raises
    ------
    ValueError
        For no rows (from totals.privacy_totals; BudgetError for a bad delta).
    """
    return total_keys(privacy_totals(list(rows), delta))


def _compose_total(rows: Sequence[LedgerRow], delta: float, mechanism: Any) -> dict[str, Any]:
    """:func:`compose_total` of the rows of a checked run (RunSpec.build): ``mechanism`` is the run's
    Mechanism and ``delta`` checked; nothing is re-checked (totals._privacy_totals)."""
    return total_keys(_privacy_totals(list(rows), delta, mechanism))


def total_keys(t: dict[str, Any]) -> dict[str, Any]:
    """The contract keys of a total (compose_total) from privacy_totals' dict.

    Parameters
    ----------
    t : dict
        privacy_totals' dict, or a report's / a planned report's ``privacy`` (the same keys).

    Returns
    -------
    dict
        {'rho' (None unless zCDP), 'epsilon' (:func:`stated_epsilon`), 'delta', 'accountant'}, plus
        'delta_requested' and 'delta_note' when the total is stated above the requested delta (R Remark 4.5
        PubMix releases: mechanisms.pubmix.stated_delta, docs/PRIVACY.md §5).
    """
    acct = t.get("accountant")
    out = {"rho": t.get("rho") if acct in ("gdp-exact", "zcdp-eq1") else None,
           "epsilon": stated_epsilon(t), "delta": float(t.get("delta") or 0.0), "accountant": acct}
    if t.get("delta_note"):
        out.update(delta_requested=float(t["delta_requested"]), delta_note=str(t["delta_note"]))
    return out


def stated_epsilon(privacy: dict[str, Any]) -> float:
    """The epsilon a ledger states under its accountant (the rule of :func:`compose_total`).

    Parameters
    ----------
    privacy : dict
        privacy_totals' dict, or a report's ``privacy`` (the same keys): ``accountant`` and
        ``epsilon_exact`` (gdp-exact), ``epsilon`` or ``epsilon_eq1``.

    Returns
    -------
    float
        epsilon_exact for the exact Gaussian curve, else epsilon (or epsilon_eq1).

    Raises
    ------
    KeyError
        When the dict holds none of those keys.
    """
    t = privacy
    # every accountant's totals state epsilon (totals.privacy_totals: epsilon_exact for gdp-exact)
    eps = t["epsilon_exact"] if t.get("accountant") == "gdp-exact" else t["epsilon"] if "epsilon" in t \
        else t["epsilon_eq1"]
    return float(eps)


def unprotected_text(n: int, source: str = "") -> str:
    """The words for rows of the sensitive table used as public data (issue 21, 'public rows').

    Parameters
    ----------
    n : int
        The number of rows.
    source : str, optional
        Where they came from (e.g. the preset's pilot split), in parentheses when given.

    Returns
    -------
    str
        The clause, without a final full stop.
    """
    src = f" ({source})" if source else ""
    return (f"these {n:,} rows{src} were held out of the private table and used as public data: they get no "
            "protection. Use data that is already public")


def problems_of(claim: Claim) -> list[tuple[str, str, str]]:
    """Every reason the gate refuses ``claim``, as (field, problem, fix) triples.

    Problem and fix texts may name fields as {field} placeholders (rendered per front end).

    Parameters
    ----------
    claim : Claim
        What is about to be published.

    Returns
    -------
    list of (str, str, str)
        (field, problem, fix) per problem; [] = admitted.
    """
    from ..algorithm.methods import get_method

    out: list[tuple[str, str, str]] = []
    if claim.seeded:
        out.append(("seeds", "a seeded run is for study, not for publication (anyone who knows the seed can "
                    "recompute and subtract the noise)", "drop {seeds} to make a release from OS entropy"))
    for m in claim.methods:
        meth = get_method(m)
        if not meth.releasable:
            out.append(("method", f"{meth.label} is analysis-only: {meth.not_private_reason}".replace("{", "{{")
                        .replace("}", "}}"),
                        "choose a private method (e.g. hard or bf-soft)"))
    for name in claim.mechanisms:
        sampler = release_sampler(name)
        if sampler is None:
            out.append(("mechanism", f"the {name} mechanism has no floating-point-safe release sampler",
                        "choose a mechanism with one (gaussian, laplace, pubmix, linmix)"))
    if claim.calibrations:
        from ..privacy.selection import BROKEN_SCALE_RULES, SCALE_RULES

        for c in claim.calibrations:
            if c not in SCALE_RULES or c in BROKEN_SCALE_RULES:
                why = BROKEN_SCALE_RULES.get(c, "not a calibration of the table")
                out.append(("calibration", f"the selection calibration {c!r} is not private ({why}; papers/001 "
                            "Prop. 4.1, Thm 4.3)", "use the global calibration"))
    schema = claim.schema
    tiny = claim.private_rows is not None and claim.private_rows <= TINY_TABLE_ROWS
    if schema is not None and getattr(schema, "data_derived", False) and tiny:  # allow_data_domain cannot lift it
        out.append(tiny_table_problem(int(claim.private_rows or 0)))
    elif schema is not None and getattr(schema, "data_derived", False) and not claim.allow_data_domain:
        cols = ", ".join(getattr(schema, "data_derived_columns", ()) or ()) or "some columns"
        cols = cols.replace("{", "{{").replace("}", "}}")  # user data, never a template
        out.append(("schema", f"the public domain of {cols} was read off the private table (its bounds and levels "
                    "describe the private records, so publishing it leaks them)",
                    "{declare_domain}; or {allow_domain_anyway}"))
    if claim.allow_data_domain and schema is not None and not getattr(schema, "data_derived", False):
        out.append(("allow_data_domain", "the domain is declared public (not read from the data), so this would be "
                    "ignored", "drop {allow_data_domain}"))
    return out


def tiny_table_problem(n: int) -> tuple[str, str, str]:
    """The gate's (field, problem, fix) for a domain inferred from a table of ``n`` <= TINY_TABLE_ROWS rows.

    Parameters
    ----------
    n : int
        The private table's rows.

    Returns
    -------
    tuple of (str, str, str)
        ('schema', problem, fix); allow_data_domain does not lift it.
    """
    return ("schema", f"the private table has only {n} row(s) and its public domain was inferred from it: the "
            f"inferred domain would be the records themselves (with at most {TINY_TABLE_ROWS} rows its bounds and "
            "levels are the rows' values), so {allow_data_domain} cannot release it", "{declare_domain}")


def check(claim: Claim) -> None:
    """Raise GateError listing every problem of ``claim`` (nothing is run).

    Parameters
    ----------
    claim : Claim
        What is about to be published.

    Raises
    ------
    GateError
        If problems_of(claim) finds any problem (all of them in one error).
    """
    problems = problems_of(claim)
    if problems:
        raise GateError(problems)


def release_sampler(mechanism: str) -> str | None:
    """The floating-point-safe sampler a mechanism declares for releases.

    Read from the mechanism table, never from its name.

    Parameters
    ----------
    mechanism : str
        A name of MECHANISMS or SELECTION_MECHANISMS.

    Returns
    -------
    str or None
        'opendp', 'exact' or 'opendp-gumbel'; None for an unknown mechanism or one without a release sampler.
    """
    from ..privacy.mechanisms import MECHANISMS, SAMPLED, SELECTION_MECHANISMS

    m = MECHANISMS.get(mechanism) or SELECTION_MECHANISMS.get(mechanism)
    if m is None:
        return None
    declared = getattr(m, "release_sampler", None)
    if declared is not None:
        return declared
    return "opendp" if (mechanism, "opendp") in SAMPLED else None


def publish(claim: Claim, produce: Callable[[Callable[[], Any]], Sequence[Part]],
            result_of: Callable[[Sequence[Part]], Any] | None = None) -> Publication:
    """THE release gate: check ``claim``, run ``produce`` with OS entropy, compose the total.

    Parameters
    ----------
    claim : Claim
        What is about to be published (checked before anything runs).
    produce : callable
        ``produce(entropy) -> parts``: ``entropy()`` returns a fresh OsEntropyStreams (every draw of
        the release must come from streams made by it); each returned Part names its ledger rows, the
        sampler that drew its noise (one of SAFE_SAMPLERS) and its streams' randomness text.
    result_of : callable, optional
        ``result_of(parts)``: the producer's own result object to keep on the Publication.

    Returns
    -------
    Publication
        The parts, the composed total, the label (RELEASE_LABEL, or NOT_DP_LABEL for an allowed
        data-derived domain) and the notes.

    Raises
    ------
    GateError
        Every problem in one pass before anything runs, and after the run when a part was drawn with
        an unsafe sampler or with randomness that is not OS entropy.
    """
    from ..algorithm.streams import RANDOMNESS, OsEntropyStreams

    check(claim)
    made: list[OsEntropyStreams] = []

    def entropy() -> OsEntropyStreams:
        s = OsEntropyStreams()
        made.append(s)
        return s

    parts = tuple(produce(entropy))
    bad = [(p.name, p.sampler, p.randomness) for p in parts
           if p.sampler not in SAFE_SAMPLERS or p.randomness != RANDOMNESS]
    if bad or not parts or not made:
        what = "; ".join(f"{n}: sampler {s!r}, randomness {r!r}" for n, s, r in bad) or "no OS-entropy streams used"
        raise GateError([("seeds", f"the {claim.what} was not drawn from OS entropy with floating-point-safe "
                          f"samplers ({what})", "report this as a bug; nothing was published")])
    rows = [r for p in parts for r in p.rows]
    total = compose_total(rows, claim.delta)
    data_domain = bool(getattr(claim.schema, "data_derived", False)) and claim.allow_data_domain
    notes = (f"WARNING: {unprotected_text(claim.unprotected_rows)}.",) if claim.unprotected_rows else ()
    return Publication(claim, parts, total, NOT_DP_LABEL if data_domain else RELEASE_LABEL, data_domain,
                       result_of(parts) if result_of is not None else None, notes)
