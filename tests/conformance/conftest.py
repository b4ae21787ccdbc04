"""The conformance suite (issue 22): one set of checks over every registered entry.

The entries are read from the engine's tables at collection time, so a new method,
mechanism, vote or attribute type registered by the CONTRIBUTING.md recipes is picked up
with no change here:

* methods: ``algorithm.methods.METHODS``;
* mechanisms: ``privacy.mechanisms.MECHANISMS`` (additive and sampling),
  ``SELECTION_MECHANISMS`` and the release variants ``SAMPLED``;
* votes: the vote classes the method table uses, plus ``model.votes.VOTES``;
* attribute types: ``model.domain.KINDS`` (each class's ``examples()``).

Nothing here pins what the tables contain.  ``pytest tests/conformance --collect-only -q``
lists checks x entries.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from blowfish_core.algorithm.methods import METHODS
from blowfish_core.model import votes as votes_mod
from blowfish_core.model.domain import ATTRIBUTE_TYPES, KINDS
from blowfish_core.privacy.mechanisms import MECHANISMS, SAMPLED, SELECTION_MECHANISMS

METHOD_NAMES = list(METHODS)
EVOLUTION_METHODS = [k for k, m in METHODS.items() if not m.is_reference]
ADDITIVE_NAMES = [k for k, m in MECHANISMS.items() if not getattr(m, "samples", False)]
SAMPLING_NAMES = [k for k, m in MECHANISMS.items() if getattr(m, "samples", False)]
SELECTION_NAMES = list(SELECTION_MECHANISMS)
ALL_MECHANISM_NAMES = list(MECHANISMS) + SELECTION_NAMES
SAMPLED_KEYS = list(SAMPLED)


def _vote_classes() -> list[type]:
    seen: list[type] = []
    for cls in [m.vote for m in METHODS.values() if m.vote is not None] + list(votes_mod.VOTES.values()):
        if cls not in seen:
            seen.append(cls)
    return seen


VOTE_CLASSES = _vote_classes()
ATTRIBUTE_KINDS = list(KINDS)

TAU = 0.05


def make_vote(cls: type):
    """An instance of a vote class, built the way the engine builds it: through a method of the
    table that uses it (``Method.make_vote``), else by its registry name (``votes.as_vote``)."""
    for m in METHODS.values():
        if m.vote is cls:
            return m.make_vote(TAU if m.needs_tau else None)
    return votes_mod.as_vote(cls.name, TAU)


def attribute_examples(kind: str):
    """The validated examples of an attribute type (its class's ``examples()``)."""
    return [a.validate() for a in ATTRIBUTE_TYPES[kind].examples()]


def has_reference_stack() -> bool:
    return importlib.util.find_spec("mbi") is not None and importlib.util.find_spec("jax") is not None


@pytest.fixture(scope="session")
def xor_setup():
    """XOR-3 (the preset), 150 private records, encoded: (schema, policy, X)."""
    from blowfish_core.io.presets import xor

    p = xor(3)
    df = p.generator(150, 0)
    return p.schema, p.default_policy(), p.schema.encode(df)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261201)
