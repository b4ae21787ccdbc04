"""``streamlit run`` with every script thread under cProfile (for benchmarks/load_app.py --profile).

    python benchmarks/profile_server.py OUT_PREFIX run app.py --server.port P ...

The arguments of ``streamlit`` after OUT_PREFIX.  Each script thread (one per session run
sequence, streamlit's ScriptRunner._run_script_thread) runs under its own cProfile.Profile and
``time.thread_time``; on SIGUSR1 the server writes ``OUT_PREFIX.prof`` (the merged pstats of all
script threads) and ``OUT_PREFIX.json`` ({"script_cpu_s", "script_threads", "process_cpu_s"}) for
the time since the previous dump (see ``dump``), so the process CPU splits into the app's script runs and the rest (Streamlit's event loop: session
set-up, protobuf serialisation, websocket traffic, static files).  A benchmark helper, not a test.
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
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.web import cli

    lock = threading.Lock()
    profiles: list[cProfile.Profile] = []
    acc = {"script_cpu_s": 0.0, "script_threads": 0}
    original = script_runner.ScriptRunner._run_script_thread

    def profiled(self) -> None:
        prof = cProfile.Profile()
        t0 = time.thread_time()
        prof.enable()
        try:
            original(self)
        finally:
            prof.disable()
            with lock:
                profiles.append(prof)
                acc["script_cpu_s"] += time.thread_time() - t0
                acc["script_threads"] += 1

    script_runner.ScriptRunner._run_script_thread = profiled

    last = {"process_cpu_s": 0.0, "n": 0}

    def dump(*_: object) -> None:
        """On SIGUSR1 (load_app.py, after each scenario): write the script threads' merged profile and
        the CPU split since the previous dump to OUT_PREFIX.N.prof / .N.json (N = 0, 1, ...), then reset."""
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
                json.dump({**acc, "process_cpu_s": cpu - last["process_cpu_s"]}, f)
            os.replace(name + ".json.tmp", name + ".json")
            profiles.clear()
            acc.update(script_cpu_s=0.0, script_threads=0)
            last["process_cpu_s"] = cpu

    signal.signal(signal.SIGUSR1, dump)
    sys.argv = ["streamlit", *argv]
    cli.main()


if __name__ == "__main__":
    main()
