"""MST and AIM releases repeat across processes, whatever Python's string-hash seed.

mbi orders cliques and the sampler's parent columns through Python sets of attribute names;
with str names that order (and so the estimate's float sums and the sampled records) follows
PYTHONHASHSEED.  MST and AIM give mbi the column indices as names (baselines._mbi.mbi_domain).
The AIM fit below measures a 3-way clique, so the sampler conditions a column on two parents
(``tuple(set)`` in mbi's synthetic_data): with str names its release differed between
PYTHONHASHSEED 1 and 4 (checked before the fix).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from blowfish_core.baselines import _mbi

from tests.mbi_marks import HAVE_MBI, WHY, needs_mbi  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: a tiny table (400 records, 6 categorical columns with 2-4 levels), one seeded AIM fit (12 rounds,
#: a workload with 3-way cliques) and one seeded MST fit, each release printed as CSV.
SCRIPT = r"""
import json, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
from blowfish_core.baselines import fit_aim, fit_mst
from blowfish_core.model.schema import Attribute, Schema

rng = np.random.default_rng(0)
n = 400
a = rng.integers(0, 4, n); b = (a + rng.integers(0, 2, n)) % 4; c = rng.integers(0, 3, n)
d = (b + c) % 3; e = rng.integers(0, 2, n); f = (a + e + d) % 2
cols = dict(a=a, b=b, c=c, d=d, e=e, f=f)
schema = Schema([Attribute(k, "categorical", levels=[str(i) for i in range(int(v.max()) + 1)])
                 for k, v in cols.items()])
df = pd.DataFrame({k: [str(x) for x in v] for k, v in cols.items()})
out = {}
aim = fit_aim(schema, df, 2.0, seed=1, rows=200, rounds=12, round_iters=100, iters=200,
              workload=[("a", "b", "c"), ("d", "e", "f"), ("a", "d", "f"), ("b", "e")])
mst = fit_mst(schema, df, 2.0, seed=1, rows=200, iters=200)
for name, r in (("aim", aim), ("mst", mst)):
    out[name] = {"csv": r.release.to_csv(index=False), "cliques": [list(c) for c in r.cliques],
                 "ledger": [[row.step, list(row.clique), row.scale, row.rho] for row in r.ledger]}
print(json.dumps(out))
"""


def _run(hashseed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hashseed, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@needs_mbi
def test_mst_and_aim_releases_are_byte_identical_across_hash_seeds():
    one, four = _run("1"), _run("4")
    for method in ("aim", "mst"):
        assert one[method]["csv"] == four[method]["csv"], f"{method}: release differs between hash seeds 1 and 4"
        assert one[method]["cliques"] == four[method]["cliques"]
        assert one[method]["ledger"] == four[method]["ledger"]
        assert one[method]["csv"].count("\n") == 201  # header + 200 records
        # the result's cliques and ledger rows name the schema's attributes, not mbi's indices
        names = set("abcdef")
        assert all(set(c) <= names for c in one[method]["cliques"])
        assert all(set(row[1]) <= names for row in one[method]["ledger"])
    # the case that used to depend on the hash seed: a clique of 3 (two parents in mbi's sampler)
    assert any(len(c) == 3 for c in one["aim"]["cliques"])


def test_mbi_names_are_column_indices_and_map_back():
    class FakeMbi:
        @staticmethod
        def Domain(attrs, shape):  # noqa: N802 - mbi's name
            return attrs, shape

    attrs, shape = _mbi.mbi_domain(FakeMbi, [3, 4, 2])
    assert attrs == (0, 1, 2) and shape == (3, 4, 2)
    assert all(type(a) is int for a in attrs)
    import numpy as np

    key = _mbi.mbi_clique(np.array([2, 0]))
    assert key == (2, 0) and all(type(a) is int for a in key)  # mbi tests isinstance(a, int)
    assert _mbi.named_cliques(["x", "y", "z"], [(0,), (2, 1)]) == (("x",), ("z", "y"))
