"""Classroom load test: N concurrent browser sessions on one Streamlit server (issue 11).

Starts ``streamlit run app.py --server.headless true --server.port P`` on 127.0.0.1,
launches Debian's chromium (/usr/bin/chromium) through playwright and drives N sessions
at once (one browser context each, i.e. separate cookies and Streamlit sessions):

1. Policy Designer: load, read "Noise ratio q", move the temperature slider one step
   (keyboard ArrowRight on the slider's range input), read q again -- it must change;
2. Voronoi Explorer: load, read "Attained ||v(u) - v(v)||_2" of the tightness check,
   move its theta slider one step, read it again -- it must change.

A page time is the wall time from navigation to the changed number (load + one rerun).
Prints successes, failures (with the first error), p50/p95/max page times, the load
average before and after, and exits 1 unless every session succeeded and p95 is under
the target.  The server is always stopped.

    python benchmarks/load_app.py                    # 25 sessions, target p95 < 10 s
    python benchmarks/load_app.py --sessions 5 --target 10
"""

from __future__ import annotations

import argparse
import asyncio
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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log_path: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
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


def _cpu_seconds(pid: int) -> float:
    """utime + stime of one process (all its threads), seconds, from /proc (0 when unavailable)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _browser_cpu_seconds(exclude_pid: int) -> float:
    """CPU seconds of this process's live descendants (playwright driver, chromium) except
    the server ``exclude_pid``; read from /proc before the browser closes."""
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
            total += _cpu_seconds(pid)
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


async def page_visit(page, base: str, path: str, title: str, slider: str, label: str) -> tuple[float, str, str]:
    """Load ``path``, read ``label``, move ``slider`` one step, wait until ``label`` changes.

    Returns (seconds from navigation to the changed number, before, after).  The clock
    stops when the new number is on the page (polled every 100 ms), not at an idle check.
    """
    t0 = time.perf_counter()
    await page.goto(f"{base}/{path}", timeout=STEP_TIMEOUT_MS)
    await page.get_by_text(title).first.wait_for(timeout=STEP_TIMEOUT_MS)
    before = await metric(page, label)
    # Streamlit's slider thumb is a visually hidden <input type="range" aria-label=LABEL>
    thumb = page.locator(f'[data-testid="stSlider"] input[type="range"][aria-label="{slider}"]').first
    await thumb.focus(timeout=STEP_TIMEOUT_MS)
    await thumb.press("ArrowRight")
    deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
    after = await metric(page, label)
    while after == before and time.monotonic() < deadline:
        await page.wait_for_timeout(100)
        after = await metric(page, label)
    dt = time.perf_counter() - t0
    if after == before:
        raise RuntimeError(f"{path}: '{label}' did not change after moving '{slider}' ({before})")
    await wait_idle(page)  # not timed: the run must finish without an exception box
    if await page.locator('[data-testid="stException"]').count():
        raise RuntimeError(f"{path}: Streamlit exception box")
    return dt, before, after


async def session(i: int, browser, base: str, times: list[float], failures: list[str], values: list) -> None:
    ctx = await browser.new_context(viewport={"width": 1280, "height": 800})  # a laptop screen
    try:
        page = await ctx.new_page()
        page.set_default_timeout(STEP_TIMEOUT_MS)
        for path, title, slider, label in PAGES:
            dt, before, after = await page_visit(page, base, path, title, slider, label)
            times.append(dt)
            values.append((i, path, before, after))
    except Exception as e:  # noqa: BLE001 - every failure is counted and reported
        failures.append(f"session {i}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
    finally:
        await ctx.close()


async def run(base: str, n: int, server_pid: int) -> tuple[list[float], list[str], list, float]:
    from playwright.async_api import async_playwright

    times: list[float] = []
    failures: list[str] = []
    values: list = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            await asyncio.gather(*(session(i, browser, base, times, failures, values) for i in range(n)))
            browser_cpu = _browser_cpu_seconds(server_pid)
        finally:
            await browser.close()
    return times, failures, values, browser_cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=25)
    ap.add_argument("--target", type=float, default=10.0, help="p95 page time target, seconds")
    ap.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"error: {CHROMIUM} is missing (apt-get install -y chromium)", file=sys.stderr)
        return 2
    port = args.port or _free_port()
    log_dir = os.path.join(ROOT, "test-artifacts", "load")
    os.makedirs(log_dir, exist_ok=True)
    load_before = os.getloadavg()
    proc = start_server(port, os.path.join(log_dir, "streamlit.log"))
    server_cpu0 = _cpu_seconds(proc.pid)
    try:
        t0 = time.perf_counter()
        times, failures, values, browser_cpu = asyncio.run(run(f"http://127.0.0.1:{port}", args.sessions, proc.pid))
        wall = time.perf_counter() - t0
        server_cpu = _cpu_seconds(proc.pid) - server_cpu0
    finally:
        stop_server(proc)
    load_after = os.getloadavg()
    ok = args.sessions - len(failures)
    print(f"sessions: {args.sessions} concurrent (Policy Designer + Voronoi Explorer each); "
          f"succeeded {ok}, failed {len(failures)}; wall {wall:.1f} s")
    if times:
        t = np.array(times)
        print(f"page times over {t.size} page visits (load + one slider rerun): p50 {np.percentile(t, 50):.2f} s, "
              f"p95 {np.percentile(t, 95):.2f} s, max {t.max():.2f} s")
        for path, *_ in PAGES:
            tp = np.array([dt for (_, p, _, _), dt in zip(values, times) if p == path])
            if tp.size:
                print(f"  {path}: {tp.size} visits, p50 {np.percentile(tp, 50):.2f} s, p95 {np.percentile(tp, 95):.2f} s")
    if values:
        seen = sorted({(p, b, a) for _, p, b, a in values})
        print("numbers read (page, before, after): " + "; ".join(f"{p}: {b} -> {a}" for p, b, a in seen))
    print(f"load average (1/5/15 min): before {load_before[0]:.2f}/{load_before[1]:.2f}/{load_before[2]:.2f}, "
          f"after {load_after[0]:.2f}/{load_after[1]:.2f}/{load_after[2]:.2f}; {os.cpu_count()} cores")
    print(f"CPU during the sessions: Streamlit server {server_cpu:.1f} s; browser side (chromium + playwright "
          f"driver) {browser_cpu:.1f} s; wall {wall:.1f} s on {os.cpu_count()} cores shared with other work")
    for f in failures[:10]:
        print("  failure: " + f)
    p95 = float(np.percentile(times, 95)) if times else float("inf")
    passed = ok == args.sessions and p95 < args.target
    print(f"target: {args.sessions}/{args.sessions} succeed and p95 < {args.target:g} s -> {'MET' if passed else 'NOT MET'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
