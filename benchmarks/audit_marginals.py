"""The privacy audit of bf-mst's and bf-soft-mst's marginal measurements, release path (issue 25).

The 3 x 4 x 2 mixed domain (color, age in 2 public bins, flag; policy: age threshold 1, color blocks
{a, b} {c}), every record-level policy edge enumerated, the edge that changes the measured marginal
most taken as D / D' (blowfish_core.analysis.audit.marginals).  Each measurement is released as
bf-mst releases it: h_S (bf-mst) or K_S h_S (bf-soft-mst, the plan's kernel) plus noise from
FitRandomness.gaussian in release mode (OpenDP's float Gaussian, OS entropy), at the sigma the
method's plan calibrates at rho_i; an exact marginal (sensitivity 0) is released without noise and
claims epsilon 0.  The verdict is the round audit's: the pair's exact epsilon (shift / sigma) and the
split-half Clopper-Pearson eps_lb against the claim.  The plan's cases must PASS; the controls
'half-sensitivity' (the plan's sensitivity x 0.5; "soft bound x 0.5") and 'wrongly-exact' (a crossing
marginal released without noise) must FAIL.  Prints the table, then "verdict: PASS" (exit 0) when
every case is as expected, else "verdict: FAIL" (exit 1).

    python benchmarks/audit_marginals.py                                   # 55,000 runs per side
    python benchmarks/audit_marginals.py --method bf-soft-mst --sensitivity-scale 0.5   # exits 1
    python benchmarks/audit_marginals.py --sampler scalar --n 2000000      # numpy shortcut, 2 s

--sensitivity-scale S multiplies the plans' sensitivities of the engine cases, which still expect
PASS (0.5 must make them FAIL).  Run count: the round audit's OpenDP default (power >= 0.95 against a
calibration x 0.5 from the empirical rule alone; docs/PRIVACY.md §9).  The script imports the
checkout it sits in.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blowfish_core.analysis.audit import positive_scale, report_verdict  # noqa: E402
from blowfish_core.analysis.audit.marginals import (  # noqa: E402
    MARGINAL_METHODS,
    marginal_audit_table,
    marginal_setting,
    run_marginal_audit_suite,
)
from blowfish_core.analysis.audit_opendp import OPENDP_CONTROL_RUNS, OPENDP_RUNS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--method", default="all", choices=(*MARGINAL_METHODS, "all"),
                    help="audit this method's cases only (default all)")
    ap.add_argument("--sensitivity-scale", type=positive_scale, default=1.0,
                    help="multiply the plans' sensitivities by this factor (default 1; 0.5 must FAIL)")
    ap.add_argument("--n", type=int, default=OPENDP_RUNS,
                    help=f"runs per dataset: the plans' cases and the x 0.5 controls (default {OPENDP_RUNS:,})")
    ap.add_argument("--control-n", type=int, default=OPENDP_CONTROL_RUNS,
                    help=f"runs per dataset, the noise-free 'wrongly-exact' control (default {OPENDP_CONTROL_RUNS:,})")
    ap.add_argument("--sampler", default="release", choices=("release", "scalar"),
                    help="release: bf-mst's release draw (OpenDP); scalar: the numpy shortcut (default release)")
    ap.add_argument("--rho-i", type=float, default=0.25, help="zCDP budget of the measurement (default 0.25)")
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--alpha", type=float, default=0.05)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    s = marginal_setting()
    results = run_marginal_audit_suite(n_samples=args.n, control_n=args.control_n, rho_i=args.rho_i,
                                       delta=args.delta, alpha=args.alpha, sampler=args.sampler,
                                       sensitivity_scale=args.sensitivity_scale, methods=args.method, setting=s)
    edges = results[0][0].edge["edges_checked"] if results else 0
    print(f"Marginal audit, sampler {args.sampler}, {args.n:,} runs per side ({args.control_n:,} for "
          f"'wrongly-exact'), rho_i = {args.rho_i:g}, delta = {args.delta:g}, method {args.method}, plan "
          f"sensitivity x {args.sensitivity_scale:g}; domain 3 x 4 x 2 (bins {s.bins}, tau {s.tau:g}), "
          f"{edges} record-level policy edges checked per marginal:")
    print(marginal_audit_table(results))
    return report_verdict(results, time.perf_counter() - t0)


if __name__ == "__main__":
    sys.exit(main())
