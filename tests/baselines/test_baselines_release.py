"""MST and AIM releases through the one release gate (issue 21; DESIGN §7).

An unseeded MST/AIM run is a release: every Gaussian measurement is drawn by OpenDP's Gaussian
(mechanisms.opendp_samplers.opendp_noisy), every exponential-mechanism selection by OpenDP's Gumbel
noisy max (mechanisms.exponential.Exponential.draw), every other draw from the run's OS-entropy
streams; numpy's normal and gumbel never draw noise (they are patched to raise here).  The ledger
states the scales actually used, and they agree with OpenDP's own privacy maps.

The runs need the optional extra mbi/jax (skipped with the reason without it).  They use a small
XOR-3 table (1,500 rows, 64 released rows); each test stays well under 30 s on one core.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import blowfish_core as bc
from blowfish_core.synthesis import gate as release_gate
from blowfish_core.synthesis.release import release_synthesis
from blowfish_core.baselines import fit_mst
from blowfish_core.algorithm.evolution import RANDOMNESS, SEEDED_NOTE, SeededStreams, SynthConfig
from blowfish_core.synthesis.spec import RunSpec
from blowfish_core.privacy.mechanisms import opendp_samplers
from blowfish_core.privacy.mechanisms.exponential import Exponential

from tests.mbi_marks import HAVE_MBI, WHY, needs_mbi  # noqa: F401

pytestmark = needs_mbi

XOR = bc.get_preset("xor3")
ROWS = 1500
RHO = 0.05
RELEASE = 64
ROOT = Path(__file__).resolve().parents[2]


class _NoNoiseGenerator(np.random.Generator):
    """A numpy Generator whose normal and gumbel raise: numpy must never draw a release's noise."""

    def normal(self, *a, **k):
        raise AssertionError("numpy.random.Generator.normal drew noise in a release")

    def gumbel(self, *a, **k):
        raise AssertionError("numpy.random.Generator.gumbel drew noise in a release")


def _forbid_numpy_noise(mp: pytest.MonkeyPatch) -> None:
    """Every Generator made through np.random.default_rng (the streams, the fits) refuses normal and
    gumbel; so do the global np.random.normal / np.random.gumbel (Generator itself is immutable)."""

    def default_rng(seed=None):
        if isinstance(seed, np.random.Generator):  # numpy passes a Generator through (scikit-learn relies on it)
            return seed if isinstance(seed, _NoNoiseGenerator) else _NoNoiseGenerator(seed.bit_generator)
        if isinstance(seed, np.random.BitGenerator):
            return _NoNoiseGenerator(seed)
        return _NoNoiseGenerator(np.random.PCG64(seed))

    def refuse(*a, **k):
        raise AssertionError("numpy's global normal/gumbel drew noise in a release")

    opendp_samplers._opendp()  # import OpenDP first: its prelude imports scikit-learn when installed, which draws
    # numpy normals at import time (not a release's noise)

    mp.setattr(np.random, "default_rng", default_rng)
    mp.setattr(np.random, "normal", refuse)
    mp.setattr(np.random, "gumbel", refuse)


class _Spy:
    """Records the (scale) of every OpenDP Gaussian draw and the (sensitivity, epsilon) of every
    OpenDP noisy-max selection, then calls the real sampler."""

    def __init__(self, mp: pytest.MonkeyPatch):
        self.gaussian: list[float] = []
        self.select: list[tuple[float, float]] = []
        real_noisy, real_draw = opendp_samplers.opendp_noisy, Exponential.draw

        def noisy(h, scale, kind="gaussian", discrete=None):
            assert kind == "gaussian" and discrete is False
            self.gaussian.append(float(scale))
            return real_noisy(h, scale, kind, discrete)

        def draw(me, scores, sensitivity, epsilon_sel):
            self.select.append((float(sensitivity), float(epsilon_sel)))
            return real_draw(me, scores, sensitivity, epsilon_sel)

        mp.setattr(opendp_samplers, "opendp_noisy", noisy)
        mp.setattr(Exponential, "draw", draw)


@pytest.fixture(scope="module")
def data():
    return bc.load_preset_data(XOR, None).private.iloc[:ROWS].reset_index(drop=True)


def _spec(data, method: str, seeds=None) -> RunSpec:
    return RunSpec.build(XOR.schema, XOR.default_policy(), data, [method], RHO, seeds=seeds,
                         config=SynthConfig(release=RELEASE))


@pytest.fixture(scope="module")
def releases(data):
    """For MST and AIM: (Publication, spy) of one release through release.release_synthesis with
    numpy's noise samplers patched to raise; MST twice (two releases must differ)."""
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        _forbid_numpy_noise(mp)
        for key, method in (("mst", "mst"), ("aim", "aim"), ("mst2", "mst")):
            with pytest.MonkeyPatch.context() as spy_mp:  # one spy per release
                spy = _Spy(spy_mp)
                out[key] = (release_synthesis(_spec(data, method)), spy)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("method", ["mst", "aim"])
def test_unseeded_release_passes_the_gate_with_opendp_and_no_numpy_noise(releases, method):
    pub, spy = releases[method]
    claim = pub.claim
    assert claim.methods == (method,) and not claim.seeded
    assert {"gaussian", "exponential"} <= set(claim.mechanisms)
    (part,) = pub.parts
    assert part.sampler == "opendp" and part.randomness == RANDOMNESS
    run = pub.result.runs[0]
    assert run.seed is None and run.synth.seed is None
    assert run.synth.noise_sampler == "opendp" and run.synth.randomness == RANDOMNESS
    assert run.release.shape == (RELEASE, XOR.schema.p)
    # every noise draw went to OpenDP: one Gaussian per measurement row, one noisy max per selection row
    kinds = [r.mechanism for r in run.ledger]
    assert len(spy.gaussian) == kinds.count("gaussian") >= XOR.schema.p
    assert len(spy.select) == kinds.count("exponential") >= 1
    assert pub.label == release_gate.RELEASE_LABEL


@pytest.mark.slow
@pytest.mark.parametrize("method", ["mst", "aim"])
def test_release_total_is_the_runs_rho(releases, method):
    pub, _ = releases[method]
    assert pub.total["rho"] == pytest.approx(RHO, rel=1e-12)
    assert pub.total["accountant"] == "zcdp-eq1"
    assert math.fsum(r.rho_t for r in pub.parts[0].rows) == pytest.approx(RHO, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["mst", "aim"])
def test_release_ledger_states_the_scales_used_and_opendp_maps_agree(releases, method):
    """Gaussian rows: the scale OpenDP drew with, and OpenDP's zCDP map rho = (Delta/scale)^2/2 = rho_t.
    Selection rows: scale = the Gumbel scale 2 Delta / epsilon of OpenDP's noisy max, whose map gives
    epsilon^2/8 = rho_t."""
    pub, spy = releases[method]
    rows = pub.parts[0].rows
    gauss = [r for r in rows if r.mechanism == "gaussian"]
    sel = [r for r in rows if r.mechanism == "exponential"]
    assert [r.scale for r in gauss] == pytest.approx(spy.gaussian, rel=1e-12)
    for r in gauss:
        assert opendp_samplers.gaussian_rho(r.sensitivity, r.scale) == pytest.approx(r.rho_t, rel=1e-9)
    # flat lists: pytest >= 9.2's approx refuses nested structures (a list of pairs)
    assert len(sel) == len(spy.select)
    assert [x for r in sel for x in (r.sensitivity, r.epsilon_t)] == pytest.approx(
        [float(x) for pair in spy.select for x in pair], rel=1e-12)
    dp = opendp_samplers._opendp()
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    for r in sel:
        assert r.scale == pytest.approx(opendp_samplers.noisy_max_scale(r.sensitivity, r.epsilon_t), rel=1e-12)
        meas = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=float(r.scale))
        assert float(meas.map(float(r.sensitivity))) == pytest.approx(r.rho_t, rel=1e-9)
        assert r.rho_t == pytest.approx(r.epsilon_t ** 2 / 8.0, rel=1e-12)


@pytest.mark.slow
def test_two_releases_differ(releases):
    a, b = releases["mst"][0].result.runs[0], releases["mst2"][0].result.runs[0]
    assert not np.array_equal(a.synth.release, b.synth.release)


def test_numpy_noise_patch_catches_a_seeded_study_fit(data):
    """Control for the patch above: a seeded fit draws numpy noise, so under the patch it raises."""
    with pytest.MonkeyPatch.context() as mp:
        _forbid_numpy_noise(mp)
        with pytest.raises(AssertionError, match="normal drew noise"):
            fit_mst(XOR.schema, data, RHO, seed=3, rows=RELEASE, iters=10)


@pytest.mark.slow
def test_seeded_study_run_says_numpy_and_seeded(data):
    from blowfish_core.baselines.run import run_reference

    X = XOR.schema.encode(data)
    a = run_reference(XOR.schema, X, XOR.default_policy(), "mst", RHO, None, SynthConfig(release=RELEASE), seed=3)
    b = run_reference(XOR.schema, X, XOR.default_policy(), "mst", RHO, None, SynthConfig(release=RELEASE), seed=0,
                      streams=SeededStreams(3))
    assert a.noise_sampler == "numpy" and a.randomness == SEEDED_NOTE and a.seed == 3
    assert np.array_equal(a.release, b.release)  # the streams' seed is the fit's seed
    with pytest.raises(release_gate.GateError, match="seeded run is for study"):
        release_synthesis(_spec(data, "mst", seeds=[3]))


@pytest.mark.slow
def test_cli_synth_mst_without_seeds_is_a_release(tmp_path):
    """`synth --preset xor3 --method mst --rho 0.01` without --seeds: exit 0, 'sampler opendp', a ledger."""
    out, bundle = tmp_path / "mst.csv", tmp_path / "B"
    p = subprocess.run([sys.executable, "-m", "blowfish_core", "synth", "--preset", "xor3", "--method", "mst",
                        "--rho", "0.01", "--out", str(out), "--bundle", str(bundle)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "sampler opendp" in p.stdout
    assert out.exists() and len(out.read_text().splitlines()) > 1
    ledger = (bundle / "ledger.txt").read_text()
    assert "rho = 0.01 zCDP" in ledger and "sampler opendp" in ledger
