"""``streamlit run`` that measures its script threads (the server of benchmarks/load_app.py).

    python benchmarks/profile_server.py OUT_PREFIX [--cprofile] run app.py --server.port P ...

The arguments of ``streamlit`` follow OUT_PREFIX (and the optional ``--cprofile``); the app runs
exactly as under ``python -m streamlit run``.  Every script thread (Streamlit's
``ScriptRunner._run_script_thread``: one per burst of script runs of a session) is timed with
``time.thread_time``, and with ``--cprofile`` also runs under its own cProfile.Profile (wall-clock
per function, inflated by the profiler and by waits for the GIL).

On SIGUSR1 (load_app.py sends it after each scenario) the server writes, for the time since the
previous SIGUSR1, ``OUT_PREFIX.N.json`` = {"script_cpu_s", "script_threads", "process_cpu_s",
"run_wall_s": the wall time of every script execution (one page run of one session)} and
with --cprofile ``OUT_PREFIX.N.prof`` (the merged pstats of the script threads), N = 0, 1, ...
The run wall times are the server's own response time (what a page run takes on the server under
that load, before the browser draws it).  The process CPU splits into the app's script runs and the rest (the event loop: HTTP and static
files, websockets, protobuf serialisation, session set-up).  A benchmark helper, not a test.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import signal
import sys
import threading
import time


def main() -> None:
    out, argv = sys.argv[1], sys.argv[2:]
    use_cprofile = bool(argv) and argv[0] == "--cprofile"
    argv = argv[1:] if use_cprofile else argv
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.web import cli

    lock = threading.Lock()
    profiles: list[cProfile.Profile] = []
    acc = {"script_cpu_s": 0.0, "script_threads": 0}
    last = {"process_cpu_s": 0.0, "n": 0}
    original = script_runner.ScriptRunner._run_script_thread

    def measured(self) -> None:
        prof = cProfile.Profile() if use_cprofile else None
        t0 = time.thread_time()
        if prof:
            prof.enable()
        try:
            original(self)
        finally:
            if prof:
                prof.disable()
            with lock:
                if prof:
                    profiles.append(prof)
                acc["script_cpu_s"] += time.thread_time() - t0
                acc["script_threads"] += 1

    script_runner.ScriptRunner._run_script_thread = measured
    runs: list[float] = []
    exec_original = script_runner.exec_func_with_error_handling

    def timed_exec(*args, **kwargs):
        """One script execution (one page run of one session): its wall time, GIL waits included."""
        t0 = time.perf_counter()
        try:
            return exec_original(*args, **kwargs)
        finally:
            with lock:
                runs.append(time.perf_counter() - t0)

    script_runner.exec_func_with_error_handling = timed_exec

    def dump(*_: object) -> None:
        """Write OUT_PREFIX.N.json (and .N.prof) for the time since the previous dump, then reset."""
        with lock:
            t = os.times()
            name = f"{out}.{last['n']}"
            last["n"] += 1
            if profiles:
                stats = pstats.Stats(profiles[0])
                for p in profiles[1:]:
                    stats.add(p)
                stats.dump_stats(name + ".prof")
            cpu = t.user + t.system
            with open(name + ".json.tmp", "w", encoding="utf-8") as f:
                json.dump({**acc, "process_cpu_s": cpu - last["process_cpu_s"], "run_wall_s": list(runs)}, f)
            os.replace(name + ".json.tmp", name + ".json")
            profiles.clear()
            runs.clear()
            acc.update(script_cpu_s=0.0, script_threads=0)
            last["process_cpu_s"] = cpu

    signal.signal(signal.SIGUSR1, dump)
    sys.argv = ["streamlit", *argv]
    cli.main()


if __name__ == "__main__":
    main()
