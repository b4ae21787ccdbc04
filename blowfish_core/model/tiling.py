"""The Gower kernel's size limits (paper §6.1, speed): memory budgets of its blocks and tiles,
the lookup-table limits, and the rows per block or tile they give.

Out of distance.py (issue 22), which re-exports every name.  Blocks are at most
:func:`chunk_rows` rows so the (rows, m) working set stays under ``BLOCK_BYTES``; reductions
row by row use cache-sized tiles of :func:`tile_rows` rows.
"""

from __future__ import annotations

#: memory budget of one (rows, m) float64 block and its scratch buffer.
BLOCK_BYTES = 32 * 2**20
#: size of one (rows, m) float64 tile that stays in a core's L2 cache while it is
#: gathered, summed and reduced (hard votes, nearest candidates, softmax rows).
TILE_BYTES = 512 * 2**10
#: size of one (rows, m) float32 tile of :meth:`GowerKernel.nearest` (256 rows at m = 1,024).
TILE32_BYTES = 1 * 2**20
#: most (record, candidate) near-tie pairs held before :meth:`GowerKernel.nearest` decides them.
PAIRS_MAX = 2**21
#: attributes with at most this many domain values use lookup tables.
LOOKUP_MAX = 4096
#: largest fused joint lookup table (bytes) per population.
JOINT_BYTES = 64 * 2**20


def chunk_rows(m: int, block_bytes: int = BLOCK_BYTES) -> int:
    """Rows per (rows, m) float64 block so that two such blocks fit ``block_bytes``.

    Parameters
    ----------
    m : int
        Number of candidates.
    block_bytes : int
        Memory budget, in bytes.

    Returns
    -------
    int
        Rows, at least 1.
    """
    return max(1, int(block_bytes // (16 * max(int(m), 1))))


def tile_rows(m: int, tile_bytes: int = TILE_BYTES) -> int:
    """Rows per cache-sized (rows, m) float64 tile.

    Parameters
    ----------
    m : int
        Number of candidates.
    tile_bytes : int
        Size of one tile, in bytes.

    Returns
    -------
    int
        Rows, at least 1.
    """
    return max(1, int(tile_bytes // (8 * max(int(m), 1))))
