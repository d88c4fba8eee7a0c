"""kvlog.iceberg's exactly-once claims under kills and races: an exporter SIGKILLed at any moment loses and
duplicates nothing, and exporters racing on one table leave each record once (Iceberg's optimistic commit)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


import kvlog.iceberg as ki
from kvlog.errors import IcebergExportError
from tests.iceberg_support import assert_exactly, write_topic

T = "kafka.clicks"
REPO = Path(__file__).resolve().parents[1]
CHILD = """
import sys, kvlog.iceberg as ki
r = ki.export(sys.argv[1], "clicks", "kafka.clicks", warehouse=sys.argv[2], commit_bytes=int(sys.argv[3]),
              progress=lambda d, t: None)
print("done", r.rows, r.commits, r.retries, flush=True)
"""


def _child(root: Path, wh: Path, commit_bytes: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(wh), str(commit_bytes)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _commits(wh: Path) -> int:
    try:
        t = ki.catalog(wh).load_table(T)
    except Exception:
        return 0
    return len(t.snapshots())


def test_kill_sweep_loses_and_duplicates_nothing(tmp_path: Path):
    """Exporters SIGKILLed after growing delays (each resuming where the table says, with more records
    appended between runs), then one run to the end: every record exactly once."""
    root, wh = tmp_path / "d", tmp_path / "wh"
    expected = write_topic(root, partitions=3, n=1500)
    killed_mid = 0
    rng = random.Random(5)
    for i, k in enumerate((1, 3, 5, 2, 8, 4, 6)):
        # each exporter killed once it has committed k more times, a random few milliseconds later: anywhere in
        # reading, writing files or committing the next chunk
        before = _commits(wh)
        child = _child(root, wh, 12_000)
        deadline = time.monotonic() + 120
        while child.poll() is None and _commits(wh) < before + k and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.08))
        finished = child.poll() is not None
        child.send_signal(signal.SIGKILL)
        child.communicate()
        after = _commits(wh)
        if not finished and after > before:
            killed_mid += 1
        if i % 2 == 1:
            expected.update(write_topic(root, partitions=3, n=200, start=1500 + 200 * i))
        # whatever was committed so far is exactly a prefix of each partition
        t = ki.catalog(wh).load_table(T) if after else None
        if t is not None:
            offsets = json.loads(t.current_snapshot().summary["kvlog.offsets"])
            rows = t.scan().to_arrow()
            have = sorted(zip(rows.column("partition").to_pylist(), rows.column("offset").to_pylist()))
            assert have == sorted((int(p), o) for p, n in offsets.items() for o in range(n))
    assert killed_mid >= 4, f"only {killed_mid} of 7 exporters were killed between their commits: make the topic bigger"
    last = _child(root, wh, 12_000)
    out, err = last.communicate(timeout=300)
    assert last.returncode == 0, err
    assert_exactly(ki.catalog(wh), T, expected)


def test_a_commit_lost_to_another_exporter_is_retried_from_the_new_state(tmp_path: Path):
    root, wh = tmp_path / "d", tmp_path / "wh"
    expected = write_topic(root, partitions=2, n=200)
    ki.export(root, "clicks", T, warehouse=wh, partition_by=None)  # the table exists, at the end
    expected.update(write_topic(root, partitions=2, n=100, start=200))
    other: list[ki.ExportResult] = []

    def meanwhile(done: int, total: int) -> None:
        if not other:  # while this exporter reads, another one exports everything and commits first
            other.append(ki.export(root, "clicks", T, warehouse=wh))

    r = ki.export(root, "clicks", T, warehouse=wh, progress=meanwhile)
    assert other[0].rows == 200
    assert (r.retries, r.rows, r.commits) == (1, 0, 0)
    assert r.offsets == {0: 300, 1: 300}
    assert_exactly(ki.catalog(wh), T, expected)


def test_without_retries_the_loser_refuses_with_the_reason(tmp_path: Path):
    root, wh = tmp_path / "d", tmp_path / "wh"
    expected = write_topic(root, partitions=1, n=50)
    ki.export(root, "clicks", T, warehouse=wh)
    expected.update(write_topic(root, partitions=1, n=50, start=50))
    done: list[int] = []

    def meanwhile(d: int, t: int) -> None:
        if not done:
            done.append(ki.export(root, "clicks", T, warehouse=wh).rows)

    with pytest.raises(IcebergExportError, match="another writer committed to the table first"):
        ki.export(root, "clicks", T, warehouse=wh, retries=0, progress=meanwhile)
    assert done == [50]
    assert_exactly(ki.catalog(wh), T, expected)


def test_racing_processes_leave_each_record_once(tmp_path: Path):
    root, wh = tmp_path / "d", tmp_path / "wh"
    expected = write_topic(root, partitions=3, n=800)
    kids = [_child(root, wh, 20_000) for _ in range(3)]
    outs = [k.communicate(timeout=300) for k in kids]
    failed = [(k.returncode, e[-2000:]) for k, (o, e) in zip(kids, outs) if k.returncode != 0]
    # a loser retries up to 3 times; one that lost more often refuses with the reason, never writes twice
    for code, err in failed:
        assert "another writer committed to the table first" in err, err
    assert len(failed) < 3
    assert_exactly(ki.catalog(wh), T, expected)
    rows = sum(int(o.split()[1]) for k, (o, e) in zip(kids, outs) if k.returncode == 0)
    assert rows <= len(expected)


OPEN_CHILD = """
import sys, kvlog.iceberg as ki
import pyiceberg.catalog.sql, sqlalchemy  # imported before "ready": what follows is the open alone
print("ready", flush=True)
ki.catalog(sys.argv[1]).list_namespaces()
print("opened", flush=True)
"""


def test_first_opens_of_a_new_warehouse_wait_for_each_other(tmp_path: Path):
    """pyiceberg creates the embedded catalog's tables on first open; processes opening a new warehouse at once
    take turns (they failed with 'table iceberg_tables already exists' when they did not)."""
    import fcntl

    wh = tmp_path / "wh"
    wh.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    fd = os.open(wh / "kvlog-catalog.db.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        kids = [subprocess.Popen([sys.executable, "-c", OPEN_CHILD, str(wh)], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(4)]
        for k in kids:
            assert k.stdout is not None and k.stdout.readline() == "ready\n"
        time.sleep(1.0)
        # all four are waiting for the lock: none has made the catalog yet
        assert not (wh / "kvlog-catalog.db").exists()
        assert all(k.poll() is None for k in kids)
    finally:
        os.close(fd)
    outs = [k.communicate(timeout=120) for k in kids]
    assert [k.returncode for k in kids] == [0] * 4, [e[-1500:] for _, e in outs]
    assert [o for o, _ in outs] == ["opened\n"] * 4
    assert ki.catalog(wh).list_namespaces() == []
