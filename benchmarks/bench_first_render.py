"""First-render time of every page (issue 16 target: under 3 s on this machine).

Each repetition starts a fresh Python process (like a fresh Streamlit server) and times, with
streamlit's AppTest, ``AppTest.from_file(page).run(timeout=...)``:

  cold  the first run in that process: the page's imports (blowfish_core, plotly, pandas...) plus
        the script -- what the first visitor of a freshly started server waits for;
  warm  a second, new AppTest session of the same page in the same process (modules already
        imported): what every later visitor waits for on first render.

    python benchmarks/bench_first_render.py [--repeat 3] [--pages app.py,pages/policy.py]

Prints a table (median and max per page, seconds) against the 3 s target and the machine load
(os.getloadavg).  The machine is shared: report the load with the figures.  Not a test.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_S = 3.0
TIMEOUT_S = 120


def child(page: str) -> None:
    """Time one cold and one warm first render of ``page`` in this process; print JSON."""
    sys.path.insert(0, ROOT)
    os.chdir(ROOT)
    from streamlit.testing.v1 import AppTest

    out = {}
    for kind in ("cold", "warm"):
        t0 = time.perf_counter()
        at = AppTest.from_file(os.path.join(ROOT, page), default_timeout=TIMEOUT_S).run(timeout=TIMEOUT_S)
        out[kind] = time.perf_counter() - t0
        out[f"{kind}_exception"] = bool(at.exception)
    print(json.dumps(out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per page (default 3)")
    ap.add_argument("--pages", help="comma list of page files relative to the repository (default: app.py and pages/*.py)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return 0
    pages = args.pages.split(",") if args.pages else ["app.py"] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "pages", "*.py")))
    load0 = os.getloadavg()
    rows = []
    for page in pages:
        cold, warm, errors = [], [], 0
        for _ in range(args.repeat):
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", page], capture_output=True,
                               text=True, cwd=ROOT, timeout=4 * TIMEOUT_S)
            if p.returncode != 0:
                print(f"{page}: child failed\n{p.stderr[-2000:]}", file=sys.stderr)
                errors += 1
                continue
            r = json.loads(p.stdout.strip().splitlines()[-1])
            cold.append(r["cold"])
            warm.append(r["warm"])
            errors += int(r["cold_exception"] or r["warm_exception"])
        rows.append((page, cold, warm, errors))
    load1 = os.getloadavg()
    print(f"First render per page (AppTest), {args.repeat} fresh process(es) each; target {TARGET_S:g} s")
    print(f"load average at start {load0[0]:.2f} / {load0[1]:.2f} / {load0[2]:.2f}, "
          f"at end {load1[0]:.2f} / {load1[1]:.2f} / {load1[2]:.2f} ({os.cpu_count()} cores)")
    print(f"{'page':<36} {'cold median':>11} {'cold max':>9} {'warm median':>11} {'warm max':>9}  verdict")
    for page, cold, warm, errors in rows:
        if not cold:
            print(f"{page:<36} {'failed':>11}")
            continue
        cm, cx, wm, wx = statistics.median(cold), max(cold), statistics.median(warm), max(warm)
        verdict = ("ok" if cx <= TARGET_S else "warm ok, cold over" if wx <= TARGET_S else "over") + \
                  (f"; {errors} run(s) raised" if errors else "")
        print(f"{page:<36} {cm:>10.2f}s {cx:>8.2f}s {wm:>10.2f}s {wx:>8.2f}s  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
