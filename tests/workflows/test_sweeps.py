"""Budget sweep with crossing budget (App. F.3), §6.2.3 decomposition, per-round errors, marginals."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import blowfish_core as bc
from blowfish_core.model import metrics
from blowfish_core.privacy.accounting import epsilon_eq1, epsilon_exact
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.model.metrics import crossing_budget, one_way_errors, pwerr
from blowfish_core.io.presets import load_preset_data
from blowfish_core.synthesis.spec import RunRequest
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.model.schema import Attribute, Schema
from blowfish_core.workflows.sweeps import (
    MAX_RHO_GRID, SweepPoint, SweepResult, budget_sweep, cell_labels, decomposition_table, marginal_comparison,
    parse_rho_grid, round_errors,
)

SMALL = SynthConfig(rounds=3, population=[48, 48, 64], release=80)


@pytest.fixture(scope="module")
def xor():
    p = bc.get_preset("xor3")
    sp = load_preset_data(p, n=1500)
    return p, sp


def test_parse_rho_grid():
    assert parse_rho_grid("3e-3, 1e-4;6e-4 1e-4") == [1e-4, 6e-4, 3e-3]
    for bad, word in [("1e-4", "at least 2"), ("", "at least 2"), ("1e-4, x", "'x'"), ("1e-4, 0", "> 0"),
                      ("1e-4, -1", "> 0"), ("1e-4, inf", "> 0")]:
        with pytest.raises(BudgetError, match="budget grid") as e:
            parse_rho_grid(bad)
        assert word in str(e.value)
    with pytest.raises(BudgetError, match=f"at most {MAX_RHO_GRID}"):
        parse_rho_grid(",".join(f"{10 ** -(k / 4):g}" for k in range(MAX_RHO_GRID + 1)))


def test_budget_sweep_points_equal_paired_runs_and_crossing(xor):
    p, sp = xor
    rhos = [1e-2, 1e-4, 1e-3]
    events = []
    res = budget_sweep(p.schema, p.default_policy(), sp.private, rhos, 0.03, [0, 1], SMALL, p.metric_fn(),
                       delta=1e-5, progress=events.append)
    assert [pt.rho for pt in res.points] == [1e-4, 1e-3, 1e-2]
    assert len(events) == 3 * 2 * 2 * 3  # points x seeds x methods x rounds
    assert {e["points"] for e in events} == {3} and events[-1]["point"] == 3
    for pt in res.points:
        rep = run_paired(RunRequest(p.schema, p.default_policy(), sp.private, ["hard", "bf-soft"], pt.rho,
                                    tau=0.03, seeds=[0, 1], config=SMALL, metric=p.metric_fn())).report
        pm = rep["summary"]["per_method"]
        assert pt.hard["mean"] == pm["hard"]["mean"] and pt.soft["mean"] == pm["bf-soft"]["mean"]
        assert pt.hard["ci95"] == list(pm["hard"]["ci95"])
        assert pt.reduction == rep["summary"]["relative_reduction_bf_soft_vs_hard"]
        assert pt.epsilon_exact == epsilon_exact(pt.rho, 1e-5)
    cross = crossing_budget([1e-4, 1e-3, 1e-2], [pt.hard["mean"] for pt in res.points],
                            [pt.soft["mean"] for pt in res.points])
    assert res.crossing_rho == cross
    if cross is None:
        assert res.crossing_epsilon_exact is None and "No crossing" in res.crossing_text()
    else:
        assert 1e-4 <= cross <= 1e-2
        assert res.crossing_epsilon_exact == epsilon_exact(cross, 1e-5)
        assert res.crossing_epsilon_eq1 == epsilon_eq1(cross, 1e-5)
    tab = res.table()
    assert list(tab["rho"]) == [1e-4, 1e-3, 1e-2]
    assert list(tab["Hard mean"]) == [pt.hard["mean"] for pt in res.points]
    assert res.to_dict()["crossing_rho"] == cross


def _point(rho, h, s):
    return SweepPoint(rho, 0.0, {"mean": h, "ci95": [h, h]}, {"mean": s, "ci95": [s, s]}, None)


def test_crossing_text_constructed():
    # BF-Soft lower at 1e-4 (0.4 < 0.6), higher at 1e-2 (0.5 > 0.3): gap -0.2 -> +0.2 crosses at the log-midpoint
    rhos = [1e-4, 1e-2]
    cross = crossing_budget(rhos, [0.6, 0.3], [0.4, 0.5])
    assert cross == pytest.approx(1e-3, rel=1e-12)
    r = SweepResult("pwerr", 0.03, 1e-5, [0], [_point(1e-4, 0.6, 0.4), _point(1e-2, 0.3, 0.5)], cross,
                    epsilon_exact(cross, 1e-5), epsilon_eq1(cross, 1e-5), 0.0)
    assert "Crossing budget rho = 0.001" in r.crossing_text()
    r = SweepResult("pwerr", 0.03, 1e-5, [0], [_point(1e-4, 0.6, 0.4), _point(1e-2, 0.5, 0.45)], None, None, None, 0.0)
    assert "BF-Soft has the lower mean error at every budget" in r.crossing_text()


@pytest.mark.parametrize("kw,match", [
    ({"rhos": [1e-3]}, "at least 2"),
    ({"rhos": [1e-3, -1.0]}, "rho"),
    ({"tau": 0.0}, "tau"),
    ({"delta": 1.0}, "delta"),
    ({"seeds": list(range(51))}, "at most"),
    ({"config": SynthConfig(rounds=0)}, "rounds"),
])
def test_budget_sweep_rejects_bad_settings_before_work(xor, kw, match):
    p, sp = xor
    args = dict(schema=p.schema, policy=p.default_policy(), data=sp.private, rhos=[1e-4, 1e-3], tau=0.03,
                seeds=[0], config=SMALL, metric=p.metric_fn())
    args.update(kw)
    calls = []
    with pytest.raises(BlowfishError, match=match):
        budget_sweep(**args, progress=calls.append)
    assert calls == []


def test_decomposition_table_is_eq3(xor):
    p, sp = xor
    rep = run_paired(RunRequest(p.schema, p.default_policy(), sp.private, ["hard", "bf-soft", "soft-hard-noise"],
                                1e-3, tau=0.03, seeds=[0, 1, 2], config=SMALL, metric=p.metric_fn())).report
    tab = decomposition_table(rep)
    assert list(tab["term"]) == ["C", "N", "G"]
    e = {m: np.array([r["hoerr"] for r in rep["runs"] if r["method"] == m])
         for m in ("hard", "bf-soft", "soft-hard-noise")}
    C, N, G = tab["mean"]
    assert C == pytest.approx(np.mean(e["soft-hard-noise"] - e["hard"]), abs=1e-15)
    assert N == pytest.approx(np.mean(e["soft-hard-noise"] - e["bf-soft"]), abs=1e-15)
    assert G == pytest.approx(np.mean(e["hard"] - e["bf-soft"]), abs=1e-15)
    assert G == pytest.approx(N - C, abs=1e-12)
    assert (tab["ci_low"] <= tab["mean"]).all() and (tab["mean"] <= tab["ci_high"]).all()
    # soft-hard-noise uses Hard's calibration every round
    shn = [r for r in rep["runs"] if r["method"] == "soft-hard-noise"][0]["rounds"]
    hard = [r for r in rep["runs"] if r["method"] == "hard"][0]["rounds"]
    assert shn[0]["sensitivity_t"] == hard[0]["sensitivity_t"]
    rep2 = run_paired(RunRequest(p.schema, p.default_policy(), sp.private, ["hard", "bf-soft"], 1e-3, tau=0.03,
                                 seeds=[0], config=SMALL, metric=p.metric_fn())).report
    assert decomposition_table(rep2) is None


def test_round_errors(xor):
    p, sp = xor
    name, fn = p.metric_fn()
    req = RunRequest(p.schema, p.default_policy(), sp.private, ["hard", "bf-soft"], 1e-3, tau=0.03, seeds=[0, 1],
                     config=SMALL, metric=(name, fn), keep_populations=True)
    out = run_paired(req)
    X = p.schema.encode(sp.private)
    df = round_errors(p.schema, X, out.results, fn)
    assert len(df) == 4 * (3 + 1)
    rel = df[df["what"] == "release"]
    assert (rel["round"] == 4).all()
    for r in out.report["runs"]:
        got = rel[(rel["method"] == r["method"]) & (rel["seed"] == r["seed"])]["error"].item()
        assert got == r["hoerr"]
    pop = df[(df["what"] == "population") & (df["method"] == "hard") & (df["seed"] == 0)]
    res0 = out.results[0]
    assert list(pop["error"]) == [fn(p.schema, X, C) for C in res0.populations]
    # keeping populations changes no released value
    plain = run_paired(RunRequest(p.schema, p.default_policy(), sp.private, ["hard", "bf-soft"], 1e-3, tau=0.03,
                                  seeds=[0, 1], config=SMALL, metric=(name, fn)))
    assert [r["hoerr"] for r in plain.report["runs"]] == [r["hoerr"] for r in out.report["runs"]]
    with pytest.raises(BlowfishError, match="keep_populations"):
        round_errors(p.schema, X, plain.results, fn)


def test_marginal_comparison_matches_metrics():
    schema = Schema([Attribute("age", "numeric", lo=0, hi=100, integer=True, unit="years"),
                     Attribute("edu", "ordinal", levels=["lo", "mid", "hi"]),
                     Attribute("c", "categorical", levels=["a", "b"])])
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"age": rng.integers(0, 101, 300), "edu": rng.choice(["lo", "mid", "hi"], 300),
                         "c": rng.choice(["a", "b"], 300)})
    syn = pd.DataFrame({"age": rng.integers(0, 101, 90), "edu": rng.choice(["lo", "hi"], 90),
                        "c": rng.choice(["a", "b"], 90)})
    ow = one_way_errors(schema, schema.encode(real), schema.encode(syn))
    for a in schema.names:
        m = marginal_comparison(schema, real, syn, [a])
        assert m["real"].sum() == pytest.approx(1.0) and m["synthetic"].sum() == pytest.approx(1.0)
        assert m["abs_diff"].sum() == pytest.approx(ow[a], abs=1e-12)
    m = marginal_comparison(schema, real, syn, ["age"])
    assert len(m) == 20 and m["age"].iloc[0] == "0-4" and m["age"].iloc[-1] == "95-100"
    assert list(marginal_comparison(schema, real, syn, ["edu"])["edu"]) == ["lo", "mid", "hi"]
    # 2-way: the abs_diff sums average to PWErr over the three pairs
    pairs = [marginal_comparison(schema, real, syn, list(pr))["abs_diff"].sum()
             for pr in itertools.combinations(schema.names, 2)]
    assert float(np.mean(pairs)) == pytest.approx(pwerr(schema, schema.encode(real), schema.encode(syn)), abs=1e-12)
    m2 = marginal_comparison(schema, real, syn, ["edu", "c"])
    assert list(zip(m2["edu"], m2["c"])) == [(e, c) for e in ["lo", "mid", "hi"] for c in ["a", "b"]]
    assert m2.loc[(m2["edu"] == "mid"), "synthetic"].sum() == 0.0
    with pytest.raises(BlowfishError, match="one or two"):
        marginal_comparison(schema, real, syn, ["age", "edu", "c"])
    with pytest.raises(BlowfishError, match="different"):
        marginal_comparison(schema, real, syn, ["age", "age"])
    assert cell_labels(schema["c"]) == ["a", "b"]


# ---------------------------------------------------------------- fresh-user fixes
def test_integer_attribute_bins_are_labelled_with_whole_numbers():
    """Adult age [17, 90]: the 20 equal-width bins hold 17-20, 21-24, ... (not '[17, 20.65)')."""
    a = Attribute("age", "numeric", lo=17, hi=90, integer=True)
    labels = cell_labels(a)
    assert labels[:3] == ["17-20", "21-24", "25-27"] and labels[-1] == "87-90" and len(labels) == 20
    # the labels name exactly the values bin_codes puts in each cell
    schema = Schema([a])
    vals = np.arange(17, 91)
    codes, _ = metrics.bin_codes(schema, schema.encode(pd.DataFrame({"age": vals})))
    for k, lab in enumerate(labels):
        members = vals[codes[:, 0] == k]
        lo_, _, hi_ = lab.partition("-")
        assert (members.min(), members.max()) == (int(lo_), int(hi_ or lo_))
    # a non-integer numeric attribute keeps its interval labels
    assert cell_labels(Attribute("x", "numeric", lo=0, hi=1))[0] == "[0, 0.05)"


def test_narrow_integer_domain_drops_empty_bins():
    """0..5 has 6 whole numbers in 20 bins: 6 labelled cells, the 14 empty ones left out; l1 unchanged."""
    schema = Schema([Attribute("k", "numeric", lo=0, hi=5, integer=True)])
    real = pd.DataFrame({"k": [0, 1, 2, 3, 4, 5, 5]})
    syn = pd.DataFrame({"k": [0, 0, 5]})
    m = marginal_comparison(schema, real, syn, ["k"])
    assert list(m["k"]) == ["0", "1", "2", "3", "4", "5"]
    assert m["abs_diff"].sum() == pytest.approx(one_way_errors(schema, schema.encode(real), schema.encode(syn))["k"])
    assert sum(lab.startswith("(none:") for lab in cell_labels(schema["k"])) == 14


def test_single_seed_summaries_without_interval_do_not_crash():
    """ci95 = [None, None] (one seed) or None: the decomposition and sweep tables show missing cells."""
    rep = {"summary": {"decomposition": {"C_smoothing_cost": [0.1, None, None], "N_noise_benefit": [0.2, None, None],
                                         "G_gain": [0.1, None, None]}}}
    dec = decomposition_table(rep)
    assert dec["ci_low"].isna().all() and list(dec["mean"]) == [0.1, 0.2, 0.1]
    pt = SweepPoint(1e-3, 0.5, {"mean": 0.3, "ci95": None}, {"mean": 0.2, "ci95": [None, None]}, None)
    res = SweepResult("pwerr", 0.03, 1e-5, [0], [pt], None, None, None, 0.0)
    tab = res.table()
    assert tab["Hard ci_low"].isna().all() and tab["BF-Soft ci_high"].isna().all()


def test_epsilon_grid_is_the_rho_grid_at_the_sweeps_delta():
    """Issue 24: the sweep grid can be given in ε (exact Gaussian curve at δ, the curve of its ε axis)."""
    from blowfish_core.base.errors import BudgetError
    from blowfish_core.privacy.accounting import epsilon_exact
    from blowfish_core.workflows.sweeps import parse_epsilon_grid

    rhos = parse_epsilon_grid("0.5, 0.05; 0.1", 1e-5)
    assert [epsilon_exact(r, 1e-5) for r in rhos] == pytest.approx([0.05, 0.1, 0.5], rel=1e-9)
    assert rhos == sorted(rhos)
    for bad, msg in (("0.1", "at least 2"), ("0.1, x", "budget grid"), ("0.1, -2", "epsilon"),
                     (", ".join(str(0.01 * k) for k in range(1, 20)), "at most")):
        with pytest.raises(BudgetError, match=msg):
            parse_epsilon_grid(bad, 1e-5)
    with pytest.raises(BudgetError):
        parse_epsilon_grid("0.1, 0.2", 2.0)  # delta outside (0, 1)
