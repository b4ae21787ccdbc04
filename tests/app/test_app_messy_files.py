"""Issue 27 (a newcomer with messy files) on the Data step and the release (AppTest, files built here).

1. Zip codes with leading zeros are read as text (never numbers), guessed an identifier when nearly
   every row has its own code, and modelled from the schema table by ticking 'model' (type
   categorical): the engine's IntakeResult.attribute, the rule of the CLI's --columns.
2. A release of one modelled column works: PWErr is skipped with a note, never a refusal.
3. A tiny table (3 rows) releases with its warning when its domain is declared public; with the
   domain inferred from it, the release gate refuses it and says why.
"""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from studio.data_ui import APPLY_SCHEMA

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "pages", "data.py")
TIMEOUT = 120
#: 40 distinct zip codes, 34 of them with a leading zero: one per row (an identifier guess).
ZIPS = [f"0{i:04d}" for i in range(501, 535)] + ["10001", "60601", "94105", "19104", "30301", "73301"]


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    from studio.flow import is_verdict

    return [e.value for e in elements if not is_verdict(e)]


def upload(raw: bytes, name: str = "people.csv") -> AppTest:
    at = ok(AppTest.from_file(DATA, default_timeout=TIMEOUT).run())
    at.radio(key="designer:source").set_value("csv").run()
    at.file_uploader(key="designer:upload:csv").set_value((name, raw, "text/csv")).run()
    return ok(at)


def editor(at: AppTest):
    eds = [e for e in at.data_editor if e.key and "schema_editor" in e.key]
    assert len(eds) == 1, [e.key for e in at.data_editor]
    return eds[0]


def edit_schema(at: AppTest, edited_rows: dict[int, dict[str, object]]) -> AppTest:
    """Cell edits of the schema table, then its form's submit button (as tests/app/test_app_state_roundtrip)."""
    at.session_state[editor(at).key] = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    apply = [b for b in at.button if b.label == APPLY_SCHEMA]
    assert len(apply) == 1, [b.label for b in at.button]
    return ok(apply[0].click().run())


def test_zip_codes_keep_their_leading_zeros_and_are_modelled_from_the_schema_table():
    lines = ["zip,age,plan"] + [f"{z},{20 + i % 30},{'abc'[i % 3]}" for i, z in enumerate(ZIPS)]
    at = upload(("\n".join(lines) + "\n").encode())
    s = at.session_state["studio"]
    assert s.schema.names == ["age", "plan"]  # the intake's guess: zip is an identifier
    assert s.private["zip"].tolist()[:3] == ["00501", "00502", "00503"]  # text, leading zeros kept
    assert ("column 'zip' is not modelled: codes with leading zeros (e.g. '00501'), all distinct: an identifier, "
            "not modelled. To model it as categorical text (its values as levels, leading zeros kept), tick "
            "'model' for 'zip' in the schema table (type categorical)") in texts(at.info)
    table = editor(at).value.reset_index(drop=True)
    row = table.index[table["column"] == "zip"][0]
    assert not table.loc[row, "model"] and table.loc[row, "type"] == "categorical"
    assert table.loc[row, "levels"].startswith("00501 | 00502 | 00503")  # the engine's offer
    at = edit_schema(at, {int(row): {"model": True}})
    assert not texts(at.error), texts(at.error)
    s = at.session_state["studio"]
    assert s.schema.names == ["zip", "age", "plan"]
    assert s.schema["zip"].kind == "categorical" and s.schema["zip"].levels == sorted(ZIPS)
    assert "zip" in s.schema.data_derived_columns  # read off the table: not yet declared public
    back = s.schema.decode(s.schema.encode(s.private))
    assert back["zip"].tolist() == ZIPS  # 00501 stays 00501 through the encoding
