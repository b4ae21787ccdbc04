"""Reference methods MST and AIM in the method table (issue 12): CLI = API byte for byte, the
same ledger (zCDP rows summing to rho, Eq. (1) only), empty policy accepted, tau ignored,
zCDP only, and a clean install message without mbi.

The runs that need mbi/jax skip (with the reason) when the optional extra is absent; the
table, the totals and the missing-dependency path are tested without it.
"""

from __future__ import annotations

import json
import math

import pytest

import blowfish_core as bc
from blowfish_core.synthesis import report
from blowfish_core.privacy.accounting import epsilon_eq1
from blowfish_core.baselines import MissingDependencyError, _mbi
from blowfish_core.interfaces.cli.main import main
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.synthesis.spec import RunRequest, validate_request
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.io.exports import to_csv_safe
from blowfish_core.privacy.ledger import LedgerRow
from blowfish_core.privacy.totals import privacy_totals
from blowfish_core.algorithm.methods import METHODS, get_method
from blowfish_core.model.policy import Policy

from tests.mbi_marks import HAVE_MBI, WHY, needs_mbi  # noqa: F401
XOR = bc.get_preset("xor3")
RHO = 0.05
SEED = 3
RELEASE = 64


@pytest.fixture(scope="module")
def data():
    return bc.load_preset_data(XOR, None).private


def _cli(tmp_path, name: str, *extra: str) -> tuple[int, bytes | None, dict | None]:
    out, rep = tmp_path / f"{name}.csv", tmp_path / f"{name}.json"
    rc = main(["synth", "--preset", "xor3", "--out", str(out), "--report", str(rep), "--release", str(RELEASE),
               "--quiet", *extra])
    if rc != 0:
        return rc, None, None
    return rc, out.read_bytes(), json.loads(rep.read_text())


@pytest.fixture(scope="module")
def cli_mst(tmp_path_factory):
    """One CLI run of MST (xor3, rho 0.05, seed 3, 64 rows): (csv bytes, report)."""
    if not HAVE_MBI:
        pytest.skip(WHY)
    rc, csv, rep = _cli(tmp_path_factory.mktemp("mst"), "mst", "--method", "mst", "--rho", str(RHO),
                        "--seeds", str(SEED))
    assert rc == 0
    return csv, rep


# ---------------------------------------------------------------- the table (no mbi needed)
@pytest.mark.parametrize("name", ["mst", "aim"])
def test_reference_methods_are_table_entries(name):
    m = get_method(name)
    assert m is METHODS[name] and m.runner == "baseline" and m.is_reference
    assert m.fit == f"fit_{name}" and callable(getattr(bc.baselines, m.fit))
    assert "reference: standard DP, not policy-aware" in m.label
    assert m.notion == "standard" and not m.policy_aware and not m.needs_tau
    assert "ignores the policy and tau" in m.notion_text
    assert m.mechanisms == ("gaussian",)
    with pytest.raises(BlowfishError, match="not an Algorithm 1 method"):
        m.make_vote(None)
    with pytest.raises(BudgetError, match="--mechanism laplace.*runs only with --mechanism gaussian"):
        m.check_mechanism("laplace", "--mechanism")
    # the Algorithm 1 methods keep their runner and accept every mechanism
    for other in ("tab-pe", "hard", "bf-soft"):
        assert get_method(other).runner == "evolution" and get_method(other).mechanisms is None


def test_zcdp_ledger_of_gaussian_and_exponential_rows_uses_eq1_only():
    """Hand-checkable: rho_t 0.3 (Gaussian) + 0.2 (exponential, epsilon_t = sqrt(1.6)) = 0.5;
    epsilon by Eq. (1) at delta 1e-5 = 0.5 + 2 sqrt(0.5 ln 1e5); never the exact Gaussian curve."""
    e = LedgerRow(2, 3, "exponential", 2.0, "score", 2 * 2.0 / math.sqrt(1.6), "global",
                  rho_t=0.2, epsilon_t=math.sqrt(1.6))
    g = LedgerRow(1, 10, "gaussian", math.sqrt(2), "l2", math.sqrt(2 / 0.6), "global", rho_t=0.3)
    tot = privacy_totals([g, e], 1e-5)
    assert tot["accountant"] == "zcdp-eq1" and tot["mechanisms"] == ["exponential", "gaussian"]
    assert tot["rho"] == pytest.approx(0.5, rel=1e-15) and tot["rho_per_round"] == [0.3, 0.2]
    assert tot["epsilon"] == tot["epsilon_eq1"] == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)), rel=1e-12)
    assert "epsilon_exact" not in tot
    # the declared total wins (as for Gaussian ledgers), an all-exponential ledger is zCDP too
    assert privacy_totals([g, e], 1e-5, rho=0.5)["rho"] == 0.5
    assert privacy_totals([e], 1e-6)["epsilon_eq1"] == pytest.approx(epsilon_eq1(0.2, 1e-6))
    # an exponential row has no Gaussian sigma; the Gaussian one keeps it
    assert e.sigma_t is None and e.to_dict()["sigma_t"] is None and g.sigma_t == g.scale
    # all-Gaussian ledgers keep the exact curve
    assert privacy_totals([g, g], 1e-5)["accountant"] == "gdp-exact"


# ---------------------------------------------------------------- missing mbi (monkeypatched)
@pytest.fixture
def no_mbi(monkeypatch):
    real = _mbi.importlib.import_module

    def fake(name, *a, **k):
        if name in ("mbi", "jax") or name.startswith("mbi."):
            raise ImportError(f"No module named '{name}'")
        return real(name, *a, **k)

    monkeypatch.setattr(_mbi.importlib, "import_module", fake)
    monkeypatch.setattr(_mbi, "_cache", {})


@pytest.mark.parametrize("method", ["mst", "aim", "hard,mst"])
def test_missing_mbi_is_a_clean_cli_error_before_any_work(tmp_path, capsys, no_mbi, method):
    out = tmp_path / "x.csv"
    rc = main(["synth", "--preset", "xor3", "--method", method, "--rho", "0.01", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: ") and "Traceback" not in err
    assert "pip install .[baseline]" in err and get_method(method.split(",")[-1]).name.upper() in err
    assert not out.exists()  # refused before any run (hard first would otherwise have run)


def test_missing_mbi_api_and_request(no_mbi, data):
    with pytest.raises(MissingDependencyError, match=r"pip install \.\[baseline\]"):
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="mst", rho=0.01, seed=0).fit(data)
    req = RunRequest(XOR.schema, XOR.default_policy(), data, ["tab-pe", "aim"], 0.01)
    with pytest.raises(MissingDependencyError, match="AIM"):
        validate_request(req)


# ---------------------------------------------------------------- runs (need mbi)
@needs_mbi
def test_mst_cli_and_api_give_the_same_release_byte_for_byte(tmp_path, data, cli_mst):
    csv, rep = cli_mst
    syn = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="mst", rho=RHO, seed=SEED,
                         config=SynthConfig(release=RELEASE)).fit(data)
    path = tmp_path / "api.csv"
    to_csv_safe(syn.sample(RELEASE), str(path))
    assert path.read_bytes() == csv
    assert [r.to_dict() for r in syn.ledger_] == rep["runs"][0]["rounds"]
    assert syn.privacy_ == rep["privacy"]
    # run_paired (what sweeps and the Runner use) gives the same release
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), data, ["mst"], RHO, seeds=[SEED],
                                config=SynthConfig(release=RELEASE)))
    assert res.run("mst", SEED).release.equals(XOR.schema.decode(syn.result_.release))
    # further samples come from the fitted model (post-processing), reproducibly
    more = syn.sample(100)
    again = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="mst", rho=RHO, seed=SEED,
                           config=SynthConfig(release=RELEASE)).fit(data)
    again.sample(RELEASE)
    assert len(more) == 100 and list(more.columns) == list(data.columns) and more.equals(again.sample(100))


@needs_mbi
def test_mst_report_ledger_sums_to_rho(cli_mst):
    _, rep = cli_mst
    p = XOR.schema.p
    rows = rep["runs"][0]["rounds"]
    assert [r["mechanism"] for r in rows] == ["gaussian"] * p + ["exponential"] * (p - 1) + ["gaussian"] * (p - 1)
    assert [r["t"] for r in rows] == list(range(1, len(rows) + 1))
    priv = rep["privacy"]
    assert math.isclose(math.fsum(r["rho_t"] for r in rows), RHO, rel_tol=1e-12) and priv["rho"] == RHO
    assert priv["accountant"] == "zcdp-eq1" and "epsilon_exact" not in priv
    assert priv["epsilon_eq1"] == pytest.approx(epsilon_eq1(RHO, 1e-5), rel=1e-12)
    for r in rows:
        if r["mechanism"] == "gaussian":  # sigma = sqrt(2) / sqrt(2 rho_t), replace-one
            assert r["sensitivity_t"] == math.sqrt(2) and r["sigma_t"] == pytest.approx(1 / math.sqrt(r["rho_t"]))
        else:  # exponential: rho_t = epsilon_t^2 / 8, scale = Gumbel scale 2 Delta / epsilon
            assert r["rho_t"] == pytest.approx(r["epsilon_t"] ** 2 / 8) and r["sigma_t"] is None
            assert r["scale_t"] == pytest.approx(2 * r["sensitivity_t"] / r["epsilon_t"])
        assert r["calibration"] == "global" and r["surviving"] == r["candidates"] > 0
    assert rep["warnings"] == []
    assert "ignores the policy" in rep["method_notions"]["mst"]


@needs_mbi
def test_mst_accepts_an_empty_policy_and_refuses_tau(tmp_path, capsys, data, cli_mst):
    """The policy does not enter MST: an empty policy is accepted (no flag needed, unlike Hard/BF-Soft)
    and the release is byte-identical.  tau does not enter it either, so --tau / tau= is refused (it
    would be ignored while the report recorded a tau and a noise ratio; issue 15h)."""
    csv, _ = cli_mst
    rc, csv_empty, rep = _cli(tmp_path, "empty", "--method", "mst", "--rho", str(RHO), "--seeds", str(SEED),
                              "--protect", "X_1=none")
    assert rc == 0 and csv_empty == csv
    assert rep["blowfish_protection"] is False and rep["warnings"] == [] and rep["tau"] is None
    capsys.readouterr()
    assert _cli(tmp_path, "tau", "--method", "mst", "--rho", str(RHO), "--tau", "0.03")[0] == 2
    assert ("error: --tau 0.03: no chosen method (mst) uses tau; only the soft votes (bf-soft, soft-dp, "
            "soft-hard-noise) and soft marginals (bf-soft-mst, bf-soft-aim) do, so it would be ignored. Fix: drop --tau, or choose a soft-vote method "
            "(e.g. --method mst,bf-soft)") in capsys.readouterr().err
    # Hard is still refused on the empty policy
    assert _cli(tmp_path, "hard", "--method", "hard", "--rho", str(RHO), "--protect", "X_1=none")[0] == 2
    # the API: an empty Policy() is accepted and changes nothing; a tau is refused
    cfg = SynthConfig(release=RELEASE)
    a = bc.Synthesizer(XOR.schema, Policy(), method="mst", rho=RHO, seed=SEED, config=cfg).fit(data)
    with pytest.raises(BlowfishError, match=r"^--tau 0\.03: no chosen method \(mst\) uses tau"):
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="mst", rho=RHO, tau=0.03, seed=SEED,
                       config=cfg).fit(data)
    path = tmp_path / "api.csv"
    to_csv_safe(a.sample(RELEASE), str(path))
    assert path.read_bytes() == csv
    validate_request(RunRequest(XOR.schema, Policy(), data, ["mst"], RHO))  # no allow_empty_policy needed


@needs_mbi
def test_reference_methods_refuse_a_non_zcdp_mechanism(tmp_path, capsys, data):
    rc = main(["synth", "--preset", "xor3", "--method", "tab-pe,mst", "--mechanism", "laplace", "--epsilon", "1",
               "--out", str(tmp_path / "x.csv"), "--quiet"])
    assert rc == 2 and "runs only with --mechanism gaussian" in capsys.readouterr().err
    with pytest.raises(BudgetError, match="runs only with mechanism gaussian"):
        bc.Synthesizer(XOR.schema, Policy(), method="aim", epsilon=1.0, mechanism="laplace").fit(data)


def test_reference_method_with_pubmix_names_the_noise_argument_the_user_gave(tmp_path, capsys, data):
    """Newcomer trial: the API said 'mechanism pubmix ... use mechanism gaussian' for noise='pubmix'.
    The CLI and the API now give the same message, naming the field as each calls it."""
    rc = main(["synth", "--preset", "xor3", "--method", "bf-mst", "--noise", "pubmix", "--epsilon", "1",
               "--out", str(tmp_path / "x.csv"), "--quiet"])
    cli = capsys.readouterr().err
    assert rc == 2 and cli.startswith("error: --noise pubmix: bf-MST ")
    public = bc.load_preset_data(XOR).public
    with pytest.raises(BudgetError) as e:
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="bf-mst", noise="pubmix", epsilon=1.0,
                       public=public).fit(data)
    assert str(e.value) == cli[len("error: "):].strip().replace("--noise", "noise")
    assert "mechanism" not in str(e.value) and "Fix: use noise gaussian for it" in str(e.value)


@needs_mbi
def test_paired_run_with_hard_states_the_totals_that_hold_for_both(data):
    cfg = SynthConfig(rounds=2, population=[16, 16], release=RELEASE)
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), data, ["hard", "mst"], RHO, seeds=[0, 1],
                                config=cfg))
    assert [(r.method, r.seed) for r in res.runs] == [("hard", 0), ("mst", 0), ("hard", 1), ("mst", 1)]
    assert res.privacy["accountant"] == "zcdp-eq1" and res.privacy["rho"] == RHO
    for r in res.runs:
        assert math.isclose(math.fsum(x.rho_t for x in r.ledger), RHO, rel_tol=1e-12)
    rep = res.report
    assert set(rep["summary"]["per_method"]) == {"hard", "mst"}
    assert all(v["n"] == 2 for v in rep["summary"]["per_method"].values())
    assert "Eq. (1)" in report.ledger_text(rep)


def test_run_bundle_plans_the_eq1_statement_for_reference_methods():
    """The runnable export's README states a reference method's budget by Eq. (1), never the exact curve."""
    from blowfish_core.interfaces.run_bundle import RunSettings, planned_report, readme

    s = RunSettings(schema=XOR.schema, policy=XOR.default_policy(), methods=["hard", "mst"], seeds=[0], rho=1e-3,
                    preset="xor3", config=SynthConfig(rounds=2, population=[16, 16], release=20))
    priv = planned_report(s)["privacy"]
    assert priv["accountant"] == "zcdp-eq1" and priv["epsilon_eq1"] == pytest.approx(epsilon_eq1(1e-3, 1e-5))
    text = readme(s)
    assert "by Eq. (1); no exact Gaussian curve" in text and "exact Gaussian curve;" not in text
    only = RunSettings(schema=XOR.schema, policy=XOR.default_policy(), methods=["hard"], seeds=[0], rho=1e-3,
                       preset="xor3", config=SynthConfig(rounds=2, population=[16, 16], release=20))
    assert planned_report(only)["privacy"]["accountant"] == "gdp-exact"


def test_report_section_comes_from_the_stored_baseline_results(tmp_path):
    """experiments.report appends the MST/AIM section from results/baseline.json (none without it)."""
    from experiments import exp_baseline

    assert exp_baseline.section(str(tmp_path)) is None
    text = exp_baseline.section()
    assert text.startswith("## 12. Reference: MST and AIM (standard DP)")
    assert "run with the default schedule (DESIGN §3" in text and "| our step | source |" in text
    assert "### Adult" in text and "### Bank" in text and text.count("MST is lower at all") == 2
    assert "a seeded release repeats in every process" in text and "PYTHONHASHSEED" not in text


def test_the_refusal_names_the_flag_given(tmp_path, capsys):
    """--noise pubmix with MST is refused naming --noise, the flag the user typed (a new user's find)."""
    rc = main(["synth", "--preset", "xor3", "--method", "mst", "--noise", "pubmix", "--epsilon", "1",
               "--seeds", "0", "--out", str(tmp_path / "x.csv"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "--noise pubmix: MST" in err and "Fix: use --noise gaussian" in err and "--mechanism" not in err
