"""Empirical privacy audit of one round of Tab-PE, Hard and BF-Soft (issue 7).

Prints, for each method at its claimed budget and for each deliberately broken
calibration, the claimed epsilon (epsilon_exact(rho_t, delta), one round), the
audit's epsilon lower bound (Clopper-Pearson, 95%), the exact epsilon of the
audited pair when its two Gaussians share a sigma, and the verdict.  A correct
calibration must PASS (eps_lb <= claimed) and a broken one must FAIL.

    python benchmarks/audit_privacy.py                  # 2e6 runs per side, rho_t = 0.25
    python benchmarks/audit_privacy.py --n 200000 --rho-t 0.1,0.25,1 --full 200000

The "scalar" sampler draws the test statistic's exact distribution (projection
plus chi-square rest); --full N reruns the suite drawing N whole noisy histograms
per side, to validate that shortcut.
"""

from __future__ import annotations

import argparse
import sys
import time


from blowfish_core.analysis.audit import (  # noqa: E402
    LAPLACE_EPSILON_T, audit_table, default_setting, run_audit_suite, run_laplace_audit_suite,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2_000_000, help="mechanism runs per dataset (scalar sampler)")
    ap.add_argument("--full", type=int, default=200_000, help="runs per dataset with whole histograms (0: skip)")
    ap.add_argument("--rho-t", default="0.25", help="comma list of per-round zCDP budgets")
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--alpha", type=float, default=0.05, help="1 - confidence of the lower bound")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--laplace", type=int, default=200_000,
                    help="runs per dataset of the Laplace (pure epsilon) suite (0: skip)")
    ap.add_argument("--epsilon-t", type=float, default=LAPLACE_EPSILON_T, help="per-round epsilon of the Laplace suite")
    args = ap.parse_args(argv)
    s = default_setting()
    print("setting: X1 ordinal 0..15, X2 ordinal 0..3 (w = 1/2), policy X1 one level (r = 1/30), "
          f"tau = {s.tau}, m = {s.C.shape[0]} candidates at X1 in {{0, 15}}; delta = {args.delta:g}; "
          f"confidence {1 - args.alpha:.0%}; threshold chosen on a separate half of the runs")
    bad = 0
    for rho_t in [float(x) for x in args.rho_t.split(",")]:
        runs = [("scalar", args.n)] + ([("full", args.full)] if args.full else [])
        for sampler, n in runs:
            t0 = time.perf_counter()
            res = run_audit_suite(n_samples=n, seed=args.seed, rho_t=rho_t, delta=args.delta,
                                  alpha=args.alpha, sampler=sampler, setting=s)
            dt = time.perf_counter() - t0
            print(f"\nrho_t = {rho_t:g}, sampler = {sampler}, {n:,} runs per dataset ({dt:.1f} s)")
            print(audit_table(res))
            bad += sum(r.passed != exp for r, exp in res)
    if args.laplace:
        t0 = time.perf_counter()
        res = run_laplace_audit_suite(n_samples=args.laplace, seed=args.seed, epsilon_t=args.epsilon_t,
                                      alpha=args.alpha, setting=s)
        dt = time.perf_counter() - t0
        print(f"\nLaplace mechanism (pure DP): epsilon_t = {args.epsilon_t:g}, delta = 0, l1 sensitivities, "
              f"{args.laplace:,} runs per dataset ({dt:.1f} s)")
        print(audit_table(res))
        bad += sum(r.passed != exp for r, exp in res)
    print("\nall verdicts as expected" if bad == 0 else f"\n{bad} UNEXPECTED verdict(s)")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
