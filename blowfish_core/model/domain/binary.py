"""The binary attribute type: two levels, as a flat categorical."""

from __future__ import annotations

from ...base.errors import SchemaError
from .base import attribute_type
from .categorical import CategoricalAttribute


@attribute_type("binary")
class BinaryAttribute(CategoricalAttribute):
    """Two levels; as a flat categorical."""

    diameter_reason = "a binary attribute's two values are at Gower term 1"

    @classmethod
    def examples(cls) -> tuple[BinaryAttribute, ...]:
        return (cls("a", levels=[0, 1]), cls("b", levels=["no", "yes"]))

    def _check_count(self, L):
        if L != 2:
            raise SchemaError(f"attribute '{self.name}': binary needs exactly 2 levels (got {L})")
