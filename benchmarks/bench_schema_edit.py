"""Rerun time of schema edits on the Data step (issue 24: "every schema cell edit reruns the page (7-9 s)").

With streamlit's AppTest, the Data step of the router (app.py) loads a table as an upload (default:
the UCI Bank file ../shared/data/bank-full.csv, 45,211 rows, ';'-separated) and then makes K cell
edits of the schema editor (untick a column, type bounds), the way the browser sends them:

  per-edit   the code has no "Apply schema edits" form (before issue 24): every cell edit is sent at
             once and reruns the page; the K reruns are timed one by one;
  batched    the editor is in a form (after issue 24): a cell edit sends nothing (no rerun); the one
             submit runs the page once with all K edits; that run is timed.

    PYTHONPATH=. python benchmarks/bench_schema_edit.py [--csv PATH] [--edits 3] [--repeat 2] [--browser]

--browser also times the wait in a real browser (Debian's chromium through playwright, against a
`streamlit run` server, helpers of tests/app/test_browser.py): from a cell edit (per-edit) or the
submit click (batched) until Streamlit's running indicator is gone, on the Data step.

The mode is read off the page (is there an "Apply schema edits" button?), so the same script times
the code before and after the change (run it in a checkout of the earlier commit for "before").
Prints the seconds per rerun, the reruns for K edits and the user's total wait, with the machine
load (os.getloadavg): the machine is shared, report the load with the figures.  Not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CSV = os.path.join(os.path.dirname(ROOT), "shared", "data", "bank-full.csv")
TIMEOUT_S = 300
APPLY = "Apply schema edits"


def _editor(at):
    eds = [e for e in at.data_editor if e.key and "schema_editor" in e.key]
    if len(eds) != 1:
        raise SystemExit(f"expected one schema editor on the Data step, found {[e.key for e in at.data_editor]}")
    return eds[0]


def _ok(at):
    if at.exception:
        raise SystemExit(f"the page raised: {[e.value for e in at.exception]}")
    return at


def one_session(csv_path: str, k: int, page: str) -> dict:
    """Load the table on the Data step, go to ``page`` (its schema editor: the Data step's, or the
    Policy step's data section), make ``k`` schema cell edits; returns the mode and the timed reruns."""
    from streamlit.testing.v1 import AppTest

    at = _ok(AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=TIMEOUT_S).run())
    _ok(at.switch_page("pages/data.py").run())
    at.radio(key="designer:source").set_value("csv").run()
    with open(csv_path, "rb") as f:
        raw = f.read()
    _ok(at.file_uploader(key="designer:upload:csv").set_value((os.path.basename(csv_path), raw, "text/csv")).run())
    if page != "pages/data.py":
        _ok(at.switch_page(page).run())
    ed = _editor(at)
    table = ed.value.reset_index(drop=True)
    numeric = [i for i, t in enumerate(table["type"]) if t in ("numeric", "integer")]
    others = [i for i in range(len(table)) if i not in numeric]
    # the edits: type bounds on numeric columns, untick the others (one cell each)
    bounds = [(i, {"hi": str(10 ** 6)}) for i in numeric]
    unticks = [(i, {"model": False}) for i in others]
    plan = [e for pair in zip(bounds, unticks) for e in pair] + bounds[len(unticks):] + unticks[len(bounds):]
    plan = plan[:k]
    if len(plan) < k:
        raise SystemExit(f"the table has only {len(plan)} editable rows for {k} edits")
    batched = any(b.label == APPLY for b in at.button)
    p0 = at.session_state["studio"].schema.p
    schema0 = at.session_state["studio"].schema.to_dict()
    edits: dict[int, dict] = {}
    runs = []
    for row, cells in plan:
        edits.setdefault(row, {}).update(cells)
        at.session_state[ed.key] = {"edited_rows": {r: dict(c) for r, c in edits.items()},
                                    "added_rows": [], "deleted_rows": []}
        if not batched:  # the browser sends the edit at once: a rerun per edit
            t0 = time.perf_counter()
            _ok(at.run())
            runs.append(time.perf_counter() - t0)
    if batched:  # the edits wait in the browser; the submit sends them all: one rerun
        t0 = time.perf_counter()
        _ok([b for b in at.button if b.label == APPLY][0].click().run())
        runs.append(time.perf_counter() - t0)
    p1 = at.session_state["studio"].schema.p
    unticked = sum(1 for _, c in plan if c.get("model") is False)
    if p1 != p0 - unticked:
        raise SystemExit(f"the edits did not apply: {p0} modelled columns -> {p1}, {unticked} unticked")
    if at.session_state["studio"].schema.to_dict() == schema0:
        raise SystemExit("the edits did not change the schema")
    return {"mode": "batched (form)" if batched else "per-edit", "runs": runs, "rows": len(at.session_state["studio"].private)}


def browser_session(csv_path: str, k: int) -> dict:
    """The Data step in chromium: upload the table, untick ``k`` columns (rows 1..k); the wait after
    each edit (per-edit) or after the submit (batched), until the app is idle."""
    import tempfile

    from playwright.sync_api import sync_playwright

    from tests.app import test_browser as tb

    gen = tb.server.__wrapped__() if hasattr(tb.server, "__wrapped__") else None
    if gen is None:
        raise SystemExit("tests/app/test_browser.server is not a plain fixture function")
    url = next(gen)
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory():
            browser = p.chromium.launch(executable_path=tb.CHROMIUM, args=tb.CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 2400})
            page.set_default_timeout(TIMEOUT_S * 1000)
            page.goto(url, timeout=TIMEOUT_S * 1000)
            tb._wait_idle(page, TIMEOUT_S * 1000)
            tb._step_link(page, "Data").click()
            tb._wait_idle(page, TIMEOUT_S * 1000)
            page.get_by_text("Upload a CSV", exact=True).click()
            tb._wait_idle(page, TIMEOUT_S * 1000)
            page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(csv_path)
            tb._wait_idle(page, TIMEOUT_S * 1000)
            grid = page.locator('[data-testid="stDataFrame"]').filter(has=page.locator("#glide-cell-0-0")).first
            grid.wait_for()
            batched = page.get_by_role("button", name=APPLY).count() > 0
            waits = []
            for row in range(1, k + 1):
                tb._grid_select(page, grid, 1, row)
                t0 = time.perf_counter()
                page.keyboard.press(" ")
                if not batched:
                    tb._wait_idle(page, TIMEOUT_S * 1000)
                    waits.append(time.perf_counter() - t0)
            if batched:
                page.wait_for_timeout(500)  # the editor hands its last edit to the form (a person is slower)
                t0 = time.perf_counter()
                page.get_by_role("button", name=APPLY).click()
                tb._wait_idle(page, TIMEOUT_S * 1000)
                waits.append(time.perf_counter() - t0)
            unticked = [tb._grid_cell(grid, 1, r) for r in range(1, k + 1)]
            browser.close()
    finally:
        try:
            next(gen)
        except StopIteration:
            pass
    if unticked != ["false"] * k:
        raise SystemExit(f"the browser edits did not take: model cells {unticked}")
    # _wait_idle waits 300 ms for a rerun to start and needs 3 quiet polls of 200 ms: ~0.9 s of floor
    return {"mode": "batched (form)" if batched else "per-edit", "runs": waits}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", default=DEFAULT_CSV, help="the table to upload (default: ../shared/data/bank-full.csv)")
    ap.add_argument("--edits", type=int, default=3, help="schema cell edits per session (default 3)")
    ap.add_argument("--repeat", type=int, default=2, help="sessions per page (default 2)")
    ap.add_argument("--browser", action="store_true", help="also time the wait in chromium (Data step)")
    ap.add_argument("--pages", default="pages/data.py,pages/policy.py",
                    help="comma list of the pages whose schema editor is timed (default: Data and Policy)")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    os.chdir(ROOT)
    print(f"schema edits: {os.path.basename(args.csv)}, {args.edits} cell edits per session, {args.repeat} "
          f"sessions per page, code at {ROOT}")
    for page in filter(None, args.pages.split(",")):
        load0 = os.getloadavg()
        sessions = [one_session(args.csv, args.edits, page) for _ in range(args.repeat)]
        load1 = os.getloadavg()
        runs = [r for s in sessions for r in s["runs"]]
        waits = [sum(s["runs"]) for s in sessions]
        print(f"\n{page} ({sessions[0]['rows']:,} rows): mode {sessions[0]['mode']}; "
              f"reruns for {args.edits} edits: {len(sessions[0]['runs'])}")
        print(f"  seconds per rerun: median {statistics.median(runs):.2f}, max {max(runs):.2f}  (all: "
              f"{', '.join(f'{r:.2f}' for r in runs)})")
        print(f"  user's wait for {args.edits} edits (sum of reruns): median {statistics.median(waits):.2f} s, "
              f"max {max(waits):.2f} s")
        print(f"  load average (1, 5, 15 min): before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
              f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}  (2 cores, shared)")
    if args.browser:
        load0 = os.getloadavg()
        sessions = [browser_session(args.csv, args.edits) for _ in range(args.repeat)]
        load1 = os.getloadavg()
        runs = [r for s in sessions for r in s["runs"]]
        print(f"\nchromium, Data step: mode {sessions[0]['mode']}; waits for {args.edits} edits: "
              f"{len(sessions[0]['runs'])} (each includes ~0.9 s of the idle detector's floor)")
        print(f"  seconds per wait: median {statistics.median(runs):.2f}, max {max(runs):.2f}  (all: "
              f"{', '.join(f'{r:.2f}' for r in runs)})")
        print(f"  user's wait for {args.edits} edits: median "
              f"{statistics.median(sum(s['runs']) for s in sessions):.2f} s")
        print(f"  load average (1, 5, 15 min): before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
              f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}  (2 cores, shared)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
