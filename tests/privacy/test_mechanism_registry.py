"""The mechanism registry's refusals (issue 22): register() keeps the tables consistent."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from blowfish_core.base.errors import BlowfishError
from blowfish_core.privacy.mechanisms import MECHANISMS, SAMPLED, Laplace, LaplaceOpenDP, register


@dataclass(frozen=True)
class _Toy(Laplace):
    name: str = "registry-toy"


@dataclass(frozen=True)
class _ToyNumpyVariant(_Toy, LaplaceOpenDP):
    """The dataclass pitfall: the first base's sampler default ('numpy') wins."""


@dataclass(frozen=True)
class _ToyVariant(_Toy, LaplaceOpenDP):
    sampler: str = "opendp"


@pytest.fixture
def clean(monkeypatch):
    monkeypatch.setattr("blowfish_core.privacy.mechanisms.registry.MECHANISMS", dict(MECHANISMS))
    monkeypatch.setattr("blowfish_core.privacy.mechanisms.registry.SAMPLED", dict(SAMPLED))
    from blowfish_core.privacy.mechanisms import registry

    return registry


def test_a_name_is_registered_once(clean):
    with pytest.raises(BlowfishError, match="registered twice"):
        clean.register(Laplace())


def test_a_release_variant_must_not_sample_with_numpy(clean):
    assert _ToyNumpyVariant().sampler == "numpy"
    with pytest.raises(BlowfishError, match='sampler: str = "opendp"'):
        clean.register(_Toy(), release=_ToyNumpyVariant())
    assert "registry-toy" not in clean.MECHANISMS


def test_a_registered_toy_and_its_variant(clean):
    m = clean.register(_Toy(), release=_ToyVariant())
    assert clean.MECHANISMS["registry-toy"] is m and clean.SAMPLED[("registry-toy", "opendp")].sampler == "opendp"
    with pytest.raises(BlowfishError, match="same name"):
        clean.register(_Toy("other-toy"), release=_ToyVariant())
    with pytest.raises(BlowfishError, match="study sampler"):
        clean.register(LaplaceOpenDP("third-toy"))


def test_register_is_exported():
    assert register.__module__ == "blowfish_core.privacy.mechanisms.registry"
