"""Algorithm 1 end to end: the CLI report contract, the privacy ledger, calibration per method,
paired random streams, released CSV formats, progress callback and degenerate inputs
(paper Algorithm 1, Cor. 5.3, Cor. 5.5, Thm 2.6; DESIGN §3, §7)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from blowfish_core import get_preset
from blowfish_core.privacy.accounting import epsilon_eq1, epsilon_exact, rho_from_budget
from blowfish_core.interfaces.cli.main import main
from blowfish_core.io.data import read_table
from blowfish_core.algorithm.events import RoundEvent
from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis
from blowfish_core.model.policy import AttributePolicy, Policy
from blowfish_core.io.presets import load_preset_data
from blowfish_core.synthesis.experiment import RunRequest, run_paired
from blowfish_core.model.schema import Attribute, Schema, infer_schema
from blowfish_core.model.sensitivity import SOFT_BOUND_PAD, SQRT2
from blowfish_core.privacy.mechanisms import get_mechanism

CALIBRATIONS = {"global", "bound", "certified-crossing", "exhaustive-zero", "fallback"}
TINY = ["--n", "300", "--rounds", "2", "--population", "32x2", "--release", "50", "--quiet"]
TAU = 0.03
RHO = 0.01


@pytest.fixture(scope="module")
def xor_run(tmp_path_factory):
    """One CLI run on XOR-3: three methods, two paired seeds; returns (report, out, out_dir)."""
    d = tmp_path_factory.mktemp("xor")
    out, rep, out_dir = d / "synth.csv", d / "report.json", d / "all"
    rc = main(["synth", "--preset", "xor3", "--method", "tab-pe,hard,bf-soft", "--tau", str(TAU),
               "--rho", str(RHO), "--seeds", "0,1", "--out", str(out), "--report", str(rep),
               "--out-dir", str(out_dir), *TINY])
    assert rc == 0
    return json.loads(rep.read_text()), out, out_dir


def xor_data(n: int = 300):
    p = get_preset("xor3")
    split = load_preset_data(p, n=n, data_seed=0)
    return p, p.schema.encode(split.private)


# ------------------------------------------------------------------ report contract


def test_report_contract_keys(xor_run):
    rep, _, _ = xor_run
    assert {"reach", "noise_ratio_q", "privacy", "runs"} <= set(rep)
    assert {"rho", "delta", "epsilon_eq1", "epsilon_exact"} <= set(rep["privacy"])
    assert len(rep["runs"]) == 6
    assert [(r["method"], r["seed"]) for r in rep["runs"]] == [
        (m, s) for s in (0, 1) for m in ("tab-pe", "hard", "bf-soft")]
    for run in rep["runs"]:
        assert {"method", "seed", "hoerr", "seconds", "rounds"} <= set(run)
        assert 0.0 <= run["hoerr"] <= 2.0
        assert run["seconds"] >= 0
        assert [r["t"] for r in run["rounds"]] == [1, 2]
        for r in run["rounds"]:
            assert {"t", "rho_t", "sensitivity_t", "sigma_t", "calibration"} <= set(r)
            assert r["calibration"] in CALIBRATIONS


def test_report_reach_q_and_privacy(xor_run):
    rep, _, _ = xor_run
    assert rep["reach"] == pytest.approx(1 / 28, rel=1e-12)
    assert rep["noise_ratio_q"] == pytest.approx(math.tanh((1 / 28) / (2 * TAU)), rel=1e-12)
    p = rep["privacy"]
    assert p["rho"] == RHO and p["delta"] == 1e-5
    assert p["epsilon_eq1"] == pytest.approx(RHO + 2 * math.sqrt(RHO * math.log(1e5)), rel=1e-12)
    assert p["epsilon_exact"] == pytest.approx(epsilon_exact(RHO, 1e-5), rel=1e-12)
    assert p["epsilon_exact"] < p["epsilon_eq1"]
    assert rep["domain_warning"] is None


def test_ledger_sigma_and_budget_split(xor_run):
    rep, _, _ = xor_run
    for run in rep["runs"]:
        for r in run["rounds"]:
            expected = 0.0 if r["sensitivity_t"] == 0 else r["sensitivity_t"] / math.sqrt(2 * r["rho_t"])
            assert r["sigma_t"] == expected  # Thm 2.6: sigma_t^2 = Delta_t^2 / (2 rho_t), exactly
        assert math.fsum(r["rho_t"] for r in run["rounds"]) == pytest.approx(RHO, rel=1e-14)


def test_calibration_per_method(xor_run):
    rep, _, _ = xor_run
    bound = SQRT2 * math.tanh((1 / 28) / (2 * TAU)) * (1 + SOFT_BOUND_PAD)  # Cor. 5.5, float64 pad
    for run in rep["runs"]:
        for r in run["rounds"]:
            if run["method"] == "tab-pe":
                assert (r["calibration"], r["sensitivity_t"]) == ("global", SQRT2)
            elif run["method"] == "bf-soft":
                assert r["calibration"] == "bound"
                assert r["sensitivity_t"] == pytest.approx(bound, rel=1e-15)
                assert r["sensitivity_t"] == pytest.approx(rep["sensitivity_bound"], rel=1e-15)
            else:  # XOR-3 is small enough (896 record-level edges) to be certified either way
                assert r["calibration"] in ("certified-crossing", "exhaustive-zero")
                assert r["sensitivity_t"] == (SQRT2 if r["calibration"] == "certified-crossing" else 0.0)


def test_hard_witness_is_a_real_crossing_edge(xor_run):
    rep, _, _ = xor_run
    p = get_preset("xor3")
    for run in rep["runs"]:
        for r in run["rounds"]:
            if r["calibration"] != "certified-crossing":
                continue
            w = r["witness"]
            assert w["attribute"] == "X_1"
            assert abs(w["u"]["X_1"] - w["v"]["X_1"]) == 1
            assert {k: v for k, v in w["u"].items() if k != "X_1"} == {k: v for k, v in w["v"].items() if k != "X_1"}
            assert w["nn_u"] != w["nn_v"]
            assert p.schema.encode(pd.DataFrame([w["u"], w["v"]])).shape == (2, 4)


# ------------------------------------------------------------------ released CSV


def test_released_csv_formats_and_roundtrip(xor_run):
    rep, out, out_dir = xor_run
    text = out.read_text()
    assert text.splitlines()[0] == "X_1,X_2,X_3,Y"
    assert "." not in text  # integer formats kept: 5, not 5.0
    df = read_table(str(out))
    assert len(df) == 50
    schema = get_preset("xor3").schema
    X = schema.encode(df)  # every value lies in the public domain
    pd.testing.assert_frame_equal(schema.decode(X), df, check_dtype=False)
    # --out is the first listed method and seed
    assert text == (out_dir / "tab-pe_seed0.csv").read_text()
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(
        f"{m}_seed{s}.csv" for m in ("tab-pe", "hard", "bf-soft") for s in (0, 1))


def test_mixed_schema_csv_keeps_names_and_formats(tmp_path):
    schema = Schema([
        Attribute("Age (years)", "numeric", lo=0, hi=100, integer=True),
        Attribute("ratio", "numeric", lo=0.0, hi=1.0),
        Attribute("grade", "ordinal", levels=[1, 2, 3, 4]),
        Attribute("city", "categorical", levels=["Paris", "São Paulo", "New York, NY"]),
        Attribute("sector", "hierarchical", tree={"public": ["school", "army"], "private": ["shop"]}),
        Attribute("flag", "binary", levels=["no", "yes"]),
    ])
    rng = np.random.default_rng(0)
    data = schema.decode(schema.sample_uniform(rng, 120))
    data_csv, schema_json, pol_json = tmp_path / "d.csv", tmp_path / "s.json", tmp_path / "p.json"
    data.to_csv(data_csv, index=False)
    schema_json.write_text(schema.to_json())
    pol_json.write_text(json.dumps({"attributes": {"Age (years)": {"type": "threshold", "theta": 3},
                                                   "sector": {"type": "hierarchy"}}}))
    out = tmp_path / "o.csv"
    rc = main(["synth", "--data", str(data_csv), "--schema", str(schema_json), "--policy", str(pol_json),
               "--method", "bf-soft", "--tau", "0.05", "--rho", "0.1", "--out", str(out),
               "--rounds", "2", "--population", "24x2", "--release", "40", "--quiet"])
    assert rc == 0
    df = read_table(str(out))
    assert list(df.columns) == schema.names
    assert df["Age (years)"].dtype == np.int64 and df["grade"].dtype == np.int64
    assert df["ratio"].dtype == np.float64
    assert set(df["city"]) <= {"Paris", "São Paulo", "New York, NY"}
    raw_ages = [line.split(",")[0] for line in out.read_text().splitlines()[1:]]
    assert all(a.isdigit() for a in raw_ages)
    np.testing.assert_allclose(schema.encode(schema.decode(schema.encode(df))), schema.encode(df))


# ------------------------------------------------------------------ paired random streams


def test_tab_pe_and_hard_identical_when_hard_is_sqrt2_every_round():
    p, X = xor_data()
    cfg = SynthConfig(rounds=3, population=[32, 32, 64], release=60)
    pol = p.default_policy()
    for seed in (0, 1, 2):
        tab = run_synthesis(p.schema, X, pol, "tab-pe", RHO, config=cfg, seed=seed)
        hard = run_synthesis(p.schema, X, pol, "hard", RHO, config=cfg, seed=seed)
        assert all(r.sensitivity == SQRT2 for r in hard.rounds), "setting must make Hard certify sqrt(2)"
        np.testing.assert_array_equal(tab.release, hard.release)
        assert [r.sigma_t for r in tab.rounds] == [r.sigma_t for r in hard.rounds]


def test_same_seed_same_method_is_reproducible_and_seeds_differ():
    p, X = xor_data()
    cfg = SynthConfig(rounds=2, population=[32, 32], release=60)
    pol = p.default_policy()
    a = run_synthesis(p.schema, X, pol, "bf-soft", RHO, TAU, cfg, seed=5, keep_populations=True)
    b = run_synthesis(p.schema, X, pol, "bf-soft", RHO, TAU, cfg, seed=5, keep_populations=True)
    np.testing.assert_array_equal(a.release, b.release)
    assert [r.to_dict() for r in a.rounds] == [r.to_dict() for r in b.rounds]
    c = run_synthesis(p.schema, X, pol, "bf-soft", RHO, TAU, cfg, seed=6, keep_populations=True)
    assert not np.array_equal(a.release, c.release)
    # every method starts from the same initial population for a seed
    h = run_synthesis(p.schema, X, pol, "hard", RHO, config=cfg, seed=5, keep_populations=True)
    np.testing.assert_array_equal(a.populations[0], h.populations[0])
    assert not np.array_equal(a.populations[0], c.populations[0])


def test_cli_reports_identical_for_same_seed(tmp_path, xor_run):
    rep, out, _ = xor_run
    out2, rep2 = tmp_path / "s.csv", tmp_path / "r.json"
    assert main(["synth", "--preset", "xor3", "--method", "tab-pe,hard,bf-soft", "--tau", str(TAU),
                 "--rho", str(RHO), "--seeds", "0,1", "--out", str(out2), "--report", str(rep2), *TINY]) == 0
    assert out2.read_text() == out.read_text()
    r2 = json.loads(rep2.read_text())
    strip = lambda runs: [{k: v for k, v in r.items() if k != "seconds"} for r in runs]  # noqa: E731
    assert strip(r2["runs"]) == strip(rep["runs"])


# ------------------------------------------------------------------ Hard: exhaustive zero and fallback


def test_hard_single_candidate_is_exhaustive_zero_without_noise():
    p, X = xor_data()
    res = run_synthesis(p.schema, X, p.default_policy(), "hard", RHO,
                        config=SynthConfig(rounds=3, population=[1, 1, 1], release=10), seed=0)
    for r in res.rounds:
        assert (r.calibration, r.sensitivity, r.sigma_t) == ("exhaustive-zero", 0.0, 0.0)
    assert np.isfinite(res.release).all()
    assert (res.release == res.release[0]).all()  # one candidate: every released record is it


def test_hard_fallback_on_continuous_attribute():
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=10.0), Attribute("c", "categorical", levels=["a", "b"])])
    rng = np.random.default_rng(1)
    X = schema.sample_uniform(rng, 200)
    pol = Policy({"x": AttributePolicy("threshold", 0.5)})
    res = run_synthesis(schema, X, pol, "hard", RHO, config=SynthConfig(rounds=2, population=[1, 1], release=10),
                        seed=0)
    for r in res.rounds:
        assert (r.calibration, r.sensitivity) == ("fallback", SQRT2)
        assert r.sigma_t == SQRT2 / math.sqrt(2 * r.rho_t)
        assert r.notes and "without a certificate" in r.notes[0]


# ------------------------------------------------------------------ progress callback


def test_progress_called_once_per_round():
    p = get_preset("xor3")
    data = load_preset_data(p, n=200).private
    events = []
    req = RunRequest(p.schema, p.default_policy(), data, ["hard", "bf-soft"], RHO, tau=TAU, seeds=[3, 4],
                     config=SynthConfig(rounds=3, population=[16, 16, 16], release=20), metric=p.metric_fn())
    run_paired(req, progress=events.append)
    got = [(e.t, e.rounds, e.method, e.seed) for e in events]
    assert got == [(t, 3, m, s) for s in (3, 4) for m in ("hard", "bf-soft") for t in (1, 2, 3)]
    for e in events:
        assert isinstance(e, RoundEvent) and e.scale >= 0 and e.sensitivity >= 0 and e.candidates == 16
        assert (e.mechanism, e.scale_name, e.scale_key) == ("gaussian", "sigma", "sigma_t")
    # the mapping view for dict-style callbacks and {**event, ...} wrappers (sigma_t, delta_t: deprecated keys)
    e = events[0]
    assert (e["round"], e["sensitivity_t"], e["scale_t"], e["how"]) == (e.t, e.sensitivity, e.scale, e.how)
    assert {**e, "point": 1}["point"] == 1 and dict(e) == e.as_dict()
    assert e["sigma_t"] == e.scale and e["delta_t"] == e.sensitivity


@pytest.mark.parametrize("mechanism, budget, scale_name", [("laplace", {"epsilon": 1.0}, "b"),
                                                            ("gaussian", {"rho": RHO}, "sigma")])
def test_progress_event_names_the_scale_from_the_mechanism_table(mechanism, budget, scale_name):
    p = get_preset("xor3")
    X = p.schema.encode(load_preset_data(p, n=100).private)
    events = []
    res = run_synthesis(p.schema, X, p.default_policy(), "hard", budget.get("rho"), None,
                        SynthConfig(rounds=2, population=[8, 8], release=5), seed=0, mechanism=mechanism,
                        epsilon=budget.get("epsilon"), progress=events.append)
    assert [e.scale_name for e in events] == [get_mechanism(mechanism).scale_name] * 2 == [scale_name] * 2
    assert [(e.scale, e.sensitivity, e.how) for e in events] == [(r.scale, r.sensitivity, r.calibration)
                                                                  for r in res.rounds]


# ------------------------------------------------------------------ degenerate sizes


@pytest.mark.parametrize("method", ["tab-pe", "hard", "bf-soft", "soft-dp", "soft-hard-noise"])
@pytest.mark.parametrize("n", [1, 5])
def test_more_candidates_than_records_and_one_record(method, n):
    p = get_preset("xor3")
    data = load_preset_data(p, n=n).private
    req = RunRequest(p.schema, p.default_policy(), data, [method], 1e-3, tau=TAU, seeds=[0],
                     config=SynthConfig(rounds=2, population=[64, 64], release=30), metric=p.metric_fn())
    out = run_paired(req)
    run = out.report["runs"][0]
    assert math.isfinite(run["hoerr"])
    assert all(math.isfinite(r["sigma_t"]) and math.isfinite(r["sensitivity_t"]) for r in run["rounds"])
    rel = out.results[0].release
    assert rel.shape == (30, 4) and np.isfinite(rel).all()
    p.schema.encode(out.releases[(method, 0)])  # decoded release stays in the public domain
    json.dumps(out.report, allow_nan=False)


def test_budget_from_epsilon_delta(tmp_path):
    rep = tmp_path / "r.json"
    assert main(["synth", "--preset", "xor3", "--method", "hard", "--epsilon", "0.5", "--delta", "1e-6",
                 "--out", str(tmp_path / "o.csv"), "--report", str(rep), *TINY]) == 0
    p = json.loads(rep.read_text())["privacy"]
    assert p["rho"] == pytest.approx(rho_from_budget(epsilon=0.5, delta=1e-6), rel=1e-12)
    assert p["delta"] == 1e-6
    assert p["epsilon_exact"] == pytest.approx(0.5, rel=1e-9)
    assert p["epsilon_eq1"] == pytest.approx(epsilon_eq1(p["rho"], 1e-6), rel=1e-12)


# ------------------------------------------------------------------ data-derived domain flag


def test_data_derived_schema_is_reported(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(20, 60, 150), "dept": rng.choice(["a", "b", "c"], 150)})
    schema = infer_schema(df)
    assert schema.data_derived
    pol = Policy({"age": AttributePolicy("threshold", 3)})
    out = run_paired(RunRequest(schema, pol, df, ["bf-soft"], 0.1, tau=0.05, seeds=[0],
                                config=SynthConfig(rounds=2, population=[16, 16], release=20)))
    w = out.report["domain_warning"]
    assert w is not None and "DATA-DERIVED" in w and "age" in w
    assert out.report["schema"]["data_derived"] is True
    # the same through the CLI (no --schema: the domain is inferred and flagged)
    csv, rep = tmp_path / "d.csv", tmp_path / "r.json"
    df.to_csv(csv, index=False)
    # (a release of a data-derived domain is refused by the release gate; tests/synthesis/test_release_gate.py)
    assert main(["synth", "--data", str(csv), "--protect", "age=threshold:3", "--method", "hard", "--rho", "1",
                 "--out", str(tmp_path / "o.csv"), "--report", str(rep), "--rounds", "2", "--seeds", "0",
                 "--population", "16x2", "--release", "20", "--quiet"]) == 0
    r = json.loads(rep.read_text())
    assert r["domain_warning"] and "DATA-DERIVED" in r["domain_warning"]


def test_adult_tiny_run_on_real_table(adult_path, tmp_path):
    rep = tmp_path / "r.json"
    assert main(["synth", "--preset", "adult", "--data", adult_path, "--method", "hard,bf-soft", "--tau", "0.03",
                 "--rho", "1e-3", "--out", str(tmp_path / "o.csv"), "--report", str(rep), "--rounds", "2",
                 "--population", "64x2", "--release", "64", "--quiet"]) == 0
    r = json.loads(rep.read_text())
    assert r["n_private"] == 26048
    assert round(r["reach"], 4) == 0.0192 and round(r["noise_ratio_q"], 2) == 0.31
    assert all(0 <= run["pwerr"] <= 2 for run in r["runs"])
    df = read_table(str(tmp_path / "o.csv"))
    assert list(df.columns) == ["age", "hours.per.week", "education.num", "workclass", "income"]
    get_preset("adult").schema.encode(df)


def test_release_mode_top_takes_the_largest_counts_and_children_one_keeps_half():
    """release_mode='top' releases the top-count candidates of round T; it is the default (DESIGN §3)."""
    import numpy as np
    import blowfish_core as bc
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis
    from blowfish_core.io.presets import get_preset, load_preset_data

    p = get_preset("xor3")
    X = p.schema.encode(load_preset_data(p, n=400).private)
    cfg = SynthConfig(rounds=2, population=[32, 32], release=8, release_mode="top", children=1)
    res = run_synthesis(p.schema, X, p.default_policy(), "tab-pe", 1e6, config=cfg, seed=0, keep_populations=True)
    C_T = res.populations[-1]
    # with rho = 1e6 the noise is negligible, so the top-8 release = the 8 most voted candidates
    from blowfish_core.model.votes import vote_histogram
    H = vote_histogram(p.schema, C_T, X)
    top = C_T[np.argsort(-H, kind="stable")[:8]]
    assert np.array_equal(np.sort(res.release, axis=0), np.sort(top, axis=0))
    assert SynthConfig().release_mode == "top" and SynthConfig().children == 1
    with pytest.raises(bc.BlowfishError, match="release mode"):
        SynthConfig(release_mode="best").validate()
