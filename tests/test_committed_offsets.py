"""kvlog.committed_offsets without Spark: the file format, its CRC, versions, and a local writer's open."""

from __future__ import annotations

import os

import kvlog
from kvlog import committed_offsets as co
from kvlog.verify import verify_partition


def test_versions_crc_and_exclusive_publish(tmp_path):
    root = str(tmp_path)
    assert not co.latest(root).governed
    text = co.format_text(1, "job-a", {("t", 0): (0, 5)}, {"s": 3})
    assert co.publish(root, 1, text)
    assert not co.publish(root, 1, text)  # a second writer of one version loses
    got = co.latest(root)
    assert (got.version, got.job, dict(got.partitions), dict(got.sinks)) == (1, "job-a", {("t", 0): (0, 5)}, {"s": 3})
    assert got.range_of("t", 0) == (0, 5) and got.range_of("t", 1) == (0, 0)
    torn = co.format_text(2, "job-b", {("t", 0): (0, 9)}, {})
    (tmp_path / co.file_name(2)).write_bytes(torn[:-5])  # a commit that did not finish
    assert co.latest(root).version == 1 and co.latest(root).max_listed == 2
    flipped = bytearray(co.format_text(3, "job-c", {("t", 0): (0, 9)}, {}))
    flipped[40] ^= 1
    (tmp_path / co.file_name(3)).write_bytes(bytes(flipped))
    assert co.latest(root).version == 1


def test_a_writers_open_sets_uncommitted_files_aside(tmp_path):
    with kvlog.Log.open(str(tmp_path / "t-0")) as log:
        log.append([kvlog.Record(b"k", b"v")] * 10)
    assert co.publish(str(tmp_path), 1, co.format_text(1, "job", {("t", 0): (0, 10)}, {}))
    with kvlog.Log.open(str(tmp_path / "stray" / "t-0")) as stray:
        stray.truncate_fully_and_start_at(10)
        stray.append([kvlog.Record(b"x", b"uncommitted")] * 3)
    for n in os.listdir(tmp_path / "stray" / "t-0"):
        if n[:20].isdigit() and n.endswith((".log", ".index", ".timeindex")):
            os.replace(tmp_path / "stray" / "t-0" / n, tmp_path / "t-0" / n)
    with kvlog.Log.open(str(tmp_path / "t-0")) as log:  # a writer's open: the stray segment is set aside
        assert log.log_end_offset == 10
        assert {r.value for r in log.records()} == {b"v"}
    aside = [n for n in os.listdir(tmp_path / "t-0") if co.UNCOMMITTED in n]
    assert sorted(n.split(".")[1] for n in aside) == ["index", "log", "timeindex"]
    report = verify_partition(str(tmp_path / "t-0"))
    assert not report.errors and any("set aside" in w.message for w in report.warnings)
