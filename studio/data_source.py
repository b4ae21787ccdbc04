"""Data-source handling for the Policy Designer: bytes in, a new Studio out (or an error).

Every function here takes plain values (CSV bytes, DataFrames, JSON text) and either
returns a *new* :class:`studio.state.Studio` or raises a
:class:`blowfish_core.BlowfishError` naming the problem.  Nothing is modified in place,
so a failed upload or import leaves the session's data, schema and policy intact.
The page only wires widgets to these functions (and the tests call them directly).
No math here: reading, inference and validation are the engine's (blowfish_core).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pandas as pd

import blowfish_core as bc
from blowfish_core.algorithm.methods import BF_SOFT, HARD, TAB_PE, get_method
from blowfish_core.model.domain import ATTRIBUTE_TYPES, KINDS
from blowfish_core.synthesis.release import release_synthesis
from blowfish_core.synthesis.spec import RunSpec
from blowfish_core.base.errors import DataError, PolicyError, SchemaError
from blowfish_core.base.input_checks import check_integer_bounds
from blowfish_core.io.exports import to_csv_safe
from blowfish_core.base.fields import render
from blowfish_core.io.data import DEFAULT_MAX_BYTES
from blowfish_core.io.intake import (
    MISSING_FIX_KINDS, SEP_NAMES, IntakeResult, check_table, missing_fixes,
)
from blowfish_core.io.presets import shared_path
from blowfish_core.model.schema import _fmt

from .state import Studio, _preset_tables, default_studio, get_tau

#: a table needs this many modelled columns.  One is enough (issue 27): with one, PWErr (pairs of
#: attributes, DESIGN §3 "Metrics") is skipped with a note (metrics.PWERR_SKIPPED), never a refusal.
MIN_COLUMNS = 1

PRESET_LABELS = {"xor3": "XOR-3 (built-in)", "adult": "Adult preset", "bank": "Bank preset", "csv": "Upload a CSV"}

#: columns of the editable schema table (one row per CSV column).
SCHEMA_TABLE_COLUMNS = ["column", "model", "type", "lo", "hi", "integer", "levels", "weight", "unit",
                        "declared public", "domain"]
#: the types the schema table offers: every registered attribute type (model.domain.KINDS, the table's order).
EDITABLE_KINDS = list(KINDS)
LEVEL_SEP = "|"
#: how the schema table shows a blank number cell (not applicable / default): a dash, not "None".
BLANK = "—"
_BLANK_WORDS = {"", BLANK, "-", "–", "n/a", "na", "none", "nan", "auto"}
#: schema-table columns holding numbers, shown and edited as text so a blank reads as BLANK.
NUMBER_TEXT_COLUMNS = ("lo", "hi", "weight")


#: file types the uploader accepts (the UCI originals ship as .data).
UPLOAD_TYPES = ["csv", "tsv", "txt", "data"]
#: the separator selector: None = detect.
SEP_CHOICES: list[str | None] = [None, ",", ";", "\t", "|", ", "]
#: the per-column missing-value choices at intake, by the engine's fix kind (io.intake.MISSING_FIX_KINDS).
MISSING_CHOICE_OF = {"missing-level": "declared missing level", "leave-out": "leave the column out",
                     "drop-rows": "drop rows"}
MISSING_CHOICES = tuple(MISSING_CHOICE_OF.values())
#: the release size the intake warns against (the app's default release).
DEFAULT_RELEASE = 512


def sep_label(sep: str | None) -> str:
    """Selector label of a separator choice ('detect' for None)."""
    return "detect" if sep is None else f"{SEP_NAMES[sep]} ({sep!r})"


@dataclasses.dataclass(frozen=True)
class IntakeChoice:
    """What the user chose at intake (the app's widgets; the CLI's flags).

    sep: None to detect.  no_header: None to detect, True for a file without a header row
    (with the offered names: the Adult/Bank UCI names when the layout matches).
    drop_missing: columns whose rows with a missing cell are dropped.  missing_level:
    (column, text) pairs: the declared missing level of a text column.  columns: the columns
    to model (None: the intake's choice; the CLI's --columns), set when columns are left out
    (leave_out: those left out for their missing cells).
    """

    sep: str | None = None
    no_header: bool | None = None
    drop_missing: tuple[str, ...] = ()
    missing_level: tuple[tuple[str, str], ...] = ()
    columns: tuple[str, ...] | None = None
    leave_out: tuple[str, ...] = ()


def app_message(msg: str) -> str:
    """The app's wording of an engine message: a structured one (fields.Text, BlowfishError) names
    the app's controls (fields.FIELDS / fields.PHRASES); a plain one is shown as it is."""
    return render(msg, "app")


def intake_upload(raw: bytes, name: str = "uploaded file", choice: IntakeChoice | None = None,
                  release_size: int | None = DEFAULT_RELEASE, target: str = "csv") -> IntakeResult:
    """Run the engine's intake step (blowfish_core.io.intake.check_table, the command line's
    read_checked without the raise) on uploaded bytes with the user's choices.

    For a preset ``target`` ('adult', 'bank') the preset's columns are modelled and its declared
    public domain is checked in the same pass, so every problem (not numbers, missing, outside
    the domain) is listed at once with its rows, as ``synth --preset NAME --data FILE`` lists them
    (issue 27).  Returns the IntakeResult (its problems are not raised here: the page shows them
    with the controls that fix them).  Raises DataError for an unreadable file or a preset column
    not in the table."""
    if raw is None:
        raise DataError("no file received. Fix: choose a CSV file or paste its text")
    c = choice or IntakeChoice()
    schema = bc.get_preset(target).schema if target in ("adult", "bank") else None
    return check_table(bytes(raw), name=name, sep=c.sep, no_header=c.no_header,
                       columns=schema.names if schema is not None else c.columns, schema=schema,
                       drop_missing=list(c.drop_missing), missing_level=dict(c.missing_level),
                       release_size=release_size, max_bytes=DEFAULT_MAX_BYTES)


def missing_choices(res: IntakeResult, column: str, target: str = "csv") -> list[str]:
    """The Missing values choices of ``column``, in the order of the engine's fixes (most rows kept
    first: io.intake.missing_fixes, the order of the problem's "Fix:"; issue 27).  A preset's
    columns cannot be left out (its schema is fixed)."""
    g = res.guess(column)
    kinds = [f.kind for f in missing_fixes(g.n_missing, len(res.frame), g.can.numbers)]
    kinds += [k for k in MISSING_FIX_KINDS if k not in kinds]  # a choice made earlier stays selectable
    return [MISSING_CHOICE_OF[k] for k in kinds if not (k == "leave-out" and target != "csv")]


def intake_problems(res: IntakeResult, target: str) -> list[str]:
    """The problems that stop ``res`` from loading for ``target``, in the app's wording.

    For a preset ('adult', 'bank') only file-level problems and those of the preset's
    columns count (the preset's declared domain checks the rest); for 'csv' every problem."""
    probs = res.problems
    if target in ("adult", "bank"):
        names = set(bc.get_preset(target).schema.names)
        probs = tuple(p for p in probs if p.column == "" or p.column in names)
    return [app_message(p.message) for p in probs]


def read_csv_bytes(raw: bytes, name: str = "uploaded file", choice: IntakeChoice | None = None) -> pd.DataFrame:
    """Parse an uploaded CSV (bytes) with the engine's intake; at least two columns.

    Raises DataError naming the file and the problem (malformed, empty, one column, every
    intake problem in one message, ...).
    """
    res = intake_upload(raw, name, choice)
    probs = intake_problems(res, "csv")
    if probs:
        raise DataError(f"{name}: " + (probs[0] if len(probs) == 1 else
                                       f"{len(probs)} problem(s) found: " + " | ".join(probs)))
    df = res.frame
    return df


def download_csv(df: pd.DataFrame, raw: bool = False) -> str:
    """CSV text for a download button: spreadsheet-safe (exports.to_csv_safe) unless raw."""
    return to_csv_safe(df, None, raw=raw)


# ------------------------------------------------------------------ studios
def empty_table(schema: bc.Schema) -> pd.DataFrame:
    """A 0-row table with the schema's columns (a preset chosen without its table)."""
    return pd.DataFrame({n: pd.Series([], dtype=object) for n in schema.names})


def preset_studio(name: str, table: pd.DataFrame | str | None, base: Studio | None = None,
                  label: str | None = None) -> Studio:
    """Studio for a built-in preset.

    table: 'shared' (../shared/data, SchemaError-free by construction), a DataFrame (an
    upload: every modeled column is checked against the preset's public domain, so a
    non-number in 'age' is reported here), or None (policy design only; 0 rows).
    base: the current studio; its policy is kept when it is the same preset.
    Raises SchemaError / DataError / BlowfishError naming the problem.
    """
    p = bc.get_preset(name)
    policy = p.default_policy()
    extras: dict[str, Any] = {}
    if base is not None:
        extras = dict(base.extras)
        if base.source == name and base.preset == name:
            policy = base.policy
    if name.startswith("xor"):
        priv, pub = _preset_tables(name)
        return Studio(label or PRESET_LABELS.get(name, name), name, priv, pub, p.schema, policy,
                      metric=p.metric, extras=extras, source=name, table_source="generated")
    if table is None:
        return Studio(label or f"{p.name.capitalize()} (no table: policy design only)", name, empty_table(p.schema),
                      None, p.schema, policy, metric=p.metric, extras=extras, source=name,
                      table_source="none")
    if isinstance(table, str):
        if table != "shared" or shared_path(p) is None:
            raise DataError(f"the {p.name} table is not in ../shared/data. Fix: upload {p.csv_name}")
        priv, pub = _preset_tables(name, shared_path(p))
        return Studio(label or f"{p.name.capitalize()} ({p.csv_name} from ../shared/data)", name, priv, pub,
                      p.schema, policy, metric=p.metric, extras=extras, source=name, table_source="shared")
    p.schema.check_columns(table)
    p.schema.encode(table)  # every modeled value inside the declared public domain
    split = bc.load_preset_data(p, table)
    return Studio(label or f"{p.name.capitalize()} (uploaded table)", name, split.private, split.public,
                  p.schema, policy, metric=p.metric, extras=extras, source=name, table_source="upload")


def infer_editable_schema(df: pd.DataFrame) -> tuple[bc.Schema, list[str]]:
    """Infer a schema column by column (bc.infer_schema); columns that cannot be inferred
    (too many categories, all missing) are left out with a note.

    Returns (schema flagged data-derived, notes).  Raises SchemaError when fewer than two
    columns can be modeled.
    """
    attrs, notes, derived = [], [], []
    for c in df.columns:
        try:
            s = bc.infer_schema(df, columns=[str(c)])
        except SchemaError as e:
            notes.append(f"column '{c}' is not modeled: {e}")
            continue
        attrs.extend(s.attributes)
        derived.append(str(c))
    if len(attrs) < MIN_COLUMNS:
        raise SchemaError(
            f"only {len(attrs)} column(s) could be modeled ({'; '.join(notes) or 'none'}). "
            f"Fix: the studio needs at least one column with usable values"
        )
    return bc.Schema(attrs, data_derived=True, data_derived_columns=derived), notes


def csv_studio(df: pd.DataFrame, name: str, base: Studio | None = None,
               schema: bc.Schema | None = None, offered: bc.Schema | None = None) -> tuple[Studio, list[str]]:
    """Studio for an arbitrary uploaded table: inferred (data-derived) schema, empty policy.

    schema: the intake's schema (IntakeResult.schema(); modelled columns only), else one
    inferred column by column (infer_editable_schema).  offered: what every column becomes when
    ticked in the schema table (IntakeResult.offered_schema(): the engine's rule, the CLI's
    --columns; e.g. an identifier-guessed zip code as categorical text), default ``schema``."""
    if schema is None:
        schema, notes = infer_editable_schema(df)
    else:
        notes = []
        if schema.p < MIN_COLUMNS:
            raise SchemaError(
                f"only {schema.p} column(s) can be modeled ({', '.join(schema.names) or 'none'}). "
                f"Fix: the studio needs at least one column with usable values")
    check_integer_bounds(schema)  # the engine's check (the CLI's message), before any widget sees the bounds
    extras = dict(base.extras) if base is not None else {}
    st_ = Studio(name, None, df, None, schema, bc.Policy(), metric="pwerr", extras=extras,
                 source="csv", table_source="upload", inferred_schema=offered or schema)
    return st_, notes


def studio_from_intake(res: IntakeResult, name: str, target: str,
                       current: Studio | None = None) -> tuple[Studio, list[str]]:
    """A new Studio for ``target`` from an intake without blocking problems.

    Returns (studio, notes: the intake's notes and warnings in the app's wording).
    Raises DataError listing every problem, SchemaError / DataError from the preset's domain."""
    probs = intake_problems(res, target)
    if probs:
        raise DataError(f"{name}: " + (probs[0] if len(probs) == 1 else
                                       f"{len(probs)} problem(s) found: " + " | ".join(probs)))
    df = res.frame
    notes = [app_message(n) for n in res.notes]
    warns = ["WARNING: " + app_message(w) for w in res.warnings]
    if target in ("adult", "bank"):
        return preset_studio(target, df, base=current, label=f"{target.capitalize()} ({name})"), warns
    if target == "csv":
        if len(res.modelled) < MIN_COLUMNS:
            why = "; ".join(app_message(f"column '{g.name}' is not modelled: " + g.reason)
                            for g in res.columns if not g.modelled)
            raise SchemaError(
                f"only {len(res.modelled)} column(s) can be modeled ({', '.join(res.modelled) or 'none'})"
                + (f"; {why}" if why else "") + ". Fix: the studio needs at least one column with "
                "usable values")
        st_, more = csv_studio(df, name, base=current, schema=res.schema(), offered=res.offered_schema())
        return st_, notes + more + warns
    raise DataError(f"unknown upload target {target!r}")


def handle_upload(raw: bytes, name: str, target: str, current: Studio | None = None,
                  choice: IntakeChoice | None = None) -> tuple[Studio, list[str]]:
    """Turn uploaded CSV bytes into a new Studio for ``target`` ('adult', 'bank' or 'csv')
    through the engine's intake (intake_upload, then studio_from_intake).

    Returns (studio, notes).  Raises BlowfishError (DataError/SchemaError) naming the
    problem(s); ``current`` is never modified.
    """
    if target not in ("adult", "bank", "csv"):
        raise DataError(f"unknown upload target {target!r}")
    return studio_from_intake(intake_upload(raw, name, choice, target=target), name, target, current)


def studio_for_source(source: str, current: Studio | None = None) -> Studio:
    """The studio a data-source choice starts with: XOR-3 generated; Adult/Bank with the
    shared table when present, else without a table (policy design only)."""
    if source == "xor3":
        s = default_studio()
        if current is not None:
            s.extras = dict(current.extras)  # the tau is the session's (studio.state.TAU_KEY), not the studio's
        return s
    if source in ("adult", "bank"):
        p = bc.get_preset(source)
        return preset_studio(source, "shared" if shared_path(p) else None, base=current)
    raise DataError(f"unknown data source {source!r}")


# ------------------------------------------------------------ schema / policy
def with_schema(studio: Studio, schema: bc.Schema) -> tuple[Studio, list[str]]:
    """A copy of ``studio`` using ``schema``: the table (if any) is checked against the
    declared domain; policy parts that no longer fit are dropped (listed in the notes).

    Raises SchemaError naming the column and the problem.
    """
    check_integer_bounds(schema)  # bounds beyond +-2^53: the CLI's and the API's message (issue 21)
    if studio.has_rows:
        schema.check_columns(studio.private)
        schema.encode(studio.private)
    notes: list[str] = []
    keep: dict[str, bc.AttributePolicy] = {}
    for n, ap in studio.policy.per_attribute.items():
        if n not in schema.names:
            notes.append(f"policy for '{n}' dropped: the attribute is not modeled any more")
            continue
        try:
            bc.Policy({n: ap}).validate(schema)
        except PolicyError as e:
            notes.append(f"policy for '{n}' dropped: {e}")
            continue
        keep[n] = ap
    policy = bc.Policy(keep, participation=studio.policy.participation)
    preset = studio.preset
    if preset is not None and schema.to_dict() != bc.get_preset(preset).schema.to_dict():
        preset = None
    metric = studio.metric if preset is not None else "pwerr"
    return dataclasses.replace(studio, schema=schema, policy=policy, preset=preset, metric=metric), notes


def with_policy(studio: Studio, policy: bc.Policy) -> Studio:
    """A copy of ``studio`` using ``policy`` (validated). Raises PolicyError."""
    policy.validate(studio.schema)
    return dataclasses.replace(studio, policy=policy)


def schema_from_json(text: str) -> bc.Schema:
    """Parse the CLI's schema JSON (Schema.from_json). Raises SchemaError."""
    return bc.Schema.from_json(text)


def policy_from_json(text: str) -> bc.Policy:
    """Parse the CLI's policy JSON (Policy.from_json). Raises PolicyError."""
    return bc.Policy.from_json(text)


# ------------------------------------------------------- editable schema table
def number_text(v: Any) -> str:
    """A number as schema-table text that parses back exactly ('30', '0.1'); blank as BLANK."""
    if _blank(v):
        return BLANK
    f = float(v)
    return str(int(f)) if f.is_integer() and abs(f) < 1e15 else repr(f)


def parse_number_cell(v: Any, column: str, field: str) -> float | None:
    """A schema-table number cell: None when blank (BLANK, '', 'n/a', ...), else the float.

    Raises SchemaError naming the column and the field when the text is not a number."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, str):
        t = v.strip()
        if t.lower() in _BLANK_WORDS:
            return None
        try:
            f = float(t)
        except ValueError:
            raise SchemaError(f"column '{column}': {field} '{t}' is not a number. "
                              f"Fix: type a number, or {BLANK} to leave it blank") from None
    else:
        f = float(v)
    if not math.isfinite(f):
        raise SchemaError(f"column '{column}': {field} must be a finite number, got {v!r}. Fix: type a number")
    return f


def _levels_text(levels: list[Any] | None) -> str:
    return f" {LEVEL_SEP} ".join(_fmt(v) for v in levels) if levels else ""


def schema_table(df: pd.DataFrame, schema: bc.Schema, inferred: bc.Schema | None) -> pd.DataFrame:
    """One editable row per table column: model?, type, public lo/hi or levels, weight, unit,
    'declared public' (tick to vouch that an inferred domain is public) and a read-only
    'domain' flag ('data-derived' / 'declared').  lo, hi and weight are text (object dtype):
    a number that parses back exactly, or BLANK ('—') when not applicable / default."""
    rows = []
    derived = set(schema.data_derived_columns) if schema.data_derived else set()
    for c in df.columns:
        c = str(c)
        a = schema[c] if c in schema.names else (inferred[c] if inferred is not None and c in inferred.names else None)
        rows.append({
            "column": c,
            "model": c in schema.names,
            "type": a.kind if a is not None else "categorical",
            "lo": a.lo if a is not None and a.bounded else None,
            "hi": a.hi if a is not None and a.bounded else None,
            "integer": bool(a.integer) if a is not None else False,
            "levels": _levels_text(a.levels) if a is not None and not a.bounded else "",
            "weight": a.weight if a is not None else None,
            "unit": (a.unit or "") if a is not None else "",
            "declared public": c in schema.names and c not in derived,
            "domain": ("data-derived" if c in derived else "declared") if c in schema.names else "",
        })
    out = pd.DataFrame(rows, columns=SCHEMA_TABLE_COLUMNS)
    for c in NUMBER_TEXT_COLUMNS:  # text cells: a blank shows as BLANK instead of the grid's "None"
        out[c] = pd.Series([number_text(v) for v in out[c].tolist()], dtype=object, index=out.index)
    return out


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and not v.strip()) \
        or v is pd.NA


def _observed_levels(s: pd.Series) -> list[Any]:
    """The distinct values of a column: numbers (sorted) for a numeric column, else its texts as
    written (sorted; a text column of digits such as zip codes keeps its leading zeros)."""
    vals = s.dropna().unique().tolist()
    num = pd.to_numeric(pd.Series(vals, dtype=object), errors="coerce")
    if len(vals) and pd.api.types.is_numeric_dtype(s) and not num.isna().any():
        keyed = sorted(zip(num.tolist(), vals), key=lambda t: t[0])
        return [int(v) if float(v).is_integer() else float(v) for v, _ in keyed]
    return sorted({_fmt(v) for v in vals})


def schema_from_table(table: pd.DataFrame, df: pd.DataFrame, current: bc.Schema,
                      inferred: bc.Schema | None) -> bc.Schema:
    """Build a Schema from the edited schema table (see :func:`schema_table`).

    A column's domain is *data-derived* (DESIGN §3) unless 'declared public' is ticked or
    its bounds/levels were changed from the inferred ones; blank bounds/levels of a
    finite or numeric type are filled from the data and flagged data-derived.
    Hierarchical rows keep the tree of the current schema (trees come from schema JSON).
    Raises SchemaError naming the column and the field to fix.
    """
    attrs, derived = [], []
    for _, row in table.iterrows():
        name = str(row["column"])
        if not bool(row["model"]):
            continue
        kind = str(row["type"]) if not _blank(row["type"]) else ""
        weight = parse_number_cell(row["weight"], name, "weight")
        unit = None if _blank(row["unit"]) else str(row["unit"]).strip()
        integer = bool(row["integer"]) if not _blank(row["integer"]) else False
        vouched = bool(row["declared public"]) if not _blank(row["declared public"]) else False
        inf_a = inferred[name] if inferred is not None and name in inferred.names else None
        col = df[name] if name in df.columns else pd.Series([], dtype=object)
        filled = False
        cls = ATTRIBUTE_TYPES.get(kind)  # the chosen type's class: its declared capabilities pick the fields
        if cls is not None and cls.bounded:
            lo, hi = parse_number_cell(row["lo"], name, "lo"), parse_number_cell(row["hi"], name, "hi")
            if lo is None or hi is None:
                if (pd.to_numeric(col, errors="coerce").isna() & col.notna()).any():
                    # the engine's own message: "column 'x': k row(s) are not numbers (e.g. ...)"
                    bc.Attribute(name, "numeric", lo=0.0, hi=1.0).validate().encode_series(col)
                num = pd.to_numeric(col, errors="coerce").dropna()
                if len(num):
                    lo = float(num.min()) if lo is None else lo
                    hi = float(num.max()) if hi is None else hi
                    hi = hi if hi > lo else lo + 1.0
                    filled = True
            a = bc.Attribute(name, kind, lo=lo, hi=hi, integer=integer, weight=weight, unit=unit)
            same = inf_a is not None and inf_a.bounded and a.lo == inf_a.lo and a.hi == inf_a.hi
        elif cls is not None and cls.has_tree:
            if name not in current.names or not current[name].has_tree:
                raise SchemaError(
                    f"column '{name}': a hierarchical type needs a taxonomy tree. "
                    "Fix: import a schema JSON with a 'tree' for it, or choose categorical"
                )
            a = bc.Attribute(name, kind, tree=current[name].tree, weight=weight)
            same = False
        else:
            text = "" if _blank(row["levels"]) else str(row["levels"])
            levels: list[Any] = [t.strip() for t in text.split(LEVEL_SEP) if t.strip()]
            if levels and pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
                as_num = pd.to_numeric(pd.Series(levels, dtype=object), errors="coerce")
                if not as_num.isna().any():  # keep numbers numbers (the release keeps the column's type)
                    levels = [int(v) if float(v).is_integer() else float(v) for v in as_num.tolist()]
            if not levels:
                levels = _observed_levels(col)
                filled = True
            a = bc.Attribute(name, kind, levels=levels, weight=weight, unit=unit)
            same = inf_a is not None and inf_a.levels is not None and \
                [_fmt(v) for v in levels] == [_fmt(v) for v in inf_a.levels]
        if not vouched and (same or filled):
            derived.append(name)
        attrs.append(a)
    if not attrs:
        raise SchemaError("no column is modeled. Fix: tick 'model' for at least one column")
    return bc.Schema(attrs, data_derived=bool(derived), data_derived_columns=derived)


# ------------------------------------------------------------ release (issue 11)
#: methods offered by the "Make a release" action: the release gate's private methods (Method.releasable)
#: that run Algorithm 1 here (issue 21: analysis-only methods are never offered in release controls).
RELEASE_METHODS = tuple(m.name for m in (BF_SOFT, HARD, TAB_PE) if m.releasable)


def make_release(studio: Studio, method: str, rho: float, rounds: int = 8, release: int = DEFAULT_RELEASE,
                 seed: int | None = None, allow_data_domain: bool = False):
    """One release of ``studio``'s table through the release gate (release.release_synthesis):
    OS entropy, OpenDP noise, a declared public domain (a data-derived one only with
    ``allow_data_domain``, then labelled not differentially private), a private method.

    seed: a whole number for a study run instead (run_paired; its outputs say "seeded: for study,
    not for publication" and never go through the gate).  Returns the engine's PairedResult
    (public_report / eval_report; ``publication`` set for a release).
    Raises GateError / BlowfishError naming the problem (no table, bad budget, empty policy, ...)."""
    if not studio.has_rows:
        raise DataError("a release needs the private table. Fix: upload it (or choose a table) above")
    cfg = bc.SynthConfig(rounds=int(rounds), release=int(release))
    metric = bc.get_preset(studio.preset).metric_fn() if studio.preset else None
    spec = RunSpec.build(studio.schema, studio.policy, studio.private, [method], float(rho),
                         tau=get_tau() if get_method(method).needs_tau else None,
                         seeds=None if seed is None else [int(seed)], config=cfg, metric=metric,
                         data_source=studio.dataset_name, allow_data_domain=bool(allow_data_domain))
    if seed is not None:
        return bc.run_paired(spec)
    return release_synthesis(spec).result


def bundle_zip(result) -> bytes:
    """The release bundle (report.bundle_files: CSV, schema, policy, budget, ledger JSON and
    text) as a zip archive for a download button.  Nothing computed on the private table."""
    import io
    import zipfile

    from blowfish_core.synthesis.report import bundle_files

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in bundle_files(result).items():
            z.writestr(name, text)
    return buf.getvalue()
