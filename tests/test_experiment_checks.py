"""Issue 26: the strict checks (experiments/checks.py), results/checks.json's contract, REPORT's headline."""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np
import pytest

from experiments import checks
from experiments.common import REPORT_PATH, RESULTS_DIR

CHECKS_JSON = os.path.join(RESULTS_DIR, checks.CHECKS_NAME)


# ------------------------------------------------------------------ the criteria on hand-made cases
def test_within_factor_boundaries_on_both_sides():
    assert checks.within_factor(1.5, 1.0) == (1.5, True)              # upper boundary holds
    r, ok = checks.within_factor(1.5000001, 1.0)
    assert r == pytest.approx(1.5000001) and not ok                   # just above fails
    r, ok = checks.within_factor(2.0, 3.0)                            # ratio 2/3 = 1/1.5: lower boundary holds
    assert r == pytest.approx(2 / 3) and ok
    assert checks.within_factor(1.9999, 3.0)[1] is False              # just below 1/1.5 fails
    assert checks.within_factor(2.7e-3, 4.4e-3) == (pytest.approx(0.6136, abs=1e-4), False)   # Bank τ = 0.015
    assert checks.within_factor(1.6e-3, 2.0e-3) == (pytest.approx(0.8), True)
    assert checks.within_factor(None, 1.0) == (None, False)
    assert checks.within_factor(1.0, 0.0) == (None, False)
    assert checks.within_factor(-1.0, 1.0) == (-1.0, False)           # opposite signs never hold
    assert checks.within_factor(-12.0, -10.0) == (1.2, True)          # two negative gains compare by ratio


def test_inside_interval():
    assert checks.inside_interval(27.5, 15.45, 30.22)
    assert checks.inside_interval(15.45, 15.45, 30.22) and checks.inside_interval(30.22, 15.45, 30.22)
    assert not checks.inside_interval(49.65, 25.19, 49.55)            # F.9 at 48k: just outside
    assert not checks.inside_interval(21.1, 28.7, 38.4)               # Fig. 6a age alone
    assert not checks.inside_interval(None, 0.0, 1.0)


def test_count_sign_changes():
    assert checks.count_sign_changes([-1.0, 1.0, -1.0, 1.0]) == 3
    assert checks.count_sign_changes([-0.1, 0.2, -0.3, 0.4, 0.5]) == 3
    assert checks.count_sign_changes([-1.0, 0.0, 1.0]) == 1           # a zero does not count twice
    assert checks.count_sign_changes([-1.0, 0.0, -1.0]) == 0
    assert checks.count_sign_changes([1.0, 2.0]) == 0
    assert checks.count_sign_changes([]) == 0


def test_bootstrap_crossing_exact_on_identical_seeds():
    rhos = [1e-3, 1e-2, 1e-1]
    hard = [[1.0, 1.0, 1.0]] * 5
    soft = [[0.9, 1.1, 1.2]] * 5                                      # every seed crosses halfway in log ρ
    b = checks.bootstrap_crossing(rhos, hard, soft, n_boot=50)
    x = math.sqrt(1e-3 * 1e-2)
    assert b["rho"] == pytest.approx(x) and b["ci95"] == [pytest.approx(x), pytest.approx(x)]
    assert b["sign_changes"] == 1 and b["boot_sign_changes"] == {"1": 1.0} and b["no_crossing_share"] == 0.0
    assert b["per_rho"][0]["mean"] == pytest.approx(-0.1) and b["per_rho"][0]["share_soft_worse"] == 0.0


def test_bootstrap_crossing_counts_noise_crossings():
    """Two seeds with opposite curves: resamples of one seed never cross or cross once; shares sum to 1."""
    rhos = [1e-3, 1e-2, 1e-1, 1.0]
    hard = [[1.0] * 4, [1.0] * 4]
    soft = [[0.9, 1.1, 0.9, 1.1], [0.95, 0.95, 1.2, 1.2]]
    b = checks.bootstrap_crossing(rhos, hard, soft, n_boot=400, seed=1)
    assert b["sign_changes"] == 1                                     # mean curve: -.075, +.025, +.05, +.15
    assert set(b["boot_sign_changes"]) <= {"1", "3"} and "3" in b["boot_sign_changes"]
    assert sum(b["boot_sign_changes"].values()) == pytest.approx(1.0)
    again = checks.bootstrap_crossing(rhos, hard, soft, n_boot=400, seed=1)
    assert again == b                                                 # seeded


def test_crossing_rows_follow_the_15x_rule():
    """A synthetic fig2 summary: a crossing 1.45x off holds, 1.65x off fails, 3 sign changes fail the shape."""
    def tv(rho, changes=1):
        return {"crossing_rho": rho, "last_crossing_rho": rho, "crossing_eps_eq1": 0.1, "q": 0.5,
                "sign_changes": changes, "soft_better_at_min": True, "soft_worse_at_max": True}
    summ = {"fig2": {"datasets": {"bank": {
        "taus": {"0.015": tv(4.4e-3 / 1.65), "0.03": tv(1.6e-3 / 1.45), "0.06": tv(6.7e-4, changes=3)},
        "rhos": [1e-5, 1.0], "seeds": [0], "hard_calibration": {"certified-crossing": 2}}}}}
    rows = {r["claim"]: r for r in checks.build(summ, {})}
    assert rows["Table 4: bank τ = 0.015: crossing ρ× (first sign change of mean(E_S − E_H), linear in log ρ)"][
        "holds"] is False
    r = rows["Table 4: bank τ = 0.03: crossing ρ× (first sign change of mean(E_S − E_H), linear in log ρ)"]
    assert r["holds"] is True and r["ratio"] == pytest.approx(1 / 1.45)
    shape = [v for k, v in rows.items() if k.startswith("§6.2.1 / Table 4: bank τ = 0.06")][0]
    assert shape["holds"] is False and shape["ours"]["sign_changes"] == 3
    assert rows["§6.2.1: bank crossings shift downward as τ grows (0.015 → 0.03 → 0.06)"]["holds"] is True
    missing = [r for r in rows.values() if "adult" in r["claim"] and "crossing ρ×" in r["claim"]]
    assert len(missing) == 3 and all(r["ours"] is None and not r["holds"] and r["criterion"].startswith("not run")
                                     for r in missing)


# ------------------------------------------------------------------ the contract file and the report
@pytest.fixture(scope="module")
def stored_rows():
    with open(CHECKS_JSON, encoding="utf-8") as f:
        return json.load(f)


def test_checks_json_schema(stored_rows):
    assert isinstance(stored_rows, list) and len(stored_rows) >= 100
    for r in stored_rows:
        assert tuple(r) == checks.KEYS, r.get("claim")
        assert isinstance(r["claim"], str) and r["claim"]
        assert isinstance(r["criterion"], str) and r["criterion"]
        assert isinstance(r["holds"], bool)
        assert r["ratio"] is None or isinstance(r["ratio"], float)
        assert r["paper"] is not None
        if r["ours"] is None:
            assert r["holds"] is False and r["criterion"].startswith("not run")
    claims = [r["claim"] for r in stored_rows]
    assert len(set(claims)) == len(claims)
    cross = [r for r in stored_rows if r["claim"].startswith("Table 4:") and "crossing ρ×" in r["claim"]]
    assert len(cross) == 9                                            # XOR-3 included
    for r in cross:
        o = r["ours"]
        assert o["ci95"][0] <= o["rho"] <= o["ci95"][1] and o["n_boot"] == checks.N_BOOT
        assert sum(o["boot_sign_changes"].values()) == pytest.approx(1.0)
    assert any("ρ = 0.003" in c and "reduction" in c for c in claims)  # the 3e-3 gains are rows too


def test_checks_json_is_what_the_code_makes_of_the_stored_results(stored_rows):
    from experiments import report

    summaries, loaded = report.load_all("auto", RESULTS_DIR)
    boot = checks.fig2_crossings(loaded["fig2"])
    rows = json.loads(json.dumps(checks.build(summaries, loaded, boot), default=checks._jsonable))
    assert rows == stored_rows


def test_report_headline_counts_the_holds_of_checks_json(stored_rows):
    text = open(REPORT_PATH, encoding="utf-8").read()
    m = re.search(r"\*\*(\d+) of (\d+) claims hold\*\*", text)
    assert m, "REPORT.md has no 'N of M claims hold' headline"
    assert (int(m.group(1)), int(m.group(2))) == checks.counts(stored_rows)
    assert "**Every listed claim holds**" not in text
    assert text.count("| **no** |") + text.count("| yes |") >= len(stored_rows)


def test_write_refuses_rows_with_other_keys(tmp_path):
    with pytest.raises(ValueError, match="keys must be exactly"):
        checks.write([{"claim": "x", "paper": 1, "ours": 1, "ratio": 1.0, "holds": True}], str(tmp_path / "c.json"))
    p = checks.write([checks._row("x", 1.0, 1.2, 1.2, "c", True)], str(tmp_path / "c.json"))
    assert json.load(open(p)) == [{"claim": "x", "paper": 1.0, "ours": 1.2, "ratio": 1.2, "criterion": "c",
                                   "holds": True}]
    assert np.isclose(checks.counts(json.load(open(p)))[0], 1)
