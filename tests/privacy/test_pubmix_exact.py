"""The exact PubMix/LinMix release sampler (issue 21; papers/003 Thm 4.1).

* exact_noise_weights: the integer weights are the floats' exact rationals (no floor), and with a
  floor every noise mass is >= the floor and they sum to 1, in Fraction arithmetic;
* exact_mixture_sample: chi-square against the exact mixture probabilities on small cases, the
  extremes beta = 0 / 1, the big-integer path (bounds > 2^63), and input errors;
* the release entry: get_mechanism('pubmix', sampler='opendp') samples exactly, the gate reads
  release_sampler 'exact', the release plan's floors satisfy m f <= c exactly;
* a PubMix synthesis without seeds releases through release.release_synthesis (and the CLI,
  as a subprocess), with the exact sampler on the OS CSPRNG and never numpy's pubmix_sample;
  two releases differ, and two fresh processes draw differently (no seeded byte stream).
"""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import blowfish_core as bc
import blowfish_core.privacy.pubmix as pm
from blowfish_core.synthesis import gate
from blowfish_core.synthesis.release import release_synthesis
from blowfish_core.base.errors import BudgetError, DataError
from blowfish_core.algorithm.evolution import SEEDED_NOTE, SynthConfig
from blowfish_core.synthesis.spec import RunSpec
from blowfish_core.privacy.mechanisms import get_mechanism
from blowfish_core.privacy.mechanisms import pubmix as mpm
from blowfish_core.io.presets import load_preset_data

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = SynthConfig(rounds=2, population=[64, 64], release=40)


def _law(H, p, beta, floor=None):
    """The exact law of exact_mixture_sample as Fractions (from exact_noise_weights)."""
    n = sum(H)
    u, w = pm.exact_noise_weights(p, floor)
    S, m, b = sum(w), len(H), Fraction(beta)
    return [(1 - b) * Fraction(h, n) + b * (u / m + (1 - u) * Fraction(wi, S)) for h, wi in zip(H, w)]


def test_noise_weights_are_the_exact_rationals():
    p = pm.water_fill(np.random.default_rng(3).dirichlet(np.ones(37)), 0.25 / 37)
    u, w = pm.exact_noise_weights(p)
    total = sum(Fraction(float(x)) for x in p)
    assert u == 0 and all(Fraction(wi, sum(w)) == Fraction(float(x)) / total for wi, x in zip(w, p))
    f = 0.25 / 37
    law = _law([1] * 37, p, 1.0, f)
    assert sum(law) == 1 and min(law) >= Fraction(f)
    # LinMix at m = 5: fl(1/5) * 5 > 1 exactly, so no law has every mass >= fl(1/5): refused ...
    assert Fraction(1 / 5) * 5 > 1
    with pytest.raises(BudgetError, match="m \\* floor > 1"):
        pm.exact_noise_weights(np.full(5, 0.2), 0.2)
    # ... and the release plan's floor is rounded down (exact uniform then satisfies it)
    f5 = mpm.exact_floor_of(1.0, 5)
    assert Fraction(f5) * 5 <= 1 and _law([1] * 5, np.full(5, 0.2), 1.0, f5) == [Fraction(1, 5)] * 5
    assert mpm.exact_floor_of(0.25, 8) == 0.25 / 8


@pytest.mark.parametrize("H, p, beta, floor", [
    ([3, 0, 5, 2], [0.1, 0.2, 0.3, 0.4], 0.3, None),
    ([7, 1, 0, 0, 2], [0.05, 0.05, 0.3, 0.3, 0.3], 0.55, 0.05),
    ([1, 1], [0.5, 0.5], 0.0, None),
])
def test_chi_square_against_the_exact_law(H, p, beta, floor):
    law = np.array([float(q) for q in _law(H, p, beta, floor)])
    N = 200_000
    x = pm.exact_mixture_sample(np.array(H), np.array(p), beta, N, floor=floor)
    assert x.dtype == np.int64 and x.shape == (N,)
    obs = np.bincount(x, minlength=len(H))
    keep = law > 0
    assert (obs[~keep] == 0).all()  # a bin of probability 0 is never drawn
    res = stats.chisquare(obs[keep], law[keep] * N)
    assert res.pvalue > 1e-4, (obs, law * N)


def test_extremes_big_integers_and_errors():
    H = np.array([0, 4, 0])
    assert (pm.exact_mixture_sample(H, [0.2, 0.3, 0.5], 0.0, 500) == 1).all()  # beta = 0: private only
    x = pm.exact_mixture_sample(H, [0.0, 0.0, 1.0], 1.0, 500)  # beta = 1: noise only
    assert (x == 2).all()
    # tiny noise masses: common denominator far above 2^63 (the Python-integer path)
    p = np.array([2.0**-200, 0.5, 0.5 - 2.0**-200])
    u, w = pm.exact_noise_weights(p)
    assert sum(w) > 2**63
    x = pm.exact_mixture_sample(np.array([1, 1, 1]), p, 1.0, 20_000)
    obs = np.bincount(x, minlength=3)
    assert obs[0] == 0 and abs(obs[1] - 10_000) < 600
    r = pm._uniform_below(2**70 + 3, 2000)
    assert r.dtype == object and all(0 <= int(v) < 2**70 + 3 for v in r)
    obs = np.bincount(pm._uniform_below(7, 70_000), minlength=7)
    assert stats.chisquare(obs).pvalue > 1e-4
    with pytest.raises(DataError, match="whole numbers"):
        pm.exact_mixture_sample(np.array([0.5, 1.5]), [0.5, 0.5], 0.5, 10)
    with pytest.raises(DataError, match="positive sum"):
        pm.exact_mixture_sample(np.array([0, 0]), [0.5, 0.5], 0.5, 10)
    with pytest.raises(DataError, match="same length"):
        pm.exact_mixture_sample(np.array([1, 2]), [0.2, 0.3, 0.5], 0.5, 10)
    with pytest.raises(BudgetError):
        pm.exact_mixture_sample(np.array([1, 2]), [0.5, 0.5], 1.5, 10)


def test_release_entry_is_exact():
    for name in ("pubmix", "linmix"):
        m = get_mechanism(name, sampler="opendp")
        assert isinstance(m, mpm.PubMixExact) and m.sampler == "exact" and m.name == name
        assert gate.release_sampler(name) == "exact"
        assert get_mechanism(name).sampler == "numpy"  # seeded study runs keep numpy's sampler
    lin = get_mechanism("linmix", sampler="opendp").plan(1.0, 1e-5, 1000, [5, 5], 10)
    assert all(Fraction(f) * 5 <= 1 for f in lin.floor)


def _spec(seeds=None):
    p = bc.get_preset("xor3")
    sp = load_preset_data(p)
    return RunSpec.build(p.schema, p.default_policy(), sp.private, ["hard"], rho=0.0, epsilon=1.0, delta=1e-5,
                         seeds=seeds, mechanism="pubmix", public=sp.public, config=TINY)


def test_release_synthesis_uses_the_exact_sampler_from_os_entropy(monkeypatch):
    """The release goes through the gate, every round's draws come from exact_mixture_sample on
    the OS CSPRNG (os.urandom is read), numpy's pubmix_sample is never called; two releases differ."""
    calls = {"exact": 0, "bytes": 0}
    real_exact, real_bytes = mpm.exact_mixture_sample, pm._os_bytes

    def exact(*a, **k):
        calls["exact"] += 1
        return real_exact(*a, **k)

    def os_bytes(k):
        calls["bytes"] += 1
        return real_bytes(k)

    def forbidden(*a, **k):
        raise AssertionError("numpy's pubmix_sample used in a release")

    monkeypatch.setattr(mpm, "exact_mixture_sample", exact)
    monkeypatch.setattr(pm, "_os_bytes", os_bytes)
    monkeypatch.setattr(mpm, "pubmix_sample", forbidden)
    spec = _spec()
    a = release_synthesis(spec)
    assert calls["exact"] == TINY.rounds and calls["bytes"] >= TINY.rounds
    assert a.label == gate.RELEASE_LABEL and [p.sampler for p in a.parts] == ["exact"]
    assert a.total["accountant"] == "pld" and a.total["epsilon"] <= 1.0 + 1e-9
    b = release_synthesis(spec)
    assert not np.array_equal(a.parts[0].value, b.parts[0].value)
    with pytest.raises(gate.GateError, match="for study, not for publication"):
        release_synthesis(_spec(seeds=[0]))


def test_release_notices_a_fixed_randomness_source(monkeypatch):
    """If the OS CSPRNG were replaced by a fixed byte stream (a 'seed 0' release), two releases
    would be equal: the check above (two releases differ) would catch it."""
    monkeypatch.setattr(pm, "_os_bytes", lambda k: bytes(8 * ((k + 7) // 8))[:k])
    monkeypatch.setattr(pm, "_randbelow", lambda b: 0)
    x = pm.exact_mixture_sample(np.array([5, 5, 5]), [0.2, 0.3, 0.5], 0.5, 50)
    y = pm.exact_mixture_sample(np.array([5, 5, 5]), [0.2, 0.3, 0.5], 0.5, 50)
    assert np.array_equal(x, y)  # a fixed source is visible as repeated draws


_FRESH_DRAW = ("import numpy as np, blowfish_core.privacy.pubmix as pm; "
               "print(pm._uniform_below(2**40, 8).tolist(), pm._uniform_below(2**70, 2).tolist(), "
               "pm.exact_mixture_sample(np.array([5, 5, 5]), [0.2, 0.3, 0.5], 0.5, 64).tolist())")


def test_exact_sampler_draws_differ_between_fresh_processes():
    """Catches the exact sampler reading a seeded byte stream (a 'seed 0' release, issue 21): a
    generator seeded at import gives different draws within one process (so the two-releases checks
    above pass) but the same draws in every new process.  Two fresh interpreters must differ: the
    chance that 8 uniform draws below 2^40 coincide is 2^-320."""
    runs = [subprocess.run([sys.executable, "-c", _FRESH_DRAW], cwd=ROOT, capture_output=True, text=True,
                           timeout=120, env={**os.environ, "PYTHONPATH": ROOT}) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    a, b = (r.stdout.strip() for r in runs)
    assert a and a != b


EXACT = "unseeded, OS entropy, sampler exact"


def test_cli_synth_pubmix_without_seeds_releases(tmp_path):
    """Newcomer trial: the screen, ledger.json and budget.json said 'sampler opendp' while ledger.txt
    and every row said exact; now one text (streams.randomness_of) everywhere.  The bundle's
    ledger.txt opens with the gate's public label (ledger.json["label"])."""
    import json

    out, bundle = tmp_path / "pm.csv", tmp_path / "pmB"
    r = subprocess.run([sys.executable, "-m", "blowfish_core", "synth", "--preset", "xor3", "--method", "hard,tab-pe",
                        "--noise", "pubmix", "--epsilon", "1", "--delta", "1e-5", "--out", str(out),
                        "--bundle", str(bundle), "--rounds", "2", "--population", "64x2", "--release", "40",
                        "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"randomness: {EXACT}; the methods are separate releases" in r.stdout and "sampler opendp" not in r.stdout
    text = (bundle / "ledger.txt").read_text()
    assert SEEDED_NOTE not in text and f"Randomness: {EXACT}." in text  # no OpenDP sampler drew
    assert "sampler opendp" not in text
    led = json.loads((bundle / "ledger.json").read_text())
    assert led["randomness"] == json.loads((bundle / "budget.json").read_text())["randomness"] == EXACT
    assert [e["noise_sampler"] for e in led["ledger"]] == ["exact", "exact"]
    assert led["label"] == gate.RELEASE_LABEL and text.splitlines()[0] == f"{gate.RELEASE_LABEL}."


def test_api_pubmix_release_says_sampler_exact():
    p = bc.get_preset("xor3")
    sp = load_preset_data(p)
    syn = bc.Synthesizer(p.schema, p.default_policy(), method="hard", noise="pubmix", epsilon=1.0, delta=1e-5,
                         public=sp.public, config=TINY).fit(sp.private)
    assert syn.randomness_ == EXACT and syn.result_.noise_sampler == "exact"


def test_randomness_of_decides_from_the_noise_samplers():
    from blowfish_core.algorithm.streams import RANDOMNESS, randomness_of

    assert randomness_of(True, ["exact"]) == SEEDED_NOTE
    assert randomness_of(False, ["exact", "exact"]) == EXACT
    assert randomness_of(False, ["opendp"]) == randomness_of(False, [None]) == RANDOMNESS
    assert randomness_of(False, ["opendp", "exact"]) == "unseeded, OS entropy, sampler exact + opendp"
