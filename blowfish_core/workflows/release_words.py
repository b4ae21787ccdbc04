"""The Release step's words (issue 24, "Release what won"): how many rows the release has against the
private table, which rows count, and the budget of what is released in one label.

Pure functions; no streamlit, no private rows (only their count).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

from ..base.errors import BlowfishError
from .budget import _label
from .formatting import fmt_sig


def _count(v: Any, name: str, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or int(v) < low:
        raise BlowfishError(f"{name} must be a whole number >= {low} (got {v!r})")
    return int(v)


def release_rows_text(release_rows: int, private_rows: int, held_out_rows: int = 0, held_out_from: str = "") -> str:
    """How many rows the release has against the private table's row count, and which rows count.

    Parameters
    ----------
    release_rows : int
        Rows of the release (the release size), >= 1.
    private_rows : int
        Rows of the private table the run reads, >= 1.
    held_out_rows : int, default 0
        Rows of the same file held out of the private table as public data (a preset's pilot split).
    held_out_from : str, optional
        Where they were held out from (e.g. the file's name).

    Returns
    -------
    str
        Two or three sentences ("The release has 512 synthetic rows against 45,211 rows of the
        private table (1.1% as many). ...").

    Raises
    ------
    BlowfishError
        For counts that are not whole numbers in range.
    """
    n = _count(release_rows, "release_rows", 1)
    N = _count(private_rows, "private_rows", 1)
    h = _count(held_out_rows, "held_out_rows", 0)
    ratio = n / N
    share = (f"{fmt_sig(100 * ratio, 2)}% as many" if ratio < 1 else "as many" if n == N
             else f"{fmt_sig(ratio, 2)}× as many")
    rows = "row" if n == 1 else "rows"
    text = (f"The release has {n:,} synthetic {rows} against {N:,} rows of the private table ({share}). "
            f"Only the {N:,} private rows count: the release is drawn from their noisy counts, and the guarantee "
            "protects each of them. The synthetic rows are new records, not copies of private rows; their number "
            "is post-processing and does not change the privacy budget.")
    if h:
        src = f" of {held_out_from}" if held_out_from else ""
        text += (f" The {h:,} rows{src} held out as public pilot data do not count: they are not in the private "
                 "table, and they get no protection wherever they are used.")
    return text


def total_label(total: Mapping[str, Any]) -> str:
    """The budget of a total in the Studio's one label ('ε = 0.1 at δ = 10⁻⁵', 'ε = 1 (pure DP)').

    Parameters
    ----------
    total : mapping
        A total (gate.compose_total / run_bundle.planned_total): 'epsilon' and 'delta'.

    Returns
    -------
    str
        The label (workflows.budget's format).

    Raises
    ------
    KeyError
        Without 'epsilon'.
    """
    return _label(float(total["epsilon"]), float(total.get("delta") or 0.0))
