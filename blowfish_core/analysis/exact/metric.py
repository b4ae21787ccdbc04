"""Distances from records to a candidate population (Gower or Euclidean), in blocks of bounded size:
nearest candidates (the hard vote) and soft votes."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base.errors import SchemaError
from ...model.gower_kernel import GowerKernel
from ...model.rows import domain_index
from ...model.schema import Schema
from ...model.votes import check_tau, soft_rows

#: distances supported by the exact engine: Gower (weighted l1, the project default) and
#: weighted Euclidean sqrt(sum_i (w_i d_i)^2).  Both are metrics, and a record-level edge
#: that changes one attribute has the same length w_i d_i(u, v) under both, so reach and
#: the closed-form bound (Cor. 5.5) are the same.
DISTANCES = ("gower", "euclidean")
#: float64 elements per working block (about 16 MiB).
BLOCK_ELEMS = 2**21


def check_distance(distance: str) -> str:
    """Validate a distance name (one of DISTANCES).

    Parameters
    ----------
    distance : str
        'gower' or 'euclidean'.

    Returns
    -------
    str
        ``distance`` unchanged.

    Raises
    ------
    SchemaError
        Naming it, if it is not one of DISTANCES.
    """
    if distance not in DISTANCES:
        raise SchemaError(f"distance must be one of {', '.join(DISTANCES)} (got {distance!r})")
    return distance


def _check_population(schema: Schema, C: Any) -> np.ndarray:
    C = np.asarray(C, dtype=float)
    if C.ndim != 2 or C.shape[1] != schema.p:
        raise SchemaError(
            f"the candidate population must be an (m, {schema.p}) encoded matrix (got shape {C.shape}). "
            "Fix: encode it with schema.encode(table)"
        )
    if C.shape[0] == 0:
        raise SchemaError("the candidate population is empty. Fix: give at least one candidate")
    if not np.isfinite(C).all():
        raise SchemaError("the candidate population contains missing or infinite values")
    return C


class _Metric:
    """Distances from record blocks to the population: Gower (via GowerKernel) or Euclidean."""

    def __init__(self, schema: Schema, C: np.ndarray, distance: str):
        self.schema = schema
        self.C = C
        self.m = C.shape[0]
        self.distance = check_distance(distance)
        self._kernel: GowerKernel | None = None      # built on first use (lookup tables cost L x m)
        self.w = schema.weights

    def block(self, R: np.ndarray) -> np.ndarray:
        """(rows, p) encoded records -> (rows, m) distances."""
        if self.distance == "gower":
            if self._kernel is None:
                self._kernel = GowerKernel(self.schema, self.C)
            return self._kernel.block(R, domain_index(self.schema, R))
        D = np.zeros((R.shape[0], self.m))
        for i, a in enumerate(self.schema.attributes):
            t = self.w[i] * a.term(R[:, i, None], self.C[None, :, i])
            D += t * t
        return np.sqrt(D, out=D)

    def rows_per_block(self) -> int:
        return max(1, BLOCK_ELEMS // max(self.m, 1))


def distances(schema: Schema, C: np.ndarray, X: np.ndarray, distance: str = "gower") -> np.ndarray:
    """Distances of records X to candidates C, both encoded.

    Parameters
    ----------
    schema : Schema
        The public domain.
    C : (m, p) float ndarray
        Encoded candidates.
    X : (n, p) float ndarray
        Encoded records.
    distance : {'gower', 'euclidean'}, default 'gower'
        Gower units (weighted l1) or weighted Euclidean.

    Returns
    -------
    (n, m) float64 ndarray
        The distances.

    Raises
    ------
    SchemaError
        For a bad shape of C (or an empty or non-finite population), or an unknown distance.
    """
    C = _check_population(schema, C)
    met = _Metric(schema, C, distance)
    X = np.asarray(X, dtype=float)
    out = np.empty((X.shape[0], met.m))
    step = met.rows_per_block()
    for s in range(0, X.shape[0], step):
        out[s:s + step] = met.block(X[s:s + step])
    return out


def nearest_candidates(schema: Schema, C: np.ndarray, X: np.ndarray, distance: str = "gower") -> np.ndarray:
    """nn(x) = argmin_j d(x, c_j) per record (ties -> lowest index).

    Decision regions ("Voronoi cells" under the chosen distance, not a Euclidean
    Voronoi routine).  Chunked.

    Parameters
    ----------
    schema : Schema
        The public domain.
    C : (m, p) float ndarray
        Encoded candidates.
    X : (n, p) float ndarray
        Encoded records.
    distance : {'gower', 'euclidean'}, default 'gower'
        The distance.

    Returns
    -------
    (n,) int ndarray
        Index of the nearest candidate of each record.

    Raises
    ------
    SchemaError
        As :func:`distances`.
    """
    C = _check_population(schema, C)
    met = _Metric(schema, C, distance)
    X = np.asarray(X, dtype=float)
    out = np.empty(X.shape[0], dtype=np.intp)
    step = met.rows_per_block()
    for s in range(0, X.shape[0], step):
        out[s:s + step] = np.argmin(met.block(X[s:s + step]), axis=1)
    return out


def soft_votes(schema: Schema, C: np.ndarray, X: np.ndarray, tau: float, distance: str = "gower") -> np.ndarray:
    """Soft votes softmax(-d(x, c_j)/tau) (Eq. 2).

    Parameters
    ----------
    schema : Schema
        The public domain.
    C : (m, p) float ndarray
        Encoded candidates.
    X : (n, p) float ndarray
        Encoded records.
    tau : float
        Softmax temperature, > 0 (distance units).
    distance : {'gower', 'euclidean'}, default 'gower'
        The distance.

    Returns
    -------
    (n, m) float64 ndarray
        Rows on the simplex.

    Raises
    ------
    BudgetError
        For a bad tau (check_tau).
    SchemaError
        As :func:`distances`.
    """
    tau = check_tau(tau)
    return soft_rows(distances(schema, C, X, distance), tau)
