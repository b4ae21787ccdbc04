"""The words for marginals released exactly (issue 25, bf-mst): report_text.exact_release_text /
exact_release_lines, the ledger text's line, verdicts.exact_release_verdict and
baselines.ledger.released_marginals.  Exact expected strings, held here."""

from __future__ import annotations

import pandas as pd

from blowfish_core.baselines.ledger import BaselineResult, LedgerRow, released_marginals
from blowfish_core.synthesis.report_text import exact_release_lines, exact_release_text
from blowfish_core.workflows.verdicts import exact_release_verdict

ADULT = {"exact": [["workclass"], ["education", "marital.status"]], "noisy": [["age"], ["age", "sex"]]}
ADULT_TEXT = ("Released exactly (not protected by the policy, no noise): the marginals (workclass), "
              "(education, marital.status); noisy: (age), (age, sex).")


def test_the_sentence_names_the_exact_and_the_noisy_marginals():
    assert exact_release_text(ADULT) == ADULT_TEXT
    assert exact_release_text({"exact": [["Y"]], "noisy": [["X_1"]]}) == (
        "Released exactly (not protected by the policy, no noise): the marginal (Y); noisy: (X_1).")
    # participation edges: nothing is exact
    assert exact_release_text({"exact": [], "noisy": [["X_1"], ["X_1", "Y"]]}) == (
        "Released exactly: no marginal (every measured marginal is protected by the policy); noisy: (X_1), (X_1, Y).")
    assert exact_release_text({"exact": [["Y"]], "noisy": []}) == (
        "Released exactly (not protected by the policy, no noise): the marginal (Y); noisy: none.")


def _entry(method, seed, marginals=None):
    e = {"method": method, "seed": seed, "rounds": []}
    if marginals is not None:
        e["marginals"] = marginals
    return e


def test_one_line_per_method_and_a_line_per_seed_when_they_differ():
    other = {"exact": [["workclass"]], "noisy": [["age"], ["age", "sex"], ["age", "education"]]}
    release = {"ledger": [_entry("bf-mst", None, ADULT), _entry("mst", None)]}
    assert exact_release_lines(release) == ["bf-MST: " + ADULT_TEXT]
    same = {"ledger": [_entry("hard", 0), _entry("bf-mst", 0, ADULT), _entry("bf-mst", 1, ADULT)]}
    assert exact_release_lines(same) == ["bf-MST: " + ADULT_TEXT]
    differ = {"ledger": [_entry("bf-mst", 0, ADULT), _entry("bf-mst", 1, other), _entry("bf-mst", 2, ADULT)]}
    assert exact_release_lines(differ) == [
        "bf-MST, seeds 0, 2: " + ADULT_TEXT,
        "bf-MST, seed 1: Released exactly (not protected by the policy, no noise): the marginal (workclass); "
        "noisy: (age), (age, sex), (age, education).",
    ]
    # a union report (build_report) is read through its public part
    assert exact_release_lines({"public": release, "runs": []}) == ["bf-MST: " + ADULT_TEXT]
    assert exact_release_lines({"ledger": [_entry("mst", 0), _entry("hard", 0)]}) == []


def test_the_verdict_says_the_lines_and_why():
    v = exact_release_verdict({"ledger": [_entry("bf-mst", None, ADULT)]})
    assert v is not None and v.level == "neutral"
    assert v.headline == "Released exactly: what the policy does not protect"
    assert v.detail == ("bf-MST: " + ADULT_TEXT + " Blowfish protects only what the policy's edges change: a "
                        "marginal that no policy edge changes is the same on every pair of neighbouring tables, "
                        "so it is published as it is.")
    assert exact_release_verdict({"ledger": [_entry("mst", None)]}) is None


def _row(i, step, mech, clique, sens, rho):
    return LedgerRow(i, step, mech, tuple(clique), sens, 1.0 if rho else 0.0, rho)


def test_released_marginals_reads_info_exact_and_the_noisy_measurements():
    rows = (_row(0, "measure-1way", "gaussian", ["age"], 2 ** 0.5, 0.1),
            _row(1, "measure-1way", "gaussian", ["workclass"], 0.0, 0.0),
            _row(2, "select", "exponential", ["age", "sex"], 2.0, 0.1),
            _row(3, "measure-2way", "gaussian", ["age", "sex"], 2 ** 0.5, 0.1),
            _row(4, "measure-2way", "gaussian", ["education", "marital.status"], 0.0, 0.0))
    res = BaselineResult(pd.DataFrame(), None, rows, 0.0, 0.3, "bf-mst",
                         info={"exact": [["workclass"], ["education", "marital.status"]], "protected": ["age"]})
    assert released_marginals(res) == {"exact": [["workclass"], ["education", "marital.status"]],
                                       "noisy": [["age"], ["age", "sex"]]}
    assert released_marginals(BaselineResult(pd.DataFrame(), None, rows, 0.0, 0.3, "mst")) is None  # no info["exact"]
