"""The settings of a runnable export: :class:`RunSettings` (everything a run needs, as the Studio
holds it, checked by the CLI's own parsers and RunSpec.build), and the settings of a spec.RunRequest
or of a bundle's schema.json / policy.json.

Issue 16 "Runnable export".  Issue 22: split off :mod:`blowfish_core.interfaces.run_bundle`, which
re-exports every name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import BlowfishError
from ..algorithm.config import SynthConfig
from ..synthesis.spec import RunSpec
from ..privacy.mechanisms import DEFAULT_MECHANISM, get_mechanism
from ..synthesis.parsing import parse_budget, parse_methods, require_tau, run_conversion
from ..algorithm.methods import get_method
from ..model.policy import Policy
from ..io.intake import check_sep
from ..io.presets import get_preset
from ..model.schema import Schema

#: SynthConfig fields the CLI has no flag for: a bundle refuses non-default values of them.
_NOT_ON_CLI = ("switch_round", "mutation_start", "mutation_end", "max_edges", "budget_weights")


@dataclass(frozen=True)
class RunSettings:
    """Everything a run needs, as the Studio holds it.

    Dataset source: ``preset`` ('xor3', 'adult', 'bank') and/or ``data_path`` (CSV of the
    private table; for Adult/Bank the preset's private split of it is used); XOR presets without
    ``data_path`` generate ``n`` rows (default 12,000) from ``data_seed``; ``split_seed`` picks
    the Adult/Bank split.  schema, policy: public domain and policy.  methods: method-table
    names; tau; budget: ``rho`` or ``epsilon`` (+ ``delta``), ``mechanism``, ``conversion``;
    config: the schedule (SynthConfig); seeds: paired seeds.  out / report / out_dir: output
    paths (relative paths are relative to the bundle folder).

    Reading options of ``data_path`` (issue 24; the CLI's flags, read by
    blowfish_core.io.intake.read_checked in run.sh, run.py and run.ipynb alike): ``sep`` (None:
    detected), ``no_header`` (False: detected), ``names`` (of a headerless file), ``columns``
    (the modelled columns: the schema's), ``drop_missing`` (columns whose rows with a missing cell
    are dropped; True: all), ``missing_level`` (column -> its declared missing level).

    ``report`` (the CLI's --report: errors and timings computed on the private table) is written
    by run.sh only, and only outside the bundle folder (a relative path must start with ``..``):
    the bundle folder holds nothing computed on the private table but the seeded study release
    (docs/DECISIONS.md, issue 24).  Default: no report.
    """

    schema: Schema
    policy: Policy
    methods: list[str]
    seeds: list[int]
    tau: float | None = None
    rho: float | None = None
    epsilon: float | None = None
    delta: float | None = None
    mechanism: str = DEFAULT_MECHANISM
    conversion: str | None = None
    config: SynthConfig = field(default_factory=SynthConfig)
    preset: str | None = None
    data_path: str | None = None
    sep: str | None = None
    no_header: bool = False
    names: list[str] | None = None
    columns: list[str] | None = None
    drop_missing: list[str] | bool = field(default_factory=list)
    missing_level: dict[str, str] = field(default_factory=dict)
    n: int | None = None
    data_seed: int | None = None
    split_seed: int | None = None
    out: str = "release.csv"
    report: str | None = None
    out_dir: str | None = None
    allow_empty_policy: bool = False

    @property
    def budget_conversion(self) -> str | None:
        """The epsilon -> rho conversion to pass on: None when the budget is rho or pure epsilon (nothing to
        convert); else ``conversion``, or when None the methods' (parsing.run_conversion), so every method of
        the bundle's run.py converts the chosen epsilon as the CLI run did."""
        if self.epsilon is None or get_mechanism(self.mechanism).budget_name != "rho":
            return None
        return self.conversion or run_conversion([get_method(m) for m in parse_methods(self.methods, "methods")])

    def validate(self) -> RunSettings:
        """Check every setting; BlowfishError naming the field.

        The settings' parsers (methods, budget, tau: the same as the CLI's) give the run's
        values, and the scalar checks (seeds, budget split, tau floor, policy, integer bounds)
        are RunSpec.build's (experiment.validate_request, with no table: a bundle holds none).
        Then the bundle's own checks: schedule settings without a CLI flag, the dataset source.
        """
        methods = parse_methods(self.methods, "methods")
        if not methods:
            raise BlowfishError("methods: choose at least one method")
        budget = parse_budget(self.rho, self.epsilon, self.delta, self.mechanism, self.budget_conversion, flags=False,
                              methods=[get_method(m) for m in methods])
        require_tau(methods, self.tau, "tau")
        RunSpec.build(self.schema, self.policy, None, methods, budget.rho, budget.delta, self.tau, list(self.seeds or []),
                      self.config, allow_empty_policy=self.allow_empty_policy, mechanism=budget.mechanism,
                      epsilon=budget.epsilon)
        default = SynthConfig()
        for name in _NOT_ON_CLI:
            if getattr(self.config, name) != getattr(default, name):
                raise BlowfishError(f"schedule setting '{name}' = {getattr(self.config, name)!r} has no CLI flag, so "
                                    "run.sh could not repeat it. Fix: keep its default to export a bundle")
        self._check_reading()
        if not self.out:
            raise BlowfishError("out: give a file name for the release CSV")
        if self.report and not _outside_bundle(self.report):
            raise BlowfishError(f"report: {self.report!r} would write figures computed on the private table (errors, "
                                "timings) into the bundle folder, which is shared with the bundle. Fix: give a path "
                                "outside it (e.g. '../internal/report.json' or an absolute path), or none")
        return self

    @property
    def read_options(self) -> dict[str, Any]:
        """The reading options as blowfish_core.io.intake.read_checked's keyword arguments (run.py's READING)."""
        return {"sep": self.sep, "no_header": bool(self.no_header), "names": None if self.names is None else
                list(self.names), "drop_missing": self.drop_missing if self.drop_missing is True else
                list(self.drop_missing or []), "missing_level": dict(self.missing_level or {})}

    def _check_reading(self) -> None:
        """The reading options: only with a CSV (data_path), each one the CLI can carry (BlowfishError naming it)."""
        given = [k for k, v in (("sep", self.sep), ("no_header", self.no_header or None), ("names", self.names),
                                ("columns", self.columns), ("drop_missing", self.drop_missing or None),
                                ("missing_level", self.missing_level or None)) if v is not None]
        if self._source() == "generated":
            if given:
                raise BlowfishError(f"{', '.join(given)}: reading options apply to a CSV (data_path); a generated "
                                    "table has none. Fix: drop them, or give data_path")
            return
        check_sep(self.sep)
        lists = [("names", self.names), ("columns", self.columns),
                 ("drop_missing", None if self.drop_missing is True else self.drop_missing)]
        for key, cols in lists:
            for c in cols or []:
                if not str(c).strip() or "," in str(c):
                    raise BlowfishError(f"{key}: column name {c!r} cannot be given on the command line (a comma "
                                        "list). Fix: rename the column")
        if self.drop_missing is not True and any(str(c).strip().lower() == "all" for c in self.drop_missing or []):
            raise BlowfishError("drop_missing: a column named 'all' reads as every column on the command line. "
                                "Fix: give drop_missing=True for every column, or rename the column")
        for c in self.missing_level or {}:
            if not str(c).strip() or "=" in str(c):
                raise BlowfishError(f"missing_level: column name {c!r} cannot be given as COL=TEXT. Fix: rename it")
        if self.columns is not None and sorted(self.columns) != sorted(self.schema.names):
            raise BlowfishError(f"columns: the schema models exactly {', '.join(self.schema.names)}, so columns "
                                f"{', '.join(self.columns)} would be ignored. Fix: give the schema's columns, or none")

    def _source(self) -> str:
        """'generated' (XOR rows), 'preset-split' (Adult/Bank CSV, the preset's private split) or 'csv'."""
        if self.preset is None:
            if not self.data_path:
                raise BlowfishError("dataset source: give a preset or the path of the private CSV (data_path)")
            return "csv"
        p = get_preset(self.preset)
        if self.schema.to_dict() != p.schema.to_dict():
            if p.generator is not None and not self.data_path:
                raise BlowfishError(f"the schema differs from preset '{p.name}', and a generated table needs the "
                                    "preset's schema. Fix: use the preset schema or give data_path")
            if not self.data_path:
                raise BlowfishError("dataset source: a custom schema needs the path of the private CSV (data_path)")
            return "csv"
        if p.generator is not None and not self.data_path:
            return "generated"
        if p.generator is None and not self.data_path:
            raise BlowfishError(f"preset '{p.name}' needs the path of its table (data_path), e.g. "
                                f"../shared/data/{p.csv_name}")
        return "preset-split" if p.generator is None else "csv"



def _outside_bundle(path: str) -> bool:
    """A path that does not resolve into the bundle folder: absolute, or relative and leaving it (``..``)."""
    norm = os.path.normpath(path)
    return os.path.isabs(norm) or norm == os.pardir or norm.startswith(os.pardir + os.sep)


def settings_from_request(req: Any, **source: Any) -> RunSettings:
    """RunSettings from a spec.RunRequest (what the Runner executes) plus the dataset source and output paths.

    The budget is exported as the request's rho (Gaussian; exact, so the release is identical) or
    epsilon (Laplace).

    Parameters
    ----------
    req : RunRequest
        A seeded run spec.
    **source
        The dataset source, its reading options and the output paths (``preset``, ``data_path``,
        ``n``, ``data_seed``, ``split_seed``, ``sep``, ``no_header``, ``names``, ``columns``,
        ``drop_missing``, ``missing_level``, ``out``, ``report``, ``out_dir``), which a RunRequest
        does not carry.

    Returns
    -------
    RunSettings
        The settings (not validated).

    Raises
    ------
    BlowfishError
        For an unseeded release (issue 11: it records no seed, so it cannot be rerun).
    """
    if req.seeds is None:  # issue 11: an unseeded release records no seed, so it cannot be rerun
        raise BlowfishError("a runnable export reruns a seeded study run; this run is an unseeded release "
                            "(OS entropy) and cannot be reproduced. Fix: give seeds to export the run")
    gaussian = get_mechanism(req.mechanism).budget_name == "rho"
    return RunSettings(req.schema, req.policy, list(req.methods), [int(s) for s in req.seeds], tau=req.tau,
                       rho=req.rho if gaussian else None, epsilon=None if gaussian else req.epsilon,
                       delta=req.delta if gaussian else None, mechanism=get_mechanism(req.mechanism).name,
                       config=req.config, allow_empty_policy=req.allow_empty_policy, **source)


def settings_from_files(schema_json: str, policy_json: str, **kwargs: Any) -> RunSettings:
    """RunSettings from a bundle's schema.json and policy.json texts (round trip) plus the other settings.

    Parameters
    ----------
    schema_json, policy_json : str
        The texts of schema.json and policy.json.
    **kwargs
        The other RunSettings fields (methods, seeds, budget, ...).

    Returns
    -------
    RunSettings
        The settings (not validated).

    Raises
    ------
    SchemaError
        For a schema text that is not a valid schema; PolicyError for the policy text.
    """
    return RunSettings(Schema.from_json(schema_json), Policy.from_json(policy_json), **kwargs)
