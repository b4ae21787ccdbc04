"""Classroom load test: N concurrent browser sessions on one Streamlit server (issue 11).

Starts ``streamlit run app.py --server.headless true --server.port P`` on 127.0.0.1 (through
benchmarks/profile_server.py, which times the app's script threads), launches Debian's chromium
(/usr/bin/chromium) through playwright and drives N sessions (one browser context each, i.e.
separate cookies and Streamlit sessions), each as a student would:

1. Policy Designer: open its URL, read "Noise ratio q", move the temperature slider one step
   (keyboard ArrowRight on the slider's range input), read q again -- it must change;
2. Voronoi Explorer: click its link in the sidebar (in-app navigation, no reload of the app;
   ``--navigation goto`` loads its URL instead), read the takeaway line, move its tau slider one
   step, read it again -- it must change.

A page time is the wall time from navigation to the changed number = load (navigation to the
first number) + rerun (key press to the changed number); both parts are printed.  Scenarios
(``--scenarios``, default both, on the same server one after the other):

  burst   all N sessions at once -- the issue's definition; it decides the exit code;
  server  the N sessions arrive evenly over --arrival-window seconds (default 60) with chromium at
          --browser-nice (default 10), so the figure is the server's response time rather than the
          time 25 headless browsers need to share this machine's cores.

For each: successes, failures (with the first error), p50/p95/max page, load and rerun times, the
load average, and the CPU split: the Streamlit server (its script runs vs the rest: HTTP and static
files, websockets, protobuf), the browser side (chromium with its renderers, and the playwright
driver) and the whole machine.  Exits 1 unless every burst session succeeded and its p95 is under
the target.  The server is always stopped.

    python benchmarks/load_app.py                    # 25 sessions, burst then server; target p95 < 10 s
    python benchmarks/load_app.py --sessions 5 --arrival-window 30
    python benchmarks/load_app.py --sessions 3 --warmup 1 --scenarios server --profile --profile-top 40
    python benchmarks/load_app.py --app floor        # the same steps on a two-page app with one slider
                                                     # and one number: the floor of ANY Streamlit app here

``--app floor`` opens the first page by URL, as the studio's sessions do, on a minimal Streamlit app
(a page with a title, one slider and one st.metric; no engine, no charts; written to
test-artifacts/load/) and times only that load (navigation to the number on the page; no slider
rerun, no second page).  Those times are a lower bound of any Streamlit page's time with N headless
browsers on this machine, so a target below them cannot be met by a change to the studio's pages.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
STEP_TIMEOUT_MS = 180_000
#: a "metric label" that reads the Voronoi Explorer's one-line takeaway (an st.success) instead of a metric.
TAKEAWAY = "@takeaway"
PAGES = (
    # (url path, page title text, slider label, metric label)
    ("Policy_Designer", "Policy Designer", "Temperature tau (Gower units, log scale)", "Noise ratio q"),
    # issue 16 class mode: the three controls up front, the lesson in the takeaway line (the numbers fold away)
    ("Voronoi_Explorer", "Voronoi Explorer", "Temperature τ (Gower units, log scale)", TAKEAWAY),
)


#: the floor app's pages, the same (url path, title, slider label, metric label) shape as PAGES.
#: slider None: the floor times only the load (navigation to the first number), a lower bound of a page time.
FLOOR_PAGES = (("Page_A", "Page A", None, "Value"),)
FLOOR_APP = """import streamlit as st


def _page(title):
    st.title(title)
    st.slider("Step", 0, 100, 50)
    st.metric("Value", 100)


def page_a():
    _page("Page A")


def page_b():
    _page("Page B")


# module-level page functions: a page's identity (and its widgets' state) must not change between reruns
st.navigation([st.Page(page_a, title="Page A", url_path="Page_A"),
               st.Page(page_b, title="Page B", url_path="Page_B")]).run()
"""


def write_floor_app(log_dir: str) -> str:
    """Write the minimal two-page app (FLOOR_APP) into ``log_dir``; returns its path."""
    path = os.path.join(log_dir, "floor_app.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(FLOOR_APP)
    return path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log_path: str, prefix: str, cprofile: bool = False,
                 app: str = "app.py") -> subprocess.Popen:
    """``streamlit run app.py`` on 127.0.0.1:port through benchmarks/profile_server.py (which times the
    script threads and writes ``prefix``.N.json on SIGUSR1; cProfile too with ``cprofile``), once its
    health endpoint answers."""
    launcher = [os.path.join(ROOT, "benchmarks", "profile_server.py"), prefix] + (["--cprofile"] if cprofile else [])
    cmd = [sys.executable, *launcher, "run", app, "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    log = open(log_path, "w", encoding="utf-8")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        time.sleep(0.5)
    stop_server(proc)
    raise RuntimeError("streamlit did not become healthy within 120 s")


def _cpu_seconds(pid: int, reaped_children: bool = False) -> float:
    """utime + stime of one process (all its threads), plus with ``reaped_children`` the CPU of its
    children that exited and were waited for (cutime + cstime: chromium's closed renderers), seconds,
    from /proc (0 when unavailable)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        n = 15 if reaped_children else 13
        return sum(int(x) for x in fields[11:n]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _browser_cpu_seconds(exclude_pid: int) -> float:
    """CPU seconds of this process's live descendants (playwright driver, chromium, with the renderers
    they already reaped) except the server ``exclude_pid``; read from /proc before the browser closes."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", encoding="ascii", errors="replace") as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    me, total = os.getpid(), 0.0
    for pid in parent:
        q, seen = pid, 0
        while q not in (0, 1, me, exclude_pid) and seen < 64:
            q, seen = parent.get(q, 0), seen + 1
        if q == me and pid != me:
            total += _cpu_seconds(pid, reaped_children=True)
    return total


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


async def wait_idle(page, timeout_ms: int = STEP_TIMEOUT_MS) -> None:
    """The app rendered and no script run is in progress (three quiet polls in a row)."""
    await page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    deadline = time.monotonic() + timeout_ms / 1000
    quiet = 0
    await page.wait_for_timeout(300)
    while time.monotonic() < deadline:
        running = await page.locator('[data-testid="stStatusWidget"]').count() > 0 or \
            await page.locator('[data-testid="stSkeleton"]').count() > 0 or \
            await page.locator('[data-stale="true"]').count() > 0
        quiet = 0 if running else quiet + 1
        if quiet >= 3:
            return
        await page.wait_for_timeout(200)
    raise TimeoutError("the app kept running past the timeout")


async def metric(page, label: str) -> str:
    if label == TAKEAWAY:
        t = page.locator('[data-testid="stAlert"]').filter(has_text="A protected step").first
        return (await t.inner_text(timeout=STEP_TIMEOUT_MS)).strip()
    m = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return (await m.locator('[data-testid="stMetricValue"]').inner_text(timeout=STEP_TIMEOUT_MS)).strip()


async def _changed(page, label: str, before: str) -> str:
    """Poll ``label`` every 100 ms until it differs from ``before`` (bounded); returns the new value."""
    deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
    after = await metric(page, label)
    while after == before and time.monotonic() < deadline:
        await page.wait_for_timeout(100)
        after = await metric(page, label)
    return after


async def page_visit(page, base: str, path: str, title: str, slider: str, label: str,
                     how: str) -> tuple[float, float, str, str]:
    """Reach ``path`` (``how``: "goto" loads its URL, a full reload of the app; "click" clicks its link in
    the sidebar navigation, as a student does), read ``label``, move ``slider`` one step, wait until
    ``label`` changes.

    Returns (load seconds: navigation to the first number, rerun seconds: slider key press to the
    changed number, before, after).  The clocks stop when the number is on the page (polled every
    100 ms), not at an idle check.
    """
    t0 = time.perf_counter()
    if how == "goto":
        await page.goto(f"{base}/{path}", timeout=STEP_TIMEOUT_MS)
    else:
        await page.locator(f'[data-testid="stSidebarNav"] a[href$="/{path}"]').first.click(timeout=STEP_TIMEOUT_MS)
        await page.wait_for_url(f"**/{path}", timeout=STEP_TIMEOUT_MS)
    await page.get_by_role("heading", name=title).first.wait_for(timeout=STEP_TIMEOUT_MS)
    before = await metric(page, label)
    t1 = time.perf_counter()
    if slider is None:  # the floor app: load only
        return t1 - t0, 0.0, before, before
    # Streamlit's slider thumb is a visually hidden <input type="range" aria-label=LABEL>
    thumb = page.locator(f'[data-testid="stSlider"] input[type="range"][aria-label="{slider}"]').first
    await thumb.focus(timeout=STEP_TIMEOUT_MS)
    await thumb.press("ArrowRight")
    after = await _changed(page, label, before)
    t2 = time.perf_counter()
    if after == before:
        raise RuntimeError(f"{path}: '{label}' did not change after moving '{slider}' ({before})")
    await wait_idle(page)  # not timed: the run must finish without an exception box
    if await page.locator('[data-testid="stException"]').count():
        raise RuntimeError(f"{path}: Streamlit exception box")
    return t1 - t0, t2 - t1, before, after


async def session(i: int, browser, base: str, delay: float, navigation: str, visits: list,
                  failures: list[str]) -> None:
    """One student: wait ``delay`` seconds (the arrival window), open the first page by its URL, reach
    the others by ``navigation``; appends (session, path, load s, rerun s, before, after) to ``visits``."""
    await asyncio.sleep(delay)
    ctx = await browser.new_context(viewport={"width": 1280, "height": 800})  # a laptop screen
    try:
        page = await ctx.new_page()
        page.set_default_timeout(STEP_TIMEOUT_MS)
        for k, (path, title, slider, label) in enumerate(PAGES):
            how = "goto" if k == 0 else navigation
            load, rerun, before, after = await page_visit(page, base, path, title, slider, label, how)
            visits.append((i, path, load, rerun, before, after))
    except Exception as e:  # noqa: BLE001 - every failure is counted and reported
        failures.append(f"session {i}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
    finally:
        await ctx.close()


def _chromium_launcher(nice: int, tmp_dir: str) -> str:
    """/usr/bin/chromium itself, or (nice > 0) a wrapper script that execs it at that niceness, so the
    browser and every renderer it forks run at a lower CPU priority than the server."""
    if nice <= 0:
        return CHROMIUM
    path = os.path.join(tmp_dir, f"chromium-nice{nice}.sh")
    with open(path, "w", encoding="ascii") as f:
        f.write(f'#!/bin/sh\nexec nice -n {int(nice)} {CHROMIUM} "$@"\n')
    os.chmod(path, 0o755)
    return path


@dataclasses.dataclass
class Scenario:
    """One load pattern: ``window`` seconds over which the sessions arrive (0: all at once, the
    issue's definition), the browsers' niceness, and how the second page is reached."""

    name: str
    window: float
    nice: int
    navigation: str


@dataclasses.dataclass
class Outcome:
    scenario: Scenario
    sessions: int
    visits: list
    failures: list[str]
    wall: float
    server_cpu: float
    browser_cpu: float
    machine_cpu: float
    load_before: tuple
    load_after: tuple
    #: CPU seconds of the script threads (the app's page runs), from the server's SIGUSR1 dump
    script_cpu: float | None = None
    #: wall seconds of every script execution on the server (one page run of one session)
    run_wall: list = dataclasses.field(default_factory=list)

    @property
    def page_times(self) -> np.ndarray:
        return np.array([load + rerun for _, _, load, rerun, _, _ in self.visits])

    @property
    def p95(self) -> float:
        t = self.page_times
        return float(np.percentile(t, 95)) if t.size else float("inf")

    @property
    def ok(self) -> int:
        return self.sessions - len(self.failures)


def _machine_cpu_seconds() -> float:
    """CPU seconds used by every process on the machine so far (/proc/stat: user+nice+system+irq+softirq)."""
    with open("/proc/stat", encoding="ascii") as f:
        v = [int(x) for x in f.readline().split()[1:8]]
    return (v[0] + v[1] + v[2] + v[5] + v[6]) / os.sysconf("SC_CLK_TCK")


async def run_scenario(base: str, n: int, server_pid: int, sc: Scenario, tmp_dir: str) -> Outcome:
    from playwright.async_api import async_playwright

    visits: list = []
    failures: list[str] = []
    load_before = os.getloadavg()
    cpu0, machine0 = _cpu_seconds(server_pid), _machine_cpu_seconds()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=_chromium_launcher(sc.nice, tmp_dir), args=CHROMIUM_ARGS,
                                          headless=True)
        try:
            t0 = time.perf_counter()
            delays = [sc.window * i / n for i in range(n)]
            await asyncio.gather(*(session(i, browser, base, d, sc.navigation, visits, failures)
                                   for i, d in enumerate(delays)))
            wall = time.perf_counter() - t0
            browser_cpu = _browser_cpu_seconds(server_pid)
        finally:
            await browser.close()
    return Outcome(sc, n, visits, failures, wall, _cpu_seconds(server_pid) - cpu0, browser_cpu,
                   _machine_cpu_seconds() - machine0, load_before, os.getloadavg())


def _pct(t: np.ndarray) -> str:
    return f"p50 {np.percentile(t, 50):.2f} s, p95 {np.percentile(t, 95):.2f} s, max {t.max():.2f} s" if t.size \
        else "no visits"


def report(o: Outcome, target: float) -> None:
    sc = o.scenario
    arrival = "all at once" if sc.window == 0 else f"arriving over {sc.window:g} s"
    print(f"== {sc.name}: {o.sessions} sessions {arrival}, browsers at nice {sc.nice}, second page by "
          f"{'sidebar click' if sc.navigation == 'click' else 'URL reload'}")
    print(f"sessions: succeeded {o.ok}, failed {len(o.failures)}; wall {o.wall:.1f} s")
    print(f"page times over {len(o.visits)} page visits (load + one slider rerun): {_pct(o.page_times)}")
    for path, *_ in PAGES:
        mine = [v for v in o.visits if v[1] == path]
        if mine:
            print(f"  {path}: {len(mine)} visits, page {_pct(np.array([v[2] + v[3] for v in mine]))}; "
                  f"load {_pct(np.array([v[2] for v in mine]))}; rerun {_pct(np.array([v[3] for v in mine]))}")
    if o.visits:
        seen = sorted({(p, b.replace(chr(10), " "), a.replace(chr(10), " ")) for _, p, _, _, b, a in o.visits})
        print("numbers read (page, before, after): " + "; ".join(f"{p}: {b} -> {a}" for p, b, a in seen[:4])
              + (f"; ... {len(seen) - 4} more" if len(seen) > 4 else ""))
    if o.run_wall:
        print(f"server response (wall time of each of the {len(o.run_wall)} script runs on the server, before the "
              f"browser draws): {_pct(np.array(o.run_wall))}")
    lb, la = o.load_before, o.load_after
    print(f"load average (1/5/15 min): before {lb[0]:.2f}/{lb[1]:.2f}/{lb[2]:.2f}, "
          f"after {la[0]:.2f}/{la[1]:.2f}/{la[2]:.2f}; {os.cpu_count()} cores")
    per = o.server_cpu / max(o.sessions, 1)
    split = "" if o.script_cpu is None else (
        f": script runs {o.script_cpu / max(o.sessions, 1):.2f} s, the rest (event loop: HTTP and static files, "
        f"websockets, protobuf) {(o.server_cpu - o.script_cpu) / max(o.sessions, 1):.2f} s")
    print(f"CPU: Streamlit server {o.server_cpu:.1f} s ({per:.2f} s per session{split}); browser side (chromium + "
          f"playwright driver) {o.browser_cpu:.1f} s ({o.browser_cpu / max(o.sessions, 1):.2f} s per session); "
          f"whole machine {o.machine_cpu:.1f} s of {o.wall * (os.cpu_count() or 1):.1f} s available "
          "(includes other users' work)")
    for f in o.failures[:10]:
        print("  failure: " + f)
    met = o.ok == o.sessions and o.p95 < target
    print(f"target: {o.sessions}/{o.sessions} succeed and p95 < {target:g} s -> {'MET' if met else 'NOT MET'}")


def _server_dump(proc: subprocess.Popen, prefix: str, n: int) -> dict:
    """Ask the server for its n-th dump (SIGUSR1; benchmarks/profile_server.py): the script threads' CPU
    since the previous one.  Returns the JSON ({} if it did not come within 60 s)."""
    name = f"{prefix}.{n}"
    for ext in (".json", ".prof"):
        if os.path.exists(name + ext):
            os.remove(name + ext)
    os.kill(proc.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 60
    while not os.path.exists(name + ".json") and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        with open(name + ".json", encoding="utf-8") as f:
            return {**json.load(f), "prof": name + ".prof"}
    except OSError:
        return {}


def _profile_summary(dump: dict, top: int) -> None:
    """The top functions (cumulative wall time) of one scenario's script threads under cProfile."""
    import pstats

    if not os.path.exists(dump.get("prof", "")):
        return
    print(f"cProfile of the script threads (wall time per function, inflated by the profiler and GIL waits): "
          f"{dump['prof']}")
    if top > 0:
        pstats.Stats(dump["prof"]).sort_stats("cumulative").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=25)
    ap.add_argument("--target", type=float, default=10.0, help="p95 page time target, seconds")
    ap.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    ap.add_argument("--navigation", choices=("click", "goto"), default="click",
                    help="how a session reaches its second page: click its sidebar link (default, as a student "
                    "does) or goto its URL (a full reload of the app)")
    ap.add_argument("--scenarios", default="burst,server", help="comma list of burst (all sessions at once, the "
                    "issue's definition; decides the exit code) and server (sessions arriving over "
                    "--arrival-window seconds, browsers at --browser-nice: the server's own response time)")
    ap.add_argument("--arrival-window", type=float, default=60.0, help="seconds over which the 'server' "
                    "scenario's sessions arrive (evenly spaced)")
    ap.add_argument("--browser-nice", type=int, default=10, help="niceness of chromium in the 'server' scenario")
    ap.add_argument("--warmup", type=int, default=0, help="sessions run (not measured) before the scenarios, "
                    "e.g. 1: the teacher opens the app first, so imports and caches are warm (default 0: cold "
                    "server, the issue's definition)")
    ap.add_argument("--profile", action="store_true", help="run the script threads under cProfile "
                    "(benchmarks/profile_server.py): writes test-artifacts/load/server.N.prof per scenario")
    ap.add_argument("--profile-top", type=int, default=0, help="with --profile: print this many top functions "
                    "(cumulative time) per scenario")
    ap.add_argument("--app", choices=("studio", "floor"), default="studio",
                    help="studio (default: app.py's Policy Designer and Voronoi Explorer) or floor (the same steps "
                    "on a minimal two-page app: the framework's and the browsers' own cost on this machine)")
    args = ap.parse_args(argv)
    global PAGES
    if args.app == "floor":
        PAGES = FLOOR_PAGES
    if not os.path.exists(CHROMIUM):
        print(f"error: {CHROMIUM} is missing (apt-get install -y chromium)", file=sys.stderr)
        return 2
    names = [x.strip() for x in args.scenarios.split(",") if x.strip()]
    known = {"burst": Scenario("burst", 0.0, 0, args.navigation),
             "server": Scenario("server", args.arrival_window, args.browser_nice, args.navigation)}
    if not names or any(x not in known for x in names):
        print(f"error: --scenarios must list burst and/or server, got {args.scenarios!r}", file=sys.stderr)
        return 2
    port = args.port or _free_port()
    log_dir = os.path.join(ROOT, "test-artifacts", "load")
    os.makedirs(log_dir, exist_ok=True)
    prefix = os.path.join(log_dir, "server")
    print(f"load_app: {args.app} app, {args.sessions} sessions, scenarios {', '.join(names)}; {PAGES[0][1]} by URL"
          + (f", then {PAGES[1][1]} by {args.navigation}" if len(PAGES) > 1 else " (load only)"), flush=True)
    app = write_floor_app(log_dir) if args.app == "floor" else "app.py"
    proc = start_server(port, os.path.join(log_dir, "streamlit.log"), prefix, cprofile=args.profile, app=app)
    outcomes: list[Outcome] = []
    try:
        if args.warmup:
            cpu0 = _cpu_seconds(proc.pid)
            w = asyncio.run(run_scenario(f"http://127.0.0.1:{port}", args.warmup, proc.pid,
                                         Scenario("warm-up", 0.0, 0, args.navigation), log_dir))
            print(f"warm-up (not measured): {w.ok}/{args.warmup} session(s) ok, page p95 {w.p95:.2f} s, server CPU "
                  f"{_cpu_seconds(proc.pid) - cpu0:.1f} s (first imports and caches)", flush=True)
        _server_dump(proc, prefix, 0)  # start-up and warm-up, not a measured session's
        for k, name in enumerate(names, 1):
            o = asyncio.run(run_scenario(f"http://127.0.0.1:{port}", args.sessions, proc.pid, known[name], log_dir))
            dump = _server_dump(proc, prefix, k)
            o.script_cpu = dump.get("script_cpu_s")
            o.run_wall = dump.get("run_wall_s", [])
            report(o, args.target)
            if args.profile:
                _profile_summary(dump, args.profile_top)
            outcomes.append(o)
    finally:
        stop_server(proc)
    if len(outcomes) > 1:
        print("== summary")
        for o in outcomes:
            rw = np.array(o.run_wall) if o.run_wall else np.array([np.nan])
            print(f"  {o.scenario.name:<7} {o.ok}/{o.sessions} ok, page p50 {np.percentile(o.page_times, 50):.2f} s, "
                  f"p95 {o.p95:.2f} s, server run p50 {np.percentile(rw, 50):.2f} s, p95 {np.percentile(rw, 95):.2f} s, "
                  f"server CPU {o.server_cpu / max(o.sessions, 1):.2f} s/session, browser CPU "
                  f"{o.browser_cpu / max(o.sessions, 1):.2f} s/session, wall {o.wall:.1f} s")
    first = next((o for o in outcomes if o.scenario.name == "burst"), outcomes[0])
    return 0 if first.ok == first.sessions and first.p95 < args.target else 1


if __name__ == "__main__":
    sys.exit(main())
