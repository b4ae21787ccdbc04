"""The random streams of Algorithm 1 (paired across methods): ``SeededStreams`` for study runs,
``OsEntropyStreams`` for releases, ``make_streams(seed)`` and the stream purposes (issue 22: out
of evolution.py, which re-exports every name)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

#: the stream purposes: initial population, noise, selection, mutation, release.
_INIT, _NOISE, _SELECT, _MUTATE, _RELEASE = range(5)


def rng_for(seed: int, purpose: int, t: int = 0) -> np.random.Generator:
    """Generator for (seed, purpose, round): the paired random streams.

    Parameters
    ----------
    seed : int
        The run's seed.
    purpose : int
        The stream's purpose (initial population, noise, selection, mutation, release).
    t : int, default 0
        The round.

    Returns
    -------
    numpy.random.Generator
        Seeded by ``SeedSequence([seed, purpose, t])``.
    """
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(purpose), int(t)]))


#: what a seeded output says about itself (DESIGN §7; every seeded output carries it).
SEEDED_NOTE = "seeded: for study, not for publication"


@dataclass(frozen=True)
class SeededStreams:
    """The run's source of randomness: ``streams(purpose, t)`` -> Generator.

    Seeded (study) streams, paired across methods (rng_for).  ``sampler`` names the noise
    sampler the run's mechanism uses (mechanisms.get_mechanism(name, sampler)): 'numpy'
    (the floating-point normal / Laplace of the round's stream; study runs only).
    ``vote_precision`` 'float32': the soft vote's float32 tiles (votes.SoftVote, issue 15).
    Anything with the same call signature and attributes can be passed to
    run_synthesis(streams=...); see :class:`OsEntropyStreams` for a release.
    """

    seed: int
    sampler = "numpy"
    seeded = True
    vote_precision = "float32"  # study runs: the float32 soft vote (votes.SoftVote; issue 15)
    randomness = SEEDED_NOTE

    def __call__(self, purpose: int, t: int = 0) -> np.random.Generator:
        return rng_for(self.seed, purpose, t)


class OsEntropyStreams:
    """Release-mode randomness (issue 11, DESIGN §7): nothing is seeded or recorded.

    One ``numpy.random.SeedSequence()`` drawn from the operating system's entropy when the
    object is made; ``streams(purpose, t)`` spawns an independent PCG64 stream from it for
    the public draws (initial population, selection, mutation, release).  The noise is not
    drawn from these streams: ``sampler = 'opendp'`` selects OpenDP's floating-point-safe
    samplers (mechanisms.opendp_samplers; the discrete Gaussian / Laplace for hard votes),
    which draw from the OS CSPRNG themselves; ``vote_precision = 'float64'``: the soft vote to
    1e-15, so the vote's sensitivity is the calibrated one.  The entropy is never exposed: repr, the
    report and the ledger say only :data:`RANDOMNESS`.
    """

    sampler = "opendp"
    seeded = False
    vote_precision = "float64"  # releases: the soft vote to 1e-15 (votes.SoftVote; issue 15)
    randomness = "unseeded, OS entropy, sampler opendp"
    __slots__ = ("_ss",)

    def __init__(self) -> None:
        self._ss = np.random.SeedSequence()

    def __call__(self, purpose: int, t: int = 0) -> np.random.Generator:
        return np.random.default_rng(
            np.random.SeedSequence(self._ss.entropy, spawn_key=(int(purpose), int(t))))

    def __repr__(self) -> str:
        return "OsEntropyStreams(unseeded, OS entropy, sampler opendp)"

    def __reduce__(self):  # never pickled (a pickle would carry the entropy)
        raise TypeError("OsEntropyStreams cannot be pickled: it would record the run's entropy")


#: the text of OS-entropy streams (what release_gate.publish checks each part's streams against);
#: a release's report says :func:`randomness_of` its runs' noise samplers.
RANDOMNESS = OsEntropyStreams.randomness


def randomness_of(seeded: bool, samplers: Iterable[str | None] = ()) -> str:
    """THE randomness text of a result, decided from what drew its noise (report, ledger.json,
    ledger.txt, budget.json, the CLI line, Synthesizer.randomness_ and the app all say it).

    Parameters
    ----------
    seeded : bool
        A seeded study run.
    samplers : iterable of str or None
        The runs' noise samplers (SynthResult.noise_sampler: 'opendp' for OpenDP's samplers,
        'exact' for PubMix/LinMix's integer-arithmetic draws; None: not recorded).

    Returns
    -------
    str
        :data:`SEEDED_NOTE` when seeded; :data:`RANDOMNESS` ("unseeded, OS entropy, sampler opendp")
        when OpenDP drew every noise (or nothing was recorded); otherwise "unseeded, OS entropy,
        sampler " and the samplers that drew, e.g. "sampler exact" for PubMix/LinMix (no OpenDP
        sampler draws anything), "sampler exact + opendp" for a mix.
    """
    if seeded:
        return SEEDED_NOTE
    drew = sorted({str(s) for s in samplers if s})
    if not drew or drew == [OsEntropyStreams.sampler]:
        return RANDOMNESS
    return "unseeded, OS entropy, sampler " + " + ".join(drew)


#: run_synthesis's "no seed given" marker (it has no default seed; issue 21).
_NO_SEED = "required"


def make_streams(seed: int | None) -> "SeededStreams | OsEntropyStreams":
    """SeededStreams(seed) for a whole number, OsEntropyStreams() for None (release mode).

    Parameters
    ----------
    seed : int or None
        A whole number (study run) or None (release mode).

    Returns
    -------
    SeededStreams or OsEntropyStreams
        The run's source of randomness.
    """
    return OsEntropyStreams() if seed is None else SeededStreams(int(seed))
