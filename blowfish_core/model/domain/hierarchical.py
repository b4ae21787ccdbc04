"""The hierarchical attribute type: leaves of a taxonomy tree, tree-path Gower term (App. D)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base.errors import SchemaError
from .base import attribute_type
from .mixins import _Levels
from .values import FrozenList, _fmt


@attribute_type("hierarchical")
class HierarchicalAttribute(_Levels):
    """Leaves of a taxonomy tree; Gower term = tree-path distance / tree diameter (App. D)."""

    graded = True
    has_tree = True
    policy_kinds = ("none", "hierarchy", "threshold", "block", "complete", "edges")

    @classmethod
    def examples(cls) -> tuple[HierarchicalAttribute, ...]:
        return (cls("a", tree={"g1": ["a", "b"], "g2": ["c", "d", "e"]}),)

    def _validate(self):
        n = self.name
        if not self.tree:
            raise SchemaError(f"attribute '{n}': hierarchical type needs a 'tree' of groups")
        leaves, dist = _tree_metric(self.tree, n)
        if self.levels is None:
            self._set(levels=FrozenList(leaves))
        elif sorted(map(_fmt, self.levels)) != sorted(map(_fmt, leaves)):
            raise SchemaError(f"attribute '{n}': 'levels' and the leaves of 'tree' differ")
        order = [leaves.index(_fmt(v)) if _fmt(v) in leaves else None for v in self.levels]
        self._set(_tree_dist=dist[np.ix_(order, order)])
        self._check_levels()

    @property
    def width(self):
        """The tree diameter, in tree steps."""
        return float(self.tree_diameter)

    @property
    def tree_diameter(self) -> int:
        """Tree-path diameter in edges (App. D)."""
        diameter = self._tree_diameter
        if diameter is None:
            if self.tree is None:
                raise SchemaError(f"attribute '{self.name}': hierarchical type needs a 'tree' of groups")
            _, raw = _tree_metric(self.tree, self.name, normalized=False)
            diameter = int(raw.max()) if raw.size else 0
            self._set(_tree_diameter=diameter)
        return diameter

    def term(self, a, b):
        return self._tree_dist[np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)]

    def term_into(self, a, b, out):
        out[...] = self.term(a, b)
        return out

    @property
    def threshold_unit(self):
        return "tree steps"

    def threshold_pairs(self, theta):
        """Leaves at most theta tree steps apart (2 = siblings under one parent)."""
        steps = self._tree_dist * self.tree_diameter
        mask = (steps > 0) & (steps <= theta + 1e-9)
        i0, i1 = np.nonzero(np.triu(mask, 1))
        return i0.astype(np.intp), i1.astype(np.intp)

    def _domain_dict(self):
        return {"tree": self.tree}


def _tree_metric(tree: dict[str, Any], name: str, normalized: bool = True) -> tuple[list[str], np.ndarray]:
    """Leaves and tree-path distances depth(u)+depth(v)-2 depth(lca) (App. D).

    Each leaf's path of node ids from the root is recorded while the nested tree is read; the
    lowest common ancestor's depth is the length of two paths' common prefix, one depth level at
    a time over all leaf pairs (numpy; no graph library, issue 23).  Returns (leaves, (L, L)
    float64 matrix), divided by the diameter over leaves when ``normalized``.
    """
    leaves: list[str] = []
    paths: list[tuple[int, ...]] = []  # node ids from the root (excluded) down to the leaf
    seen: set[tuple[str, str]] = set()
    next_id = iter(range(1, 1 << 62))

    def add(path: tuple[int, ...], node: Any) -> None:
        if isinstance(node, dict):
            for k, sub in node.items():
                key = ("group", str(k))
                if key in seen:
                    raise SchemaError(f"attribute '{name}': group '{k}' appears twice in the tree")
                seen.add(key)
                add((*path, next(next_id)), sub)
        elif isinstance(node, (list, tuple)):
            for leaf in node:
                if isinstance(leaf, (dict, list, tuple)):
                    add(path, leaf)
                    continue
                key = ("leaf", _fmt(leaf))
                if key in seen:
                    raise SchemaError(f"attribute '{name}': value '{leaf}' appears twice in the tree")
                seen.add(key)
                leaves.append(_fmt(leaf))
                paths.append((*path, next(next_id)))
        else:
            raise SchemaError(f"attribute '{name}': tree nodes must be objects or lists of values")

    add((), tree)
    if len(leaves) < 1:
        raise SchemaError(f"attribute '{name}': the tree has no leaf values")
    depth = np.array([len(q) for q in paths], dtype=np.int64)
    ids = np.zeros((len(paths), int(depth.max())), dtype=np.int64)  # 0 pads below a leaf: no node has id 0
    for i, q in enumerate(paths):
        ids[i, :len(q)] = q
    common = np.zeros((len(paths), len(paths)), dtype=np.int64)  # depth of the lowest common ancestor
    same = np.ones((len(paths), len(paths)), dtype=bool)
    for level in ids.T:
        same &= (level[:, None] == level[None, :]) & (level > 0)[:, None]
        common += same
    dist = (depth[:, None] + depth[None, :] - 2 * common).astype(np.float64)
    if normalized and dist.max() > 0:
        dist = dist / dist.max()
    return leaves, dist
