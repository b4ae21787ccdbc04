"""Compatibility module: paired runs moved to :mod:`blowfish_core.experiment` (typed
PairedResult) and the report to :mod:`blowfish_core.report`.  Old imports keep working."""

from .experiment import (  # noqa: F401
    EMPTY_POLICY_MESSAGE, MAX_SEEDS, NO_PROTECTION_WARNING, POLICY_METHODS, PairedResult, RunOutcome,
    RunRequest, RunResult, policy_is_empty, run_paired, validate_request,
)
from .report import _interval, build_report, ledger_text, policy_summary, run_warnings, summarize  # noqa: F401
