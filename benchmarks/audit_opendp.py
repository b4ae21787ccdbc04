"""The one-round privacy audit with OpenDP's samplers (issues 11, 21).

Same worst-case pairs, Clopper-Pearson bound and verdict as benchmarks/audit_privacy.py
(blowfish_core.analysis.audit), but every mechanism run is a whole noisy histogram drawn by
OpenDP: the discrete Gaussian for the hard votes (Tab-PE, Hard), OpenDP's float Gaussian for
BF-Soft.  Prints the claimed epsilon, the epsilon lower bound, the pair's exact epsilon and
the verdict for the engine's calibrations (must PASS) and the broken ones (must FAIL); prints
"verdict: PASS" and exits 0 when every case is as expected, else "verdict: FAIL" and 1.
A case fails when the pair's exact epsilon (shift / sigma, the calibration) exceeds the claim
by more than a relative 1e-9, or when eps_lb (OpenDP's noise) does.  Unseeded (OS entropy):
the bounds vary a little between runs, the verdicts must not.

    python benchmarks/audit_opendp.py                                          # 55,000 / 10,000 runs per side
    python benchmarks/audit_opendp.py --method bf-soft --sensitivity-scale 0.5  # exits 1
    python benchmarks/audit_opendp.py --n 100000   # tighter bounds, slower (float sampler ~0.05 ms/value)

--method M audits M's cases only (default all); --sensitivity-scale S multiplies the engine's
own calibration by S (0.5 halves BF-Soft's bound: pair epsilon 6.56 against the claim 2.94).

Run counts (power calculation, audit module docstring): the empirical rule alone detects a
calibration x 0.5 with probability >= 0.95 at 27,425 runs per side with the best threshold;
learning the threshold on half the runs costs power, so the engine's cases run 2 x that
rounded up, 55,000 (--n; simulated power 0.99).  The broken controls are off by far more (the
empirical rule caught each in 200/200 audits at 2,000 runs) and run 10,000 (--control-n).  The
exact rule fails x 0.5 at any run count.  Times on the 2-core machine: docs/BENCHMARKS.md.
The script imports the checkout it sits in.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blowfish_core.analysis.audit import AUDIT_CASES, add_audit_args, report_verdict, audit_table, select_cases  # noqa: E402
from blowfish_core.analysis.audit_opendp import OPENDP_CONTROL_RUNS, OPENDP_RUNS, audit_opendp  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_audit_args(ap)
    ap.add_argument("--n", type=int, default=OPENDP_RUNS,
                    help=f"mechanism runs per dataset, the engine's calibrations (default {OPENDP_RUNS:,})")
    ap.add_argument("--control-n", type=int, default=OPENDP_CONTROL_RUNS,
                    help=f"mechanism runs per dataset, the broken controls (default {OPENDP_CONTROL_RUNS:,})")
    ap.add_argument("--rho-t", type=float, default=0.25)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--alpha", type=float, default=0.05)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    scale = args.sensitivity_scale
    results = []
    for method, calibration, expected in select_cases(AUDIT_CASES, args.method):
        t1 = time.perf_counter()
        n = args.n if calibration == "correct" else args.control_n
        r = audit_opendp(method, calibration, rho_t=args.rho_t, delta=args.delta, n_samples=n,
                         alpha=args.alpha, sensitivity_scale=scale)
        results.append((r, expected))
        print(f"  {method:<8} {calibration:<17} sampler {r.sampler:<16} {n:>7,} runs  eps_lb {r.eps_lb:.3f} "
              f"claimed {r.claimed_eps:.3f}  {'PASS' if r.passed else 'FAIL'}  ({time.perf_counter() - t1:.1f} s)",
              flush=True)
    print(f"\nOpenDP noise, {args.n:,} runs per side ({args.control_n:,} for the broken controls), "
          f"rho_t = {args.rho_t:g}, delta = {args.delta:g}, method {args.method}, engine sensitivity x {scale:g}:")
    print(audit_table(results))
    return report_verdict(results, time.perf_counter() - t0)


if __name__ == "__main__":
    sys.exit(main())
