"""The named schedules of ResampleMutate (DESIGN §3, issue 12): the default 'hybrid' reading
(rank rounds keep the top m/2 with one child each, release = the top final counts),
the earlier 'hybrid-256x3' reading, rank_by and mutation_index; the same release from the
Runner (AppTest), the CLI and the API."""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from blowfish_core.algorithm import evolution as ev
from blowfish_core.interfaces.cli.main import main
from blowfish_core.algorithm.evolution import SCHEDULES, SynthConfig, rank_order, release_indices, round_mutation_rate
from studio import runner_ui as ui

XOR = bc.get_preset("xor3")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "run.py")
OLD_ARGS = ["--method", "bf-soft", "--tau", "0.03", "--rho", "1e-3", "--rounds", "4", "--population", "32x2,64x2",
            "--release", "40", "--quiet"]
#: sha256 of the CLI release with OLD_ARGS and --seeds 0 / 1, computed with the code BEFORE this
#: change (commit 478e28b, whose default was children 3 + release drawn proportionally).
OLD_DEFAULT_SHA256 = {0: "15a0a7fa5a91a5da075a8806465bba5de5ee735ca029533339cbb393bdcc08bd",
                      1: "ece099d44a8b0052b5b500709d4b46e918c4b8f253206fa25363d024900fc08c"}


def _cli(tmp_path, name: str, *args: str) -> bytes:
    out = tmp_path / f"{name}.csv"
    assert main(["synth", "--preset", "xor3", *args, "--out", str(out)]) == 0
    return out.read_bytes()


# ------------------------------------------------------------------ the table and the config
def test_default_config_is_the_hybrid_schedule():
    c = SynthConfig()
    assert (c.selection, c.switch_round, c.children, c.release_mode, c.rank_by, c.mutation_index) == \
        ("hybrid", 3, 1, "top", "clipped", "t")
    assert SynthConfig.from_schedule("hybrid") == c
    old = SynthConfig.from_schedule("hybrid-256x3")
    assert (old.children, old.release_mode, old.rank_by, old.mutation_index) == (3, "sample", "clipped", "t")
    assert set(SCHEDULES) == {"hybrid", "hybrid-256x3"}
    # explicit settings override the schedule; None keeps the schedule's value
    assert SynthConfig.from_schedule("hybrid-256x3", children=2, release_mode=None).children == 2
    assert SynthConfig.from_schedule("hybrid-256x3", children=2, release_mode=None).release_mode == "sample"


@pytest.mark.parametrize("kwargs,field", [({"rank_by": "counts"}, "rank_by"), ({"mutation_index": "t+1"},
                                           "mutation_index"), ({"children": 0}, "children"),
                                          ({"children": 1.5}, "children"), ({"release_mode": "best"}, "release mode")])
def test_bad_schedule_settings_name_the_field(kwargs, field):
    with pytest.raises(bc.BlowfishError, match=field):
        SynthConfig(**kwargs).validate()


def test_from_schedule_refuses_unknown_names():
    with pytest.raises(bc.BlowfishError, match="schedule must be one of hybrid, hybrid-256x3"):
        SynthConfig.from_schedule("hybrid-512")
    with pytest.raises(bc.BlowfishError, match="unknown schedule setting 'fold'"):
        SynthConfig.from_schedule("hybrid", fold=1)


def test_cli_refuses_bad_schedule_flags(tmp_path, capsys):
    for flag, value in (("--schedule", "paper"), ("--rank-by", "abs"), ("--mutation-index", "t+1")):
        assert main(["synth", "--preset", "xor3", flag, value, "--out", str(tmp_path / "o.csv")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and flag in err[0]


# ------------------------------------------------------------------ rank_by: hand-checkable
def test_rank_by_clipped_vs_raw_on_a_tiny_vector():
    """noisy = [-3, 5, -1, 0.5, 2], H = 1: clipped w = [0, 5, 0, 0, 2].  Clipped ranking: 1, 4, then
    the zeros in index order 0, 2, 3; raw ranking: 1 (5), 4 (2), 3 (0.5), 2 (-1), 0 (-3)."""
    noisy = np.array([-3.0, 5.0, -1.0, 0.5, 2.0])
    w = ev._weights(noisy, 1.0)
    assert w.tolist() == [0.0, 5.0, 0.0, 0.0, 2.0]
    assert rank_order(w).tolist() == [1, 4, 0, 2, 3]
    assert rank_order(w, noisy).tolist() == [1, 4, 3, 2, 0]
    # a rank round of size 6 with one child per parent keeps the top 3
    rng = np.random.default_rng(0)
    kept, parents = ev._select("rank", w, 6, 1, rng)
    assert kept.tolist() == [1, 4, 0] and parents.tolist() == [1, 4, 0]
    kept, parents = ev._select("rank", w, 6, 1, rng, noisy)
    assert kept.tolist() == [1, 4, 3] and parents.tolist() == [1, 4, 3]
    # three children per parent keep 8 // 4 = 2 parents, the 6 children cycle over them
    kept, parents = ev._select("rank", w, 8, 3, rng, noisy)
    assert kept.tolist() == [1, 4] and parents.tolist() == [1, 4] * 3
    # the 'top' release ranks the same way
    C = np.arange(5, dtype=float).reshape(5, 1)
    assert release_indices(w, 3, "top", rng, None, C).tolist() == [1, 4, 0]
    assert release_indices(w, 3, "top", rng, noisy, C).tolist() == [1, 4, 3]


def test_top_release_takes_candidates_in_rank_order_then_repeats():
    """C = [a, a, b, c, b] with counts [5, 4, 3, 2, 1]: 'top' takes candidates (equal records included)
    in rank order, each once, and repeats them when the release is larger than C_T."""
    C = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    w = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    rng = np.random.default_rng(0)
    assert release_indices(w, 2, "top", rng, None, C).tolist() == [0, 1]
    assert release_indices(w, 3, "top", rng, None, C).tolist() == [0, 1, 2]
    assert release_indices(w, 7, "top", rng, None, C).tolist() == [0, 1, 2, 3, 4, 0, 1]
    assert release_indices(w[::-1].copy(), 3, "top", rng, None, C).tolist() == [4, 3, 2]


def test_top_distinct_release_counts_equal_records_once():
    """The same C and counts: the distinct records in rank order are rows 0 (a), 2 (b), 3 (c); a
    release of 5 repeats them in that order: 0, 2, 3, 0, 2."""
    C = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    w = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    rng = np.random.default_rng(0)
    assert release_indices(w, 2, "top-distinct", rng, None, C).tolist() == [0, 2]
    assert release_indices(w, 3, "top-distinct", rng, None, C).tolist() == [0, 2, 3]
    assert release_indices(w, 5, "top-distinct", rng, None, C).tolist() == [0, 2, 3, 0, 2]
    # best-ranked copy: with the counts reversed, row 4 stands for b and row 1 for a
    assert release_indices(w[::-1].copy(), 3, "top-distinct", rng, None, C).tolist() == [4, 3, 1]


def test_default_release_is_the_top_final_counts():
    """The default release is C_T at the `release` largest clipped final counts (stable order)."""
    X = XOR.schema.encode(bc.load_preset_data(XOR, n=400).private)
    cfg = SynthConfig(rounds=3, population=[32, 64, 64], release=20)
    res = ev.run_synthesis(XOR.schema, X, XOR.default_policy(), "tab-pe", 1e-2, config=cfg, seed=3)
    order = np.argsort(-res.final_weights, kind="stable")[:20]
    np.testing.assert_array_equal(res.release, res.final_population[order])
    d = ev.run_synthesis(XOR.schema, X, XOR.default_policy(), "tab-pe", 1e-2, seed=3,
                         config=SynthConfig(rounds=3, population=[32, 64, 64], release=20,
                                            release_mode="top-distinct"))
    assert len(np.unique(d.release, axis=0)) == min(20, len(np.unique(d.final_population, axis=0)))


# ------------------------------------------------------------------ mutation_index: the rate used
def test_mutation_index_picks_the_rate():
    """T = 8: rate_1 = 0.5 - 0.49 (1/8)^0.2 = 0.5 - 0.49 * 2^-0.6; rate_0 = 0.5."""
    t_cfg = SynthConfig()
    prev = SynthConfig(mutation_index="t-1")
    assert round_mutation_rate(1, t_cfg) == pytest.approx(0.5 - 0.49 * 2 ** -0.6, abs=1e-15)
    assert round(round_mutation_rate(1, t_cfg), 6) == 0.176721
    assert round_mutation_rate(1, prev) == 0.5
    assert round_mutation_rate(5, prev) == round_mutation_rate(4, t_cfg)


@pytest.mark.parametrize("index,expected", [("t", [0.5 - 0.49 * (1 / 3) ** 0.2, 0.5 - 0.49 * (2 / 3) ** 0.2]),
                                            ("t-1", [0.5, 0.5 - 0.49 * (1 / 3) ** 0.2])])
def test_the_loop_mutates_at_the_indexed_rate(monkeypatch, index, expected):
    seen: list[float] = []
    real = ev.mutate

    def spy(schema, parents, rate, rng):
        seen.append(rate)
        return real(schema, parents, rate, rng)

    monkeypatch.setattr(ev, "mutate", spy)
    X = XOR.schema.encode(bc.load_preset_data(XOR, n=200).private)
    ev.run_synthesis(XOR.schema, X, XOR.default_policy(), "tab-pe", 1.0,
                     config=SynthConfig(rounds=3, population=[16, 16, 16], release=8, mutation_index=index), seed=0)
    assert seen == pytest.approx(expected, abs=1e-15)


# ------------------------------------------------------------------ the old reading stays available
@pytest.mark.parametrize("seed", [0, 1])
def test_hybrid_256x3_reproduces_the_old_default_exactly(tmp_path, seed):
    named = _cli(tmp_path, "named", *OLD_ARGS, "--seeds", str(seed), "--schedule", "hybrid-256x3")
    explicit = _cli(tmp_path, "explicit", *OLD_ARGS, "--seeds", str(seed), "--children", "3",
                    "--release-mode", "sample")
    new = _cli(tmp_path, "new", *OLD_ARGS, "--seeds", str(seed))
    assert named == explicit
    assert hashlib.sha256(named).hexdigest() == OLD_DEFAULT_SHA256[seed]
    assert new != named
    # explicit flags override the named schedule: hybrid-256x3 with the new reading's two settings = hybrid
    assert _cli(tmp_path, "over", *OLD_ARGS, "--seeds", str(seed), "--schedule", "hybrid-256x3", "--children", "1",
                "--release-mode", "top") == new


def test_rank_by_raw_and_mutation_index_flow_through_cli_report_and_api(tmp_path):
    rep = tmp_path / "r.json"
    cli = _cli(tmp_path, "raw", *OLD_ARGS, "--seeds", "2", "--rank-by", "raw", "--mutation-index=t-1",
               "--report", str(rep))
    cfg = json.loads(rep.read_text())["config"]
    assert (cfg["children"], cfg["release_mode"], cfg["rank_by"], cfg["mutation_index"]) == (1, "top", "raw", "t-1")
    config = SynthConfig(rounds=4, population=[32, 32, 64, 64], release=40, rank_by="raw", mutation_index="t-1")
    syn = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="bf-soft", tau=0.03, rho=1e-3, seed=2,
                         config=config)
    assert syn.get_params()["config"].rank_by == "raw"
    path = tmp_path / "api.csv"
    syn.fit(bc.load_preset_data(XOR, None).private).sample(40).to_csv(path, index=False)
    assert path.read_bytes() == cli
    assert cli != _cli(tmp_path, "clipped", *OLD_ARGS, "--seeds", "2")


# ------------------------------------------------------------------ Runner = CLI = API (default schedule)
def test_runner_cli_and_api_give_the_same_release_with_the_default_schedule(tmp_path):
    tau, rho, seed = 0.03, 6e-4, 0
    cli = _cli(tmp_path, "cli", "--method", "bf-soft", "--tau", str(tau), "--rho", str(rho), "--rounds", "3",
               "--population", "64x3", "--release", "20", "--seeds", str(seed), "--quiet")
    syn = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="bf-soft", tau=tau, rho=rho, seed=seed,
                         config=SynthConfig(rounds=3, population=[64, 64, 64], release=20))
    path = tmp_path / "api.csv"
    syn.fit(bc.load_preset_data(XOR, None).private).sample(20).to_csv(path, index=False)
    assert path.read_bytes() == cli

    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception
    assert at.selectbox(key="rn_schedule").value == "hybrid"
    assert at.radio(key="rn_rank_by").value == "clipped" and at.radio(key="rn_mutation_index").value == "t"
    at.radio(key="rn_budget_mode").set_value("rho (zCDP)").run()
    at.multiselect(key="rn_methods").set_value(["bf-soft"])
    at.number_input(key="tau").set_value(tau)
    at.number_input(key="rn_rho").set_value(rho)
    at.number_input(key="rn_rounds").set_value(3)
    at.text_input(key="rn_population").set_value("64x3")
    at.number_input(key="rn_release").set_value(20)
    at.number_input(key="rn_seeds").set_value(1)
    at.number_input(key="rn_first_seed").set_value(seed)
    at.button(key="rn_run_btn").click().run()
    assert not at.exception, at.exception
    store = at.session_state["runner_results"]
    rec = store[max(store)]
    assert ui.release_csv(rec["releases"][("bf-soft", seed)]) == cli


def test_runner_advanced_schedule_goes_into_the_config():
    base = dict(ui.RUNNER_DEFAULTS, rn_rounds=4, rn_population="32x2,64x2", rn_release=40)
    assert ui.config_from_inputs(base) == SynthConfig(rounds=4, population=[32, 32, 64, 64], release=40)
    old = ui.config_from_inputs(dict(base, rn_schedule="hybrid-256x3", rn_rank_by="raw", rn_mutation_index="t-1"))
    assert old == SynthConfig.from_schedule("hybrid-256x3", rounds=4, population=[32, 32, 64, 64], release=40,
                                            rank_by="raw", mutation_index="t-1")
    with pytest.raises(bc.BlowfishError, match="rank_by"):
        ui.config_from_inputs(dict(base, rn_rank_by="abs"))


def test_top_release_larger_than_the_last_population_is_warned(tmp_path):
    """--release 100 with 64 candidates in the last round: the report's public warnings say the top release
    repeats candidates and how to fix it; a release of half the population gives no such warning."""
    import json

    rep = tmp_path / "r.json"
    _cli(tmp_path, "big", "--method", "hard", "--rho", "1", "--rounds", "2", "--population", "64x2",
         "--release", "100", "--seeds", "0", "--quiet", "--report", str(rep))
    want = ("release 100 > the 64 candidates of the last round: the top release repeats candidates in rank "
            "order. Fix: keep the release at most half the last population (e.g. --release 32), or use "
            "--release-mode sample")
    assert want in json.loads(rep.read_text())["public"]["warnings"]
    _cli(tmp_path, "half", "--method", "hard", "--rho", "1", "--rounds", "2", "--population", "64x2",
         "--release", "32", "--seeds", "0", "--quiet", "--report", str(rep))
    assert not any("top release repeats" in w for w in json.loads(rep.read_text())["public"]["warnings"])


def test_runner_children_and_release_mode_override_the_schedule():
    """The Runner's Advanced children / release choices: 'from the schedule' keeps the schedule's value."""
    base = dict(ui.RUNNER_DEFAULTS, rn_rounds=4, rn_population="32x2,64x2", rn_release=20)
    assert ui.config_from_inputs(base).children == 1 and ui.config_from_inputs(base).release_mode == "top"
    got = ui.config_from_inputs(dict(base, rn_children=3, rn_release_mode="top-distinct"))
    assert got == SynthConfig.from_schedule("hybrid", rounds=4, population=[32, 32, 64, 64], release=20,
                                            children=3, release_mode="top-distinct")
    old = ui.config_from_inputs(dict(base, rn_schedule="hybrid-256x3"))
    assert (old.children, old.release_mode) == (3, "sample")
