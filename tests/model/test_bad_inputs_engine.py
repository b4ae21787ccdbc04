"""Bad-input catalogue, engine and CLI part (issue 7).

Every item gives either the correct result or a clear error (a BlowfishError
subclass, or CLI exit 2 with one 'error: ...' line) naming the problem -- never a
traceback, never a NaN.  Messages are asserted by substring.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from blowfish_core.interfaces.cli import main as cli
from blowfish_core.privacy.accounting import PrivacyLedger, gaussian_sigma
from blowfish_core.io.data import DEFAULT_MAX_BYTES, read_table
from blowfish_core.base.errors import BudgetError, DataError, PolicyError, SchemaError
from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis
from blowfish_core.model.policy import AttributePolicy, Policy, record_edge_count, record_reach
from blowfish_core.io.presets import get_preset
from blowfish_core.synthesis.spec import RunRequest
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.model.schema import Attribute, Schema, infer_schema
from blowfish_core.model.sensitivity import SQRT2, hard_sensitivity, noise_ratio, soft_bound
from blowfish_core.algorithm.methods import calibrate
from blowfish_core.model.votes import vote_histogram, vote_vectors

TINY = SynthConfig(rounds=2, population=[16, 16], release=20)
ADULT = get_preset("adult")
XOR = get_preset("xor3")


def xor_data(n: int = 200) -> pd.DataFrame:
    return XOR.generator(n, 0)


def run_cli(argv, capsys):
    code = cli.main(argv)
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out


def no_nan_report(report: dict) -> None:
    json.dumps(report, allow_nan=False)  # raises ValueError on NaN/inf anywhere


# ------------------------------------------------------------------ files
def test_empty_file(tmp_path, capsys):
    with pytest.raises(DataError, match="the file is empty"):
        read_table(b"")
    with pytest.raises(DataError, match="the file is empty"):
        read_table(b"  \n\n")
    p = tmp_path / "empty.csv"
    p.write_bytes(b"")
    code, out = run_cli(["schema", "--data", str(p)], capsys)
    assert code == 2 and out.err.startswith("error: ") and "empty.csv: the file is empty" in out.err


def test_header_only(tmp_path, capsys):
    with pytest.raises(DataError, match="has a header but no data rows"):
        read_table(b"age,workclass\n")
    p = tmp_path / "h.csv"
    p.write_bytes(b"age,workclass\n\n")
    code, out = run_cli(["schema", "--data", str(p)], capsys)
    assert code == 2 and "header but no data rows" in out.err


def test_wrong_delimiter_semicolon(tmp_path, capsys):
    raw = b"age;workclass;income\n39;State-gov;<=50K\n"
    with pytest.raises(DataError, match="the file looks ';'-separated: choose the semicolon separator"):
        read_table(raw)
    # with the right separator it reads
    assert read_table(raw, sep=";").shape == (1, 3)
    p = tmp_path / "semi.csv"
    p.write_bytes(raw)
    code, out = run_cli(["schema", "--data", str(p)], capsys)  # issue 11: the CLI's intake detects ';'
    assert code == 0 and "separator semicolon (detected)" in out.err


def test_non_utf8_bytes():
    raw = "name,city\nJos\u00e9,M\u00e1laga\n".encode("latin-1")
    with pytest.raises(DataError) as ei:  # the line (spreadsheet row) and a fix (issue 15g, finding 14)
        read_table(raw)
    assert str(ei.value) == ("uploaded file: not UTF-8 text (byte 0xe9 on line 2). Fix: save the file as UTF-8 CSV "
                             "(in a spreadsheet: Save as > CSV UTF-8; on the command line: "
                             "iconv -f latin1 -t utf-8 old.csv > new.csv)")
    # a UTF-8 BOM is fine
    assert list(read_table(b"\xef\xbb\xbfa,b\n1,2\n").columns) == ["a", "b"]


def test_200mb_file_refused_before_reading(tmp_path, capsys):
    p = tmp_path / "big.csv"
    with open(p, "wb") as f:
        f.truncate(200 * 2**20)  # sparse: no 200 MB of real data
    with pytest.raises(DataError) as ei:
        read_table(str(p))
    msg = str(ei.value)
    assert "200.0 MB" in msg and f"{DEFAULT_MAX_BYTES // 2**20} MB limit" in msg and "it was not read" in msg
    # the command line has no size cap (the limit is the app's upload limit; docs/DECISIONS.md, issue 15g):
    # it reads the file and finds what is wrong with it
    code, out = run_cli(["schema", "--data", str(p)], capsys)
    assert code == 2 and "limit" not in out.err and "contains NUL bytes" in out.err


def test_upload_object_refused_by_size_without_reading():
    class Upload(io.BytesIO):  # like Streamlit's UploadedFile: has .size
        size = 200 * 2**20

        def read(self, *a):  # pragma: no cover - must not be called
            raise AssertionError("read() called on an oversized upload")

    with pytest.raises(DataError, match=r"200\.0 MB is larger than the 100 MB limit"):
        read_table(Upload(), name="upload.csv")


def test_duplicate_column_names():
    with pytest.raises(DataError, match=r"duplicate column names \['a'\]"):
        read_table(b"a,b,a\n1,2,3\n")
    with pytest.raises(DataError, match=r"duplicate column names \['a'\]"):
        read_table(b"a, a\n1,2\n")  # equal after stripping spaces
    df = pd.DataFrame([[1, 2]], columns=["x", "x"])
    s = Schema([Attribute("x", "numeric", lo=0, hi=5)])
    with pytest.raises(SchemaError, match=r"duplicate column names \['x'\]"):
        s.encode(df)
    with pytest.raises(SchemaError, match=r"duplicate column names \['x'\]"):
        infer_schema(df)


# ---------------------------------------------------------------- columns
def test_all_missing_column():
    df = read_table(b"a,b\n1,\n2,\n")
    with pytest.raises(SchemaError, match="column 'b' is entirely missing. Fix: drop it"):
        infer_schema(df)
    num = Schema([Attribute("a", "numeric", lo=0, hi=5), Attribute("b", "numeric", lo=0, hi=5)])
    with pytest.raises(SchemaError, match=r"column 'b': 2 row\(s\) are missing"):
        num.encode(df)
    cat = Schema([Attribute("a", "numeric", lo=0, hi=5), Attribute("b", "categorical", levels=["u", "v"])])
    with pytest.raises(SchemaError, match=r"column 'b': 2 row\(s\) are missing.*declare the missing marker"):
        cat.encode(df)
    assert infer_schema(df, columns=["a"]).names == ["a"]


def test_single_distinct_value_infers_valid_schema_and_synthesizes():
    df = pd.DataFrame({"a": [3, 3, 3, 3], "b": ["x", "x", "x", "x"]})
    s = infer_schema(df)
    assert s["a"].kind == "numeric" and (s["a"].lo, s["a"].hi) == (3.0, 4.0) and s["a"].integer
    assert s["b"].kind == "categorical" and s["b"].levels == ["x"]
    assert s.data_derived and s.domain_warning()
    pol = Policy({"a": AttributePolicy("threshold", theta=1)})
    out = run_paired(RunRequest(s, pol, df, ["tab-pe", "hard", "bf-soft"], 0.1, tau=0.03, seeds=[0], config=TINY))
    no_nan_report(out.report)
    for rel in out.releases.values():
        assert len(rel) == 20 and set(rel["b"]) == {"x"} and set(rel["a"]) <= {3, 4}


def test_nan_in_numeric_column_names_the_column():
    # only empty cells are missing; the text "NaN" is a value -> "not numbers" naming the column
    df = read_table(b"age,hours\n30,NaN\n40,12\n")
    s = Schema([Attribute("age", "numeric", lo=0, hi=99), Attribute("hours", "numeric", lo=0, hi=99)])
    with pytest.raises(SchemaError, match=r"column 'hours': 1 row\(s\) are not numbers \(e.g. 'NaN'\)"):
        s.encode(df)
    df = read_table(b"age,hours\n30,\n40,12\n")
    with pytest.raises(SchemaError, match=r"column 'hours': 1 row\(s\) are missing \(empty cells or NaN\)"):
        s.encode(df)


def test_infinity_in_numeric_column_names_the_column():
    df = read_table(b"age,hours\n30,inf\n40,-inf\n50,1\n")
    s = Schema([Attribute("age", "numeric", lo=0, hi=99), Attribute("hours", "numeric", lo=0, hi=99)])
    with pytest.raises(SchemaError, match=r"column 'hours': 2 row\(s\) are infinite \(inf or -inf\)"):
        s.encode(df)
    with pytest.raises(SchemaError, match=r"column 'hours' contains 2 infinite value\(s\)"):
        infer_schema(df)


def test_categories_with_leading_or_trailing_spaces():
    wc = ADULT.schema["workclass"]
    with pytest.raises(SchemaError) as ei:
        wc.encode_series(pd.Series([" Private", "Private", "State-gov "]))
    msg = str(ei.value)
    assert "column 'workclass'" in msg and "leading/trailing spaces" in msg
    assert "' Private'" in msg and "strip" in msg
    # a category that is wrong even after stripping gets the plain message
    with pytest.raises(SchemaError, match=r"1 row\(s\) have categories outside the declared public domain "
                                          r"\(e\.g\. \['Unknown-gov'\]\)"):
        wc.encode_series(pd.Series(["Unknown-gov", "Private"]))


def test_question_mark_missing_marker_adult():
    wc = ADULT.schema["workclass"]
    codes = wc.encode_series(pd.Series(["?", "Private", "?"]))
    assert codes.tolist() == [wc.levels.index("?"), 0.0, wc.levels.index("?")]
    with pytest.raises(SchemaError) as ei:
        ADULT.schema["age"].encode_series(pd.Series(["?", "30", "41"]))
    msg = str(ei.value)
    assert "column 'age': 1 row(s) are not numbers (e.g. '?')" in msg and "missing-value marker" in msg


def test_question_mark_in_real_adult_table(adult_path):
    df = read_table(adult_path)
    assert (df["workclass"] == "?").sum() > 0
    X = ADULT.schema.encode(df)
    assert X.shape == (len(df), 5) and np.isfinite(X).all()


def test_values_outside_declared_domain_count_and_column():
    with pytest.raises(SchemaError, match=r"column 'age': 2 row\(s\) lie outside the declared public domain "
                                          r"\[17, 90\] \(e\.g\. 10\)"):
        ADULT.schema["age"].encode_series(pd.Series([10, 30, 200]))
    with pytest.raises(SchemaError, match=r"column 'education.num': 1 row\(s\) have categories outside"):
        ADULT.schema["education.num"].encode_series(pd.Series([3, 17]))


# ------------------------------------------------------------------ policy
def test_policy_naming_unknown_attribute(capsys):
    with pytest.raises(PolicyError, match="policy names unknown attribute 'salary'. Known attributes: age"):
        Policy({"salary": AttributePolicy("threshold", theta=5)}).validate(ADULT.schema)
    with pytest.raises(PolicyError, match="unknown attribute 'salary'"):
        ADULT.policy_with(["salary"])
    code, out = run_cli(["reach", "--preset", "adult", "--protect", "salary=threshold:5"], capsys)
    assert code == 2 and "unknown attribute 'salary'" in out.err


@pytest.mark.parametrize("policy", [Policy(), Policy({"X_1": AttributePolicy("threshold", theta=0)})],
                         ids=["no-policy", "theta-0"])
def test_empty_record_level_edge_set(policy):
    s = XOR.schema
    assert record_edge_count(s, policy) == 0 and record_reach(s, policy) == 0.0
    C = s.sample_uniform(np.random.default_rng(0), 16)
    hard = hard_sensitivity(s, policy, C)
    assert (hard.sensitivity, hard.how) == (0.0, "exhaustive-zero")
    soft = calibrate("bf-soft", s, policy, 0.03, C=C)
    assert soft.sensitivity == 0.0 and gaussian_sigma(soft.sensitivity, 0.1) == 0.0
    X = s.encode(xor_data())
    for m in ("hard", "bf-soft"):
        res = run_synthesis(s, X, policy, m, 0.1, tau=0.03, config=TINY, seed=0)
        assert all(r.sigma_t == 0.0 and r.sensitivity == 0.0 for r in res.rounds)
        assert np.isfinite(res.release).all() and res.release.shape == (20, 4)


def test_tau_tiny_soft_vote_is_hard_vote_and_q_is_one():
    s = XOR.schema
    C = s.sample_uniform(np.random.default_rng(0), 8)
    X = s.encode(xor_data(50))
    V = vote_vectors(s, C, X, vote="soft", tau=1e-9)
    H = vote_vectors(s, C, X, vote="hard")
    assert np.isfinite(V).all()
    D = np.abs(X[:, None, :] - C[None, :, :]) @ s.weights  # ordinal/binary codes: Gower = weighted |diff|
    unique_nn = (np.sort(D, axis=1)[:, 1] - D.min(axis=1)) > 1e-6
    assert unique_nn.any()
    np.testing.assert_array_equal(V[unique_nn], H[unique_nn])
    np.testing.assert_allclose(V.sum(axis=1), 1.0)
    assert noise_ratio(1 / 28, 1e-9) == 1.0 and soft_bound(1 / 28, 1e-9) == SQRT2
    res = run_synthesis(s, X, XOR.default_policy(), "bf-soft", 0.1, tau=1e-9, config=TINY, seed=0)
    assert all(r.sensitivity == SQRT2 for r in res.rounds) and np.isfinite(res.release).all()


def test_tau_huge_soft_vote_is_uniform_and_q_tends_to_zero():
    s = XOR.schema
    C = s.sample_uniform(np.random.default_rng(0), 8)
    X = s.encode(xor_data(50))
    V = vote_vectors(s, C, X, vote="soft", tau=1e9)
    np.testing.assert_allclose(V, 1 / 8, atol=1e-9)
    Hs = vote_histogram(s, C, X, vote="soft", tau=1e9)
    np.testing.assert_allclose(Hs, 50 / 8, rtol=1e-9)
    q = noise_ratio(1 / 28, 1e9)
    assert q == pytest.approx((1 / 28) / 2e9, rel=1e-9)
    res = run_synthesis(s, X, XOR.default_policy(), "bf-soft", 0.1, tau=1e9, config=TINY, seed=0)
    assert all(0 < r.sigma_t < 1e-9 for r in res.rounds) and np.isfinite(res.release).all()


@pytest.mark.parametrize("rho", [1e-9, 1e6])
def test_extreme_rho_no_nan(rho):
    led = PrivacyLedger.from_budget(rho=rho, delta=1e-5, rounds=2)
    assert all(math.isfinite(v) and v > 0 for v in (led.epsilon_eq1, led.epsilon_exact))
    assert led.epsilon_exact <= led.epsilon_eq1
    out = run_paired(RunRequest(XOR.schema, XOR.default_policy(), xor_data(), ["tab-pe", "hard", "bf-soft"],
                                rho, tau=0.03, seeds=[0, 1], config=TINY, metric=XOR.metric_fn()))
    no_nan_report(out.report)
    for r in out.report["runs"]:
        for rd in r["rounds"]:
            assert rd["sigma_t"] == pytest.approx(rd["sensitivity_t"] / math.sqrt(2 * rho / 2), rel=1e-12)
    for rel in out.releases.values():
        assert len(rel) == 20 and not rel.isna().any().any()


def test_bad_rho_and_tau_are_budget_errors():
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(BudgetError, match="rho"):
            PrivacyLedger.from_budget(rho=bad, delta=1e-5, rounds=2)
        with pytest.raises(BudgetError, match="tau must be a finite number > 0"):
            noise_ratio(0.1, bad)


def test_one_private_record():
    df = xor_data(1)
    out = run_paired(RunRequest(XOR.schema, XOR.default_policy(), df, ["tab-pe", "hard", "bf-soft"], 0.1,
                                tau=0.03, seeds=[0, 1], config=TINY, metric=XOR.metric_fn()))
    assert out.report["n_private"] == 1
    no_nan_report(out.report)
    assert all(len(rel) == 20 for rel in out.releases.values())


def test_more_candidates_than_records():
    df = xor_data(5)
    cfg = SynthConfig(rounds=2, population=[64, 64], release=20)
    X = XOR.schema.encode(df)
    C = XOR.schema.sample_uniform(np.random.default_rng(0), 64)
    H = vote_histogram(XOR.schema, C, X, vote="soft", tau=0.03)
    assert H.shape == (64,) and H.sum() == pytest.approx(5.0)
    out = run_paired(RunRequest(XOR.schema, XOR.default_policy(), df, ["hard", "bf-soft"], 0.1, tau=0.03,
                                seeds=[0], config=cfg, metric=XOR.metric_fn()))
    no_nan_report(out.report)
    assert all(rd["candidates"] == 64 for r in out.report["runs"] for rd in r["rounds"])


def test_cli_bad_budget_and_method_are_one_line_errors(capsys):
    base = ["synth", "--preset", "xor3", "--n", "100", "--out", "/nonexistent-never-written/x.csv"]
    code, out = run_cli(base + ["--rho", "0"], capsys)
    assert code == 2 and "rho" in out.err and out.err.count("\n") == 1
    code, out = run_cli(base + ["--rho", "0.1", "--method", "magic"], capsys)
    assert code == 2 and "unknown method 'magic'" in out.err
    code, out = run_cli(base + ["--rho", "0.1", "--method", "bf-soft"], capsys)
    assert code == 2 and "--tau is required" in out.err


def test_conversion_with_rho_is_refused_not_ignored(tmp_path, capsys):
    """--conversion converts epsilon; with --rho it would be silently ignored, so it is refused (CLI and API)."""
    code = cli.main(["synth", "--preset", "xor3", "--n", "3000", "--rho", "1", "--conversion", "eq1",
                     "--seeds", "0", "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert "--conversion eq1 converts --epsilon to rho; with --rho there is nothing to convert. " \
           "Fix: drop --conversion" in err
    assert not (tmp_path / "o.csv").exists()
    from blowfish_core.base.errors import BlowfishError
    from blowfish_core.synthesis.parsing import parse_budget

    with pytest.raises(BlowfishError, match=r"^conversion eq1 converts epsilon to rho; with rho there is nothing"):
        parse_budget(1.0, None, None, "gaussian", "eq1", flags=False)
    # the default (None) with rho, and any conversion with epsilon, still work
    assert parse_budget(1.0).rho == 1.0
    assert parse_budget(None, 1.0, 1e-5, "gaussian", "eq1").source == "epsilon=1, delta=1e-05 via eq1"


def test_protect_same_attribute_twice_is_refused(capsys):
    """Two --protect items for one attribute: the later would win silently, so both are named and refused."""
    code = cli.main(["reach", "--preset", "adult", "--protect", "age=threshold:3", "--protect", "age=threshold:5"])
    err = capsys.readouterr().err
    assert code == 2
    assert ("--protect names an attribute more than once (age: age=threshold:3, age=threshold:5). "
            "Fix: give each attribute once") in err


@pytest.mark.parametrize("flags,mech", [(["--mechanism", "laplace", "--conversion", "exact"], "laplace"),
                                        (["--noise", "pubmix", "--conversion", "eq1"], "pubmix")])
def test_conversion_with_a_non_gaussian_budget_is_refused(tmp_path, capsys, flags, mech):
    """Laplace (pure epsilon) and PubMix ((epsilon, delta), PLD) take epsilon as it is: a conversion is refused."""
    code = cli.main(["synth", "--preset", "xor3", "--n", "3000", "--epsilon", "1", "--seeds", "0",
                     "--out", str(tmp_path / "o.csv"), *flags])
    err = capsys.readouterr().err
    assert code == 2
    assert (f"--conversion {flags[-1]} converts a Gaussian (zCDP) budget; {mech} takes --epsilon as it is. "
            "Fix: drop --conversion") in err
