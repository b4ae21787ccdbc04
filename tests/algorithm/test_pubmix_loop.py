"""PubMix / LinMix as the release step of Algorithm 1 (issue 13 phase 2; papers/003, design notes A6-A7).

* no output of a PubMix run (release CSV, JSON report, ledger, the Runner's downloads) contains the
  mixture weights or the private histogram (recomputed from the kept populations and searched for);
* ledger rows and the PLD total equal composing pubmix_pld per round (exact), schedule fixed from
  public quantities (floor 0.25/m_t, delta_t = delta/T, beta_t = beta_min at (epsilon_t, delta_t));
* BF-Soft (any soft-vote method of the table) refused with Theorem 4.1's reason, CLI and API;
  conflicting --noise/--mechanism and stray --public refused;
* seeded runs reproducible, API == CLI byte for byte;
* --noise pubmix on XOR-3 end to end, HOErr in a sane range next to a public-only baseline.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blowfish_core as bc
from blowfish_core.synthesis import report
from blowfish_core.interfaces.cli.main import main
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.synthesis.spec import RunRequest
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.privacy.mechanisms import MECHANISMS
from blowfish_core.privacy.mechanisms.pubmix import SOFT_VOTE_REASON
from blowfish_core.algorithm.methods import METHODS
from blowfish_core.privacy.pubmix import beta_min, pubmix_delta, pubmix_pld, water_fill
from blowfish_core.model.votes import HardVote, vote_histogram
from studio import runner_ui as ui

XOR = bc.get_preset("xor3")
TINY_ARGS = ["--rounds", "2", "--population", "16x2", "--release", "20", "--quiet"]
TINY = SynthConfig(rounds=2, population=[16, 16], release=20)
SOFT = [m for m, meth in METHODS.items() if meth.vote is not HardVote and meth.vote is not None]  # soft votes (not MST/AIM)


def _split(n=5003):
    return bc.load_preset_data(XOR, None, n=n)


def _req(split, noise="pubmix", methods=("tab-pe",), seeds=(0,), config=TINY, epsilon=1.0, **kw):
    return RunRequest(XOR.schema, XOR.default_policy(), split.private, list(methods), None, 1e-5,
                      seeds=list(seeds), config=config, metric=XOR.metric_fn(), mechanism=noise,
                      epsilon=epsilon, public=split.public, public_source="pilot", **kw)


# ------------------------------------------------------------------ no leak of the mixture / histogram
def _secrets(split, res) -> tuple[list[float], list[int]]:
    """Every private-histogram share, mixture weight and count of every round of the run (recomputed)."""
    schema = XOR.schema
    X, Xp = schema.encode(split.private), schema.encode(split.public)
    n = X.shape[0]
    run = res.runs[0]
    floats, counts = [], []
    for C, row in zip(run.synth.populations, run.ledger):
        H = vote_histogram(schema, C, X, None, HardVote())
        hp = vote_histogram(schema, C, Xp, None, HardVote())
        p_noise = water_fill(hp / hp.sum(), row.floor)
        mix = (1 - row.beta_t) * H / n + row.beta_t * p_noise
        floats += [float(v) for v in np.concatenate([H / n, mix, mix / mix.sum()])]
        counts += [int(v) for v in H]
    return floats, counts


def _leaks(text: str, floats: list[float], counts: list[int], public_ints: set[int]) -> list[str]:
    found = []
    for v in floats:
        if v <= 0:
            continue
        for s in {repr(v), f"{v:.10g}", f"{v:.8g}", f"{v:.6g}"}:
            if len(s.replace("0.", "").lstrip("0")) >= 4 and s in text:  # distinctive enough to search
                found.append(s)
    for c in counts:
        if c >= 100 and c not in public_ints and re.search(rf"(?<![\d.e-]){c}(?![\d.])", text):
            found.append(str(c))
    return found


def test_no_output_contains_the_mixture_or_the_private_histogram(tmp_path):
    split = _split()
    req = _req(split, methods=("tab-pe", "hard"), seeds=(0, 1), keep_populations=True)
    res = run_paired(req)
    floats, counts = _secrets(split, res)
    assert len(floats) > 50 and max(counts) >= 100  # distinctive values exist
    rep_text = ui.report_json(res.report)  # the app's JSON download == the CLI's --report
    csv_text = "".join(ui.release_csv(df).decode() for df in res.releases.values())
    import io
    import zipfile
    with zipfile.ZipFile(io.BytesIO(ui.releases_zip(res.releases))) as z:
        zip_text = "".join(z.read(nm).decode() for nm in z.namelist())
    ledger_text = json.dumps([r.to_dict() for run in res.runs for r in run.ledger])
    note = report.ledger_text(res.report)
    public_ints = {len(split.private), len(split.public), *TINY.sizes(), TINY.release, res.n_unique}
    for name, text in (("report", rep_text), ("csv", csv_text), ("zip", zip_text), ("ledger", ledger_text),
                       ("ledger note", note)):
        assert _leaks(text, floats, counts, public_ints) == [], name
    # the search works: a leaked share or count would be found
    assert _leaks(json.dumps({"x": floats[3]}), floats[3:4], [], set())
    assert _leaks(json.dumps({"x": max(counts)}), [], [max(counts)], set())
    # what the run keeps: the draws' counts (post-processing of the release), never the mixture
    w = res.runs[0].synth.final_weights
    assert np.array_equal(w, np.round(w)) and w.sum() == TINY.release
    assert not any(k in rep_text for k in ("p_syn", "p_noise", "p_private", "p_public", "weights"))


# ------------------------------------------------------------------ ledger = composition of pubmix_pld
#: the plan's per-round epsilon for XOR-3 n = 5,003, epsilon = 2 at delta = 1e-5, population 16/24/32,
#: release 40 (PLD bisection; held so that the beta references below are at a known epsilon_t).
EPSILON_T_REF = 1.937277696866186
#: beta_min(EPSILON_T_REF, 1e-5/3, 5003, n_samples, f) for (n_samples, f) = (24, 1/64), (32, 0.25/24),
#: (40, 1/128): the independent Eq. (23) computation described in the test.
BETA_T_REF = (0.006979850782062778, 0.010979126511827239, 0.014904143411973523)


def test_ledger_rows_and_pld_total_equal_composing_pubmix_pld():
    split = _split()
    cfg = SynthConfig(rounds=3, population=[16, 24, 32], release=40)
    res = run_paired(_req(split, noise="pubmix-floor", config=cfg, epsilon=2.0))  # the fixed-floor law's numbers
    rows = res.runs[0].ledger
    n = len(split.private)
    assert [r.mechanism for r in rows] == ["pubmix-floor"] * 3
    assert [r.n_samples for r in rows] == [24, 32, 40]  # m_{t+1}, then the release
    assert [r.floor for r in rows] == [0.25 / 16, 0.25 / 24, 0.25 / 32]
    assert [r.delta_dp_t for r in rows] == [1e-5 / 3] * 3
    assert all(r.n_private == n and r.scale == r.beta_t for r in rows)
    assert len({r.epsilon_t for r in rows}) == 1
    # beta_t against independent reference values (held constants, not the engine's beta_min): at the
    # plan's epsilon_t (held too), delta_t = 1e-5/3, n = 5,003 and N1 = N2 = f_t, h(beta) of
    # papers/003 Eq. (23) summed literally over every (lambda, mu) with lambda + mu <= n_samples in
    # 60-digit mpmath (m!/(lambda! mu! (m-lambda-mu)!) c^(m-lambda-mu) [r^lambda q^mu - e^eps r^mu
    # q^lambda]_+, q = beta f, r = q + (1-beta)/n, c = 1 - 2q - (1-beta)/n), then 60 bisection steps on
    # beta in [0, 1] for h(beta) = delta_t (h decreasing, Lemmas C.3-C.4), upper end of the bracket.
    assert n == 5003
    assert rows[0].epsilon_t == pytest.approx(EPSILON_T_REF, rel=1e-12)
    for r, beta_ref in zip(rows, BETA_T_REF):
        assert r.beta_t == pytest.approx(beta_ref, rel=1e-9)
        assert r.beta_t >= beta_ref * (1 - 1e-12)  # never below the exact minimum (bisection upper end)
    total = None
    for r in rows:
        p = pubmix_pld(r.epsilon_t, r.delta_dp_t, n, r.n_samples, r.floor, beta=r.beta_t,
                       value_discretization_interval=1e-4)
        total = p if total is None else total.compose(p)
    eps = float(total.get_epsilon_for_delta(1e-5))
    priv = res.privacy
    assert priv["epsilon"] == eps and priv["accountant"] == "pld" and priv["delta"] == 1e-5
    assert 0.99 * 2.0 <= eps <= 2.0  # the plan spends (almost) all of the target, never more
    assert priv["epsilon_exact_applicable"] is False and "does not apply" in priv["note"]
    assert "epsilon_exact" not in priv and "rho" not in priv
    assert priv["beta_per_round"] == [r.beta_t for r in rows]
    assert res.report["noise"] == "pubmix-floor" and res.report["mechanism"] == "pubmix-floor"
    rd = res.report["runs"][0]["rounds"][0]
    assert {"beta_t", "floor", "n_samples", "epsilon_t", "delta_dp_t"} <= set(rd) and rd["rho_t"] is None
    assert rd["kind"] == rd["mechanism"] == "pubmix-floor" and all(r.kind == "pubmix-floor" for r in rows)
    # PLD composition is far tighter than basic composition of the rounds' own (epsilon_t, delta_t)
    assert sum(r.epsilon_t for r in rows) > eps


def test_total_does_not_depend_on_the_method_order_or_zero_rounds():
    """Hard under the empty policy certifies every round exhaustively zero; the PubMix total still
    composes every round, so Hard-first and Tab-PE-first paired runs report the plan's epsilon."""
    split = _split()
    kw = dict(allow_empty_policy=True)
    a = run_paired(RunRequest(XOR.schema, bc.Policy(), split.private, ["hard", "tab-pe"], None, 1e-5, config=TINY,
                              metric=XOR.metric_fn(), mechanism="pubmix", epsilon=1.0, public=split.public, **kw))
    b = run_paired(RunRequest(XOR.schema, bc.Policy(), split.private, ["tab-pe", "hard"], None, 1e-5, config=TINY,
                              metric=XOR.metric_fn(), mechanism="pubmix", epsilon=1.0, public=split.public, **kw))
    assert [r.sensitivity for r in a.run("hard", 0).ledger] == [0.0, 0.0]
    plan = MECHANISMS["pubmix"].plan(1.0, 1e-5, len(split.private), TINY.sizes(), TINY.release)
    assert a.privacy["epsilon"] == b.privacy["epsilon"] == plan.epsilon


def test_linmix_rows_use_the_uniform_floor():
    split = _split()
    res = run_paired(_req(split, noise="linmix"))
    rows = res.runs[0].ledger
    assert [r.floor for r in rows] == [1 / 16, 1 / 16] and all(r.mechanism == "linmix" for r in rows)
    assert res.privacy["epsilon"] <= 1.0


@settings(max_examples=6, deadline=None)
@given(eps=st.sampled_from([0.5, 1.0, 3.0]), rounds=st.integers(1, 4), m=st.sampled_from([8, 16, 40]),
       n=st.integers(200, 50_000), linmix=st.booleans())
def test_plan_never_exceeds_the_target(eps, rounds, m, n, linmix):
    mech = MECHANISMS["linmix" if linmix else "pubmix-floor"]  # the fixed-floor plans (beta_t at f_t)
    plan = mech.plan(eps, 1e-5, n, [m] * rounds, m)
    assert plan.epsilon <= eps and sum(plan.delta_t) == pytest.approx(1e-5)
    for e, d, b, f, k in zip(plan.epsilon_t, plan.delta_t, plan.beta_t, plan.floor, plan.n_samples):
        assert b == beta_min(e, d, n, k, f) and pubmix_delta(b, e, n, k, f) <= d * (1 + 1e-9)


# ------------------------------------------------------------------ refusals
def cli_error(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err
    return err[len("error: "):]


@pytest.mark.parametrize("method", SOFT)
@pytest.mark.parametrize("noise", ["pubmix", "linmix"])
def test_soft_votes_refused_with_the_reason_cli_and_api(tmp_path, capsys, method, noise):
    split = _split()
    msg = cli_error(capsys, ["synth", "--preset", "xor3", "--method", method, "--tau", "0.03", "--noise", noise,
                             "--epsilon", "1", "--out", str(tmp_path / "x.csv"), *TINY_ARGS])
    assert SOFT_VOTE_REASON in msg and METHODS[method].label in msg
    with pytest.raises(bc.BlowfishError) as e:
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method=method, tau=0.03, epsilon=1.0, seed=0,
                       config=TINY, noise=noise, public=split.public).fit(split.private)
    assert str(e.value) == msg
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("extra,needle", [
    (["--noise", "pubmix", "--mechanism", "laplace", "--epsilon", "1"], "conflicts"),
    (["--noise", "pubmix", "--mechanism", "gaussian", "--epsilon", "1"], "conflicts"),
    (["--mechanism", "pubmix", "--epsilon", "1"], "--noise pubmix"),
    (["--noise", "pubmix", "--rho", "1e-3"], "zCDP budget"),
    (["--noise", "magic", "--epsilon", "1"], "unknown noise step"),
    (["--noise", "gaussian", "--rho", "1e-3", "--public", "p.csv"], "--public only applies"),
    (["--noise", "pubmix", "--epsilon", "1", "--threshold-h", "2"], "threshold H"),
    (["--noise", "pubmix", "--epsilon", "1", "--participation"], "participation"),
])
def test_conflicting_noise_settings_refused(tmp_path, capsys, extra, needle):
    msg = cli_error(capsys, ["synth", "--preset", "xor3", "--method", "tab-pe", *extra,
                             "--out", str(tmp_path / "x.csv"), *TINY_ARGS])
    assert needle in msg


def test_api_pubmix_needs_public_rows():
    split = _split()
    with pytest.raises(bc.BlowfishError, match="needs public rows"):
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="tab-pe", epsilon=1.0, seed=0, config=TINY,
                       noise="pubmix").fit(split.private)
    with pytest.raises(bc.BlowfishError, match="public only applies"):
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="tab-pe", rho=1e-3, seed=0, config=TINY,
                       public=split.public).fit(split.private)


# ------------------------------------------------------------------ reproducible, API == CLI
def test_seeded_runs_reproducible_and_api_equals_cli(tmp_path):
    split = bc.load_preset_data(XOR, None)
    outs = []
    for k in range(2):
        out, rep = tmp_path / f"o{k}.csv", tmp_path / f"r{k}.json"
        assert main(["synth", "--preset", "xor3", "--method", "tab-pe,hard", "--noise", "pubmix", "--epsilon", "1",
                     "--seeds", "3", "--out", str(out), "--report", str(rep), *TINY_ARGS]) == 0
        r = json.loads(rep.read_text())
        outs.append((out.read_bytes(), [x["rounds"] for x in r["runs"]], r["privacy"]))
    assert outs[0] == outs[1]
    syn = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="tab-pe", epsilon=1.0, seed=3, config=TINY,
                         noise="pubmix", public=split.public).fit(split.private)
    path = tmp_path / "api.csv"
    syn.sample(20).to_csv(path, index=False)
    assert path.read_bytes() == outs[0][0]
    assert [r.to_dict() for r in syn.ledger_] == outs[0][1][0]
    # the per-release totals agree; privacy.total composes what is published together (2 CLI releases, 1 API)
    assert {**syn.privacy_, "total": outs[0][2]["total"]} == outs[0][2]
    assert outs[0][2]["total"]["releases"] == 2 and syn.privacy_["total"]["releases"] == 1
    # another seed draws another release; a later sample() resamples the released draws (same values only)
    syn4 = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="tab-pe", epsilon=1.0, seed=4, config=TINY,
                          noise="pubmix", public=split.public).fit(split.private)
    assert not syn4.sample(20).equals(syn.schema.decode(syn.result_.release))
    again = syn.sample(50)
    released = {tuple(r) for r in syn.schema.decode(syn.result_.release).itertuples(index=False)}
    assert {tuple(r) for r in again.itertuples(index=False)} <= released


def test_user_public_csv(tmp_path, capsys):
    split = bc.load_preset_data(XOR, None)
    pub = tmp_path / "pub.csv"
    split.public.iloc[:500].to_csv(pub, index=False)
    rep = tmp_path / "r.json"
    assert main(["synth", "--preset", "xor3", "--method", "tab-pe", "--noise", "pubmix", "--epsilon", "1",
                 "--public", str(pub), "--out", str(tmp_path / "o.csv"), "--report", str(rep), "--seeds", "0",
                 *TINY_ARGS]) == 0
    r = json.loads(rep.read_text())
    assert "user-given public rows" in r["public_source"]
    out = capsys.readouterr().out
    assert "does not apply" in out and "PLD" in out


# ------------------------------------------------------------------ end to end on XOR-3
def test_xor3_pubmix_end_to_end_sane_errors(tmp_path, capsys):
    """Paper schedule (8 rounds, 512/1024, release 512), epsilon = 2, 2 seeds: HOErr between the
    non-private floor and a uniform table, and within 0.1 of the public-only baseline."""
    out, rep = tmp_path / "o.csv", tmp_path / "r.json"
    assert main(["synth", "--preset", "xor3", "--method", "tab-pe", "--noise", "pubmix", "--epsilon", "2",
                 "--seeds", "0,1", "--out", str(out), "--report", str(rep), "--quiet"]) == 0
    r = json.loads(rep.read_text())
    err = r["summary"]["per_method"]["tab-pe"]["mean"]
    assert r["privacy"]["epsilon"] <= 2.0 and len(r["runs"][0]["rounds"]) == 8
    split = bc.load_preset_data(XOR, None)
    name, fn = XOR.metric_fn()
    X = XOR.schema.encode(split.private)
    uniform = np.mean([fn(XOR.schema, X, XOR.schema.sample_uniform(np.random.default_rng(s), 512))
                       for s in range(3)])
    # public only: the same loop on the public rows, noise-free (Hard under the empty policy: sensitivity 0)
    base = run_paired(RunRequest(XOR.schema, bc.Policy(), split.public, ["hard"], 1.0, 1e-5, seeds=[0, 1],
                                 metric=(name, fn), reference=split.private, allow_empty_policy=True))
    pub_err = float(np.mean(base.errors("hard")))
    assert err < uniform - 0.1, (err, uniform)
    assert err < pub_err + 0.1, (err, pub_err)


def test_pubmix_release_mode_releases_with_the_exact_sampler(tmp_path, capsys):
    """An unseeded (release-mode) PubMix run releases (issue 21): its draws come from the exact
    integer sampler on the OS CSPRNG (mechanisms.pubmix.PubMixExact), never numpy's sampler."""
    code = main(["synth", "--preset", "xor3", "--method", "tab-pe", "--noise", "pubmix", "--epsilon", "1",
                 "--out", str(tmp_path / "o.csv"), *TINY_ARGS])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "o.csv").exists()
