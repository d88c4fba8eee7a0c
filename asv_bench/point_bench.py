#!/usr/bin/env python
"""Point operations of a Log, one call at a time, beside SQLite and the raw syscall (issue 12).

    python asv_bench/point_bench.py              # full run (about a minute)
    python asv_bench/point_bench.py --quick      # fewer calls and repetitions (noisier)
    python asv_bench/point_bench.py --json out.json

Everything runs on tmpfs (``/dev/shm`` when it exists), so the figures are the cost of the code and the
syscalls, not of a disk. SQLite is the standard library's, in WAL mode with ``synchronous=OFF``: one
table ``(offset INTEGER PRIMARY KEY, ts INTEGER, key BLOB, value BLOB)`` with an index on ``ts``. Each
figure is the best of several repetitions of many calls, kvlog and its peer alternating. ``point_rows``
gives the same figures as rates for ``compare_peers.py`` (higher is better there).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import kvlog
from kvlog import Log, LogConfig, Record
from kvlog._core import build_info

T0 = 1_700_000_000_000
VALUE = 100


def scratch_root() -> str:
    return tempfile.mkdtemp(prefix="kvlog-point-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def per_call(fn: Callable[[], Any], calls: int, repeat: int) -> float:
    """Best mean seconds per call of ``fn`` over ``repeat`` runs of ``calls`` calls."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def alternate(ours: Callable[[], float], theirs: Callable[[], float], repeat: int) -> tuple[float, float]:
    """Best results of two self-timed measurements run alternately (a drifting CPU affects both)."""
    a = b = float("inf")
    for _ in range(repeat):
        a = min(a, ours())
        b = min(b, theirs())
    return a, b


def _sqlite(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("CREATE TABLE IF NOT EXISTS t (offset INTEGER PRIMARY KEY, ts INTEGER, key BLOB, value BLOB)")
    conn.execute("CREATE INDEX IF NOT EXISTS t_ts ON t(ts)")
    return conn


class Bench:
    """One scratch directory holding every log, database and raw file the measurements use."""

    def __init__(self, quick: bool) -> None:
        self.root = scratch_root()
        self.calls = 2_000 if quick else 20_000
        self.repeat = 3 if quick else 7
        self.rng = random.Random(12)
        self.value = os.urandom(VALUE)
        self.n = 0

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def path(self, name: str) -> str:
        self.n += 1
        return os.path.join(self.root, f"{name}-{self.n}")

    # -------------------------------------------------------------------------------------- appends
    def append_batch(self, per_batch: int) -> tuple[float, float]:
        """µs per append of a pre-encoded ``per_batch``-record batch; SQLite: the rows in one transaction."""
        batch = kvlog.encode_batch([Record(b"key-%d" % i, self.value, T0 + i) for i in range(per_batch)])
        rows = [(b"key-%d" % i, self.value) for i in range(per_batch)]

        def ours() -> float:
            log = Log.open(self.path("a"), LogConfig(segment_bytes=256 << 20))
            try:
                return per_call(lambda: log.append(batch), self.calls, 1)
            finally:
                log.close()

        def theirs() -> float:
            conn = _sqlite(self.path("a.db"))
            ts = [T0]

            def insert() -> None:
                conn.execute("BEGIN")
                conn.executemany("INSERT INTO t (ts, key, value) VALUES (?, ?, ?)", [(ts[0], k, v) for k, v in rows])
                conn.execute("COMMIT")
                ts[0] += 1

            try:
                return per_call(insert, self.calls, 1)
            finally:
                conn.close()

        return alternate(ours, theirs, self.repeat)

    def append_record(self) -> tuple[float, float]:
        """µs per ``Log.append([Record])``; SQLite: one row per transaction."""
        rec = Record(b"key", self.value, T0)

        def ours() -> float:
            log = Log.open(self.path("r"), LogConfig(segment_bytes=256 << 20))
            try:
                return per_call(lambda: log.append([rec]), self.calls, 1)
            finally:
                log.close()

        def theirs() -> float:
            conn = _sqlite(self.path("r.db"))

            def insert() -> None:
                conn.execute("BEGIN")
                conn.execute("INSERT INTO t (ts, key, value) VALUES (?, ?, ?)", (T0, b"key", self.value))
                conn.execute("COMMIT")

            try:
                return per_call(insert, self.calls, 1)
            finally:
                conn.close()

        return alternate(ours, theirs, self.repeat)

    def append_bulk(self) -> tuple[float, float]:
        """MB/s appending 1000-record batches; peer: ``os.write`` of the same bytes."""
        batch = kvlog.encode_batch([Record(b"key-%d" % i, self.value, T0 + i) for i in range(1000)])
        calls = max(200, self.calls // 20)

        def ours() -> float:
            log = Log.open(self.path("b"), LogConfig(segment_bytes=1 << 30))
            try:
                return per_call(lambda: log.append(batch), calls, 1)
            finally:
                log.close()

        def theirs() -> float:
            fd = os.open(self.path("b.raw"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                return per_call(lambda: os.write(fd, batch), calls, 1)
            finally:
                os.close(fd)

        t_ours, t_raw = alternate(ours, theirs, self.repeat)
        return len(batch) / t_ours / 1e6, len(batch) / t_raw / 1e6

    def raw_write(self) -> float:
        fd = os.open(self.path("w.raw"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        data = os.urandom(200)
        try:
            return min(per_call(lambda: os.write(fd, data), self.calls, 1) for _ in range(self.repeat))
        finally:
            os.close(fd)

    # ---------------------------------------------------------------------------------------- reads
    def filled(self) -> tuple[Log, sqlite3.Connection, int, list[str]]:
        """A log of 8 MiB segments (1-10 records per batch, 100 B values, increasing timestamps) and the
        same rows in SQLite."""
        if hasattr(self, "_filled"):
            return self._filled  # type: ignore[no-any-return,has-type]
        log = Log.open(self.path("read"), LogConfig(segment_bytes=8 << 20))
        conn = _sqlite(self.path("read.db"))
        offset, rows = 0, []
        target = 40_000 if self.calls <= 2_000 else 400_000
        while offset < target:
            k = self.rng.randint(1, 10)
            recs = [Record(b"key-%d" % (offset + j), self.value, T0 + 10 * (offset + j)) for j in range(k)]
            log.append(kvlog.encode_batch(recs))
            rows += [(offset + j, T0 + 10 * (offset + j), r.key, r.value) for j, r in enumerate(recs)]
            offset += k
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
        conn.execute("COMMIT")
        log.flush()
        self._filled = (log, conn, offset, [s.log_path for s in log.segments])
        return self._filled

    def read_4k(self) -> tuple[float, float, float]:
        """µs per ``read(offset, 4096)`` at random offsets; SQLite: 30 rows (about 4 KiB) from an offset;
        raw: ``os.pread`` of 4 KiB at random positions of the same files."""
        log, conn, end, files = self.filled()
        offsets = [self.rng.randrange(end) for _ in range(self.calls)]
        fds = [os.open(f, os.O_RDONLY) for f in files]
        sizes = [os.fstat(fd).st_size for fd in fds]
        spots = [(fds[i], self.rng.randrange(max(1, sizes[i] - 4096)))
                 for i in (self.rng.randrange(len(fds)) for _ in range(self.calls))]
        query = "SELECT offset, ts, key, value FROM t WHERE offset >= ? ORDER BY offset LIMIT 30"

        def ours() -> float:
            it = iter(offsets)
            return per_call(lambda: log.read(next(it), 4096), self.calls, 1)

        def theirs() -> float:
            it = iter(offsets)
            return per_call(lambda: conn.execute(query, (next(it),)).fetchall(), self.calls, 1)

        def raw() -> float:
            it = iter(spots)
            return per_call(lambda: _pread(*next(it)), self.calls, 1)

        try:
            t_ours, t_sql = alternate(ours, theirs, self.repeat)
            return t_ours, t_sql, min(raw() for _ in range(self.repeat))
        finally:
            for fd in fds:
                os.close(fd)

    def offset_for_timestamp(self) -> tuple[float, float]:
        """µs per ``offset_for_timestamp`` at random timestamps; SQLite: the indexed ``ts`` column."""
        log, conn, end, _ = self.filled()
        stamps = [T0 + self.rng.randrange(10 * end) for _ in range(self.calls)]
        query = "SELECT offset, ts FROM t WHERE ts >= ? ORDER BY ts LIMIT 1"
        for ts in stamps[:50]:  # the two answer alike (timestamps increase with offsets here)
            got, row = log.offset_for_timestamp(ts), conn.execute(query, (ts,)).fetchone()
            assert (got.offset, got.timestamp) == row, (ts, got, row)

        def ours() -> float:
            it = iter(stamps)
            return per_call(lambda: log.offset_for_timestamp(next(it)), self.calls, 1)

        def theirs() -> float:
            it = iter(stamps)
            return per_call(lambda: conn.execute(query, (next(it),)).fetchone(), self.calls, 1)

        return alternate(ours, theirs, self.repeat)

    def consumer_loop(self) -> tuple[float, float, float]:
        """MB/s of ``read(next, 64 KiB)`` from offset 0 to the end (``next = records.next_offset``), and
        fetches/s; peer: raw 64 KiB ``os.pread``s over the same segment files, start to end."""
        log, _, end, files = self.filled()
        fetches = [0]

        def ours() -> float:
            t = time.perf_counter()
            nxt, total, n = 0, 0, 0
            while nxt < end:
                got = log.read(nxt, 65536)
                total += len(got)
                nxt = _next_offset(got)  # type: ignore[assignment]
                n += 1
            fetches[0] = n
            return (time.perf_counter() - t) / total

        fds = [os.open(f, os.O_RDONLY) for f in files]

        def theirs() -> float:
            t = time.perf_counter()
            total = 0
            for fd in fds:
                pos = 0
                while True:
                    got = os.pread(fd, 65536, pos)
                    if not got:
                        break
                    pos += len(got)
                total += pos
            return (time.perf_counter() - t) / total

        try:
            t_ours, t_raw = alternate(ours, theirs, self.repeat)
        finally:
            for fd in fds:
                os.close(fd)
        return 1 / t_ours / 1e6, 1 / t_raw / 1e6, fetches[0] / (t_ours * sum(os.path.getsize(f) for f in files))

    def mixed(self) -> tuple[float, float]:
        """Ops/s of a Kafka-shaped mix: a writer appending 1-10-record batches, a tailing reader (a second,
        read-only Log that catches up with ``refresh()``) fetching from its next offset after each append,
        and an ``offset_for_timestamp`` every 1,000 appends. SQLite: the same mix on two connections."""
        appends = self.calls
        sizes = [self.rng.randint(1, 10) for _ in range(appends)]
        batches = [kvlog.encode_batch([Record(b"k", self.value, T0 + i)] * k) for i, k in enumerate(sizes)]

        def ours() -> float:
            path = self.path("mixed")
            writer = Log.open(path)
            reader = Log.open(path, read_only=True)
            ops, nxt = 0, 0
            t = time.perf_counter()
            for i, b in enumerate(batches):
                writer.append(b)
                reader = _catch_up(reader)
                got = reader.read(nxt, 65536)
                nxt = _next_offset(got) or nxt
                ops += 2
                if i % 1000 == 999:
                    reader.offset_for_timestamp(T0 + i // 2)
                    ops += 1
            el = time.perf_counter() - t
            assert nxt == writer.log_end_offset
            reader.close()
            writer.close()
            return el / ops

        def theirs() -> float:
            path = self.path("mixed.db")
            w = _sqlite(path)
            r = _sqlite(path)
            ops, nxt, offset = 0, 0, 0
            t = time.perf_counter()
            for i, k in enumerate(sizes):
                w.execute("BEGIN")
                w.executemany("INSERT INTO t VALUES (?, ?, ?, ?)",
                              [(offset + j, T0 + i, b"k", self.value) for j in range(k)])
                w.execute("COMMIT")
                offset += k
                rows = r.execute("SELECT offset, ts, key, value FROM t WHERE offset >= ? ORDER BY offset LIMIT 580",
                                 (nxt,)).fetchall()
                nxt = rows[-1][0] + 1 if rows else nxt
                ops += 2
                if i % 1000 == 999:
                    r.execute("SELECT offset, ts FROM t WHERE ts >= ? ORDER BY ts LIMIT 1", (T0 + i // 2,)).fetchone()
                    ops += 1
            el = time.perf_counter() - t
            assert nxt == offset
            w.close()
            r.close()
            return el / ops

        t_ours, t_sql = alternate(ours, theirs, max(2, self.repeat // 2))
        return 1 / t_ours, 1 / t_sql

    def read_only_open(self) -> float:
        """ms per ``Log.open(read_only=True)`` + close of the filled log while its writer holds it open."""
        log, _, _, _ = self.filled()
        return min(per_call(lambda: Log.open(log.dir, read_only=True).close(), 50, 1) for _ in range(self.repeat))


def _next_offset(got: Any) -> int | None:
    """Where a consumer fetches next (``MemoryRecords.next_offset``; from the headers on builds before it,
    so this script can measure an older checkout for comparison)."""
    if hasattr(got, "next_offset"):
        return got.next_offset  # type: ignore[no-any-return]
    h = got.batch_headers(check_crc=False)
    return int(h["last_offset"][-1]) + 1 if len(h) else None


def _catch_up(reader: Log) -> Log:
    """A read-only reader sees its writer's new appends: ``refresh()``, or a reopen on builds before it."""
    if hasattr(reader, "refresh"):
        reader.refresh()
        return reader
    reader.close()
    return Log.open(reader.dir, read_only=True)


def _pread(fd: int, pos: int) -> bytes:
    return os.pread(fd, 4096, pos)


def measure(quick: bool) -> dict[str, Any]:
    """Every figure, in the units the table prints."""
    b = Bench(quick)
    try:
        out: dict[str, Any] = {}
        out["append_1"] = b.append_batch(1)
        out["append_10"] = b.append_batch(10)
        out["append_record"] = b.append_record()
        out["append_1000_mb_s"] = b.append_bulk()
        out["raw_write_200"] = b.raw_write()
        out["read_4k"] = b.read_4k()
        out["offset_for_timestamp"] = b.offset_for_timestamp()
        out["consumer_loop"] = b.consumer_loop()
        out["mixed_ops_s"] = b.mixed()
        out["read_only_open"] = b.read_only_open()
        out["segments"] = len(b.filled()[0].segments)
        b.filled()[0].close()
        b.filled()[1].close()
        return out
    finally:
        b.close()


def point_rows(repeat: int) -> list[tuple[str, str, float, float, str, float]]:
    """The figures as ``compare_peers.py`` rows: rates (higher is better), targets as ratios."""
    m = measure(quick=repeat <= 3)
    return [
        ("append 1-record batch", "SQLite 1 row/txn", 1 / m["append_1"][0] / 1e3, 1 / m["append_1"][1] / 1e3,
         "k ops/s", 3.0),
        ("append 10-record batch", "SQLite 10 rows/txn", 1 / m["append_10"][0] / 1e3, 1 / m["append_10"][1] / 1e3,
         "k ops/s", 0.0),
        ("append([Record]) one per call", "SQLite 1 row/txn", 1 / m["append_record"][0] / 1e3,
         1 / m["append_record"][1] / 1e3, "k rec/s", 0.0),
        ("read(offset, 4 KiB), random", "SQLite 30 rows by key", 1 / m["read_4k"][0] / 1e3,
         1 / m["read_4k"][1] / 1e3, "k ops/s", 0.0),
        ("offset_for_timestamp, random", "SQLite indexed ts", 1 / m["offset_for_timestamp"][0] / 1e3,
         1 / m["offset_for_timestamp"][1] / 1e3, "k ops/s", 1.0),
        ("consumer loop read(next, 64 KiB)", "raw pread same files", m["consumer_loop"][0], m["consumer_loop"][1],
         "MB/s", 0.5),
        ("mixed: append/tail/time search", "same mix on SQLite", m["mixed_ops_s"][0] / 1e3, m["mixed_ops_s"][1] / 1e3,
         "k ops/s", 0.0),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer calls and repetitions (noisier)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compare_peers import describe_machine

    print(describe_machine(f"sqlite {sqlite3.sqlite_version}  "))
    print(f"scratch on {'/dev/shm (tmpfs)' if os.path.isdir('/dev/shm') else tempfile.gettempdir()}")
    m = measure(args.quick)
    us = 1e6
    rows = [
        ("append(batch), 1 record", m["append_1"][0] * us, m["append_1"][1] * us, m["raw_write_200"] * us,
         "≤ 8 µs", m["append_1"][0] * us <= 8),
        ("append(batch), 10 records", m["append_10"][0] * us, m["append_10"][1] * us, None, "≤ 15 µs",
         m["append_10"][0] * us <= 15),
        ("append([Record]), one per call", m["append_record"][0] * us, m["append_record"][1] * us, None,
         "≥ 100k rec/s", 1 / m["append_record"][0] >= 100_000),
        ("read(offset, 4 KiB), random", m["read_4k"][0] * us, m["read_4k"][1] * us, m["read_4k"][2] * us,
         "≤ 10 µs", m["read_4k"][0] * us <= 10),
        ("offset_for_timestamp, random", m["offset_for_timestamp"][0] * us, m["offset_for_timestamp"][1] * us, None,
         "≤ 7 µs, ≤ SQLite", m["offset_for_timestamp"][0] * us <= 7
         and m["offset_for_timestamp"][0] <= m["offset_for_timestamp"][1]),
    ]
    print(f"\nper call, {m['segments']} segments of 8 MiB for the reads (µs; lower is better)\n")
    print("| operation | kvlog | SQLite | raw syscall | vs SQLite | target |")
    print("|---|---|---|---|---|---|")
    for what, ours, sql, raw, target, ok in rows:
        raw_s = f"{raw:.1f}" if raw is not None else ""
        print(f"| {what} | {ours:.1f} | {sql:.1f} | {raw_s} | {sql / ours:.1f}× faster | {target} "
              f"{'ok' if ok else 'MISSED'} |")
    c = m["consumer_loop"]
    print(f"| consumer loop, read(next, 64 KiB) to the end | {c[0]:,.0f} MB/s ({c[2]:,.0f} fetches/s) | | "
          f"{c[1]:,.0f} MB/s | {c[0] / c[1]:.2f}× of raw | ≥ 0.5× raw {'ok' if c[0] / c[1] >= 0.5 else 'MISSED'} |")
    mx = m["mixed_ops_s"]
    print(f"| mixed: append 1-10 / tail fetch / time search every 1,000 | {mx[0]:,.0f} ops/s | {mx[1]:,.0f} ops/s | "
          f"| {mx[0] / mx[1]:.1f}× | |")
    bulk = m["append_1000_mb_s"]
    print(f"| append(batch), 1000 records | {bulk[0]:,.0f} MB/s | | {bulk[1]:,.0f} MB/s (write) | "
          f"{bulk[0] / bulk[1]:.2f}× of write | |")
    print(f"| Log.open(read_only=True) + close, writer active | {m['read_only_open'] * 1e3:.2f} ms | | | | |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"build": build_info(), "machine": describe_machine(), "figures": m}, f, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
