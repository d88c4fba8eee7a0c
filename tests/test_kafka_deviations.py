"""Regression tests for places where kvlog behaved unlike Kafka on a real broker directory (issue 13, item 5).

- Brokers leave 0-byte checkpoint files (``cleaner-offset-checkpoint`` of a broker that never cleaned);
  Kafka's ``CheckpointFile`` reader returns no entries for a file without a first line.
- Kafka's cleaner and its logs share one ``Time``: a ``LogCleaner`` without a clock of its own follows the
  log's injected clock when it stamps KIP-534 delete horizons and expires tombstones.
"""

from __future__ import annotations

import os

import pytest

import kvlog
from kvlog import LogConfig, LogManager, Record, checkpoint
from kvlog.cleaner import LogCleaner
from kvlog.cli import main
from kvlog.log import Log

T0 = 1_000_000  # 1970: far from the wall clock, so a horizon stamped from the wall clock shows


@pytest.mark.parametrize("name", [checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.CLEANER_OFFSET])
def test_an_empty_checkpoint_file_reads_as_empty(tmp_path, name):
    """A 0-byte checkpoint has no entries; a version line without a count is still malformed."""
    path = tmp_path / name
    path.write_bytes(b"")
    assert checkpoint.read_offsets(str(path)) == {}
    path.write_bytes(b"0\n")
    with pytest.raises(checkpoint.CorruptCheckpointError, match="malformed header"):
        checkpoint.read_offsets(str(path))


def test_verify_accepts_a_broker_directory_with_empty_checkpoints(tmp_path, capfd):
    """kvlog verify passes a data directory whose checkpoints (root and leader-epoch) are 0 bytes; logs
    open over them."""
    root = tmp_path / "data"
    with LogManager(root) as mgr:
        mgr.create_topic("clicks", 1)
        mgr.log("clicks", 0).append([Record(b"k", b"v", T0)])
    for name in (checkpoint.CLEANER_OFFSET, checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET):
        (root / name).write_bytes(b"")
    (root / "clicks-0" / "leader-epoch-checkpoint").write_bytes(b"")
    rc = main(["verify", str(root)])
    out, _ = capfd.readouterr()
    assert rc == 0, out
    with Log.open(root / "clicks-0") as log:
        assert [r.value for r in log.records()] == [b"v"]


def test_the_cleaner_follows_the_log_clock(tmp_path):
    """Without a clock of its own, the cleaner stamps delete horizons with the log's time and expires
    tombstones by it."""
    now = [T0]
    log = Log.open(tmp_path / "t-0", LogConfig(cleanup_policy="compact", delete_retention_ms=60_000),
                   time=lambda: now[0])
    log.append([Record(b"a", b"1", T0), Record(b"b", b"2", T0), Record(b"a", None, T0)])
    log.roll()
    cleaner = LogCleaner(1 << 20)
    cleaner.clean(log)
    horizons = [b.delete_horizon_ms for s in log.segments
                for b in kvlog.MemoryRecords(s.pread(0, s.size_in_bytes)).batches() if b.has_delete_horizon]
    assert horizons == [T0 + 60_000]
    now[0] += 61_000
    cleaner.clean(log)
    assert {r.key: r.value for r in log.records()} == {b"b": b"2"}
    log.close()


def test_an_explicit_cleaner_clock_still_wins(tmp_path):
    """A cleaner given its own clock uses it, whatever the log's."""
    log = Log.open(tmp_path / "t-0", LogConfig(cleanup_policy="compact", delete_retention_ms=1_000),
                   time=lambda: T0)
    log.append([Record(b"a", b"1", T0), Record(b"a", None, T0)])
    log.roll()
    LogCleaner(1 << 20, time=lambda: 5 * T0).clean(log)
    horizons = [b.delete_horizon_ms for s in log.segments
                for b in kvlog.MemoryRecords(s.pread(0, s.size_in_bytes)).batches() if b.has_delete_horizon]
    assert horizons == [5 * T0 + 1_000]
    assert os.path.isdir(log.dir)
    log.close()
