"""Runnable export: a run's settings as files anyone can rerun (issue 16 "Runnable export").

A bundle (a *study* bundle: seeded, for study, not for publication) holds ``schema.json``,
``policy.json``, ``run.py`` (the Python API:
``Synthesizer(schema, policy, method=..., tau=..., rho=... | epsilon=..., delta=..., seed=...)
.fit(df).sample(n)``), ``run.sh`` (the CLI command with every setting, ``python -m blowfish_core
synth ...``), ``run.ipynb`` (run.py's calls as notebook cells, issue 24) and ``README.md`` (what
to run, where the data must be, and the privacy ledger in words, report.ledger_text).
:func:`cli_command` is the exact CLI command as one string (for a code block).  The three scripts
write the same seeded release byte for byte as the CLI with the same settings, reading the private
table with every reading option of the settings (tests/interfaces/test_run_bundle.py).

The private table is never written into a bundle: the scripts read it from the path in the
settings (or generate XOR-k rows).  Nothing computed on the private table but the seeded release
lands in the bundle folder: no report by default, and a report path must lie outside the folder
(RunSettings.report; docs/DECISIONS.md).  A seeded run is for study, not for publication
(DESIGN §7); every file says so.

Modules (issue 22, one idea each; every name is re-exported here): :mod:`.run_settings`
(:class:`RunSettings`, :func:`settings_from_request`, :func:`settings_from_files`),
:mod:`.run_scripts` (:func:`cli_args`, :func:`cli_command`, :func:`run_sh`, :func:`run_py`),
:mod:`.run_notebook` (:func:`run_ipynb`),
:mod:`.run_readme` (:func:`planned_report`, :func:`readme`); here the bundle's files, folder and zip.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from .run_notebook import run_ipynb
from .run_readme import planned_report, planned_total, readme
from .run_scripts import (
    POLICY_FILE, README, RUN_IPYNB, RUN_PY, RUN_SH, SCHEMA_FILE, STUDY_NOTE, cli_args, cli_command, py_blocks, run_py,
    run_sh,
)
from .run_settings import RunSettings, settings_from_files, settings_from_request


def bundle_files(settings: RunSettings, report: dict[str, Any] | None = None) -> dict[str, str]:
    """{file name: text} of the bundle: schema.json, policy.json, run.py, run.sh, run.ipynb, README.md.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    report : dict, optional
        The run's report, for the README's ledger (default: the planned budget).

    Returns
    -------
    dict of str to str
        File name -> text.

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    return {
        SCHEMA_FILE: s.schema.to_json() + "\n",
        POLICY_FILE: s.policy.to_json() + "\n",
        RUN_PY: run_py(s),
        RUN_SH: run_sh(s),
        RUN_IPYNB: run_ipynb(s),
        README: readme(s, report),
    }


def write_bundle(settings: RunSettings, folder: str | Path, report: dict[str, Any] | None = None) -> dict[str, Path]:
    """Write the bundle as the folder ``folder`` (its parents created); run.sh is executable (0o755).

    Atomic (issue 21, atomic.replace_folder): the bundle is built complete in a temporary sibling
    folder and swapped into place, so a failed or interrupted export leaves an earlier ``folder``
    as it was.  An earlier folder's bundle files are replaced; everything else in it (such as
    the release.csv that run.sh wrote there) is kept.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    folder : str or Path
        The bundle folder.
    report : dict, optional
        The run's report, for the README's ledger (default: the planned budget).

    Returns
    -------
    dict of str to Path
        File name -> its path.

    Raises
    ------
    OSError
        When it cannot be written (``folder`` is a file, the current folder, or its parent is
        read-only); BlowfishError for invalid settings.
    """
    from ..io.atomic import replace_folder

    files = bundle_files(settings, report)
    root = Path(folder)
    root.parent.mkdir(parents=True, exist_ok=True)
    replace_folder(root, files, modes={RUN_SH: 0o755})
    return {name: root / name for name in files}


def bundle_zip(settings: RunSettings, report: dict[str, Any] | None = None, folder: str = "blowfish_run") -> bytes:
    """The bundle as a zip archive for a download button.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    report : dict, optional
        The run's report, for the README's ledger (default: the planned budget).
    folder : str, optional
        The folder the files sit under in the archive (default ``blowfish_run``).

    Returns
    -------
    bytes
        The zip archive (fixed file dates; run.sh 0o755).

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in bundle_files(settings, report).items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name == RUN_SH else 0o644) << 16
            z.writestr(info, text)
    return buf.getvalue()


__all__ = [
    "POLICY_FILE",
    "README",
    "RUN_IPYNB",
    "RUN_PY",
    "RUN_SH",
    "RunSettings",
    "SCHEMA_FILE",
    "STUDY_NOTE",
    "bundle_files",
    "bundle_zip",
    "cli_args",
    "cli_command",
    "planned_report",
    "planned_total",
    "py_blocks",
    "readme",
    "run_ipynb",
    "run_py",
    "run_sh",
    "settings_from_files",
    "settings_from_request",
    "write_bundle",
]
