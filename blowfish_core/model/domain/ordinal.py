"""The ordinal attribute type: ordered levels on the rank grid."""

from __future__ import annotations

import numpy as np

from .base import attribute_type
from .mixins import _Levels, _Line, _step_pairs


@attribute_type("ordinal")
class OrdinalAttribute(_Line, _Levels):
    """Ordered levels; code rank / (L - 1), Gower term |a - b| = rank difference / (L - 1)."""

    policy_kinds = ("none", "threshold", "block", "complete", "edges")

    @property
    def _gap(self) -> int:
        return max(len(self.levels) - 1, 1)

    @property
    def width(self) -> float:
        """L - 1 levels."""
        return self._gap

    def domain_codes(self):
        return np.arange(self.size, dtype=float) / max(self.size - 1, 1)

    def index(self, col):
        return np.rint(col * max(self.size - 1, 1)).astype(np.int32)

    def encode_series(self, s):
        return self._level_codes(s) / self._gap

    def decode_array(self, col):
        return self._level_array(np.rint(np.asarray(col) * self._gap).astype(int))

    def bin_codes(self, col, bins):
        return np.rint(col * self._gap).astype(np.int64), len(self.levels)

    def mutate(self, col, steps, redraw, picks):
        """A uniform step of +-rate x (L - 1) levels, rounded and clipped."""
        L = len(self.levels)
        r = np.rint(np.clip(col * (L - 1) + steps * (L - 1), 0, L - 1))
        return r / max(L - 1, 1)

    def sample(self, rng, size):
        L = len(self.levels)
        return rng.integers(0, L, size=size).astype(float) / max(L - 1, 1)

    @property
    def threshold_unit(self):
        return "levels"

    def threshold_pairs(self, theta):
        """Levels at most floor(theta) steps apart."""
        return _step_pairs(self.size, theta)
