"""CSV intake: one engine step that turns a user's file into a checked table (issue 11).

``intake_csv(source, ...)`` reads a CSV (path, bytes or binary file-like object; any
extension: ``.csv``, ``.tsv``, ``.txt``, ``.data``), and returns a frozen
:class:`IntakeResult` holding

* the table (``frame``): every cell trimmed of ASCII *and* Unicode spaces (non-breaking,
  thin, ideographic, zero-width), text kept as text (``02165`` stays ``"02165"``,
  ``TRUE`` stays ``"TRUE"``), numbers as int64/float64, missing cells as NaN;
* the separator it used (sniffed among ``,`` ``;`` tab ``|`` and ``", "``, or given);
* the header decision and, for a file whose first row looks like data, the offered
  column names (a known preset's UCI names when the shape matches Adult or Bank);
* one :class:`ColumnGuess` per column (kind, modelled or not, and why);
* notes, warnings, and every :class:`Problem` found in one pass.

The user's file is only read, never written.  Nothing is coerced silently: trimmed
cells, dropped rows and unmodelled columns are stated in the notes; anything that
would make the run fail is a Problem naming the column, the count, up to five row
numbers and the fix.  ``IntakeResult.raise_for_problems()`` turns them into one
DataError for callers that must stop (the CLI).

**Row numbers** are the rows a spreadsheet shows when it opens the file: row 1 is the
first line of the file -- the header when there is one -- so with a header the first
data record is row 2, and without one it is row 1.  Blank lines count (a spreadsheet
shows them as empty rows); a quoted field spanning lines is one row (one record).

Structured wording (issue 21): a fix naming an intake option is a
:class:`~blowfish_core.base.fields.Text` (phrases ``header_names``, ``drop_rows``, ``level_arg``,
``columns_arg``, ... of ``fields.PHRASES``); its ``str`` is the API wording (``no_header=True
and names=[...]``, ``drop_missing=[...]``, ``missing_level={...}``, ``columns=[...]``) and
``fields.render(msg, 'cli' | 'app')`` the command line's flags or the app's controls.

Layout (issue 22): the package re-exports every name callers use; the steps live in
:mod:`.reading` (bytes, separator, records), :mod:`.header` (header decision, names, field
counts), :mod:`.columns` (missing cells, one guess per column), :mod:`.problems` (Problem and
the messages shared with the chunked reader), :mod:`.result` (ColumnGuess, IntakeResult),
:mod:`.domain_check` (cells outside a declared domain), :mod:`.pipeline` (``intake_csv``) and
:mod:`.checked` (``read_checked``: the read of a run's ``--data``, shared by the CLI and run bundles;
``check_table``: the same step unraised, the app's Data step).
"""

from __future__ import annotations

from .checked import check_table, read_checked  # noqa: F401  (re-exported)
from .columns import (  # noqa: F401  (re-exported)
    BOOLEAN_PAIRS, MAX_CATEGORIES, MIN_IDENTIFIER_ROWS, MISSING_TOKENS, _boolean_levels, _date_mask, _is_number,
    apply_missing, check_missing_options, guess_column, missing_masks,
)
from .domain_check import domain_problems  # noqa: F401
from .header import (  # noqa: F401
    Header, _header_looks_like_data, _preset_layout, check_names, decide_header, fields_message, rows_with_k_fields,
    unique_names,
)
from .pipeline import MAX_MODELLED_COLUMNS, choose_modelled, final_guesses, intake_csv  # noqa: F401
from .problems import (  # noqa: F401
    MAX_ROWS_LISTED, MIN_ROWS, MISSING_FIX_KINDS, MOSTLY_EMPTY, MissingFix, Problem, _rows_text, dropped_note,
    empty_column_fix, missing_fix, missing_fixes, missing_level_numeric,
    no_rows_left, not_whole_message, rows_text, size_warnings,
)
from .reading import (  # noqa: F401
    SEP_ALIASES, SEP_NAMES, SEPARATORS, Records, _check_quotes, _parse, _trim, check_sep, read_records, separator_hint,
    sniff_separator,
)
from .result import GUESS_KINDS, ColumnGuess, GuessKind, IntakeResult  # noqa: F401
