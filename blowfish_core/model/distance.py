"""Gower distance between records and candidates, chunked (paper §2.3, §6.1).

``d(x, c) = sum_i w_i d_i(x_i, c_i)`` with per-attribute terms in [0, 1]
(``Attribute.term``, :mod:`blowfish_core.model.domain`).  Distances are in Gower units, in
[0, sum_i w_i] (= [0, 1] with the default weights 1/p).

The parts, one idea each (issue 22; every name is re-exported here):
:mod:`.tiling` (memory budgets and block sizes), :mod:`.rows` (domain index, distinct and
grouped rows), :mod:`.gower_tables` (the float64 lookup tables and blocks) and
:mod:`.gower_kernel` (:class:`GowerKernel`: those plus the float32 nearest-candidate search).
This module holds the whole-matrix and pair distances.
"""

from __future__ import annotations

import numpy as np

from .gower_kernel import GowerKernel
from .rows import distinct_rows, domain_index, group_records, sorted_distinct, used_codes
from .schema import Schema
from .tiling import BLOCK_BYTES, JOINT_BYTES, LOOKUP_MAX, PAIRS_MAX, TILE32_BYTES, TILE_BYTES, chunk_rows, tile_rows

#: this module's own names and the ones it re-exports (tests, benchmarks and external checks import
#: them from here).
__all__ = [
    "gower_distances", "gower_pair",
    "GowerKernel",
    "distinct_rows", "domain_index", "group_records", "sorted_distinct", "used_codes",
    "BLOCK_BYTES", "JOINT_BYTES", "LOOKUP_MAX", "PAIRS_MAX", "TILE32_BYTES", "TILE_BYTES", "chunk_rows", "tile_rows",
]


def gower_distances(schema: Schema, X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Full (n, m) Gower distance matrix (for small inputs and tests).

    Parameters
    ----------
    schema : Schema
        The schema.
    X : (n, p) float64 ndarray
        Encoded records.
    C : (m, p) float64 ndarray
        Encoded candidates.

    Returns
    -------
    (n, m) float64 ndarray
        Distances in Gower units.
    """
    k = GowerKernel(schema, C)
    out = np.empty((X.shape[0], k.m))
    for sl, D in k.iter_blocks(X):
        out[sl] = D
    return out


def gower_pair(schema: Schema, x: np.ndarray, y: np.ndarray) -> float:
    """Gower distance between two encoded records.

    Parameters
    ----------
    schema : Schema
        The schema.
    x, y : (p,) float64 ndarray
        Encoded records.

    Returns
    -------
    float
        d(x, y), in Gower units.
    """
    w = schema.weights
    return float(sum(w[i] * float(a.term(np.array(x[i]), np.array(y[i]))) for i, a in enumerate(schema.attributes)))
