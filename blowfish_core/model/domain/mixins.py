"""The mixins of the line and level types: the shared level checks (:class:`_Levels`), the Gower term
|a - b| of the types on a line (:class:`_Line`) and their threshold pairs by step (issue 22: split off
:mod:`.base`)."""

from __future__ import annotations

import math

import numpy as np

from ...base.errors import SchemaError
from .base import Attribute
from .values import _fmt


def _step_pairs(L: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of a line of L unit-spaced values at most floor(theta) steps apart, by step."""
    k = min(int(math.floor(theta + 1e-9)), L - 1)
    if k < 1:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    i0 = np.concatenate([np.arange(L - s) for s in range(1, k + 1)])
    i1 = np.concatenate([np.arange(s, L) for s in range(1, k + 1)])
    return i0.astype(np.intp), i1.astype(np.intp)


class _Levels(Attribute):
    """Shared checks of the types declared by a list of levels."""

    def _check_levels(self) -> None:
        n = self.name
        if not self.levels:
            raise SchemaError(f"attribute '{n}': a {self.kind} attribute needs a non-empty list of levels")
        keys = [_fmt(v) for v in self.levels]
        if len(set(keys)) != len(keys):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise SchemaError(f"attribute '{n}': duplicate levels {dup}")
        self._check_count(len(keys))
        self._set(_level_index={k: i for i, k in enumerate(keys)})

    def _check_count(self, L: int) -> None:
        pass

    def _validate(self) -> None:
        self._check_levels()


class _Line:
    """Mixin of the types whose values lie on a line: Gower term |a - b| of the codes."""

    ordered = True
    graded = True

    def term(self, a, b):
        return np.abs(a - b)

    def term_into(self, a, b, out):
        np.subtract(a, b, out=out)
        return np.abs(out, out=out)
