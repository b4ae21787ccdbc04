"""Built-in presets: Adult, Bank, XOR-k (paper Table 3, §6.1, App. F.1; DESIGN §4).

Each preset declares a *public* domain (no bound is read off the data), the
paper's per-attribute policy graphs (Table 3), the default protected set (age on
Adult/Bank, X_1 on XOR-k) and its private/pilot split.

Decisions where the paper is silent (documented in docs/DECISIONS.md):
* Bank ``balance``: public range [-10000, 110000] euros (covers the UCI table,
  -8,019..102,127, with round numbers), integer.
* Bank ``education``: ordinal levels unknown < primary < secondary < tertiary
  ("unknown" placed lowest so the three real levels stay adjacent).
* Adult ``workclass``: the nine values include the missing marker '?', placed in
  the "other" block with Without-pay and Never-worked (App. F.1 counts nine values).
"""


from __future__ import annotations
import dataclasses
import os
from ..base._lazy import pd  # pandas, imported on first use (issue 15)
from ..base.errors import BlowfishError
from ..base.input_checks import check_generated_n
from .preset_tables import (  # the tables and the split (re-exported: every caller's import path stays)
    SHARED_DATA,
    ADULT_WORKCLASS_BLOCKS,
    ADULT_WORKCLASS_BLOCK_NAMES,
    BANK_JOB_TREE,
    Preset,
    adult,
    bank,
    xor_generate,
    xor,
    PRESET_NAMES,
    get_preset,
    DataSplit,
    split_labels,
    split_table,
    ADULT_UCI_COLUMNS,
    BANK_UCI_COLUMNS,
    PRESET_LAYOUTS,
)

#: the tables and the split (from preset_tables) and the loading of a preset's rows (here).
__all__ = [
    "SHARED_DATA",
    "ADULT_WORKCLASS_BLOCKS",
    "ADULT_WORKCLASS_BLOCK_NAMES",
    "BANK_JOB_TREE",
    "Preset",
    "adult",
    "bank",
    "xor_generate",
    "xor",
    "PRESET_NAMES",
    "get_preset",
    "DataSplit",
    "split_labels",
    "split_table",
    "ADULT_UCI_COLUMNS",
    "BANK_UCI_COLUMNS",
    "PRESET_LAYOUTS",
    "shared_path",
    "missing_table_message",
    "load_preset_data",
    "split_line",
]


def shared_path(preset: Preset) -> str | None:
    """Path of the preset's real table under ../shared/data.

    Parameters
    ----------
    preset : Preset
        The preset.

    Returns
    -------
    str or None
        The path, or None when absent (or the preset has no table).
    """
    if preset.csv_name is None:
        return None
    p = os.path.join(SHARED_DATA, preset.csv_name)
    return p if os.path.exists(p) else None


def missing_table_message(preset: Preset, shared_data: str | None = None) -> str:
    """The error when a preset's real table is not found.

    Parameters
    ----------
    preset : Preset
        The preset.
    shared_data : str or None
        The shared data folder (default :data:`SHARED_DATA`).

    Returns
    -------
    str
        ``--data PATH`` first; the checkout's ../shared/data folder only when it exists (an
        installed package has none).
    """
    shared_data = SHARED_DATA if shared_data is None else shared_data
    where = f", or put it in {shared_data}" if os.path.isdir(shared_data) else ""
    return (f"preset '{preset.name}' needs its table: pass --data PATH/{preset.csv_name} "
            f"(UCI; see README 'Data'){where}")


def load_preset_data(preset: Preset, data: str | pd.DataFrame | None = None, split_seed: int = 0,
                     n: int | None = None, data_seed: int = 0, chunk_rows: int | None = None) -> DataSplit:
    """Private and pilot rows of a preset.

    XOR-k: generated (n private rows, default 12,000; a separately generated pilot of
    preset.pilot_size rows).  Adult/Bank: ``data`` (a path or a DataFrame) or the table
    in ../shared/data, split by ``split_table``.  A file over the read limit
    (``data.DEFAULT_MAX_BYTES``), or any file with ``chunk_rows``, is read in chunks
    (:func:`blowfish_core.io.chunked_split.read_split`: every cell checked against the schema,
    the same rows as ``split_table`` takes of the whole table); its frames hold the schema's
    columns only.

    Parameters
    ----------
    preset : Preset
        The preset.
    data : str, pandas DataFrame or None
        A path or a table (Adult/Bank); None for the shared table, or generated XOR-k data.
    split_seed : int
        Seed of the split (``split_table``).
    n : int or None
        Generated XOR-k records (default preset.default_n).
    data_seed : int
        Seed of the generated data.
    chunk_rows : int or None
        Read a path in chunks of this many rows (default: only a file over the read limit, in
        chunks of ``chunked.DEFAULT_CHUNK_ROWS``).

    Returns
    -------
    DataSplit
        The private and pilot rows and a label of their source.

    Raises
    ------
    BlowfishError
        For a bad ``n``, or a real table that is not found.
    DataError
        For a file that cannot be read (``read_table``), or, read in chunks, any bad cell.
    SchemaError
        When the table lacks a modelled column.
    """
    from .data import DEFAULT_MAX_BYTES, read_table

    if preset.generator is not None and data is None:
        if n is None:
            n = preset.default_n
        else:
            n = int(n)
            check_generated_n(n)
        return DataSplit(preset.generator(n, data_seed), preset.generator(preset.pilot_size, data_seed + 1_000_003),
                         f"generated {preset.name} (n={n}, seed={data_seed})")
    if data is None:
        path = shared_path(preset)
        if path is None:
            raise BlowfishError(missing_table_message(preset))
        data = path
    source = f"{data if isinstance(data, str) else 'table'} ({preset.private_fraction:.0%} private split, seed {split_seed})"
    if not isinstance(data, pd.DataFrame) and (
            chunk_rows is not None or (os.path.isfile(data) and os.path.getsize(data) > DEFAULT_MAX_BYTES)):
        from .chunked import DEFAULT_CHUNK_ROWS
        from .chunked_split import read_split

        sp = read_split(data, preset.schema, preset.private_fraction, split_seed, preset.pilot_size,
                        chunk_rows=DEFAULT_CHUNK_ROWS if chunk_rows is None else chunk_rows).split
        return dataclasses.replace(sp, source=source)
    df = data if isinstance(data, pd.DataFrame) else read_table(data)
    preset.schema.check_columns(df)
    sp = split_table(df, preset.private_fraction, split_seed, preset.pilot_size)
    return dataclasses.replace(sp, source=source)


def split_line(preset: Preset, data: str | None, split: DataSplit, split_seed: int = 0) -> str | None:
    """The stdout line naming a preset's split of a real table.

    Parameters
    ----------
    preset : Preset
        The preset.
    data : str or None
        The path given, or None (the shared table, or generated data).
    split : DataSplit
        The split.
    split_seed : int
        Seed of the split.

    Returns
    -------
    str or None
        E.g. ``data: adult.csv split 26,048 private / 3,000 held-out pilot rows (seed 0)``;
        None for generated (XOR) data.
    """
    if preset.generator is not None and data is None:
        return None
    name = os.path.basename(data or shared_path(preset) or str(preset.csv_name))
    return (f"data: {name} split {len(split.private):,} private / {len(split.public):,} held-out pilot rows "
            f"(seed {split_seed})")
