"""Fresh-user findings of brief 15h: each test fails without its fix.

1. a huge tau: noise_ratio without the 2 tau overflow, and a floor on q (refused, with a tau that works);
2. --scheduler addresses checked (example address; "" refused);
3. the release-size warning: not for reference-only runs, never "--release 0";
4. silently ignored flags refused (--tau without a soft vote, --columns outside the schema, intake
   flags with a generated table, --in-memory-mb without --schema, abbreviations);
5. the soft vote's precision in the report (config.vote_precision, runs, ledger.json);
7. messages (subcommand help, singular flag, CLI flag names, a finite --in-memory-mb).
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blowfish_core as bc
from blowfish_core.interfaces.cli import main as cli
from blowfish_core.interfaces.cli import setting as cli_setting
from blowfish_core.algorithm.dask_engine import check_scheduler, connect
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.algorithm.evolution import SynthConfig, vote_precision_text
from blowfish_core.synthesis.spec import RunRequest, check_soft_tau, validate_request
from blowfish_core.model.policy import Policy, record_reach
from blowfish_core.io.presets import get_preset, load_preset_data
from blowfish_core.synthesis.report import run_warnings
from blowfish_core.interfaces.run_bundle import RunSettings
from blowfish_core.model.sensitivity import MIN_NOISE_RATIO, check_noise_ratio, noise_ratio, tau_for_noise_ratio

XOR = get_preset("xor3")
TINY = SynthConfig(rounds=2, population=[16, 16], release=20)
TINY_ARGS = ["--rounds", "2", "--population", "16x2", "--release", "20", "--quiet"]
REACH = record_reach(XOR.schema, XOR.default_policy())  # 1/28: X_1 threshold 1 level of 7, weight 1/4

HUGE_TAU = ("tau = 1e+308 is too large for the policy's record-level reach r = 0.03571: the noise ratio "
            "q = tanh(r / (2 tau)) = 1.79e-310 is below 1e-06: its sensitivity and noise (q times Hard's) would "
            "be near float rounding, a release with almost no noise. Fix: use tau at most about r, e.g. tau "
            "0.0357 (q = 0.46), or tau 0.03 as in the paper")
TAU_NOT_USED = ("--tau 0.03: no chosen method (hard) uses tau; only the soft votes (bf-soft, soft-dp, "
                "soft-hard-noise) and soft marginals (bf-soft-mst, bf-soft-aim) do, so it would be ignored. Fix: drop --tau, or choose a soft-vote method "
                "(e.g. --method hard,bf-soft)")
FIX = "Fix: give PROTOCOL://HOST:PORT, e.g. tcp://host:8786 (or drop --scheduler for a local cluster)"


def cli_error(capsys, argv: list[str]) -> str:
    """The one 'error: ...' line of a refused CLI call (exit 2, no traceback), without 'error: '."""
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0][len("error: "):]


def synth(tmp_path, *extra: str) -> list[str]:
    return ["synth", "--preset", "xor3", "--rho", "0.003", "--out", str(tmp_path / "o.csv"), *TINY_ARGS, *extra]


# ------------------------------------------------------------------ 1. tau floor


def test_noise_ratio_does_not_overflow_at_the_largest_tau():
    # 2 * 1e308 is inf in float64, so reach / (2 tau) was 0: q = 0, a noise-free BF-Soft release
    assert 2.0 * 1e308 == math.inf
    assert noise_ratio(REACH, 1e308) == REACH / 2 / 1e308 > 0
    assert noise_ratio(1.0, 1.7976931348623157e308) > 0


@settings(max_examples=200, deadline=None)
@given(reach=st.floats(1e-6, 10.0), tau=st.floats(1e-3, 1.7976931348623157e308))
def test_noise_ratio_is_positive_and_the_floor_refuses_exactly_below_it(reach, tau):
    q = noise_ratio(reach, tau)
    assert 0 < q <= 1 and math.isclose(q, math.tanh(reach / 2 / tau), rel_tol=1e-15)
    if q < MIN_NOISE_RATIO:
        with pytest.raises(BudgetError, match=r"^tau = .* is too large for the policy's record-level reach"):
            check_noise_ratio(reach, tau)
    else:
        assert check_noise_ratio(reach, tau) == q


def test_the_floor_is_at_q_1e_minus_6():
    edge = tau_for_noise_ratio(REACH, MIN_NOISE_RATIO)  # r / (2 atanh(1e-6)) = 17,857.1 for r = 1/28
    assert edge == pytest.approx(REACH / 2e-6, rel=1e-9)
    assert check_noise_ratio(REACH, edge * 0.999) > MIN_NOISE_RATIO
    with pytest.raises(BudgetError):
        check_noise_ratio(REACH, edge * 1.001)
    assert check_noise_ratio(0.0, 1e308) == 0.0  # reach 0 has its own refusal (EMPTY_POLICY_MESSAGE)


def test_huge_tau_is_refused_with_the_same_message_everywhere(tmp_path, capsys):
    assert cli_error(capsys, synth(tmp_path, "--method", "bf-soft", "--tau", "1e308")) == HUGE_TAU
    data = load_preset_data(XOR, None).private
    with pytest.raises(BudgetError) as e:
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="bf-soft", tau=1e308, rho=3e-3, seed=0,
                       config=TINY).fit(data)
    assert str(e.value) == HUGE_TAU
    with pytest.raises(BudgetError) as e:
        RunSettings(XOR.schema, XOR.default_policy(), ["bf-soft"], [0], tau=1e308, rho=3e-3, preset="xor3",
                    config=TINY).validate()
    assert str(e.value) == HUGE_TAU
    with pytest.raises(BudgetError) as e:  # the Runner page's route (studio.runner_ui.build_request)
        validate_request(RunRequest(XOR.schema, XOR.default_policy(), data, ["hard", "bf-soft"], 3e-3, tau=1e308,
                                    config=TINY))
    assert str(e.value) == HUGE_TAU
    # tau 1e10: q = 1.8e-12, sigma_t at float-rounding level: refused as well
    assert cli_error(capsys, synth(tmp_path, "--method", "bf-soft", "--tau", "1e10")).startswith(
        "tau = 1e+10 is too large for the policy's record-level reach r = 0.03571: the noise ratio "
        "q = tanh(r / (2 tau)) = 1.79e-12 is below 1e-06")


def test_standard_dp_soft_votes_use_the_gower_diameter():
    with pytest.raises(BudgetError, match=r"^tau = 1e\+07 is too large for the Gower diameter \(standard DP\) r = 1:"):
        check_soft_tau(XOR.schema, XOR.default_policy(), ["soft-dp"], 1e7)
    check_soft_tau(XOR.schema, XOR.default_policy(), ["soft-dp"], 1e5)  # q = 5e-6: allowed
    with pytest.raises(BudgetError):
        check_soft_tau(XOR.schema, XOR.default_policy(), ["bf-soft"], 1e5)  # r = 1/28: q = 1.8e-7
    check_soft_tau(XOR.schema, Policy(), ["bf-soft"], 1e308)  # empty policy: refused elsewhere, not here


def test_runner_page_refuses_a_huge_tau():
    from studio import runner_ui as ui
    from studio.state import Studio

    sp = load_preset_data(XOR)
    studio = Studio("XOR-3 (built-in)", "xor3", sp.private, sp.public, XOR.schema, XOR.default_policy(),
                    metric="hoerr")
    s = dict(ui.RUNNER_DEFAULTS, rn_methods=["hard", "bf-soft"], rn_rounds=2, rn_population="16x2",
             rn_release=20, rn_seeds=1, rn_tau=1e308)
    with pytest.raises(BudgetError) as e:
        ui.build_request(studio, s)
    assert str(e.value) == HUGE_TAU


# ------------------------------------------------------------------ 2. scheduler addresses


@pytest.mark.parametrize("address,message", [
    ("notanaddress", "--scheduler 'notanaddress': not a scheduler address (HOST:PORT is missing or malformed). "
                     + FIX),
    ("foo://x:1", "--scheduler 'foo://x:1': unknown protocol 'foo' (dask uses tcp, tls, ucx, ws, wss). " + FIX),
    ("", "--scheduler '': empty address. " + FIX),
    ("   ", "--scheduler '   ': empty address. " + FIX),
    ("tcp://host:", "--scheduler 'tcp://host:': not a scheduler address (HOST:PORT is missing or malformed). " + FIX),
    ("tcp://host:70000", "--scheduler 'tcp://host:70000': not a scheduler address (HOST:PORT is missing or "
                         "malformed). " + FIX),
])
def test_bad_scheduler_addresses_are_refused(address, message):
    with pytest.raises(BlowfishError) as e:
        check_scheduler(address)
    assert str(e.value) == message
    with pytest.raises(BlowfishError) as e:  # before dask is imported or a local cluster started
        connect(address)
    assert str(e.value) == message


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "localhost:8786", "tls://[::1]:8786",
                                     "ws://h.example.org:80", "TCP://host:1"])
def test_good_scheduler_addresses_pass(address):
    assert check_scheduler(address) == address


def test_cli_scheduler_errors(tmp_path, capsys):
    assert cli_error(capsys, synth(tmp_path, "--method", "hard", "--engine", "dask", "--scheduler", "")) == \
        "--scheduler '': empty address. " + FIX
    assert cli_error(capsys, synth(tmp_path, "--method", "hard", "--engine", "dask", "--scheduler", "foo://x:1")) \
        .startswith("--scheduler 'foo://x:1': unknown protocol 'foo'")


# ------------------------------------------------------------------ 3. release-size warning


def _req(methods, cfg) -> RunRequest:
    return RunRequest(XOR.schema, XOR.default_policy(), None, methods, 3e-3, config=cfg)


def test_release_warning_skipped_for_reference_only_runs():
    cfg = SynthConfig(release=5000).validate()
    assert run_warnings(_req(["mst"], cfg), []) == []
    assert run_warnings(_req(["mst", "aim"], cfg), []) == []
    (w,) = run_warnings(_req(["hard", "mst"], cfg), [])
    assert w == ("release 5000 > the 1024 candidates of the last round: the top release repeats candidates in "
                 "rank order. Fix: keep the release at most half the last population (e.g. --release 512), or use "
                 "--release-mode sample")


def test_release_warning_never_suggests_release_0():
    (w,) = run_warnings(_req(["hard"], SynthConfig(rounds=8, population=[1] * 8, release=5).validate()), [])
    assert "(e.g. --release 1)" in w and "--release 0" not in w
    (w,) = run_warnings(_req(["hard"], SynthConfig(rounds=2, population=[3, 3], release=5).validate()), [])
    assert "(e.g. --release 1)" in w


# ------------------------------------------------------------------ 4. silently ignored flags


def test_tau_without_a_soft_vote_is_refused(tmp_path, capsys):
    assert cli_error(capsys, synth(tmp_path, "--method", "hard", "--tau", "0.03")) == TAU_NOT_USED
    assert cli_error(capsys, synth(tmp_path, "--method", "tab-pe,hard", "--tau", "0.03")) == (
        "--tau 0.03: no chosen method (tab-pe, hard) uses tau; only the soft votes (bf-soft, soft-dp, "
        "soft-hard-noise) and soft marginals (bf-soft-mst, bf-soft-aim) do, so it would be ignored. Fix: drop --tau, or choose a soft-vote method "
        "(e.g. --method tab-pe,hard,bf-soft)")
    data = load_preset_data(XOR, None).private
    with pytest.raises(BlowfishError) as e:
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="hard", tau=0.03, rho=3e-3, seed=0,
                       config=TINY).fit(data)
    assert str(e.value) == TAU_NOT_USED
    with pytest.raises(BlowfishError) as e:
        RunSettings(XOR.schema, XOR.default_policy(), ["hard"], [0], tau=0.03, rho=3e-3, preset="xor3",
                    config=TINY).validate()
    assert str(e.value) == ("tau 0.03: no chosen method (hard) uses tau; only the soft votes (bf-soft, soft-dp, "
                            "soft-hard-noise) and soft marginals (bf-soft-mst, bf-soft-aim) do, so it would be ignored. Fix: drop tau, or choose a soft-vote "
                            "method (e.g. method 'bf-soft')")


def test_a_run_without_soft_vote_records_no_tau(tmp_path, capsys):
    rep = tmp_path / "r.json"
    assert cli.main(synth(tmp_path, "--method", "hard", "--seeds", "0", "--report", str(rep))) == 0
    r = json.loads(rep.read_text())
    assert r["tau"] is None and r["noise_ratio_q"] is None and r["sensitivity_bound"] is None


def test_unknown_columns_with_a_schema_are_refused(tmp_path, capsys):
    assert cli_error(capsys, synth(tmp_path, "--method", "hard", "--columns", "X_1,nosuch,other")) == (
        "--columns: no column 'nosuch', 'other' in the schema (preset xor3); its columns are X_1, X_2, X_3, Y. "
        "Fix: name schema columns, or drop --columns")
    schema = tmp_path / "s.json"
    schema.write_text(XOR.schema.to_json())
    csv = tmp_path / "d.csv"
    load_preset_data(XOR, None).private.head(200).to_csv(csv, index=False)
    msg = cli_error(capsys, ["synth", "--schema", str(schema), "--data", str(csv), "--method", "hard", "--rho",
                             "0.003", "--columns", "age,nosuch", "--out", str(tmp_path / "o.csv"), *TINY_ARGS])
    assert msg == ("--columns: no column 'age', 'nosuch' in the schema (--schema); its columns are X_1, X_2, X_3, "
                   "Y. Fix: name schema columns, or drop --columns")
    msg = cli_error(capsys, ["synth", "--schema", str(schema), "--data", str(csv), "--method", "hard", "--rho",
                             "0.003", "--columns", "X_1,Y", "--out", str(tmp_path / "o.csv"), *TINY_ARGS])
    assert msg == ("--columns X_1,Y: the schema (--schema) models exactly X_1,X_2,X_3,Y, so --columns would be "
                   "ignored. Fix: drop --columns, or edit the schema to model those columns")
    # the schema's own columns (any order) are accepted
    assert cli.main(["synth", "--schema", str(schema), "--data", str(csv), "--method", "hard", "--rho", "0.003",
                     "--columns", "Y,X_1,X_2,X_3", "--protect", "X_1=threshold:1", "--out", str(tmp_path / "o.csv"),
                     *TINY_ARGS]) == 0


@pytest.mark.parametrize("extra,message", [
    (["--sep", ";"], "--sep reads --data, but this run generates its table (no --data), so it would be ignored. "
                     "Fix: drop it, or give --data CSV"),
    (["--drop-missing", "all"], "--drop-missing reads --data, but this run generates its table (no --data), so it "
                                "would be ignored. Fix: drop it, or give --data CSV"),
    (["--no-header", "--missing-level", "X_1=?"],
     "--no-header, --missing-level read --data, but this run generates its table (no --data), so they would be "
     "ignored. Fix: drop them, or give --data CSV"),
    (["--in-memory-mb", "5"], "--in-memory-mb applies to --schema and --preset runs (they read --data whole or in "
                              "chunks; this run generates its table); it would be ignored here. Fix: drop it, or "
                              "give --data CSV"),
    (["--in-memory-mb", "inf"], "--in-memory-mb must be a finite number >= 0 (got inf). Fix: e.g. --in-memory-mb 100"),
    (["--in-memory-mb", "-1"], "--in-memory-mb must be a finite number >= 0 (got -1). Fix: e.g. --in-memory-mb 100"),
])
def test_intake_flags_with_a_generated_table_are_refused(tmp_path, capsys, extra, message):
    assert cli_error(capsys, synth(tmp_path, "--method", "hard", *extra)) == message


def test_abbreviations_are_refused(tmp_path, capsys):
    msg = cli_error(capsys, synth(tmp_path, "--meth", "hard"))
    assert msg == "unrecognized arguments: --meth hard (see python -m blowfish_core synth --help)"
    assert cli.build_parser().allow_abbrev is False


# ------------------------------------------------------------------ 5. vote precision in the report


def test_vote_precision_text():
    assert vote_precision_text([]) is None
    assert vote_precision_text(["float32"] * 3) == "float32"
    assert vote_precision_text(["float32", "float32", "float64"]) == "float32 in round(s) 1, 2; float64 in round(s) 3"


@pytest.mark.parametrize("extra,expected", [
    (["--method", "hard,bf-soft", "--tau", "0.03", "--seeds", "0"], "float32"),   # study run: float32 tiles
    (["--method", "bf-soft", "--tau", "0.0005", "--seeds", "0"], "float64"),     # tau too small for float32
    (["--method", "bf-soft", "--tau", "0.03"], "float64"),                       # a release
])
def test_report_and_ledger_record_the_vote_precision(tmp_path, capsys, extra, expected):
    rep, bundle = tmp_path / "r.json", tmp_path / "b"
    assert cli.main(synth(tmp_path, *extra, "--report", str(rep), "--bundle", str(bundle))) == 0
    r = json.loads(rep.read_text())
    assert r["config"]["vote_precision"] == {"bf-soft": expected}
    assert {x["method"]: x["vote_precision"] for x in r["runs"]} == (
        {"hard": None, "bf-soft": expected} if "hard,bf-soft" in extra else {"bf-soft": expected})
    led = json.loads((bundle / "ledger.json").read_text())
    assert led["config"]["vote_precision"] == {"bf-soft": expected}
    assert [e.get("vote_precision") for e in led["ledger"] if e["method"] == "bf-soft"] == [expected]
    assert all("vote_precision" not in e for e in led["ledger"] if e["method"] == "hard")


def test_hard_only_report_has_no_vote_precision(tmp_path, capsys):
    rep = tmp_path / "r.json"
    assert cli.main(synth(tmp_path, "--method", "hard", "--seeds", "0", "--report", str(rep))) == 0
    assert json.loads(rep.read_text())["config"]["vote_precision"] is None


# ------------------------------------------------------------------ 7. messages


def test_unknown_argument_points_to_the_subcommand_help(tmp_path, capsys):
    assert cli_error(capsys, synth(tmp_path, "--method", "hard", "--bogus")) == \
        "unrecognized arguments: --bogus (see python -m blowfish_core synth --help)"
    assert cli_error(capsys, ["reach", "--preset", "xor3", "--bogus"]) == \
        "unrecognized arguments: --bogus (see python -m blowfish_core reach --help)"


def test_one_schedule_flag_is_singular(tmp_path, capsys):
    pytest.importorskip("mbi", reason="the reference methods' optional extra")
    assert cli_error(capsys, ["synth", "--preset", "xor3", "--method", "mst", "--rho", "0.003", "--rounds", "3",
                              "--out", str(tmp_path / "o.csv"), "--quiet"]) == (
        "--rounds: an Algorithm 1 schedule flag, but --method mst runs no Algorithm 1 loop, so it would be ignored. "
        "Fix: drop it, or add an Algorithm 1 method (e.g. --method hard,mst)")


def test_one_schedule_flag_message_without_mbi():
    args = cli.build_parser().parse_args(["synth", "--preset", "xor3", "--method", "mst", "--rho", "0.003",
                                          "--rounds", "3", "--out", "o.csv"])
    with pytest.raises(BlowfishError) as e:
        cli_setting.check_schedule_flags(args, cli_setting.config_from_args(args), ["mst"])
    assert str(e.value) == ("--rounds: an Algorithm 1 schedule flag, but --method mst runs no Algorithm 1 loop, so "
                            "it would be ignored. Fix: drop it, or add an Algorithm 1 method (e.g. --method hard,mst)")
    args = cli.build_parser().parse_args(["synth", "--preset", "xor3", "--method", "mst", "--rho", "0.003",
                                          "--rounds", "3", "--release-mode", "top", "--out", "o.csv"])
    with pytest.raises(BlowfishError, match=r"^--rounds, --release-mode: Algorithm 1's schedule flags, .* so they "
                                            r"would be ignored\. Fix: drop them,"):
        cli_setting.check_schedule_flags(args, cli_setting.config_from_args(args), ["mst"])


def test_intake_messages_name_the_cli_flags(tmp_path, capsys):
    csv = tmp_path / "d.csv"
    csv.write_text("a,b\n1,x\n2,y\n")
    msg = cli_error(capsys, ["schema", "--data", str(csv), "--drop-missing", "nosuch"])
    assert "(in --drop-missing / --missing-level)" in msg and "drop_missing" not in msg
