"""bf-aim (baselines.bf_aim, issue 25): AIM's quality-score sensitivity by enumeration, and the fit.

AIM's quality score of candidate r is q_r(D) = w_r (||h_r(D) - hhat_r||_1 - c_r), with the model's
marginal hhat_r and the bias c_r = sqrt(2/pi) sigma_r n_r fixed by earlier releases (public).  On
the domains of test_blowfish_sensitivity (XOR-3 and the 3 x 4 x 2 mixed domain, several binnings,
with and without participation edges), for every record x of the domain and every record-level
policy edge x -> x' (and, with participation, x -> bottom), the table D = B + [x] (B a fixed table
of 12 records) and D' = B + [x'] are scored under two models (hhat = h(D), where the change is
attained, and a random one), with a nonzero bias: the largest |q_r(D) - q_r(D')| over all of them
must equal the claimed per-candidate sensitivity w_r x (l1 sensitivity of h_r), and the round's
sensitivity (the maximum over the candidates) the largest change over all candidates.  The weights
are AIM's (workload all pairs, w_r = sum_s |r ∩ s|); cells are computed here from the binning's
definition, the edges from the policy's (test_blowfish_sensitivity).
"""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blowfish_core.baselines.aim import workload_candidates
from blowfish_core.baselines.blowfish_sensitivity import PolicyMarginals
from blowfish_core.baselines.cells import PublicCells
from blowfish_core.base.errors import PolicyError
from blowfish_core.io.presets import get_preset, load_preset_data, xor
from blowfish_core.model.policy import AttributePolicy, Policy

from tests.baselines.test_blowfish_sensitivity import CASES, XOR_DEFAULT, _cell, _linked, _mixed_schema, _values
from tests.mbi_marks import HAVE_MBI, WHY, needs_mbi  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


def enumerate_scores(schema, policy, bins, seed=0):
    """{candidate: largest |q_r(D) - q_r(D')| over every record, edge and the two models}, and the
    count of (record, edge) pairs checked."""
    attrs = schema.attributes
    doms = [_values(a) for a in attrs]
    weights = workload_candidates(schema.names, None)
    rng = np.random.default_rng(seed)
    base = [tuple(d[int(rng.integers(len(d)))] for d in doms) for _ in range(12)]
    sizes = [bins if a.kind == "numeric" else len(a.levels) for a in attrs]

    def cell(rec, r):  # flat index of rec's cell in marginal r (C order)
        return int(np.ravel_multi_index([_cell(attrs[i], rec[i], bins) for i in r], [sizes[i] for i in r]))

    hist = {}
    rand = {}
    for r in weights:
        h = np.zeros(int(np.prod([sizes[i] for i in r])))
        for b in base:
            h[cell(b, r)] += 1
        hist[r] = h
        rand[r] = rng.dirichlet(np.ones(h.size)) * (len(base) + 1)
    best = dict.fromkeys(weights, 0.0)
    checked = 0
    for rec in itertools.product(*doms):
        moves = []
        for i, a in enumerate(attrs):
            ap = policy.policy_for(a.name)
            moves += [rec[:i] + (v,) + rec[i + 1:] for v in doms[i] if _linked(a, ap, rec[i], v)]
        if policy.participation:
            moves.append(None)  # (rec, bottom): D' = B
        checked += len(moves)
        for r, w in weights.items():
            hD = hist[r].copy()
            hD[cell(rec, r)] += 1
            bias = 0.37 * hD.size  # any public constant: it cancels
            for other in moves:
                hD2 = hist[r].copy()
                if other is not None:
                    hD2[cell(other, r)] += 1
                for model in (hD, rand[r]):
                    q = w * (np.abs(hD - model).sum() - bias)
                    q2 = w * (np.abs(hD2 - model).sum() - bias)
                    best[r] = max(best[r], abs(q - q2))
    return best, checked, weights


@pytest.mark.parametrize("participation", [False, True], ids=["record-edges", "participation"])
@pytest.mark.parametrize("name,schema,per,bins,records,edges", CASES, ids=[c[0] for c in CASES])
def test_aim_score_sensitivity_equals_the_enumerated_max(name, schema, per, bins, records, edges, participation):
    policy = Policy(per, participation=participation)
    best, checked, weights = enumerate_scores(schema, policy, bins)
    assert checked == edges + (records if participation else 0)
    plan = PolicyMarginals.of(PublicCells.from_schema(schema, bins), policy)
    cands = list(weights)
    sel = plan.weighted_selection(cands, [weights[r] for r in cands])
    lines = [f"{name}{' + participation' if participation else ''}: {records} records, {checked} edges"]
    for (clique, claim), r in zip(sel.per_candidate, cands):
        lines.append(f"  {'x'.join(clique):<14} w {weights[r]:g}  max |dq| {best[r]:g} / claim {claim:g}")
        assert best[r] <= claim + 1e-9, clique  # the claim bounds every edge's change ...
        assert best[r] == pytest.approx(claim, abs=1e-9), clique  # ... and is attained (hhat = h(D))
    print("\n".join(lines))
    assert sel.sensitivity == pytest.approx(max(best.values()), abs=1e-9)
    # a round over the exact candidates only has sensitivity 0; adding a protected one lifts it to its value
    exact = [r for r in cands if plan.marginal(r).exact]
    assert plan.weighted_selection(exact, [weights[r] for r in exact]).sensitivity == 0.0


def test_pinned_aim_claims_on_xor3():
    """Hand-checked: p = 4, workload all 6 pairs: w = 3 for a 1-way, 6 for a pair; X_1 protected."""
    schema = xor(3).schema
    cells = PublicCells.from_schema(schema)
    w = workload_candidates(schema.names, None)
    assert (w[(0,)], w[(0, 1)]) == (3.0, 6.0)
    cands = [(0,), (1,), (0, 1), (1, 2)]
    plan = PolicyMarginals.of(cells, Policy(XOR_DEFAULT))
    sel = plan.weighted_selection(cands, [w[r] for r in cands])
    assert [s for _, s in sel.per_candidate] == [6.0, 0.0, 12.0, 0.0] and sel.sensitivity == 12.0
    assert "max over 4 candidates (2 at 0, 1 at 6, 1 at 12" in sel.how
    floor = PolicyMarginals.of(cells, Policy(XOR_DEFAULT, participation=True))
    assert [s for _, s in floor.weighted_selection(cands, [w[r] for r in cands]).per_candidate] == [6.0, 3.0, 12.0, 6.0]
    assert plan.weighted_selection([(1,), (1, 2)], [3.0, 6.0]).sensitivity == 0.0


# ---------------------------------------------------------------- the fit (mbi)


@pytest.fixture(scope="module")
def xor3():
    pre = get_preset("xor3")
    return pre.schema, load_preset_data(pre).private


RHO = 1e-2


@needs_mbi
@pytest.mark.slow
@pytest.mark.parametrize("participation", [False, True], ids=["record-edges", "participation"])
def test_bf_aim_exact_marginals_are_free_and_the_ledger_sums_to_rho(xor3, participation):
    from blowfish_core.baselines import fit_bf_aim, ledger_total

    schema, df = xor3
    r = fit_bf_aim(schema, df, RHO, Policy(XOR_DEFAULT, participation=participation), seed=3, round_iters=30,
                   iters=200)
    assert math.isclose(ledger_total(r.ledger), RHO, rel_tol=1e-12)
    gauss = [x for x in r.ledger if x.mechanism == "gaussian"]
    exact = [x for x in gauss if x.sensitivity == 0]
    for x in exact:
        assert x.scale == 0.0 and x.rho == 0.0 and "X_1" not in x.clique
        assert "released exactly: not protected by the policy" in x.how
    for x in gauss:
        if "X_1" in x.clique:
            assert x.sensitivity == pytest.approx(math.sqrt(2)) and x.rho > 0
    assert r.info["protected"] == ["X_1"]
    assert r.info["exact"] == [list(x.clique) for x in exact]
    if participation:  # nothing is exact: every marginal has the floor 1 (or sqrt 2)
        assert not exact and all(x.sensitivity >= 1.0 for x in gauss)
    else:  # the 1-ways of X_2, X_3, Y are exact; the last measurement spends the remainder (noisy)
        assert [x.clique for x in exact[:3]] == [("X_2",), ("X_3",), ("Y",)]
        assert gauss[-1].rho > 0
    # every selection: the maximum over its candidates, 12 = w 6 x l1 2 (a protected pair is always one)
    sel = [x for x in r.ledger if x.mechanism == "exponential"]
    assert sel and all(x.sensitivity == 12.0 for x in sel)
    assert all(x.how.startswith("max over") for x in sel)
    # each exact marginal is measured once
    assert len({x.clique for x in exact}) == len(exact)


@needs_mbi
def test_bf_aim_protecting_nothing_is_a_policy_error():
    from blowfish_core.baselines import fit_bf_aim

    schema = _mixed_schema()  # age 0..3 threshold 1 under 1 bin: no edge crosses a cell
    df = pd.DataFrame({"color": ["a", "b", "c"] * 4, "age": [0, 1, 2, 3] * 3, "flag": ["no", "yes"] * 6})
    with pytest.raises(PolicyError, match="bf-aim: no policy edge moves a record.*or use aim"):
        fit_bf_aim(schema, df, RHO, Policy({"age": AttributePolicy("threshold", 1)}), bins=1)


@needs_mbi
@pytest.mark.slow
def test_cli_synth_bf_aim(tmp_path):
    """`synth --preset xor3 --method bf-aim --rho 0.01 --seeds 0`: exit 0, the ledger names the exact marginals."""
    import subprocess

    out, report = tmp_path / "s.csv", tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "blowfish_core", "synth", "--preset", "xor3", "--n", "1500",
                        "--method", "bf-aim", "--rho", "0.01", "--seeds", "0", "--out", str(out),
                        "--report", str(report)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "bf-AIM" in p.stdout or "bf-aim" in p.stdout
    assert "released exactly: not protected by the policy" in report.read_text()
    assert out.exists() and len(out.read_text().splitlines()) > 1


@needs_mbi
@pytest.mark.slow
def test_bf_aim_release_passes_the_gate_with_opendp_noise_only_for_the_noisy_rows():
    """An unseeded bf-aim release (release_synthesis, numpy's noise refused): the gate's label, the
    total rho, one OpenDP Gaussian per noisy measurement (none for the exact ones), one OpenDP noisy
    max per selection."""
    from blowfish_core.synthesis import gate as release_gate
    from blowfish_core.synthesis.release import release_synthesis
    from tests.baselines.test_baselines_release import RHO as REL_RHO
    from tests.baselines.test_baselines_release import ROWS, _forbid_numpy_noise, _spec, _Spy

    pre = get_preset("xor3")
    data = load_preset_data(pre, None).private.iloc[:ROWS].reset_index(drop=True)
    from blowfish_core.privacy.mechanisms import opendp_samplers

    opendp_samplers._opendp()  # import OpenDP (and what its prelude imports) before numpy's rng is patched
    with pytest.MonkeyPatch.context() as mp:
        _forbid_numpy_noise(mp)
        spy = _Spy(mp)
        pub = release_synthesis(_spec(data, "bf-aim"))
    assert pub.label == release_gate.RELEASE_LABEL and pub.claim.methods == ("bf-aim",) and not pub.claim.seeded
    rows = pub.parts[0].rows
    assert math.fsum(r.rho_t for r in rows) == pytest.approx(REL_RHO, rel=1e-12)
    gauss = [r for r in rows if r.mechanism == "gaussian"]
    noisy = [r for r in gauss if r.sensitivity > 0]
    assert len(spy.gaussian) == len(noisy) < len(gauss)
    assert [r.scale for r in noisy] == pytest.approx(spy.gaussian, rel=1e-12)
    assert len(spy.select) == sum(r.mechanism == "exponential" for r in rows) >= 1
    assert all(r.calibration == "exhaustive-zero" and r.rho_t == 0 for r in gauss if r.sensitivity == 0)


@needs_mbi
@pytest.mark.slow
def test_api_synthesizer_bf_aim_releases_under_the_policy():
    from blowfish_core.interfaces.synthesizer import Synthesizer

    pre = get_preset("xor3")
    df = load_preset_data(pre, n=1500).private
    s = Synthesizer(pre.schema, pre.default_policy(), method="bf-aim", rho=0.01, seed=0)
    s.fit(df)
    assert s.privacy_["total"]["rho"] == pytest.approx(0.01, rel=1e-12)
    rows = s.ledger_
    exact = [r for r in rows if r.mechanism == "gaussian" and r.sensitivity == 0]
    assert exact and all(r.calibration == "exhaustive-zero" and r.rho_t == 0 for r in exact)
    assert any("released exactly: not protected by the policy" in n for r in exact for n in r.notes)
    assert len(s.sample(5)) == 5
