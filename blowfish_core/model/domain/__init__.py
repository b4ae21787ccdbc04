"""Attribute types: one frozen, hashable class per type of public domain.

DESIGN §3 "Schema and public domain" and "Gower distance"; paper §2.3, §6.1, App. D.

Each class owns everything that depends on the type of an attribute, so the rest of
the engine never branches on a type name:

==============  ===========================  ===============  =====================
type            encoding (float64 code)      Gower term d_i   mutation (ResampleMutate)
==============  ===========================  ===============  =====================
numeric         (x - lo) / (hi - lo)         |a - b|          uniform step +-rate (x width),
                                                              rounded for integers, clipped
ordinal         rank / (L - 1)               |a - b|          the same on the rank grid
categorical     level index 0..L-1           [a != b]         redrawn uniformly w.p. rate
binary          level index 0..1             [a != b]         as categorical
hierarchical    leaf index 0..L-1            tree path / diam as categorical
==============  ===========================  ===============  =====================

plus: ``index`` (integer domain index for lookup tables), ``bin_codes`` / ``cell_labels``
(cells of PWErr and the marginal plots), ``sample`` (uniform draws from the public
domain), ``threshold_pairs`` / ``threshold_reach`` (the threshold policy graph in the
attribute's own units), ``to_dict`` (the JSON schema format of docs/FORMATS.md).

Construction.  ``Attribute(name, kind, ...)`` returns the subclass registered for
``kind`` (an unknown kind gives a plain :class:`Attribute`, rejected by
:meth:`Attribute.validate`).  Declarations are checked by :meth:`validate`, which
:class:`blowfish_core.model.schema.Schema` calls: it normalizes the bounds, fills the leaves
of a tree and builds lookup tables, once; nothing else ever changes an attribute.
``levels`` is an immutable tuple that compares equal to the same list.

Random streams (paired across methods): :meth:`Attribute.mutate` receives the draws
made for *every* attribute (steps, redraw flags, picks) and :meth:`Attribute.sample`
makes exactly one draw of ``size`` values, so the order of generator calls does not
depend on which types a schema holds beyond what it always did.

Layout (issue 22): ``base`` (registry, :class:`Attribute`), ``values`` (helpers, ``FrozenList``),
``mixins`` (the line and level mixins), then one module per type -- ``numeric``, ``ordinal``,
``categorical``, ``hierarchical``, ``binary`` -- imported here in the order they register (the order
of ``KINDS``).
"""

from __future__ import annotations

from .base import (  # noqa: F401  (re-exported)
    ATTRIBUTE_TYPES, ENUMERATE_INTEGERS, MAX_FINITE_INTEGER_DOMAIN, Attribute, attribute_type,
)
from .values import FrozenList, _fmt, _num, _plain  # noqa: F401  (re-exported)
from .mixins import _Levels, _Line, _step_pairs  # noqa: F401  (re-exported)
from .numeric import NumericAttribute  # noqa: F401
from .ordinal import OrdinalAttribute  # noqa: F401
from .categorical import CategoricalAttribute  # noqa: F401
from .hierarchical import HierarchicalAttribute, _tree_metric  # noqa: F401
from .binary import BinaryAttribute  # noqa: F401

#: the attribute types, in the order error messages list them.
KINDS = tuple(ATTRIBUTE_TYPES)
#: the types whose domain is always enumerable.
FINITE_KINDS = tuple(k for k, c in ATTRIBUTE_TYPES.items() if not c.bounded)
