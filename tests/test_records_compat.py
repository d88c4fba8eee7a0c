"""Byte compatibility with independent implementations, in both directions.

Peers: aiokafka's C codec, aiokafka's pure-Python codec, kafka-python (tests/oracles.py), plus the
slow reference codec in tests/reference. Every combination a peer can write is read back by kvlog
identically; every batch kvlog writes passes the peers' CRC checks and decodes to the input.
"""

import itertools

import pytest

import kvlog
from tests import oracles
from tests.oracles import PEERS, assert_same_batches, peer_can_decode, peer_decode, peer_encode, peer_supports
from tests.reference import records as ref
from tests.support import as_kvlog_records, kvlog_decode

CODECS = [0, 1, 2, 3, 4]
T0 = 1_700_000_000_000


def sample_records(magic, headers):
    recs = [
        {"key": b"key-1", "value": b"value " * 40, "timestamp": T0},
        {"key": None, "value": b"null key " * 30, "timestamp": T0 + 5},
        {"key": b"tombstone", "value": None, "timestamp": T0 + 3},
        {"key": b"", "value": b"", "timestamp": T0 + 10},
        {"key": b"\x00\xff" * 20, "value": bytes(range(256)) * 4, "timestamp": T0 + 10},
    ]
    recs += [{"key": b"k%d" % i, "value": b"v%d " % i * 20, "timestamp": T0 + 100 + i} for i in range(40)]
    if headers:
        recs[0]["headers"] = [("trace", b"abc"), ("empty", b""), ("null", None)]
        recs[4]["headers"] = [("dup", b"1"), ("dup", b"2"), ("ünïcode", b"\xff")]
    for r in recs:
        r.setdefault("headers", [])
        if magic == 0:
            r["timestamp"] = -1
    return recs


def combos(direction):
    for peer, magic, codec, headers in itertools.product(PEERS, (0, 1, 2), CODECS, (False, True)):
        if headers and magic < 2:
            continue
        ok = peer_supports(peer, magic, codec, headers) if direction == "read" else peer_can_decode(peer, magic, codec)
        if ok:
            yield pytest.param(peer, magic, codec, headers, id=f"{peer}-v{magic}-c{codec}-h{int(headers)}")


def plain(records):
    return [(r["offset"], r["timestamp"], r["key"], r["value"], [tuple(h) for h in r["headers"]]) for r in records]


@pytest.mark.parametrize("peer,magic,codec,headers", list(combos("read")))
def test_kvlog_reads_what_peers_write(peer, magic, codec, headers):
    recs = sample_records(magic, headers)
    buf = peer_encode(peer, magic, recs, compression=codec, base_offset=1000)
    ours = kvlog_decode(buf)
    assert_same_batches(ours, ref.decode(buf))
    got = [(r["offset"], r["timestamp"], r["key"], r["value"], r["headers"]) for b in ours for r in b["records"]]
    want = [(1000 + i, r["timestamp"], r["key"], r["value"], [tuple(h) for h in r["headers"]])
            for i, r in enumerate(recs)]
    assert got == want
    assert all(b["crc_valid"] for b in ours)
    # the Arrow path agrees with record iteration
    table = kvlog.MemoryRecords(buf).to_arrow()
    assert table.column("offset").to_pylist() == [g[0] for g in got]
    assert table.column("key").to_pylist() == [g[2] for g in got]
    assert table.column("value").to_pylist() == [g[3] for g in got]


@pytest.mark.parametrize("peer,magic,codec,headers", list(combos("write")))
def test_peers_read_what_kvlog_writes(peer, magic, codec, headers):
    recs = sample_records(magic, headers)
    buf = kvlog.encode_batch(as_kvlog_records(recs), magic=magic, compression=codec, base_offset=77)
    theirs = peer_decode(peer, buf)
    assert all(b["crc_valid"] for b in theirs), "peer rejected kvlog's CRC"
    got = [(r["offset"], r["timestamp"], r["key"], r["value"], [tuple(h) for h in r["headers"]])
           for b in theirs for r in b["records"]]
    want = [(77 + i, r["timestamp"], r["key"], r["value"], [tuple(h) for h in r["headers"]])
            for i, r in enumerate(recs)]
    assert got == want
    assert_same_batches(ref.decode(buf), kvlog_decode(buf))


@pytest.mark.parametrize("magic,codec", [(m, c) for m in (0, 1, 2) for c in CODECS if not (m < 2 and c == 4)])
def test_uncompressed_and_compressed_bytes_match_reference_encoder(magic, codec):
    """Uncompressed output is byte-identical to the reference encoder; compressed decodes identically."""
    recs = sample_records(magic, headers=magic == 2)
    ours = kvlog.encode_batch(as_kvlog_records(recs), magic=magic, compression=codec, base_offset=5)
    if magic == 2:
        theirs = ref.encode_v2_batch(recs, base_offset=5, compression=codec)
    else:
        theirs = ref.encode_legacy(magic, recs, base_offset=5, compression=codec)
    if codec == 0:
        assert ours == theirs
    assert_same_batches(kvlog_decode(ours), ref.decode(theirs), ignore=("crc", "batch_length"))


def test_mixed_magic_multi_batch_buffer():
    parts = []
    base = 0
    for magic, codec in [(0, 0), (0, 1), (1, 0), (1, 2), (2, 0), (2, 4), (1, 3), (2, 3), (0, 2), (2, 1)]:
        recs = sample_records(magic, headers=magic == 2)[:7]
        parts.append(kvlog.encode_batch(as_kvlog_records(recs), magic=magic, compression=codec, base_offset=base))
        base += len(recs)
    buf = b"".join(parts)
    ours = kvlog_decode(buf)
    assert_same_batches(ours, ref.decode(buf))
    assert [r["offset"] for b in ours for r in b["records"]] == list(range(base))
    # the pure-Python aiokafka reader handles mixed magics; its C reader does not (oracles quirk 1)
    assert_same_batches(peer_decode("aiokafka-py", buf), ours)
    assert_same_batches(peer_decode("aiokafka-c", buf, split=True), ours)
    assert kvlog.MemoryRecords(buf).to_arrow().num_rows == base


def test_many_peer_batches_concatenated():
    parts = [peer_encode("aiokafka-c", 2, sample_records(2, True)[:3], compression=c, base_offset=3 * i)
             for i, c in enumerate([0, 1, 2, 3, 4, 0])]
    buf = b"".join(parts)
    table = kvlog.MemoryRecords(buf).to_arrow()
    assert table.column("offset").to_pylist() == list(range(18))


def test_real_broker_segment(kraft_segment):
    """A KRaft __cluster_metadata segment written by a real Kafka (see shared/fixtures/README.md)."""
    data = kraft_segment.read_bytes()
    mr = kvlog.MemoryRecords(data)
    batches = list(mr.batches())
    assert [b.base_offset for b in batches] == [0, 1]
    assert all(b.is_valid() and b.magic == 2 for b in batches)
    recs = list(mr.records())
    assert [r.offset for r in recs] == [0, 1, 2, 3]
    assert [r.timestamp for r in recs] == [1726045943832] + [1726045957397] * 3
    assert [len(r.value) for r in recs] == [23, 24, 65, 65]
    assert all(r.key is None for r in recs)
    assert all(r.timestamp_type == kvlog.TimestampType.CREATE_TIME for r in recs)
    assert mr.valid_bytes == len(data) == 331
    assert_same_batches(kvlog_decode(data), ref.decode(data))
    assert_same_batches(kvlog_decode(data), peer_decode("aiokafka-c", data))
    mr.validate()
    # re-encoding the decoded records reproduces the broker's bytes exactly (same fields, no codec)
    out = b"".join(
        kvlog.encode_batch(list(b.records()), base_offset=b.base_offset,
                           partition_leader_epoch=b.partition_leader_epoch, producer_id=b.producer_id,
                           producer_epoch=b.producer_epoch, base_sequence=b.base_sequence)
        for b in batches)
    assert out == data


def test_peer_quirk_aiokafka_c_mixed_magic_is_still_broken():
    """Guards the claim in tests/oracles.py quirk 1 (and so our reason for split=True)."""
    buf = (kvlog.encode_batch([kvlog.Record(b"k", b"v", T0)], magic=2)
           + kvlog.encode_batch([kvlog.Record(b"k", b"v", T0)], magic=1, base_offset=1))
    try:
        got = peer_decode("aiokafka-c", buf)
    except Exception:
        return
    assert oracles.records_of(got) != oracles.records_of(kvlog_decode(buf))
