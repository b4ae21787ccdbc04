"""Release mode vs study mode, release bundle vs evaluation report (issue 11 Must-show 1-2).

Unseeded runs (Synthesizer(seed=None), RunRequest(seeds=None), the CLI without --seeds) draw
from OS entropy with OpenDP's samplers and record nothing about the randomness but
"unseeded, OS entropy, sampler opendp"; seeded runs stay byte-identical (also
tests/synthesis/test_determinism.py) and every seeded output says "seeded: for study, not for publication".
The release bundle holds no figure computed on the private table; the evaluation report is labelled.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

import blowfish_core as bc
from blowfish_core.interfaces.cli.main import main
from blowfish_core.algorithm.evolution import OsEntropyStreams, SeededStreams, SynthConfig, run_synthesis
from blowfish_core.privacy.mechanisms import Gaussian, GaussianOpenDP, LaplaceOpenDP, get_mechanism
from blowfish_core.synthesis.report import INTERNAL_LABEL, PUBLIC_LABEL

XOR = bc.get_preset("xor3")
TINY = SynthConfig(rounds=2, population=[32, 32], release=40)
TINY_ARGS = ["--rounds", "2", "--population", "32x2", "--release", "40", "--quiet"]
RANDOMNESS = "unseeded, OS entropy, sampler opendp"
SEEDED = "seeded: for study, not for publication"
#: keys that carry figures computed on the private table.
PRIVATE_KEYS = {"pwerr", "hoerr", "n_unique", "seconds", "seconds_total", "round_seconds", "summary", "runs",
                "machine", "data_source", "metric"}


def _data():
    return bc.load_preset_data(XOR, None).private


def _keys(obj) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | set().union(*(_keys(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(_keys(v) for v in obj)) if obj else set()
    return set()


def _values(obj, key: str) -> list:
    if isinstance(obj, dict):
        return ([obj[key]] if key in obj else []) + [x for v in obj.values() for x in _values(v, key)]
    if isinstance(obj, list):
        return [x for v in obj for x in _values(v, key)]
    return []


# ------------------------------------------------------------------ engine
def test_sampler_follows_the_randomness_source():
    assert get_mechanism("gaussian") == Gaussian() and get_mechanism("gaussian").sampler == "numpy"
    assert isinstance(get_mechanism("gaussian", sampler="opendp"), GaussianOpenDP)
    assert isinstance(get_mechanism("laplace", sampler="opendp"), LaplaceOpenDP)
    assert get_mechanism("gaussian", sampler="opendp").name == "gaussian"  # same ledger rows, same accounting
    assert (SeededStreams(0).sampler, OsEntropyStreams().sampler) == ("numpy", "opendp")
    assert repr(OsEntropyStreams()) == "OsEntropyStreams(unseeded, OS entropy, sampler opendp)"
    with pytest.raises(bc.BlowfishError, match="unknown noise sampler"):
        get_mechanism("gaussian", sampler="secrets")


def test_loop_release_path_is_opendp_discrete_for_hard_votes(monkeypatch):
    import blowfish_core.privacy.mechanisms.opendp_samplers as ods

    calls = []
    real = ods.opendp_noisy

    def spy(h, scale, kind="gaussian", discrete=None):
        calls.append((kind, discrete, np.asarray(h).dtype.kind))
        return real(h, scale, kind, discrete)

    monkeypatch.setattr(ods, "opendp_noisy", spy)
    data = _data()
    X = XOR.schema.encode(data)
    for method, tau, discrete in (("hard", None, True), ("tab-pe", None, True), ("bf-soft", 0.03, False)):
        calls.clear()
        res = run_synthesis(XOR.schema, X, XOR.default_policy(), method, 1e-3, tau, TINY, seed=None)
        assert res.seed is None
        assert calls == [("gaussian", discrete, "f")] * 2  # one OpenDP draw per round
        assert all(r.mechanism == "gaussian" for r in res.rounds)
    calls.clear()
    run_synthesis(XOR.schema, X, XOR.default_policy(), "hard", None, None, TINY, seed=None,
                  mechanism="laplace", epsilon=1.0)
    assert calls == [("laplace", True, "f")] * 2
    calls.clear()
    run_synthesis(XOR.schema, X, XOR.default_policy(), "hard", 1e-3, None, TINY, seed=3)
    assert calls == []  # seeded study runs keep numpy's sampler


def test_discrete_noise_keeps_hard_histograms_whole():
    out = GaussianOpenDP().release(np.array([3.0, 0.0, 7.0]), 5.0, None, integer=True)
    assert out.dtype == np.float64 and np.all(out == np.rint(out))
    out = LaplaceOpenDP().release(np.array([3.0, 0.0, 7.0]), 5.0, None, integer=True)
    assert np.all(out == np.rint(out))


def test_two_unseeded_fits_differ_and_record_no_seed():
    data = _data()
    a = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="bf-soft", tau=0.03, rho=1e-3, config=TINY).fit(data)
    b = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="bf-soft", tau=0.03, rho=1e-3, config=TINY).fit(data)
    assert a.seed is None and a.randomness_ == RANDOMNESS
    assert not a.sample().equals(b.sample())
    assert not np.array_equal(a.result_.final_population, b.result_.final_population)


def test_unseeded_paired_result_report_holds_no_seed():
    req = bc.RunRequest(XOR.schema, XOR.default_policy(), _data(), ["hard", "bf-soft"], 1e-3, tau=0.03,
                        seeds=None, config=TINY)
    res = bc.run_paired(req)
    rep = res.report
    assert [r.seed for r in res.runs] == [None, None]
    assert rep["seeds"] == [] and "seeds" not in rep["public"]
    assert all(v is None for v in _values(rep, "seed"))
    assert rep["randomness"] == rep["public"]["randomness"] == rep["internal"]["randomness"] == RANDOMNESS
    assert _values(rep["public"], "seed") == []
    text = json.dumps(rep)
    assert "entropy\"" not in text and "spawn_key" not in text


def test_seeded_runs_identical_and_say_so():
    data = _data()
    kw = dict(method="hard", rho=1e-3, config=TINY, seed=5)
    a = bc.Synthesizer(XOR.schema, XOR.default_policy(), **kw).fit(data)
    b = bc.Synthesizer(XOR.schema, XOR.default_policy(), **kw).fit(data)
    assert a.sample().to_csv(index=False) == b.sample().to_csv(index=False)
    assert a.randomness_ == SEEDED
    rep = bc.run_paired(bc.RunRequest(XOR.schema, XOR.default_policy(), data, ["hard"], 1e-3, seeds=[5],
                                      config=TINY)).report
    assert rep["randomness"] == rep["public"]["randomness"] == SEEDED
    assert rep["public"]["seeds"] == [5] and rep["seeds"] == [5]


def test_unseeded_release_needs_an_opendp_sampler():
    class NoRelease:
        name, norm, budget_name, sampler = "toy", "l2", "rho", "numpy"

    with pytest.raises(bc.BlowfishError, match="no opendp sampler"):
        get_mechanism(NoRelease(), sampler="opendp")


# ------------------------------------------------------------------ report parts
def test_report_parts_and_labels():
    res = bc.run_paired(bc.RunRequest(XOR.schema, XOR.default_policy(), _data(), ["tab-pe", "hard"], 1e-3,
                                      seeds=[0, 1], config=TINY))
    rep = res.report
    # a seeded run's public part is labelled for study, never publishable (issue 21)
    assert rep["parts"]["public"] == SEEDED and rep["parts"]["internal"] == INTERNAL_LABEL
    assert INTERNAL_LABEL == "internal: computed on private data \u2014 do not publish"
    assert rep["internal"]["label"] == INTERNAL_LABEL and rep["public"]["label"] == SEEDED != PUBLIC_LABEL
    assert not (_keys(rep["public"]) & PRIVATE_KEYS), _keys(rep["public"]) & PRIVATE_KEYS
    assert rep["internal"]["n_unique"] == rep["n_unique"] == res.n_unique
    m = res.metric_name
    assert [r[m] for r in rep["internal"]["runs"]] == [r[m] for r in rep["runs"]]
    # the public ledger is the report's ledger, row for row
    assert [e["rounds"] for e in rep["public"]["ledger"]] == [r["rounds"] for r in rep["runs"]]
    assert rep["public"]["n_private"] == 12000  # public under bounded adjacency


def test_participation_withholds_n():
    pol = XOR.default_policy()
    pol = dataclasses.replace(pol, participation=True)
    rep = bc.run_paired(bc.RunRequest(XOR.schema, pol, _data(), ["hard"], 1e-3, seeds=[0], config=TINY)).report
    assert rep["public"]["n_private"] is None and "withheld" in rep["public"]["n_private_note"]


# ------------------------------------------------------------------ CLI
def _cli(tmp_path, tag: str, *extra: str) -> tuple[str, str]:
    d = tmp_path / tag
    argv = ["synth", "--preset", "xor3", "--method", "hard,bf-soft", "--tau", "0.03", "--rho", "1e-3",
            "--out", str(d / "release.csv"), "--bundle", str(d / "bundle"), "--eval-report", str(d / "internal.json"),
            "--report", str(d / "report.json"), *TINY_ARGS, *extra]
    assert main(argv) == 0
    return str(d), argv


def test_cli_unseeded_by_default_different_releases_no_seed(tmp_path, capsys):
    a, _ = _cli(tmp_path, "a")
    out_a = capsys.readouterr().out
    b, _ = _cli(tmp_path, "b")
    capsys.readouterr()
    assert open(f"{a}/release.csv").read() != open(f"{b}/release.csv").read()
    assert sorted(os.listdir(f"{a}/bundle")) == ["bf-soft.csv", "budget.json", "hard.csv", "ledger.json",
                                                  "ledger.txt", "policy.json", "schema.json"]
    assert open(f"{a}/bundle/hard.csv").read() == open(f"{a}/release.csv").read()
    rep = json.load(open(f"{a}/report.json"))
    assert rep["seeds"] == [] and all(v is None for v in _values(rep, "seed"))
    assert "randomness: unseeded, OS entropy, sampler opendp" in out_a
    assert "not paired" in out_a and SEEDED not in out_a
    ledger = json.load(open(f"{a}/bundle/ledger.json"))
    assert ledger["randomness"] == RANDOMNESS and _values(ledger, "seed") == []
    assert "Randomness: unseeded, OS entropy, sampler opendp." in open(f"{a}/bundle/ledger.txt").read()


def test_bundle_holds_no_private_figure_and_eval_report_is_labelled(tmp_path, capsys):
    d, _ = _cli(tmp_path, "s", "--seeds", "0,1")
    out = capsys.readouterr().out
    files = sorted(os.listdir(f"{d}/bundle"))
    assert files == ["bf-soft_seed0.csv", "bf-soft_seed1.csv", "budget.json", "hard_seed0.csv", "hard_seed1.csv",
                     "ledger.json", "ledger.txt", "policy.json", "schema.json"]
    internal = json.load(open(f"{d}/internal.json"))
    assert internal["label"] == INTERNAL_LABEL
    assert {"n_unique", "runs", "summary", "seconds_total"} <= set(internal)
    errors = [f"{r['hoerr']}" for r in internal["runs"]]
    for name in files:
        text = open(f"{d}/bundle/{name}", encoding="utf-8").read()
        if name.endswith(".json"):
            keys = _keys(json.loads(text))
            assert not (keys & PRIVATE_KEYS), (name, keys & PRIVATE_KEYS)
        for word in ("PWErr", "HOErr", "hoerr", "pwerr", "n_unique", "seconds", "internal"):
            assert word not in text, (name, word)
        if not name.endswith(".csv"):
            assert not any(f'"{e}"' in text or f" {e}," in text for e in errors)
    # every seeded companion file says it is a study run
    assert json.load(open(f"{d}/bundle/ledger.json"))["randomness"] == SEEDED
    assert json.load(open(f"{d}/bundle/budget.json"))["randomness"] == SEEDED
    assert SEEDED in open(f"{d}/bundle/ledger.txt").read()
    assert f"randomness: {SEEDED}" in out
    assert "INTERNAL: COMPUTED ON PRIVATE DATA \u2014 DO NOT PUBLISH:" in out
    # the union report marks the parts and keeps the old keys
    rep = json.load(open(f"{d}/report.json"))
    assert rep["public"] == json.load(open(f"{d}/bundle/ledger.json"))
    assert rep["internal"] == internal
    for k in ("n_private", "n_unique", "runs", "summary", "seeds", "privacy", "seconds_total"):
        assert k in rep


def test_seeded_cli_bundle_is_byte_identical(tmp_path, capsys):
    a, _ = _cli(tmp_path, "x", "--seeds", "3")
    b, _ = _cli(tmp_path, "y", "--seeds", "3")
    capsys.readouterr()
    for name in os.listdir(f"{a}/bundle"):
        assert open(f"{a}/bundle/{name}", "rb").read() == open(f"{b}/bundle/{name}", "rb").read(), name


def test_cli_progress_shows_the_calibration(tmp_path, capsys):
    argv = ["synth", "--preset", "xor3", "--method", "hard,bf-soft", "--tau", "0.03", "--rho", "1e-3", "--seeds", "0",
            "--out", str(tmp_path / "o.csv"), "--rounds", "2", "--population", "32x2", "--release", "10"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "hard     seed 0 round 1/2  Delta_t=1.414 sigma_t=44.72  (certified-crossing)" in err
    assert "bf-soft  seed 0 round 2/2  Delta_t=0.7547 sigma_t=23.87  (bound)" in err
    # the scale's name is the mechanism table's (scale_name), not a comparison of mechanism names
    argv = ["synth", "--preset", "xor3", "--method", "hard", "--mechanism", "laplace", "--epsilon", "1", "--seeds", "0",
            "--out", str(tmp_path / "l.csv"), "--rounds", "2", "--population", "32x2", "--release", "10"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "hard     seed 0 round 1/2  Delta_t=2 b_t=4  (certified-crossing)" in err


def test_cli_fallback_calibration_is_printed(tmp_path, capsys):
    # a tiny max-edges limit is not a CLI flag; the engine's progress event carries "how"
    events = []
    cfg = SynthConfig(rounds=1, population=[32], release=5, max_edges=1)
    X = XOR.schema.encode(_data())
    run_synthesis(XOR.schema, X, XOR.default_policy(), "hard", 1e-3, None, cfg, seed=0, progress=events.append)
    assert [e.how for e in events] == [run_synthesis(XOR.schema, X, XOR.default_policy(), "hard", 1e-3, None,
                                                        cfg, seed=0).rounds[0].calibration]
    assert events[0].how in ("fallback", "certified-crossing")


def test_eval_report_inside_bundle_is_refused(tmp_path, capsys):
    rc = main(["synth", "--preset", "xor3", "--method", "hard", "--rho", "1e-3", "--out", str(tmp_path / "o.csv"),
               "--bundle", str(tmp_path / "b"), "--eval-report", str(tmp_path / "b" / "i.json"), *TINY_ARGS])
    err = capsys.readouterr().err
    assert rc == 2 and "--eval-report is inside the --bundle folder" in err


def test_cli_prints_the_fallback_calibration(tmp_path, capsys):
    # one candidate: no protected edge can cross, and a continuous attribute has infinitely many
    # record-level edges, so Hard calibrates to sqrt(2) without a certificate ("fallback")
    data = tmp_path / "d.csv"
    data.write_text("a,b\n" + "".join(f"{i * 0.5},{'xy'[i % 2]}\n" for i in range(40)))
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"attributes": [{"name": "a", "type": "numeric", "lo": 0, "hi": 100},
                                                 {"name": "b", "type": "binary", "levels": ["x", "y"]}]}))
    rc = main(["synth", "--data", str(data), "--schema", str(schema), "--protect", "a=threshold:5",
               "--method", "hard", "--rho", "1", "--seeds", "0", "--rounds", "2", "--population", "1x2",
               "--release", "5", "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "  hard     seed 0 round 1/2  Delta_t=1.414 sigma_t=1.414  (fallback)" in err.splitlines()
