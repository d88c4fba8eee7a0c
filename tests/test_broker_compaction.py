"""Compaction with Kafka's own cleaner as the reference, on the same input.

Each case is one partition: a log kvlog wrote (duplicates in every codec, tombstones, keyless records,
LogAppendTime, committed and aborted transactions with their markers, an idempotent producer, a transaction
left open, legacy v0/v1 batches and a log upgraded from them), with an active segment of its own. The broker
(cleanup.policy=compact, min.cleanable.dirty.ratio 0.01, delete.retention.ms 0) cleans it; kvlog's cleaner
cleans a copy of the same input. Then a record is produced to every partition with a timestamp past
segment.ms (time rolls compare record timestamps with the segment's first), which rolls the active segment
and makes it dirty, and both clean again: three passes in all, so a tombstone is kept with its delete horizon
by the first and removed by the second, and a marker whose transaction's data is gone is stamped by the
second and removed by the third. After each pass both logs read alike: the same segments, batches (offsets,
magic, codec, timestamp type, producer fields, leader epoch, delete horizon, max timestamp) and records
(offset, timestamp, key, value, headers); uncompressed segments byte for byte. kvlog's cleaner runs at the
broker's clock for that pass (read off the delete horizons the broker stamped).

The KIP-280 strategies (``timestamp``, ``header``) run on the same inputs, whose timestamps and version
headers never decrease with the offset: there they must keep exactly what the offset strategy keeps.
"""

from __future__ import annotations

import os
import shutil
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from kvlog import Log, LogConfig, MemoryRecords, Record, encode_batch
from kvlog.checkpoint import read_offsets
from kvlog.cleaner import LogCleaner
from tests.kafka_oracle import reference as R

pytestmark = pytest.mark.broker

SEGMENT_MS = 60_000
LAG = 20 * 60_000
BASE_CONFIG = {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0",
               "segment.ms": str(SEGMENT_MS), "retention.ms": "-1"}
#: a topic per config: the cases in general, min.compaction.lag.ms, segment groups (segment.bytes 1 MiB, the
#: least Kafka 4 allows; any dirty byte qualifies, as the produced record is tiny beside 700 KiB cleaned)
TOPICS = {"cmp": BASE_CONFIG, "lag": {**BASE_CONFIG, "min.compaction.lag.ms": str(LAG)},
          "groups": {**BASE_CONFIG, "segment.bytes": str(1 << 20), "min.cleanable.dirty.ratio": "0"}}
PASSES = 3


class Writer:
    """Appends the input with kvlog: timestamps 100 ms apart by offset, a "v" header holding the offset (the
    header strategy's version), producers' sequence numbers kept."""

    def __init__(self, d: Path, t0: int):
        self.log = Log.open(d, LogConfig(cleanup_policy="compact", retention_ms=-1))
        self.t0 = t0
        self.seq: dict[int, int] = {}
        self.upper: int | None = None  # where cleaning stops before the active segment (an open transaction, lag)

    @property
    def off(self) -> int:
        return self.log.log_end_offset

    def ts(self, i: int = 0) -> int:
        return self.t0 + (self.off + i) * 100

    def recs(self, kvs: list[tuple[bytes | None, bytes | None]], headers: bool = True) -> list[Record]:
        return [Record(k, v, self.ts(i), headers=(("v", struct.pack(">q", self.off + i)),) if headers else ())
                for i, (k, v) in enumerate(kvs)]

    def v2(self, kvs: list[tuple[bytes | None, bytes | None]], codec: str = "none") -> None:
        self.log.append(self.recs(kvs), compression=codec)

    def lat(self, kvs: list[tuple[bytes | None, bytes | None]], codec: str = "none") -> None:
        t = self.ts(len(kvs) - 1)
        self.log.append(encode_batch(self.recs(kvs), base_offset=self.off, compression=codec,
                                     timestamp_type="LogAppendTime", log_append_time=t), assign_offsets=False)

    def legacy(self, magic: int, kvs: list[tuple[bytes | None, bytes | None]], codec: str = "none",
               lat: bool = False) -> None:
        recs = self.recs(kvs, headers=False)
        kw: dict[str, Any] = {}
        if lat:
            kw = {"timestamp_type": "LogAppendTime", "log_append_time": recs[-1].timestamp}
        self.log.append(encode_batch(recs, magic=magic, base_offset=self.off, compression=codec, **kw),
                        assign_offsets=False)

    def producer(self, pid: int, kvs: list[tuple[bytes | None, bytes | None]], txn: bool = False,
                 codec: str = "none") -> None:
        seq = self.seq.get(pid, 0)
        self.log.append(self.recs(kvs), compression=codec, producer_id=pid, producer_epoch=0, base_sequence=seq,
                        is_transactional=txn)
        self.seq[pid] = seq + len(kvs)

    def end(self, pid: int, commit: bool) -> None:
        self.log.end_transaction(pid, 0, commit, timestamp=self.ts())

    def roll(self) -> None:
        self.log.roll()


def K(i: int) -> bytes:
    return b"k%d" % i


def val(i: int) -> bytes:
    return b"value %d %s" % (i, b"compressible text " * 3)


def kv(*items: int | tuple[int, None] | None) -> list[tuple[bytes | None, bytes | None]]:
    """Records: an int is key k<i> with a value, (i, None) a tombstone for k<i>, None a record without a key."""
    out: list[tuple[bytes | None, bytes | None]] = []
    for n, it in enumerate(items):
        if it is None:
            out.append((None, val(100 + n)))
        elif isinstance(it, tuple):
            out.append((K(it[0]), None))
        else:
            out.append((K(it), val(it * 10 + n)))
    return out


def dups(codec: str) -> Callable[[Writer], None]:
    def build(w: Writer) -> None:
        w.v2(kv(0, 1, 2, 3), codec)
        w.v2(kv(0, 1), codec)
        w.v2(kv(4, None), codec)
        w.roll()
        w.v2(kv(2, 3, 5), codec)
        w.v2(kv((0, None)), codec)
        w.v2(kv(6, 6, (7, None)), codec)
        w.roll()
        w.v2(kv(1, 7), codec)
        w.v2(kv(8, (4, None)), codec)
    return build


def keyless_end(w: Writer) -> None:
    w.v2(kv(0, 1))
    w.v2(kv(1, 2))
    w.roll()
    w.v2(kv(2))
    w.v2(kv(None, None))  # the batch that ends the cleaning round, emptied


def lat(w: Writer) -> None:
    w.lat(kv(0, 1, 2))
    w.lat(kv(0, (1, None)), "gzip")
    w.roll()
    w.lat(kv(2, 3))
    w.v2(kv(3, 4))


def txn(w: Writer) -> None:
    w.producer(1000, kv(0, 1), txn=True)
    w.v2(kv(2))
    w.producer(1000, kv(3), txn=True)
    w.end(1000, commit=True)
    w.roll()
    w.producer(1000, kv(0, 4), txn=True, codec="lz4")
    w.end(1000, commit=False)
    w.producer(1001, kv(1), txn=True)
    w.v2(kv(0))
    w.roll()
    w.end(1001, commit=True)
    w.producer(2000, kv(5, 6))
    w.producer(2000, kv(5))
    w.producer(1002, kv(6, (2, None)), txn=True)
    w.end(1002, commit=False)
    w.producer(1003, kv(3), txn=True)
    w.end(1003, commit=True)
    w.roll()
    w.v2(kv(1, 3, 7))


def open_txn(w: Writer) -> None:
    w.v2(kv(0, 1, 2, 3))
    w.roll()
    w.v2(kv(0))
    w.upper = w.log.active_segment.base_offset  # cleaning stops before the segment holding the last stable offset
    w.producer(3000, kv(1), txn=True)  # never committed nor aborted: the last stable offset stays here
    w.v2(kv(2, 4))
    w.v2(kv(0))
    w.roll()
    w.v2(kv(3))


def legacy(magic: int, codec: str, lat: bool = False) -> Callable[[Writer], None]:
    def build(w: Writer) -> None:
        w.legacy(magic, kv(0, 1, 2), codec, lat)
        w.legacy(magic, kv(0, None), codec, lat)
        w.roll()
        w.legacy(magic, kv(3, (1, None)), codec, lat)
        w.legacy(magic, kv((5, None), 4), codec, lat)
        w.roll()
        w.legacy(magic, kv(2, 4, 6), codec, lat)
    return build


def young(w: Writer) -> None:
    """min.compaction.lag.ms: the second segment's records are younger than the lag, so cleaning stops there."""
    w.v2(kv(0, 1, 2))
    w.v2(kv(0, (1, None)))
    w.roll()
    w.upper = w.off
    w.t0 = int(time.time() * 1000) - LAG // 2 - w.off * 100
    w.v2(kv(0, 2, 3))
    w.roll()
    w.v2(kv(3, 4))


def big(w: Writer) -> None:
    """Three segments of about 600 KiB: no two fit one cleaned segment of segment.bytes (1 MiB)."""
    for s in range(3):
        if s:
            w.roll()
        for b in range(30):
            w.v2([(b"key-%d" % ((s * 30 + b) * 7 % 120 + i % 3), b"%d-%d " % (s, b) + bytes(6000 + i))
                  for i in range(3)])


def upgraded(w: Writer) -> None:
    w.legacy(0, kv(0, 1, 2), "gzip")
    w.legacy(0, kv(3, (0, None)))
    w.roll()
    w.legacy(1, kv(1, 4), "snappy")
    w.legacy(1, kv(5))
    w.roll()
    w.v2(kv(2, 5, (3, None)))
    w.v2(kv(6), "zstd")


CASES: dict[str, tuple[str, Callable[[Writer], None]]] = {
    **{f"dups-{c}": ("cmp", dups(c)) for c in ("none", "gzip", "snappy", "lz4", "zstd")},
    "keyless-end": ("cmp", keyless_end),
    "lat": ("cmp", lat),
    "txn": ("cmp", txn),
    "open-txn": ("cmp", open_txn),
    **{f"legacy-v{m}-{c}": ("cmp", legacy(m, c)) for m, c in ((0, "none"), (0, "gzip"), (1, "none"),
                                                            (1, "snappy"), (1, "lz4"))},
    "legacy-v1-lat": ("cmp", legacy(1, "gzip", lat=True)),
    "upgraded": ("cmp", upgraded),
    "young": ("lag", young),
    "big": ("groups", big),
}


def partitions() -> list[tuple[str, int]]:
    """(topic, partition) of each case, in CASES order."""
    seen: dict[str, int] = {}
    out = []
    for topic, _ in CASES.values():
        out.append((topic, seen.get(topic, 0)))
        seen[topic] = seen.get(topic, 0) + 1
    return out


# ------------------------------------------------------------------------------------------ reading
def batches(files: dict[str, bytes]) -> list[tuple[str, tuple[Any, ...]]]:
    """Every batch of a log's segments, as (segment, fields and records) for comparison."""
    out = []
    for name in sorted(files):
        for b in MemoryRecords(files[name]).batches():
            recs = tuple((r.offset, r.timestamp, int(r.timestamp_type), r.key, r.value, tuple(r.headers))
                         for r in b.records())
            out.append((name, (b.base_offset, b.last_offset, b.magic, int(b.compression), int(b.timestamp_type),
                               b.is_transactional, b.is_control, b.producer_id, b.producer_epoch, b.base_sequence,
                               b.partition_leader_epoch, b.delete_horizon_ms, b.max_timestamp, recs)))
    return out


def horizons(files: dict[str, bytes]) -> set[int]:
    return {h for _, b in batches(files) if (h := b[11]) is not None}


def describe(files: dict[str, bytes]) -> str:
    lines = []
    for name, b in batches(files):
        recs = " ".join(f"{o}:{(k or b'-').decode()}{'' if v is not None else '(del)'}" for o, _, _, k, v, _ in b[13])
        lines.append(f"  {name[:20].lstrip('0') or '0'} [{b[0]}..{b[1]}] v{b[2]} c{b[3]} t{b[4]}"
                     f"{' txn' if b[5] else ''}{' ctl' if b[6] else ''} pid{b[7]} ple{b[10]} hz{b[11]} "
                     f"max{b[12]}: {recs}")
    return "\n".join(lines)


def diff(broker: dict[str, bytes], kvlog: dict[str, bytes]) -> str | None:
    """None when both logs read alike (and uncompressed segments are byte for byte the same)."""
    if batches(broker) != batches(kvlog):
        return f"broker:\n{describe(broker)}\nkvlog:\n{describe(kvlog)}"
    for name, data in broker.items():
        if all(b.compression == 0 for b in MemoryRecords(data).batches()) and kvlog[name] != data:
            return f"{name}: same batches, different bytes"
    return None


# ------------------------------------------------------------------------------------------ the run
@dataclass
class Run:
    names: list[str]
    inputs: list[dict[str, bytes]]
    broker: list[list[dict[str, bytes]]] = field(default_factory=list)  # per pass, per case
    kvlog: dict[str, list[list[dict[str, bytes]]]] = field(default_factory=dict)  # per strategy
    log: str = ""


def checkpoint_of(data: Path, parts: list[tuple[str, int]]) -> list[int]:
    try:
        table = read_offsets(str(data / "cleaner-offset-checkpoint"))
    except (OSError, ValueError):
        return [-1] * len(parts)
    return [table.get(tp, -1) for tp in parts]


def wait_cleaned(data: Path, parts: list[tuple[str, int]], want: list[int], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        got = checkpoint_of(data, parts)
        if all(g >= w for g, w in zip(got, want)):
            return
        if time.monotonic() > deadline:
            late = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g < w]
            raise TimeoutError(f"the broker's cleaner did not reach the expected offsets: {late}")
        time.sleep(0.2)


def produce(bootstrap: str, parts: list[tuple[str, int]], t: int) -> None:
    """One record to every partition, timestamped ``t`` (past segment.ms: the active segment rolls)."""
    from kafka import KafkaProducer

    p = KafkaProducer(bootstrap_servers=bootstrap, acks=1, enable_idempotence=False, linger_ms=0)
    try:
        for topic, i in parts:
            p.send(topic, key=b"roll", value=b"r%d" % t, partition=i, timestamp_ms=t)
        p.flush(60)
    finally:
        p.close()


def segment_files(d: Path) -> dict[str, bytes]:
    return R.log_files(d)


def run(version: str, work: Path) -> Run:
    dist = R.dist_or_skip(version)
    names = list(CASES)
    parts = partitions()
    dirs = [f"{t}-{p}" for t, p in parts]
    start = int(time.time() * 1000)
    t0 = start - 30 * 60_000
    uppers: list[int | None] = []
    actives: list[int] = []
    kv_dir = work / "kvlog"

    def write(data: Path) -> None:
        for name, d in zip(names, dirs):
            w = Writer(data / d, t0)
            CASES[name][1](w)
            w.roll()
            w.v2(kv(9))  # the active segment
            actives.append(w.log.active_segment.base_offset)
            uppers.append(w.upper)
            w.log.close()
            mtime = time.time() - 600  # distinct, ordered segment mtimes (Kafka's v0/v1 tombstone rule reads them)
            for k, f in enumerate(sorted((data / d).glob("*.log"))):
                os.utime(f, (mtime + k, mtime + k))
        R.copy_partitions(data, kv_dir)

    counts: dict[str, int] = {}
    for t, _ in parts:
        counts[t] = counts.get(t, 0) + 1
    run_ = Run(names, [])
    with R.broker_on(dist, work / "broker", {t: (n, TOPICS[t]) for t, n in counts.items()}, write,
                     extra={"log.cleaner.dedupe.buffer.size": "16777216"}) as broker:
        run_.inputs = [segment_files(kv_dir / d) for d in dirs]
        for p in range(PASSES):
            want = [a if up is None else min(a, up) for a, up in zip(actives, uppers)]
            wait_cleaned(broker.data, parts, want)
            run_.broker.append([segment_files(broker.data / d) for d in dirs])
            if p + 1 < PASSES:
                # past every active segment's first timestamp by more than segment.ms (the young case's records
                # are 10 minutes old), and a pass's apart
                produce(broker.bootstrap, parts, start + (p + 1) * 2 * SEGMENT_MS)
                deadline = time.monotonic() + 60
                while True:  # the produced record rolled a new active segment in every partition
                    new = [max(int(f.name[:20]) for f in (broker.data / d).glob("*.log")) for d in dirs]
                    if all(x > a for x, a in zip(new, actives)):
                        break
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"no roll in {[d for d, x, a in zip(dirs, new, actives) if x <= a]}")
                    time.sleep(0.1)
                actives = new
        run_.log = broker.log_text()
    return run_


def kvlog_passes(r: Run, work: Path, strategy: str, kafka_version: str) -> list[list[dict[str, bytes]]]:
    """kvlog's cleaner on a copy of each input, pass by pass at the broker's clock, with the produced records
    appended between passes as the broker appended them. Each pass cleans only a log the cleaner picks
    (``clean_filthiest``), as the broker's cleaner thread picks them."""
    out: list[list[dict[str, bytes]]] = [[] for _ in range(PASSES)]
    root = work / f"kvlog-{strategy}"
    shutil.copytree(work / "kvlog", root)
    for i, (topic, part) in enumerate(partitions()):
        cfg = LogConfig.from_properties({**TOPICS[topic], "compaction.strategy": strategy,
                                         "compaction.strategy.header": "v"})
        d = root / f"{topic}-{part}"
        before = r.inputs[i]
        for p in range(PASSES):
            broker_out = r.broker[p][i]
            stamped = horizons(broker_out) - horizons(before)
            now = min(stamped) if stamped else int(time.time() * 1000)
            with Log.open(d, cfg, time=lambda now=now: now) as log:
                # picked as the broker picks a log (dirty ratio, what is cleanable), then cleaned
                LogCleaner(kafka_version=kafka_version).clean_filthiest([log], now_ms=now)
            out[p].append(segment_files(d))
            if p + 1 < PASSES:  # the record the broker appended before its next pass, as it stored it
                nxt = r.broker[p + 1][i]
                last = sorted(nxt)[-1]
                with Log.open(d, cfg, time=lambda now=now: now) as log:
                    log.roll()
                    log.append(nxt[last], assign_offsets=False)
                before = segment_files(d)
    return out


def check(r: Run, strategy: str) -> list[str]:
    problems = []
    for p in range(PASSES):
        for i, name in enumerate(r.names):
            d = diff(r.broker[p][i], r.kvlog[strategy][p][i])
            if d:
                problems.append(f"{name} pass {p + 1} ({strategy}):\n{d}")
    return problems


VERSIONS = ("3.7.2", "4.1.2", "4.4.0")


@pytest.mark.parametrize("version", R.versions(*VERSIONS, group="compaction"))
def test_cleaner_keeps_what_the_broker_keeps(version):
    with R.scratch(f"compaction-{version}") as work:
        r = run(version, work)
        for strategy in ("offset", "timestamp", "header"):
            r.kvlog[strategy] = kvlog_passes(r, work, strategy, version)
        problems = check(r, "offset")
        assert problems == [], "\n\n".join(problems)
        for strategy in ("timestamp", "header"):  # versions never decrease with the offset: the same records
            assert r.kvlog[strategy] == r.kvlog["offset"], "\n\n".join(check(r, strategy))
