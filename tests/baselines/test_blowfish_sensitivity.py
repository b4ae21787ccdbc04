"""Exact per-marginal Blowfish sensitivity (baselines.blowfish_sensitivity, issue 25), by enumeration.

On XOR-3 and a 3 x 4 x 2 mixed domain (a numeric attribute 0..3 with a threshold policy under two
binnings, a 3-level categorical with a partial block policy, a binary with none), every record of
the domain and every record-level policy edge out of it is enumerated (the per-attribute value
edges are written here from the policy's definition, not read from the engine), the cells are
computed here from the binning's definition, and for every clique S (every non-empty attribute
subset: all of MST's candidates and more) the largest change of the count marginal h_S under one
record's move is computed: l2 and l1 norms of h_S(D) - h_S(D') = e_x - e_x'.  Both must equal the
claim (l2: sensitivity, l1: the selection score's sensitivity), with and without participation
edges (then a record is also added or removed: h_S changes by e_x).  The table is printed
(``pytest -s``) and the figures are pinned as constants.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from blowfish_core.baselines.blowfish_sensitivity import (
    HOW_FLOOR, HOW_NONE, HOW_SQRT2, PolicyMarginals, selection_sensitivity,
)
from blowfish_core.baselines.cells import PublicCells
from blowfish_core.io.presets import xor
from blowfish_core.model.domain.base import declared_bounds
from blowfish_core.model.policy import AttributePolicy, Policy
from blowfish_core.model.schema import Attribute, Schema

SQRT2 = math.sqrt(2.0)


def _mixed_schema() -> Schema:
    return Schema([
        Attribute("color", "categorical", levels=["a", "b", "c"]),
        Attribute("age", "numeric", lo=0, hi=3, integer=True, unit="years"),
        Attribute("flag", "binary", levels=["no", "yes"]),
    ])


def _values(a: Attribute) -> list:
    """The attribute's domain values, written from its definition."""
    if a.kind == "numeric":
        lo, hi = declared_bounds(a)
        return list(range(int(lo), int(hi) + 1))
    return list(a.levels)


def _cell(a: Attribute, v, bins: int) -> int:
    """The public cell of value v: equal-width bins over [lo, hi] for a numeric, else the level."""
    if a.kind == "numeric":
        lo, hi = declared_bounds(a)
        return min(int((v - lo) / (hi - lo) * bins), bins - 1)
    return list(a.levels).index(v)


def _linked(a: Attribute, ap: AttributePolicy, u, v) -> bool:
    """Whether the policy links values u != v of attribute a (Def. 2.3, from the kinds' definitions)."""
    if u == v or ap.kind == "none":
        return False
    if ap.kind == "complete":
        return True
    if ap.kind == "threshold":
        vals = _values(a)
        steps = abs(vals.index(u) - vals.index(v)) if a.kind != "numeric" else abs(u - v)
        return steps <= float(ap.theta or 0)
    if ap.kind == "block":
        return any(u in b and v in b for b in ap.blocks or [])
    raise AssertionError(ap.kind)


def enumerate_marginals(schema: Schema, policy: Policy, bins: int) -> dict:
    """Every record, every record-level edge (and participation edge), every clique's max change.

    Returns {"domain": records, "edges": edges checked, "rows": [(clique, max l2, max l1), ...]}.
    """
    attrs = schema.attributes
    doms = [_values(a) for a in attrs]
    cliques = [c for k in range(1, len(attrs) + 1) for c in itertools.combinations(range(len(attrs)), k)]
    best = {c: [0.0, 0.0] for c in cliques}
    records = list(itertools.product(*doms))
    edges = 0

    def key(rec, c):
        return tuple(_cell(attrs[i], rec[i], bins) for i in c)

    for rec in records:
        moves = []
        for i, a in enumerate(attrs):
            ap = policy.policy_for(a.name)
            moves += [rec[:i] + (v,) + rec[i + 1:] for v in doms[i] if _linked(a, ap, rec[i], v)]
        edges += len(moves)
        for c in cliques:
            for other in moves:
                diff: dict[tuple, int] = {}
                diff[key(rec, c)] = diff.get(key(rec, c), 0) + 1
                diff[key(other, c)] = diff.get(key(other, c), 0) - 1
                d = np.array(list(diff.values()), dtype=float)
                best[c][0] = max(best[c][0], float(np.sqrt((d ** 2).sum())))
                best[c][1] = max(best[c][1], float(np.abs(d).sum()))
            if policy.participation:  # (rec, bottom): h_S changes by e_x
                best[c][0], best[c][1] = max(best[c][0], 1.0), max(best[c][1], 1.0)
    edges += len(records) if policy.participation else 0
    return {"domain": len(records), "edges": edges, "rows": [(c, *best[c]) for c in cliques]}


XOR_DEFAULT = {"X_1": AttributePolicy("threshold", 1)}
XOR_ALL = {**{f"X_{i}": AttributePolicy("threshold", 1) for i in (1, 2, 3)}, "Y": AttributePolicy("complete")}
MIXED_BOTH = {"age": AttributePolicy("threshold", 1), "color": AttributePolicy("block", blocks=[["a", "b"], ["c"]])}
MIXED_AGE = {"age": AttributePolicy("threshold", 1)}
MIXED_COLOR = {"color": AttributePolicy("block", blocks=[["a", "b"], ["c"]])}

#: (name, schema, per-attribute policy, bins, records, record-level edges without participation)
CASES = [
    ("xor3 X_1 threshold 1", xor(3).schema, XOR_DEFAULT, 20, 1024, 1792),
    ("xor3 all protected", xor(3).schema, XOR_ALL, 20, 1024, 6400),
    ("mixed age+color, 2 bins", _mixed_schema(), MIXED_BOTH, 2, 24, 52),
    ("mixed age+color, 1 bin", _mixed_schema(), MIXED_BOTH, 1, 24, 52),
    ("mixed age only, 2 bins", _mixed_schema(), MIXED_AGE, 2, 24, 36),
    ("mixed age only, 1 bin", _mixed_schema(), MIXED_AGE, 1, 24, 36),
    ("mixed color only, 2 bins", _mixed_schema(), MIXED_COLOR, 2, 24, 16),
]


def _table(name, schema, per, bins, participation):
    policy = Policy(per, participation=participation)
    got = enumerate_marginals(schema, policy, bins)
    plan = PolicyMarginals.of(PublicCells.from_schema(schema, bins), policy)
    lines = [f"{name}{' + participation' if participation else ''}: domain {got['domain']} records, "
             f"{got['edges']} edges checked"]
    out = []
    for c, l2, l1 in got["rows"]:
        m = plan.marginal(c)
        lines.append(f"  {'x'.join(m.clique):<14} max l2 {l2:.4f} / claim {m.sensitivity:.4f}   "
                     f"max l1 {l1:.0f} / claim {m.score:.0f}   ({m.how})")
        out.append((c, l2, l1, m))
    print("\n".join(lines))
    return got, out


@pytest.mark.parametrize("participation", [False, True], ids=["record-edges", "participation"])
@pytest.mark.parametrize("name,schema,per,bins,records,edges", CASES, ids=[c[0] for c in CASES])
def test_enumerated_max_equals_the_claim(name, schema, per, bins, records, edges, participation):
    got, rows = _table(name, schema, per, bins, participation)
    assert got["domain"] == records
    assert got["edges"] == edges + (records if participation else 0)
    for _c, l2, l1, m in rows:
        assert l2 == pytest.approx(m.sensitivity, abs=1e-12), m.clique
        assert l1 == m.score, m.clique
        if participation:
            assert m.how in (HOW_SQRT2, HOW_FLOOR) and not m.exact  # nothing is exact
        else:
            assert m.how == (HOW_SQRT2 if m.sensitivity else HOW_NONE)
    # the selection's sensitivity over MST's candidates (the pairs): the maximum of the enumerated l1
    pairs = [c for c, *_ in rows if len(c) == 2]
    enumerated = max(l1 for c, _, l1, _ in rows if len(c) == 2)
    assert selection_sensitivity(PublicCells.from_schema(schema, bins), Policy(per, participation=participation),
                                 pairs) == enumerated


def test_pinned_claims():
    """The claims on the cases, as constants: which marginals are exact."""
    schema = xor(3).schema
    plan = PolicyMarginals.of(PublicCells.from_schema(schema), Policy(XOR_DEFAULT))
    assert plan.crossing == ("X_1",)
    assert [plan.marginal(c).sensitivity for c in [(0,), (1,), (0, 1), (1, 2), (2, 3)]] == [SQRT2, 0.0, SQRT2, 0.0, 0.0]
    assert plan.marginal((1, 2)).how == HOW_NONE and plan.marginal((0, 3)).witness == {
        "attribute": "X_1", "from": 0, "to": 1}
    mixed = _mixed_schema()
    one = PolicyMarginals.of(PublicCells.from_schema(mixed, 1), Policy(MIXED_AGE))
    two = PolicyMarginals.of(PublicCells.from_schema(mixed, 2), Policy(MIXED_AGE))
    assert one.crossing == () and two.crossing == ("age",)
    assert two.marginal((1,)).witness == {"attribute": "age", "from": 1, "to": 2}
    floor = PolicyMarginals.of(PublicCells.from_schema(mixed, 1), Policy(MIXED_AGE, participation=True))
    assert (floor.marginal((1, 2)).sensitivity, floor.marginal((1, 2)).how) == (1.0, HOW_FLOOR)
