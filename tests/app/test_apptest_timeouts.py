"""The AppTest timeout scales with the load (issue 27): a test that can fail."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests import conftest


def _slow_app():
    import time

    time.sleep(1.5)


def test_the_timeout_is_scaled(monkeypatch):
    monkeypatch.setenv("BLOWFISH_APPTEST_TIMEOUT_SCALE", "4")
    assert conftest.apptest_timeout_scale() == 4.0
    # a 1 s timeout for a 1.5 s script passes only because it is scaled to 4 s
    at = AppTest.from_function(_slow_app, default_timeout=1).run()
    assert not at.exception


def test_without_scaling_the_same_run_times_out(monkeypatch):
    monkeypatch.setenv("BLOWFISH_APPTEST_TIMEOUT_SCALE", "1")
    try:
        AppTest.from_function(_slow_app, default_timeout=1).run()
    except RuntimeError as e:
        assert "timed out" in str(e)
    else:  # pragma: no cover - the check failed
        raise AssertionError("a 1.5 s script ran within a 1 s timeout")


def test_the_scale_reads_the_load(monkeypatch):
    monkeypatch.delenv("BLOWFISH_APPTEST_TIMEOUT_SCALE", raising=False)
    monkeypatch.setattr(conftest.os, "getloadavg", lambda: (10.0, 10.0, 10.0))
    monkeypatch.setattr(conftest.os, "cpu_count", lambda: 2)
    assert conftest.apptest_timeout_scale() == 5.0
    monkeypatch.setattr(conftest.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert conftest.apptest_timeout_scale() == 1.0
