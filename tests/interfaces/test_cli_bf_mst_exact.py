"""The CLI after an unseeded bf-mst release (issue 25): its public output, the bundle's ledger.txt and
ledger.json name the marginals released exactly (not protected by the policy, no noise), in the words
the studio shows (report_text.exact_release_text).  XOR-3's preset policy protects X_1 only, so
(X_2), (X_3), (Y) are always exact and every noisy marginal holds X_1."""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.cli_helpers import run_cli

pytest.importorskip("mbi", reason="bf-mst needs the optional [baseline] extra")

LINE = re.compile(r"^  bf-MST: Released exactly \(not protected by the policy, no noise\): the marginals "
                  r"\(X_2\), \(X_3\), \(Y\)(, \((X_2|X_3), (X_3|Y)\))*; noisy: \(X_1\)(, \(X_1, (X_2|X_3|Y)\))+\.$",
                  re.M)


def test_a_bf_mst_release_names_the_marginals_released_exactly(tmp_path, capsys):
    bundle = os.path.join(tmp_path, "bundle")
    rc, out, err = run_cli(capsys, ["synth", "--preset", "xor3", "--n", "400", "--method", "bf-mst", "--rho", "0.1",
                                    "--release", "50", "--out", os.path.join(tmp_path, "r.csv"), "--bundle", bundle,
                                    "--eval-report", os.path.join(tmp_path, "internal.json"), "--quiet"])
    assert rc == 0, err
    printed = LINE.findall(out + err)
    assert len(printed) == 1, out + err
    text = open(os.path.join(bundle, "ledger.txt"), encoding="utf-8").read()
    said = LINE.search(text)
    assert said is not None, text
    assert said.group(0) in (out + err).splitlines()  # the same sentence on screen and in ledger.txt
    pub = json.load(open(os.path.join(bundle, "ledger.json"), encoding="utf-8"))
    m = pub["ledger"][0]["marginals"]
    assert m["exact"][:3] == [["X_2"], ["X_3"], ["Y"]] and m["noisy"][0] == ["X_1"]
    assert all("X_1" not in c for c in m["exact"]) and all("X_1" in c for c in m["noisy"])
    # the sentence lists the ledger.json's cliques, in order
    names = ", ".join("(" + ", ".join(c) + ")" for c in m["exact"])
    assert f"the marginals {names}; noisy: " in said.group(0)


def test_a_mst_release_says_nothing_about_exact_marginals(tmp_path, capsys):
    rc, out, err = run_cli(capsys, ["synth", "--preset", "xor3", "--n", "400", "--method", "mst", "--rho", "0.1",
                                    "--release", "50", "--out", os.path.join(tmp_path, "r.csv"), "--quiet"])
    assert rc == 0, err
    assert "Released exactly" not in out + err
