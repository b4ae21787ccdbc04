"""Timing of beta_min (papers/003 Thm 4.1): cold (uncached) and cached calls, both routes of Eq. (23).

    python benchmarks/bench_pubmix.py

Prints seconds per beta_min for n_samples in {64, 512, 1024, 4096} at two settings
(Adult-like n = 26,048, d = 512, epsilon = 1, delta = 1e-5, LinMix floor 1/d; and the
paper's Fig. 2 setting n = 1,200, epsilon = 5, delta = 1/n, floor 1e-4), and the time of
one h evaluation by the literal (lambda, mu) grid of Eq. (23) vs the binomial regrouping.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from blowfish_core.privacy import pubmix  # noqa: E402


def timed(f, *a, reps=1, **k):
    t0 = time.perf_counter()
    for _ in range(reps):
        out = f(*a, **k)
    return out, (time.perf_counter() - t0) / reps


def main() -> int:
    settings = [("Adult-like n=26048, eps=1, delta=1e-5, N=1/512", 1.0, 1e-5, 26048, 1 / 512),
                ("Fig. 2 n=1200, eps=5, delta=1/n, N=1e-4", 5.0, 1 / 1200, 1200, 1e-4),
                ("Fig. 7-like n=100, eps=5, delta=1/n, N=0.2", 5.0, 1 / 100, 100, 0.2)]
    print(f"{'setting':<48} {'n_samples':>9} {'beta_min':>10} {'cold s':>8} {'cached s':>9} "
          f"{'h binom s':>9} {'h grid s':>9}")
    for name, eps, dl, n, N in settings:
        for m in (64, 512, 1024, 4096):
            pubmix._beta_min_cached.cache_clear()
            b, cold = timed(pubmix.beta_min, eps, dl, n, m, N)
            _, hot = timed(pubmix.beta_min, eps, dl, n, m, N, reps=100)
            _, hb = timed(pubmix.pubmix_delta, b, eps, n, m, N, reps=5)
            _, hg = timed(pubmix.pubmix_delta, b, eps, n, m, N, method="grid", reps=1)
            print(f"{name:<48} {m:>9} {b:>10.6f} {cold:>8.3f} {hot:>9.1e} {hb:>9.4f} {hg:>9.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
