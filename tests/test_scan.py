"""Lazy scans (``kvlog.scan``, ``kvlog.Scan``, ``kvlog.polars.scan_kafka``, ``kvlog.duckdb``), issue 43.

Every read is compared with ``Log.to_arrow`` of the same partitions filtered in Python; pushdown is checked by
what kvlog decoded (``ScanStats`` and a wrapped decoder), never by timing. Inputs: a local data directory, an
object store (moto's S3), a ``kvlog backup`` and a tiered partition (KIP-405). The bounded-memory checks run a
scan in a subprocess under ``RLIMIT_AS``.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import textwrap

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import kvlog
from kvlog import LogConfig, LogManager, Record
from kvlog.errors import ConfigError, UnknownTopicOrPartitionError
from kvlog.scanning import COLUMNS, Scan, ScanStats, kafka_schema, to_spark_batch

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
import kvlog.duckdb  # noqa: E402
import kvlog.polars  # noqa: E402

T0 = 1_700_000_000_000
N = 1200  # records a partition


def _fill_plain(log: kvlog.Log) -> None:
    """Uncompressed, timestamps rising 10 ms a record, every third record with headers, 20 a batch."""
    for lo in range(0, N, 20):
        recs = [Record(b"k%d" % i if i % 5 else None, b"v%05d" % i * (1 + i % 4), T0 + 10 * i,
                       (("h", b"x%d" % i), ("n", None)) if i % 3 == 0 else ()) for i in range(lo, lo + 20)]
        log.append(recs)


def _fill_shuffled(log: kvlog.Log) -> None:
    """zstd batches whose timestamps go up and down (a producer's CreateTime), 25 a batch."""
    for lo in range(0, N, 25):
        recs = [Record(b"s%d" % i, b"w%06d" % i, T0 + 10 * ((i * 7919) % N)) for i in range(lo, lo + 25)]
        log.append(recs, compression="zstd")


def _fill_transactional(log: kvlog.Log) -> None:
    """lz4; transactions of producer 7, every third one aborted, between plain batches."""
    ts = T0
    seq = 0
    for round_ in range(40):
        recs = [Record(b"t%d" % i, b"tx-%d-%d" % (round_, i), ts + i) for i in range(10)]
        log.append(recs, producer_id=7, producer_epoch=0, base_sequence=seq, is_transactional=True,
                   compression="lz4")
        seq += 10
        log.end_transaction(7, 0, commit=round_ % 3 != 0, timestamp=ts + 10)
        log.append([Record(b"p", b"plain-%d" % round_, ts + 11)], compression="lz4")
        ts += 20


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """``events`` (3 partitions of many small segments), ``other`` (1) and an internal ``__meta`` (1)."""
    root = str(tmp_path_factory.mktemp("scan") / "data")
    cfg = LogConfig(segment_bytes=16 << 10, index_interval_bytes=512)
    with LogManager(root, cfg) as mgr:
        p0, p1, p2 = mgr.create_topic("events", 3)
        _fill_plain(p0)
        _fill_shuffled(p1)
        _fill_transactional(p2)
        (other,) = mgr.create_topic("other", 1)
        other.append([Record(b"o", b"other-%d" % i, T0 + i) for i in range(50)])
        (meta,) = mgr.create_topic("__meta", 1)
        meta.append([Record(b"m", b"meta", T0)])
    return root


def expected(root, topics=("events", "other"), *, read_committed=False, columns=COLUMNS, where=None):
    """Every partition's ``Log.to_arrow`` with the topic and partition columns, filtered by ``where`` (a
    function of the table returning a mask), sorted by topic, partition and offset."""
    iso = "read_committed" if read_committed else "read_uncommitted"
    batches = []
    with LogManager(root, read_only=True) as mgr:
        for t in topics:
            for p in mgr.partitions(t):
                table = mgr.log(t, p).to_arrow(isolation_level=iso)
                if table.num_rows:
                    batches.append(to_spark_batch(table, t, p, kafka_schema(True)))
    table = pa.Table.from_batches(batches, schema=kafka_schema(True))
    if where is not None:
        table = table.filter(where(table))
    return table.select(list(columns))


def normalized(table):
    """A scan's rows in (topic, partition, offset) order (threads interleave partitions)."""
    if isinstance(table, pa.RecordBatchReader):
        table = table.read_all()
    keys = [(c, "ascending") for c in ("topic", "partition", "offset") if c in table.column_names]
    return table.sort_by(keys).combine_chunks() if keys else table.combine_chunks()


def same(got, want):
    got, want = normalized(got), normalized(want)
    assert got.schema == want.schema, (got.schema, want.schema)
    assert got.num_rows == want.num_rows, (got.num_rows, want.num_rows)
    assert got.equals(want)


def us(ms):
    return pa.scalar(ms * 1000, pa.timestamp("us", tz="UTC"))


def utc(ms):
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc)


# ------------------------------------------------------------------------------------- kvlog.scan
def test_whole_topics_equal_to_arrow_and_the_schema_is_sparks(data):
    r = kvlog.scan(data)
    assert isinstance(r, pa.RecordBatchReader)
    assert r.schema == kafka_schema(True)
    same(r, expected(data))  # (the internal __meta is left out unless named)
    same(kvlog.scan(data, "__meta"), expected(data, ("__meta",)))


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("case", [
    dict(partitions=[0, 2]),
    dict(start_offset=333, end_offset=901),
    dict(start_timestamp=T0 + 10_000, columns=["offset", "value", "partition"]),
    dict(start_timestamp=utc(T0 + 4_005), end_timestamp=T0 + 9_000, columns=["timestamp", "key", "headers", "offset",
                                                                            "partition"]),
    dict(partitions=1, start_offset=100, start_timestamp=T0 + 6_000, end_timestamp=T0 + 6_500),
    dict(read_committed=True),
    dict(read_committed=True, start_timestamp=T0 + 300, columns=["value", "offset", "partition", "topic"]),
    dict(columns=["topic"]),
    dict(start_timestamp=T0 + 100_000),  # newer than every record
])
def test_predicates_and_projections_equal_filtered_to_arrow(data, case, threads):
    case = dict(case)
    columns = case.pop("columns", COLUMNS)
    committed = case.get("read_committed", False)
    parts = case.get("partitions")
    parts = None if parts is None else {parts} if isinstance(parts, int) else set(parts)

    def where(t):
        mask = pc.equal(t["topic"], "events")
        if parts is not None:
            mask = pc.and_(mask, pc.is_in(t["partition"], pa.array(sorted(parts), pa.int32())))
        if "start_offset" in case:
            mask = pc.and_(mask, pc.greater_equal(t["offset"], case["start_offset"]))
        if "end_offset" in case:
            mask = pc.and_(mask, pc.less(t["offset"], case["end_offset"]))
        for name, op in (("start_timestamp", pc.greater_equal), ("end_timestamp", pc.less)):
            if name in case:
                v = case[name]
                v = int(v.timestamp() * 1000) if isinstance(v, dt.datetime) else v
                mask = pc.and_(mask, op(t["timestamp"], us(v)))
        return mask

    got = kvlog.scan(data, "events", columns=columns, threads=threads, batch_size=97, **case)
    assert all(b.num_rows <= 97 for b in got.read_all().to_batches())
    same(kvlog.scan(data, "events", columns=columns, threads=threads, batch_size=97, **case),
         expected(data, ("events",), read_committed=committed, columns=columns, where=where))


def test_one_thread_keeps_partition_and_offset_order(data):
    t = kvlog.scan(data, ["other", "events"], columns=["topic", "partition", "offset"], threads=1).read_all()
    rows = list(zip(t["topic"].to_pylist(), t["partition"].to_pylist(), t["offset"].to_pylist()))
    assert rows == sorted(rows, key=lambda r: (["other", "events"].index(r[0]), r[1], r[2]))


def test_a_timestamp_bound_is_pushed_through_the_time_index(data):
    """The last tenth of a partition by time: nothing before the batch holding the first match is decoded."""
    first = N - N // 10
    st = ScanStats()
    got = kvlog.scan(data, "events", partitions=0, start_timestamp=T0 + 10 * first, columns=["offset"],
                     stats=st).read_all()
    assert got["offset"].to_pylist() == list(range(first, N))
    assert st.partitions == 1
    assert st.first_decoded_offset is not None and first - 20 < st.first_decoded_offset <= first
    assert st.records_decoded < N // 10 + 20  # (the batch holding the first match, 20 records, at most)


def test_a_timestamp_bound_skips_older_batches_by_their_headers(data):
    """Partition 1's timestamps go up and down: after the time index's start, each batch whose max timestamp is
    below the bound is passed over without being decompressed."""
    bound = T0 + 10 * (N - 60)
    st = ScanStats()
    got = kvlog.scan(data, "events", partitions=1, start_timestamp=bound, columns=["offset", "timestamp"],
                     stats=st).read_all()
    same(got, expected(data, ("events",), columns=["offset", "timestamp"],
                       where=lambda t: pc.and_(pc.equal(t["partition"], 1), pc.greater_equal(t["timestamp"], us(bound)))))
    assert st.batches_skipped > 0
    assert st.records_decoded < N // 2


def test_offsets_are_pushed_through_the_offset_index(data, monkeypatch):
    """Only the batches holding offsets of the range are decoded (a wrapped decoder sees every one)."""
    from kvlog import scanning

    seen = []
    real = scanning._decode

    def spy(view, start, end, **kw):
        res = real(view, start, end, **kw)
        for c in res.chunks:
            seen.extend(np.frombuffer(c["offsets"], np.int64, c["n"]).tolist())
        return res

    monkeypatch.setattr(scanning, "_decode", spy)
    got = kvlog.scan(data, "events", partitions=0, start_offset=505, end_offset=517, columns=["offset"]).read_all()
    assert got["offset"].to_pylist() == list(range(505, 517))
    assert min(seen) >= 500 and max(seen) < 520  # the two 20-record batches holding 505..516
    seen.clear()
    st = ScanStats()
    kvlog.scan(data, "events", partitions=[2], stats=st).read_all()
    assert st.partitions == 1 and min(seen) == 0  # partitions 0 and 1 were never opened


def test_headers_and_values_not_selected_are_not_decoded(data, monkeypatch):
    from kvlog import scanning

    flags = []
    real = scanning._decode

    def spy(view, start, end, **kw):
        flags.append((kw["include_headers"], kw["include_values"]))
        return real(view, start, end, **kw)

    monkeypatch.setattr(scanning, "_decode", spy)
    t = kvlog.scan(data, "events", columns=["key", "offset"]).read_all()
    assert t.num_rows == expected(data, ("events",)).num_rows
    assert flags and set(flags) == {(False, False)}
    flags.clear()
    kvlog.scan(data, "events", columns=["headers", "value"]).read_all()
    assert set(flags) == {(True, True)}


def test_read_committed_skips_aborted_and_control_batches_by_their_headers(data):
    st = ScanStats()
    got = kvlog.scan(data, "events", partitions=2, read_committed=True, stats=st).read_all()
    same(got, expected(data, ("events",), read_committed=True, where=lambda t: pc.equal(t["partition"], 2)))
    assert st.batches_skipped >= 40 + 13  # every marker and the aborted transactions' batches
    assert not any(v.startswith(b"tx-0-") for v in got["value"].to_pylist())  # (round 0 was aborted)


def test_the_scan_object_exports_the_arrow_stream_protocol(data):
    s = Scan(data, "other", columns=["offset", "value"])
    assert pa.schema(s) == s.schema == pa.schema([("offset", pa.int64()), ("value", pa.binary())])
    t1 = pa.table(s)  # (through __arrow_c_stream__)
    t2 = pa.RecordBatchReader.from_stream(s).read_all()
    assert t1.equals(t2) and t1.num_rows == 50
    df = pl.DataFrame(s)
    assert df.height == 50 and df.columns == ["offset", "value"]
    assert [r.size for r in s.plan()] == [50]
    assert s.head(7).to_table().num_rows == 7
    assert "other" in repr(s)


def test_a_log_and_a_manager_can_be_scanned_and_see_new_records(tmp_path):
    with LogManager(tmp_path / "d") as mgr:
        (log,) = mgr.create_topic("t", 1)
        log.append([Record(b"k", b"v%d" % i, T0 + i) for i in range(10)])
        log.flush()
        with LogManager(tmp_path / "d", read_only=True) as ro:
            s = Scan(ro, "t", columns=["offset"])
            assert s.to_table().num_rows == 10
            log.append([Record(b"k", b"w", T0 + 99)])
            log.flush()
            assert s.to_table().num_rows == 11  # (each read refreshes the logs it was given)
        assert kvlog.scan(log, columns=["value"]).read_all()["value"].to_pylist()[-1] == b"w"
        assert kvlog.scan(str(tmp_path / "d" / "t-0"), columns=["offset"]).read_all().num_rows == 11


def test_bad_arguments_are_refused(data):
    with pytest.raises(ConfigError, match="unknown column"):
        kvlog.scan(data, columns=["offset", "nope"])
    with pytest.raises(ConfigError, match="named twice"):
        kvlog.scan(data, columns=["offset", "offset"])
    with pytest.raises(ConfigError, match="batch_size"):
        kvlog.scan(data, batch_size=0)
    with pytest.raises(ConfigError, match="start_timestamp"):
        kvlog.scan(data, start_timestamp="yesterday")
    with pytest.raises(UnknownTopicOrPartitionError):
        kvlog.scan(data, "missing").read_all()
    with pytest.raises(TypeError, match="a scan reads"):
        kvlog.scan(42).read_all()


# ------------------------------------------------------------------------------------------- Polars
def polars_expected(data, expr, columns, *, read_committed=False):
    full = pl.from_arrow(expected(data, ("events",), read_committed=read_committed))
    return full.filter(expr).select(columns).sort("partition", "offset") if "partition" in columns else \
        full.filter(expr).select(columns).sort("offset")


@pytest.mark.parametrize("expr,opened,pushed_ts", [
    (pl.col("timestamp") >= utc(T0 + 10_500), 3, True),
    ((pl.col("partition") == 1) & pl.col("offset").is_between(100, 300), 1, False),
    (pl.col("partition").is_in([0, 2]) & (pl.col("offset") > 1000), 2, False),
    ((pl.col("offset") < 30) | (pl.col("offset") >= 1190), 3, False),
    (~(pl.col("offset") < 1100) & (pl.col("timestamp") < utc(T0 + 11_800)), 3, False),
    (pl.col("value").bin.starts_with(b"v0001") & (pl.col("timestamp") > utc(T0 + 1_000)), 3, True),
    (pl.col("topic") == "nope", 0, False),
    (pl.col("key").is_null() | (pl.col("offset") == 7), 3, False),
])
def test_polars_predicates_equal_polars_over_to_arrow(data, expr, opened, pushed_ts):
    st = ScanStats()
    lf = kvlog.polars.scan_kafka(data, "events", stats=st)
    cols = ["partition", "offset", "value", "timestamp"]
    got = lf.filter(expr).select(cols).collect().sort("partition", "offset")
    want = polars_expected(data, expr, cols)
    assert got.height == want.height and got.equals(want)
    assert st.partitions == opened
    if pushed_ts:
        assert st.records_decoded < 3 * N * 0.95


def test_polars_projection_limit_and_streaming(data):
    st = ScanStats()
    lf = kvlog.polars.scan_kafka(data, "events", stats=st)
    assert lf.collect_schema() == kvlog.polars.polars_schema()
    assert lf.head(5).collect().height == 5
    assert st.records_decoded < N  # (a limit stops the scan)
    both = lf.select(pl.len(), pl.col("value").bin.size().sum()).collect(engine="streaming")
    t = expected(data, ("events",))
    assert both.row(0) == (t.num_rows, sum(len(v) for v in t["value"].to_pylist()))
    committed = kvlog.polars.scan_kafka(data, "events", read_committed=True).select("offset").collect()
    assert committed.height == expected(data, ("events",), read_committed=True).num_rows
    assert "kvlog" in lf.explain()
    # explain() shows what is pushed, and it is: one partition opened of a filter on it, two of eight columns read
    st2 = ScanStats()
    q = kvlog.polars.scan_kafka(data, "events", stats=st2).filter(pl.col("partition") == 1).select("offset")
    plan = q.explain()
    assert "PROJECT 2/8 COLUMNS" in plan and 'col("partition") == 1' in plan
    assert "pushes the SELECTION's comparisons of partition, offset, timestamp and topic" in plan
    t = expected(data, ("events",))
    assert q.collect().height == t.filter(pc.equal(t["partition"], 1)).num_rows
    assert st2.partitions == 1


def test_polars_predicate_translation():
    from kvlog.polars import to_predicate
    from kvlog.scanning import Bounds

    b = Bounds.of(to_predicate((pl.col("partition") == 3) & (pl.col("offset") >= 10) & (pl.col("offset") < 20)
                               & (pl.col("timestamp") > utc(T0))))
    assert (b.partitions, b.offset_lo, b.offset_hi, b.ts_lo) == (frozenset([3]), 10, 20, T0 + 1)
    assert to_predicate(pl.col("value") == b"x") is None
    b = Bounds.of(to_predicate(pl.col("offset").is_between(5, 9, closed="left") | (pl.col("offset") == 30)))
    assert (b.offset_lo, b.offset_hi) == (5, 31)
    ns = pl.lit(dt.datetime(2024, 1, 1, 0, 0, 0, 1), dtype=pl.Datetime("ns", "UTC"))
    b = Bounds.of(to_predicate(pl.col("timestamp") >= ns))
    assert b.ts_lo == 1_704_067_200_001  # (1 µs past a millisecond: the next millisecond)


# ------------------------------------------------------------------------------------------- DuckDB
@pytest.mark.parametrize("where,partitions", [
    ("timestamp >= TIMESTAMPTZ '2023-11-14 22:13:30.5+00'", 3),
    ("\"partition\" = 1 and \"offset\" between 100 and 300", 1),
    ("\"partition\" in (0, 2) and \"offset\" > 1000", 2),
    ("\"offset\" < 30 or \"offset\" >= 1190", 3),
    ("not (\"offset\" < 1100) and timestamp < TIMESTAMPTZ '2023-11-14 22:13:31.8+00'", 3),
    ("octet_length(value) > 12 and timestamp > TIMESTAMPTZ '2023-11-14 22:13:21+00'", 3),
    ("topic = 'nope'", 0),
    ("key is null or \"offset\" = 7", 3),
])
def test_duckdb_filters_equal_duckdb_over_to_arrow(data, where, partitions):
    st = ScanStats()
    events = kvlog.duckdb.source(data, "events", stats=st)  # noqa: F841  (DuckDB finds it by name)
    whole = expected(data, ("events",))  # noqa: F841
    q = "select \"partition\", \"offset\", value, timestamp from {} where " + where + " order by 1, 2"
    got = duckdb.sql(q.format("events")).fetchall()
    want = duckdb.sql(q.format("whole")).fetchall()
    assert got == want
    assert st.partitions == partitions
    if "timestamp >=" in where:
        assert st.records_decoded < N + N // 2


def test_duckdb_register_aggregates_and_projection(data, monkeypatch):
    from kvlog import scanning

    flags = []
    real = scanning._decode

    def spy(view, start, end, **kw):
        flags.append((kw["include_headers"], kw["include_values"]))
        return real(view, start, end, **kw)

    monkeypatch.setattr(scanning, "_decode", spy)
    con = duckdb.connect()
    kvlog.duckdb.register(con, "ev", data, "events", read_committed=True)
    t = expected(data, ("events",), read_committed=True)
    assert con.sql("select count(*) from ev").fetchall() == [(t.num_rows,)]
    assert set(flags) == {(False, False)}  # (count(*) reads one column: no values or headers decoded)
    got = con.sql("select count(*), sum(octet_length(value)) from ev").fetchall()
    assert got == [(t.num_rows, sum(len(v) for v in t["value"].to_pylist()))]
    assert "Filters" in con.sql("explain select * from ev where \"offset\" < 3").fetchall()[0][1]
    rows = con.sql("select list_sort(list_transform(headers, lambda h: h.key)) from ev where \"partition\" = 0 "
                   "and \"offset\" = 3").fetchall()
    assert rows == [(["h", "n"],)]


# ------------------------------------------------------------------------------------------- inputs
def test_an_object_store_is_scanned_through_every_engine(data, s3):
    prefix = s3.new_prefix()
    s3.upload(data, prefix)
    uri = s3.uri(prefix)
    want = expected(data, ("events",))
    same(kvlog.scan(uri, "events"), want)
    st = ScanStats()
    got = kvlog.polars.scan_kafka(uri, "events", stats=st).filter(pl.col("partition") == 0).select("offset").collect()
    assert got.height == N and st.partitions == 1
    src = kvlog.duckdb.source(uri, "events")  # noqa: F841
    assert duckdb.sql("select count(*) from src where \"offset\" >= 1100").fetchall() == [(2 * 100,)]  # (partition 2 ends at 480)


def test_a_backup_is_scanned_as_its_source(data, tmp_path):
    from kvlog.backup.run import backup

    dest = str(tmp_path / "backup")
    result = backup(data, dest)
    assert not result.errors
    got = kvlog.scan(dest, "events", start_timestamp=T0 + 5_000)
    with LogManager(dest, read_only=True) as mgr:
        assert mgr.log("events", 0).log_end_offset == N
    same(got, expected(data, ("events",), where=lambda t: pc.greater_equal(t["timestamp"], us(T0 + 5_000))))
    lf = kvlog.polars.scan_kafka(dest, "other", backup_run=1)
    assert lf.select(pl.len()).collect().item() == 50


def test_a_tiered_partition_is_scanned_with_its_remote_history(tmp_path):
    sys.path.insert(0, os.path.dirname(__file__))
    from tiered_support import tier_log, write_log

    from kvlog.tiered import LocalTieredStorage

    write_log(tmp_path / "data", segments=5)
    t = tier_log(tmp_path / "data", remote=3)
    remote = LocalTieredStorage(t.remote_root)
    with kvlog.Log.open(t.whole_dir, read_only=True) as whole:
        want = to_spark_batch(whole.to_arrow(), "orders", 0, kafka_schema(True))
    st = ScanStats()
    got = kvlog.scan(t.root, "orders", remote_storage=remote, stats=st).read_all()
    same(got, pa.Table.from_batches([want]))
    lo = T0 + 120  # inside the second (remote) segment
    st = ScanStats()
    df = (kvlog.polars.scan_kafka(t.root, "orders", remote_storage=remote, stats=st)
          .filter(pl.col("timestamp") >= utc(lo)).select("offset").collect())
    assert df["offset"].to_list() == list(range(120, 500))
    assert st.first_decoded_offset is not None and st.first_decoded_offset >= 100
    src = kvlog.duckdb.source(t.root, "orders", remote_storage=remote)  # noqa: F841
    assert duckdb.sql("select min(\"offset\"), count(*) from src where \"offset\" < 250").fetchall() == [(0, 250)]


# ----------------------------------------------------------------------------------- bounded memory
_MEMORY_CHILD = textwrap.dedent('''
    import os, resource, sys
    import duckdb, polars as pl
    import kvlog, kvlog.duckdb, kvlog.polars

    root, mode, budget, expect_rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

    def vm():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize"))

    def polars_query(parts):
        lf = kvlog.polars.scan_kafka(root, "big").filter(pl.col("partition").is_in(parts))
        return lf.select(pl.len(), pl.col("value").bin.size().sum()).collect(engine="streaming").row(0)

    con = duckdb.connect()
    con.sql("set threads = 1")
    src = kvlog.duckdb.source(root, "big")

    def duck_query(where):
        return con.sql(f"select count(*), sum(octet_length(value)) from src where {where}").fetchall()[0]

    polars_query([0]), duck_query("partition = 0")  # warm: thread pools and allocator arenas exist before the cap
    limit = vm() + budget if mode == "headroom" else budget
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    p = polars_query(list(range(1000)))
    d = duck_query("true")
    assert p[0] == d[0] == expect_rows, (p, d, expect_rows)
    try:  # the cap bites: the same topic held whole does not fit
        kvlog.scan(root, "big", columns=["value"]).read_all()
    except MemoryError:
        print("OK", limit, p, d, flush=True)
''')


def _big_topic(root: str, partitions: int, mb_each: int) -> int:
    """A topic ``big`` of ``partitions`` identical partitions of about ``mb_each`` MB (one written, the others
    hard links of its files: every partition is read in full, none costs disk or page cache again)."""
    n = mb_each * 1024 * 1024 // 1100
    with LogManager(root, LogConfig(segment_bytes=64 << 20)) as mgr:
        (log,) = mgr.create_topic("big", 1)
        value = os.urandom(1024)
        for lo in range(0, n, 20_000):
            k = min(20_000, n - lo)
            log.append(kvlog.encode_arrays([None] * k, [value] * k, T0 + np.arange(lo, lo + k), records_per_batch=500))
    src = os.path.join(root, "big-0")
    for p in range(1, partitions):
        d = os.path.join(root, f"big-{p}")
        os.mkdir(d)
        for name in os.listdir(src):
            if name.endswith((".log", ".index", ".timeindex")):
                os.link(os.path.join(src, name), os.path.join(d, name))
            elif name == "partition.metadata":
                with open(os.path.join(src, name), "rb") as f, open(os.path.join(d, name), "wb") as g:
                    g.write(f.read())
    return n * partitions


def _run_capped(root: str, mode: str, budget: int, rows: int) -> str:
    env = dict(os.environ, MALLOC_ARENA_MAX="2", POLARS_MAX_THREADS="2")
    proc = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, root, mode, str(budget), str(rows)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr
    return proc.stdout


def test_a_topic_four_times_the_scans_memory_streams_through_polars_and_duckdb(tmp_path):
    """The address space left to a warmed-up process is capped at 96 MiB; the topic is 4× that (384 MiB: 6
    partitions of 64 MiB), read whole by Polars (streaming engine) and DuckDB."""
    budget = 96 << 20
    rows = _big_topic(str(tmp_path / "d"), 6, 64)
    _run_capped(str(tmp_path / "d"), "headroom", budget, rows)


@pytest.mark.slow
def test_a_topic_four_times_the_process_memory_limit_streams_through_polars_and_duckdb(tmp_path):
    """``RLIMIT_AS`` of the whole process (Python, pyarrow, Polars and DuckDB included) at 2.5 GiB; the topic
    is 10 GiB (40 partitions of 256 MiB, hard links of one), read whole by Polars and DuckDB."""
    limit = 5 << 29
    rows = _big_topic(str(tmp_path / "d"), 40, 256)
    _run_capped(str(tmp_path / "d"), "total", limit, rows)
