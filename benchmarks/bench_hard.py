"""Hard's certification: its share of a Hard run, Hard vs Tab-PE, and the soundness check (issue 23).

Issue 23 "Hard's certificate reuses the vote": target "Hard 8 rounds <= 1.2x the Tab-PE run in the
same process, certification included" (printed, never asserted).

Parts (``--parts``, default all):

* ``speed``: Adult 80% private split (``io.presets`` adult), 8 rounds, the paper's schedule
  (``SynthConfig()``: 512/1,024 candidates, release 512), rho 1e-3.  In one process, after one warm-up
  run of each, ``--pairs`` alternating Tab-PE / Hard runs of ``run_synthesis`` (CPU seconds,
  ``time.process_time``); the median of each, their ratio and the share of Hard's CPU inside
  the certification (``model.calibration.hard_sensitivity``, timed by a wrapper).  Also the CPU of
  reading the witnesses as the report does (the ledger rows' ``to_dict()`` and ``json.dumps``),
  which the run itself does not pay when the witness is decoded lazily.  The load average
  (1 minute) is printed with every figure.
* ``soundness``: ``--populations`` (default 1,800) random small schemas (1-3 finite attributes of
  every kind, random weights, sometimes a continuous attribute), random policies and random candidate
  populations (m = 1..40, drawn from a small pool so that duplicates and exact ties are common).
  Each :func:`~blowfish_core.model.sensitivity.hard_sensitivity` result is checked against an
  independent brute force on the whole record domain (float64 Gower distances, ``np.argmin``):
  *unsound* when the calibration states a smaller sensitivity than the truth (0 where some
  protected edge crosses), or when a 'certified-crossing' witness is not a protected record-level
  edge whose float64 nearest candidates differ (and are ``nn_u`` / ``nn_v``).  Prints the counts per
  calibration and a SHA-256 of every certificate (how, sensitivity, edges checked, witness), so
  two versions of the code can be compared: equal digests = unchanged certificates.
* ``certificates``: the same digest over the ledgers of seeded Hard runs on Adult (seeds 0-2),
  witnesses included.

Usage (from the repository root)::

    python benchmarks/bench_hard.py [--parts speed,soundness,certificates] [--pairs 5] [--populations 1800]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: issue 23 target: Hard 8 rounds over Tab-PE 8 rounds, same process, certification included.
TARGET_RATIO = 1.2
RHO, TAU = 1e-3, 0.03


def load() -> str:
    """The 1-minute load average, for printing beside a figure."""
    return f"load {os.getloadavg()[0]:.2f}"


# --------------------------------------------------------------------------- speed
def adult():
    """(schema, X, grouped, policy) of the Adult preset's 80% private split."""
    from blowfish_core.io.presets import get_preset, load_preset_data, shared_path
    from blowfish_core.model.distance import domain_index, group_records

    preset = get_preset("adult")
    if shared_path(preset) is None:
        raise FileNotFoundError("../shared/data/adult.csv not found")
    schema = preset.schema
    X = schema.encode(load_preset_data(preset).private)
    U, counts = group_records(X)
    return schema, X, (U, counts, domain_index(schema, U)), preset.default_policy()


def speed(pairs: int) -> dict:
    """Median in-process CPU of Tab-PE and Hard (alternating), the certification's share of Hard."""
    import blowfish_core.model.calibration as calibration
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis

    schema, X, grouped, policy = adult()
    cert = [0.0]
    inner = calibration.hard_sensitivity

    def timed(*a, **k):
        c0 = time.process_time()
        try:
            return inner(*a, **k)
        finally:
            cert[0] += time.process_time() - c0

    calibration.hard_sensitivity = timed  # ExactHard reads it from the calibration module
    try:
        def one(method: str) -> tuple[float, float, float, object]:
            cert[0] = 0.0
            c0 = time.process_time()
            res = run_synthesis(schema, X, policy, method, RHO, TAU, SynthConfig(), 0, grouped=grouped)
            cpu = time.process_time() - c0
            c1 = time.process_time()
            json.dumps([row.to_dict() for row in res.rounds])  # what a report reads, witnesses included
            return cpu, cert[0], time.process_time() - c1, res

        one("tab-pe")
        one("hard")  # warm-up (imports, first allocations)
        tab, hard, share, rep, how = [], [], [], [], set()
        for k in range(pairs):
            t = one("tab-pe")[0]
            h, c, r, res = one("hard")
            how |= {row.calibration for row in res.rounds}
            tab.append(t)
            hard.append(h)
            share.append(c / h)
            rep.append(r)
            print(f"  pair {k + 1}/{pairs}: Tab-PE {t:.3f} s, Hard {h:.3f} s (certification {c:.3f} s = "
                  f"{100 * c / h:.0f}%), ratio {h / t:.2f}; report's witness read {1e3 * r:.2f} ms; {load()}",
                  flush=True)
    finally:
        calibration.hard_sensitivity = inner
    out = {"tab_pe": statistics.median(tab), "hard": statistics.median(hard),
           "ratio": statistics.median(h / t for h, t in zip(hard, tab)),
           "cert_share": statistics.median(share), "report_ms": 1e3 * statistics.median(rep),
           "calibrations": sorted(how), "load": os.getloadavg()[0]}
    verdict = "MET" if out["ratio"] <= TARGET_RATIO else "MISSED"
    print(f"Adult 8 rounds, median of {pairs} alternating pairs (CPU s, same process): Tab-PE {out['tab_pe']:.3f}, "
          f"Hard {out['hard']:.3f}; Hard / Tab-PE {out['ratio']:.2f} (target <= {TARGET_RATIO}: {verdict}); "
          f"certification {100 * out['cert_share']:.0f}% of Hard; report's witness read "
          f"{out['report_ms']:.2f} ms per run; calibrations {out['calibrations']}; {load()}")
    return out


# --------------------------------------------------------------------------- soundness
def random_schema(rng):
    """1-3 finite attributes of every kind (sometimes a continuous one), random weights at times."""
    import dataclasses

    from blowfish_core.model.schema import Attribute, Schema

    attrs = []
    for i in range(int(rng.integers(1, 4))):
        kind = rng.choice(["int", "ordinal", "categorical", "binary", "hier", "cont"],
                          p=[0.22, 0.22, 0.2, 0.14, 0.14, 0.08])
        n = f"a{i}"
        if kind == "int":
            lo = int(rng.integers(-5, 10))
            attrs.append(Attribute(n, "numeric", lo=lo, hi=lo + int(rng.integers(1, 9)), integer=True))
        elif kind == "ordinal":
            attrs.append(Attribute(n, "ordinal", levels=list(range(int(rng.integers(2, 8))))))
        elif kind == "categorical":
            attrs.append(Attribute(n, "categorical", levels=[f"v{j}" for j in range(int(rng.integers(2, 5)))]))
        elif kind == "binary":
            attrs.append(Attribute(n, "binary", levels=[0, 1] if rng.random() < 0.5 else ["no", "yes"]))
        elif kind == "hier":
            attrs.append(Attribute(n, "hierarchical", tree={"g0": ["x", "y"], "g1": ["z", "w", "q"]}))
        else:
            lo = float(rng.uniform(-3, 3))
            attrs.append(Attribute(n, "numeric", lo=lo, hi=lo + float(rng.uniform(0.5, 4.0))))
    if rng.random() < 0.3:
        attrs = [dataclasses.replace(a, weight=float(rng.uniform(0.05, 1.0))) for a in attrs]
    return Schema(attrs)


def random_policy(schema, rng):
    """A random policy with at least one protected attribute (threshold, hierarchy, block, complete)."""
    from blowfish_core.model.policy import AttributePolicy, Policy, record_reach

    per = {}
    for a in schema.attributes:
        if rng.random() < 0.3:
            continue
        if a.kind == "numeric":
            theta = float(rng.uniform(0.05, 1.0) * (a.hi - a.lo))
            per[a.name] = AttributePolicy("threshold", float(max(1, round(theta))) if a.integer else theta)
        elif a.kind == "ordinal":
            per[a.name] = AttributePolicy("threshold", int(rng.integers(1, len(a.levels))))
        elif a.kind == "hierarchical":
            per[a.name] = (AttributePolicy("hierarchy") if rng.random() < 0.5
                           else AttributePolicy("threshold", int(rng.integers(1, a.tree_diameter + 1))))
        elif a.kind == "categorical" and rng.random() < 0.5:
            lv = list(a.levels)
            rng.shuffle(lv)
            cut = int(rng.integers(1, len(lv) + 1))
            per[a.name] = AttributePolicy("block", blocks=[lv[:cut], lv[cut:]] if cut < len(lv) else [lv])
        else:
            per[a.name] = AttributePolicy("complete")
    pol = Policy(per).validate(schema)
    if record_reach(schema, pol) == 0:
        a = schema.attributes[0]
        per[a.name] = (AttributePolicy("threshold", a.hi - a.lo) if a.kind == "numeric"
                       else AttributePolicy("complete"))
        pol = Policy(per).validate(schema)
    return pol


def random_population(schema, rng):
    """m = 1..40 candidates drawn from a pool of 1..12 records: duplicates and exact ties."""
    pool = schema.sample_uniform(rng, int(rng.integers(1, 13)))
    m = int(rng.integers(1, 41))
    return pool[rng.integers(0, pool.shape[0], size=m)] if rng.random() < 0.7 else schema.sample_uniform(rng, m)


def brute_force(schema, policy, C):
    """(truth, check): truth = whether some protected record-level edge crosses (None when a
    protected attribute is continuous: not enumerable); check(witness) -> whether it is a real crossing."""
    import numpy as np
    import pandas as pd

    from blowfish_core.model.distance import gower_distances
    from blowfish_core.model.policy import value_edges

    def nn64(R):
        return np.argmin(gower_distances(schema, R, C), axis=1)

    def check(w) -> bool:
        u = schema.encode(pd.DataFrame([dict(w["u"])]))
        v = schema.encode(pd.DataFrame([dict(w["v"])]))
        differ = [a.name for j, a in enumerate(schema.attributes) if u[0, j] != v[0, j]]
        if differ != [w["attribute"]]:
            return False
        i = schema.index(w["attribute"])
        a = schema.attributes[i]
        ap = policy.policy_for(a.name)
        ve = value_edges(a, ap)
        if ve is None:  # continuous threshold: |u - v| <= theta
            if ap.kind != "threshold" or abs(u[0, i] - v[0, i]) * a.width > float(ap.theta) * (1 + 1e-12):
                return False
        else:
            pairs = {(float(ve.codes[x]), float(ve.codes[y])) for x, y in zip(ve.e0, ve.e1)}
            if (float(u[0, i]), float(v[0, i])) not in pairs and (float(v[0, i]), float(u[0, i])) not in pairs:
                return False
        nn = nn64(np.vstack([u, v]))
        return bool(nn[0] != nn[1]) and (int(nn[0]), int(nn[1])) == (w["nn_u"], w["nn_v"])

    protected = policy.protected(schema)
    if any(a.size is None for a in schema.attributes):  # a continuous domain: no exhaustive truth
        return None, check
    grids = [a.domain_codes() for a in schema.attributes]
    R = np.array(list(itertools.product(*[g.tolist() for g in grids])), dtype=float)
    nn = nn64(R)
    index = {tuple(r): k for k, r in enumerate(R.tolist())}
    for i, a in enumerate(schema.attributes):
        if a.name not in protected:
            continue
        ve = value_edges(a, policy.policy_for(a.name))
        for k, r in enumerate(R.tolist()):
            for e0, e1 in zip(ve.e0, ve.e1):
                if r[i] != ve.codes[e0]:
                    continue
                s = list(r)
                s[i] = float(ve.codes[e1])
                if nn[k] != nn[index[tuple(s)]]:
                    return True, check
    return False, check


def certificate_text(cal) -> str:
    """A canonical text of one certificate (how, sensitivity, edges checked, witness), for the digest."""
    w = None if cal.witness is None else {k: (dict(v) if isinstance(v, dict) else v) for k, v in cal.witness.items()}
    return json.dumps([cal.how, repr(float(cal.sensitivity)), int(cal.edges_checked), w], sort_keys=True,
                      default=repr)


def soundness(populations: int) -> dict:
    """hard_sensitivity against the brute force on ``populations`` random (schema, policy, population)."""
    import numpy as np

    from blowfish_core.model.sensitivity import SQRT2, hard_sensitivity

    digest = hashlib.sha256()
    counts: dict[str, int] = {}
    unsound, unchecked = [], 0
    cpu = 0.0
    for i in range(populations):
        rng = np.random.default_rng([23, i])
        schema = random_schema(rng)
        policy = random_policy(schema, rng)
        C = random_population(schema, rng)
        c0 = time.process_time()
        cal = hard_sensitivity(schema, policy, C)
        cpu += time.process_time() - c0
        digest.update(certificate_text(cal).encode())
        counts[cal.how] = counts.get(cal.how, 0) + 1
        truth, check = brute_force(schema, policy, C)
        if cal.how == "certified-crossing":
            if not (cal.sensitivity == SQRT2 and check(cal.witness)):
                unsound.append((i, "witness is not a crossing edge"))
        elif cal.how == "exhaustive-zero":
            if truth is None or truth:
                unsound.append((i, "0 certified but a protected edge crosses"))
        elif cal.sensitivity != SQRT2:
            unsound.append((i, f"{cal.how} below sqrt(2)"))
        if truth is None:
            unchecked += 1
    print(f"soundness: {populations} populations, {len(unsound)} unsound; calibrations {dict(sorted(counts.items()))} "
          f"({unchecked} with a continuous attribute: no exhaustive truth, witnesses still checked); "
          f"hard_sensitivity CPU {cpu:.2f} s; certificates sha256 {digest.hexdigest()[:16]}; {load()}")
    for i, why in unsound[:10]:
        print(f"  UNSOUND population {i}: {why}")
    return {"unsound": len(unsound), "counts": counts, "digest": digest.hexdigest()}


def certificates(seeds=(0, 1, 2)) -> str:
    """SHA-256 of the ledgers (witnesses included) of seeded Hard runs on Adult."""
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis

    schema, X, grouped, policy = adult()
    digest = hashlib.sha256()
    for s in seeds:
        res = run_synthesis(schema, X, policy, "hard", RHO, TAU, SynthConfig(), s, grouped=grouped)
        digest.update(json.dumps([row.to_dict() for row in res.rounds], sort_keys=True, default=repr).encode())
        digest.update(res.release.tobytes())
    print(f"certificates: Adult Hard seeds {list(seeds)}, ledgers (witnesses) and releases sha256 "
          f"{digest.hexdigest()[:16]}; {load()}")
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="speed,soundness,certificates")
    ap.add_argument("--pairs", type=int, default=5, help="alternating Tab-PE / Hard runs (default 5)")
    ap.add_argument("--populations", type=int, default=1800, help="soundness check populations (default 1800)")
    args = ap.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    print(f"bench_hard: {os.cpu_count()} cores (shared); {load()}")
    try:
        if "speed" in parts:
            speed(max(1, args.pairs))
        if "certificates" in parts:
            certificates()
    except FileNotFoundError as exc:
        print(f"skipping the Adult parts: {exc}")
    if "soundness" in parts:
        soundness(args.populations)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
