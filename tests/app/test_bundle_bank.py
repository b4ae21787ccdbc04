"""Issue 24 must-show 3: the study bundle of the semicolon Bank file.

The Data step loads UCI's bank-full in its original layout (';' separated, text cells quoted) through
the app's intake (studio.data_source.handle_upload, the separator detected); the Release step's study
bundle (studio.bundle_ui.release_request) is written next to the file and run as run.sh (the CLI),
run.py (the Python API) and run.ipynb (nbclient).  All three write, byte for byte, the app's release:
the seeded release the app's Runner makes with the same request (runner_ui.execute_run, downloaded
as runner_ui.release_csv), which is also the CLI's, typed by hand with ``--sep ';'``.

The shared file (../shared/data/bank-full.csv) is comma-separated; the test writes UCI's semicolon
layout of it to a temporary folder (never into the repository).  Few rounds, a small population and
one seed keep it to seconds of synthesis; reading 45,211 rows five times is most of its time.
"""

from __future__ import annotations

import sys

import pytest

import blowfish_core as bc
from blowfish_core.interfaces.run_bundle import write_bundle
from blowfish_core.io.presets import shared_path
from studio import data_source as ds
from studio import runner_ui as ui
from studio.bundle_ui import release_request
from studio.data_ui import INTAKE, reading_options
from tests.bundle_helpers import execute_notebook, run, write_uci_semicolon

BANK = bc.get_preset("bank")


@pytest.mark.slow
@pytest.mark.skipif(shared_path(BANK) is None, reason="needs ../shared/data/bank-full.csv")
def test_semicolon_bank_study_bundle_gives_the_app_release_byte_for_byte(tmp_path):
    pytest.importorskip("nbclient")
    name = "bank-full.csv"
    raw = write_uci_semicolon(shared_path(BANK), tmp_path / "uci.csv")
    assert raw.startswith(b'"age";"job";')
    # the Data step: upload to the Bank preset, separator detected (studio.data_ui._load_bytes)
    choice = ds.IntakeChoice()
    res = ds.intake_upload(raw, name, choice)
    studio, _ = ds.studio_from_intake(res, name, "bank")
    studio.reading = reading_options(res, choice)  # as _load_bytes records it (the session-state model)
    assert res.sep == ";" and res.sep_sniffed and len(studio.private) == 27_126
    state = {INTAKE: (raw, name, "bank", choice, res),
             "runner_settings": dict(ui.RUNNER_DEFAULTS, rn_rounds=2, rn_population="16x2", rn_release=30)}
    req, settings = release_request(state, studio)
    assert settings.sep == ";" and settings.data_path == name and settings.preset == "bank"
    assert settings.methods == ["bf-soft"] and settings.seeds == [0] and settings.report is None
    # the app's release: its Runner on the same request, as the Run step's download writes it
    rec = ui.execute_run({}, 1, req, studio)
    app = ui.release_csv(rec["releases"][("bf-soft", 0)])
    assert app.count(b"\n") == 31
    # the bundle, with the file put next to it (it is never in a bundle)
    folder = tmp_path / "bundle"
    files = write_bundle(settings, folder)
    (folder / name).write_bytes(raw)
    out = folder / "release.csv"
    got = {}
    for label, go in (("run.sh", lambda: run(["sh", str(files["run.sh"])], tmp_path)),
                      ("run.py", lambda: run([sys.executable, str(files["run.py"])], tmp_path)),
                      ("run.ipynb", lambda: execute_notebook(files["run.ipynb"]))):
        if out.exists():
            out.unlink()
        go()
        got[label] = out.read_bytes()
    # the CLI typed by hand: the same bytes
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "policy.json").write_text(settings.policy.to_json())
    run([sys.executable, "-m", "blowfish_core", "synth", "--preset", "bank", "--data", str(tmp_path / "uci.csv"),
         "--sep", ";", "--policy", "policy.json", "--method", "bf-soft", "--tau", repr(settings.tau), "--rho",
         repr(settings.rho), "--rounds", "2", "--population", "16x2", "--release", "30", "--seeds", "0",
         "--out", "cli.csv", "--quiet"], tmp_path / "cli")
    got["cli"] = (tmp_path / "cli" / "cli.csv").read_bytes()
    assert {k: v == app for k, v in got.items()} == {"run.sh": True, "run.py": True, "run.ipynb": True, "cli": True}
    # nothing computed on the private table in the bundle folder
    assert sorted(p.name for p in folder.iterdir()) == sorted([*files, name, "release.csv"])


def test_uploaded_semicolon_csv_bundle_carries_the_data_step_choices(tmp_path):
    """Always runs (no shared data): a generated semicolon CSV with a missing cell, uploaded as 'Upload a
    CSV' with 'drop rows' for X_1; the bundle states the separator, the dropped column and the modelled
    columns, and run.py writes the app Runner's seeded release byte for byte."""
    data = bc.load_preset_data(bc.get_preset("xor3")).private.head(1500).astype(object)
    data.loc[[5, 40], "X_1"] = ""
    raw = data.to_csv(index=False, sep=";").encode()
    name = "mine.csv"
    choice = ds.IntakeChoice(drop_missing=("X_1",))
    res = ds.intake_upload(raw, name, choice)
    studio, _ = ds.studio_from_intake(res, name, "csv")
    studio.reading = reading_options(res, choice)  # as _load_bytes records it (the session-state model)
    studio = ds.with_policy(studio, bc.Policy.from_dict({"attributes": {"X_1": {"type": "threshold", "theta": 1}}}))
    studio.extras["budget"] = {"mode": "epsilon", "epsilon": 1.0, "delta": 1e-5, "set": True}
    state = {INTAKE: (raw, name, "csv", choice, res),
             "runner_settings": dict(ui.RUNNER_DEFAULTS, rn_rounds=2, rn_population="16x2", rn_release=20)}
    req, settings = release_request(state, studio)
    assert (settings.sep, settings.drop_missing, settings.columns) == (";", ["X_1"], ["X_1", "X_2", "X_3", "Y"])
    assert settings.preset is None and settings.data_path == name and len(req.data) == 1498
    app = ui.release_csv(ui.execute_run({}, 1, req, studio)["releases"][(settings.methods[0], 0)])
    files = write_bundle(settings, tmp_path)
    (tmp_path / name).write_bytes(raw)
    run([sys.executable, str(files["run.py"])], tmp_path)
    assert (tmp_path / "release.csv").read_bytes() == app
    assert "--drop-missing X_1" in files["run.sh"].read_text()
