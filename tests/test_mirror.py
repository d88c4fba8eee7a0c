"""Mirroring (kvlog.mirror, ``kvlog mirror``): content kept, offsets reassigned, resumable, read-only."""

import json
import os
import re
import threading

import numpy as np
import pytest

import kvlog
from kvlog import LogConfig, MemoryRecords, Record
from kvlog.cli import main
from kvlog.errors import OffsetOutOfRangeError
from kvlog.log import Log
from kvlog.manager import LogManager
from kvlog.mirror import CHECKPOINT_FILE, mirror_directory, mirror_log, read_checkpoint

T0 = 1_700_000_000_000


class Clock:
    def __init__(self, t=T0):
        self.t = t

    def __call__(self):
        return self.t


def content(log, start=None):
    return [(r.key, r.value, r.timestamp, tuple(r.headers)) for r in log.records(start)]


def make_records(n, start=0, ts=T0):
    out = []
    for i in range(start, start + n):
        headers = (("trace", b"%d" % i), ("empty", None)) if i % 3 == 0 else ()
        out.append(Record(b"key-%d" % i if i % 5 else None, b"value-%d" % i * 4, ts + i * 10, headers))
    return out


def source_log(tmp_path, name="src-0", n=40, **cfg):
    log = Log.open(tmp_path / name, LogConfig(**cfg), time=Clock())
    for i in range(0, n, 4):
        log.append(make_records(4, i), compression=["none", "gzip", "lz4", "zstd", "snappy"][(i // 4) % 5])
    return log


def test_mirror_keeps_content_and_reassigns_offsets(tmp_path):
    # a replica-style source: offsets start at 100, with a gap and a transaction marker in between
    src = Log.open(tmp_path / "src-0", LogConfig(), time=Clock())
    recs = make_records(6)
    src.append(kvlog.encode_batch(recs[:3], base_offset=100, producer_id=9, producer_epoch=0,
                                  is_transactional=True), assign_offsets=False)
    commit = Record(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x01", T0)
    marker = kvlog.encode_batch([commit], base_offset=103, is_control=True, is_transactional=True,
                                producer_id=9, producer_epoch=0)
    src.append(marker, assign_offsets=False)
    src.append(kvlog.encode_batch(recs[3:], base_offset=110, compression="gzip"), assign_offsets=False)
    src.close()
    target = Log.open(tmp_path / "dst-0", LogConfig(), time=Clock())
    stats = mirror_log(tmp_path / "src-0", target)
    assert stats.records == 6 and stats.control_records == 1
    assert (stats.source_start_offset, stats.source_end_offset) == (0, 113)  # the log starts at 0
    assert (stats.target_start_offset, stats.target_end_offset) == (0, 6)
    got = list(target.records())
    assert [r.offset for r in got] == list(range(6))
    assert [(r.key, r.value, r.timestamp, r.headers) for r in got] == [
        (r.key, r.value, r.timestamp, r.headers) for r in recs]
    batches = list(target.read(0).batches())
    assert not any(b.is_control or b.is_transactional for b in batches)
    assert [int(b.compression) for b in batches] == [0, 1]
    assert [stats.translate(s) for s in (0, 100, 102, 103, 104, 110, 112, 113)] == [0, 0, 2, 3, 3, 3, 5, 6]
    assert stats.offset_map == [(100, 0), (110, 3)]
    with pytest.raises(OffsetOutOfRangeError):
        stats.translate(114)
    target.close()


def test_mirror_log_append_time_target(tmp_path):
    src = source_log(tmp_path, n=12)
    clock = Clock(T0 + 10**6)
    target = Log.open(tmp_path / "dst-0", LogConfig(message_timestamp_type="LogAppendTime"), time=clock)
    mirror_log(src, target)
    got = list(target.records())
    assert [r.value for r in got] == [r.value for r in make_records(12)]
    assert {r.timestamp for r in got} == {T0 + 10**6}
    assert all(b.timestamp_type == kvlog.TimestampType.LOG_APPEND_TIME for b in target.read(0).batches())
    src.close()
    target.close()


def test_mirror_is_resumable_and_reconciles_a_missing_checkpoint(tmp_path):
    src = source_log(tmp_path, n=20)
    target = Log.open(tmp_path / "dst-0", LogConfig(), time=Clock())
    first = mirror_log(tmp_path / "src-0", target)
    assert first.records == 20
    table = read_checkpoint(target.dir)
    assert table == {os.path.realpath(src.dir): {"next_offset": 20, "target_end_offset": 20}}
    assert json.loads((tmp_path / "dst-0" / CHECKPOINT_FILE).read_text())["version"] == 1
    again = mirror_log(tmp_path / "src-0", target)
    assert again.records == 0 and target.log_end_offset == 20
    src.append(make_records(7, 20))
    second = mirror_log(tmp_path / "src-0", target)
    assert second.records == 7 and (second.source_start_offset, second.target_start_offset) == (20, 20)
    # a run that appended but never wrote its checkpoint (a crash): the next run must not copy twice
    src.append(make_records(5, 27))
    assert mirror_log(tmp_path / "src-0", target, start_offset=27, checkpoint=False).records == 5
    src.append(make_records(2, 32))
    third = mirror_log(tmp_path / "src-0", target)
    assert third.records == 2 and third.source_start_offset == 32 and not third.warnings
    assert content(target) == content(src)
    # records someone else wrote to the target are not mistaken for mirrored ones
    target.append([Record(b"foreign", b"write", T0)])
    src.append(make_records(1, 34))
    fourth = mirror_log(tmp_path / "src-0", target)
    assert fourth.records == 1 and fourth.source_start_offset == 34 and "not the next source records" in (
        fourth.warnings[0])
    saved = read_checkpoint(target.dir)[os.path.realpath(src.dir)]
    assert saved == {"next_offset": 35, "target_end_offset": 36}
    src.close()
    target.close()


def test_mirror_from_timestamp_and_start_offset(tmp_path):
    src = source_log(tmp_path, n=40)
    target = Log.open(tmp_path / "dst-0", LogConfig(), time=Clock())
    stats = mirror_log(src, target, from_timestamp=T0 + 215)
    assert stats.source_start_offset == 22 and stats.records == 18
    assert content(target) == content(src, 22)
    other = Log.open(tmp_path / "dst-1", LogConfig(), time=Clock())
    assert mirror_log(src, other, from_timestamp=T0 + 10**9).records == 0
    assert mirror_log(src, other, start_offset=35, checkpoint=False).records == 5
    src.close()
    target.close()
    other.close()


def test_mirror_many_segments_and_codecs(tmp_path):
    src = source_log(tmp_path, n=200, segment_bytes=1500)
    assert len(src.segments) > 5
    src.close()
    target = Log.open(tmp_path / "dst-0", LogConfig(segment_bytes=1000), time=Clock())
    stats = mirror_log(tmp_path / "src-0", target, batch_bytes=700)
    assert stats.records == 200 and len(target.segments) > 5
    with Log.open(tmp_path / "src-0", read_only=True) as ro:
        assert content(target) == content(ro)
        src_codecs = {int(b.compression) for s in range(0, 200, 4) for b in ro.read(s, 1).batches()}
    tgt_codecs = {int(b.compression) for s in range(200) for b in target.read(s, 1).batches()}
    assert src_codecs == tgt_codecs == {0, 1, 2, 3, 4}
    assert [stats.translate(s) for s in (0, 57, 199, 200)] == [0, 57, 199, 200]
    forced = Log.open(tmp_path / "dst-1", LogConfig(compression_type="zstd"), time=Clock())
    mirror_log(tmp_path / "src-0", forced)
    assert {int(b.compression) for b in MemoryRecords(forced.read(0, 1 << 30).buffer).batches()} == {4}
    target.close()
    forced.close()


def test_mirror_legacy_source(tmp_path):
    src = Log.open(tmp_path / "src-0", LogConfig(), time=Clock())
    recs = [Record(b"k%d" % i, b"v%d" % i, T0 + i) for i in range(6)]
    src.append(kvlog.encode_batch(recs[:3], magic=1, compression="gzip"), assign_offsets=False)
    src.append(kvlog.encode_batch(recs[3:], magic=1, base_offset=3), assign_offsets=False)
    target = Log.open(tmp_path / "dst-0", LogConfig(), time=Clock())
    assert mirror_log(src, target).records == 6
    got = [(r.key, r.value, r.timestamp) for r in target.records()]
    assert got == [(r.key, r.value, r.timestamp) for r in recs]
    assert {b.magic for b in target.read(0).batches()} == {2}
    src.close()
    target.close()


def test_mirror_while_the_source_is_being_appended(tmp_path):
    # no roll while the reader opens: a read-only open racing a roll can miss the new segment's index
    # files or map an index the writer trims (log/segment/index layer, reported separately)
    src = source_log(tmp_path, n=40)
    stop = threading.Event()
    errors = []

    def writer():
        i = 40
        try:
            while not stop.is_set() and i < 4000:
                src.append(make_records(4, i), compression="lz4")
                i += 4
        except kvlog.KvlogError as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=writer)
    t.start()
    try:
        runs = []
        target = Log.open(tmp_path / "dst-0", LogConfig(), time=Clock())
        for _ in range(3):
            runs.append(mirror_log(tmp_path / "src-0", target, batch_bytes=4096))
    finally:
        stop.set()
        t.join()
    assert not errors
    copied = content(target)
    assert len(copied) == sum(r.records for r in runs) >= 40
    assert copied == content(src)[: len(copied)]
    src.close()
    target.close()


def test_mirror_directory_with_topic_map_and_resume(tmp_path):
    src_root = tmp_path / "src"
    with LogManager(src_root) as mgr:
        mgr.create_topic("orders", 2)
        mgr.create_topic("users", 1, LogConfig(cleanup_policy="compact"))
        for p in range(2):
            mgr.log("orders", p).append(make_records(10 + p))
        mgr.log("users", 0).append(make_records(3))
    dst_root = tmp_path / "dst"
    results = mirror_directory(src_root, dst_root, topic_map={"orders": "orders-copy"},
                               config={"retention.ms": "3600000"})
    counts = {k: v.records for k, v in results.items()}
    assert counts == {("orders", 0): 10, ("orders", 1): 11, ("users", 0): 3}
    with LogManager(dst_root) as mgr:
        assert mgr.topics() == {"orders-copy": 2, "users": 1}
        assert mgr.topic_config("users").compact and not mgr.topic_config("orders-copy").compact
        assert mgr.topic_config("orders-copy").retention_ms == 3600000
        assert [r.value for r in mgr.log("orders-copy", 1).records()] == [r.value for r in make_records(11)]
    again = mirror_directory(src_root, dst_root, topic_map={"orders": "orders-copy"})
    assert all(s.records == 0 for s in again.values())
    with pytest.raises(kvlog.ConfigError):
        mirror_directory(src_root, dst_root, topic_map={"nope": "x"})


def test_mirror_cli(tmp_path, capfd):
    src = source_log(tmp_path, n=8)
    src.close()
    rc = main(["mirror", str(tmp_path / "src-0"), str(tmp_path / "dst-0"), "--config",
               "message.timestamp.type=CreateTime"])
    out, err = capfd.readouterr()
    assert rc == 0 and err == ""
    assert re.fullmatch(r"src-0 -> dst-0: 8 records, \d+ bytes; source offsets 0..7 -> target offsets 0..7\n",
                        out)
    rc = main(["mirror", str(tmp_path / "src-0"), str(tmp_path / "dst-0")])
    out, _ = capfd.readouterr()
    assert rc == 0 and out.splitlines() == ["src-0 -> dst-0: nothing new (source offset 8)"]
    root = tmp_path / "data"
    with LogManager(root) as mgr:
        mgr.create_topic("a", 1)
        mgr.log("a", 0).append(make_records(5, ts=T0))
    rc = main(["mirror", str(root), str(tmp_path / "copy"), "--topic-map", "a=b", "--from-timestamp",
               str(T0 + 20)])
    out, _ = capfd.readouterr()
    assert rc == 0 and out.startswith("a-0 -> b-0: 3 records")
    # --topics chooses what is mirrored; without it every topic is, an unmapped one under its own name
    with LogManager(root) as mgr:
        mgr.create_topic("c", 1)
        mgr.log("c", 0).append(make_records(2, ts=T0))
    rc = main(["mirror", str(root), str(tmp_path / "only-a"), "--topics", "a", "--topic-map", "a=b"])
    out, _ = capfd.readouterr()
    assert rc == 0 and sorted(p for p in os.listdir(tmp_path / "only-a") if p.endswith("-0")) == ["b-0"]
    rc = main(["mirror", str(root), str(tmp_path / "all"), "--topic-map", "a=b"])
    out, _ = capfd.readouterr()
    assert rc == 0 and sorted(p for p in os.listdir(tmp_path / "all") if p.endswith("-0")) == ["b-0", "c-0"]
    rc = main(["mirror", str(tmp_path / "src-0"), str(tmp_path / "x-0"), "--topic-map", "a=b"])
    _, err = capfd.readouterr()
    assert rc == 1 and err.startswith("kvlog: ")
    rc = main(["mirror", str(tmp_path / "src-0"), str(tmp_path / "x-0"), "--topic-map", "nonsense"])
    assert rc == 2


def test_mirror_stats_offset_map_resolution():
    from kvlog.mirror import MirrorStats

    s = MirrorStats("a", "b", source_start_offset=10, source_end_offset=30, target_start_offset=0,
                    target_end_offset=12)
    s._add_runs(np.array([10, 11, 12, 20, 21]), 0)
    s._add_runs(np.array([22, 23, 25, 26, 27, 28, 29]), 5)
    assert s.offset_map == [(10, 0), (20, 3), (22, 5), (25, 7)]
    assert [s.translate(x) for x in (10, 12, 13, 19, 20, 24, 25, 29, 30)] == [0, 2, 3, 3, 3, 7, 7, 11, 12]


def test_mirror_cli_progress_on_a_terminal(tmp_path, capfd, monkeypatch):
    import io
    import sys

    class Tty(io.StringIO):
        def isatty(self):
            return True

    src = source_log(tmp_path, n=8)
    src.close()
    fake = Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    assert main(["mirror", str(tmp_path / "src-0"), str(tmp_path / "dst-0")]) == 0
    shown = fake.getvalue()
    assert shown.startswith("\rkvlog mirror: 8 records, ") and "records/s" in shown and shown.endswith("\n")
