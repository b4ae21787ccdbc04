"""Shared fixtures. Real tables come from ../shared/data and are skipped cleanly without it."""

from __future__ import annotations

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHARED_DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))


def _shared(name: str) -> str:
    path = os.path.join(SHARED_DATA, name)
    if not os.path.exists(path):
        pytest.skip(f"{name} not found in ../shared/data")
    return path


@pytest.fixture
def adult_path() -> str:
    """Path of ../shared/data/adult.csv (test skipped when absent)."""
    return _shared("adult.csv")


@pytest.fixture
def bank_path() -> str:
    """Path of ../shared/data/bank-full.csv (test skipped when absent)."""
    return _shared("bank-full.csv")
