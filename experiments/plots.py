"""Matplotlib helpers for the report figures (PNG, Agg backend, no display needed)."""

from __future__ import annotations

import os

import matplotlib

from blowfish_core.io import atomic

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"hard": "#444444", "bf-soft": "#1f77b4", "soft-hard-noise": "#d62728", "tab-pe": "#7f7f7f",
          "C": "#d62728", "N": "#2ca02c", "G": "#1f77b4", "pilot": "#e6a700"}


def new(ncols: int = 1, nrows: int = 1, w: float = 4.2, h: float = 3.3, sharey: bool = False):
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows), squeeze=False, sharey=sharey)
    return fig, axes


def band(ax, x, mean, lo, hi, label: str, color: str, marker: str = "o", ls: str = "-") -> None:
    """Mean line with a shaded 95% interval."""
    ax.plot(x, mean, ls, marker=marker, ms=3.5, color=color, label=label, lw=1.4)
    ax.fill_between(x, lo, hi, color=color, alpha=0.18, lw=0)


def reduction_panel(ax, names: list[str], title: str) -> None:
    """Finish a horizontal panel of paired error reductions vs Hard, one row per policy (Figure 6a/6b)."""
    ax.axvline(0, color="k", lw=0.6)
    ax.set_yticks(list(range(len(names))))
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("paired error reduction vs Hard (%)")
    ax.set_title(title)
    ax.legend(fontsize=7)


def save(fig, path: str, dpi: int = 110) -> str:
    """Save ``fig`` to ``path`` atomically (blowfish_core.io.atomic; the format from the extension) and close it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.tight_layout()
    fmt = os.path.splitext(path)[1].lstrip(".") or "png"
    atomic.write_with(path, lambda f: fig.savefig(f, dpi=dpi, format=fmt), binary=True)
    plt.close(fig)
    return path
