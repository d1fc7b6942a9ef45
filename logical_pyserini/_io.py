"""Atomic writes of files and directories, and one-line errors for malformed JSON input (stdlib only, the
lowest floor).

Every output the project writes (run files, caches, calibration files,
indexes) goes through here so that a crash, ``kill -9`` or full disk never
leaves a truncated file where a good one used to be: data is written to a
temporary sibling in the same directory, flushed and fsync'ed, then renamed
over the target (``os.replace`` is atomic on POSIX), and the directory entry
is fsync'ed too.

>>> with atomic_write("runs/x.txt") as f:          # doctest: +SKIP
...     f.write("...")
>>> atomic_write_text("cache.json", json.dumps(d))  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, Iterator

__all__ = [
    "OutputError",
    "atomic_directory",
    "atomic_write",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_writable",
    "fsync_dir",
    "parse_json_object",
    "partial_path",
]


class OutputError(OSError):
    """An output cannot be written (unwritable directory, full disk); the message is one line."""


def describe_os_error(exc: OSError, path: str | os.PathLike) -> str:
    """One line for an OS error on ``path`` (full disk and permissions spelled out)."""
    if exc.errno == errno.ENOSPC:
        return f"{path}: no space left on device"
    if exc.errno == errno.EDQUOT:
        return f"{path}: disk quota exceeded"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{path}: not writable ({exc.strerror})"
    return f"{path}: {exc.strerror or exc}"


def parse_json_object(text: str, where: str, error: type[Exception] = ValueError) -> dict:
    """``text`` parsed as one JSON object, or ``error`` with one line naming ``where``.

    ``where`` is what a user can find: ``file:line`` of a JSONL row,
    ``calibration file PATH``, ``prompt 'name'``.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        line = f", line {exc.lineno}" if exc.lineno > 1 else ""
        raise error(f"{where}: invalid JSON ({exc.msg}{line})") from None
    if not isinstance(data, dict):
        raise error(f"{where}: expected a JSON object")
    return data


def fsync_dir(path: str | os.PathLike) -> None:
    """fsync a directory so a rename inside it survives a power loss (no-op where unsupported)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def partial_path(path: str | os.PathLike) -> Path:
    """The fixed temporary sibling a resumable output is written to (``PATH.partial``)."""
    path = Path(path)
    return path.with_name(path.name + ".partial")


def check_writable(path: str | os.PathLike) -> None:
    """Fail early, with one line, when ``path``'s directory cannot take a new file.

    Creates the parent directory if needed.

    Raises
    ------
    OutputError
        If the directory cannot be created or written, or ``path`` is a directory.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError(errno.EISDIR, f"{path}: is a directory, not a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputError(exc.errno, describe_os_error(exc, path)) from None


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike,
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    partial: bool = False,
) -> Iterator[IO]:
    """Open a temporary sibling of ``path``; on success it replaces ``path`` atomically.

    Parameters
    ----------
    path : str
        Final location (its parent directory is created).
    mode : str
        ``"w"`` (text) or ``"wb"``; ``"a"`` appends to a copy of the current file.
    encoding : str
        Text encoding (ignored for binary modes).
    partial : bool
        Write to the fixed sibling ``PATH.partial`` and leave it in place when
        the block raises (a resumable run keeps what it has done); otherwise a
        unique temporary name is used and removed on failure.

    Raises
    ------
    OutputError
        When the file cannot be created or written (one-line message).
    """
    path = Path(path)
    if "r" in mode or "+" in mode:
        raise ValueError(f"atomic_write is for writing, not mode {mode!r}")
    binary = "b" in mode
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if partial:
            tmp = partial_path(path)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in mode else os.O_TRUNC), 0o666)
        else:
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            tmp = Path(name)
            os.chmod(tmp, 0o666 & ~_umask())
            if "a" in mode and path.exists():
                with open(path, "rb") as src, os.fdopen(os.dup(fd), "wb") as dst:
                    shutil.copyfileobj(src, dst)
    except OSError as exc:
        raise OutputError(exc.errno, describe_os_error(exc, path)) from None
    f = os.fdopen(fd, mode.replace("a", "w") if not partial else mode, **({} if binary else {"encoding": encoding}))
    try:
        yield f
        f.flush()
        os.fsync(f.fileno())
        f.close()
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            f.close()
        if not partial:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError) and exc.errno is not None:
            raise OutputError(exc.errno, describe_os_error(exc, path)) from exc
        raise


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_write(path, "w", encoding=encoding) as f:
        f.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_write(path, "wb") as f:
        f.write(data)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_RENAME_EXCHANGE = 2
_libc = None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically with renameat2(RENAME_EXCHANGE); False where unsupported."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            _libc.renameat2  # noqa: B018 - probe: glibc >= 2.28
        except (OSError, AttributeError):
            _libc = False
    if not _libc:
        return False
    at_fdcwd = -100
    rc = _libc.renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if rc != 0:
        err = ctypes.get_errno()
        if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            return False
        raise OSError(err, os.strerror(err), str(b))
    return True


def _fsync_tree(root: Path) -> None:
    for dirpath, _, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(dirpath)


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike, overwrite: bool = False) -> Iterator[Path]:
    """Build a directory in a temporary sibling; on success it takes ``path``'s place.

    A killed or failing build leaves ``path`` as it was (the old index stays
    usable) and removes the temporary directory (a ``kill -9`` leaves a
    ``.NAME.tmp-*`` sibling behind, cleaned on the next build).  The old
    directory is swapped out atomically (``renameat2(RENAME_EXCHANGE)`` on
    Linux) and only then deleted.

    Raises
    ------
    FileExistsError
        If ``path`` exists and ``overwrite`` is False.
    OutputError
        If the parent directory is not writable or the disk is full.
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} already exists (pass --overwrite to replace it)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in path.parent.glob(f".{path.name}.tmp-*"):  # left by a killed build
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-", dir=path.parent))
    except OSError as exc:
        raise OutputError(exc.errno, describe_os_error(exc, path)) from None
    try:
        yield tmp
        _fsync_tree(tmp)
        if path.exists() and path.is_dir() and _exchange(tmp, path):
            shutil.rmtree(tmp, ignore_errors=True)  # now holds the old directory
        else:
            if path.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-", dir=path.parent))
                os.replace(path, old / "old")
                os.replace(tmp, path)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError) and exc.errno is not None:
            raise OutputError(exc.errno, describe_os_error(exc, path)) from exc
        raise
