"""Atomic outputs (issue 21): a file or folder a run keeps appears complete or not at all.

Every output is written to a temporary in the same folder as its destination, flushed and
fsynced, and renamed over the destination with ``os.replace`` (one atomic step on POSIX and
Windows).  A folder (a release bundle) is built complete in a temporary sibling folder and then
swapped into place.  An exception, a KeyboardInterrupt (SIGINT) or a failed write therefore
leaves every earlier file byte for byte as it was, and removes the temporary.  A SIGKILL (or a
power cut) can leave a temporary behind, never a half-written destination.

Temporaries are named ``.<name>.<pid>.<8 hex>.tmp`` (``.old`` for a replaced folder on its way
out): hidden, recognisable (:func:`is_temporary`) and never taken for a result.

Several outputs of one run are staged together with :class:`Outputs`: each is written to its
temporary first, and :meth:`Outputs.commit` renames them all at the end, in the order they were
staged, with SIGINT and SIGTERM held back until the last rename is done.  An interrupt during
the (slow) writing phase therefore never leaves a new release beside an old report; only a
SIGKILL or a power cut during the (microseconds-long) rename phase can split them.

Modes: a new file gets the mode ``open(path, "w")`` would give it (0o666 minus the umask); a
replaced file keeps the destination's permission bits (owner and group are not copied).  A
destination that is a symbolic link is followed: the link stays, its target is replaced.

The functions raise OSError (with ``filename``) when a temporary cannot be created, written or
renamed; the destination is then untouched.  No streamlit import.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

#: test-only hook, "<chars>:<seconds>[:<name>]": after writing at least <chars> characters (bytes
#: in binary mode) to a temporary (of a destination called <name>, if given), flush it and sleep
#: <seconds>, so a test can interrupt a run while a temporary is half written.  Never set outside
#: tests.
PAUSE_ENV = "BLOWFISH_TEST_PAUSE_WRITE"
_TEMP = re.compile(r"^\..*\.\d+\.[0-9a-f]{8}\.(tmp|old)$")
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def is_temporary(name: str) -> bool:
    """Whether ``name`` is a name this module uses for temporaries (a leftover of a killed run).

    Parameters
    ----------
    name : str
        A file or folder name or path (its last component is checked).

    Returns
    -------
    bool
        True for a temporary's name.
    """
    return bool(_TEMP.match(os.path.basename(os.fspath(name))))


def temp_path(dest: str, kind: str = "tmp") -> str:
    """A fresh temporary name beside ``dest``.

    Parameters
    ----------
    dest : str
        The destination path.
    kind : str
        The suffix: 'tmp', or 'old' for a replaced folder on its way out.

    Returns
    -------
    str
        ``<folder>/.<name>.<pid>.<8 hex>.<kind>``.
    """
    folder, base = os.path.split(dest)
    return os.path.join(folder, f".{base[:150]}.{os.getpid()}.{secrets.token_hex(4)}.{kind}")


def _resolve(path: str | os.PathLike) -> str:
    """Absolute destination path, symbolic links followed (the temporary goes beside the real file)."""
    return os.path.realpath(os.fspath(path))


def _mode_of(path: str) -> int | None:
    """Permission bits of an existing ``path`` (None when there is none)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def _fsync_dir(folder: str) -> None:
    """fsync a folder so a rename in it survives a power cut (skipped where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.remove(path)


class _PausingWriter:
    """File proxy for the PAUSE_ENV test hook: pauses once after ``limit`` characters."""

    def __init__(self, f: IO, limit: int, seconds: float):
        self._f, self._limit, self._seconds, self._n = f, limit, seconds, 0

    def write(self, s):
        n = self._f.write(s)
        if self._n < self._limit <= self._n + len(s):
            self._f.flush()
            time.sleep(self._seconds)
        self._n += len(s)
        return n

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)


def _pause_hook(f: IO, dest: str) -> IO:
    spec = os.environ.get(PAUSE_ENV)
    if not spec:
        return f
    chars, seconds, name = (spec.split(":", 2) + ["", ""])[:3]
    if name and name != os.path.basename(dest):
        return f
    return _PausingWriter(f, int(chars), float(seconds or 30))  # type: ignore[return-value]


def _write_temp(dest: str, writer: Callable[[IO], Any], binary: bool, encoding: str, newline: str | None,
                mode: int | None) -> str:
    """Write a new temporary beside ``dest`` with ``writer(file)``; fsync; set ``mode`` (None: the
    umask default).  Returns its path; on any exception (KeyboardInterrupt too) it is removed."""
    tmp = temp_path(dest)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        try:
            f = open(fd, "wb") if binary else open(fd, "w", encoding=encoding, newline=newline)
        except BaseException:
            os.close(fd)
            raise
        with f:
            writer(_pause_hook(f, dest))
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _content_writer(content: str | bytes) -> tuple[Callable[[IO], Any], bool]:
    if isinstance(content, bytes):
        return (lambda f: f.write(content)), True
    if isinstance(content, str):
        return (lambda f: f.write(content)), False
    raise TypeError(f"file content must be str or bytes (got {type(content).__name__})")


def _exchange(a: str, b: str) -> bool:
    """Swap two paths in one atomic step (Linux renameat2 RENAME_EXCHANGE).  False where the
    system or file system has no such call (the caller then uses two renames)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), b)


def _carry(src: str, dst: str) -> None:
    """Put an entry of the old folder into the new one: a hard link (a copy where links are not
    possible), a symbolic link as a link, a folder recursively."""
    if os.path.islink(src):
        os.symlink(os.readlink(src), dst)
    elif os.path.isdir(src):
        shutil.copytree(src, dst, symlinks=True, copy_function=_link_or_copy)
    else:
        _link_or_copy(src, dst)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except (OSError, NotImplementedError):  # another file system, no links, or no follow_symlinks here
        shutil.copy2(src, dst, follow_symlinks=False)


def _refuse_current_folder(dest: str, path: str) -> None:
    cwd = os.path.realpath(os.getcwd())
    if cwd == dest or cwd.startswith(dest.rstrip(os.sep) + os.sep):
        raise OSError(errno.EBUSY, "it is the current folder or holds it (a folder is replaced as a whole); "
                                   "choose a new or other folder", path)


def _build_folder(dest: str, path: str, files: Mapping[str, str | bytes], modes: Mapping[str, int] | None,
                  drop: Callable[[str], bool] | None) -> str:
    """The new folder, complete, in a temporary sibling of ``dest``; returns its path."""
    _refuse_current_folder(dest, path)
    old_exists = os.path.lexists(dest)
    if old_exists and not os.path.isdir(dest):
        raise NotADirectoryError(errno.ENOTDIR, "it exists and is not a folder", path)
    for name in files:
        if not name or name in (".", "..") or os.sep in name or (os.altsep and os.altsep in name):
            raise ValueError(f"bundle file name {name!r}: give a plain file name")
    tmp = temp_path(dest)
    os.mkdir(tmp, 0o777)  # the umask applies, as for os.makedirs
    try:
        if old_exists:
            os.chmod(tmp, stat.S_IMODE(os.stat(dest).st_mode))
        for name, content in files.items():
            writer, binary = _content_writer(content)
            target = os.path.join(tmp, name)
            mode = (modes or {}).get(name)
            mode = _mode_of(os.path.join(dest, name)) if mode is None and old_exists else mode
            os.replace(_write_temp(target, writer, binary, "utf-8", "", mode), target)
        if old_exists:
            for entry in os.scandir(dest):
                if entry.name not in files and not (drop is not None and drop(entry.name)):
                    _carry(entry.path, os.path.join(tmp, entry.name))
        _fsync_dir(tmp)
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _swap_folder(tmp: str, dest: str) -> None:
    """Put the complete folder ``tmp`` at ``dest``; the old folder (if any) is deleted afterwards.

    Where the system has renameat2 (Linux), the two folders are exchanged in one atomic step, so
    ``dest`` always names a complete folder.  Elsewhere the old folder is renamed to a
    ``.<name>.<pid>.<hex>.old`` backup and the new one renamed into place right after: a crash
    between those two renames (microseconds) leaves no folder at ``dest``, the old one complete in
    the ``.old`` backup (rename it back to recover) and the new one complete in its ``.tmp``.
    A failing second rename puts the old folder back.  A crash after the swap, before the old
    folder is deleted, leaves it under its dot-name (a leftover, never at ``dest``)."""
    if not os.path.lexists(dest):
        os.rename(tmp, dest)
        old = None
    elif _exchange(tmp, dest):
        old = tmp  # it now holds the old folder
    else:
        old = temp_path(dest, "old")
        os.rename(dest, old)
        try:
            os.rename(tmp, dest)
        except BaseException:
            os.rename(old, dest)
            raise
    _fsync_dir(os.path.dirname(dest))
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


#: the outputs this process has renamed into place (in order): an interrupt after the first
#: commit can no longer say "nothing was replaced" (cli.main reads it).
COMMITTED: list[str] = []


@contextlib.contextmanager
def _signals_held(signums: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Hold SIGINT / SIGTERM back while the block runs, then deliver them to the handlers that were
    installed before (so Ctrl-C during the renames interrupts after the last one).  Only the main
    thread can install handlers; elsewhere the block runs unprotected."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    before: dict[int, Any] = {}
    for s in signums:
        try:
            before[s] = signal.signal(s, lambda signum, frame: got.append(signum))
        except (OSError, ValueError):
            pass
    try:
        yield
    finally:
        for s, h in before.items():
            signal.signal(s, signal.SIG_DFL if h is None else h)
        for s in dict.fromkeys(got):
            signal.raise_signal(s)


@dataclass(frozen=True)
class _Staged:
    label: str
    path: str  # as the caller wrote it (for messages)
    dest: str  # resolved
    tmp: str
    folder: bool

    def commit(self) -> None:
        if self.folder:
            _swap_folder(self.tmp, self.dest)
        else:
            os.replace(self.tmp, self.dest)
            _fsync_dir(os.path.dirname(self.dest))


class Outputs:
    """The outputs of one run, staged as temporaries and renamed into place together.

    Use::

        with Outputs() as outs:
            outs.write_text("report.json", text, label="--report")
            outs.write_with("release.csv", lambda f: df.to_csv(f, index=False), label="--out")
            outs.commit()

    Each ``write_*`` / ``replace_folder`` writes its temporary at once (OSError: that output
    cannot be written; nothing is renamed).  :meth:`commit` renames every temporary in the order
    staged, holding SIGINT / SIGTERM until the last rename; leaving the ``with`` block without a
    commit (an exception, Ctrl-C) removes every temporary, and the destinations stay as they were.
    A rename that fails in commit raises its OSError with ``output_label`` (the label given),
    ``output_path`` (the path given) and ``filename`` set; that output and the ones staged after it
    are removed, the ones before it are in place.
    """

    def __init__(self) -> None:
        self._items: list[_Staged] = []

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.discard()

    def write_with(self, path: str | os.PathLike, writer: Callable[[IO], Any], *, label: str | None = None,
                   binary: bool = False, encoding: str = "utf-8", newline: str | None = "") -> None:
        """Stage ``path``: ``writer(f)`` writes the content to ``f``, an open temporary (text with
        ``encoding`` and ``newline``, default "" = no newline translation; bytes with binary=True)."""
        dest = _resolve(path)
        tmp = _write_temp(dest, writer, binary, encoding, newline, _mode_of(dest))
        self._items.append(_Staged(label or os.fspath(path), os.fspath(path), dest, tmp, False))

    def write_text(self, path: str | os.PathLike, text: str, *, label: str | None = None,
                   encoding: str = "utf-8") -> None:
        """Stage ``path`` with ``text`` (written as it is: no newline translation)."""
        self.write_with(path, lambda f: f.write(text), label=label, encoding=encoding)

    def write_bytes(self, path: str | os.PathLike, data: bytes, *, label: str | None = None) -> None:
        """Stage ``path`` with ``data``."""
        self.write_with(path, lambda f: f.write(data), label=label, binary=True)

    def replace_folder(self, path: str | os.PathLike, files: Mapping[str, str | bytes], *,
                       label: str | None = None, modes: Mapping[str, int] | None = None,
                       drop: Callable[[str], bool] | None = None) -> None:
        """Stage the folder ``path`` holding ``files`` ({plain file name: text or bytes}).

        The new folder is built complete in a temporary sibling.  When ``path`` exists, its files
        named in ``files`` are replaced, its entries for which ``drop(name)`` is true (stale
        outputs of an earlier run) are left out, and every other entry is carried over (hard
        links; copies where links are not possible; folders recursively), so nothing the caller
        does not own is lost.  ``modes``: {name: permission bits} (default: the old file's bits,
        else the umask default).  The old folder is replaced only at commit, after the new one is
        complete (see _swap_folder for the crash window).  Refused (OSError): ``path`` is a file,
        or the current folder or one holding it; ValueError: a name that is not a plain file name.
        """
        dest = _resolve(path)
        tmp = _build_folder(dest, os.fspath(path), files, modes, drop)
        self._items.append(_Staged(label or os.fspath(path), os.fspath(path), dest, tmp, True))

    def commit(self) -> None:
        """Rename every staged temporary into place, in the order staged (see the class docstring).
        Each committed output's path is appended to :data:`COMMITTED` (the CLI's interrupt message)."""
        with _signals_held():
            while self._items:
                item = self._items[0]
                try:
                    item.commit()
                except OSError as e:
                    e.output_label, e.output_path = item.label, item.path  # type: ignore[attr-defined]
                    e.filename = e.filename or item.path
                    self.discard()
                    raise
                COMMITTED.append(item.path)
                self._items.pop(0)

    def discard(self) -> None:
        """Remove every staged temporary that was not committed (the destinations are untouched)."""
        while self._items:
            _remove(self._items.pop().tmp)


def write_with(path: str | os.PathLike, writer: Callable[[IO], Any], *, binary: bool = False,
               encoding: str = "utf-8", newline: str | None = "") -> None:
    """Write one file atomically.

    ``writer(f)`` fills an open temporary beside ``path``, which is fsynced and renamed over
    ``path``.  On any exception (KeyboardInterrupt too) the temporary is removed and ``path`` is
    as it was.

    Parameters
    ----------
    path : str or os.PathLike
        The destination (a symbolic link is followed).
    writer : callable
        ``writer(f)`` writes the content to the open temporary ``f``.
    binary : bool
        Open the temporary in binary mode.
    encoding : str
        Text encoding (text mode).
    newline : str or None
        Newline translation of the text mode; "" (default) = none.

    Raises
    ------
    OSError
        When the folder cannot be written.
    """
    with Outputs() as outs:
        outs.write_with(path, writer, binary=binary, encoding=encoding, newline=newline)
        outs.commit()


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (no newline translation).

    Parameters
    ----------
    path : str or os.PathLike
        The destination.
    text : str
        The content.
    encoding : str
        Text encoding.

    Raises
    ------
    OSError
        As :func:`write_with`.
    """
    write_with(path, lambda f: f.write(text), encoding=encoding)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.
    data : bytes
        The content.

    Raises
    ------
    OSError
        As :func:`write_with`.
    """
    write_with(path, lambda f: f.write(data), binary=True)


def replace_folder(path: str | os.PathLike, files: Mapping[str, str | bytes], *,
                   modes: Mapping[str, int] | None = None, drop: Callable[[str], bool] | None = None) -> None:
    """Build the folder ``path`` holding ``files`` in a temporary sibling and swap it into place.

    Outputs.replace_folder: what is kept, dropped and refused; _swap_folder: the crash window.

    Parameters
    ----------
    path : str or os.PathLike
        The destination folder.
    files : mapping of str to str or bytes
        {plain file name: text or bytes}.
    modes : mapping of str to int or None
        {name: permission bits} (default: the old file's bits, else the umask default).
    drop : callable or None
        ``drop(name)`` true: an entry of the old folder that is left out.

    Raises
    ------
    OSError
        If ``path`` is a file, or the current folder or one holding it, or cannot be written.
    ValueError
        For a name that is not a plain file name.
    """
    with Outputs() as outs:
        outs.replace_folder(path, files, modes=modes, drop=drop)
        outs.commit()


def check_folder(path: str | os.PathLike) -> None:
    """Before a run: check that ``path`` can be replaced as a folder (replace_folder).

    A temporary is created and removed in its parent; ``path`` itself is not touched.

    Parameters
    ----------
    path : str or os.PathLike
        The destination folder.

    Raises
    ------
    OSError
        When ``path`` is a file (NotADirectoryError), or the current folder or one holding it,
        or its parent cannot be written.
    """
    dest = _resolve(path)
    _refuse_current_folder(dest, os.fspath(path))
    if os.path.lexists(dest) and not os.path.isdir(dest):
        raise NotADirectoryError(errno.ENOTDIR, "it exists and is not a folder", os.fspath(path))
    check_writable(dest)


def check_writable(path: str | os.PathLike) -> None:
    """Create and remove a temporary beside ``path``: the check a run makes before any work.

    ``path`` itself is never touched.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.

    Raises
    ------
    OSError
        When its folder cannot be written.
    """
    tmp = temp_path(_resolve(path))
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.remove(tmp)


__all__ = ["PAUSE_ENV", "Outputs", "check_folder", "check_writable", "is_temporary", "replace_folder", "temp_path", "write_bytes",
           "write_text", "write_with"]
