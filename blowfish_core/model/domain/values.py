"""The value helpers of the attribute types: the canonical string of a domain value, the JSON-safe
number, and :class:`FrozenList` (issue 22: split off :mod:`.base`, which re-exports them)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _fmt(v: Any) -> str:
    """Canonical string of a domain value, used to match CSV cells to levels."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() else float(v)


def _plain(v: Any) -> Any:
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


class FrozenList(tuple):
    """An immutable sequence that compares equal to a list or tuple with the same items.

    Used for declared levels and schema column lists, so frozen objects stay hashable
    while ``attr.levels == ["a", "b"]`` keeps working; JSON writes it as an array.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            return tuple.__eq__(self, tuple(other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return repr(list(self))
