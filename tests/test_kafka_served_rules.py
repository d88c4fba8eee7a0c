"""Rules a real broker showed when it served what kvlog wrote (tests/test_broker_serve_writers.py), checked
here without a broker: each test failed before its fix."""

from __future__ import annotations

import os
import random

import pyarrow as pa

from kvlog import LogConfig, LogManager, Record
from kvlog.cleaner import LogCleaner
from kvlog.log import Log

T0 = 1_700_000_000_000
BROKER_MARKER = b'{"version":0,"brokerEpoch":11}'


def test_manager_keeps_the_brokers_clean_shutdown_marker(tmp_path):
    """A Kafka 3.7+ broker's .kafka_cleanshutdown holds its broker epoch; a KRaft broker registers with it, and
    without it the controller takes the broker for uncleanly shut down and elects every partition of it
    uncleanly (4.4.0: "UNCLEAN partition change ... leaderRecoveryState: RECOVERED -> RECOVERING"). kvlog
    wrote the marker back empty."""
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 1)
    (tmp_path / ".kafka_cleanshutdown").write_bytes(BROKER_MARKER)  # as the broker leaves it
    with LogManager(tmp_path) as mgr:
        assert not (tmp_path / ".kafka_cleanshutdown").exists()  # consumed at open, as before
        mgr.log("t", 0).append([Record(b"k", b"v", T0)])
    assert (tmp_path / ".kafka_cleanshutdown").read_bytes() == BROKER_MARKER


def test_manager_vouches_only_for_logs_it_recovered(tmp_path):
    """A directory whose broker stopped uncleanly (no marker): the broker recovers its logs on the next start
    unless a marker says the stop was clean. kvlog wrote one on close although it had opened (and so
    recovered) only some of the partitions; now only when it opened all of them."""
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 2)
    (tmp_path / ".kafka_cleanshutdown").unlink()  # as a killed broker leaves it
    with LogManager(tmp_path) as mgr:
        mgr.log("t", 0).append([Record(b"k", b"v", T0)])
    assert not (tmp_path / ".kafka_cleanshutdown").exists()
    with LogManager(tmp_path) as mgr:
        mgr.log("t", 0)
        mgr.log("t", 1)
    assert (tmp_path / ".kafka_cleanshutdown").read_bytes() == b""


def _sink_write(root, rows, topic="t"):
    """The Python sink's task and driver steps (kvlog.spark.sink without Spark): plan, stage, commit."""
    from kvlog.spark import _staging

    p = _staging.plan(str(root), {"topic": topic}, rows.schema.names, False)
    staged = _staging.stage_batches(p, [rows], os.path.join(_staging.job_dir(p.root, p.job), "task-0"))
    _staging.commit(p, staged)


def test_python_sink_writes_past_segment_bytes(tmp_path):
    """The Python sink appended a task's whole output for a partition at once, and Kafka's rule refuses an
    append larger than segment.bytes: a job writing more than that to one partition failed at its commit
    (Kafka 3.7.2's smallest segment.bytes, 16384, with 2 KiB of rows; 1 GiB by default). Its batches were up to
    1 MiB whatever the topic's segment.bytes, which Kafka refuses too. Now the batches fit the topic and the
    commit appends them a segment's worth at a time."""
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 1, LogConfig(segment_bytes=16384))
    rng = random.Random(3)
    rows = pa.record_batch({"key": pa.array([b"k%d" % i for i in range(120)], pa.binary()),
                            "value": pa.array([rng.randbytes(1000) for _ in range(120)], pa.binary())})
    _sink_write(tmp_path, rows)
    with LogManager(tmp_path, read_only=True) as mgr:
        log = mgr.log("t", 0)
        assert [r.value for r in log.records()] == rows.column("value").to_pylist()
        assert len(log.segments) >= 8 and all(s.size_in_bytes <= 16384 for s in log.segments)
        assert all(b.size_in_bytes <= 16384 for s in log.segments for b in log.read(s.base_offset).batches())


def test_list_offsets_ends_at_the_first_segment_reaching_the_target(tmp_path):
    """Kafka's ListOffsets searches only the first segment whose largest timestamp reaches the target, and a
    segment without any timestamp (an empty one, which compaction leaves) counts by its file's mtime. A broker
    serving kvlog's cleaner output answered -1 for every target up to such a segment's mtime, where kvlog went
    on to the next segment and answered its record."""
    cfg = LogConfig(cleanup_policy="compact", segment_bytes=1024)
    with Log.open(tmp_path / "t-0", cfg) as log:
        for i in range(10):
            log.append([Record(b"k%d" % (i % 5), b"old" * 20, T0 + i)])
        log.roll()
        for i in range(5):
            log.append([Record(b"k%d" % i, b"new", T0 + 100 + i)])
        log.roll()
        LogCleaner().clean(log, now_ms=T0 + 1000)
        first = log.segments[0]
        assert first.size_in_bytes == 0 and [r.offset for r in log.records()] == [10, 11, 12, 13, 14]
        os.utime(first.log_path, ((T0 - 1000) / 1000,) * 2)  # older than every target: the search goes on
        assert (log.offset_for_timestamp(T0 + 50).offset, log.offset_for_timestamp(T0 + 102).offset) == (10, 12)
        os.utime(first.log_path, ((T0 + 101) / 1000,) * 2)  # reaches T0 + 50 and T0 + 101, not T0 + 102
        assert log.offset_for_timestamp(T0 + 50) is None
        assert log.offset_for_timestamp(T0 + 101) is None
        assert log.offset_for_timestamp(T0 + 102).offset == 12


def _served_after_a_sink(tmp_path, hw: int | None):
    """A broker's log directory a kvlog sink governed at offset 5 (kvlog-committed-offsets), to which the broker
    then appended offsets 5..7 (stamped with its leader epoch) and, on stopping, checkpointed high watermark
    ``hw``."""
    from kvlog import committed_offsets, encode_batch

    with Log.open(tmp_path / "t-0") as log:
        log.append([Record(b"k%d" % i, b"kvlog", T0 + i) for i in range(5)])
        for i in range(5, 8):
            log.append(encode_batch([Record(b"k%d" % i, b"broker", T0 + i)], partition_leader_epoch=2))
    text = committed_offsets.format_text(1, "batch-job", {("t", 0): (0, 5)}, {})
    assert committed_offsets.publish(str(tmp_path), 1, text)
    (tmp_path / "meta.properties").write_text("version=1\nnode.id=1\n")
    if hw is not None:
        (tmp_path / "replication-offset-checkpoint").write_text(f"0\n1\nt 0 {hw}\n")


def test_a_broker_ends_a_sinks_governance(tmp_path):
    """The JVM sink governs a data directory it writes (kvlog-committed-offsets, the directory as it was its
    first version), and kvlog then reads nothing past a partition's committed end and sets it aside when it
    opens the partition for writing: a failed job's leftovers. A broker started on the directory afterwards
    appends past those ends (acknowledged records), so kvlog no longer saw what the broker served, and its
    writers cut it away (the broker test lost the record it had produced through Kafka when kvlog reopened the
    partition). A high watermark past the committed end (only a broker writes replication-offset-checkpoint)
    releases the partition."""
    _served_after_a_sink(tmp_path, hw=8)
    with Log.open(tmp_path / "t-0", read_only=True) as log:
        assert log.log_end_offset == 8
    with Log.open(tmp_path / "t-0") as log:
        assert [r.value for r in log.records()] == [b"kvlog"] * 5 + [b"broker"] * 3
    assert not [n for n in os.listdir(tmp_path / "t-0") if "uncommitted" in n]


def test_a_sinks_leftovers_stay_uncommitted_without_a_broker(tmp_path):
    """What is past the committed end without a broker's high watermark past it is still a failed job's."""
    _served_after_a_sink(tmp_path, hw=5)
    with Log.open(tmp_path / "t-0", read_only=True) as log:
        assert log.log_end_offset == 5
