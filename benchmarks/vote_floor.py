"""The vote step's floor for one round, next to the engine's hard and soft rounds (issue 15).

One round = the Gower distances from every grouped private record to the m candidates
plus the vote histogram.  The *floor* is a lean implementation of the same work: grouped
records, float32 lookup tables (per attribute, fused into joint tables only for the joint
codes the records use), cache-sized tiles of ``--tile`` rows, the vote reduced tile by
tile (hard: argmin + weighted bincount; soft: stable softmax + one float32 mat-vec per
tile accumulated in float64).  The floor breaks ties however float32 rounding falls, so its
hard histogram differs from the exact one (the printed max |H_engine - H_floor|).

The engine's rounds are ``votes.vote_histogram`` with ``HardVote()`` / ``SoftVote(tau)``,
including the ``GowerKernel`` build:
* hard (issue 15c): float32 tiles too (``GowerKernel.nearest``), plus what exactness costs:
  the second-best candidate of every record, and for the near-tie records (float32 gap
  <= 2E, E = 2 p (2^-24 + 2^-53) S) their candidates within 2E recomputed exactly in
  float64.  Its argmin is identical to float64 distances (the printed check against the
  float64 reference must read 0), so releases are unchanged.  Since 15e it votes over the
  distinct candidates only (equal rows have equal distances; a winner maps back to its
  first occurrence), which removes most exact ties, and builds its float32 joint tables
  without table-sized temporaries and without a sort (the floor builds its tables the same way);
* soft, study runs (``SoftVote(tau, "float32")``, what every seeded run uses; issue 15d):
  float32 tiles of 256 rows (distances, stable softmax, one float32 mat-vec per tile,
  accumulated in float64 per 2,048-row block: the Dask engine's layout), the floor's
  arithmetic; small tau (bound over ``votes.SOFT32_MAX_REL``) runs float64.  The printed
  max |H_engine - H_float64| is the distance to the float64 softmax histogram;
* soft, releases (``SoftVote(tau)``, float64: OS-randomness runs, so that the computed vote's
  sensitivity is the calibrated one), printed against both floors.
The same lean code in float64 is printed too (the former floor under the bit-identity rule).

Candidates: the 1,024-candidate population of round 8 of a seeded Hard run (so the
distances have a real run's structure), or ``--uniform`` for a uniform sample.
Data: Adult's private split from ../shared/data/adult.csv, or XOR-3 when it is absent.

Times are CPU seconds of this process (``time.process_time``), the best of ``--repeats``
runs after one warm-up; BLAS threads are the library default unless the environment
sets them.  The machine is shared: the 1-minute load average is printed with every figure
(figures taken at a load above 1.5 on 2 cores are marked ``LOADED``).

Usage::

    python benchmarks/vote_floor.py [--repeats 7] [--tau 0.03] [--tile 256] [--json OUT]

Targets (issue 15): soft round <= 1.5x the soft floor, hard round <= 1.2x the hard floor.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

TARGET_SOFT = 1.5
TARGET_HARD = 1.2


def load(uniform: bool, seed: int = 0):
    """(name, schema, U, counts, I, C) with C the 1,024 candidates."""
    from blowfish_core.model.distance import domain_index, group_records
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis
    from blowfish_core.io.presets import get_preset, load_preset_data, shared_path

    name = "adult" if shared_path(get_preset("adult")) is not None else "xor3"
    preset = get_preset(name)
    schema = preset.schema
    X = schema.encode(load_preset_data(preset).private)
    U, counts = group_records(X)
    I = domain_index(schema, U)
    if uniform:
        C = schema.sample_uniform(np.random.default_rng(seed), 1024)
    else:
        res = run_synthesis(schema, X, preset.default_policy(), "hard", 1e-3, None, SynthConfig(), seed,
                            grouped=(U, counts, I), keep_populations=True)
        C = res.populations[-1]
    return name, schema, U, counts, I, C


class Floor:
    """Lean float32 round: joint lookup tables for the used codes, cache-sized tiles."""

    def __init__(self, schema, C: np.ndarray, I: np.ndarray, tile: int, dtype=np.float32):
        from blowfish_core.model.distance import LOOKUP_MAX, used_codes

        m = C.shape[0]
        w = schema.weights
        self.m, self.tile, self.dtype = m, tile, dtype
        tabs, self.direct = {}, []
        for i, a in enumerate(schema.attributes):
            if a.size is not None and a.size <= LOOKUP_MAX:
                tabs[i] = (w[i] * a.term(a.domain_codes()[:, None], C[None, :, i])).astype(dtype)
            else:
                self.direct.append(i)
        self.schema, self.C = schema, C
        # two joint tables at most (largest attributes first), rows only for used joint codes
        order = sorted(tabs, key=lambda i: -tabs[i].shape[0])
        self.codes, self.tables = [], []
        groups: list[list[int]] = []
        for i in order:
            for g in groups:
                if np.prod([tabs[j].shape[0] for j in g]) * tabs[i].shape[0] <= 8192:
                    g.append(i)
                    break
            else:
                groups.append([i])
        for g in groups:
            code = np.zeros(I.shape[0], dtype=np.intp)
            for j in g:
                code = code * tabs[j].shape[0] + I[:, j]
            # the used joint codes without a sort, and the joint rows summed tile by tile into the
            # table (no table-sized temporary): the engine's own table build (issue 15e)
            used, inv = used_codes(code, int(np.prod([tabs[j].shape[0] for j in g])))
            digits, rest = [], used.copy()
            for j in reversed(g):
                digits.append(rest % tabs[j].shape[0])
                rest //= tabs[j].shape[0]
            digits.reverse()
            T = np.take(tabs[g[0]], digits[0], axis=0, mode="clip")
            if len(g) > 1:
                tmp = np.empty((min(tile, T.shape[0]), m), dtype=dtype)
                for s in range(0, T.shape[0], tile):
                    e = min(s + tile, T.shape[0])
                    for j, d in zip(g[1:], digits[1:]):
                        np.take(tabs[j], d[s:e], axis=0, out=tmp[: e - s], mode="clip")
                        T[s:e] += tmp[: e - s]
            self.tables.append(T)
            self.codes.append(inv.astype(np.intp))

    def tiles(self, U: np.ndarray):
        n, t = U.shape[0], self.tile
        D = np.empty((t, self.m), dtype=self.dtype)
        buf = np.empty((t, self.m), dtype=self.dtype)
        for s in range(0, n, t):
            e = min(s + t, n)
            d, b = D[: e - s], buf[: e - s]
            np.take(self.tables[0], self.codes[0][s:e], axis=0, out=d, mode="clip")
            for T, code in zip(self.tables[1:], self.codes[1:]):
                np.take(T, code[s:e], axis=0, out=b, mode="clip")
                d += b
            for i in self.direct:  # continuous attributes: the engine's own term, cast to float32
                tmp = np.empty((e - s, self.m))
                self.schema.attributes[i].term_into(U[s:e, i, None], self.C[None, :, i], tmp)
                b[...] = tmp * self.schema.weights[i]
                d += b
            yield s, e, d


def floor_hard(schema, C, U, counts, I, tile, dtype=np.float32):
    f = Floor(schema, C, I, tile, dtype)
    H = np.zeros(f.m)
    for s, e, d in f.tiles(U):
        H += np.bincount(np.argmin(d, axis=1), weights=counts[s:e], minlength=f.m)
    return H


def floor_hard_gap(schema, C, U, counts, I, tile):
    """The floor plus the exactness check's unavoidable part: each record's second-best candidate
    (the float32 gap test of GowerKernel.nearest), without recomputing the near ties."""
    f = Floor(schema, C, I, tile)
    H = np.zeros(f.m)
    base = np.arange(tile, dtype=np.intp) * f.m
    for s, e, d in f.tiles(U):
        best = np.argmin(d, axis=1)
        flat = d.reshape(-1)
        at = base[: e - s] + best
        m1 = flat[at].astype(np.float64)
        flat[at] = np.inf
        np.flatnonzero(flat[base[: e - s] + np.argmin(d, axis=1)] - m1 <= 1e-6)
        H += np.bincount(best, weights=counts[s:e], minlength=f.m)
    return H


def floor_soft(schema, C, U, counts, I, tile, tau, dtype=np.float32):
    f = Floor(schema, C, I, tile, dtype)
    H = np.zeros(f.m)
    k = dtype(-1.0 / tau)
    for s, e, d in f.tiles(U):
        d -= d.min(axis=1, keepdims=True)
        d *= k
        np.exp(d, out=d)
        wts = (counts[s:e] / d.sum(axis=1, dtype=np.float64)).astype(dtype)
        H += (wts @ d).astype(np.float64)
    return H


def reference_hard64(schema, C, U, counts, I):
    """The float64 hard histogram by np.argmin over GowerKernel.block distances (the pre-15c engine)."""
    from blowfish_core.model.distance import GowerKernel, tile_rows

    k = GowerKernel(schema, C)
    H = np.zeros(k.m)
    for sl, D in k.iter_blocks(U, I, rows=tile_rows(k.m)):
        H += np.bincount(np.argmin(D, axis=1), weights=counts[sl], minlength=k.m)
    return H


def soft_reference64(schema, C, U, counts, I, tau):
    """The float64 soft histogram (the pre-15d engine: float64 softmax rows, one mat-vec per block)."""
    from blowfish_core.model.distance import GowerKernel, chunk_rows
    from blowfish_core.model.votes import soft_rows

    k = GowerKernel(schema, C)
    H = np.zeros(k.m)
    for sl, D in k.iter_blocks(U, I, rows=chunk_rows(k.m)):
        H += counts[sl] @ soft_rows(D, tau, out=D)
    return H


def near_ties(schema, C, U, I) -> tuple[int, int]:
    """(records, record-candidate pairs) the float32 hard vote decided exactly in float64."""
    from blowfish_core.model.distance import GowerKernel

    k = GowerKernel(schema, C)
    seen = [0, 0]
    resolve = k._resolve

    def counting(X, I_, pend_r, pend_j, out):
        if pend_r:
            r = np.concatenate(pend_r)
            seen[0] += np.unique(r).size
            seen[1] += r.size
        return resolve(X, I_, pend_r, pend_j, out)

    k._resolve = counting
    k.nearest(U, I)
    return seen[0], seen[1]


def best_cpu(fn, repeats: int) -> tuple[float, object]:
    out = fn()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        c0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - c0)
    return best, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--tau", type=float, default=0.03)
    ap.add_argument("--tile", type=int, default=256, help="rows per floor tile (default 256: 1 MiB at m=1024)")
    ap.add_argument("--uniform", action="store_true", help="uniform candidates instead of a run's round-8 population")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    from blowfish_core.model.votes import HardVote, SoftVote, vote_histogram

    name, schema, U, counts, I, C = load(args.uniform)
    hard, soft, soft64 = HardVote(), SoftVote(args.tau, "float32"), SoftVote(args.tau)
    loads = {}

    def timed(key, fn):
        loads[key] = os.getloadavg()[0]
        rows[key], out = best_cpu(fn, args.repeats)
        loads[key] = max(loads[key], os.getloadavg()[0])
        return out

    rows = {}
    Hf = timed("hard_floor", lambda: floor_hard(schema, C, U, counts, I, args.tile))
    timed("hard_floor_gap", lambda: floor_hard_gap(schema, C, U, counts, I, args.tile))
    He = timed("hard_engine", lambda: vote_histogram(schema, C, U, counts, hard, I=I))
    Sf = timed("soft_floor", lambda: floor_soft(schema, C, U, counts, I, args.tile, args.tau))
    timed("hard_floor64", lambda: floor_hard(schema, C, U, counts, I, args.tile, np.float64))
    timed("soft_floor64", lambda: floor_soft(schema, C, U, counts, I, args.tile, args.tau, np.float64))
    Se = timed("soft_engine", lambda: vote_histogram(schema, C, U, counts, soft, I=I))
    timed("soft_release", lambda: vote_histogram(schema, C, U, counts, soft64, I=I))
    H64 = reference_hard64(schema, C, U, counts, I)
    ratio_h = rows["hard_engine"] / rows["hard_floor"]
    ratio_s = rows["soft_engine"] / rows["soft_floor"]
    agree_h = float(np.abs(Hf - He).max())
    agree_s = float(np.abs(Sf - Se).max())
    exact_h = float(np.abs(He - H64).max())
    exact_s = float(np.abs(Se - soft_reference64(schema, C, U, counts, I, args.tau)).max())
    nt_rows, nt_pairs = near_ties(schema, C, U, I)

    def ld(*keys):
        v = max(loads[k] for k in keys)
        return f"load {v:.2f}" + (" LOADED" if v > 1.5 else "")

    print(f"vote_floor: {name}, {U.shape[0]:,} grouped records ({int(counts.sum()):,} rows), m = {C.shape[0]}, "
          f"tau = {args.tau:g}, floor tile {args.tile} rows, best of {args.repeats} (CPU ms, this process); "
          f"BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS', 'library default')}; "
          f"{os.cpu_count()} cores")
    print(f"  hard: engine {rows['hard_engine'] * 1e3:7.1f} ms (float32 + exact ties)   float32 floor "
          f"{rows['hard_floor'] * 1e3:7.1f} ms   ratio {ratio_h:.2f}x (target <= {TARGET_HARD}x: "
          f"{'MET' if ratio_h <= TARGET_HARD else 'MISSED'}); {ld('hard_engine', 'hard_floor')}")
    print(f"        exactness: max |H_engine - H_float64 argmin| = {exact_h:.3g} (must be 0); "
          f"max |H_engine - H_floor| = {agree_h:.3g} records (the floor's float32 tie breaks); near or exact ties "
          f"decided in float64: {nt_rows:,} of {U.shape[0]:,} records ({nt_pairs:,} record-candidate pairs)")
    print(f"        the floor plus the second-best gap test exactness needs: {rows['hard_floor_gap'] * 1e3:.1f} ms "
          f"(engine {rows['hard_engine'] / rows['hard_floor_gap']:.2f}x of it); {ld('hard_floor_gap')}")
    print(f"  soft: engine {rows['soft_engine'] * 1e3:7.1f} ms (study runs: float32 tiles, float64 sums)   float32 floor "
          f"{rows['soft_floor'] * 1e3:7.1f} ms   ratio {ratio_s:.2f}x (target <= {TARGET_SOFT}x: "
          f"{'MET' if ratio_s <= TARGET_SOFT else 'MISSED'}); max |H_engine - H_floor| = {agree_s:.3g}, "
          f"max |H_engine - H_float64| = {exact_s:.3g} (of n = {int(counts.sum()):,}); "
          f"{ld('soft_engine', 'soft_floor')}")
    print(f"  float64 floors (the same lean code in float64): hard {rows['hard_floor64'] * 1e3:.1f} ms "
          f"(engine {rows['hard_engine'] / rows['hard_floor64']:.2f}x; {ld('hard_floor64')}), soft "
          f"{rows['soft_floor64'] * 1e3:.1f} ms (engine {rows['soft_engine'] / rows['soft_floor64']:.2f}x; "
          f"{ld('soft_floor64')})")
    print(f"  soft, releases (float64 vote, OS randomness): {rows['soft_release'] * 1e3:.1f} ms = "
          f"{rows['soft_release'] / rows['soft_floor']:.2f}x the float32 floor, "
          f"{rows['soft_release'] / rows['soft_floor64']:.2f}x the float64 floor; {ld('soft_release')}")
    if args.json:
        from blowfish_core.io import atomic

        doc = {"dataset": name, "unique": int(U.shape[0]), "m": int(C.shape[0]), "cpu_seconds": rows,
               "ratio_hard": ratio_h, "ratio_soft": ratio_s, "load": loads,
               "ratio_hard_vs_floor_with_gap_test": rows["hard_engine"] / rows["hard_floor_gap"],
               "ratio_soft_release": rows["soft_release"] / rows["soft_floor"],
               "hard_exact_max_diff": exact_h, "soft_float64_max_diff": exact_s,
               "near_tie_records": nt_rows, "near_tie_pairs": nt_pairs}
        atomic.write_text(args.json, json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
