"""The CSV intake and the release action in the app (issue 11 Must-show 1-3, AppTest upload path).

The Policy Designer's uploader accepts csv/tsv/txt/data and runs the engine's intake
(studio.data_source.intake_upload -> blowfish_core.io.intake.intake_csv); the page shows the
separator (and a selector), offers the preset's names for a headerless file, lets the user
choose per column what to do with missing values, and shows notes / warnings / problems.
"Make a release" makes an unseeded release whose bundle holds nothing computed on the
private table.
"""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from blowfish_core.synthesis.report import INTERNAL_LABEL
from studio import data_source as ds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "policy.py")
ADULT_LINES = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K",
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K",
    "53, Private, 234721, 11th, 7, Married-civ-spouse, Handlers-cleaners, Husband, Black, Male, 0, 0, 40, United-States, >50K",
]


def page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.run()
    assert not at.exception
    return at


def upload(at: AppTest, name: str, raw: bytes, target: str = "csv") -> AppTest:
    if target == "csv":
        at.radio(key="designer:source").set_value("csv").run()
    else:
        at.radio(key="designer:source").set_value(target).run()
        at.radio(key=f"designer:table:{target}").set_value("upload").run()
    at.file_uploader(key=f"designer:upload:{target}").set_value((name, raw, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    """Message texts; a verdict banner (studio.flow.verdict_banner, issue 16) is not a message."""
    from studio.flow import is_verdict

    return [e.value for e in elements if not is_verdict(e)]


def studio(at):
    return at.session_state["studio"]


def test_semicolon_file_loads_and_shows_the_separator():
    rows = ["age;job;y"] + [f"{20 + i % 30};{'ab'[i % 2]};{'no' if i % 3 else 'yes'}" for i in range(60)]
    at = upload(page(), "bank.csv", ("\n".join(rows) + "\n").encode())
    assert not texts(at.error)
    assert studio(at).dataset_name == "bank.csv" and studio(at).schema.names == ["age", "job", "y"]
    assert "Loaded bank.csv: 60 private rows, 3 modeled columns (separator semicolon, detected)." in texts(at.success)
    assert any("separator semicolon (detected)" in c for c in texts(at.caption))
    # the selector: forcing ',' reads one column, refused with the real cause (issue 27), the loaded table stays
    at.selectbox(key="designer:intake:sep").set_value(",").run()
    assert ("the file looks ';'-separated: choose the semicolon separator (read with the comma separator, the header "
            "'age;job;y' is one column holding 2 ';')") in texts(at.error), texts(at.error)
    assert studio(at).dataset_name == "bank.csv"
    assert at.selectbox(key="designer:intake:sep").options[:3] == ["detect", "comma (',')", "semicolon (';')"]


def test_headerless_adult_layout_offers_the_adult_names():
    at = upload(page(), "adult.data", ("\n".join(ADULT_LINES * 5) + "\n").encode(), target="adult")
    errs = texts(at.error)
    assert any("the first row looks like data, not a header" in e and "press 'Use these column names' below" in e
               for e in errs), errs
    assert studio(at).table_source != "upload"  # nothing loaded, nothing "Loaded"
    assert not texts(at.success)
    at.button(key="designer:intake:names").click().run()
    assert not at.exception and not texts(at.error), texts(at.error)
    s = studio(at)
    assert s.table_source == "upload" and s.preset == "adult" and len(s.private) + len(s.public) == 20


def test_every_problem_in_one_pass_with_row_numbers():
    rows = ["age,income,city,score", "30,<=50K,Boston,1.5", "x,>50K,Boston,2", "31,>50K,,3",
            "thirty,<=50K,Paris,4", "32,<=50K,Paris,5", ",<=50K,Paris,6", "33,<=50K,Paris", "34,>50K,Rome,7",
            "?,>50K,Rome,8"]
    at = upload(page(), "p.csv", ("\n".join(rows) + "\n").encode())
    errs = texts(at.error)
    # each problem once (issue 27): one st.error per problem, the load's outcome a warning that points at them
    assert len(errs) == 4 and len(set(errs)) == 4, errs
    assert errs[0].startswith("1 row(s) have 3 fields instead of 4 (row 8).")
    assert [x.value for x in at.warning if x.value.startswith("p.csv was not loaded")] == [
        "p.csv was not loaded: 4 problems, listed below with its fix. The previous dataset (XOR-3 (built-in)) "
        "is still in use."]
    assert ("column 'age': 2 cell(s) are not numbers (e.g. ['x', 'thirty']) in rows 3, 5. Fix: correct those "
            "cells, or declare the column categorical") in errs
    assert ("column 'city': 1 cell(s) are missing (empty) in row 4. Fix: choose 'declared missing level' for 'city' "
            "under Missing values below: keeps all 8 rows; or choose 'drop rows' there: keeps 7 of 8 rows") in errs
    assert studio(at).source != "csv"


def test_missing_values_chosen_per_column_at_intake():
    raw = ("age,city\n" + "".join(f"{30 + i % 9},{['Boston', 'Paris', ''][i % 3]}\n" for i in range(30))).encode()
    at = upload(page(), "m.csv", raw)
    assert any("column 'city': 10 cell(s) are missing (empty) in rows 4, 7, 10, 13, 16 and 5 more" in e
               for e in texts(at.error))
    at.selectbox(key="designer:intake:missing:city").set_value("declared missing level").run()
    at.text_input(key="designer:intake:level:city").set_value("unknown").run()
    at.button(key="designer:intake:missing_apply").click().run()
    assert not texts(at.error), texts(at.error)
    assert studio(at).schema["city"].levels == ["Boston", "Paris", "unknown"]
    # or drop the rows, and say how many
    at.selectbox(key="designer:intake:missing:city").set_value("drop rows").run()
    at.button(key="designer:intake:missing_apply").click().run()
    assert not texts(at.error)
    assert "dropped 10 row(s) with a missing value in 'city'" in texts(at.info)
    assert len(studio(at).private) == 20 and studio(at).schema["city"].levels == ["Boston", "Paris"]


def test_nbsp_numbers_and_typed_columns():
    n = 24
    df = pd.DataFrame({"id": range(1, n + 1), "zip": ["02165", "02139", "10001"] * (n // 3),
                       "day": [f"2021-03-{d:02d}" for d in range(1, n + 1)], "flag": ["TRUE", "FALSE"] * (n // 2),
                       "amount": [f"\u00a0{10 + i % 5}\u00a0" for i in range(n)]})
    at = upload(page(), "typed.txt", df.to_csv(index=False).encode())
    assert not texts(at.error), texts(at.error)
    s = studio(at)
    assert s.schema.names == ["zip", "flag", "amount"]
    assert s.schema["amount"].kind == "numeric" and (s.schema["amount"].lo, s.schema["amount"].hi) == (10, 14)
    assert s.schema["zip"].levels == ["02139", "02165", "10001"] and s.schema["flag"].levels == ["FALSE", "TRUE"]
    info = texts(at.info)
    assert "column 'id' is not modelled: whole numbers, all distinct and consecutive: an identifier, not modelled" \
           in info
    assert any(t.startswith("column 'day' is not modelled: dates (e.g. '2021-03-01')") for t in info)
    assert "24 cell(s) had non-breaking or other Unicode spaces around their value; they were trimmed like " \
           "ordinary spaces" in info
    # the download of the table keeps 02165 and TRUE (spreadsheet-safe export)
    out = ds.download_csv(s.private[["zip", "flag"]])
    assert out.splitlines()[1] == "02165,TRUE"
    assert ds.download_csv(pd.DataFrame({"a": ["=HYPERLINK(1)"]})).splitlines()[1] == "'=HYPERLINK(1)"


def test_wide_and_tiny_tables_get_notes_and_warnings():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 5, size=(40, 35)), columns=[f"v{i}" for i in range(35)])
    at = upload(page(), "wide.tsv", df.to_csv(index=False, sep="\t").encode())
    assert not texts(at.error)
    assert studio(at).schema.p == 30
    assert ("the table has 35 columns; only the first 30 modellable ones are modelled by default (v0 .. v29); "
            "5 more are not. Fix: tick 'model' in the schema table") in texts(at.info)
    warns = texts(at.warning)
    assert ("the table has 40 rows, fewer than the release size (512): the synthetic table would hold more "
            "records than the original. Fix: release at most 40 records or use a larger table") in warns
    assert any(w.startswith("the table has only 40 rows (under 1,000)") for w in warns)


def test_make_a_release_is_unseeded_and_the_bundle_holds_no_private_figure():
    at = page()  # XOR-3 built-in
    at.number_input(key="rn_rounds").set_value(2).run()
    at.number_input(key="release:size").set_value(50).run()
    at.toggle(key="designer:use_rho").set_value(True).run()  # the session budget, as ρ
    at.number_input(key="designer:rho").set_value(1e-3).run()
    at.button(key="designer:release:go").click().run()
    assert not at.exception and not texts(at.error), texts(at.error)
    assert "Release made (unseeded, OS entropy, sampler opendp)." in texts(at.success)
    assert INTERNAL_LABEL in texts(at.warning)
    first = at.session_state["designer:release"]
    at.button(key="designer:release:go").click().run()
    second = at.session_state["designer:release"]
    assert first.runs[0].seed is None and second.runs[0].seed is None
    assert not first.runs[0].release.equals(second.runs[0].release)  # two unseeded releases differ
    z = zipfile.ZipFile(io.BytesIO(ds.bundle_zip(second)))
    assert sorted(z.namelist()) == ["bf-soft.csv", "budget.json", "ledger.json", "ledger.txt", "policy.json",
                                    "schema.json"]
    ledger = json.loads(z.read("ledger.json"))
    assert ledger["randomness"] == "unseeded, OS entropy, sampler opendp" and "seeds" not in ledger
    for name in z.namelist():
        text = z.read(name).decode()
        for word in ("hoerr", "pwerr", "n_unique", "seconds", "internal"):
            assert word not in text, (name, word)
