"""Containment: private files, no symlink followed out of a log, one writer across processes."""

import os
import stat
import subprocess
import sys

import pytest

import kvlog
from kvlog import LogConfig, LogManager, Record
from kvlog.log import Log

T0 = 1_700_000_000_000


def test_files_and_directories_are_private(tmp_path):
    with LogManager(tmp_path / "data") as mgr:
        mgr.create_topic("t", 1)[0].append([Record(b"k", b"v", T0)])
    for dirpath, dirnames, filenames in os.walk(tmp_path / "data"):
        for name in dirnames:
            assert stat.S_IMODE(os.stat(os.path.join(dirpath, name)).st_mode) & 0o077 == 0, name
        for name in filenames:
            assert stat.S_IMODE(os.stat(os.path.join(dirpath, name)).st_mode) & 0o077 == 0, name


def test_symlinked_segment_file_is_refused(tmp_path):
    outside = tmp_path / "elsewhere.log"
    outside.write_bytes(kvlog.encode_batch([Record(b"k", b"v", T0)]))
    d = tmp_path / "t-0"
    d.mkdir()
    os.symlink(outside, d / f"{0:020d}.log")
    with pytest.raises(kvlog.KvlogError):
        Log.open(d)
    assert outside.read_bytes() == kvlog.encode_batch([Record(b"k", b"v", T0)])  # untouched


def test_partition_directory_outside_the_root_is_refused(tmp_path):
    root = tmp_path / "data"
    with LogManager(root) as mgr:
        mgr.create_topic("t", 1)
    elsewhere = tmp_path / "elsewhere"
    os.rename(root / "t-0", elsewhere)
    os.symlink(elsewhere, root / "t-0")
    with LogManager(root) as mgr:
        with pytest.raises(kvlog.KvlogError, match="outside the data directory"):
            mgr.log("t", 0)


def test_second_writer_process_gets_log_locked_error(tmp_path):
    log = Log.open(tmp_path / "t-0", LogConfig())
    code = ("import sys, kvlog\nfrom kvlog.log import Log\n"
            "try:\n    Log.open(sys.argv[1])\nexcept kvlog.LogLockedError:\n    sys.exit(3)\nsys.exit(0)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t-0")], capture_output=True, timeout=60)
    assert proc.returncode == 3, proc.stderr.decode()
    reader = subprocess.run(
        [sys.executable, "-c", "import sys; from kvlog.log import Log; "
         "print(Log.open(sys.argv[1], read_only=True).log_end_offset)", str(tmp_path / "t-0")],
        capture_output=True, timeout=60)
    assert reader.returncode == 0 and reader.stdout.strip() == b"0"  # readers need no lock
    log.close()
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t-0")], capture_output=True, timeout=60)
    assert proc.returncode == 0
