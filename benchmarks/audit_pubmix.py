"""Empirical privacy audit of one PubMix release (issue 13): correct passes, two broken variants fail.

Prints, for beta = beta_min(t, t) (correct), beta_min / 4 and a noise built from the
private histogram, the claimed epsilon, the audit's epsilon lower bound (Clopper-Pearson,
95%), the exact delta of the release at the claimed epsilon (Thm 4.1; public noise only)
and the verdict.  Setting: blowfish_core.analysis.pubmix_audit.default_pubmix_setting().

    python benchmarks/audit_pubmix.py                 # 2e6 releases per dataset (counts sampler)
    python benchmarks/audit_pubmix.py --runs 400000 --full 20000
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blowfish_core.analysis.pubmix_audit import (  # noqa: E402
    default_pubmix_setting,
    pubmix_audit_table,
    run_pubmix_audit,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2_000_000, help="releases per dataset (counts sampler)")
    ap.add_argument("--full", type=int, default=20_000, help="releases per dataset drawing every bin index (0: skip)")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    s = default_pubmix_setting()
    print(f"setting: n = {s.n} private rows, d = {s.d} bins, floor t = {s.t:g}, epsilon = {s.epsilon:g}, "
          f"delta = {s.delta:g}, n_samples = {s.n_samples}; claimed beta_min(t, t) = {s.beta:.6f}; "
          f"worst pair: one record moved between the two floor bins; confidence {1 - args.alpha:.0%}")
    bad = 0
    for sampler, runs in [("counts", args.runs)] + ([("full", args.full)] if args.full else []):
        t0 = time.perf_counter()
        res = run_pubmix_audit(runs=runs, seed=args.seed, alpha=args.alpha, sampler=sampler, setting=s)
        print(f"\nsampler = {sampler}, {runs:,} releases per dataset ({time.perf_counter() - t0:.1f} s)")
        print(pubmix_audit_table(res))
        bad += sum(r.passed != r.expected_pass for r in res)
    print("\nall verdicts as expected" if bad == 0 else f"\n{bad} UNEXPECTED verdict(s)")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
