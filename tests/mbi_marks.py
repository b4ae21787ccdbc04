"""The optional-extra marker of the MST/AIM tests: skip (naming why) when mbi/jax are not installed."""

from __future__ import annotations

import pytest

from blowfish_core.baselines import MissingDependencyError, _mbi

try:
    _mbi.require_mbi()
    HAVE_MBI, WHY = True, ""
except MissingDependencyError as e:  # pragma: no cover - depends on the environment
    HAVE_MBI, WHY = False, f"optional extra mbi/jax not installed: {e}"

needs_mbi = pytest.mark.skipif(not HAVE_MBI, reason=WHY or "mbi not installed")
