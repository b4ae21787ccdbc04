"""The one-round privacy audit with OpenDP's samplers (issue 11).

Same worst-case pairs and Clopper-Pearson bound as benchmarks/audit_privacy.py
(blowfish_core.audit), but every mechanism run is a whole noisy histogram drawn by OpenDP:
the discrete Gaussian for the hard votes (Tab-PE, Hard), OpenDP's float Gaussian for
BF-Soft.  Prints the claimed epsilon, the epsilon lower bound and the verdict for the
engine's calibrations (must PASS) and the broken ones (must FAIL).  Unseeded (OS
entropy): the bounds vary a little between runs, the verdicts must not.

    python benchmarks/audit_opendp.py              # 20,000 runs per side, rho_t = 0.25
    python benchmarks/audit_opendp.py --n 100000   # tighter bounds, slower (float sampler ~0.1 ms/value)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blowfish_core.analysis.audit import AUDIT_CASES, audit_table
from blowfish_core.analysis.audit_opendp import audit_opendp


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000, help="mechanism runs per dataset")
    ap.add_argument("--rho-t", type=float, default=0.25)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--alpha", type=float, default=0.05)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    results = []
    for method, calibration, expected in AUDIT_CASES:
        r = audit_opendp(method, calibration, rho_t=args.rho_t, delta=args.delta, n_samples=args.n, alpha=args.alpha)
        results.append((r, expected))
        print(f"  {method:<8} {calibration:<17} sampler {r.sampler:<16} eps_lb {r.eps_lb:.3f} "
              f"claimed {r.claimed_eps:.3f}  {'PASS' if r.passed else 'FAIL'}", flush=True)
    print(f"\nOpenDP noise, {args.n:,} runs per side, rho_t = {args.rho_t:g}, delta = {args.delta:g}:")
    print(audit_table(results))
    bad = [r for r, exp in results if r.passed != exp]
    print(f"\n{len(results) - len(bad)}/{len(results)} verdicts as expected; {time.perf_counter() - t0:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
