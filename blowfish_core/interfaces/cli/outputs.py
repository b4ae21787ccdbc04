"""The outputs of a run: refused before any work when they would overwrite an input or each
other (or sit in the --bundle folder), their folders checked writable, then written atomically
and together (io.atomic.Outputs; issue 21).  Also the confidence-interval text synth and pilot print."""

from __future__ import annotations

import json
import os

from ...base.errors import BlowfishError
from ...io import atomic
from ...io.exports import to_csv_safe
from ...synthesis.report_bundle import bundle_files, is_bundle_file, release_files


def _check_outputs(args, methods: list[str], seeds: list[int] | None) -> None:
    """Refuse, before any work, outputs that would overwrite an input or each other, and inputs or
    internal reports inside the --bundle folder.  Paths are compared resolved (os.path.realpath), so a
    symbolic link to an input or into the bundle is caught like the path itself."""
    real = os.path.realpath

    def same(a: str | None, b: str | None) -> bool:
        if not a or not b:
            return False
        return real(a) == real(b)

    inputs = [("--data", args.data), ("--schema", args.schema), ("--policy", args.policy),
              ("--public", getattr(args, "public", None))]
    outputs = [("--out", args.out), ("--report", args.report), ("--eval-report", getattr(args, "eval_report", None))]
    for oflag, opath in outputs:
        for iflag, ipath in inputs:
            if same(opath, ipath):
                what = "table" if iflag == "--data" else iflag[2:] + " file"
                raise BlowfishError(f"{oflag} would overwrite the input {what} ({iflag} {ipath}). Fix: choose another path")
    for i, (fa, pa) in enumerate(outputs):
        for fb, pb in outputs[i + 1:]:
            if same(pa, pb):
                raise BlowfishError(f"{fa} and {fb} name the same file. Fix: choose different paths")
    bundle, eval_report = getattr(args, "bundle", None), getattr(args, "eval_report", None)  # synth only
    if bundle and eval_report and (real(os.path.dirname(os.path.abspath(eval_report))) + os.sep).startswith(
            real(bundle) + os.sep):
        raise BlowfishError("--eval-report is inside the --bundle folder, which holds what may be published. "
                            "Fix: write the internal report elsewhere")
    if bundle:  # the bundle folder is replaced as a whole (issue 21, atomic outputs)
        root = real(bundle)
        for flag, path in outputs + [("--out-dir", args.out_dir)]:
            if path and (real(path) == root or real(path).startswith(root + os.sep)):
                raise BlowfishError(f"{flag} is inside the --bundle folder, which a run replaces as a whole (the "
                                    "bundle holds the releases already). Fix: write it elsewhere")
        for flag, path in inputs:
            if path and (real(path) + os.sep).startswith(root + os.sep):
                raise BlowfishError(f"the input {flag} {path} is inside the --bundle folder, which holds what may be "
                                    "published (a private table there would be published with it). Fix: move the "
                                    "input out of it, or choose another --bundle folder")
    if args.out_dir:
        names = [f"{m}.csv" for m in methods] if seeds is None else [f"{m}_seed{sd}.csv" for m in methods for sd in seeds]
        written = {real(os.path.join(args.out_dir, n)) for n in names}
        for flag, path in inputs + [("--report", args.report)]:
            if path and real(path) in written:
                raise BlowfishError(f"--out-dir would overwrite {flag} {path}. Fix: choose another folder or file name")


def _write(flag: str, path: str, write) -> None:
    """Run ``write()``; an OSError becomes one BlowfishError line naming the flag and the path
    (for atomic.Outputs.commit: the output whose rename failed, from ``e.output_label``)."""
    try:
        write()
    except OSError as e:
        flag = getattr(e, "output_label", None) or flag
        path = getattr(e, "output_path", None) or path
        raise BlowfishError(f"{flag}: cannot write {path}: {e.strerror or e}") from None


def _check_output_paths(args, flags: tuple[str, ...]) -> None:
    """Before any work: each file output's folder is created and writable (a temporary is created
    and removed beside it; the file itself is not touched) and the path is not a folder."""
    for flag in flags:
        path = getattr(args, flag[2:].replace("-", "_"), None)
        if path:
            d = os.path.dirname(os.path.abspath(path))
            _write(flag, path, lambda d=d: os.makedirs(d, exist_ok=True))
            if os.path.isdir(path):
                raise BlowfishError(f"{flag}: {path} is a folder; give a file path")
            _write(flag, path, lambda p=path: atomic.check_writable(p))


def _check_bundle_folder(args) -> None:
    """Before any work: --bundle's parent folder is created and the bundle folder can be replaced."""
    if args.bundle:
        parent = os.path.dirname(os.path.abspath(args.bundle))
        _write("--bundle", args.bundle, lambda: os.makedirs(parent, exist_ok=True))
        _write("--bundle", args.bundle, lambda: atomic.check_folder(args.bundle))


def _commit(outs: atomic.Outputs, flag: str, path: str) -> None:
    """Rename every staged output into place (atomic.Outputs.commit), errors named by their flag."""
    _write(flag, path, outs.commit)


def _write_synth_outputs(args, result, methods: list[str], seeds: list[int] | None) -> None:
    """Write every output of ``synth`` atomically and together (issue 21).

    Order: each output is first written to a temporary beside it (atomic.Outputs) -- --report,
    --eval-report, the --bundle folder (built complete in a temporary sibling), the --out-dir
    files, then --out -- and only when all of them are complete are they renamed into place, in
    that order (SIGINT / SIGTERM held until the last rename).  So an interrupted or failed run
    leaves every earlier file byte for byte as it was, and the release (--out) is renamed last: a
    new --out means every report beside it is new too.  A replaced bundle folder drops the stale
    bundle files of the earlier run (report.is_bundle_file) and keeps anything else in it."""
    rep = result.report
    first = result.run(methods[0], None if seeds is None else seeds[0]).release
    with atomic.Outputs() as outs:
        for flag, path, obj in (("--report", args.report, rep), ("--eval-report", args.eval_report,
                                                                   result.eval_report)):
            if path:
                text = json.dumps(obj, indent=2, allow_nan=False)
                _write(flag, path, lambda f=flag, p=path, t=text: outs.write_text(p, t, label=f))
        if args.bundle:
            files = bundle_files(result, raw=args.raw_values)
            _write("--bundle", args.bundle,
                   lambda: outs.replace_folder(args.bundle, files, label="--bundle", drop=is_bundle_file))
        if args.out_dir:
            _write("--out-dir", args.out_dir, lambda: os.makedirs(args.out_dir, exist_ok=True))
            for key, name in release_files(result).items():
                path, df = os.path.join(args.out_dir, name), result.releases[key]
                _write("--out-dir", path, lambda df=df, p=path: outs.write_with(
                    p, lambda f: to_csv_safe(df, f, raw=args.raw_values), label="--out-dir"))
        _write("--out", args.out, lambda: outs.write_with(
            args.out, lambda f: to_csv_safe(first, f, raw=args.raw_values), label="--out"))
        _commit(outs, "--out", args.out)


def _write_pilot_outputs(args, report, internal=None, release=None) -> None:
    """The pilot's --report, --eval-report, then --out: each to a temporary, then all renamed in that
    order (atomic.Outputs; as synth's outputs, the release last)."""
    with atomic.Outputs() as outs:
        for flag, path, obj in (("--report", args.report, report), ("--eval-report", args.eval_report, internal)):
            if path and obj is not None:
                text = json.dumps(obj, indent=2, allow_nan=False)
                _write(flag, path, lambda f=flag, p=path, t=text: outs.write_text(p, t, label=f))
        if args.out and release is not None:
            _write("--out", args.out, lambda: outs.write_with(
                args.out, lambda f: release.to_csv(f, index=False), label="--out"))
        _commit(outs, "--report", args.report or "")


def _ci_text(ci, fmt: str) -> str:
    if ci[0] is None or ci[1] is None:
        return "n/a (needs >= 2 seeds)"
    return f"[{ci[0]:{fmt}}, {ci[1]:{fmt}}]"
