"""Reading the tables of a run: --data through the intake step (memoized on the arguments),
further tables (--public, the pilot's --data), a --schema run's private table of any size (in
memory, in chunks, or on Dask workers; issue 15), and the Dask client of one run."""

from __future__ import annotations

import math
import os
import sys
from typing import Any

from ...base.errors import BlowfishError, DataError
from ...base.fields import render
from ...io.intake import IntakeResult, check_sep, intake_csv, read_checked
from ...model.schema import Schema


def _sep(args) -> str | None:
    """--sep with the escapes people type ('\\t' -> tab); None = detect."""
    return check_sep(getattr(args, "sep", None))  # '' is an error, not ','


def _list(text: str | None) -> list[str] | None:
    return None if text is None else [c.strip() for c in str(text).split(",") if c.strip()]


def _missing_levels(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for it in items or []:
        if "=" not in it or not it.split("=", 1)[0].strip():
            raise BlowfishError(f"--missing-level expects COL=TEXT, e.g. --missing-level workclass=unknown (got {it!r})")
        c, v = it.split("=", 1)
        out[c.strip()] = v
    return out


#: the command line reads a file of any size (the 100 MB cap, data.DEFAULT_MAX_BYTES, is the app's
#: upload limit): a --preset run or a small --schema file is read whole, in memory (docs/DECISIONS.md).
NO_SIZE_CAP = sys.maxsize


def read_data(args, columns: list[str] | None = None, release_size: int | None = None,
              schema: Any = None) -> IntakeResult:
    """--data through the intake step (blowfish_core.io.intake.read_checked) with the intake flags.

    Memoized on ``args``; :func:`intake_lines` gives the separator, header, notes and warnings to
    print (after the checks, so an error stays one ``error:`` block on stderr).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags (--data and the intake flags; the pilot has only --sep of them).
    columns : list of str, optional
        The columns to model (default: intake's choice).
    release_size : int, optional
        The release size, for intake's size warnings.
    schema : Schema, optional
        A declared schema: its cells outside the public domain are problems too
        (intake.domain_problems, on the whole table before any split, with row numbers).

    Returns
    -------
    IntakeResult
        The checked table and the intake's decisions.

    Raises
    ------
    DataError
        Every problem in one error (raise_for_problems); BlowfishError for a bad --missing-level.
    """
    cached = getattr(args, "_intake", None)
    if cached is not None:
        return cached
    # the pilot has only --sep of the intake flags: the others read as unset there
    drop = getattr(args, "drop_missing", None)
    drop_arg: Any = True if drop is not None and drop.strip().lower() == "all" else (_list(drop) or ())
    names = _list(getattr(args, "names", None))
    from ...io.data import DEFAULT_MAX_BYTES

    size = os.path.getsize(args.data) if os.path.isfile(args.data) else 0
    if size > DEFAULT_MAX_BYTES and not getattr(args, "quiet", False):
        print(f"note: reading {args.data} whole, in memory ({size / 2**20:.0f} MB; expect RAM of about 25x the "
              "file size). synth reads a --preset or --schema file over --in-memory-mb in chunks", file=sys.stderr)
    res = read_checked(args.data, sep=_sep(args), no_header=bool(getattr(args, "no_header", False)), names=names,
                       columns=columns, drop_missing=drop_arg,
                       missing_level=_missing_levels(getattr(args, "missing_level", [])), release_size=release_size,
                       schema=schema, max_bytes=NO_SIZE_CAP)
    args._intake = res
    return res


def read_other(path: str, args, columns: list[str] | None = None):
    """A further table (--public, the pilot's --data) through the same intake step as --data.

    Without --data's header/missing-value flags.

    Parameters
    ----------
    path : str
        The CSV file.
    args : argparse.Namespace
        The parsed flags (--sep).
    columns : list of str, optional
        The columns to keep.

    Returns
    -------
    pandas.DataFrame
        The table, trimmed and typed by the intake step.

    Raises
    ------
    DataError
        Every problem in one error (raise_for_problems).
    """
    res = intake_csv(path, sep=_sep(args), columns=columns, max_bytes=NO_SIZE_CAP)
    res.raise_for_problems()
    return res.frame


def intake_lines(args) -> list[str]:
    """The intake's separator / header / notes / warnings lines of --data.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags, after read_data (or a chunked / Dask read) memoized its result on them.

    Returns
    -------
    list of str
        The lines to print ([] without --data).
    """
    res = getattr(args, "_intake", None)
    lines = list(getattr(args, "_read_lines", []))  # a chunked / Dask read's notes and warnings
    return lines if res is None else \
        [render("data: " + t if i == 0 else t, "cli") for i, t in enumerate(res.summary_lines())] + lines


class DaskClient:
    """The Dask client of one run (--engine dask): connected on first use (to --scheduler, or a local
    cluster of --workers), closed by :meth:`close` with the local cluster it started.  ``main`` owns
    one per run and closes it at the end, whatever happened."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        self.scheduler, self.workers = scheduler, workers
        self._client: Any = None

    def get(self) -> Any:
        """The dask.distributed Client (connected now if it is not yet)."""
        if self._client is None:
            from ...algorithm.dask_engine import connect

            self._client = connect(self.scheduler, self.workers)
        return self._client

    def close(self) -> None:
        """Close the client, and the cluster too when this run started it (no --scheduler, or --workers)."""
        client, self._client = self._client, None
        if client is None:
            return
        cluster = getattr(client, "cluster", None) if self.workers is not None or not self.scheduler else None
        client.close()
        if cluster is not None:
            cluster.close()


def _chunked(args) -> bool:
    """--data is read in chunks: --chunk-rows is given, or the file is over --in-memory-mb."""
    if not math.isfinite(args.in_memory_mb) or args.in_memory_mb < 0:
        raise BlowfishError(f"--in-memory-mb must be a number >= 0 (got {args.in_memory_mb})")
    if args.chunk_rows is not None and args.chunk_rows < 1:
        raise BlowfishError(f"--chunk-rows must be a whole number >= 1 (got {args.chunk_rows})")
    size = os.path.getsize(args.data) if os.path.isfile(args.data) else 0
    return args.chunk_rows is not None or size > args.in_memory_mb * 2**20


def _check_levels(args, schema: Schema) -> dict[str, str]:
    """--missing-level as a dict; one for a column the schema declares numeric is refused before
    anything runs."""
    from ...io.intake import missing_level_numeric

    levels = _missing_levels(args.missing_level)
    attrs = {a.name: a for a in schema.attributes}
    for c, v in levels.items():
        if c in attrs and attrs[c].bounded:  # a numeric type (declared capability)
            raise DataError(missing_level_numeric(c, v))
    return levels


def _chunk_sep(args) -> str:
    """The separator of a chunked read: --sep, or detected on the file's head (as the intake does)."""
    sep = _sep(args)
    if sep is None and os.path.isfile(args.data):
        from ...io.chunked import sniff_file_separator

        sep = sniff_file_separator(args.data)
        if not args.quiet:
            print(f"separator: {sep!r} (detected; set --sep to override)", file=sys.stderr)
    # sep None only for a path that is not a regular file (nothing to sniff): the readers' default
    return "," if sep is None else sep


def _chunk_flags(args, levels: dict[str, str]) -> dict[str, Any]:
    """The intake flags as the chunked readers' keyword arguments (and the progress line per chunk)."""
    def said(k, n):
        if not args.quiet:
            print(f"  read chunk {k}: {n:,} rows so far", file=sys.stderr)

    from ...io.chunked import DEFAULT_CHUNK_ROWS

    drop, names = args.drop_missing, _list(args.names)
    return dict(chunk_rows=args.chunk_rows or DEFAULT_CHUNK_ROWS, on_chunk=said,
                no_header=bool(args.no_header or names), names=names,
                drop_missing=True if drop is not None and drop.strip().lower() == "all" else (_list(drop) or ()),
                missing_level=levels)


def read_preset_split(args, preset, schema: Schema):
    """The private and pilot rows of an Adult/Bank preset's --data (or an XOR preset's generated table).

    A file up to --in-memory-mb goes through the intake step whole (:func:`read_data`), then
    ``presets.split_table``; a larger one, or any with --chunk-rows, through the chunked reader
    (``chunked_split.read_split``: the same checks as a --schema run's chunked read, the same
    rows as the whole-table split; issue 23).  Its notes and warnings are memoized on ``args``
    for :func:`intake_lines`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``synth`` flags.
    preset : Preset
        The preset.
    schema : Schema
        Its schema.

    Returns
    -------
    DataSplit
        The private and pilot rows.

    Raises
    ------
    BlowfishError
        For a bad --chunk-rows / --in-memory-mb / --missing-level; DataError for every problem of
        the file in one error.
    """
    from ...io.presets import load_preset_data

    seeds = dict(split_seed=args.split_seed or 0, n=args.n, data_seed=args.data_seed or 0)
    if not args.data:
        if args.chunk_rows is not None:
            raise BlowfishError("--chunk-rows reads --data in chunks, but this run generates its table (no "
                                "--data), so it would be ignored. Fix: drop it, or give --data CSV")
        return load_preset_data(preset, None, **seeds)
    if not _chunked(args):
        return load_preset_data(preset, read_data(args, schema.names, args.release, schema).frame, **seeds)
    import dataclasses as dc

    from ...io.chunked_split import read_split

    levels = _check_levels(args, schema)
    sp = read_split(args.data, schema, preset.private_fraction, seeds["split_seed"], preset.pilot_size,
                    sep=_chunk_sep(args), release_size=args.release, **_chunk_flags(args, levels))
    if not args.quiet:
        print(f"read {args.data} in {sp.chunks} chunk(s): {sp.n_rows:,} rows", file=sys.stderr)
    args._read_lines = [render("note: " + t, "cli") for t in sp.notes] + [f"WARNING: {t}" for t in sp.warnings]
    return dc.replace(sp.split, source=f"{args.data} ({preset.private_fraction:.0%} private split, "
                                       f"seed {seeds['split_seed']})")


def _read_private(args, schema: Schema, cfg, dask: DaskClient):
    """The private table of a --schema run: a DataFrame (small file), or for a file over
    --in-memory-mb / with --chunk-rows a chunked.GroupedTable (or, with --engine dask, a
    dask_engine.DaskEngine that read it on the workers).  Issue 15.

    Every intake flag (--no-header, --names, --drop-missing, --missing-level) applies to the
    chunked read too; the Dask reader refuses them (and says how to read locally).  A
    --missing-level for a column the schema declares numeric is refused before anything runs."""
    chunked = _chunked(args)
    levels = _check_levels(args, schema)
    if args.engine == "dask" and chunked:
        used = [f for f, v in (("--no-header", args.no_header), ("--names", args.names),
                               ("--drop-missing", args.drop_missing), ("--missing-level", args.missing_level)) if v]
        if used:
            raise BlowfishError(f"{', '.join(used)}: the Dask reader does not apply the intake flags. Fix: drop "
                                "--engine dask to read the file with the local chunked reader (it applies them), "
                                "or prepare the file first (header row, no missing cells)")
    if not chunked:
        return read_data(args, schema.names, cfg.release, schema).frame  # the intake step (issue 11)
    chunk_sep = _chunk_sep(args)
    if args.engine == "dask":
        from ...algorithm.dask_engine import DaskEngine

        eng = DaskEngine.read_csv(dask.get(), args.data, schema, cfg.sizes(), sep=chunk_sep)
        args._read_lines = [f"WARNING: {w}" for w in eng.warnings(cfg.release)]
        return eng
    from ...io.chunked import read_grouped

    g = read_grouped(args.data, schema, sep=chunk_sep, release_size=cfg.release, **_chunk_flags(args, levels))
    if not args.quiet:
        print(f"read {args.data} in {g.chunks} chunk(s): {g.n_rows:,} rows, {g.n_unique:,} distinct records",
              file=sys.stderr)
    args._read_lines = [render("note: " + t, "cli") for t in g.notes] + [f"WARNING: {t}" for t in g.warnings]
    return g


def _grouped_and_engine(args, schema: Schema, data, cfg, dask: DaskClient):
    """(grouped table or None, vote engine or None) for RunRequest (issue 15)."""
    if args.engine != "dask":
        for flag in ("scheduler", "workers"):
            if getattr(args, flag) is not None:
                raise BlowfishError(f"--{flag} only applies with --engine dask. Fix: add --engine dask or drop it")
        return (data if hasattr(data, "U") else None), None
    from ...algorithm.dask_engine import DaskEngine, require_dask

    require_dask()
    if isinstance(data, DaskEngine):
        return (data.U, data.counts), data
    if hasattr(data, "U"):
        U, counts = data.U, data.counts
        return data, DaskEngine(dask.get(), schema, U, counts, cfg.sizes())
    from ...model.rows import group_records

    U, counts = group_records(schema.encode(data))
    return None, DaskEngine(dask.get(), schema, U, counts, cfg.sizes())
