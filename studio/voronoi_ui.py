"""Voronoi Explorer helpers (UI logic, no math): the one-line takeaway and click-to-add/remove.

The numbers come from blowfish_core.analysis.exact; these functions only word them and edit the
candidate population the page passes in.
"""

from __future__ import annotations

import math

import pandas as pd

SQRT2 = math.sqrt(2.0)
MAX_CANDIDATES = 200


#: a click within this fraction of each axis's range of a candidate removes it (plot units scaled by the
#: axis range, so it is the same on-screen distance on a 0..10 and a 0..1000 axis); capped below half a
#: grid step so the neighbouring grid point still adds a candidate.
CLICK_RADIUS = 0.03


def click_radius(steps: dict[str, int]) -> float:
    """The removal radius (fraction of each axis's range) for a lattice of ``steps`` points per axis:
    CLICK_RADIUS, or 0.49 of the finest grid step when that is smaller."""
    finest = min(1.0 / max(int(g) - 1, 1) for g in steps.values())
    return min(CLICK_RADIUS, 0.49 * finest)


def nearest_within(pop: pd.DataFrame, x: float, y: float, ranges: dict[str, tuple[float, float]],
                   radius: float) -> int | None:
    """Index of the candidate nearest to the click (x, y) when it lies within ``radius`` (a fraction
    of each axis's range ``ranges[ax] = (lo, hi)``), else None."""
    if not len(pop):
        return None
    sx = max(ranges["x"][1] - ranges["x"][0], 1e-12)
    sy = max(ranges["y"][1] - ranges["y"][0], 1e-12)
    d = ((pop["x"].astype(float).to_numpy() - x) / sx) ** 2 + ((pop["y"].astype(float).to_numpy() - y) / sy) ** 2
    i = int(d.argmin())
    return i if d[i] <= radius**2 else None


def toggle_candidate(pop: pd.DataFrame, point: dict, cand_curve: int, grid_curve: int | None,
                     limit: int = MAX_CANDIDATES, ranges: dict[str, tuple[float, float]] | None = None,
                     radius: float = CLICK_RADIUS) -> tuple[pd.DataFrame, str]:
    """The population after a click on the plot: a click on or near candidate #i (within ``radius``
    of each axis's range ``ranges``) removes it (never the last one), a click on a grid point farther
    away adds a candidate there (at most ``limit``).
    point: a plotly selection point {'curve_number', 'point_index', 'x', 'y'}.  Returns (population,
    message)."""
    pop = pd.DataFrame(pop).reset_index(drop=True)
    curve = point.get("curve_number")
    if curve not in (cand_curve, grid_curve) or curve is None:
        return pop, ""
    i: int | None = None
    if "x" in point and "y" in point and ranges is not None:
        i = nearest_within(pop, float(point["x"]), float(point["y"]), ranges, radius)
    if i is None and curve == cand_curve:
        i = int(point.get("point_index", point.get("point_number", -1)))
        if not 0 <= i < len(pop):
            return pop, ""
    if i is not None:
        if len(pop) == 1:
            return pop, "The last candidate stays: a population needs at least one."
        return pop.drop(index=i).reset_index(drop=True), f"Removed candidate #{i}."
    x, y = float(point["x"]), float(point["y"])
    if ((pop["x"].astype(float) == x) & (pop["y"].astype(float) == y)).any():  # no ranges given
        return pop, f"({x:g}, {y:g}) is already a candidate."
    if len(pop) >= limit:
        return pop, f"At most {limit} candidates."
    return pd.concat([pop, pd.DataFrame({"x": [x], "y": [y]})], ignore_index=True), \
        f"Added candidate #{len(pop)} at ({x:g}, {y:g})."


def takeaway(hard_l2: float | None, soft_l2: float | None, closed_l2: float) -> str:
    """The one-line lesson of the current picture (hard vs soft cost of a protected step)."""
    if hard_l2 is None:  # exact search skipped: the closed form holds for every population
        if closed_l2 == 0:
            return "Nothing is protected (θ = 0): no step costs anything."
        return (f"A protected step that crosses a boundary costs the hard vote √2 = 1.414, the soft vote at most "
                f"{closed_l2:.3f} (closed-form bound): {SQRT2 / closed_l2:.1f}× less noise.")
    if hard_l2 > 0 and soft_l2 and soft_l2 > 0:
        return (f"A protected step that crosses a boundary costs the hard vote √2 = 1.414, the soft vote "
                f"{soft_l2:.3f}: {hard_l2 / soft_l2:.1f}× less noise.")
    if hard_l2 > 0:
        return "A protected step crosses a boundary and costs the hard vote √2 = 1.414; the soft vote does not move."
    if soft_l2 and soft_l2 > 0:
        return (f"No protected step crosses a boundary: the hard vote costs 0 here, the soft vote {soft_l2:.3f}. "
                "One more candidate can put a boundary between a protected pair and cost the hard vote √2.")
    return "No protected step moves either vote here: both cost 0."
