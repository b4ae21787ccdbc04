"""Lazy access to the optional ``mbi`` package (Private-PGM 2.x, McKenna et al.).

``mbi`` needs jax; both are the optional extra
``pip install .[baseline]``.  Nothing here imports them at module import time, so the
engine and its tests run without them; :func:`require_mbi` gives a clear error instead
of an ImportError traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import warnings
from types import ModuleType

from ..base.errors import BlowfishError

INSTALL_HINT = "pip install .[baseline]   (or: pip install mbi jax jaxlib)"


class MissingDependencyError(BlowfishError):
    """An optional dependency of a reference method (MST, AIM) is not installed."""


_cache: dict[str, ModuleType] = {}


def require_mbi(method: str = "MST") -> ModuleType:
    """Import and return ``mbi`` (configuring jax for CPU float64 first).

    Raises MissingDependencyError naming ``method`` and the install command when mbi or
    jax is missing or cannot be imported.
    """
    if "mbi" in _cache:
        return _cache["mbi"]
    try:
        jax = importlib.import_module("jax")
    except (ImportError, RuntimeError, OSError) as e:  # absent, or a broken jaxlib
        raise MissingDependencyError(
            f"the reference method {method} needs the optional packages mbi and jax "
            f"(jax is not importable: {type(e).__name__}: {e}). Fix: {INSTALL_HINT}"
        ) from None
    # float64 avoids mbi's float32 stalls; the persistent compile cache only slows sweeps down
    # (both are mbi's own advice, printed as warnings on import otherwise).
    jax.config.update("jax_enable_x64", True)
    with contextlib.suppress(AttributeError, KeyError, ValueError):  # older jax without the flag
        jax.config.update("jax_enable_compilation_cache", False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mbi = importlib.import_module("mbi")
            importlib.import_module("mbi.estimation")
    except (ImportError, RuntimeError, OSError, AttributeError) as e:
        raise MissingDependencyError(
            f"the reference method {method} needs the optional package mbi (Private-PGM 2.x) "
            f"({type(e).__name__}: {e}). Fix: {INSTALL_HINT}"
        ) from None
    if not hasattr(mbi, "LinearMeasurement") or not hasattr(mbi, "Domain"):
        raise MissingDependencyError(
            f"the reference method {method} needs mbi >= 2.0 (Private-PGM 2.x); the installed "
            f"mbi lacks LinearMeasurement/Domain. Fix: pip install -U 'mbi>=2'"
        )
    _cache["mbi"] = mbi
    return mbi


def mbi_available() -> bool:
    """True when :func:`require_mbi` would succeed."""
    try:
        require_mbi()
    except MissingDependencyError:
        return False
    return True
