"""Voronoi Explorer helpers (UI logic, no math): the one-line takeaway and click-to-add/remove.

The numbers come from blowfish_core.analysis.exact; these functions only word them and edit the
candidate population the page passes in.
"""

from __future__ import annotations

import math

import pandas as pd

SQRT2 = math.sqrt(2.0)
MAX_CANDIDATES = 200


def toggle_candidate(pop: pd.DataFrame, point: dict, cand_curve: int, grid_curve: int | None,
                     limit: int = MAX_CANDIDATES) -> tuple[pd.DataFrame, str]:
    """The population after a click on the plot: a click on candidate #i removes it (never the last
    one), a click on a grid point adds a candidate there (not a duplicate, at most ``limit``).
    point: a plotly selection point {'curve_number', 'point_index', 'x', 'y'}.  Returns (population,
    message)."""
    pop = pd.DataFrame(pop).reset_index(drop=True)
    curve = point.get("curve_number")
    if curve == cand_curve:
        i = int(point.get("point_index", point.get("point_number", -1)))
        if not 0 <= i < len(pop):
            return pop, ""
        if len(pop) == 1:
            return pop, "The last candidate stays: a population needs at least one."
        return pop.drop(index=i).reset_index(drop=True), f"Removed candidate #{i}."
    if grid_curve is not None and curve == grid_curve:
        x, y = float(point["x"]), float(point["y"])
        if ((pop["x"].astype(float) == x) & (pop["y"].astype(float) == y)).any():
            return pop, f"({x:g}, {y:g}) is already a candidate."
        if len(pop) >= limit:
            return pop, f"At most {limit} candidates."
        return pd.concat([pop, pd.DataFrame({"x": [x], "y": [y]})], ignore_index=True), \
            f"Added candidate #{len(pop)} at ({x:g}, {y:g})."
    return pop, ""


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
