"""Fresh-user trial, engine + CLI fixes: each test fails without its fix.

Items: empty policy refused (or loudly flagged), per-method privacy notion in the
ledger, no division by zero / inf for q = 0, PWErr with one attribute, budget
upper limits, NA-like text kept as text, mostly-numeric text columns, no NaN
intervals, outputs that would overwrite inputs, silently ignored options, the
threshold-H warning, flag-naming write errors, --sep, interface-neutral messages.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from blowfish_core.interfaces.cli import main as cli
from blowfish_core.privacy.accounting import check_epsilon, check_rho, epsilon_exact, rho_from_budget
from blowfish_core.io.data import read_table
from blowfish_core.base.errors import BlowfishError, BudgetError, SchemaError
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.model.policy import AttributePolicy, Policy
from blowfish_core.io.presets import get_preset
from blowfish_core.synthesis.spec import RunRequest, validate_request
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.synthesis.report import ledger_text, summarize
from blowfish_core.model.schema import Attribute, Schema, infer_schema
from blowfish_core.model.votes import check_tau

TINY = SynthConfig(rounds=2, population=[16, 16], release=20)
TINY_ARGS = ["--rounds", "2", "--population", "16x2", "--release", "20", "--quiet"]
XOR = get_preset("xor3")


def run_cli(argv, capsys):
    code = cli.main(argv)
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out


def xor_request(policy: Policy, methods, **kw) -> RunRequest:
    return RunRequest(XOR.schema, policy, XOR.generator(120, 0), list(methods), rho=1.0, tau=0.03,
                      seeds=kw.pop("seeds", [0]), config=kw.pop("config", TINY), metric=XOR.metric_fn(), **kw)


# ------------------------------------------------------------------ 1. empty policy
@pytest.mark.parametrize("methods", [["hard"], ["bf-soft"], ["soft-hard-noise"], ["tab-pe", "hard"]])
def test_empty_policy_refused_before_any_work(methods):
    req = xor_request(Policy(), methods)
    with pytest.raises(BlowfishError, match="the policy protects nothing: every policy-aware method .* would release noise-free"):
        validate_request(req)
    # threshold 0 and a participation-free policy are empty too
    zero = Policy({"X_1": AttributePolicy("threshold", theta=0)})
    with pytest.raises(BlowfishError, match="allow_empty_policy"):
        run_paired(xor_request(zero, methods))


def test_empty_policy_fine_for_tab_pe_and_with_participation():
    validate_request(xor_request(Policy(), ["tab-pe"]))
    validate_request(xor_request(Policy(participation=True), ["hard"]))


def test_empty_policy_allowed_is_loud_in_report_and_ledger():
    out = run_paired(xor_request(Policy(), ["tab-pe", "hard"], allow_empty_policy=True))
    rep = out.report
    assert rep["blowfish_protection"] is False
    assert any(w.startswith("NO BLOWFISH PROTECTION") for w in rep["warnings"])
    text = ledger_text(rep)
    assert "Hard: NO PROTECTION" in text and "WARNING: NO BLOWFISH PROTECTION" in text
    assert "Tab-PE: standard (bounded) DP" in text
    json.dumps(rep, allow_nan=False)


def test_cli_empty_policy(tmp_path, capsys):
    base = ["synth", "--preset", "xor3", "--protect", "X_1=none", "--method", "hard", "--rho", "1",
            "--out", str(tmp_path / "o.csv"), *TINY_ARGS]
    code, out = run_cli(base, capsys)
    assert code == 2 and "--allow-empty-policy" in out.err and not (tmp_path / "o.csv").exists()
    code, out = run_cli(base + ["--allow-empty-policy"], capsys)
    assert code == 0 and "NO BLOWFISH PROTECTION" in out.out


# ------------------------------------------------------------------ 2. ledger wording per method
def test_ledger_says_tab_pe_is_standard_dp():
    rep = run_paired(xor_request(XOR.default_policy(), ["tab-pe", "hard"])).report
    text = ledger_text(rep)
    assert "Tab-PE: standard (bounded) DP" in text
    assert "Hard: Blowfish DP for the policy" in text
    assert rep["method_notions"]["tab-pe"].startswith("standard (bounded) DP")
    only_tab = ledger_text(run_paired(xor_request(XOR.default_policy(), ["tab-pe"])).report)
    assert "Blowfish" not in only_tab.split("Policy:")[0]


# ------------------------------------------------------------------ 3. q = 0, p = 1, budget limits
def test_reach_q_zero_no_division(capsys):
    code, out = run_cli(["reach", "--preset", "adult", "--protect", "age=none", "--tau", "0.03"], capsys)
    assert code == 0 and "q = 0: BF-Soft adds no noise" in out.out and "inf" not in out.out


def test_reach_huge_tau_no_inf(capsys):
    code, out = run_cli(["reach", "--preset", "adult", "--tau", "1e300"], capsys)
    assert code == 0 and "inf" not in out.out and "more than 1e300x" in out.out


def test_pwerr_one_attribute_is_skipped_with_a_note(tmp_path):
    """Issue 27: one modelled column runs; PWErr (pairs of columns) is skipped with a note, never a refusal."""
    s = Schema([Attribute("age", "numeric", lo=0, hi=99)])
    req = RunRequest(s, Policy(), pd.DataFrame({"age": [30, 40, 50]}), ["tab-pe"], rho=1.0, config=TINY, seeds=[0])
    validate_request(req)  # no refusal
    res = run_paired(req)
    assert res.metric_note == "PWErr needs two modelled columns; skipped"
    assert res.report["metric"]["skipped"] == res.metric_note and res.report["runs"][0]["pwerr"] is None
    assert res.report["summary"] == {"per_method": {}, "note": res.metric_note}
    json.dumps(res.report, allow_nan=False)  # no NaN in the report


def test_budget_upper_limits():
    with pytest.raises(BudgetError, match=r"rho must be <= 1e\+08; larger budgets are numerically meaningless"):
        check_rho(5e307)
    with pytest.raises(BudgetError, match="epsilon must be <= 10000"):
        check_epsilon(1e308)
    with pytest.raises(BudgetError, match="epsilon must be <= 10000"):
        rho_from_budget(epsilon=1e308, delta=1e-5)
    assert check_rho(1e6) == 1e6 and check_rho(1e8) == 1e8
    assert 1e6 < epsilon_exact(1e6, 1e-5) < 1.01e6
    assert rho_from_budget(epsilon=1e4, delta=1e-5) > 0


# ------------------------------------------------------------------ 4. NA-like text stays text
def test_na_markers_stay_text():
    df = read_table(b"age,job\n30,NA\n31,None\n32,null\n33,nan\n34,N/A\n35,\n")
    assert df["job"].tolist()[:5] == ["NA", "None", "null", "nan", "N/A"]
    assert df["job"].isna().tolist() == [False] * 5 + [True]


def test_na_text_in_numeric_column_named():
    df = read_table(b"age,hours\n30,40\n31,NA\n")
    s = Schema([Attribute("age", "numeric", lo=0, hi=99), Attribute("hours", "numeric", lo=0, hi=99)])
    with pytest.raises(SchemaError, match=r"column 'hours': 1 row\(s\) are not numbers \(e.g. 'NA'\)"):
        s.encode(df)


# ------------------------------------------------------------------ 5. mostly-numeric columns
def test_mostly_numeric_column_is_an_error():
    df = read_table(b"age,job\n30,a\nthirty,b\n32,c\n")
    with pytest.raises(SchemaError, match=r"column 'age' is mostly numbers but 1 value\(s\) are not \(e.g. \['thirty'\]\)"):
        infer_schema(df)
    # half numbers is still "mostly"; a minority stays categorical
    with pytest.raises(SchemaError, match="column 'c'"):
        infer_schema(pd.DataFrame({"c": ["1", "x"]}))
    s = infer_schema(pd.DataFrame({"c": ["1", "x", "y"]}))
    assert s["c"].kind == "categorical"


# ------------------------------------------------------------------ 6. no NaN intervals
def test_one_seed_interval_is_null_and_errors_clipped():
    runs = [{"method": "hard", "seed": 0, "e": 0.3}, {"method": "bf-soft", "seed": 0, "e": 0.2}]
    s = summarize(runs, "e", ["hard", "bf-soft"])
    assert s["per_method"]["hard"]["ci95"] == [None, None]
    assert s["relative_reduction_bf_soft_vs_hard"]["ci95"] == [None, None]
    json.dumps(s, allow_nan=False)
    runs = [{"method": "hard", "seed": k, "e": v} for k, v in enumerate([0.0, 0.0, 0.3])]
    lo, hi = summarize(runs, "e", ["hard"])["per_method"]["hard"]["ci95"]
    assert lo == 0.0 and hi > 0.3


def test_cli_one_seed_prints_na(tmp_path, capsys):
    code, out = run_cli(["synth", "--preset", "xor3", "--method", "hard", "--rho", "1",
                         "--out", str(tmp_path / "o.csv"), "--report", str(tmp_path / "r.json"), *TINY_ARGS], capsys)
    assert code == 0 and "n/a (needs >= 2 seeds)" in out.out and "nan" not in out.out
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["summary"]["per_method"]["hard"]["ci95"] == [None, None]


# ------------------------------------------------------------------ 7. outputs over inputs
def test_out_over_data_refused(tmp_path, capsys):
    data = tmp_path / "d.csv"
    XOR.generator(50, 0).to_csv(data, index=False)
    before = data.read_bytes()
    schema = tmp_path / "s.json"
    schema.write_text(XOR.schema.to_json())
    base = ["synth", "--data", str(data), "--schema", str(schema), "--method", "tab-pe", "--rho", "1", *TINY_ARGS]
    code, out = run_cli(base + ["--out", str(data)], capsys)
    assert code == 2 and "--out would overwrite the input table" in out.err
    code, out = run_cli(base + ["--out", str(tmp_path / "o.csv"), "--report", str(schema)], capsys)
    assert code == 2 and "--report would overwrite the input schema file" in out.err
    code, out = run_cli(base + ["--out", str(tmp_path / "o.csv"), "--out-dir", str(tmp_path),
                                "--report", str(tmp_path / "tab-pe.csv")], capsys)  # unseeded: <method>.csv
    assert code == 2 and "--out-dir would overwrite --report" in out.err
    code, out = run_cli(["schema", "--data", str(data), "--out", str(data)], capsys)
    assert code == 2 and "--out would overwrite the input table" in out.err
    assert data.read_bytes() == before


# ------------------------------------------------------------------ 8. ignored options, schema keys, seeds
@pytest.mark.parametrize("extra, flag", [
    (["--preset", "xor3", "--split-seed", "3"], "--split-seed"),
    (["--preset", "adult", "--n", "50"], "--n"),
    (["--preset", "adult", "--data-seed", "2"], "--data-seed"),
])
def test_ignored_options_are_errors(tmp_path, capsys, extra, flag):
    code, out = run_cli(["synth", *extra, "--method", "hard", "--rho", "1", "--out", str(tmp_path / "o.csv"),
                         *TINY_ARGS], capsys)
    assert code == 2 and out.err.startswith(f"error: {flag} only applies")


def test_xor_with_data_rejects_n(tmp_path, capsys):
    data = tmp_path / "d.csv"
    XOR.generator(50, 0).to_csv(data, index=False)
    code, out = run_cli(["synth", "--preset", "xor3", "--data", str(data), "--n", "10", "--method", "hard",
                         "--rho", "1", "--out", str(tmp_path / "o.csv"), *TINY_ARGS], capsys)
    assert code == 2 and "--n only applies" in out.err


def test_schema_unknown_top_level_key():
    d = XOR.schema.to_dict()
    d["data_derivd"] = True
    with pytest.raises(SchemaError, match=r"unknown top-level key\(s\) \['data_derivd'\]"):
        Schema.from_dict(d)


@pytest.mark.parametrize("seeds", ["0,,1", "0,", ",1"])
def test_empty_seed_entry(tmp_path, capsys, seeds):
    code, out = run_cli(["synth", "--preset", "xor3", "--method", "hard", "--rho", "1", "--seeds", seeds,
                         "--out", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and "--seeds: an empty entry" in out.err


# ------------------------------------------------------------------ 9. threshold H warnings
def test_threshold_h_no_survivors_warned(tmp_path, capsys):
    rep = run_paired(xor_request(XOR.default_policy(), ["hard"],
                                 config=SynthConfig(rounds=2, population=[16, 16], release=20, threshold_h=1e9))).report
    assert any("no candidate survived the threshold H" in w and "parents" in w for w in rep["warnings"])
    notes = rep["runs"][0]["rounds"][0]["notes"]
    assert any("parents drawn uniformly" in n for n in notes)
    code, out = run_cli(["synth", "--preset", "xor3", "--method", "hard", "--rho", "1", "--threshold-h", "1e9",
                         "--out", str(tmp_path / "o.csv"), *TINY_ARGS], capsys)
    assert code == 0 and "WARNING: hard: no candidate survived" in out.out  # unseeded run: no seed to name


def test_no_warnings_normally():
    # a normal setting: the release at most half the last population (TINY's 20 of 16 is warned about)
    normal = SynthConfig(rounds=2, population=[16, 16], release=8)
    rep = run_paired(xor_request(XOR.default_policy(), ["hard"], config=normal)).report
    assert rep["warnings"] == []


# ------------------------------------------------------------------ 10. messages
def test_write_error_names_flag(tmp_path, capsys):
    code, out = run_cli(["synth", "--preset", "xor3", "--method", "hard", "--rho", "1",
                         "--out", "/proc/blowfish_x.csv", *TINY_ARGS], capsys)
    assert code == 2 and out.err.startswith("error: --out: cannot write /proc/blowfish_x.csv")


def test_sep_flag_and_semicolon_message(tmp_path, capsys):
    p = tmp_path / "semi.csv"
    p.write_bytes(b"a;b;c\n1;x;2\n3;y;4\n")
    code, out = run_cli(["schema", "--data", str(p)], capsys)  # issue 11: the intake detects ';' and says so
    assert code == 0 and "separator semicolon (detected)" in out.err and '"name": "b"' in out.out
    code, out = run_cli(["schema", "--data", str(p), "--sep", ";"], capsys)
    assert code == 0 and '"name": "b"' in out.out
    with pytest.raises(BlowfishError, match="semicolon separator") as e:
        read_table(p.read_bytes())
    assert "--sep" not in str(e.value)  # engine message is interface-neutral


def test_engine_messages_interface_neutral():
    with pytest.raises(BudgetError) as e:
        check_tau(0)
    assert "--" not in str(e.value) and "positive temperature such as 0.03" in str(e.value)
    with pytest.raises(BudgetError) as e:
        check_rho(-1)
    assert "--" not in str(e.value)


def test_negative_population(tmp_path, capsys):
    base = ["synth", "--preset", "xor3", "--method", "hard", "--rho", "1", "--rounds", "8",
            "--out", str(tmp_path / "o.csv")]
    code, out = run_cli(base + ["--population", "-5x8"], capsys)
    assert code == 2 and "--option=VALUE" in out.err
    code, out = run_cli(base + ["--population=-5x8"], capsys)
    assert code == 2 and "--population: '-5x8': sizes and repeat counts must be whole numbers >= 1" in out.err
    code, out = run_cli(base + ["--population", "0x8"], capsys)
    assert code == 2 and ">= 1" in out.err
