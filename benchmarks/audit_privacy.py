"""Empirical privacy audit of one round of Tab-PE, Hard and BF-Soft (issues 7, 21).

Prints, for each method at its claimed budget and for each deliberately broken
calibration, the claimed epsilon (epsilon_exact(rho_t, delta), one round), the
audit's epsilon lower bound (Clopper-Pearson, 95%), the exact epsilon of the
audited pair when its two Gaussians share a sigma, and the verdict.

Verdict (blowfish_core.analysis.audit): a case FAILS when the pair's exact epsilon
(computable when both sides share one sigma: mu = ||H(D') - H(D)||_2 / sigma) exceeds the
claim by more than a relative 1e-9, or when the empirical bound eps_lb exceeds the claim.
The engine's calibrations must PASS and the broken ones must FAIL; the script prints
"verdict: PASS" and exits 0 when every case is as expected, else "verdict: FAIL" and 1.

    python benchmarks/audit_privacy.py                  # 2e6 runs per side, rho_t = 0.25
    python benchmarks/audit_privacy.py --method bf-soft --sensitivity-scale 0.5   # exits 1
    python benchmarks/audit_privacy.py --n 200000 --rho-t 0.1,0.25,1 --full 200000

--method M audits M's cases only (default all); --sensitivity-scale S multiplies the
engine's own calibration by S (a mutation: S = 0.5 halves BF-Soft's bound, the pair's exact
epsilon is then 6.56 against the claim 2.94, so the audit must fail).

Run counts (power calculation, audit module docstring): detecting a calibration x 0.5 with
probability >= 0.95 from the empirical rule alone needs 27,425 runs per side at the best
threshold (rho_t = 0.25, delta = 1e-5, alpha = 0.05), about twice that with the threshold
learned on half the runs.  Every default here is at least 2 x 27,425: 2,000,000 (scalar
sampler, 2 s), 200,000 (whole histograms, Laplace).  The exact rule fails x 0.5 at any count.

The "scalar" sampler draws the test statistic's exact distribution (projection
plus chi-square rest); --full N reruns the suite drawing N whole noisy histograms
per side, to validate that shortcut.  The script imports the checkout it sits in.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blowfish_core.analysis.audit import (  # noqa: E402
    add_audit_args, report_verdict, LAPLACE_EPSILON_T, audit_table, default_setting, run_audit_suite, run_laplace_audit_suite,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_audit_args(ap)
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
    t_start = time.perf_counter()
    s = default_setting()
    scale = args.sensitivity_scale
    print("setting: X1 ordinal 0..15, X2 ordinal 0..3 (w = 1/2), policy X1 one level (r = 1/30), "
          f"tau = {s.tau}, m = {s.C.shape[0]} candidates at X1 in {{0, 15}}; delta = {args.delta:g}; "
          f"confidence {1 - args.alpha:.0%}; threshold chosen on a separate half of the runs; "
          f"method {args.method}; engine sensitivity x {scale:g}")
    results = []
    for rho_t in [float(x) for x in args.rho_t.split(",")]:
        runs = [("scalar", args.n)] + ([("full", args.full)] if args.full else [])
        for sampler, n in runs:
            t0 = time.perf_counter()
            res = run_audit_suite(n_samples=n, seed=args.seed, rho_t=rho_t, delta=args.delta, alpha=args.alpha,
                                  sampler=sampler, setting=s, sensitivity_scale=scale, methods=args.method)
            dt = time.perf_counter() - t0
            print(f"\nrho_t = {rho_t:g}, sampler = {sampler}, {n:,} runs per dataset ({dt:.1f} s)")
            print(audit_table(res))
            results += res
    if args.laplace:
        t0 = time.perf_counter()
        res = run_laplace_audit_suite(n_samples=args.laplace, seed=args.seed, epsilon_t=args.epsilon_t,
                                      alpha=args.alpha, setting=s, sensitivity_scale=scale, methods=args.method)
        dt = time.perf_counter() - t0
        print(f"\nLaplace mechanism (pure DP): epsilon_t = {args.epsilon_t:g}, delta = 0, l1 sensitivities, "
              f"{args.laplace:,} runs per dataset ({dt:.1f} s)")
        print(audit_table(res))
        results += res
    return report_verdict(results, time.perf_counter() - t_start)


if __name__ == "__main__":
    sys.exit(main())
