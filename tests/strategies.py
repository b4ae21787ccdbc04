"""Hypothesis strategies shared by the vote tests: random mixed schemas.

Integer / continuous / large-domain numeric (the direct path of GowerKernel), ordinal, flat
categorical, binary, hierarchical (shallow random trees and one deep tree); default or random
Gower weights.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from blowfish_core.model.schema import Attribute, Schema

DEEP_TREE = {"A": {"A1": ["a", "b"], "A2": ["c"]}, "B": ["d", "e"], "C": ["f"]}


@st.composite
def attributes(draw, idx: int) -> Attribute:
    kind = draw(st.sampled_from(["int", "cont", "bigint", "ordinal", "categorical", "binary", "hier", "deep"]))
    name = f"a{idx}"
    if kind == "int":
        lo = draw(st.integers(-50, 50))
        return Attribute(name, "numeric", lo=lo, hi=lo + draw(st.integers(1, 120)), integer=True)
    if kind == "cont":
        lo = draw(st.floats(-100, 100, allow_nan=False))
        return Attribute(name, "numeric", lo=lo, hi=lo + draw(st.floats(0.5, 500, allow_nan=False)))
    if kind == "bigint":  # > LOOKUP_MAX values: the direct |x - c| path of GowerKernel
        return Attribute(name, "numeric", lo=-10000, hi=110000, integer=True)
    if kind == "ordinal":
        return Attribute(name, "ordinal", levels=list(range(draw(st.integers(2, 9)))))
    if kind == "categorical":
        return Attribute(name, "categorical", levels=[f"v{j}" for j in range(draw(st.integers(2, 6)))])
    if kind == "binary":
        return Attribute(name, "binary", levels=["no", "yes"])
    if kind == "deep":
        return Attribute(name, "hierarchical", tree=DEEP_TREE)
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    if sum(sizes) < 2:
        sizes = [2]
    tree = {f"g{g}": [f"g{g}l{j}" for j in range(s)] for g, s in enumerate(sizes)}
    return Attribute(name, "hierarchical", tree=tree)


@st.composite
def schemas(draw, max_p: int = 4) -> Schema:
    p = draw(st.integers(1, max_p))
    attrs = [draw(attributes(i)) for i in range(p)]
    if draw(st.booleans()):
        attrs = [dataclasses.replace(a, weight=draw(st.floats(0.05, 1.0, allow_nan=False)))  # frozen
                 for a in attrs]
    return Schema(attrs)
