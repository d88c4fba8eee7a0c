"""Aiven's tiered-storage layout read back: a segment kvlog wrote, uploaded as the plugin uploads it
(tests/tiered_aiven_writer.py, written apart from the reader) in every mode, reads back byte for byte,
within its request budget, and every damage is a typed error naming the object and the position."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiered_aiven_writer import (
    custom_metadata,
    make_key_pair,
    pack_chunk_sizes,
    segment_key,
    write_aiven_segment,
)

from kvlog import LogConfig, MemoryRecords, Record
from kvlog.errors import (
    ConfigError,
    CorruptRemoteObjectError,
    ObjectNotFoundError,
    RemoteDecryptionError,
    RemoteSegmentError,
)
from kvlog.log import Log
from kvlog.tiered.aiven import AivenTieredStorage
from kvlog.tiered.aiven_manifest import decode_chunk_sizes, main_path
from kvlog.tiered.base import INDEX_KINDS, RemoteSegment

T0 = 1_700_000_000_000
MiB = 1 << 20

# (compression, encryption, variable chunk index): the plugin's four modes with the index kind it picks,
# and the two unforced combinations the reader must take as well
MODES = {
    "plain": (False, False, False),
    "zstd": (True, False, True),
    "aes": (False, True, False),
    "zstd+aes": (True, True, True),
    "plain-variable": (False, False, True),
    "aes-variable": (False, True, True),
}


def _kafka_segment(root, batches: int, seed: int) -> tuple[RemoteSegment, bytes, dict[str, bytes | None]]:
    """A segment written by kvlog's Log: its .log and the files the broker uploads with it."""
    d = root / "topic1-0"
    log = Log.open(d, LogConfig(index_interval_bytes=4096))
    rnd = random.Random(seed)
    for b in range(batches):
        log.append([Record(b"k%d" % i, rnd.randbytes(200) + b"x" * 800, T0 + b) for i in range(60)])
    end = log.log_end_offset - 1
    log.flush()
    log.close()
    name = "%020d" % 0
    snapshot = sorted(p for p in os.listdir(d) if p.endswith(".snapshot"))
    indexes = {"offset": (d / f"{name}.index").read_bytes(), "timestamp": (d / f"{name}.timeindex").read_bytes(),
               "producer_snapshot": (d / snapshot[-1]).read_bytes() if snapshot else b"",
               "leader_epoch": (d / "leader-epoch-checkpoint").read_bytes(), "transaction": None}
    log_bytes = (d / f"{name}.log").read_bytes()
    seg = RemoteSegment(topic="topic1", topic_id="lZ6vvmajTWKDBUTV6SQAtQ", partition=0,
                        segment_id=f"adh9f8BMS4anaUnD8KW{seed:03d}", start_offset=0, end_offset=end,
                        max_timestamp=T0 + batches - 1, segment_size=len(log_bytes), leader_epochs=((0, 0),))
    return seg, log_bytes, indexes


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    return {"k1": make_key_pair(d, "k1"), "other": make_key_pair(d, "other")}


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """An 18 MB segment."""
    return _kafka_segment(tmp_path_factory.mktemp("big"), 300, 1)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A 300 KB segment, read in 16 KiB chunks."""
    return _kafka_segment(tmp_path_factory.mktemp("small"), 5, 2)


def _write(root, seg_data, mode, keys, **kw):
    seg, log_bytes, indexes = seg_data
    compression, encrypted, variable = MODES[mode]
    enc = ("k1", keys["k1"][0]) if encrypted else None
    return write_aiven_segment(root, seg, log_bytes, indexes, compression=compression, encryption=enc,
                               variable_index=variable, **kw)


def _storage(root, keys, **kw):
    return AivenTieredStorage(str(root), key_pairs={"k1": keys["k1"][3]}, **kw)


def _scan(f, step=MiB):
    f.will_need(0, f.size)
    out = bytearray()
    for pos in range(0, f.size, step):
        out += f.read_block(step, pos)
    return bytes(out)


# ----------------------------------------------------------------------------------------- layout facts
def test_key_layout_matches_the_plugins_example():
    # ObjectKeyFactory's javadoc: someprefix/topic-MWJ6FHTfRYy67jzwZdeqSQ/7/00000000000000001234-tqimKeZwStOEOwRzT3L5oQ.log
    seg = RemoteSegment("topic", "MWJ6FHTfRYy67jzwZdeqSQ", 7, "tqimKeZwStOEOwRzT3L5oQ", 1234, 2000)
    assert main_path(seg) == "topic-MWJ6FHTfRYy67jzwZdeqSQ/7/00000000000000001234-tqimKeZwStOEOwRzT3L5oQ"
    files = AivenTieredStorage("/nowhere", key_prefix="someprefix/").segment_files(seg)
    assert files.log_object() == ("/nowhere/someprefix/topic-MWJ6FHTfRYy67jzwZdeqSQ/7/"
                                  "00000000000000001234-tqimKeZwStOEOwRzT3L5oQ.log")
    assert files.object_name("manifest").endswith("-tqimKeZwStOEOwRzT3L5oQ.rsm-manifest")
    assert main_path(seg) == segment_key(seg)  # the writer agrees


def test_chunk_sizes_codec():
    # ChunkIndexSerializationTest's ENCODED_CHUNKS: the sizes 10, 20, 30
    assert decode_chunk_sizes("KLUv/SAPeQAAAAAAAwAAAAoBAAoAAAAe") == [10, 20, 30]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**31 - 1), max_size=50))
def test_chunk_sizes_roundtrip(sizes):
    assert decode_chunk_sizes(pack_chunk_sizes(sizes)) == sizes


# ----------------------------------------------------------------------------------------- byte for byte
@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_reads_back_byte_for_byte(tmp_path, big, keys, mode):
    seg, log_bytes, indexes = big
    _write(tmp_path, big, mode, keys, chunk_size=MiB)
    storage = _storage(tmp_path, keys)
    files = storage.segment_files(seg)
    assert files.log_size() == len(log_bytes)
    assert storage.stats().gets == 1  # the manifest
    f = files.open_log()
    try:
        assert f.size == len(log_bytes)
        assert _scan(f) == log_bytes
        assert f.pread(100, len(log_bytes) - 50) == log_bytes[-50:]
        assert f.pread(10, len(log_bytes)) == b""
    finally:
        f.close()
    before = storage.stats().gets
    for _ in range(2):
        for kind in INDEX_KINDS:
            assert files.index(kind) == indexes[kind], kind
    assert storage.stats().gets == before + 1  # the .indexes object, once
    batches = list(MemoryRecords(log_bytes).batches())
    assert batches[-1].last_offset == seg.end_offset


@pytest.mark.parametrize("mode", ["plain", "zstd+aes", "aes-variable"])
def test_random_ranges(tmp_path_factory, small, keys, mode):
    root = tmp_path_factory.mktemp("ranges")
    _write(root, small, mode, keys, chunk_size=16 << 10)
    log_bytes = small[1]
    storage = _storage(root, keys, block_size=64 << 10)
    f = storage.segment_files(small[0]).open_log()

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(reads=st.lists(st.tuples(st.integers(0, len(log_bytes) + 100), st.integers(0, 200_000),
                                    st.sampled_from(["pread", "block", "into", "will_need"])),
                          min_size=1, max_size=12))
    def check(reads):
        for offset, size, how in reads:
            want = log_bytes[offset:offset + size]
            if how == "pread":
                assert f.pread(size, offset) == want
            elif how == "block":
                assert bytes(f.read_block(size, offset)) == want
            elif how == "into":
                buf = bytearray(size)
                n = f.readinto(memoryview(buf), offset)
                assert bytes(buf[:n]) == want
            else:
                f.will_need(offset, size)

    try:
        check()
    finally:
        f.close()


# ----------------------------------------------------------------------------------------- request budget
@pytest.mark.parametrize("mode", ["plain", "zstd+aes"])
def test_request_budget(tmp_path, big, keys, mode):
    seg, log_bytes, _ = big
    _write(tmp_path, big, mode, keys, chunk_size=MiB)
    storage = _storage(tmp_path, keys)
    files = storage.segment_files(seg)
    files.log_size()
    f = files.open_log()
    try:
        g0 = storage.stats().gets
        assert f.pread(200, 5 * MiB + 1000) == log_bytes[5 * MiB + 1000:5 * MiB + 1200]  # one chunk
        assert storage.stats().gets == g0 + 1
        assert f.pread(300, 5 * MiB + 5000) == log_bytes[5 * MiB + 5000:5 * MiB + 5300]  # the same chunk: kept
        assert storage.stats().gets == g0 + 1
        assert f.pread(2000, 9 * MiB - 1000) == log_bytes[9 * MiB - 1000:9 * MiB + 1000]  # two chunks, one GET
        assert storage.stats().gets == g0 + 2
    finally:
        f.close()
    for scan in (_scan, lambda f: b"".join(f.pread(256 << 10, p) for p in range(0, f.size, 256 << 10))):
        f = files.open_log()
        try:
            g0 = storage.stats().gets
            assert scan(f) == log_bytes
            n_mib = len(log_bytes) / MiB
            assert storage.stats().gets - g0 <= math.ceil(n_mib / 8) + 2
        finally:
            f.close()


@pytest.mark.parametrize("chunk_size", [3 * MiB, 5 * MiB, 12 * MiB, 100 << 10])
def test_scan_budget_whatever_the_chunk_size(tmp_path, big, keys, chunk_size):
    seg, log_bytes, _ = big
    _write(tmp_path, big, "aes", keys, chunk_size=chunk_size)
    storage = _storage(tmp_path, keys)
    f = storage.segment_files(seg).open_log()
    try:
        assert _scan(f, 300 << 10) == log_bytes
    finally:
        f.close()
    assert storage.stats().gets - 1 <= math.ceil(len(log_bytes) / (8 * MiB)) + 2


def test_empty_segment(tmp_path, keys):
    seg = RemoteSegment("t", "lZ6vvmajTWKDBUTV6SQAtQ", 3, "adh9f8BMS4anaUnD8KWfWg", 10, 9, segment_size=0)
    write_aiven_segment(tmp_path, seg, b"", {"offset": b"", "timestamp": b"", "producer_snapshot": b"",
                                             "leader_epoch": b"0\n0\n", "transaction": None},
                        encryption=("k1", keys["k1"][0]), chunk_size=4096)
    files = _storage(tmp_path, keys).segment_files(seg)
    f = files.open_log()
    assert f.size == 0 and f.pread(10, 0) == b"" and bytes(f.read_block(10, 0)) == b""
    f.close()
    assert files.index("leader_epoch") == b"0\n0\n" and files.index("offset") == b""
    assert files.index("transaction") is None


# ----------------------------------------------------------------------------------------- layouts
def test_key_prefix_and_custom_metadata_prefix(tmp_path, small, keys):
    seg, log_bytes, indexes = small
    # the broker stored object_prefix in the custom metadata: .log/.indexes live there, the manifest under
    # the configured prefix (KafkaRemoteStorageManager.objectKey vs the manifest's key)
    seg = replace(seg, custom_metadata=custom_metadata(remote_size=12345, object_prefix="old/"))
    write_aiven_segment(tmp_path, seg, log_bytes, indexes, key_prefix="new/", data_key_prefix="old/",
                        chunk_size=32 << 10)
    files = AivenTieredStorage(tmp_path, key_prefix="new/").segment_files(seg)
    assert files.log_object() == str(tmp_path / "old" / (segment_key(seg) + ".log"))
    f = files.open_log()
    assert f.pread(len(log_bytes), 0) == log_bytes
    f.close()
    assert files.index("offset") == indexes["offset"]
    # a wrong key_prefix: the manifest is missing, and the message says which prefix was used
    with pytest.raises(ObjectNotFoundError, match=r"rsm-manifest.*key\.prefix here is ''") as err:
        AivenTieredStorage(tmp_path).segment_files(seg).log_size()
    assert err.value.path.endswith(".rsm-manifest")


def test_from_config_reads_the_plugins_properties(tmp_path, small, keys):
    _write(tmp_path, small, "zstd+aes", keys, chunk_size=64 << 10, key_prefix="pre/")
    conf = {"rsm.config.key.prefix": "pre/", "rsm.config.encryption.enabled": "true",
            "rsm.config.encryption.key.pair.id": "k1", "rsm.config.encryption.key.pairs": "k1,other",
            "rsm.config.encryption.key.pairs.k1.private.key.file": str(keys["k1"][3]),
            "rsm.config.encryption.key.pairs.other.private.key.file": str(keys["other"][3])}
    storage = AivenTieredStorage.from_config(tmp_path, conf)
    f = storage.segment_files(small[0]).open_log()
    assert f.pread(1000, 70_000) == small[1][70_000:71_000]
    f.close()
    del conf["rsm.config.encryption.key.pairs.other.private.key.file"]
    with pytest.raises(ConfigError, match="other.private.key.file"):
        AivenTieredStorage.from_config(tmp_path, conf)


def test_empty_transaction_index_and_empty_indexes(tmp_path, small, keys):
    seg, log_bytes, indexes = small
    indexes = dict(indexes, transaction=b"", producer_snapshot=b"")
    write_aiven_segment(tmp_path, seg, log_bytes, indexes, chunk_size=64 << 10,
                        encryption=("k1", keys["k1"][0]))
    files = _storage(tmp_path, keys).segment_files(seg)
    assert files.index("transaction") == b"" and files.index("producer_snapshot") == b""
    assert files.index("timestamp") == indexes["timestamp"]
    with pytest.raises(ValueError, match="index kind"):
        files.index("time")


# ----------------------------------------------------------------------------------------- keys
def test_keys_stay_secret(tmp_path, small, keys):
    pem = keys["k1"][3].read_bytes()
    storage = AivenTieredStorage(tmp_path, key_pairs={"k1": pem, "other": keys["other"][1]})
    text = repr(storage)
    assert "k1" in text and "BEGIN" not in text and "PRIVATE" not in text
    with pytest.raises(ConfigError) as err:
        AivenTieredStorage(tmp_path, key_pairs={"k1": pem[:200] + b"garbage" + pem[200:]})
    assert pem[40:80].decode() not in str(err.value)
    with pytest.raises(ConfigError, match="cannot be read"):
        AivenTieredStorage(tmp_path, key_pairs={"k1": str(tmp_path / "missing.pem")})


def test_wrong_key_unknown_key_and_no_key(tmp_path, small, keys):
    seg = small[0]
    _write(tmp_path, small, "aes", keys, chunk_size=64 << 10)
    manifest = str(tmp_path / (segment_key(seg) + ".rsm-manifest"))
    wrong = AivenTieredStorage(tmp_path, key_pairs={"k1": keys["other"][3]}).segment_files(seg)
    assert wrong.log_size() == len(small[1])  # the size needs no key
    with pytest.raises(RemoteDecryptionError, match="key pair 'k1' does not unwrap") as err:
        wrong.open_log()
    assert err.value.path == manifest
    with pytest.raises(RemoteDecryptionError, match=r"key pair 'k1', and the key pairs given are \['other'\]"):
        AivenTieredStorage(tmp_path, key_pairs={"other": keys["other"][3]}).segment_files(seg).index("offset")
    with pytest.raises(RemoteDecryptionError, match=r"no key_pairs were given.*key_pairs=\{'k1'"):
        AivenTieredStorage(tmp_path).segment_files(seg).open_log()


def test_without_cryptography(tmp_path, small, keys, monkeypatch):
    _write(tmp_path, small, "aes", keys, chunk_size=64 << 10)
    files = _storage(tmp_path, keys).segment_files(small[0])
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.ciphers.aead", None)
    with pytest.raises(ConfigError, match=r"pip install kvlog\[aiven\]"):
        files.open_log()
    # the base install reads unencrypted segments: nothing imports cryptography until a key or cipher is needed
    code = ("import sys; import kvlog.tiered.aiven as a; a.AivenTieredStorage('/x').segment_files; "
            "assert not any(m.startswith('cryptography') for m in sys.modules), 'imported'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert proc.returncode == 0, proc.stderr


# ----------------------------------------------------------------------------------------- damage
def _log_path(root, seg):
    return root / (segment_key(seg) + ".log")


def test_flipped_byte_is_a_tag_mismatch_of_that_chunk(tmp_path, small, keys):
    seg = small[0]
    _write(tmp_path, small, "zstd+aes", keys, chunk_size=16 << 10)
    storage = _storage(tmp_path, keys)
    files = storage.segment_files(seg)
    offsets = files.manifest().chunk_index.offsets
    p = _log_path(tmp_path, seg)
    data = bytearray(p.read_bytes())
    data[offsets[3] + 40] ^= 0x01
    p.write_bytes(bytes(data))
    f = files.open_log()
    try:
        assert f.pread(100, 2 * (16 << 10)) == small[1][2 * (16 << 10):2 * (16 << 10) + 100]
        with pytest.raises(RemoteDecryptionError, match=rf"chunk 3 at byte {offsets[3]} fails its AES-GCM tag") as err:
            f.pread(100, 3 * (16 << 10) + 5)
        assert err.value.path == str(p) and err.value.position == offsets[3]
        with pytest.raises(RemoteDecryptionError, match="chunk 3"):
            _scan(f, 64 << 10)
    finally:
        f.close()


def test_damaged_zstd_chunk(tmp_path, small, keys):
    seg = small[0]
    _write(tmp_path, small, "zstd", keys, chunk_size=16 << 10)
    files = _storage(tmp_path, keys).segment_files(seg)
    offsets = files.manifest().chunk_index.offsets
    p = _log_path(tmp_path, seg)
    data = bytearray(p.read_bytes())
    data[offsets[2]:offsets[2] + 4] = b"\0\0\0\0"  # the frame's magic
    p.write_bytes(bytes(data))
    f = files.open_log()
    with pytest.raises(CorruptRemoteObjectError, match=rf"chunk 2 at byte {offsets[2]} does not decompress"):
        f.pread(10, 2 * (16 << 10))
    f.close()


@pytest.mark.parametrize("mode", ["plain", "zstd+aes"])
def test_truncated_log_object(tmp_path, small, keys, mode):
    seg, log_bytes, _ = small
    _write(tmp_path, small, mode, keys, chunk_size=16 << 10)
    files = _storage(tmp_path, keys, block_size=64 << 10).segment_files(seg)
    offsets = files.manifest().chunk_index.offsets
    n = len(offsets) - 1
    p = _log_path(tmp_path, seg)
    p.write_bytes(p.read_bytes()[:offsets[n - 2] + 7])  # chunk n-2 cut short, n-1 gone
    f = files.open_log()
    try:
        early = f.pread(1000, 16 << 10)
        assert early == log_bytes[16 << 10:(16 << 10) + 1000]  # chunks before the cut still read
        with pytest.raises(CorruptRemoteObjectError, match=rf"chunk {n - 2} \(bytes {offsets[n - 2]}\.\..*cut short") as err:
            f.pread(10, (n - 2) * (16 << 10) + 3)
        assert err.value.path == str(p) and err.value.position == offsets[n - 2]
        with pytest.raises(CorruptRemoteObjectError, match=f"chunk {n - 2}"):
            _scan(f, 64 << 10)
    finally:
        f.close()


def test_truncated_indexes_object(tmp_path, small, keys):
    seg = small[0]
    keys_written = _write(tmp_path, small, "aes", keys, chunk_size=64 << 10)
    p = tmp_path / keys_written["indexes"]
    p.write_bytes(p.read_bytes()[:-3])
    files = _storage(tmp_path, keys).segment_files(seg)
    with pytest.raises(CorruptRemoteObjectError, match="the leader_epoch index .* cut short") as err:
        files.index("offset")
    assert err.value.path == str(p)


def test_missing_objects(tmp_path, small, keys):
    seg = small[0]
    written = _write(tmp_path, small, "plain", keys, chunk_size=64 << 10)
    files = _storage(tmp_path, keys).segment_files(seg)
    (tmp_path / written["log"]).unlink()
    f = files.open_log()  # the manifest is there
    with pytest.raises(ObjectNotFoundError) as err:
        f.pread(10, 0)
    assert err.value.path == str(tmp_path / written["log"])
    f.close()
    (tmp_path / written["rsm-manifest"]).unlink()
    with pytest.raises(ObjectNotFoundError, match="no manifest") as err:
        _storage(tmp_path, keys).segment_files(seg).open_log()
    assert err.value.path == str(tmp_path / written["rsm-manifest"])


@pytest.mark.parametrize("damage, message", [
    (lambda m: m[:-10], "not JSON"),
    (lambda m: b"\xff" + m, "not UTF-8 JSON|not JSON"),
    (lambda m: m.replace(b'"version":"1"', b'"version":"2"'), "version is '2'"),
    (lambda m: m.replace(b'"chunkIndex"', b'"chunkIdx"'), "chunkIndex is missing"),
    (lambda m: m.replace(b'"type":"variable"', b'"type":"other"'), "chunkIndex.type is 'other'"),
    (lambda m: m.replace(b'"transformedChunks":"', b'"transformedChunks":"AAAA'), "transformedChunks"),
    (lambda m: m.replace(b'"originalFileSize":', b'"originalFileSize":-'), "originalFileSize"),
    (lambda m: m.replace(b'"leaderEpoch"', b'"leaderEpochs"'), "leaderEpoch is missing"),
    (lambda m: m.replace(b'"compression":true', b'"compression":"yes"'), "compression is 'yes'"),
    (lambda m: m.replace(b'"dataKey":"k1:', b'"dataKey":"k1'), "dataKey"),
    (lambda m: m.replace(b'"id":"adh9f8BMS4anaUnD8KW002"', b'"id":"someOtherSegmentId0000"'), "describes segment"),
])
def test_damaged_manifest(tmp_path, small, keys, damage, message):
    seg = small[0]
    written = _write(tmp_path, small, "zstd+aes", keys, chunk_size=64 << 10)
    p = tmp_path / written["rsm-manifest"]
    damaged = damage(p.read_bytes())
    assert damaged != p.read_bytes()
    p.write_bytes(damaged)
    with pytest.raises(CorruptRemoteObjectError, match=message) as err:
        _storage(tmp_path, keys).segment_files(seg).log_size()
    assert err.value.path == str(p)
    assert isinstance(err.value, RemoteSegmentError)


def test_segment_size_disagreeing_with_the_metadata(tmp_path, small, keys):
    seg = small[0]
    _write(tmp_path, small, "plain", keys, chunk_size=64 << 10)
    with pytest.raises(CorruptRemoteObjectError, match="says .* has"):
        _storage(tmp_path, keys).segment_files(replace(seg, segment_size=seg.segment_size + 1)).log_size()


# ----------------------------------------------------------------------------------------- S3
def test_through_s3(tmp_path, s3, small, big, keys):
    prefix = s3.new_prefix()
    for data, mode in ((big, "zstd+aes"), (small, "plain")):
        _write(tmp_path, data, mode, keys, chunk_size=MiB if data is big else 16 << 10, key_prefix="tiered/")
    s3.upload(tmp_path, prefix)
    storage = AivenTieredStorage(s3.uri(prefix), key_prefix="tiered/", key_pairs={"k1": keys["k1"][3]},
                                 block_size=4 * MiB)
    assert "kvlogsecret" not in repr(storage)
    files = storage.segment_files(big[0])
    f = files.open_log()
    try:
        assert _scan(f) == big[1]
        assert f.pread(500, 7 * MiB) == big[1][7 * MiB:7 * MiB + 500]
    finally:
        f.close()
    assert files.index("offset") == big[2]["offset"]
    gets = storage.stats().gets
    assert gets <= 1 + math.ceil(len(big[1]) / (4 * MiB)) + 2 + 1 + 1
    plain = storage.segment_files(small[0]).open_log()
    assert plain.pread(len(small[1]), 0) == small[1]
    plain.close()
    s3.delete(f"{prefix}/" + segment_key(small[0], "tiered/") + ".rsm-manifest")
    with pytest.raises(ObjectNotFoundError, match="no manifest") as err:
        storage.segment_files(small[0]).log_size()
    assert "kvlogsecret" not in str(err.value) and "endpoint_override" not in str(err.value)
    assert err.value.path == s3.canonical(prefix + "/" + segment_key(small[0], "tiered/") + ".rsm-manifest")
