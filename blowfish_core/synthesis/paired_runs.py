"""What the reports read of a paired comparison: the :class:`PairedRuns` protocol (issue 22: split
off :mod:`blowfish_core.synthesis.report`, which re-exports it, so the report modules share it)."""

from __future__ import annotations

from typing import Any, Protocol

from .spec import RunRequest


class PairedRuns(Protocol):
    """What the reports read of a paired comparison: :class:`blowfish_core.synthesis.experiment.PairedResult`
    (not imported here: experiment builds its reports with this module, issue 22)."""

    # read-only members (the result is a frozen dataclass)
    @property
    def request(self) -> RunRequest: ...

    @property
    def runs(self) -> tuple[Any, ...]: ...

    @property
    def metric_name(self) -> str: ...

    @property
    def n_private(self) -> int: ...

    @property
    def n_unique(self) -> int: ...

    @property
    def privacy(self) -> dict[str, Any]: ...

    @property
    def seconds_total(self) -> float: ...

    @property
    def metric_note(self) -> str: ...

    def run(self, method: str, seed: int | None = None) -> Any: ...

    @property
    def summary(self) -> dict[str, Any]: ...

    @property
    def public_report(self) -> dict[str, Any]: ...

    @property
    def eval_report(self) -> dict[str, Any]: ...
