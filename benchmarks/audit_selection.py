"""Exact selection audit (issue 14): every edge of each small dataset graph, the exact
delta(epsilon_claimed) of each calibration both ways (no sampling).

    python benchmarks/audit_selection.py

Prints the audit table (case, domain, claimed (epsilon, delta), exact worst delta, verdict),
the worst edge of each case, and the construction deltas of §4.1 / §4.2.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blowfish_core.analysis.selection_audit import (  # noqa: E402
    construction_multiplicity, construction_path, construction_table, run_selection_audit, selection_audit_table,
)


def main() -> None:
    t0 = time.perf_counter()
    results = run_selection_audit()
    print(selection_audit_table(results))
    print()
    for r, _ in results:
        where = (f"worst edge {r.worst_edge[0]} ~ {r.worst_edge[1]}" if r.worst_delta > 0
                 else "delta = 0 on every edge")
        print(f"{r.case:<20} {r.domain:<20} {where} ({r.edges} edges)")
    bad = [r for r, exp in results if r.passed is not exp]
    print(f"\n{len(results) - len(bad)}/{len(results)} verdicts as expected; {time.perf_counter() - t0:.1f} s")
    print("\n§4.1 path, local scale, eps_s = 1, M = G^2 (limit 1/2):")
    for G in (10, 30, 100):
        print(f"  G = {G:>3}: delta(1) = {construction_path(G, 1.0).delta:.5f}")
    print("§4.2 multiplicity, smooth_fixed lambda = 0.25, beta = 0.5 (limit 1):")
    for m, C in ((1001, 18.0), (10**6 + 1, 40.0), (10**12 + 1, 80.0)):
        print(f"  m = {m:>14,}, C = {C:g}: delta(1) = {construction_multiplicity(m, C).delta:.5f}")
    print("project-native table, local scale (floor b0):")
    for b0, extra in ((0.01, 0), (0.1, 0), (0.5, 0), (0.5, 3)):
        print(f"  b0 = {b0:<4} extra background on c0 = {extra}: delta(1) on the identical-score pair = "
              f"{construction_table(b0=b0, extra=extra).delta:.5f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
