"""Atomic outputs (issue 21): blowfish_core.io.atomic, and the CLI's outputs through it.

The must-show test (test_interrupted_release_leaves_previous_files_byte_identical) runs the CLI
in a subprocess that writes a 100,000-row release, interrupts it (SIGINT or SIGKILL) while a
temporary is half written (the test-only pause hook atomic.PAUSE_ENV) and checks that the
previous run's --out, --report, --eval-report and --bundle are byte for byte as they were.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from blowfish_core.io import atomic
from blowfish_core.interfaces.cli.main import main
from blowfish_core.io.exports import to_csv_safe
from blowfish_core.io.presets import get_preset
from blowfish_core.synthesis.report import BUNDLE_FIXED_FILES, is_bundle_file

ROOT = Path(__file__).resolve().parents[2]
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and permission bits")


def snapshot(folder: Path) -> dict[str, bytes]:
    """{relative path: bytes} of every file under ``folder`` (temporaries included)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def temporaries(folder: Path) -> list[str]:
    return [str(p) for p in folder.rglob("*") if atomic.is_temporary(p.name)]


class Boom(Exception):
    pass


# ------------------------------------------------------------------ single files
@posix_only
def test_write_text_new_file_gets_the_umask_mode_and_replaced_file_keeps_its_bits(tmp_path):
    old = os.umask(0o027)
    try:
        (tmp_path / "ref").write_text("x")  # what open() gives
        atomic.write_text(tmp_path / "new.txt", "héllo\nworld\n")
    finally:
        os.umask(old)
    assert (tmp_path / "new.txt").read_bytes() == "héllo\nworld\n".encode()
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == stat.S_IMODE((tmp_path / "ref").stat().st_mode)
    (tmp_path / "new.txt").chmod(0o604)
    atomic.write_bytes(tmp_path / "new.txt", b"\x00\x01")
    assert (tmp_path / "new.txt").read_bytes() == b"\x00\x01"
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o604
    assert sorted(os.listdir(tmp_path)) == ["new.txt", "ref"]


@pytest.mark.parametrize("exc", [Boom, KeyboardInterrupt])
def test_failure_mid_write_leaves_the_old_file_and_no_temporary(tmp_path, exc):
    p = tmp_path / "release.csv"
    p.write_bytes(b"a,b\n1,2\n")
    seen = []

    def writer(f):
        f.write("a,b\n" + "9,9\n" * 1000)
        f.flush()
        seen.extend(n for n in os.listdir(tmp_path) if atomic.is_temporary(n))
        raise exc()

    with pytest.raises(exc):
        atomic.write_with(p, writer)
    assert len(seen) == 1 and seen[0].startswith(f".release.csv.{os.getpid()}.")  # it was there, mid-write
    assert p.read_bytes() == b"a,b\n1,2\n"
    assert os.listdir(tmp_path) == ["release.csv"]


def test_unwritable_folder_is_an_oserror_and_the_path_is_untouched(tmp_path):
    with pytest.raises(OSError):
        atomic.write_text(tmp_path / "no" / "such" / "folder.txt", "x")
    with pytest.raises(OSError):
        atomic.check_writable(tmp_path / "no" / "x.csv")
    atomic.check_writable(tmp_path / "x.csv")
    assert os.listdir(tmp_path) == []


@posix_only
def test_a_symlinked_destination_keeps_its_link(tmp_path):
    (tmp_path / "real.csv").write_text("old")
    (tmp_path / "link.csv").symlink_to("real.csv")
    atomic.write_text(tmp_path / "link.csv", "new")
    assert (tmp_path / "link.csv").is_symlink() and (tmp_path / "real.csv").read_text() == "new"


def test_temporary_names():
    t = atomic.temp_path("/x/release.csv")
    assert os.path.dirname(t) == "/x" and atomic.is_temporary(t) and f".{os.getpid()}." in t
    assert atomic.is_temporary(atomic.temp_path("/x/b", "old"))
    assert not atomic.is_temporary("release.csv") and not atomic.is_temporary(".hidden")


def test_to_csv_safe_to_a_path_is_atomic_and_unchanged(tmp_path, monkeypatch):
    df = pd.DataFrame({"a": ["=1", "x"], "b": [-3, 2]})
    p = tmp_path / "o.csv"
    to_csv_safe(df, p)
    assert p.read_text() == "a,b\n'=1,-3\nx,2\n"

    def half_then_interrupt(self, f, **kw):
        f.write("a,b\n1,")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        to_csv_safe(df, p)
    assert p.read_text() == "a,b\n'=1,-3\nx,2\n" and os.listdir(tmp_path) == ["o.csv"]


# ------------------------------------------------------------------ several outputs together
def test_outputs_rename_nothing_until_commit_and_discard_on_an_exception(tmp_path):
    a, b = tmp_path / "report.json", tmp_path / "release.csv"
    a.write_text("old report")
    b.write_text("old release")
    with pytest.raises(Boom), atomic.Outputs() as outs:
        outs.write_text(a, "new report")
        assert a.read_text() == "old report"
        outs.write_with(b, lambda f: f.write("new release"))
        raise Boom
    assert snapshot(tmp_path) == {"release.csv": b"old release", "report.json": b"old report"}
    order = []
    real = os.replace
    with atomic.Outputs() as outs:
        outs.write_text(a, "new report")
        outs.write_text(b, "new release")
        os.replace = lambda s, d: (order.append(os.path.basename(d)), real(s, d))[1]
        try:
            outs.commit()
        finally:
            os.replace = real
    assert order == ["report.json", "release.csv"]  # the order staged
    assert snapshot(tmp_path) == {"release.csv": b"new release", "report.json": b"new report"}


@posix_only
def test_sigint_during_commit_is_held_until_every_rename_is_done(tmp_path, monkeypatch):
    files = [tmp_path / f"{k}.txt" for k in range(3)]
    for p in files:
        p.write_text("old")
    real = os.replace

    def replace_and_interrupt(src, dst):
        if dst.endswith("0.txt"):
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C after the first rename
        real(src, dst)

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be installed from the main thread")
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C raises KeyboardInterrupt
    try:
        monkeypatch.setattr(os, "replace", replace_and_interrupt)
        with pytest.raises(KeyboardInterrupt), atomic.Outputs() as outs:
            for p in files:
                outs.write_text(p, "new")
            outs.commit()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored after the commit
    finally:
        signal.signal(signal.SIGINT, before)
    assert [p.read_text() for p in files] == ["new"] * 3 and temporaries(tmp_path) == []


def test_a_failed_rename_names_its_output_and_removes_the_rest(tmp_path, monkeypatch):
    a, b = tmp_path / "r.json", tmp_path / "o.csv"
    real = os.replace

    def fail_on_csv(src, dst):
        if dst.endswith("o.csv"):
            raise PermissionError(13, "Permission denied")
        real(src, dst)

    monkeypatch.setattr(os, "replace", fail_on_csv)
    with pytest.raises(OSError) as e, atomic.Outputs() as outs:
        outs.write_text(a, "r", label="--report")
        outs.write_text(b, "o", label="--out")
        outs.commit()
    assert e.value.output_label == "--out" and e.value.output_path == str(b)
    assert snapshot(tmp_path) == {"r.json": b"r"}


# ------------------------------------------------------------------ folders
@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_replace_folder_replaces_drops_stale_keeps_the_rest(tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    b = tmp_path / "bundle"
    atomic.replace_folder(b, {"ledger.json": "{}", "hard_seed0.csv": "x\n1\n", "run.sh": "echo"},
                          modes={"run.sh": 0o755})
    assert snapshot(b) == {"hard_seed0.csv": b"x\n1\n", "ledger.json": b"{}", "run.sh": b"echo"}
    if os.name == "posix":
        assert stat.S_IMODE((b / "run.sh").stat().st_mode) == 0o755
    (b / "notes.txt").write_text("mine")
    (b / "sub").mkdir()
    (b / "sub" / "deep.txt").write_text("deep")
    atomic.replace_folder(b, {"ledger.json": "{1}", "hard_seed1.csv": "x\n2\n"}, drop=lambda n: n.endswith(".csv"))
    assert snapshot(b) == {"hard_seed1.csv": b"x\n2\n", "ledger.json": b"{1}", "notes.txt": b"mine",
                           "run.sh": b"echo", os.path.join("sub", "deep.txt"): b"deep"}
    assert os.listdir(tmp_path) == ["bundle"]  # no .tmp / .old left


@pytest.mark.parametrize("exc", [Boom, KeyboardInterrupt])
def test_a_failed_folder_build_leaves_the_old_folder(tmp_path, monkeypatch, exc):
    b = tmp_path / "bundle"
    atomic.replace_folder(b, {"a.csv": "1", "b.json": "2"})
    before = snapshot(b)
    real = atomic._write_temp

    def second_fails(dest, *a):
        if dest.endswith("b.json"):
            raise exc()
        return real(dest, *a)

    monkeypatch.setattr(atomic, "_write_temp", second_fails)
    with pytest.raises(exc):
        atomic.replace_folder(b, {"a.csv": "new", "b.json": "new"})
    assert snapshot(b) == before and os.listdir(tmp_path) == ["bundle"]


def test_a_failed_swap_puts_the_old_folder_back(tmp_path, monkeypatch):
    b = tmp_path / "bundle"
    atomic.replace_folder(b, {"a.csv": "1"})
    monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    real, calls = os.rename, []

    def second_rename_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "rename", second_rename_fails)
    with pytest.raises(OSError):
        atomic.replace_folder(b, {"a.csv": "2"})
    assert snapshot(b) == {"a.csv": b"1"} and os.listdir(tmp_path) == ["bundle"]


def test_folder_refusals(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError):
        atomic.replace_folder(tmp_path / "file", {"a": "1"})
    with pytest.raises(ValueError, match="plain file name"):
        atomic.replace_folder(tmp_path / "b", {"../a": "1"})
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "b")
    for path in (tmp_path / "b", tmp_path):
        with pytest.raises(OSError, match="current folder"):
            atomic.check_folder(path)
    assert (tmp_path / "file").read_text() == "x" and temporaries(tmp_path) == []


def test_is_bundle_file():
    assert all(is_bundle_file(n) for n in BUNDLE_FIXED_FILES)
    assert is_bundle_file("hard.csv") and is_bundle_file("bf-soft_seed12.csv")
    assert not any(is_bundle_file(n) for n in ("data.csv", "hard_seedx.csv", "hard.json", "notes.txt", "hard"))


# ------------------------------------------------------------------ the CLI
TINY = ["--preset", "xor3", "--method", "hard", "--rho", "1e-3", "--rounds", "1", "--population", "16",
        "--release", "8", "--quiet"]


def test_cli_bundle_rerun_drops_stale_releases_and_keeps_other_files(tmp_path, capsys):
    b = tmp_path / "b"
    assert main(["synth", *TINY, "--seeds", "0,1", "--out", str(tmp_path / "o.csv"), "--bundle", str(b)]) == 0
    (b / "notes.txt").write_text("mine")
    assert main(["synth", *TINY, "--seeds", "2", "--out", str(tmp_path / "o.csv"), "--bundle", str(b)]) == 0
    assert sorted(os.listdir(b)) == ["budget.json", "hard_seed2.csv", "ledger.json", "ledger.txt", "notes.txt",
                                     "policy.json", "schema.json"]
    assert sorted(os.listdir(tmp_path)) == ["b", "o.csv"]


@pytest.mark.parametrize("flag", ["--out", "--report", "--out-dir"])
def test_cli_refuses_an_output_inside_the_bundle_folder(tmp_path, capsys, flag):
    paths = {"--out": str(tmp_path / "o.csv"), flag: str(tmp_path / "b" / "x")}
    argv = ["synth", *TINY, "--bundle", str(tmp_path / "b")] + [x for kv in paths.items() for x in kv]
    assert main(argv) == 2
    assert f"{flag} is inside the --bundle folder" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


def test_cli_refuses_an_input_the_bundle_would_replace(tmp_path, capsys):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "schema.json").write_text(get_preset("xor3").schema.to_json())
    argv = ["synth", "--schema", str(tmp_path / "b" / "schema.json"), "--data", str(tmp_path / "d.csv"),
            "--method", "hard", "--rho", "1", "--out", str(tmp_path / "o.csv"), "--bundle", str(tmp_path / "b")]
    assert main(argv) == 2
    assert "the input --schema" in (err := capsys.readouterr().err) and "is inside the --bundle folder" in err
    assert (tmp_path / "b" / "schema.json").read_text() == get_preset("xor3").schema.to_json()


def test_cli_bundle_that_is_a_file_fails_before_the_run(tmp_path, capsys):
    (tmp_path / "b").write_text("x")
    assert main(["synth", *TINY, "--out", str(tmp_path / "o.csv"), "--bundle", str(tmp_path / "b")]) == 2
    assert capsys.readouterr().err.startswith(f"error: --bundle: cannot write {tmp_path / 'b'}: it exists and is "
                                              "not a folder")
    assert sorted(os.listdir(tmp_path)) == ["b"]


BIG = ["--preset", "xor3", "--method", "tab-pe", "--rho", "1", "--seeds", "0", "--rounds", "1",
       "--population", "1024", "--release-mode", "sample", "--quiet"]


def _outputs(d: Path) -> list[str]:
    return ["--out", str(d / "release.csv"), "--report", str(d / "report.json"), "--eval-report",
            str(d / "internal.json"), "--bundle", str(d / "bundle")]


def _cli(*args: str, env: dict | None = None) -> subprocess.Popen:
    e = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "blowfish_core", "synth", *args], cwd=ROOT, env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@posix_only
@pytest.mark.parametrize("target", ["release.csv", "tab-pe_seed0.csv"], ids=["during-out", "during-bundle"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_release_leaves_previous_files_byte_identical(tmp_path, sig, target):
    """Issue 21 must-show: SIGINT / SIGKILL while a 100,000-row release is being written."""
    d = tmp_path / "out"
    p = _cli(*BIG, "--release", "50", *_outputs(d))
    assert p.wait(60) == 0, p.stderr.read()
    before = snapshot(d)
    assert sorted(before) == ["bundle/budget.json", "bundle/ledger.json", "bundle/ledger.txt", "bundle/policy.json",
                              "bundle/schema.json", "bundle/tab-pe_seed0.csv", "internal.json", "release.csv",
                              "report.json"]
    assert before["release.csv"].count(b"\n") == 51

    # the second run pauses (test hook) after 200,000 characters of the temporary of `target`
    p = _cli(*BIG, "--release", "100000", *_outputs(d), env={atomic.PAUSE_ENV: f"200000:60:{target}"})
    deadline, half = time.monotonic() + 30, []
    while not half and time.monotonic() < deadline and p.poll() is None:
        half = [q for q in d.rglob(f".{target}.{p.pid}.*.tmp") if q.stat().st_size >= 200_000]
        time.sleep(0.01)
    assert half, f"no half-written temporary of {target} (exit {p.poll()})"
    if target == "release.csv":
        assert half[0].stat().st_size < 800_014  # part of the 100,001 lines
    else:  # inside the bundle's temporary folder
        assert atomic.is_temporary(half[0].parent.name)
    p.send_signal(sig)
    rc = p.wait(20)
    err = p.stderr.read()
    now = snapshot(d)
    left = {k for k in now if any(atomic.is_temporary(x) for x in Path(k).parts)}
    assert {k: v for k, v in now.items() if k not in left} == before  # every previous file, byte for byte
    if sig == signal.SIGINT:
        assert rc == 130 and "error: interrupted" in err
        assert temporaries(d) == []  # and nothing left behind
    else:
        assert rc == -signal.SIGKILL and left  # a killed run may leave dot-temporaries, nothing else


@posix_only
def test_uninterrupted_big_release_replaces_everything(tmp_path):
    d = tmp_path / "out"
    assert _cli(*BIG, "--release", "50", *_outputs(d)).wait(60) == 0
    p = _cli(*BIG, "--release", "100000", *_outputs(d))
    assert p.wait(60) == 0, p.stderr.read()
    after = snapshot(d)
    assert after["release.csv"].count(b"\n") == 100_001 and after["bundle/tab-pe_seed0.csv"] == after["release.csv"]
    assert temporaries(d) == []


def test_write_bundle_replaces_its_files_and_keeps_the_release_run_sh_wrote(tmp_path):
    from blowfish_core.algorithm.evolution import SynthConfig
    from blowfish_core.interfaces.run_bundle import RunSettings, write_bundle

    xor = get_preset("xor3")
    s = RunSettings(xor.schema, xor.default_policy(), ["hard"], [0], rho=1e-3, preset="xor3",
                    config=SynthConfig(rounds=1, population=[16], release=8))
    files = write_bundle(s, tmp_path / "b")
    (tmp_path / "b" / "release.csv").write_text("kept")
    (tmp_path / "b" / "run.py").write_text("edited")
    assert write_bundle(s, tmp_path / "b") == files
    assert (tmp_path / "b" / "release.csv").read_text() == "kept" and (tmp_path / "b" / "run.py").read_text() != "edited"
    if os.name == "posix":
        assert stat.S_IMODE(files["run.sh"].stat().st_mode) == 0o755
    assert os.listdir(tmp_path) == ["b"]
