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


# --- AppTest timeouts that scale with the machine's load (issue 27 "Tests robust under load") -------------
#: a script-run timeout of T seconds becomes T x max(1, load / cores) at the time of the run (a 180 s page
#: at a load average of 10 on 2 cores gets 900 s); BLOWFISH_APPTEST_TIMEOUT_SCALE=F sets the factor instead.
def apptest_timeout_scale() -> float:
    """The factor every AppTest script-run timeout is multiplied by (>= 1)."""
    env = os.environ.get("BLOWFISH_APPTEST_TIMEOUT_SCALE")
    if env:
        return max(1.0, float(env))
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


try:
    from streamlit.testing.v1.app_test import AppTest as _AppTest
except ImportError:  # pragma: no cover - the app's packages are not installed
    _AppTest = None

if _AppTest is not None and not getattr(_AppTest._run, "_load_scaled", False):
    _plain_run = _AppTest._run

    def _load_scaled_run(self, widget_state=None, timeout=None):
        base = self.default_timeout if timeout is None else timeout
        return _plain_run(self, widget_state, timeout=base * apptest_timeout_scale())

    _load_scaled_run._load_scaled = True  # type: ignore[attr-defined]
    _AppTest._run = _load_scaled_run
