"""Lazy module imports (issue 15: ``python -m blowfish_core --help`` and small runs start fast).

``pd = lazy_module("pandas")`` behaves like ``import pandas as pd`` but imports pandas on
the first attribute access (about 0.3 s of a CLI start that never needed it).  After the
first access the module's namespace is copied onto the proxy, so later lookups cost what
a module attribute costs.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule(ModuleType):
    """Stands in for the module ``name`` until one of its attributes is read."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lazy_target"] = name

    def __getattr__(self, attr: str) -> Any:  # only called when normal lookup fails
        mod = importlib.import_module(self.__dict__["_lazy_target"])
        self.__dict__.update({k: v for k, v in vars(mod).items() if k not in ("__name__", "__spec__")})
        return getattr(mod, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_lazy_target']!r}>"


def lazy_module(name: str) -> ModuleType:
    """The module ``name`` if already imported, else a proxy that imports it on first use."""
    import sys

    return sys.modules.get(name) or LazyModule(name)


#: ``from ._lazy import pd`` in place of ``import pandas as pd``.
pd: Any = lazy_module("pandas")
#: scipy submodules used by a few functions only (scipy.stats alone is about 0.3 s to import).
stats: Any = lazy_module("scipy.stats")
optimize: Any = lazy_module("scipy.optimize")
special: Any = lazy_module("scipy.special")
