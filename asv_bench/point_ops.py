#!/usr/bin/env python
"""Single operations of a ``kvlog.Log`` beside SQLite and the raw syscall (issue 12, DESIGN.md §6).

    python asv_bench/point_ops.py                  # full run (about a minute on a quiet machine)
    python asv_bench/point_ops.py --quick          # smoke run, well under 30 s (noisy figures)
    python asv_bench/point_ops.py --json out.json  # also write the rows as JSON

``point_rows(repeat)`` returns the same rows for ``compare_peers.py``, in its tuple shape
``(what, peer, kvlog_value, peer_value, unit, target)``. Rows in ``µs/call`` are latencies (lower is
better): their ratio is peer time / kvlog time (> 1: kvlog faster, as for every other row) and their
target is a ceiling on kvlog's own figure. Rate rows keep compare_peers' meaning: ratio kvlog / peer,
target a floor on that ratio. A target of 0 marks a row printed for information.

Why it is built this way:

* Everything (logs, SQLite database, raw files) lives on tmpfs (``/dev/shm``) when there is one: the
  issue measures the cost of the code and its syscalls, not of a disk's writeback. The output names
  the place and its file system.
* SQLite is the standard library's, set up exactly as the issue says: ``PRAGMA journal_mode=WAL``,
  ``PRAGMA synchronous=OFF``, one table ``t(offset INTEGER PRIMARY KEY, ts INTEGER, key BLOB, value
  BLOB)`` with ``CREATE INDEX ON t(ts)``, in autocommit mode (``isolation_level=None``) so each
  transaction is exactly the one the row describes.
* kvlog and its peer run alternately (``compare_peers.paired``), each figure the best of several
  repetitions, a latency the mean over many calls (20,000 per repetition; 2,000 with ``--quick``), so a
  CPU whose clock drifts affects both sides alike. Inputs (offsets, timestamps, positions) are drawn
  before the clock starts, the same for both sides.
* Before timing, the two sides are checked to give the same answers (time search, consumer ranges), so
  the comparison is between equal work.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import platform
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compare_peers import best_time, describe_machine, paired, print_table  # noqa: E402

import kvlog  # noqa: E402
from kvlog import Log, LogConfig, Record  # noqa: E402
from kvlog._core import build_info  # noqa: E402

Row = tuple[str, str, float, float, str, float]

T0 = 1_700_000_000_000  # first record timestamp; record i of the read log carries T0 + 10 * i
VALUE_BYTES = 100
CALLS = 20_000  # calls per repetition for a latency figure
QUICK_CALLS = 2_000
REPEAT = 7
QUICK_REPEAT = 3
READ_RECORDS = 300_000  # ~40 MB: five 8 MiB segments
READ_SEGMENT_BYTES = 8 << 20
SQL_ROWS_4K = 30  # rows of ~113 B in about 4 KiB: the SQLite counterpart of read(offset, 4096)
SQL_ROWS_64K = 480
MIX_SEARCH_EVERY = 1_000

SQL_READ = "SELECT offset, ts, key, value FROM t WHERE offset >= ? ORDER BY offset LIMIT ?"
SQL_SEARCH = "SELECT offset FROM t WHERE ts >= ? ORDER BY ts LIMIT 1"
SQL_INSERT = "INSERT INTO t (offset, ts, key, value) VALUES (?, ?, ?, ?)"


def scratch_root() -> str:
    """A fresh directory on tmpfs (``/dev/shm``) when it exists and is writable, else ``tempfile``'s."""
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="kvlog-point-ops-", dir=shm)


def file_system(path: str) -> str:
    """The file system type holding ``path`` (longest mount point in /proc/mounts), to print beside it."""
    best, kind = "", "unknown"
    try:
        with open("/proc/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) > 2 and (path == parts[1] or path.startswith(parts[1].rstrip("/") + "/")):
                    if len(parts[1]) > len(best):
                        best, kind = parts[1], parts[2]
    except OSError:
        pass
    return kind


def open_sqlite(path: str) -> sqlite3.Connection:
    """The peer database, configured as issue 12 specifies (WAL, synchronous=OFF, index on ts)."""
    conn = sqlite3.connect(path, isolation_level=None)  # autocommit: transactions are explicit below
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("CREATE TABLE IF NOT EXISTS t (offset INTEGER PRIMARY KEY, ts INTEGER, key BLOB, value BLOB)")
    conn.execute("CREATE INDEX IF NOT EXISTS t_ts ON t(ts)")
    return conn


class ReadFixture:
    """The log the read rows query (8 MiB segments, 1-10 records per batch, 100 B values, increasing
    timestamps), the same rows in SQLite, and the segment files opened for raw ``pread``."""

    def __init__(self, root: str, n_records: int = READ_RECORDS) -> None:
        rng = random.Random(12)
        values = [rng.randbytes(VALUE_BYTES) for _ in range(1024)]
        self.log = Log.open(os.path.join(root, "read-log"), LogConfig(segment_bytes=READ_SEGMENT_BYTES))
        self.db = open_sqlite(os.path.join(root, "read.db"))
        rows: list[tuple[int, int, bytes, bytes]] = []
        offset = 0
        while offset < n_records:
            k = rng.randint(1, 10)
            batch = [(offset + j, T0 + 10 * (offset + j), b"key-%08d" % (offset + j), values[(offset + j) & 1023])
                     for j in range(k)]
            self.log.append(kvlog.encode_batch([Record(key, value, ts) for _, ts, key, value in batch]))
            rows += batch
            offset += k
        self.db.execute("BEGIN")
        self.db.executemany(SQL_INSERT, rows)
        self.db.execute("COMMIT")
        self.end = offset
        self.files = [seg.log_path for seg in self.log.segments]
        self.bases = [seg.base_offset for seg in self.log.segments]
        self.fds = [os.open(f, os.O_RDONLY) for f in self.files]

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.log.close()
        self.db.close()


class PointOps:
    """Every measurement, sharing one scratch directory (removed by ``close``) and one read fixture."""

    def __init__(self, repeat: int, calls: int, mixed_appends: int | None = None) -> None:
        self.repeat = repeat
        self.calls = calls
        self.mixed_appends = mixed_appends if mixed_appends is not None else calls
        self.root = scratch_root()
        self.rng = random.Random(42)
        self.value = self.rng.randbytes(VALUE_BYTES)
        self._n = 0
        self._fixture: ReadFixture | None = None

    def close(self) -> None:
        if self._fixture is not None:
            self._fixture.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def fresh(self, name: str) -> str:
        """A new path under the scratch root (every repetition writes into its own log or database)."""
        self._n += 1
        return os.path.join(self.root, f"{name}-{self._n}")

    @property
    def fixture(self) -> ReadFixture:
        if self._fixture is None:
            self._fixture = ReadFixture(self.root)
        return self._fixture

    # ------------------------------------------------------------------------------------ appends
    def _log_appends(self, item: Any, calls: int) -> Callable[[], float]:
        """A repetition: ``calls`` appends of ``item`` into a fresh Log (default config); seconds per call.
        Opening and closing are not timed; the files are removed after each repetition (tmpfs is RAM)."""

        def run() -> float:
            path = self.fresh("log")
            log = Log.open(path, LogConfig())
            append = log.append
            t = time.perf_counter()
            for _ in range(calls):
                append(item)
            elapsed = time.perf_counter() - t
            log.close()
            shutil.rmtree(path, ignore_errors=True)
            return elapsed / calls

        return run

    def _raw_writes(self, data: bytes, calls: int) -> Callable[[], float]:
        """A repetition: ``calls`` ``os.write`` of ``data`` to a fresh O_APPEND file; seconds per call."""

        def run() -> float:
            path = self.fresh("raw")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            write = os.write
            t = time.perf_counter()
            for _ in range(calls):
                write(fd, data)
            elapsed = time.perf_counter() - t
            os.close(fd)
            os.unlink(path)
            return elapsed / calls

        return run

    def _sqlite_inserts(self, per_txn: int, calls: int) -> Callable[[], float]:
        """A repetition: ``calls`` transactions of ``per_txn`` rows into a fresh database; seconds per
        transaction. One row is a single autocommitted INSERT (SQLite's implicit transaction, the
        cheapest way to commit it); more rows are BEGIN, executemany, COMMIT."""
        value = self.value

        def run() -> float:
            path = self.fresh("db")
            conn = open_sqlite(path)
            cur = conn.cursor()
            offset = 0
            t = time.perf_counter()
            if per_txn == 1:
                for i in range(calls):
                    cur.execute(SQL_INSERT, (i, T0 + i, b"key-%08d" % i, value))
            else:
                for _ in range(calls):
                    rows = [(offset + j, T0 + offset + j, b"key-%08d" % j, value) for j in range(per_txn)]
                    cur.execute("BEGIN")
                    cur.executemany(SQL_INSERT, rows)
                    cur.execute("COMMIT")
                    offset += per_txn
            elapsed = time.perf_counter() - t
            conn.close()
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.unlink(path + suffix)
            return elapsed / calls

        return run

    def append_batch(self, per_batch: int) -> tuple[float, float, float]:
        """Seconds per ``Log.append(batch)`` of one pre-encoded ``per_batch``-record batch, per SQLite
        transaction of as many rows, and per raw ``os.write`` of the batch's bytes."""
        batch = kvlog.encode_batch([Record(b"key-%08d" % i, self.value, T0 + i) for i in range(per_batch)])
        ours, sql = paired(self._log_appends(batch, self.calls), self._sqlite_inserts(per_batch, self.calls),
                           self.repeat)
        return ours, sql, best_time(self._raw_writes(batch, self.calls), self.repeat)

    def append_record(self) -> tuple[float, float]:
        """Seconds per ``Log.append([Record])`` (encode and append one record) and per SQLite
        single-row transaction."""
        records = [Record(b"key-00000000", self.value, T0)]
        return paired(self._log_appends(records, self.calls), self._sqlite_inserts(1, self.calls), self.repeat)

    def append_bulk(self) -> tuple[float, float, int]:
        """Seconds per ``Log.append`` of a 1000-record batch and per ``os.write`` of its bytes, and its size."""
        batch = kvlog.encode_batch([Record(b"key-%08d" % i, self.value, T0 + i) for i in range(1000)])
        calls = max(50, self.calls // 40)  # ~120 KB each: 60 MB per repetition at full size
        ours, raw = paired(self._log_appends(batch, calls), self._raw_writes(batch, calls), self.repeat)
        return ours, raw, len(batch)

    # -------------------------------------------------------------------------------------- reads
    def read_4k(self) -> tuple[float, float, float]:
        """Seconds per ``read(offset, 4096)`` at random offsets, per SQLite query of the 30 rows from the
        same offsets, and per raw ``os.pread(fd, 4096, pos)`` at random positions of the segment files."""
        fx = self.fixture
        offsets = [self.rng.randrange(fx.end) for _ in range(self.calls)]
        sizes = [os.fstat(fd).st_size for fd in fx.fds]
        spots = []
        for _ in range(self.calls):
            i = self.rng.randrange(len(fx.fds))
            spots.append((fx.fds[i], self.rng.randrange(max(1, sizes[i] - 4096))))
        read = fx.log.read
        cur = fx.db.cursor()
        pread = os.pread

        def ours() -> float:
            t = time.perf_counter()
            for off in offsets:
                read(off, 4096)
            return (time.perf_counter() - t) / len(offsets)

        def theirs() -> float:
            t = time.perf_counter()
            for off in offsets:
                cur.execute(SQL_READ, (off, SQL_ROWS_4K)).fetchall()
            return (time.perf_counter() - t) / len(offsets)

        def raw() -> float:
            t = time.perf_counter()
            for fd, pos in spots:
                pread(fd, 4096, pos)
            return (time.perf_counter() - t) / len(spots)

        t_ours, t_sql = paired(ours, theirs, self.repeat)
        return t_ours, t_sql, best_time(raw, self.repeat)

    def offset_for_timestamp(self) -> tuple[float, float]:
        """Seconds per ``offset_for_timestamp(ts)`` at random timestamps, and per SQLite indexed search."""
        fx = self.fixture
        stamps = [T0 + self.rng.randrange(10 * fx.end) for _ in range(self.calls)]
        search = fx.log.offset_for_timestamp
        cur = fx.db.cursor()
        for ts in stamps[:200]:  # equal work: both find the same first offset at or after ts
            got, row = search(ts), cur.execute(SQL_SEARCH, (ts,)).fetchone()
            if got is None or row is None or got.offset != row[0]:
                raise RuntimeError(f"offset_for_timestamp({ts}) = {got}, SQLite says {row}")

        def ours() -> float:
            t = time.perf_counter()
            for ts in stamps:
                search(ts)
            return (time.perf_counter() - t) / len(stamps)

        def theirs() -> float:
            t = time.perf_counter()
            for ts in stamps:
                cur.execute(SQL_SEARCH, (ts,)).fetchone()
            return (time.perf_counter() - t) / len(stamps)

        return paired(ours, theirs, self.repeat)

    def consumer_ranges(self) -> list[tuple[int, int, int]]:
        """The (fd, size, position) of each ``read(next, 64 KiB)`` of a consumer loop from 0 to the end,
        checked against the files: a fetch comes from one segment, and consecutive fetches of a
        segment are contiguous, starting at its position 0."""
        fx = self.fixture
        ranges: list[tuple[int, int, int]] = []
        nxt, seg, pos = 0, -1, 0
        while nxt < fx.end:
            got = fx.log.read(nxt, 65536)
            i = bisect.bisect_right(fx.bases, nxt) - 1
            if i != seg:
                seg, pos = i, 0
            data = bytes(got.buffer)
            if os.pread(fx.fds[i], len(data), pos) != data:
                raise RuntimeError(f"fetch at offset {nxt} is not bytes {pos}.. of {fx.files[i]}")
            ranges.append((fx.fds[i], len(data), pos))
            pos += len(data)
            headers = got.batch_headers()  # CRC-checked once here; the timed loop reads headers only
            if not len(headers) or got.next_offset != int(headers["last_offset"][-1]) + 1:
                raise RuntimeError(f"fetch at offset {nxt}: next_offset {got.next_offset} is not its last offset + 1")
            nxt = int(headers["last_offset"][-1]) + 1
        for fd, name in zip(fx.fds, fx.files):
            covered = sum(n for f, n, _ in ranges if f == fd)
            if covered != os.fstat(fd).st_size:
                raise RuntimeError(f"consumer loop covered {covered} bytes of {name}, of {os.fstat(fd).st_size}")
        return ranges

    def consumer_loop(self) -> tuple[float, float, int, int]:
        """Seconds for a consumer loop over the whole read log (``read(next, 65536)``, ``next`` = the
        fetch's ``next_offset``: last offset of its last batch + 1) and for raw ``os.pread`` of the same
        byte ranges; also the number of fetches and of bytes."""
        fx = self.fixture
        ranges = self.consumer_ranges()
        read, end, pread = fx.log.read, fx.end, os.pread

        def ours() -> float:
            t = time.perf_counter()
            nxt: int | None = 0
            while nxt is not None and nxt < end:
                nxt = read(nxt, 65536).next_offset
            return time.perf_counter() - t

        def theirs() -> float:
            t = time.perf_counter()
            for fd, n, pos in ranges:
                pread(fd, n, pos)
            return time.perf_counter() - t

        t_ours, t_raw = paired(ours, theirs, self.repeat)
        return t_ours, t_raw, len(ranges), sum(n for _, n, _ in ranges)

    # -------------------------------------------------------------------------------------- mixed
    def mixed(self, separate_reader: bool) -> tuple[float, float]:
        """Ops/s of a Kafka-shaped mix in one thread: a writer appends a pre-encoded 1-10-record batch,
        a tailing reader fetches (64 KiB) from its next offset, and every 1,000 appends the reader
        searches a random timestamp of what was written; each append, fetch and search is one op.

        A read-only ``Log`` does not see appends made after it opened until ``refresh()`` (checked: its
        ``log_end_offset`` stays put and ``read`` at it returns nothing). So there are two readers:
        ``separate_reader=False`` reads through the writer's own ``Log`` object (always current), and
        ``separate_reader=True`` through a second ``Log.open(dir, read_only=True)`` that calls
        ``refresh()`` before each fetch, as a consumer in another process would (its cost is counted).
        SQLite: the same mix, the reader on the writer's connection or on a second connection."""
        rng = random.Random(7)
        sizes = [rng.randint(1, 10) for _ in range(self.mixed_appends)]
        batches, rows, offset = [], [], 0
        for k in sizes:
            recs = [(offset + j, T0 + 10 * (offset + j), b"key-%08d" % (offset + j), self.value) for j in range(k)]
            batches.append(kvlog.encode_batch([Record(key, value, ts) for _, ts, key, value in recs]))
            rows.append(recs)
            offset += k
        end = offset
        probes = []
        total = 0
        for k in sizes:  # a timestamp among the records written so far
            total += k
            probes.append(T0 + 10 * rng.randrange(total))
        n_ops = 2 * len(sizes) + len(sizes) // MIX_SEARCH_EVERY

        def ours() -> float:
            path = self.fresh("mixed")
            writer = Log.open(path, LogConfig())
            reader = Log.open(path, read_only=True) if separate_reader else writer
            append, read, refresh, search = writer.append, reader.read, reader.refresh, reader.offset_for_timestamp
            nxt = 0
            t = time.perf_counter()
            for i, batch in enumerate(batches):
                append(batch)
                if separate_reader:
                    refresh()
                got = read(nxt, 65536).next_offset
                if got is not None:
                    nxt = got
                if i % MIX_SEARCH_EVERY == MIX_SEARCH_EVERY - 1:
                    search(probes[i])
            elapsed = time.perf_counter() - t
            if nxt != end:
                raise RuntimeError(f"the kvlog reader stopped at {nxt}, the writer at {end}")
            if separate_reader:
                reader.close()
            writer.close()
            shutil.rmtree(path, ignore_errors=True)
            return elapsed / n_ops

        def theirs() -> float:
            path = self.fresh("mixed.db")
            w = open_sqlite(path)
            r = open_sqlite(path) if separate_reader else w
            wc, rc = w.cursor(), r.cursor()
            nxt = 0
            t = time.perf_counter()
            for i, recs in enumerate(rows):
                wc.execute("BEGIN")
                wc.executemany(SQL_INSERT, recs)
                wc.execute("COMMIT")
                got = rc.execute(SQL_READ, (nxt, SQL_ROWS_64K)).fetchall()
                if got:
                    nxt = got[-1][0] + 1
                if i % MIX_SEARCH_EVERY == MIX_SEARCH_EVERY - 1:
                    rc.execute(SQL_SEARCH, (probes[i],)).fetchone()
            elapsed = time.perf_counter() - t
            if nxt != end:
                raise RuntimeError(f"the SQLite reader stopped at {nxt}, the writer at {end}")
            if separate_reader:
                r.close()
            w.close()
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.unlink(path + suffix)
            return elapsed / n_ops

        t_ours, t_sql = paired(ours, theirs, max(2, self.repeat // 2))
        return 1 / t_ours, 1 / t_sql


def point_rows(repeat: int, calls: int = CALLS, mixed_appends: int | None = None) -> list[Row]:
    """Every point-operation figure as ``compare_peers.py`` rows (see the module docstring for units,
    ratios and targets). ``repeat``: repetitions per figure; ``calls``: calls per repetition."""
    us = 1e6
    b = PointOps(repeat, calls, mixed_appends)
    try:
        a1, s1, w1 = b.append_batch(1)
        a10, s10, w10 = b.append_batch(10)
        bulk, bulk_raw, bulk_size = b.append_bulk()
        rec, rec_sql = b.append_record()
        rd, rd_sql, rd_raw = b.read_4k()
        ts, ts_sql = b.offset_for_timestamp()
        loop, loop_raw, fetches, loop_bytes = b.consumer_loop()
        own, own_sql = b.mixed(separate_reader=False)
        sep, sep_sql = b.mixed(separate_reader=True)
        segments = len(b.fixture.log.segments)
    finally:
        b.close()
    return [
        ("append(batch), 1 record", "SQLite 1 row/txn", a1 * us, s1 * us, "µs/call", 8.0),
        ("  same bytes, raw syscall", "os.write", a1 * us, w1 * us, "µs/call", 0.0),
        ("append(batch), 10 records", "SQLite 10 rows/txn", a10 * us, s10 * us, "µs/call", 15.0),
        ("  same bytes, raw syscall", "os.write", a10 * us, w10 * us, "µs/call", 0.0),
        ("append(batch), 1000 records", "os.write same bytes", bulk_size / bulk / 1e6, bulk_size / bulk_raw / 1e6,
         "MB/s", 0.0),
        ("append([Record]), ≥100k rec/s", "SQLite 1 row/txn", rec * us, rec_sql * us, "µs/call", 10.0),
        (f"read(offset, 4 KiB), {segments} segs", f"SQLite LIMIT {SQL_ROWS_4K} by key", rd * us, rd_sql * us,
         "µs/call", 10.0),
        ("  raw syscall, random 4 KiB", "os.pread", rd * us, rd_raw * us, "µs/call", 0.0),
        ("offset_for_timestamp, random", "SQLite indexed ts", ts * us, ts_sql * us, "µs/call", 7.0),
        ("consumer read(next, 64 KiB)", "os.pread same ranges", loop_bytes / loop / 1e6, loop_bytes / loop_raw / 1e6,
         "MB/s", 0.5),
        (f"  fetches ({fetches} to the end)", "os.pread same ranges", fetches / loop / 1e3, fetches / loop_raw / 1e3,
         "k/s", 0.0),
        ("mixed, reader = writer's Log", "SQLite, one connection", own / 1e3, own_sql / 1e3, "k ops/s", 0.0),
        ("mixed, read-only Log + refresh", "SQLite, 2 connections", sep / 1e3, sep_sql / 1e3, "k ops/s", 0.0),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer calls and repetitions (a smoke run, noisy)")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    repeat, calls = (QUICK_REPEAT, QUICK_CALLS) if args.quick else (REPEAT, CALLS)
    mixed_appends = 3_000 if args.quick else CALLS
    probe = scratch_root()
    place = f"{os.path.dirname(probe)} ({file_system(probe)})"
    os.rmdir(probe)
    machine = describe_machine(f"sqlite {sqlite3.sqlite_version}  ")
    print(machine)
    if platform.processor():
        print(f"platform.processor(): {platform.processor()}")
    print(f"scratch: {place}; best of {repeat} repetitions, latencies over {calls:,} calls each; "
          f"read log: {READ_RECORDS:,} records of {VALUE_BYTES} B, 1-10 per batch, "
          f"{READ_SEGMENT_BYTES >> 20} MiB segments; mixed: {mixed_appends:,} appends")
    t = time.perf_counter()
    rows = point_rows(repeat, calls, mixed_appends)
    print(f"measured in {time.perf_counter() - t:.0f} s")
    failed = print_table(rows)
    rec = next(r for r in rows if r[0].startswith("append([Record])"))
    print(f"\nappend([Record]): {1e6 / rec[2]:,.0f} records/s (target ≥ 100,000/s, i.e. ≤ 10 µs/call); "
          f"SQLite {1e6 / rec[3]:,.0f}/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine, "build": build_info(), "scratch": place, "repeat": repeat, "calls": calls,
                       "rows": [dict(zip(("what", "peer", "kvlog", "peer_value", "unit", "target"), r)) for r in rows]},
                      f, indent=2, default=str)
    if failed:
        print("\ntargets missed: " + ", ".join(s.strip() for s in failed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
