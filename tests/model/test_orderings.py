"""Known orderings of text levels (blowfish_core.model.orderings, issue 24 item 10): month and weekday
names are inferred as ordinal in calendar / week order, by infer_schema and by the CSV intake."""

from __future__ import annotations

import io

import pandas as pd

import blowfish_core as bc
from blowfish_core.io.intake import intake_csv
from blowfish_core.model.orderings import KNOWN_ORDERINGS, known_order

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def test_month_names_in_calendar_order_any_case_and_length():
    shuffled = ["may", "jun", "jul", "aug", "oct", "nov", "dec", "jan", "feb", "mar", "apr", "sep"]  # Bank's
    got = known_order(shuffled)
    assert got is not None and got.levels == MONTHS and got.ordering is KNOWN_ORDERINGS[0]
    assert got.reason == "month names: ordinal in calendar order (jan, feb, ..., dec)"
    assert known_order(["March", "January", "February"]).levels == ("January", "February", "March")
    assert known_order(["DEC", "Sept", "oct"]).levels == ("Sept", "oct", "DEC")
    assert known_order(["Thursday", "mon", "Sun", "tue"]).levels == ("mon", "tue", "Thursday", "Sun")
    # not an ordering: a foreign word, one month spelt twice, or fewer than three levels
    assert known_order(["jan", "feb", "march", "x"]) is None
    assert known_order(["Jan", "january", "feb"]) is None
    assert known_order(["jan", "feb"]) is None


def test_infer_schema_makes_months_ordinal():
    df = pd.DataFrame({"month": ["may", "jan", "dec", "may", "feb"], "job": ["a", "b", "c", "a", "b"]})
    s = bc.infer_schema(df)
    assert s["month"].kind == "ordinal" and list(s["month"].levels) == ["jan", "feb", "may", "dec"]
    assert s["job"].kind == "categorical"


def test_intake_guesses_months_ordinal_and_says_why():
    text = "month;y\n" + "\n".join(f"{m};{'yes' if i % 2 else 'no'}" for i, m in
                                   enumerate(["nov", "apr", "jan", "aug", "apr", "oct"])) + "\n"
    res = intake_csv(io.BytesIO(text.encode()), name="m.csv")
    g = res.guess("month")
    assert g.kind == "ordinal" and g.modelled
    assert g.levels == ("jan", "apr", "aug", "oct", "nov")
    assert g.reason == "5 distinct values, month names: ordinal in calendar order (jan, apr, ..., nov)"
    a = res.schema()["month"]
    assert a.kind == "ordinal" and list(a.levels) == ["jan", "apr", "aug", "oct", "nov"]
