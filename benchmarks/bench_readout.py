"""Time one full live read-out recomputation of the Policy Designer (issue 3, target < 50 ms).

    python benchmarks/bench_readout.py [--repeat 200]

For the Adult and Bank presets, with the paper's default policy (age only) and with every
Table 3 graph, it times
  * readouts.policy_readout(schema, policy, tau=0.03, rho=1e-4, delta=1e-5, rounds=8): reach,
    q, bound, sigma per method, 1/q^2, epsilon (Eq. (1) and exact), the q-vs-tau curve, warnings;
  * the same plus graphs.policy_graph_data for every attribute (all engine work of one page run).
Prints the median and the 95th percentile in milliseconds.  No private data are read.
"""

from __future__ import annotations

import argparse
import statistics
import time


import blowfish_core as bc  # noqa: E402
from blowfish_core.analysis.graphs import policy_graph_data  # noqa: E402
from blowfish_core.analysis.readouts import policy_readout  # noqa: E402

TARGET_MS = 50.0


def _time(fn, repeat: int) -> tuple[float, float]:
    fn()  # warm-up (imports, networkx)
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1000.0)
    ts.sort()
    return statistics.median(ts), ts[min(len(ts) - 1, int(0.95 * len(ts)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args(argv)
    print(f"policy_readout timing, tau = 0.03, rho = 1e-4, delta = 1e-5, T = 8; {args.repeat} repeats "
          f"(target < {TARGET_MS:.0f} ms)")
    print(f"{'preset':8s} {'policy':14s} {'readout median':>15s} {'p95':>8s} {'+graphs median':>15s} {'p95':>8s}")
    worst = 0.0
    for name in ("adult", "bank"):
        p = bc.get_preset(name)
        for label, pol in (("default (age)", p.default_policy()), ("Table 3 (all)", bc.Policy(dict(p.table3)))):
            def readout(p=p, pol=pol):
                return policy_readout(p.schema, pol, 0.03, rho=1e-4, delta=1e-5, rounds=8)

            def page(p=p, pol=pol):
                readout(p, pol)
                for a in p.schema.attributes:
                    policy_graph_data(a, pol.policy_for(a.name))

            m1, q1 = _time(readout, args.repeat)
            m2, q2 = _time(page, args.repeat)
            worst = max(worst, q1)
            print(f"{name:8s} {label:14s} {m1:12.2f} ms {q1:5.2f} ms {m2:12.2f} ms {q2:5.2f} ms")
    print(f"worst p95 of one policy_readout: {worst:.2f} ms -> {'OK' if worst < TARGET_MS else 'OVER'} "
          f"(target {TARGET_MS:.0f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
