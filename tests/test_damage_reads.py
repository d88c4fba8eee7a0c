"""Read-only views never answer with a silently shorter log (damage in durable data is an error or a
reported skip), while an unflushed torn tail is still simply not seen."""

import os
import shutil

import pytest

import kvlog
from kvlog import checkpoint
from kvlog.verify import verify_partition
from kvlog.damage import DataLossWarning
from kvlog.errors import CorruptRecordError

from conftest import FIXTURES

KRAFT = FIXTURES / "kraft-metadata" / "00000000000000000000.log"


def _write_hw(root, topic, partition, hw):
    checkpoint.write_offsets(os.path.join(root, checkpoint.REPLICATION_OFFSET), {(topic, partition): hw})


def _three_batches(root, name="TestTopicPatient-0"):
    """A broker-shaped partition: three one-record batches, the high watermark checkpoint at 3."""
    path = os.path.join(root, name)
    with kvlog.Log.open(path) as log:
        for i in range(3):
            log.append([kvlog.Record(f"k{i}".encode(), f"value-{i}".encode() * 20, 1_700_000_000_000 + i)])
    topic, part = name.rsplit("-", 1)
    _write_hw(root, topic, int(part), 3)
    # a broker's recovery point lags: leave none for this partition, so only the high watermark speaks
    os.unlink(os.path.join(root, checkpoint.RECOVERY_POINT))
    return path


def _positions(path):
    with kvlog.Log.open(path, read_only=True) as log:
        data = log.segments[0].pread(0, log.segments[0].size_in_bytes)
    return [(b.base_offset, b.size_in_bytes) for b in kvlog.MemoryRecords(data).batches()], data


def _flip(path, position):
    seg = os.path.join(path, "00000000000000000000.log")
    with open(seg, "r+b") as f:
        f.seek(position)
        b = f.read(1)
        f.seek(position)
        f.write(bytes([b[0] ^ 0xFF]))


def test_flipped_byte_in_middle_batch_is_an_error_not_a_shorter_log(tmp_path):
    path = _three_batches(str(tmp_path))
    batches, _ = _positions(path)
    pos = sum(size for _, size in batches[:1])
    _flip(path, pos + 40)  # inside the bytes the CRC covers
    with kvlog.Log.open(path, read_only=True) as log:
        assert log.log_end_offset == 3
        assert len(log.damage) == 1
        d = log.damage[0]
        assert (d.first_offset, d.end_offset, d.position) == (1, 3, pos)
        assert any("high watermark is 3" in e for e in d.evidence)
        assert [r.offset for r in log.records(0, 1)] == [0]
        assert [b.base_offset for b in log.read(0).batches()] == [0]
        with pytest.raises(CorruptRecordError, match="offsets 1..2") as exc:
            list(log.records())
        assert exc.value.file == d.path and exc.value.position == pos
        with pytest.raises(CorruptRecordError):
            log.read(1)
        with pytest.raises(CorruptRecordError):
            log.read(2)
        with pytest.raises(CorruptRecordError):
            log.to_arrow()
        with pytest.raises(CorruptRecordError):
            log.offset_for_timestamp(1_700_000_000_001)
        assert log.offset_for_timestamp(1_700_000_000_000).offset == 0
        with pytest.raises(CorruptRecordError):
            log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)
        with pytest.raises(CorruptRecordError):
            log.last_stable_offset


def test_skip_is_reported_and_counted(tmp_path):
    path = _three_batches(str(tmp_path))
    batches, _ = _positions(path)
    _flip(path, batches[0][1] + 40)
    with kvlog.Log.open(path, read_only=True, on_damage="skip") as log:
        with pytest.warns(DataLossWarning, match=r"offsets 1\.\.2 .* skipped"):
            assert [r.offset for r in log.records()] == [0]
        with pytest.warns(DataLossWarning):
            assert log.to_arrow().column("offset").to_pylist() == [0]
        with pytest.warns(DataLossWarning):
            assert len(log.read(1)) == 0
        assert log.damage[0].record_count == 2


def test_on_damage_is_checked(tmp_path):
    path = _three_batches(str(tmp_path))
    with pytest.raises(ValueError, match="on_damage"):
        kvlog.Log.open(path, read_only=True, on_damage="ignore")


def test_torn_tail_without_evidence_is_not_damage(tmp_path):
    """A writer's unflushed, half-written last batch: no checkpoint, index or later batch vouches for it."""
    path = os.path.join(str(tmp_path), "t-0")
    with kvlog.Log.open(path) as log:
        for i in range(3):
            log.append([kvlog.Record(b"k", b"v" * 100, 1_700_000_000_000 + i)])
    for name in (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET):
        os.unlink(os.path.join(str(tmp_path), name))
    seg = os.path.join(path, "00000000000000000000.log")
    size = os.path.getsize(seg)
    os.truncate(seg, size - 30)
    with kvlog.Log.open(path, read_only=True) as log:
        assert log.damage == []
        assert log.log_end_offset == 2
        assert [r.offset for r in log.records()] == [0, 1]


def test_damage_in_a_middle_segment_keeps_later_segments(tmp_path):
    path = os.path.join(str(tmp_path), "t-0")
    with kvlog.Log.open(path, kvlog.LogConfig(segment_bytes=400)) as log:
        for i in range(12):
            log.append([kvlog.Record(b"k", b"v" * 100, 1_700_000_000_000 + i)])
        bases = [s.base_offset for s in log.segments]
    assert len(bases) >= 3
    first = os.path.join(path, f"{bases[1]:020d}.log")
    with open(first, "r+b") as f:
        f.seek(40)
        b = f.read(1)
        f.seek(40)
        f.write(bytes([b[0] ^ 1]))
    with kvlog.Log.open(path, read_only=True) as log:
        # below the recovery point: trusted at open (as a broker does), checked as it is read
        assert log.log_end_offset == 12
        assert [r.offset for r in log.records(bases[2])] == list(range(bases[2], 12))
        with pytest.raises(CorruptRecordError) as exc:
            list(log.records())
        assert exc.value.file == first
        with pytest.raises(CorruptRecordError):
            log.to_arrow()
    with kvlog.Log.open(path, read_only=True, on_damage="skip") as log:
        d = log.damage[0]  # a skipping reader audits every segment at open
        assert (d.first_offset, d.end_offset) == (bases[1], bases[2])
        with pytest.warns(DataLossWarning):
            got = [r.offset for r in log.records()]
        assert got == list(range(bases[1])) + list(range(bases[2], 12))


def _expected(path):
    with kvlog.Log.open(path, read_only=True) as log:
        return [(r.offset, r.timestamp, r.key, r.value) for r in log.records()]


@pytest.mark.parametrize("source", ["kraft-fixture", "kvlog-written"])
def test_every_flipped_byte_is_right_or_an_error(tmp_path, source):
    """Each byte of a real broker segment (and of one kvlog wrote) flipped in turn: every reader either
    gives exactly the original records or raises a typed error; with on_damage="skip" it returns a
    subset of the original records and warns. Never a silently different answer."""
    root = tmp_path / "root"
    if source == "kraft-fixture":
        path = root / "__cluster_metadata-0"
        path.mkdir(parents=True)
        shutil.copyfile(KRAFT, path / KRAFT.name)
        _write_hw(str(root), "__cluster_metadata", 0, 4)
    else:
        path = root / "TestTopicPatient-0"
        _three_batches(str(root))
    original = _expected(str(path))
    end = original[-1][0] + 1
    seg = path / "00000000000000000000.log"
    pristine = seg.read_bytes()
    outcomes = {"same": 0, "error": 0}
    for position in range(len(pristine)):
        seg.write_bytes(pristine[:position] + bytes([pristine[position] ^ 0xFF]) + pristine[position + 1:])
        try:
            with kvlog.Log.open(str(path), read_only=True) as log:
                assert log.log_end_offset == end, position
                got = [(r.offset, r.timestamp, r.key, r.value) for r in log.records()]
                table = log.to_arrow()
        except CorruptRecordError:
            outcomes["error"] += 1
            topic, part = path.name.rsplit("-", 1)
            assert verify_partition(str(path), topic, int(part)).errors, position  # kvlog verify names it too
        else:
            assert got == original, position
            assert table.column("offset").to_pylist() == [o for o, *_ in original], position
            outcomes["same"] += 1
        with kvlog.Log.open(str(path), read_only=True, on_damage="skip") as log:
            import warnings

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    got = [(r.offset, r.timestamp, r.key, r.value) for r in log.records()]
                except CorruptRecordError:
                    continue  # damage the audit could not place (a batch whose CRC fails on decode)
            assert set(got) <= set(original), position
            if got != original:
                assert any(issubclass(w.category, DataLossWarning) for w in caught), position
    assert outcomes["error"] > 0 and outcomes["same"] > 0


# ----------------------------------------------------------------------------------- internal topics, CLI
def _groups_dir(tmp_path):
    from kvlog.internal_topics.decoders import encode_coordinator_record

    def commit(group, offset, ts):
        k, v = encode_coordinator_record("__consumer_offsets", 1, {"group": group, "topic": "orders", "partition": 0},
                                         3, {"offset": offset, "leaderEpoch": 2, "metadata": "", "commitTimestamp": ts})
        return kvlog.Record(k, v, ts)

    root = tmp_path / "data"
    with kvlog.Log.open(root / "orders-0") as log:
        log.append([kvlog.Record(b"k", b"v", 1_700_000_000_000 + i) for i in range(10)])
    with kvlog.Log.open(root / "__consumer_offsets-6") as log:
        log.append([commit("billing", 4, 1_700_000_005_000)])
        log.append([commit("billing", 7, 1_700_000_009_000)])
        second = log.segments[0].size_in_bytes - log.read(1).size_in_bytes
    return root, second


def test_groups_surface_damage_instead_of_an_older_commit(tmp_path, capfd):
    from kvlog.cli import main
    from kvlog.internal_topics.consumer_offsets import consumer_offsets

    root, second = _groups_dir(tmp_path)
    assert main(["groups", str(root), "--json"]) == 0
    assert '"committed_offset": 7' in capfd.readouterr().out
    _flip(str(root / "__consumer_offsets-6"), second + 30)  # the newest commit's batch, inside its CRC
    with pytest.raises(CorruptRecordError):
        consumer_offsets(str(root))
    rc = main(["groups", str(root)])
    out, err = capfd.readouterr()
    assert rc != 0 and "committed" not in out.lower()
    assert "__consumer_offsets-6" in err and "position" in err, err


@pytest.mark.parametrize("which", [0, 17, 38])
def test_a_damaged_batch_among_many_small_segments_is_named_by_its_own_file(tmp_path, which):
    """``to_arrow`` decodes small segments' pieces together: a CRC error still names the segment file and
    the position of the damaged batch, not the first piece of the group; the records equal ``records()``."""
    path = str(tmp_path / "small-0")
    with kvlog.Log.open(path, kvlog.LogConfig(segment_bytes=300)) as log:
        for i in range(120):
            log.append([kvlog.Record(b"k%d" % i, b"v%d" % i * 10, 1_700_000_000_000 + i) for _ in range(2)])
    with kvlog.Log.open(path, read_only=True) as log:
        segments = [(s.base_offset, s.log_path) for s in log.segments]
        assert len(segments) > 40
        want = [(r.offset, r.key, r.value) for r in log.records()]
        t = log.to_arrow()
        assert list(zip(*(t.column(c).to_pylist() for c in ("offset", "key", "value")))) == want
        assert log.to_arrow(5, 101).column("offset").to_pylist() == list(range(5, 101))
    base, victim = segments[which]
    with open(victim, "rb") as f:
        first = next(kvlog.MemoryRecords(f.read()).batches()).size_in_bytes
    with open(victim, "r+b") as f:  # the segment's second batch, inside the bytes its CRC covers
        f.seek(first + 40)
        b = f.read(1)
        f.seek(first + 40)
        f.write(bytes([b[0] ^ 0xFF]))
    with kvlog.Log.open(path, read_only=True) as log:  # (the flip is in flushed data: reads raise)
        with pytest.raises(CorruptRecordError) as err:
            log.to_arrow()
    assert err.value.file == victim and err.value.position == first, (err.value.file, err.value.position)


def _damaged_length(tmp_path, segment: int):
    """Four closed segments of two 3-record batches (the recovery point at the end), the length of the first
    batch of segment ``segment`` raised past its file's end (a field no CRC covers)."""
    d = tmp_path / "t-0"
    cfg = kvlog.LogConfig(index_interval_bytes=64, segment_bytes=400)
    with kvlog.Log.open(d, cfg) as log:
        for i in range(8):
            log.append([kvlog.Record(b"k%d-%d" % (i, j), b"v" * 20, 1_700_000_000_000 + i) for j in range(3)])
    seg = sorted(d.glob("*.log"))[segment]
    data = bytearray(seg.read_bytes())
    data[10] ^= 4
    seg.write_bytes(bytes(data))
    return d, cfg


@pytest.mark.parametrize("segment", [0, 3], ids=["sealed", "last"])
def test_a_length_past_the_end_of_a_trusted_segment_is_an_error_not_a_shorter_log(tmp_path, segment):
    """Segments that end at the recovery point are trusted at open, as Kafka trusts them, and checked when
    read: a batch whose length runs past its segment's end is an error where a read reaches it (every read
    path), never a log that silently lacks that segment's records (records() and to_arrow() skipped it)."""
    d, cfg = _damaged_length(tmp_path, segment)
    first = 6 * segment
    with kvlog.Log.open(d, cfg, read_only=True) as log:
        assert log.log_end_offset == 24 and not log.damage
        with pytest.raises(CorruptRecordError, match="past the end of the segment"):
            list(log.records())
        with pytest.raises(CorruptRecordError):
            log.to_arrow()
        with pytest.raises(CorruptRecordError):
            log.read(first, 1 << 16)
        if segment:
            assert [r.offset for r in log.records(0, first)] == list(range(first))  # what lies before reads
    with pytest.raises(CorruptRecordError):
        kvlog.scan(tmp_path, "t").read_all()
    # a writer's recovery of the last segment sets the bytes aside (sealed segments, as Kafka, it trusts)
    if segment == 3:
        with kvlog.Log.open(d, cfg) as log:
            assert log.log_end_offset == first and log.quarantined
