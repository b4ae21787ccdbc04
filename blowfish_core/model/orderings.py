"""Known orderings of text levels: THE one table (issue 24 item 10).

A categorical column whose levels are all month names ("jan" .. "dec", or "January" .. "December",
any case) has a natural order that sorting the text loses ("apr, aug, dec, feb, ..."): schema
inference (:func:`blowfish_core.model.schema.infer_schema`) and the CSV intake
(:mod:`blowfish_core.io.intake.columns`) read this table and make such a column *ordinal* with its
levels in calendar order, and say so in the guess's reason.  Weekday names likewise (Monday first,
ISO 8601).  A new ordering is one row of :data:`KNOWN_ORDERINGS`; nothing else compares level names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class KnownOrdering:
    """One natural order of text levels.

    name: what the levels are ('month names'); order: the order in words ('calendar order');
    spellings: per position, the lower-case spellings that mean it (('jan', 'january'), ...).
    """

    name: str
    order: str
    spellings: tuple[tuple[str, ...], ...]
    position: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "position", {s: i for i, group in enumerate(self.spellings) for s in group})


#: the known orderings, tried in this order (a level set matches at most one: no spelling is shared).
KNOWN_ORDERINGS: tuple[KnownOrdering, ...] = (
    KnownOrdering("month names", "calendar order", (
        ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
        ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"),
        ("nov", "november"), ("dec", "december"))),
    KnownOrdering("weekday names", "week order, Monday first", (
        ("mon", "monday"), ("tue", "tues", "tuesday"), ("wed", "wednesday"), ("thu", "thur", "thurs", "thursday"),
        ("fri", "friday"), ("sat", "saturday"), ("sun", "sunday"))),
)
#: fewer levels than this stay as they are (two values are a binary attribute).
MIN_ORDERED_LEVELS = 3


@dataclass(frozen=True)
class OrderedLevels:
    """What :func:`known_order` found: the ordering and the levels in its order (original spelling)."""

    ordering: KnownOrdering
    levels: tuple[str, ...]

    @property
    def reason(self) -> str:
        """'month names: ordinal in calendar order (jan, feb, ..., dec)', for a guess's reason."""
        lv = self.levels
        shown = ", ".join(lv) if len(lv) <= 4 else f"{lv[0]}, {lv[1]}, ..., {lv[-1]}"
        return f"{self.ordering.name}: ordinal in {self.ordering.order} ({shown})"


def known_order(levels: Iterable[str]) -> OrderedLevels | None:
    """The levels in their natural order when they are all names of one known ordering.

    Parameters
    ----------
    levels : iterable of str
        The distinct values of a text column (any order; spelling and case kept; surrounding spaces
        ignored when matching).

    Returns
    -------
    OrderedLevels or None
        The first ordering of :data:`KNOWN_ORDERINGS` every level names, each position at most once
        (``'Jan'`` beside ``'january'`` is two spellings of one month: None), with the levels sorted by
        it; None when no ordering fits or there are fewer than MIN_ORDERED_LEVELS levels.
    """
    vals = [str(v) for v in levels]
    if len(vals) < MIN_ORDERED_LEVELS:
        return None
    for ordering in KNOWN_ORDERINGS:
        pos = [ordering.position.get(v.strip().lower(), -1) for v in vals]
        if min(pos) < 0 or len(set(pos)) != len(pos):
            continue
        return OrderedLevels(ordering, tuple(v for _, v in sorted(zip(pos, vals), key=lambda t: t[0])))
    return None
