"""Lazy access to the optional ``mbi`` package (Private-PGM 2.x, McKenna et al.).

``mbi`` needs jax; both are the optional extra
``pip install .[baseline]``.  Nothing here imports them at module import time, so the
engine and its tests run without them; :func:`require_mbi` gives a clear error instead
of an ImportError traceback.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from types import ModuleType
from typing import Any, Callable, TypeVar

from ..base.errors import BlowfishError

INSTALL_HINT = "pip install .[baseline]   (or: pip install mbi jax jaxlib)"


class MissingDependencyError(BlowfishError):
    """An optional dependency of a reference method (MST, AIM) is not installed."""


_cache: dict[str, ModuleType] = {}

#: environment variable naming the persistent jax compilation cache directory ("off" disables it).
CACHE_ENV = "BLOWFISH_JAX_CACHE"
#: compiled programs are written to the persistent cache when their compile took this long (s).
CACHE_MIN_COMPILE_SECONDS = 0.0
#: the cache directory's size bound (jax evicts least recently used entries beyond it), bytes;
#: applied only when the ``filelock`` package is installed (jax needs it for the bound).
CACHE_MAX_BYTES = 512 * 2 ** 20

F = TypeVar("F", bound=Callable[..., Any])


def cache_dir() -> str | None:
    """The persistent jax compilation cache directory MST/AIM use, or None (disabled).

    ``$BLOWFISH_JAX_CACHE`` when set ("", "0", "off", "none": disabled), else
    ``$XDG_CACHE_HOME/blowfish-studio/jax`` (``~/.cache/blowfish-studio/jax``).

    Returns
    -------
    str or None
        The directory (not created here), or None when the cache is switched off.
    """
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "none", "false") else os.path.expanduser(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "blowfish-studio", "jax")


def _configure_cache(jax: Any) -> None:
    """Point jax's persistent compilation cache at :func:`cache_dir` (once; process-wide).

    A directory the user configured (``jax_compilation_cache_dir`` already set) is kept; an
    unwritable directory leaves the cache off (compiling is then only slower, never wrong).
    """
    with contextlib.suppress(AttributeError, KeyError, ValueError):
        if getattr(jax.config, "jax_compilation_cache_dir", None):
            return
        path = cache_dir()
        if path is not None:
            try:
                os.makedirs(path, exist_ok=True)
            except OSError:
                path = None
        if path is None:
            jax.config.update("jax_enable_compilation_cache", False)
            return
        jax.config.update("jax_enable_compilation_cache", True)
        jax.config.update("jax_compilation_cache_dir", path)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", CACHE_MIN_COMPILE_SECONDS)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        if importlib.util.find_spec("filelock") is not None:  # jax's size bound needs it
            jax.config.update("jax_compilation_cache_max_size", CACHE_MAX_BYTES)


@contextlib.contextmanager
def jax_scope() -> Iterator[None]:
    """jax in float64 for the block, in this thread only (``jax.enable_x64``), not process-wide.

    mbi warns that float32 can stall or diverge its estimates; every mbi call of MST/AIM runs
    inside this scope (fits and the release's sampler), so other jax code in the process keeps
    its own precision.  Without jax (or a jax without the scoped flag) the block runs as is.

    Yields
    ------
    None
        Inside the block jax's ``jax_enable_x64`` is True for the current thread.
    """
    try:
        jax = importlib.import_module("jax")
        scope = getattr(jax, "enable_x64", None)
        if scope is None:  # older jax: the experimental context manager
            scope = importlib.import_module("jax.experimental").enable_x64
    except (ImportError, RuntimeError, OSError, AttributeError):
        yield  # require_mbi inside the block raises the clear error
        return
    with scope(True):
        yield


def in_jax_scope(fn: F) -> F:
    """Decorator: run ``fn`` inside :func:`jax_scope` (signature and docstring kept).

    Parameters
    ----------
    fn : callable
        A function that calls mbi.

    Returns
    -------
    callable
        The wrapped function.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with jax_scope():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def require_mbi(method: str = "MST") -> ModuleType:
    """Import and return ``mbi`` (configuring jax's persistent compilation cache first).

    Float64 is not switched on here, process-wide: MST/AIM run their mbi calls inside
    :func:`jax_scope` (float64 in the calling thread only).

    Parameters
    ----------
    method : str, default "MST"
        The method named in the error.

    Returns
    -------
    module
        The ``mbi`` package.

    Raises
    ------
    MissingDependencyError
        Naming ``method`` and the install command when mbi or jax is missing or
        cannot be imported.
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
    # The persistent compilation cache, against mbi's import-time advice: measured, it turns the
    # compile-bound seconds of a repeated fit into cache reads (docs/DECISIONS.md, issue 23).
    _configure_cache(jax)
    try:
        with warnings.catch_warnings(), jax_scope():
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


# --- mbi's attribute names ------------------------------------------------------------------------
# mbi orders cliques and variables through Python sets of attribute names (junction_tree.py:
# greedy_order, _triangulated, message_passing_order; MarkovRandomField.synthetic_data: the parent
# columns of each sampled column are ``tuple(set)``).  str hashes change with every process
# (PYTHONHASHSEED), int hashes do not: MST and AIM hand mbi the column indices 0..p-1 as attribute
# names, so the estimate's summation order and the sampler's draws, hence a seeded release, repeat in
# every process.  The schema's names come back at the edges (ledger rows, cliques of the result).


def mbi_domain(mbi: ModuleType, sizes: Sequence[int]) -> Any:
    """The mbi Domain of a fit: attributes 0..p-1 (the schema's column indices), ``sizes`` cells.

    Parameters
    ----------
    mbi : module
        The mbi package.
    sizes : sequence of int
        Cells of every attribute, in schema order.

    Returns
    -------
    mbi.Domain
        Integer attribute names (hash-seed independent, see above).
    """
    return mbi.Domain(tuple(range(len(sizes))), tuple(int(k) for k in sizes))


def mbi_clique(cols: Iterable[int]) -> tuple[int, ...]:
    """An mbi clique from column indices: plain Python ints (mbi tests ``isinstance(a, int)``).

    Parameters
    ----------
    cols : iterable of int
        Column indices (numpy integers allowed).

    Returns
    -------
    tuple of int
        The clique, in the given order.
    """
    return tuple(int(c) for c in cols)


def named_cliques(names: Sequence[str], cliques: Iterable[Iterable[int]]) -> tuple[tuple[str, ...], ...]:
    """mbi cliques (column indices) in the schema's attribute names.

    Parameters
    ----------
    names : sequence of str
        The schema's attribute names.
    cliques : iterable of iterable of int
        mbi cliques.

    Returns
    -------
    tuple of tuple of str
        The same cliques, named.
    """
    return tuple(tuple(names[int(c)] for c in cl) for cl in cliques)
