"""Differential tests: the C kernels against the slow reference codec in tests/reference."""

from hypothesis import given
from hypothesis import strategies as st

import kvlog
from tests.oracles import assert_same_batches
from tests.reference import records as ref
from tests.support import as_kvlog_records, kvlog_decode

blob = st.one_of(st.none(), st.binary(max_size=64))
header = st.tuples(st.text(max_size=8), st.one_of(st.none(), st.binary(max_size=16)))
ts = st.integers(0, 2**42)


@st.composite
def v2_records(draw, min_size=1, max_size=12):
    n = draw(st.integers(min_size, max_size))
    out = []
    for _ in range(n):
        out.append({"key": draw(blob), "value": draw(blob), "timestamp": draw(ts),
                    "headers": draw(st.lists(header, max_size=3))})
    return out


@st.composite
def legacy_records(draw, magic):
    n = draw(st.integers(1, 8))
    return [{"key": draw(blob), "value": draw(blob), "timestamp": draw(ts) if magic else -1, "headers": []}
            for _ in range(n)]


@given(v2_records(), st.integers(0, 2**40), st.sampled_from([0, 1, 2, 3, 4]), st.booleans(),
       st.integers(-1, 2**40), st.integers(-1, 32767), st.integers(-1, 2**31 - 1))
def test_v2_encode_matches_reference(recs, base, codec, lat, pid, epoch, seq):
    ttype = 1 if lat else 0
    lat_ts = 123456789 if lat else None
    ours = kvlog.encode_batch(as_kvlog_records(recs), base_offset=base, compression=codec, timestamp_type=ttype,
                              log_append_time=lat_ts, producer_id=pid, producer_epoch=epoch, base_sequence=seq)
    theirs = ref.encode_v2_batch(recs, base_offset=base, compression=codec, timestamp_type=ttype,
                                 max_timestamp=lat_ts, producer_id=pid, producer_epoch=epoch, base_sequence=seq)
    if codec == 0:
        assert ours == theirs
    assert_same_batches(kvlog_decode(ours), ref.decode(theirs), ignore=("crc", "batch_length"))
    assert_same_batches(kvlog_decode(theirs), ref.decode(theirs))


@given(st.sampled_from([0, 1]), st.data(), st.integers(0, 2**40), st.sampled_from([0, 1, 2, 3]))
def test_legacy_encode_matches_reference(magic, data, base, codec):
    recs = data.draw(legacy_records(magic))
    ours = kvlog.encode_batch(as_kvlog_records(recs), magic=magic, base_offset=base, compression=codec)
    theirs = ref.encode_legacy(magic, recs, base_offset=base, compression=codec)
    if codec == 0:
        assert ours == theirs
    assert_same_batches(kvlog_decode(ours), ref.decode(theirs), ignore=("crc", "batch_length"))
    assert_same_batches(kvlog_decode(theirs), ref.decode(theirs))


@given(st.lists(st.tuples(st.sampled_from([0, 1, 2]), st.sampled_from([0, 1, 2, 3, 4]), st.data()),
                min_size=1, max_size=6))
def test_multi_batch_mixed_magic_buffers(specs):
    parts = []
    offset = 0
    for magic, codec, data in specs:
        if magic < 2 and codec == 4:
            codec = 1
        recs = data.draw(v2_records(max_size=5) if magic == 2 else legacy_records(magic))
        if magic == 2:
            parts.append(ref.encode_v2_batch(recs, base_offset=offset, compression=codec))
        else:
            parts.append(ref.encode_legacy(magic, recs, base_offset=offset, compression=codec))
        offset += len(recs)
    buf = b"".join(parts)
    want = ref.decode(buf)
    assert_same_batches(kvlog_decode(buf), want)
    table = kvlog.MemoryRecords(buf).to_arrow()
    flat = [r for b in want for r in b["records"]]
    assert table.column("offset").to_pylist() == [r["offset"] for r in flat]
    assert table.column("key").to_pylist() == [r["key"] for r in flat]
    assert table.column("value").to_pylist() == [r["value"] for r in flat]
    hdrs = table.column("headers").to_pylist()
    assert [[(h["key"], h["value"]) for h in (x or [])] for x in hdrs] == [[tuple(h) for h in r["headers"]] for r in flat]


@given(st.lists(st.tuples(blob, blob), min_size=1, max_size=50), st.integers(1, 9), st.integers(61, 400))
def test_encode_arrays_splits_and_preserves(rows, per_batch, max_bytes):
    keys = [k for k, _ in rows]
    vals = [v for _, v in rows]
    buf = kvlog.encode_arrays(keys, vals, 1000, records_per_batch=per_batch, max_batch_bytes=max_bytes)
    got = ref.decode(buf)
    assert [(r["key"], r["value"]) for b in got for r in b["records"]] == rows
    assert [r["offset"] for b in got for r in b["records"]] == list(range(len(rows)))
    for b in got:
        assert b["record_count"] <= per_batch
        assert b["batch_length"] + 12 <= max_bytes or b["record_count"] == 1
