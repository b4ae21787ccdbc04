"""The flat categorical attribute type."""

from __future__ import annotations

from .base import attribute_type
from .mixins import _Levels


@attribute_type("categorical")
class CategoricalAttribute(_Levels):
    """Flat categorical: level index, Gower term [a != b]; every distinct pair at the diameter."""

    diameter_reason = "a flat categorical attribute has every pair of distinct values at Gower term 1"
