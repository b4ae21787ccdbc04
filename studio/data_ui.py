"""The data section (the Data step, and collapsed on the Policy step): data source, table upload and
intake, the schema table (public domain) and the data-derived warning; its widget callbacks and the
flash messages the callbacks queue (callbacks cannot draw).

Loads run in widget callbacks and only replace the shared state on success, so a failed upload
leaves the data, schema and policy as they were.  Reading, inference and validation are in
blowfish_core (through studio.data_source).
"""

from __future__ import annotations

import dataclasses

import streamlit as st

import blowfish_core as bc
from blowfish_core.io.presets import shared_path
from studio import data_source as ds
from studio import flow
from studio import widgets as w
from studio.state import Studio, draft, drop_drafts, get_studio, keep_draft, kept_editor, seed, set_studio

FLASH = "designer:flash"
SCHEMA_REV = "designer:schema_rev"
#: widget keys of the data section (bound to the model: studio.state's pattern)
SOURCE_KEY = "designer:source"
#: THE key of the separator choice (None = detect): the selector shows it, every upload uses it.
SEP_KEY = "data:sep"
#: the kept schema table (what the user typed, also while invalid) of schema revision ``rev``.
SCHEMA_TABLE = "data:schema_table"
#: the form that batches the schema editor's cell edits (issue 24) and its submit button's label.
SCHEMA_FORM = "data:schema_form"
APPLY_SCHEMA = "Apply schema edits"


# ------------------------------------------------------------------ messages
def flash(where: str, kind: str, msg: str) -> None:
    """Queue a message for the next run (callbacks cannot draw)."""
    st.session_state.setdefault(FLASH, []).append((where, kind, msg))


def show_flash(where: str) -> None:
    items = st.session_state.get(FLASH, [])
    keep = []
    for wh, kind, msg in items:
        if wh != where:
            keep.append((wh, kind, msg))
            continue
        {"error": st.error, "info": st.info, "success": st.success, "warning": st.warning}.get(kind, st.info)(msg)
    st.session_state[FLASH] = keep


def _new_dataset(studio) -> None:
    set_studio(studio)
    w.reset_policy_widgets()
    st.session_state[SCHEMA_REV] = st.session_state.get(SCHEMA_REV, 0) + 1
    drop_drafts("designer:source")  # the source and table radios show the loaded data again
    drop_drafts("designer:table:")


# ----------------------------------------------------------------- callbacks
def on_source_change() -> None:
    src = st.session_state[SOURCE_KEY]
    if src == "csv":
        keep_draft(SOURCE_KEY)  # a choice waiting for its file; the current data stay until a CSV is loaded
        return
    drop_drafts(SOURCE_KEY)
    try:
        _new_dataset(ds.studio_for_source(src, get_studio()))
    except bc.BlowfishError as e:
        flash("data", "error", f"{str(e).rstrip('.')}.{kept_note()}")


def on_table_change(name: str) -> None:
    choice = st.session_state[f"designer:table:{name}"]
    if choice == "upload":
        keep_draft(f"designer:table:{name}")
        return  # wait for the file
    drop_drafts(f"designer:table:{name}")
    try:
        _new_dataset(ds.preset_studio(name, "shared" if choice == "shared" else None, base=get_studio()))
    except bc.BlowfishError as e:
        flash("data", "error", f"{str(e).rstrip('.')}.{kept_note()}")


def kept_note() -> str:
    """Tail of a failed-load error: the user's previous data stay in use (never lost)."""
    return f" The previous dataset ({get_studio().dataset_name}) is still in use."


INTAKE = "designer:intake"  # (raw bytes, file name, target, IntakeChoice, IntakeResult | None)


def _load_bytes(raw: bytes, name: str, target: str, choice: ds.IntakeChoice | None = None) -> None:
    """Intake (the engine's intake step, io.intake.check_table) with the user's choices, then load on success.
    The intake result stays in the session so the page can offer the fixes."""
    choice = choice or ds.IntakeChoice(sep=st.session_state.get(SEP_KEY))
    st.session_state[SEP_KEY] = choice.sep
    drop_drafts(f"{INTAKE}:")  # the missing-value controls show this intake's choices
    res = None
    try:
        res = ds.intake_upload(raw, name, choice, target=target)
        new, notes = ds.studio_from_intake(res, name, target, get_studio())
    except bc.BlowfishError as e:
        st.session_state[INTAKE] = (raw, name, target, choice, res)
        if res is not None and res.problems:  # the intake panel shows each problem (one st.error each): once
            flash("data", "warning", f"{name} was not loaded: {w.plural(len(res.problems), 'problem')}, listed "
                                     f"below with its fix.{kept_note()}")
            return
        msg = str(e).rstrip()
        msg = msg if msg.startswith(name) else f"{name}: {msg}"
        flash("data", "error", msg + ("" if msg.endswith(".") else ".") + kept_note())
        return
    st.session_state[INTAKE] = (raw, name, target, choice, res)
    new.reading = reading_options(res, choice)
    _new_dataset(new)
    for n in notes:
        flash("data", "warning" if n.startswith("WARNING: ") else "info", n.removeprefix("WARNING: "))
    flash("data", "success", f"Loaded {name}: {len(new.private):,} private rows, {new.schema.p} modeled columns "
                             f"(separator {res.sep_name}, {'detected' if res.sep_sniffed else 'chosen'}).")


def reading_options(res, choice: ds.IntakeChoice) -> dict:
    """How the table was read (Studio.reading): the separator used, the header choice, the names of a
    headerless file, the missing-value choices."""
    return {"sep": res.sep, "no_header": not res.header, "names": None if res.header else list(res.frame.columns),
            "drop_missing": list(choice.drop_missing), "missing_level": dict(choice.missing_level)}


def on_upload(target: str) -> None:
    f = st.session_state.get(f"designer:upload:{target}")
    if f is None:
        return
    _load_bytes(f.getvalue(), f.name, target)


def _reintake(**change) -> None:
    """Re-run the intake of the last upload with one choice changed."""
    last = st.session_state.get(INTAKE)
    if last is None:
        return
    raw, name, target, choice, _ = last
    _load_bytes(raw, name, target, dataclasses.replace(choice, **change))


def on_intake_sep() -> None:
    st.session_state[SEP_KEY] = st.session_state.get(f"{INTAKE}:sep")
    _reintake(sep=st.session_state[SEP_KEY])


def on_use_names() -> None:
    _reintake(no_header=True)


def on_missing_apply(columns: list[str]) -> None:
    drop, level, out = [], [], []
    for c in columns:
        how = st.session_state.get(f"{INTAKE}:missing:{c}")
        if how == "drop rows":
            drop.append(c)
        elif how == "declared missing level":
            level.append((c, st.session_state.get(f"{INTAKE}:level:{c}") or "missing"))
        elif how == "leave the column out":
            out.append(c)
    last = st.session_state.get(INTAKE)
    res, before = (last[4], last[3].leave_out) if last is not None and last[4] is not None else (None, ())
    # the columns to model (the CLI's --columns): the intake's choice, without those left out
    picked = None if not out or res is None else tuple(
        g.name for g in res.columns if (g.modelled or g.name in before) and g.name not in out)
    _reintake(drop_missing=tuple(drop), missing_level=tuple(level), columns=picked, leave_out=tuple(out))


def intake_panel(target: str) -> None:
    """Separator selector, header fix, per-column missing-value choices and the intake's
    notes / warnings / problems for the last upload to ``target``."""
    seed(f"{INTAKE}:sep", st.session_state.get(SEP_KEY))  # None: the first option, "detect"
    st.selectbox("Separator", ds.SEP_CHOICES, format_func=ds.sep_label, key=f"{INTAKE}:sep",
                 on_change=on_intake_sep, help="detect: the intake picks among , ; tab | and ', ' and says which")
    last = st.session_state.get(INTAKE)
    if last is None or last[2] != target or last[4] is None:
        return
    res = last[4]
    st.caption(ds.app_message(res.summary_lines()[0]))
    if res.offered_names and not res.header and not last[3].no_header:
        what = f"the {res.preset_layout.capitalize()} names" if res.preset_layout else "column_1, column_2, …"
        st.button(f"Use these column names ({what})", key=f"{INTAKE}:names", on_click=on_use_names)
    missing = [g.name for g in res.columns if (g.n_missing and g.modelled) or g.name in dict(last[3].missing_level)]
    missing += [c for c in (*last[3].drop_missing, *last[3].leave_out) if c not in missing]
    if missing:
        with st.expander("Missing values", expanded=any(p.kind == "missing" for p in res.problems)):
            levels = dict(last[3].missing_level)
            for c in missing:
                a, b = st.columns(2)
                mk, lk = f"{INTAKE}:missing:{c}", f"{INTAKE}:level:{c}"
                draft(mk, "drop rows" if c in last[3].drop_missing else "declared missing level" if c in levels
                      else "leave the column out" if c in last[3].leave_out else "(choose)")
                draft(lk, levels.get(c, "missing"))
                a.selectbox(f"'{c}'", ["(choose)", *ds.missing_choices(res, c, target)], key=mk,  # most rows kept first
                            on_change=keep_draft, args=(mk,))
                b.text_input(f"missing level for '{c}'", key=lk, on_change=keep_draft, args=(lk,))
            st.button("Apply the missing-value choices", key=f"{INTAKE}:missing_apply", on_click=on_missing_apply,
                      args=(missing,))
    for p in res.problems:
        st.error(ds.app_message(p.message))


def on_paste(target: str) -> None:
    text = st.session_state.get(f"designer:paste:{target}", "") or ""
    if not text.strip():
        flash("data", "error", "Could not load the pasted CSV: the text box is empty. Fix: paste a header row and "
              "data rows." + kept_note())
        return
    _load_bytes(text.encode("utf-8"), "pasted CSV", target)



#: width in pixels of the schema table's "declared public" column: its whole header shows (issue 24 item 10;
#: a checkbox column is otherwise sized to its box and the header was cut to "declar…").
DECLARED_PUBLIC_WIDTH = 130


def schema_column_config() -> dict:
    """The schema table's column_config: the type as a select box, the bounds and weight as text with
    their help, and the "declared public" checkbox wide enough for its header."""
    return {
        "type": st.column_config.SelectboxColumn("type", options=ds.EDITABLE_KINDS, required=True),
        "lo": st.column_config.TextColumn("lo", help=f"public lower bound (numeric types; {ds.BLANK} = none)"),
        "hi": st.column_config.TextColumn("hi", help=f"public upper bound (numeric types; {ds.BLANK} = none)"),
        "weight": st.column_config.TextColumn("weight", help=f"Gower weight ({ds.BLANK} = 1/p)"),
        "declared public": st.column_config.CheckboxColumn(
            "declared public", width=DECLARED_PUBLIC_WIDTH,
            help="Tick to vouch that this column's inferred bounds or levels are public knowledge "
                 "(not read off the private table)."),
    }


def data_section() -> Studio:
    """Draw the data section; returns the studio as it is after the section's edits."""
    studio = get_studio()
    st.header("1 · Data and public domain")
    flow.tutorial("Choose where the data come from. The public domain (the schema: bounds and levels) must be public "
                  "knowledge; only the synthesis reads the private rows.")
    show_flash("data")
    # the radios show the loaded data (the model), or a choice waiting for its file (a draft)
    draft(SOURCE_KEY, studio.source if studio.source in ds.PRESET_LABELS else "csv")
    source = st.radio("Data source", list(ds.PRESET_LABELS), format_func=ds.PRESET_LABELS.get, key=SOURCE_KEY,
                      horizontal=True, on_change=on_source_change)

    if source in ("adult", "bank"):
        preset = bc.get_preset(source)
        found = shared_path(preset) is not None
        opts = (["shared"] if found else []) + ["upload", "none"]
        labels = {"shared": f"../shared/data/{preset.csv_name}", "upload": f"Upload {preset.csv_name}",
                  "none": "No table (policy design only)"}
        tkey = f"designer:table:{source}"
        cur = studio.table_source if studio.source == source else ("shared" if found else "none")
        draft(tkey, cur if cur in opts else opts[0])
        choice = st.radio("Table", opts, format_func=labels.get, key=tkey, horizontal=True,
                          on_change=on_table_change, args=(source,))
        if choice == "upload":
            st.file_uploader(f"Upload {preset.csv_name} (CSV, TSV or the UCI .data file)", type=ds.UPLOAD_TYPES,
                             key=f"designer:upload:{source}", on_change=on_upload, args=(source,))
            intake_panel(source)
            with st.expander("…or paste CSV text"):
                draft(f"designer:paste:{source}", "")
                st.text_area("CSV text", key=f"designer:paste:{source}", height=120, on_change=keep_draft,
                             args=(f"designer:paste:{source}",))
                st.button("Load pasted CSV", key=f"designer:paste_btn:{source}", on_click=on_paste, args=(source,))
    elif source == "csv":
        st.file_uploader("Upload a table (CSV, TSV, TXT or .data; UTF-8; the separator and header are detected)",
                         type=ds.UPLOAD_TYPES, key="designer:upload:csv", on_change=on_upload, args=("csv",))
        intake_panel("csv")
        with st.expander("…or paste CSV text"):
            draft("designer:paste:csv", "")
            st.text_area("CSV text", key="designer:paste:csv", height=120, on_change=keep_draft,
                         args=("designer:paste:csv",), placeholder="age,sex,income\n34,F,<=50K\n51,M,>50K")
            st.button("Load pasted CSV", key="designer:paste_btn:csv", on_click=on_paste, args=("csv",))
        if studio.source != "csv":
            st.info(f"No CSV loaded yet: the read-outs below still use **{studio.dataset_name}**.")

    studio = get_studio()
    dataset_line = st.empty()  # filled below, after the schema edits of this run are applied
    if not studio.has_rows:
        st.info("Policy design needs only the public schema and policy. **Synthesis needs the table**: choose "
                "“Upload” above (or put the file in ../shared/data) before using the Synthesis Runner.")

    if studio.source == "csv":
        rev = st.session_state.get(SCHEMA_REV, 0)
        table_key = f"{SCHEMA_TABLE}:{rev}"
        for k in [k for k in st.session_state if str(k).startswith(SCHEMA_TABLE) and k != table_key]:
            del st.session_state[k]  # an earlier dataset's table
        st.subheader("Schema (public domain)")
        st.caption("One row per column: tick *model*, pick the type, and declare public bounds (numeric) or levels "
                   f"separated by ‘{ds.LEVEL_SEP}’ (in order for ordinal). A dash ({ds.BLANK}) "
                   "leaves a cell blank: not applicable, or weight 1/p. Tick *declared public* "
                   "only if the inferred domain really is public knowledge. Then press *Apply schema edits*.")
        _studio = studio
        # issue 24: the cell edits are batched in a form; one edit no longer reruns the page, the
        # submit button applies them all in one run (the kept table then holds them, as before)
        with st.form(f"{SCHEMA_FORM}:{rev}", border=False):
            edited = kept_editor(
                table_key, lambda: ds.schema_table(_studio.private, _studio.schema, _studio.inferred_schema),
                key=f"designer:schema_editor:{rev}", hide_index=True, disabled=["column"],
                column_order=[c for c in ds.SCHEMA_TABLE_COLUMNS if c != "domain"],
                column_config=schema_column_config())
            st.form_submit_button(APPLY_SCHEMA, help="Cell edits take effect together when you press this "
                                  "(one page run for all of them).")
        try:
            new_schema = ds.schema_from_table(edited, studio.private, studio.schema, studio.inferred_schema)
            if new_schema.to_dict() != studio.schema.to_dict():
                new, notes = ds.with_schema(studio, new_schema)
                set_studio(new)
                w.reset_policy_widgets()
                studio = new
                for n in notes:
                    st.info(n)
        except bc.BlowfishError as e:
            st.error(f"Schema not applied: {e}")

    rows = f"{len(studio.private):,} private rows" if studio.has_rows else "no table"
    dataset_line.markdown(f"**Dataset:** {studio.dataset_name} — {rows}, {studio.schema.p} modeled attributes "
                          f"({', '.join(studio.schema.names)}).")
    if studio.schema.data_derived:
        cols = ", ".join(studio.schema.data_derived_columns) or "some columns"
        st.markdown(f":red[**Data-derived domain: {cols}.**] These bounds or categories were read off the private "
                    "table, so they disclose information outside the privacy guarantee (e.g. the exact minimum and "
                    "maximum) and every report will repeat this caveat. Fix: type the public bounds or levels in the "
                    "schema table, or tick *declared public* if they are public knowledge.")

    return studio
