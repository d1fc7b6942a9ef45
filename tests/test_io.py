"""Atomic writes: a failed or killed writer never damages the previous file or directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from logical_pyserini._io import (
    OutputError,
    atomic_directory,
    atomic_write,
    atomic_write_text,
    check_writable,
    partial_path,
)


def test_atomic_write_replaces_only_on_success(tmp_path):
    target = tmp_path / "run.txt"
    atomic_write_text(target, "old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as f:
            f.write("new but incomplete")
            raise RuntimeError("crash")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt"]  # temp file removed
    with atomic_write(target) as f:
        f.write("new\n")
    assert target.read_text() == "new\n"


def test_append_mode_keeps_old_lines(tmp_path):
    target = tmp_path / "cache.jsonl"
    atomic_write_text(target, "a\n")
    with atomic_write(target, "a") as f:
        f.write("b\n")
    assert target.read_text() == "a\nb\n"


def test_partial_kept_on_failure(tmp_path):
    target = tmp_path / "run.txt"
    atomic_write_text(target, "old\n")
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(target, partial=True) as f:
            f.write("q1 done\n")
            raise KeyboardInterrupt
    assert target.read_text() == "old\n"
    assert partial_path(target).read_text() == "q1 done\n"


def test_kill_9_mid_write_leaves_previous_file(tmp_path):
    target = tmp_path / "run.txt"
    atomic_write_text(target, "previous run\n")
    code = textwrap.dedent(f"""
        import sys, time
        from logical_pyserini._io import atomic_write
        with atomic_write({str(target)!r}) as f:
            f.write("half")
            f.flush()
            print("ready", flush=True)
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert target.read_text() == "previous run\n"


def test_unwritable_and_directory_targets_are_one_line_errors(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # running as root: permissions are not enforced
            pytest.skip("root ignores directory permissions")
        with pytest.raises(OutputError, match="not writable"):
            check_writable(locked / "run.txt")
        with pytest.raises(OutputError, match="not writable"):
            atomic_write_text(locked / "run.txt", "x")
    finally:
        locked.chmod(0o700)
    with pytest.raises(OutputError, match="is a directory"):
        check_writable(tmp_path)


def test_full_disk_is_an_output_error(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    # /dev/full fails every write with ENOSPC: the error names the disk, not a traceback.
    with pytest.raises(OutputError, match="no space left"):
        with atomic_write(tmp_path / "x.txt") as f:
            f.write("x")
            f.flush()
            os.dup2(os.open("/dev/full", os.O_WRONLY), f.fileno())
            f.write("y" * 10)
            f.flush()


def test_atomic_directory_swaps_and_keeps_old_on_failure(tmp_path):
    target = tmp_path / "index"
    with atomic_directory(target) as tmp:
        (tmp / "segment").write_text("v1")
    assert (target / "segment").read_text() == "v1"
    with pytest.raises(FileExistsError):
        with atomic_directory(target):
            pass
    with pytest.raises(RuntimeError):
        with atomic_directory(target, overwrite=True) as tmp:
            (tmp / "segment").write_text("v2 half")
            raise RuntimeError("killed")
    assert (target / "segment").read_text() == "v1"
    with atomic_directory(target, overwrite=True) as tmp:
        (tmp / "segment").write_text("v2")
    assert (target / "segment").read_text() == "v2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index"]
