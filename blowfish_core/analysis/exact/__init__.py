"""Exact policy-specific sensitivity of the vote histogram for a fixed candidate population.

Paper: Lemma 5.1 (sensitivity is a maximum over policy edges), Cor. 5.2 (attribute
by attribute), Cor. 5.3 (hard vote: 0 or sqrt(2)), Lemma 5.4 / Cor. 5.5 (soft vote:
tilt bound), Prop. 5.6 (tightness), §6.2.6 and Figure 7 (exact vs bound, cost).

What is computed here, for a population C (m candidates, encoded as in
:mod:`blowfish_core.model.schema`) and a policy:

* :func:`exact_sensitivity` -- ``S_p = max over record-level policy edges (x, y) of
  ||v(x) - v(y)||_p`` for the hard vote ``e_nn(x)`` or the soft vote
  ``softmax(-d(x, c_j) / tau)`` (Eq. 2), p = 2 and p = 1, with the edge that attains
  it (decoded values), the number of record-level edges and, for the hard vote, the
  number of boundary-crossing edges (nn(x) != nn(y)).  Record-level edges change one
  attribute by a protected value pair and keep the others (the context) fixed; they
  are enumerated in vectorized, memory-bounded batches.  Continuous numeric
  attributes are replaced by a lattice of ``grid`` points (edges join lattice points
  at most theta apart); the value is then exact *on that grid only*.
* :func:`population_aware_bound` -- the tilt bound of Lemma 5.4 evaluated with the
  population's own logit oscillation instead of the worst case ``2 d(x, y) / tau``.
  Under the Gower distance an edge that changes attribute i shifts the logits by
  ``-(w_i/tau) (d_i(v, c_ji) - d_i(u, c_ji))``, which depends on attribute i of the
  candidates only, so it is computed per attribute without enumerating contexts.
  Always ``exact <= population-aware <= closed form`` (up to rounding).
* :func:`tightness_construction` -- Prop. 5.6: two candidates at 0 and L, the
  protected pair (L -+ theta)/2; extra candidates pushed R away.
* :func:`crossing_search` -- the fast crossing search of
  :func:`blowfish_core.model.sensitivity.hard_sensitivity` (returns the certifying crossing).

Two exact soft-vote algorithms give the same numbers (tests compare them):

* ``enumerate`` -- softmax rows of every edge endpoint (:func:`blowfish_core.model.votes.soft_rows`
  on :class:`blowfish_core.model.distance.GowerKernel` blocks), differences per edge.
  Cost O(edges x m).
* ``line`` -- Gower distance, protected attribute numeric or ordinal: with the
  candidates sorted along the protected attribute, the vote of every value and every
  edge difference follow from log-domain prefix sums (candidates left of u, right of
  v) plus the few candidates strictly between u and v.  Cost O((m + L + E) log m)
  per context instead of O(L m); used automatically when it applies.

Privacy (DESIGN §7): everything here depends on the policy, tau, the public domain and
the candidate population only -- never on private records.  The exact value is a
teaching and checking tool; synthesis calibrates to the closed-form bound (Cor. 5.5).

Modules (issue 22, one idea each; every name is re-exported here):

* :mod:`.lattice` -- the public domain as lattices (continuous attributes on a grid), the edge
  count and its limit (EnumerationLimitError).
* :mod:`.metric` -- distances from records to the candidates, nearest candidates, soft votes.
* :mod:`.soft` -- the exact soft-vote edge costs along one ordered axis (the prefix-sum line).
* :mod:`.blocks` -- the walk over record-level edge blocks (hard: nearest candidates, the 1-D
  fast path; soft: the line or enumeration; oscillations).
* :mod:`.sensitivity` -- exact_sensitivity, edge_costs, crossing_search (hard and soft exact).
* :mod:`.population` -- closed_form_bound (Cor. 5.5) and population_aware_bound (Lemma 5.4).
* :mod:`.tightness` -- the Prop. 5.6 construction that attains the bound.
"""

from __future__ import annotations

from .lattice import (
    DEFAULT_GRID,
    DEFAULT_MAX_EDGES,
    EnumerationLimitError,
    Lattice,
    attribute_lattice,
    lattice_records,
    record_edge_total,
    schema_lattices,
)
from .lattice import MAX_AXIS_WIDTH as MAX_AXIS_WIDTH  # importable here as before (not in __all__)
from .lattice import check_axis_bounds as check_axis_bounds  # importable here as before (not in __all__)
from .metric import BLOCK_ELEMS as BLOCK_ELEMS  # importable here as before (not in __all__)
from .metric import DISTANCES, distances, nearest_candidates, soft_votes
from .metric import check_distance as check_distance  # importable here as before (not in __all__)
from .population import PopulationBound, closed_form_bound, population_aware_bound
from .sensitivity import METHODS as METHODS  # importable here as before (not in __all__)
from .sensitivity import ExactSensitivity, crossing_search, edge_costs, exact_sensitivity
from .tightness import Tightness, tightness_construction

__all__ = [
    "DISTANCES", "DEFAULT_GRID", "DEFAULT_MAX_EDGES", "EnumerationLimitError",
    "Lattice", "attribute_lattice", "schema_lattices", "lattice_records", "record_edge_total",
    "distances", "nearest_candidates", "soft_votes",
    "ExactSensitivity", "exact_sensitivity", "edge_costs", "crossing_search",
    "closed_form_bound", "PopulationBound", "population_aware_bound",
    "Tightness", "tightness_construction",
]
