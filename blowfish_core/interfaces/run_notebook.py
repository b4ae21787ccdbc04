"""``run.ipynb`` of a runnable export: run.py's code blocks (run_scripts.py_blocks) as notebook cells,
built with nbformat's API (issue 24 "Bundles").

The same API calls as run.py, one cell per step under a heading; only the line that finds the
bundle folder differs (a notebook has no ``__file__``: Jupyter runs it in its own folder).  Run
in the bundle folder (``jupyter nbconvert --execute run.ipynb``, or open it), it writes the same
release byte for byte as run.py and run.sh (tests/interfaces/test_run_notebook.py executes it
with nbclient).  Cell ids are fixed, so the text (and the bundle's zip) is deterministic.
"""

from __future__ import annotations

from .run_scripts import HERE_IPYNB, STUDY_NOTE, cli_command, py_blocks
from .run_settings import RunSettings


def run_ipynb(settings: RunSettings) -> str:
    """run.ipynb: run.py's steps as cells (nbformat v4), with the study note and the CLI command.

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).

    Returns
    -------
    str
        The notebook's JSON text (no outputs, fixed cell ids).

    Raises
    ------
    BlowfishError
        For invalid settings.
    ImportError
        When nbformat is not installed (it is in the app and test extras).
    """
    import nbformat
    from nbformat import v4

    blocks = py_blocks(settings, here=HERE_IPYNB)
    intro = ("# Blowfish Studio study bundle: the run through the Python API\n\n"
             f"{STUDY_NOTE}\n\nRun it in this folder (the bundle folder). The same run as `run.py` and `run.sh`:\n\n"
             f"```sh\n{cli_command(settings)}\n```")
    cells = [v4.new_markdown_cell(intro)]
    for title, code in blocks:
        cells += [v4.new_markdown_cell(f"## {title}"), v4.new_code_cell(code)]
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"
    nb = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}})
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"
