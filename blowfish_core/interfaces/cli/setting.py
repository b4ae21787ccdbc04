"""The setting of a run from its flags -- schema, policy, preset and the synthesis schedule --
and the checks ``synth`` and ``pilot`` share: options the run would ignore are refused by name."""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from ...base.errors import BlowfishError
from ...base.input_checks import check_integer_bounds
from ...io.data import read_text_file
from ...io.presets import get_preset
from ...algorithm.config import SynthConfig
from ...algorithm.methods import Method, get_method
from ...model.policy import Policy
from ...model.schema import Schema
from ...synthesis.parsing import apply_protect, parse_population
from .parser import IN_MEMORY_MB
from .reading import _list, read_data


#: (flag, args attribute, default) of the flags only Algorithm 1's loop reads (not --release).
_LOOP_FLAGS = (("--rounds", "rounds", 8), ("--population", "population", None), ("--threshold-h", "threshold_h", 0.0),
               ("--schedule", "schedule", "hybrid"), ("--selection", "selection", None), ("--children", "children", None),
               ("--release-mode", "release_mode", None), ("--rank-by", "rank_by", None),
               ("--mutation-index", "mutation_index", None))


def check_schedule_flags(args: argparse.Namespace, cfg: SynthConfig,
                         methods: "Sequence[Method | str] | None" = None) -> None:
    """Refuse schedule flags the run would ignore (never silently).

    Any of them with only reference methods (MST, AIM do not run Algorithm 1), --children with
    sample selection (children are made in rank rounds only), --rank-by when nothing is ranked
    (sample selection and a sample release).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed schedule flags (add_schedule_args).
    cfg : SynthConfig
        The run's schedule (config_from_args).
    methods : sequence of Method or str, optional
        The chosen methods, Method objects (synth resolved them once) or names
        (None: not checked for reference methods, the pilot).

    Raises
    ------
    BlowfishError
        Naming the flags and the fix.
    """
    # methods: the run's methods, Method objects (synth resolved them once) or names; None for the pilot
    meths = [m if isinstance(m, Method) else get_method(m) for m in methods or ()]
    if meths and all(m.is_reference for m in meths):
        given = [f for f, attr, default in _LOOP_FLAGS if getattr(args, attr, default) != default]
        if given:
            what = "Algorithm 1's schedule flags" if len(given) > 1 else "an Algorithm 1 schedule flag"
            raise BlowfishError(f"{', '.join(given)}: {what}, but --method {','.join(m.name for m in meths)} "
                                f"runs no Algorithm 1 loop, so {'they' if len(given) > 1 else 'it'} would be "
                                f"ignored. Fix: drop {'them' if len(given) > 1 else 'it'}, or add an "
                                f"Algorithm 1 method (e.g. --method hard,{meths[0].name})")
    if cfg.selection == "sample" and getattr(args, "children", None) is not None:
        raise BlowfishError(f"--children {args.children}: children per kept parent are made in rank rounds only, "
                            "and --selection sample has none; it would be ignored. Fix: drop --children or use "
                            "--selection hybrid or rank")
    if cfg.selection == "sample" and cfg.release_mode == "sample" and getattr(args, "rank_by", None) is not None:
        raise BlowfishError(f"--rank-by {args.rank_by}: nothing is ranked with --selection sample and --release-mode "
                            "sample; it would be ignored. Fix: drop --rank-by, or use --selection hybrid or rank, or "
                            "--release-mode top")


def config_from_args(args: argparse.Namespace) -> SynthConfig:
    """SynthConfig from the add_schedule_args flags: --schedule, then the explicit flags on top.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed schedule flags.

    Returns
    -------
    SynthConfig
        The validated schedule.

    Raises
    ------
    BlowfishError
        Naming the field for a bad value (parse_population, SynthConfig.validate).
    """
    return SynthConfig.from_schedule(
        args.schedule, rounds=args.rounds, population=parse_population(args.population, args.rounds),
        release=args.release, threshold_h=args.threshold_h, selection=args.selection, children=args.children,
        release_mode=args.release_mode, rank_by=args.rank_by, mutation_index=args.mutation_index).validate()


def check_in_memory_mb(mb: float) -> float:
    """--in-memory-mb: a finite number >= 0.

    Parameters
    ----------
    mb : float
        The flag's value, in MB.

    Returns
    -------
    float
        ``mb``, checked.

    Raises
    ------
    BlowfishError
        Naming the flag, for a value that is not finite or is < 0.
    """
    if not math.isfinite(mb) or mb < 0:
        raise BlowfishError(f"--in-memory-mb must be a finite number >= 0 (got {mb:g}). Fix: e.g. --in-memory-mb 100")
    return mb


def _check_columns(args, schema: Schema) -> None:
    """--columns with a schema from --schema or a preset: the schema decides what is modelled, so
    unknown columns are refused by name, and any other set would be ignored (BlowfishError)."""
    cols = _list(getattr(args, "columns", None))
    if cols is None:
        return
    unknown = [c for c in cols if c not in schema.names]
    src = "--schema" if args.schema else f"preset {args.preset}"
    if unknown:
        raise BlowfishError(f"--columns: no column {', '.join(repr(c) for c in unknown)} in the schema ({src}); "
                            f"its columns are {', '.join(schema.names)}. Fix: name schema columns, or drop --columns")
    if sorted(cols) != sorted(schema.names):
        raise BlowfishError(f"--columns {','.join(cols)}: the schema ({src}) models exactly "
                            f"{','.join(schema.names)}, so --columns would be ignored. Fix: drop --columns, or edit "
                            "the schema to model those columns")


def resolve_setting(args) -> tuple[Schema, Policy, Any]:
    """Schema, policy and preset (or None) from --preset/--schema/--policy/--protect.

    Without --preset and --schema, a data-derived schema is inferred from --data.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed setting flags (add_policy_args; --data, --columns).

    Returns
    -------
    tuple of (Schema, Policy, Preset or None)
        The schema, the policy (checked against it) and the preset.

    Raises
    ------
    BlowfishError
        When no setting is given, or --columns does not match the schema; SchemaError / PolicyError
        for bad files or a policy the schema does not fit; DataError from the intake step.
    """
    preset = get_preset(args.preset) if args.preset else None
    if args.schema:
        schema = Schema.from_json(read_text_file(args.schema, "schema"))
    elif preset is not None:
        schema = preset.schema
    if args.schema or preset is not None:
        _check_columns(args, schema)
    elif getattr(args, "data", None):
        schema = read_data(args, _list(getattr(args, "columns", None)),
                           getattr(args, "release", None)).schema()
    else:
        raise BlowfishError("give --preset NAME, or --schema JSON (or --data CSV to infer a data-derived schema)")
    if args.policy:
        policy = Policy.from_json(read_text_file(args.policy, "policy"))
    elif preset is not None and not args.schema:
        policy = preset.default_policy()
    else:
        policy = Policy()
    if args.protect:
        _check_protect_columns(args, schema, preset)
        policy = apply_protect(policy, args.protect, preset if (preset is not None and not args.schema) else None)
    if args.participation:
        policy = dataclasses.replace(policy, participation=True)
    policy.validate(schema)
    check_integer_bounds(schema)
    return schema, policy, preset


def _check_protect_columns(args, schema: Schema, preset) -> None:
    """Every --protect ATTR is a modelled column, checked before its SPEC (issue 27: a bare ``--protect
    salary`` for a column the table lacks was refused for its SPEC syntax).  A preset's own check
    (Preset.policy_with) names its attributes.

    Raises
    ------
    BlowfishError
        Naming the column and the table's (or the schema's) columns.
    """
    if preset is not None and not args.schema:
        return
    res = getattr(args, "_intake", None)  # a data-derived schema: the table's columns are known
    for item in args.protect:
        attr = str(item).split("=", 1)[0].strip()
        if attr in schema.names:
            continue
        if res is None:
            raise BlowfishError(f"--protect {item}: the schema has no attribute '{attr}'. Its attributes: "
                                f"{', '.join(schema.names)}. Fix: protect one of them")
        guess = next((g for g in res.columns if g.name == attr), None)
        if guess is None:
            raise BlowfishError(f"--protect {item}: the table has no column '{attr}'. Its columns: "
                                f"{', '.join(g.name for g in res.columns)}. Fix: protect one of them")
        raise BlowfishError(f"--protect {item}: column '{attr}' is in the table but not modelled ({guess.reason}). "
                            f"Modelled: {', '.join(schema.names)}. Fix: protect a modelled column, or model it "
                            "(--columns)")


def _check_ignored_options(args, preset) -> None:
    """Options that would be silently ignored are errors naming the option."""
    generated = preset is not None and preset.generator is not None and not args.data and not args.schema
    split = preset is not None and preset.generator is None and not args.schema
    if not generated:
        for flag, v in (("--n", args.n), ("--data-seed", args.data_seed)):
            if v is not None:
                raise BlowfishError(f"{flag} only applies to a generated XOR preset table (--preset xor3 without "
                                    "--data/--schema); it would be ignored here. Fix: drop it")
    if not split and args.split_seed is not None:
        raise BlowfishError("--split-seed only applies to the Adult/Bank presets (private/pilot split); "
                            "it would be ignored here. Fix: drop it")
    if getattr(args, "command", None) != "synth":
        return  # the pilot's --sep (default ',') also reads --public
    if not args.data:
        given = [flag for flag, v in (("--sep", args.sep), ("--no-header", args.no_header or None),
                                      ("--names", args.names), ("--drop-missing", args.drop_missing),
                                      ("--missing-level", args.missing_level or None), ("--columns", args.columns))
                 if v is not None]
        if given:
            many = len(given) > 1
            raise BlowfishError(f"{', '.join(given)} {'read' if many else 'reads'} --data, but this run generates "
                                f"its table (no --data), so {'they' if many else 'it'} would be ignored. Fix: drop "
                                f"{'them' if many else 'it'}, or give --data CSV")
    check_in_memory_mb(args.in_memory_mb)
    if args.in_memory_mb != IN_MEMORY_MB and not args.schema and not (preset is not None and args.data):
        raise BlowfishError("--in-memory-mb applies to --schema and --preset runs (they read --data whole or in "
                            "chunks; " + ("this run derives its schema from --data, so it reads it whole); it "
                                          "would be ignored here. Fix: drop it, or pass --schema with the table's "
                                          "schema file" if args.data else "this run generates its table); it would "
                                          "be ignored here. Fix: drop it, or give --data CSV"))
    if args.engine == "dask" and args.scheduler is not None:
        from ...algorithm.dask_engine import check_scheduler

        check_scheduler(args.scheduler)
