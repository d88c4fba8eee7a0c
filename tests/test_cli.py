"""The ``kvlog`` command line: dump (DumpLogSegments output), verify, offsets, retention.

Expected dump lines are built from the byte layouts (KAFKA_FORMAT.md §2-3, §12.2) with ``struct``, the
``crc32c`` package and ``zlib``/``gzip``, not from kvlog's decoder, so a decoding and a formatting slip
both show up.
"""

import datetime
import gzip
import json
import os
import struct
import subprocess
import sys
import zlib

import crc32c
import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.cli import main
from kvlog.timestamps import parse_timestamp
from kvlog.log import EARLIEST, LATEST, MAX_TIMESTAMP, Log
from kvlog.manager import LogManager

T0 = 1_700_000_000_000
INT32_MAX = 2**31 - 1
CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
SEG0 = "00000000000000000000"

# KAFKA_FORMAT.md §3.7 test vectors
V2 = bytes.fromhex("00000000000000000000003a0000000002e99b8dd80000000000000000018bcfe568000000018bcf"
                   "e56800ffffffffffffffffffffffffffff0000000110000000026b027600")
V1 = bytes.fromhex("00000000000000000000001839268c3301000000018bcfe56800000000016b0000000176")
V0 = bytes.fromhex("0000000000000000000000101fecd70a0000000000016b0000000176")


class Clock:
    def __init__(self, t=T0):
        self.t = t

    def __call__(self):
        return self.t


def run(capfd, *argv):
    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out.splitlines(), err.splitlines()


def with_offset(entry, offset):
    return struct.pack(">q", offset) + entry[8:]


def seg_file(tmp_path, data, name=SEG0 + ".log"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


# ----------------------------------------------------------------------- expected lines from the layouts
def tt_name(magic, attrs):
    if magic == 0:
        return "NoTimestampType"
    return "LogAppendTime" if attrs & 0x08 else "CreateTime"


def inc_seq(seq, inc):
    return inc - (INT32_MAX - seq) - 1 if seq > INT32_MAX - inc else seq + inc


def b(v):
    return "true" if v else "false"


def v2_line(buf, pos):
    (base, length, ple, magic, crc, attrs, lod, bts, mts, pid, pe, bseq, count) = struct.unpack_from(
        ">qiibIhiqqqhii", buf, pos)
    assert magic == 2
    valid = crc32c.crc32c(bytes(buf[pos + 21: pos + 12 + length])) == crc
    last_seq = -1 if bseq == -1 else inc_seq(bseq, lod)
    horizon = f"OptionalLong[{bts}]" if attrs & 0x40 else "OptionalLong.empty"
    return (f"baseOffset: {base} lastOffset: {base + lod} count: {count} baseSequence: {bseq} lastSequence: "
            f"{last_seq} producerId: {pid} producerEpoch: {pe} partitionLeaderEpoch: {ple} isTransactional: "
            f"{b(attrs & 0x10)} isControl: {b(attrs & 0x20)} deleteHorizonMs: {horizon} position: {pos} "
            f"{tt_name(2, attrs)}: {mts} size: {length + 12} magic: 2 compresscodec: {CODECS[attrs & 7]} "
            f"crc: {crc} isvalid: {b(valid)}"), 12 + length


def legacy_fields(buf, pos):
    offset, size, crc, magic, attrs = struct.unpack_from(">qiIbb", buf, pos)
    ts = struct.unpack_from(">q", buf, pos + 18)[0] if magic == 1 else -1
    at = pos + 18 + (8 if magic == 1 else 0)
    klen = struct.unpack_from(">i", buf, at)[0]
    key = None if klen < 0 else bytes(buf[at + 4: at + 4 + klen])
    at += 4 + max(klen, 0)
    vlen = struct.unpack_from(">i", buf, at)[0]
    value = None if vlen < 0 else bytes(buf[at + 4: at + 4 + vlen])
    valid = zlib.crc32(bytes(buf[pos + 16: pos + 12 + size])) == crc
    return {"offset": offset, "size": size + 12, "crc": crc, "magic": magic, "attrs": attrs, "ts": ts,
            "key": key, "value": value, "valid": valid}


def legacy_line(buf, pos):
    f = legacy_fields(buf, pos)
    return (f"offset: {f['offset']} position: {pos} {tt_name(f['magic'], f['attrs'])}: {f['ts']} "
            f"size: {f['size']} magic: {f['magic']} compresscodec: {CODECS[f['attrs'] & 7]} crc: {f['crc']} "
            f"isvalid: {b(f['valid'])}"), f["size"]


def batch_lines(buf):
    """The batch-level lines of a whole .log."""
    lines, pos = [], 0
    while pos < len(buf):
        line, size = (v2_line if buf[pos + 16] == 2 else legacy_line)(buf, pos)
        lines.append(line)
        pos += size
    return lines


def rec_line(offset, ts, key, value, *, magic=2, seq=-1, headers=(), tt="CreateTime", legacy=None, data=True):
    line = (f"| offset: {offset} {tt}: {ts} keySize: {len(key) if key is not None else -1} "
            f"valueSize: {len(value) if value is not None else -1}")
    if magic == 2:
        line += f" sequence: {seq} headerKeys: [{','.join(k for k, _ in headers)}]"
    else:
        line += f" isValid: {b(legacy[1])} crc: {legacy[0]}"  # Kafka 4.4 (the Scala tool of 4.0-4.2: "crc: N}")
    if data:
        if key is not None:
            line += f" key: {key.decode()}"
        if value is not None:
            line += f" payload: {value.decode()}"
    return line


# ================================================================================================ dump
def test_dump_format_vectors_v2_v1_v0(tmp_path, capfd):
    data = V2 + with_offset(V1, 1) + with_offset(V0, 2)
    path = seg_file(tmp_path, data)
    rc, out, err = run(capfd, "dump", "--files", path, "--print-data-log")
    assert rc == 0 and err == []
    assert out == [
        f"Dumping {path}",
        "Log starting offset: 0",
        ("baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 "
         "producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false "
         "deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000000 size: 70 magic: 2 "
         "compresscodec: none crc: 3919285720 isvalid: true"),
        ("| offset: 0 CreateTime: 1700000000000 keySize: 1 valueSize: 1 sequence: -1 headerKeys: [] "
         "key: k payload: v"),
        ("offset: 1 position: 70 CreateTime: 1700000000000 size: 36 magic: 1 compresscodec: none "
         "crc: 958827571 isvalid: true"),
        ("| offset: 1 CreateTime: 1700000000000 keySize: 1 valueSize: 1 isValid: true crc: 958827571 "
         "key: k payload: v"),
        ("offset: 2 position: 106 NoTimestampType: -1 size: 28 magic: 0 compresscodec: none "
         "crc: 535615242 isvalid: true"),
        ("| offset: 2 NoTimestampType: -1 keySize: 1 valueSize: 1 isValid: true crc: 535615242 "
         "key: k payload: v"),
    ]
    assert out[2:] == [x for pair in zip(batch_lines(data), out[3::2]) for x in pair]


def test_dump_shallow_is_batches_only(tmp_path, capfd):
    data = V2 + with_offset(V1, 1)
    path = seg_file(tmp_path, data)
    rc, out, _ = run(capfd, "dump", "--files", path)
    assert rc == 0 and out == [f"Dumping {path}", "Log starting offset: 0"] + batch_lines(data)


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_dump_v2_batches_with_headers_and_codecs(tmp_path, capfd, codec):
    first = [Record(b"k0", b"value0", T0, (("h1", b"a"), ("h2", None))), Record(None, b"value1", T0 + 5),
             Record(b"k2", None, T0 + 2, (("only", b"x"),))]
    second = [Record(b"k3", b"value3", T0 + 9)]
    data = (kvlog.encode_batch(first, compression=codec, partition_leader_epoch=4)
            + kvlog.encode_batch(second, base_offset=3, compression=codec, partition_leader_epoch=4))
    path = seg_file(tmp_path, data)
    rc, out, err = run(capfd, "dump", "--files", path, "--print-data-log")
    assert rc == 0 and err == []
    lines = batch_lines(data)
    assert f"compresscodec: {codec}" in lines[0]
    expected = [f"Dumping {path}", "Log starting offset: 0", lines[0]]
    expected += [rec_line(i, r.timestamp, r.key, r.value, headers=r.headers) for i, r in enumerate(first)]
    expected += [lines[1], rec_line(3, T0 + 9, b"k3", b"value3")]
    assert out == expected
    assert out[3] == ("| offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 6 sequence: -1 "
                      "headerKeys: [h1,h2] key: k0 payload: value0")
    assert out[4] == ("| offset: 1 CreateTime: 1700000000005 keySize: -1 valueSize: 6 sequence: -1 "
                      "headerKeys: [] payload: value1")
    assert out[5].endswith("headerKeys: [only] key: k2")


# the LeaderChangeMessage value a Kafka 4.4.0 broker (node 1, a single-voter quorum) wrote on its first election
LEADER_CHANGE_440 = bytes.fromhex("00000000000102000000010002000000010000")


def test_dump_transactional_and_control_batches(tmp_path, capfd):
    recs = [Record(b"a", b"1", T0), Record(b"b", b"2", T0 + 1), Record(b"c", b"3", T0 + 2)]
    txn = kvlog.encode_batch(recs, producer_id=42, producer_epoch=3, base_sequence=INT32_MAX - 1,
                             is_transactional=True)

    def control(offset, key, value):
        return kvlog.encode_batch([Record(key, value, T0 + 3)], base_offset=offset, is_control=True,
                                  is_transactional=True, producer_id=42, producer_epoch=3)

    data = (txn + control(3, b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x07")
            + control(4, b"\x00\x00\x00\x00", b"\x00\x00\x00\x00\x00\x08")
            + control(5, b"\x00\x00\x00\x02", LEADER_CHANGE_440)
            + control(6, b"\x00\x00\x00\x63", None))
    path = seg_file(tmp_path, data)
    rc, out, err = run(capfd, "dump", "--files", path, "--print-data-log")
    assert rc == 0 and err == []
    lines = batch_lines(data)
    assert "baseSequence: 2147483646 lastSequence: 0 producerId: 42 producerEpoch: 3" in lines[0]
    assert "isTransactional: true isControl: false" in lines[0]
    assert "isTransactional: true isControl: true" in lines[1]
    seqs = [INT32_MAX - 1, INT32_MAX, 0]
    ctl = "| offset: {} CreateTime: 1700000000003 keySize: 4 valueSize: {} sequence: -1 headerKeys: []"
    assert out == [f"Dumping {path}", "Log starting offset: 0", lines[0]] + [
        rec_line(i, r.timestamp, r.key, r.value, seq=seqs[i]) for i, r in enumerate(recs)] + [
        lines[1], ctl.format(3, 6) + " endTxnMarker: COMMIT coordinatorEpoch: 7",
        lines[2], ctl.format(4, 6) + " endTxnMarker: ABORT coordinatorEpoch: 8",
        lines[3], ctl.format(5, 19) + ' LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],'
                                     '"grantingVoters":[{"voterId":1}]}',
        lines[4], ctl.format(6, -1) + " controlType: UNKNOWN(99)",
    ]


def test_dump_log_append_time_and_delete_horizon(tmp_path, capfd):
    lat = T0 + 12345
    a = kvlog.encode_batch([Record(b"k", b"v", T0)], timestamp_type="LogAppendTime", log_append_time=lat)
    bb = bytearray(kvlog.encode_batch([Record(b"x", b"y", T0 + 50)], base_offset=1))
    struct.pack_into(">h", bb, 21, struct.unpack_from(">h", bb, 21)[0] | 0x40)  # hasDeleteHorizonMs
    struct.pack_into(">I", bb, 17, crc32c.crc32c(bytes(bb[21:])))
    data = a + bytes(bb)
    path = seg_file(tmp_path, data)
    rc, out, _ = run(capfd, "dump", "--files", path, "--deep-iteration")
    lines = batch_lines(data)
    assert rc == 0 and f"LogAppendTime: {lat}" in lines[0]
    assert f"deleteHorizonMs: OptionalLong[{T0 + 50}]" in lines[1]
    assert out == [f"Dumping {path}", "Log starting offset: 0", lines[0],
                   rec_line(0, lat, b"k", b"v", tt="LogAppendTime", data=False), lines[1],
                   rec_line(1, T0 + 50, b"x", b"y", data=False)]


@pytest.mark.parametrize("magic", [0, 1])
def test_dump_legacy_compressed_wrapper(tmp_path, capfd, magic):
    recs = [Record(b"k%d" % i, b"value-%d" % i, T0 + i) for i in range(3)]
    data = kvlog.encode_batch(recs, magic=magic, compression="gzip", base_offset=0)
    data += with_offset(kvlog.encode_batch([Record(b"z", b"last", T0 + 7)], magic=magic), 3)
    path = seg_file(tmp_path, data)
    rc, out, err = run(capfd, "dump", "--files", path, "--print-data-log")
    assert rc == 0 and err == []
    wrapper = legacy_fields(data, 0)
    assert wrapper["offset"] == 2 and wrapper["key"] is None
    inner_buf = gzip.decompress(wrapper["value"])
    inner, pos = [], 0
    while pos < len(inner_buf):
        f = legacy_fields(inner_buf, pos)
        inner.append(f)
        pos += f["size"]
    tt = "CreateTime" if magic == 1 else "NoTimestampType"
    lines = batch_lines(data)
    tail = legacy_fields(data, wrapper["size"])
    assert out == [f"Dumping {path}", "Log starting offset: 0", lines[0]] + [
        rec_line(i, f["ts"], f["key"], f["value"], magic=magic, tt=tt, legacy=(f["crc"], f["valid"]))
        for i, f in enumerate(inner)] + [
        lines[1], rec_line(3, tail["ts"], b"z", b"last", magic=magic, tt=tt, legacy=(tail["crc"], True))]


def test_dump_skip_record_metadata(tmp_path, capfd):
    data = kvlog.encode_batch([Record(b"k", b"v", T0), Record(None, b"w", T0)])
    path = seg_file(tmp_path, data)
    rc, out, _ = run(capfd, "dump", "--files", path, "--print-data-log", "--skip-record-metadata")
    assert rc == 0 and out[3:] == ["| key: k payload: v", "| payload: w"]  # Kafka 4.4 ("payload: w" before)
    rc, out, _ = run(capfd, "dump", "--files", path, "--deep-iteration", "--skip-record-metadata")
    assert out[3:] == ["", ""]


def test_dump_max_bytes_and_invalid_tail(tmp_path, capfd):
    batches = [kvlog.encode_batch([Record(b"k", b"v" * (10 + i), T0 + i)], base_offset=i) for i in range(3)]
    sizes = [len(x) for x in batches]
    data = b"".join(batches)
    path = seg_file(tmp_path, data + batches[0][:40])
    lines = batch_lines(data)
    rc, out, _ = run(capfd, "dump", "--files", path)
    assert rc == 0 and out[2:] == lines + [f"Found 40 invalid bytes at the end of {SEG0}.log"]
    rc, out, _ = run(capfd, "dump", "--files", path, "--max-bytes", sizes[0] + sizes[1] + 5)
    assert out[2:] == lines[:2]
    rc, out, _ = run(capfd, "dump", "--files", path, "--max-bytes", sizes[0])
    assert out[2:] == lines[:1]


def test_dump_bad_crc_snapshot_and_txn_index(tmp_path, capfd, kraft_segment):
    raw = bytearray(kvlog.encode_batch([Record(b"k", b"value", T0)]))
    raw[-2] ^= 0x01  # a value byte: the batch still decodes, its CRC does not match
    path = seg_file(tmp_path, bytes(raw))
    rc, out, _ = run(capfd, "dump", "--files", path, "--deep-iteration")
    assert rc == 0 and out[2] == batch_lines(raw)[0] and out[2].endswith("isvalid: false") and len(out) == 4
    snap = seg_file(tmp_path, kraft_segment.read_bytes(), "00000000000000000004-0000000001.checkpoint")
    rc, out, _ = run(capfd, "dump", "--files", snap)
    assert rc == 0 and out[:2] == [f"Dumping {snap}", "Snapshot end offset: 4, epoch: 1"]
    assert out[2:] == batch_lines(kraft_segment.read_bytes())
    entries = struct.pack(">hqqqq", 0, 7, 10, 20, 21) + struct.pack(">hqqqq", 0, 8, 30, 31, 40)
    txn = seg_file(tmp_path, entries, SEG0 + ".txnindex")
    rc, out, _ = run(capfd, "dump", "--files", txn)
    assert rc == 0 and out[1:] == [
        "version: 0 producerId: 7 firstOffset: 10 lastOffset: 20 lastStableOffset: 21",
        "version: 0 producerId: 8 firstOffset: 30 lastOffset: 31 lastStableOffset: 40"]
    # 4.4 reads every entry before it prints one and refuses a version other than 0 in the 2-byte field (the
    # Scala tool of 4.0-4.2 read the first byte only: 00 01 there printed "version: 0", checked on 4.1.2)
    txn.write_bytes(entries + struct.pack(">hqqqq", 1, 9, 50, 51, 52))
    rc, out, err = run(capfd, "dump", "--files", txn)
    assert rc == 1 and out == [f"Dumping {txn}"] and err == [
        f"kvlog: {txn}: Unexpected aborted transaction version 1 in transaction index {txn}, supported version "
        "range is 0 to 0"]


def test_dump_corrupt_producer_snapshot(tmp_path, capfd):
    # Kafka's CorruptSnapshotException messages: the version checked first, the CRC last
    from kvlog.producer_state import ProducerStateEntry, encode_snapshot

    good = encode_snapshot([ProducerStateEntry(5, 0, -1, T0, -1)])
    path = seg_file(tmp_path, good, "00000000000000000010.snapshot")
    rc, out, err = run(capfd, "dump", "--files", path)
    assert rc == 0 and err == [] and out[1].startswith("producerId: 5 producerEpoch: 0 ")
    path.write_bytes(b"\x00\x07" + good[2:-1])
    rc, out, err = run(capfd, "dump", "--files", path)
    assert (rc, out, err) == (1, [f"Dumping {path}"], ["Snapshot contained an unknown file version 7"])
    bad_crc = bytearray(good)
    bad_crc[-1] ^= 1
    path.write_bytes(bytes(bad_crc))
    stored, computed = int.from_bytes(good[2:6], "big"), crc32c.crc32c(bytes(bad_crc[6:]))
    rc, out, err = run(capfd, "dump", "--files", path)
    assert (rc, out, err) == (1, [f"Dumping {path}"], [
        f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {stored}. Computed crc: {computed}"])


def test_verify_bare_kafka_segment(kraft_segment, capfd):
    d = kraft_segment.parent / "__cluster_metadata-0"
    d.mkdir()
    kraft_segment.rename(d / kraft_segment.name)
    rc, out, _ = run(capfd, "verify", d)
    assert rc == 0 and out[0] == f"{d}: OK with 3 warnings (1 segment, 2 batches, 331 bytes, offsets 0..3)"
    assert "missing offset index" in out[1] and "missing time index" in out[2]
    assert "leader-epoch-checkpoint: missing, though batches carry partition leader epochs" in out[3]


def test_dump_reports_non_consecutive_offsets(tmp_path, capfd):
    data = (kvlog.encode_batch([Record(b"a", b"1", T0)])
            + kvlog.encode_batch([Record(b"b", b"2", T0)], base_offset=5))
    path = seg_file(tmp_path, data)
    rc, _, err = run(capfd, "dump", "--files", path, "--deep-iteration")
    assert rc == 0 and err == [f"Non-consecutive offsets in {os.path.abspath(path)}", "  0 is followed by 5"]
    # Kafka 4.4: the previous offset starts at -1 in every file, so a segment that does not start at offset 0
    # (any rolled segment) is reported; the pairs in ascending order (the Scala tool of 4.0-4.2 started
    # without a previous offset and printed them newest first: "  9 is followed by 20", "  8 is followed by 9")
    data = (kvlog.encode_batch([Record(b"a", b"1", T0)], base_offset=7)
            + kvlog.encode_batch([Record(b"b", b"2", T0), Record(b"c", b"3", T0)], base_offset=9)
            + kvlog.encode_batch([Record(b"d", b"4", T0)], base_offset=20))
    rolled = seg_file(tmp_path, data, "00000000000000000007.log")
    rc, _, err = run(capfd, "dump", "--files", rolled, "--deep-iteration")
    assert rc == 0 and err == [f"Non-consecutive offsets in {rolled}", "  -1 is followed by 7",
                               "  7 is followed by 9", "  10 is followed by 20"]
    rc, _, err = run(capfd, "dump", "--files", rolled)  # only deep iteration reads the records
    assert rc == 0 and err == []


def test_dump_reports_name_absolute_paths_as_java(tmp_path, capfd, monkeypatch):
    # java.io.File: "//" made "/" and a trailing "/" dropped in what is printed; the reports name the file by
    # getAbsolutePath(), the working directory + "/" + the name as given ("./" and ".." kept, not resolved)
    (tmp_path / "t-0").mkdir()
    seg_file(tmp_path, kvlog.encode_batch([Record(b"a", b"1", T0)], base_offset=3), "t-0/00000000000000000003.log")
    monkeypatch.chdir(tmp_path / "t-0")
    rc, out, err = run(capfd, "dump", "--files", "..//t-0/./00000000000000000003.log/", "--deep-iteration")
    assert rc == 0 and out[0] == "Dumping ../t-0/./00000000000000000003.log"
    assert err == [f"Non-consecutive offsets in {os.getcwd()}/../t-0/./00000000000000000003.log",
                   "  -1 is followed by 3"]


def test_dump_files_split_and_unknown_names_as_java(tmp_path, capfd):
    # --files is split as Java's String.split(","): empty names kept except at the end; an empty name or one
    # without a known suffix is "Dumping <it>" and "Ignoring unknown file <it>", never opened (so a missing
    # one is no error either)
    log = seg_file(tmp_path, kvlog.encode_batch([Record(b"a", b"1", T0)]))
    rc, out, err = run(capfd, "dump", "--files", f",{log},,{tmp_path}/missing.txt,,")
    assert rc == 0 and [line for line in out if line.startswith("Dumping")] == [
        "Dumping ", f"Dumping {log}", "Dumping ", f"Dumping {tmp_path}/missing.txt"]
    assert err == ["Ignoring unknown file ", "Ignoring unknown file ", f"Ignoring unknown file {tmp_path}/missing.txt"]
    rc, out, err = run(capfd, "dump", "--files", "")
    assert (rc, out, err) == (0, ["Dumping "], ["Ignoring unknown file "])
    rc, out, err = run(capfd, "dump", "--files", tmp_path)  # a directory: kvlog says what --files takes
    assert rc == 1 and out == [] and len(err) == 1 and err[0].startswith(f"kvlog: {tmp_path} is a directory: ")


def test_dump_kraft_fixture(kraft_segment, capfd):
    rc, out, err = run(capfd, "dump", "--files", kraft_segment, "--deep-iteration")
    assert rc == 0 and err == []
    data = kraft_segment.read_bytes()
    lines = batch_lines(data)
    batches = [line for line in out if line.startswith("baseOffset:")]
    assert batches == lines and len(batches) == 2
    assert batches[0].startswith("baseOffset: 0 lastOffset: 0 count: 1 ")
    assert batches[1].startswith("baseOffset: 1 lastOffset: 3 count: 3 ")
    assert "CreateTime: 1726045943832" in batches[0] and "CreateTime: 1726045957397" in batches[1]
    assert all(line.endswith("isvalid: true") for line in batches)
    records = [line for line in out if line.startswith("| ")]
    assert records == [
        "| offset: 0 CreateTime: 1726045943832 keySize: -1 valueSize: 23 sequence: -1 headerKeys: []",
        "| offset: 1 CreateTime: 1726045957397 keySize: -1 valueSize: 24 sequence: -1 headerKeys: []",
        "| offset: 2 CreateTime: 1726045957397 keySize: -1 valueSize: 65 sequence: -1 headerKeys: []",
        "| offset: 3 CreateTime: 1726045957397 keySize: -1 valueSize: 65 sequence: -1 headerKeys: []",
    ]


def test_dump_subprocess_matches_in_process(kraft_segment, capfd):
    rc, out, _ = run(capfd, "dump", "--files", kraft_segment, "--print-data-log")
    assert rc == 0
    argv = [sys.executable, "-m", "kvlog", "dump", "--files", str(kraft_segment), "--print-data-log"]
    proc = subprocess.run(argv, capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0 and proc.stderr == b""
    assert proc.stdout.decode("utf-8").splitlines() == out


def small_log(tmp_path, name="topic-0", n=12, **cfg):
    cfg = {"segment_bytes": 400, "index_interval_bytes": 0, **cfg}
    log = Log.open(tmp_path / name, LogConfig(**cfg), time=Clock())
    for i in range(n):
        log.append([Record(b"k%d" % i, b"v" * 20, T0 + i * 1000 - (3000 if i % 4 == 3 else 0))])
    return log


def test_dump_index_and_time_index(tmp_path, capfd):
    log = small_log(tmp_path)
    log.close()
    d = tmp_path / "topic-0"
    idx, tix = d / f"{SEG0}.index", d / f"{SEG0}.timeindex"
    entries = list(struct.iter_unpack(">ii", idx.read_bytes()))
    stamps = list(struct.iter_unpack(">qi", tix.read_bytes()))
    assert len(entries) >= 2 and len(stamps) >= 2
    rc, out, err = run(capfd, "dump", "--files", f"{idx},{tix}")
    assert rc == 0 and err == []
    assert out == ([f"Dumping {idx}"] + [f"offset: {o} position: {p}" for o, p in entries]
                   + [f"Dumping {tix}"] + [f"timestamp: {t} offset: {o}" for t, o in stamps])
    rc, out, err = run(capfd, "dump", "--files", f"{idx},{tix}", "--verify-index-only")
    assert (rc, out, err) == (0, [f"Dumping {idx}", f"Dumping {tix}"], [])
    rc, out, err = run(capfd, "dump", "--files", f"{idx},{tix}", "--index-sanity-check")
    assert rc == 0 and out == [f"Dumping {idx}", f"{idx} passed sanity check.", f"Dumping {tix}",
                               f"{tix} passed sanity check."]


def test_dump_verify_index_reports_corrupted_entries(tmp_path, capfd):
    log = small_log(tmp_path)
    log.close()
    d = tmp_path / "topic-0"
    idx, tix = d / f"{SEG0}.index", d / f"{SEG0}.timeindex"
    raw = bytearray(idx.read_bytes())
    entries = list(struct.iter_unpack(">ii", raw))
    struct.pack_into(">ii", raw, 8, entries[1][0], entries[0][1])  # entry 1 points at entry 0's batch
    idx.write_bytes(bytes(raw))
    traw = bytearray(tix.read_bytes())
    stamps = list(struct.iter_unpack(">qi", traw))
    struct.pack_into(">qi", traw, 12, stamps[0][0] - 1, stamps[1][1])  # wrong and out of order
    tix.write_bytes(bytes(traw))
    rc, out, err = run(capfd, "dump", "--files", f"{idx},{tix}", "--verify-index-only")
    assert rc == 0 and out == [f"Dumping {idx}", f"Dumping {tix}"]  # reported, exit 0, as DumpLogSegments
    assert err == [
        f"Mismatches in :{idx}", f"  Index offset: {entries[1][0]}, log offset: {entries[0][0]}",
        f"Found timestamp mismatch in :{tix}",
        f"  Index timestamp: {stamps[0][0] - 1}, log timestamp: {stamps[1][0]}",
        f"Found out of order timestamp in :{tix}",
        f"  Index timestamp: {stamps[0][0] - 1}, Previously indexed timestamp: {stamps[0][0]}",
    ]
    # 4.4: the mismatches of an index from its highest offset down (a reverse TreeMap; the Scala tool printed
    # them newest first too, but a repeated offset twice); the offsets a time index names that are no batch's
    # last offset under "The following indexed offsets are not found in :<file>" (the Scala tool: "... in
    # the log."), unindented, in the order found (-1: no batch reaches it)
    if len(entries) >= 3:
        struct.pack_into(">ii", raw, 16, entries[2][0], entries[0][1])
        idx.write_bytes(bytes(raw))
    struct.pack_into(">qi", traw, 0, stamps[0][0], stamps[0][1] + 1000)  # past the end
    struct.pack_into(">qi", traw, 12, stamps[1][0], stamps[1][1] + 2000)
    tix.write_bytes(bytes(traw))
    rc, out, err = run(capfd, "dump", "--files", f"{idx},{tix}", "--verify-index-only")
    assert rc == 0 and out == [f"Dumping {idx}", f"Dumping {tix}"]
    mismatches = [f"  Index offset: {entries[1][0]}, log offset: {entries[0][0]}"]
    if len(entries) >= 3:
        mismatches.insert(0, f"  Index offset: {entries[2][0]}, log offset: {entries[0][0]}")
    assert err == [f"Mismatches in :{idx}", *mismatches,
                   f"The following indexed offsets are not found in :{tix}",
                   f"Indexed offset: {stamps[0][1] + 1000}, found log offset: -1",
                   f"Indexed offset: {stamps[1][1] + 2000}, found log offset: -1"]


def test_dump_index_edge_cases(tmp_path, capfd):
    log = small_log(tmp_path, n=2, segment_bytes=1 << 20)
    d = tmp_path / "topic-0"
    idx = d / f"{SEG0}.index"
    # the open log's active index is preallocated: Kafka believes entry 0, then stops at the zero entry
    rc, out, _ = run(capfd, "dump", "--files", idx)
    second = first_segment_batches(d / f"{SEG0}.log")[1][0]
    assert out == [f"Dumping {idx}", f"offset: 1 position: {second}"] and rc == 0
    log.close()
    empty = seg_file(tmp_path, b"", "00000000000000000000.index")
    seg_file(tmp_path, b"", "00000000000000000000.log")
    rc, out, _ = run(capfd, "dump", "--files", empty, "--index-sanity-check")
    assert out == [f"Dumping {empty}", f"{empty} is empty."]
    bad = seg_file(tmp_path, b"\x00" * 12, "00000000000000000000.index")
    rc, out, err = run(capfd, "dump", "--files", bad, "--index-sanity-check")
    assert rc == 1 and err[0].startswith(f"kvlog: {bad}:") and "multiple of 8" in err[0]


def test_dump_unknown_missing_and_usage(tmp_path, capfd):
    other = seg_file(tmp_path, b"x", "notes.txt")
    rc, out, err = run(capfd, "dump", "--files", other)
    assert (rc, out, err) == (0, [f"Dumping {other}"], [f"Ignoring unknown file {other}"])
    missing = tmp_path / f"{SEG0}.log"
    rc, out, err = run(capfd, "dump", "--files", missing)
    assert rc == 1 and err[0].startswith("kvlog: ") and "Traceback" not in "".join(err)
    rc, _, err = run(capfd, "dump")
    assert rc == 2 and err[-1] == "kvlog: the following arguments are required: --files"
    rc, _, err = run(capfd, "dump", "--files", missing, "--max-bytes", "-3")
    assert rc == 2
    assert main([]) == 2


def test_dump_corrupt_batch_reports_error(tmp_path, capfd):
    good = kvlog.encode_batch([Record(b"k", b"v", T0)])
    bad = struct.pack(">qi", 1, 5) + b"\x00" * 20  # size below the 14-byte minimum
    path = seg_file(tmp_path, good + bad)
    rc, out, err = run(capfd, "dump", "--files", path)
    assert rc == 1 and out[2:] == batch_lines(good)
    assert "position 70" in err[0] and err[0].startswith("kvlog: ")


# ============================================================================================== verify
def snapshot(root):
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.stat(p)
            state[p] = (st.st_size, st.st_mtime_ns, st.st_mode)
    return state


def build_log(tmp_path, name="topic-0", close=True):
    log = Log.open(tmp_path / name, LogConfig(segment_bytes=700, index_interval_bytes=100), time=Clock())
    for i in range(30):
        codec = ["none", "gzip", "lz4", "zstd"][i % 4]
        log.append([Record(b"k%d" % i, b"value %d" % i * 3, T0 + i * 100, (("h", b"1"),)),
                    Record(b"k", b"w", T0 + i * 100 + 7)], compression=codec)
    if close:
        log.close()
    return log


def test_verify_clean_log(tmp_path, capfd):
    build_log(tmp_path)
    before = snapshot(tmp_path)
    rc, out, err = run(capfd, "verify", tmp_path / "topic-0")
    assert rc == 0 and err == []
    assert out[0].startswith(f"{tmp_path / 'topic-0'}: OK (") and "offsets 0..59" in out[0]
    assert out[-1] == "verified 1 partition: 0 with errors"
    assert snapshot(tmp_path) == before


def test_verify_open_log_with_preallocated_indexes(tmp_path, capfd):
    log = build_log(tmp_path, close=False)
    try:
        rc, out, _ = run(capfd, "verify", tmp_path / "topic-0")
        assert rc == 0, out
    finally:
        log.close()


def first_segment_batches(path):
    data = path.read_bytes()
    out, pos = [], 0
    while pos < len(data):
        size = 12 + struct.unpack_from(">i", data, pos + 8)[0]
        out.append((pos, size))
        pos += size
    return out


def damage(kind, d):
    log0 = d / f"{SEG0}.log"
    logs = sorted(p for p in d.iterdir() if p.suffix == ".log")
    if kind == "crc":
        pos, size = first_segment_batches(log0)[1]
        raw = bytearray(log0.read_bytes())
        raw[pos + size - 1] ^= 0xFF
        log0.write_bytes(bytes(raw))
        return log0.name, pos, "CRC"
    if kind == "truncated":
        last = logs[-1]
        pos, size = first_segment_batches(last)[-1]
        with open(last, "r+b") as f:
            f.truncate(pos + size - 10)
        return last.name, pos, "a torn write"
    if kind == "index":
        idx = d / f"{SEG0}.index"
        raw = bytearray(idx.read_bytes())
        o, p = struct.unpack_from(">ii", raw, 0)
        struct.pack_into(">ii", raw, 0, o, p + 3)
        idx.write_bytes(bytes(raw))
        return idx.name, 0, "no batch starts"
    if kind == "timeindex":
        tix = d / f"{SEG0}.timeindex"
        raw = bytearray(tix.read_bytes())
        t0, _ = struct.unpack_from(">qi", raw, 0)
        _, o1 = struct.unpack_from(">qi", raw, 12)
        struct.pack_into(">qi", raw, 12, t0 - 1, o1)
        tix.write_bytes(bytes(raw))
        return tix.name, 12, "not above the previous entry"
    if kind == "swap":
        swap = d / f"{SEG0}.log.swap"
        swap.write_bytes(log0.read_bytes())
        return swap.name, None, "leftover temporary file"
    if kind == "orphan":
        orphan = d / "00000000000000099999.index"
        orphan.write_bytes(b"")
        return orphan.name, None, "orphan index"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["crc", "truncated", "index", "timeindex", "swap", "orphan"])
def test_verify_reports_damage(tmp_path, capfd, kind):
    build_log(tmp_path)
    d = tmp_path / "topic-0"
    name, pos, words = damage(kind, d)
    before = snapshot(tmp_path)
    rc, out, err = run(capfd, "verify", d)
    assert rc == 1 and err == []
    where = f"error: {name}" + (f" position {pos}:" if pos is not None else ":")
    hits = [line for line in out if line.strip().startswith(where)]
    assert hits and words in hits[0], out
    assert out[-1] == "verified 1 partition: 1 with errors"
    assert snapshot(tmp_path) == before
    rc, out, _ = run(capfd, "verify", d, "--json")
    report = json.loads("\n".join(out))
    assert rc == 1 and report["ok"] is False
    errors = report["partitions"][0]["errors"]
    assert any(e["file"] == name and e["position"] == pos and words in e["message"] for e in errors)
    assert snapshot(tmp_path) == before


def test_verify_data_directory_and_checkpoints(tmp_path, capfd):
    root = tmp_path / "data"
    with LogManager(root) as mgr:
        mgr.create_topic("a", 2)
        for p in range(2):
            mgr.log("a", p).append([Record(b"k", b"v", T0)])
        mgr.create_topic("b", 1)
    rc, out, _ = run(capfd, "verify", root)
    assert rc == 0 and out[-1] == "verified 3 partitions: 0 with errors"
    (root / "a-1" / "leader-epoch-checkpoint").write_text("0\n2\n0 0\n")
    (root / "recovery-point-offset-checkpoint").write_text("0\n5\na 0 1\n")
    before = snapshot(root)
    rc, out, _ = run(capfd, "verify", root)
    assert rc == 1
    assert "error: recovery-point-offset-checkpoint: " in out[0]
    assert any("error: leader-epoch-checkpoint: header says 2 entries, found 1" in line for line in out)
    assert out[-1] == "verified 3 partitions: 1 with errors"
    assert snapshot(root) == before
    rc, _, err = run(capfd, "verify", tmp_path / "nope")
    assert rc == 1 and err[0].startswith("kvlog: ")


# ============================================================================================= offsets
def iso(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_parse_timestamp():
    assert parse_timestamp("1700000000000") == T0
    assert parse_timestamp("2023-11-14T22:13:20Z") == T0
    assert parse_timestamp("2023-11-14T22:13:20.5+00:00") == T0 + 500
    assert parse_timestamp("2023-11-14T23:13:20+01:00") == T0
    assert parse_timestamp("2023-11-14T22:13:20") == T0
    specials = [parse_timestamp(x) for x in ("earliest", "latest", "MAX", "-2")]
    assert specials == [EARLIEST, LATEST, MAX_TIMESTAMP, -2]
    with pytest.raises(kvlog.ConfigError):
        parse_timestamp("yesterday")
    with pytest.raises(kvlog.ConfigError):
        parse_timestamp("latest", special=False)


def test_offsets_single_log(tmp_path, capfd):
    log = Log.open(tmp_path / "t-0", LogConfig(segment_bytes=500), time=Clock())
    for i in range(40):
        log.append([Record(b"k", b"event %d" % i, T0 + i * 1000)])
    log.close()
    d = tmp_path / "t-0"
    before = snapshot(tmp_path)
    ro = Log.open(d, read_only=True)
    cases = [(str(T0 + 30_000), [], T0 + 30_000), (str(T0 + 30_000), ["--margin", "5000"], T0 + 25_000),
             (iso(T0 + 12_500), [], T0 + 12_500), ("earliest", [], EARLIEST), ("latest", [], LATEST),
             ("max", ["--margin", "99"], MAX_TIMESTAMP), (str(T0 + 10**9), [], T0 + 10**9),
             ("0", ["--margin", "5"], 0)]
    for text, extra, target in cases:
        rc, out, err = run(capfd, "offsets", d, "--timestamp", text, *extra)
        found = ro.offset_for_timestamp(target)
        want = f"{found.offset} {found.timestamp}" if found else "-1 -1"
        assert (rc, out, err) == (0, [want], []), text
    assert ro.offset_for_timestamp(T0 + 25_000) == (25, T0 + 25_000)
    ro.close()
    assert snapshot(tmp_path) == before
    rc, _, err = run(capfd, "offsets", d, "--timestamp", "soon")
    assert rc == 2 and "kvlog: argument --timestamp" in err[-1]


def test_offsets_data_directory(tmp_path, capfd):
    root = tmp_path / "data"
    with LogManager(root) as mgr:
        mgr.create_topic("orders", 2)
        for p in range(2):
            for i in range(5):
                mgr.log("orders", p).append([Record(b"k", b"v", T0 + i * 10 + p)])
    rc, out, _ = run(capfd, "offsets", root, "--timestamp", T0 + 21)
    assert rc == 0 and out == [f"orders 0 3 {T0 + 30}", f"orders 1 2 {T0 + 21}"]


# =========================================================================================== retention
def test_retention_dry_run_then_apply(tmp_path, capfd):
    log = Log.open(tmp_path / "t-0", LogConfig(segment_bytes=300), time=Clock())
    for i in range(20):
        log.append([Record(b"k", b"x" * 50, T0 + i * 1000)])
    log.close()
    d = tmp_path / "t-0"
    n_before = len(Log.open(d, read_only=True).segments)
    before = snapshot(tmp_path)
    args = ("retention", d, "--now", T0 + 30_000, "--config", "retention.ms=20000")
    rc, out, _ = run(capfd, *args, "--dry-run")
    assert rc == 0 and len(out) == 1 and ": would delete " in out[0]
    assert snapshot(tmp_path) == before
    planned = out[0].split(": would delete ")[1]
    rc, out, _ = run(capfd, *args)
    assert rc == 0 and out[0].split(": deleted ")[1] == planned
    with Log.open(d, read_only=True) as ro:
        assert len(ro.segments) < n_before
        assert ro.log_start_offset == ro.segments[0].base_offset > 0
        assert all(T0 + 30_000 - s.max_timestamp <= 20_000 for s in ro.segments[:-1])
    rc, out, _ = run(capfd, *args)
    assert out[0].endswith(f"nothing to delete (log start offset {ro.log_start_offset}) [cleanup.policy=delete "
                           "(kafka-default), retention.ms=20000 (override), retention.bytes=-1 (kafka-default)]")


def test_retention_data_directory_uses_topic_config(tmp_path, capfd):
    root = tmp_path / "data"
    with LogManager(root) as mgr:
        mgr.create_topic("short", 1, LogConfig(segment_bytes=300, retention_ms=5_000))
        mgr.create_topic("long", 1, LogConfig(segment_bytes=300))
        for t in ("short", "long"):
            for i in range(10):
                mgr.log(t, 0).append([Record(b"k", b"x" * 50, T0 + i * 1000)])
    rc, out, _ = run(capfd, "retention", root, "--now", T0 + 20_000)
    assert rc == 0 and len(out) == 2
    assert out[0].startswith("long-0: nothing to delete")
    assert out[1].startswith("short-0: deleted ")
    rc, out, _ = run(capfd, "retention", root, "--now", T0 + 20_000, "--config", "retention.ms=15000")
    assert rc == 0 and out[0].startswith("long-0: deleted ")
    assert out[1].startswith("short-0: nothing to delete")
