#!/usr/bin/env python
"""A tiered topic (KIP-405) read from a local S3 server, against the same segments read as a plain object-store
log, in one run (issue 29's targets).

    python asv_bench/tiered_bench.py                      # 0.5 GB, 16 MiB segments, best of 3
    python asv_bench/tiered_bench.py --gb 1 --repeat 5 --json out.json

The topic (4 partitions of 12 B keys and 100 B random values, v2 uncompressed, 1 000 records per batch) is
written on tmpfs; every segment but each partition's last is then tiered: copied in Kafka's
``LocalTieredStorage`` layout and in Aiven's plugin layout (4 MiB chunks, as the plugin's default ``chunk.size``;
once plain, once zstd-compressed and AES-256-GCM-encrypted, written by ``tests/tiered_aiven_writer.py``),
recorded in ``__remote_log_metadata-0``, and removed from the local partition directories. The untiered
directory stays beside them. ``s3_static.py`` (remote_bench.py's read-only S3 front that answers with
``sendfile``) serves all of it from one process of its own.

Figures, each the best of ``--repeat`` (the open included):
* plain: the remote offsets of every partition read from the untiered copy in S3 (``Log.open(s3://…)``);
* tiered: the same offsets through ``Log.open(local partition, remote_storage=LocalTieredStorage(s3://…))``;
* aiven / aiven zstd+aes: the same through ``AivenTieredStorage``;
* requests of ``offset_for_timestamp`` into a remote segment after the open, per layout;
* GETs per MiB of each scan.
Targets: tiered ≥ 1.0× plain; aiven zstd+aes ≥ 0.5× aiven plain; ≤ 3 requests per search after the open.
Each ratio is given twice: of the bests, and ``paired_median``, the median of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time

import pyarrow.fs as pafs

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import remote_bench as rb  # noqa: E402

import kvlog  # noqa: E402
import kvlog.spark  # noqa: E402
from kvlog import Log, Record, broker_files, storage  # noqa: E402
from kvlog._core import build_info  # noqa: E402
from kvlog.internal_topics.cluster_metadata import topic_id_text  # noqa: E402
from kvlog.internal_topics.decoders import encode_remote_log_metadata_record  # noqa: E402
from kvlog.segment import LogSegment  # noqa: E402
from kvlog.tiered import AivenTieredStorage, LocalTieredStorage, RemoteSegment  # noqa: E402

BUCKET = rb.BUCKET
PARTITIONS = rb.PARTITIONS


def _uuid(text: str):  # type: ignore[no-untyped-def]
    import base64
    import uuid

    return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def tier(data: str, remote: str) -> tuple[list[RemoteSegment], dict[int, int]]:
    """Tier every segment but the last of each partition; returns the segments and each partition's local start."""
    import uuid

    segments: list[RemoteSegment] = []
    local_start: dict[int, int] = {}
    records = []
    for p in range(PARTITIONS):
        d = os.path.join(data, f"bench-{p}")
        topic_id = broker_files.read_partition_metadata(d)
        assert topic_id is not None
        bases = sorted(int(n[:20]) for n in os.listdir(d) if n.endswith(".log"))
        local_start[p] = bases[-1]
        pdir = os.path.join(remote, f"bench-{p}-{topic_id}")
        os.makedirs(pdir)
        for base, nxt in zip(bases, bases[1:]):
            seg = LogSegment(d, base, read_only=True)
            max_ts, size = seg.max_timestamp, seg.size_in_bytes
            seg.close()
            rs = RemoteSegment("bench", topic_id, p, topic_id_text(uuid.uuid4()), base, nxt - 1, max_ts, size,
                               ((0, base),), True)
            segments.append(rs)
            for suffix in (".log", ".index", ".timeindex"):
                shutil.move(os.path.join(d, f"{base:020d}{suffix}"), os.path.join(pdir, f"{base}-{rs.segment_id}{suffix}"))
            for suffix, data_ in ((".snapshot", b""), (".leader_epoch_checkpoint", broker_files.format_leader_epochs([(0, 0)]))):
                with open(os.path.join(pdir, f"{base:020d}-{rs.segment_id}{suffix}"), "wb") as f:
                    f.write(data_)
            tip = {"name": "bench", "id": _uuid(topic_id), "partition": p}
            sid = {"topicIdPartition": tip, "id": _uuid(rs.segment_id)}
            records.append(encode_remote_log_metadata_record(0, 0, {
                "remoteLogSegmentId": sid, "startOffset": base, "endOffset": nxt - 1, "brokerId": 1,
                "maxTimestampMs": max_ts, "eventTimestampMs": 0, "segmentSizeInBytes": size,
                "segmentLeaderEpochs": [{"leaderEpoch": 0, "offset": base}], "customMetadata": None,
                "remoteLogSegmentState": 0, "txnIndexEmpty": True}))
            records.append(encode_remote_log_metadata_record(1, 0, {
                "remoteLogSegmentId": sid, "brokerId": 1, "eventTimestampMs": 1, "customMetadata": None,
                "remoteLogSegmentState": 1}))
    with Log.open(os.path.join(data, "__remote_log_metadata-0")) as meta:
        meta.append([Record(None, r, rb.T0) for r in records])
    return segments, local_start


def to_aiven(segments: list[RemoteSegment], remote: str, dest: str, encryption) -> None:  # type: ignore[no-untyped-def]
    from tiered_aiven_writer import write_aiven_segment

    for seg in segments:
        pdir = os.path.join(remote, f"{seg.topic}-{seg.partition}-{seg.topic_id}")
        stem = os.path.join(pdir, f"{seg.start_offset:020d}-{seg.segment_id}")
        with open(stem + ".log", "rb") as f:
            log_bytes = f.read()
        indexes = {}
        for kind, suffix in (("offset", ".index"), ("timestamp", ".timeindex"), ("producer_snapshot", ".snapshot"),
                             ("leader_epoch", ".leader_epoch_checkpoint")):
            with open(stem + suffix, "rb") as f:
                indexes[kind] = f.read()
        indexes["transaction"] = None
        write_aiven_segment(dest, seg, log_bytes, indexes, key_prefix="", chunk_size=4 << 20,
                            compression=encryption is not None, encryption=encryption)


def scan_remote(data: str, local_start: dict[int, int], opener) -> int:  # type: ignore[no-untyped-def]
    rows = 0
    for p in range(PARTITIONS):
        with opener(p) as log:
            rows += log.to_arrow(0, local_start[p], include_headers=False).num_rows
    return rows


def spark_figures(data: str, whole: str, remote: str, rows: int, repeat: int) -> dict[str, object]:
    """``sum(offset), sum(length(value))`` of the whole topic through each engine: the tiered directory with
    ``kvlog.remoteStorage.*`` (LocalTieredStorage on local disk) against the untiered one."""
    from pyspark.sql import functions as F

    from kvlog.spark.demo import session

    jar = kvlog.spark.jar_path()
    if jar is None:
        raise SystemExit("no kvlog-spark.jar: run `make jar` first")
    spark = session("local[2]", {"spark.sql.shuffle.partitions": "2", "spark.driver.memory": "3g", "spark.jars": jar})
    kvlog.spark.register(spark)
    opts = {"subscribe": "bench", "kvlog.remoteStorage.layout": "LocalTieredStorage",
            "kvlog.remoteStorage.path": remote}
    figures: dict[str, object] = {}
    try:
        def run(fmt: str, path: str, options: dict[str, str]) -> tuple[float, int]:
            t = time.perf_counter()
            df = spark.read.format(fmt).options(**options).load(path)
            got = df.agg(F.count("*"), F.sum("offset"), F.sum(F.length("value"))).collect()[0]
            return time.perf_counter() - t, int(got[0])

        for fmt in ("kvlog_jvm", "kvlog_python"):
            run(fmt, data, opts), run(fmt, whole, {"subscribe": "bench"})  # warm
            best_t = best_w = float("inf")
            for _ in range(repeat):
                t, n = run(fmt, data, opts)
                assert n == rows, (fmt, n, rows)
                best_t = min(best_t, t)
                t, n = run(fmt, whole, {"subscribe": "bench"})
                best_w = min(best_w, t)
            parts = spark.read.format(fmt).options(**opts).load(data).rdd.getNumPartitions()
            figures[fmt] = {"tiered_Mrows_s": round(rows / best_t / 1e6, 2),
                            "untiered_Mrows_s": round(rows / best_w / 1e6, 2),
                            "ratio": round(best_w / best_t, 2), "input_partitions": parts}
    finally:
        spark.stop()
    return figures


def measure(gb: float, segment_mib: int, repeat: int, with_spark: bool = False) -> dict[str, object]:
    from tiered_aiven_writer import make_key_pair

    work = tempfile.mkdtemp(prefix="kvlog-tiered-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    out: dict[str, object] = {"build_info": build_info(), "gb": gb, "segment_mib": segment_mib}
    proc = None
    try:
        served = os.path.join(work, "served", BUCKET)
        whole = os.path.join(served, "whole")
        t = time.perf_counter()
        rows = rb.build(whole, gb, segment_mib)
        data = os.path.join(work, "data")
        shutil.copytree(whole, data)
        remote = os.path.join(served, "lts")
        segments, local_start = tier(data, remote)
        remote_bytes = sum(s.segment_size for s in segments)
        pub, _, _, priv = make_key_pair(work, "k1")
        to_aiven(segments, remote, os.path.join(served, "aiven-plain"), None)
        to_aiven(segments, remote, os.path.join(served, "aiven-zstd-aes"), ("k1", pub))
        print(f"built {rows:,} records; {len(segments)} remote segments, {remote_bytes / 1e9:.2f} GB, "
              f"in {time.perf_counter() - t:.1f} s")
        proc, port = rb.start_static(os.path.join(work, "served"))

        def uri(key: str) -> str:
            return (f"s3://bench:bench@{BUCKET}/{key}?endpoint_override=127.0.0.1:{port}&scheme=http"
                    "&region=us-east-1")

        layouts = {
            "plain": (lambda p: Log.open(uri(f"whole/bench-{p}"), read_only=True), storage.store_for(uri("whole"))),
        }
        lts = LocalTieredStorage(uri("lts"))
        layouts["tiered"] = (lambda p: Log.open(os.path.join(data, f"bench-{p}"), read_only=True,
                                                remote_storage=LocalTieredStorage(uri("lts"))),
                             storage.store_for(uri("lts")))
        aiven_plain = AivenTieredStorage(uri("aiven-plain"))
        aiven_enc = AivenTieredStorage(uri("aiven-zstd-aes"), key_pairs={"k1": str(priv)})
        layouts["aiven"] = (lambda p: Log.open(os.path.join(data, f"bench-{p}"), read_only=True,
                                               remote_storage=aiven_plain), aiven_plain)
        layouts["aiven zstd+aes"] = (lambda p: Log.open(os.path.join(data, f"bench-{p}"), read_only=True,
                                                        remote_storage=aiven_enc), aiven_enc)
        assert lts is not None

        def stats(counter):  # type: ignore[no-untyped-def]
            return counter.stats() if callable(getattr(counter, "stats", None)) else dataclasses.replace(counter.stats)

        # a search by time into the middle of partition 0's remote history, after the open, before any scan
        # has filled the store's block cache
        searches = {}
        # (not in a segment's first chunk or block: the open read those)
        want = min(local_start[0] - 1, local_start[0] // 2 + 250_001)
        target = rb.T0 + want
        for name, (opener, counter) in layouts.items():
            with opener(0) as log:
                before = stats(counter)
                t = time.perf_counter()
                found = log.offset_for_timestamp(target)
                ms = (time.perf_counter() - t) * 1000
                after = stats(counter)
            assert found is not None and found.offset == want, (name, found)
            searches[name] = {"requests": after.requests - before.requests, "ms": round(ms, 2)}
        expect = sum(local_start.values())
        for name, (opener, counter) in layouts.items():
            scan_remote(data, local_start, opener)  # warm
        best = {name: float("inf") for name in layouts}
        times: dict[str, list[float]] = {name: [] for name in layouts}
        gets = {}
        for _ in range(repeat):
            for name, (opener, counter) in layouts.items():  # alternately, so drift hits all alike
                before = stats(counter)
                t = time.perf_counter()
                got = scan_remote(data, local_start, opener)
                times[name].append(time.perf_counter() - t)
                best[name] = min(best[name], times[name][-1])
                after = stats(counter)
                assert got == expect, (name, got, expect)
                gets[name] = (after.gets - before.gets) / (remote_bytes / (1 << 20))
        for name in layouts:
            out[name] = {"s": round(best[name], 3), "MiB/s": round(remote_bytes / (1 << 20) / best[name], 1),
                         "gets_per_mib": round(gets[name], 2), "offset_for_timestamp": searches[name]}
        if with_spark:
            out["spark"] = spark_figures(data, whole, os.path.join(served, "lts"), rows, repeat)
        out["tiered_vs_plain"] = round(best["plain"] / best["tiered"], 2)
        out["aiven_vs_plain"] = round(best["plain"] / best["aiven"], 2)
        out["aiven_zstd_aes_vs_aiven"] = round(best["aiven"] / best["aiven zstd+aes"], 2)

        def paired(a: str, b: str) -> float:
            """The median of the ratios of rounds (each round reads every layout once, one after another):
            steadier than a ratio of bests on a VM whose speed drifts."""
            import statistics

            return round(statistics.median(x / y for x, y in zip(times[a], times[b])), 2)

        out["rounds_s"] = {name: [round(x, 3) for x in ts] for name, ts in times.items()}
        out["paired_median"] = {"tiered_vs_plain": paired("plain", "tiered"), "aiven_vs_plain": paired("plain", "aiven"),
                                "aiven_zstd_aes_vs_aiven": paired("aiven", "aiven zstd+aes")}
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gb", type=float, default=0.5)
    ap.add_argument("--segment-mib", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--spark", action="store_true",
                    help="also Spark (local[2]): both engines on the tiered topic, LocalTieredStorage on local disk, "
                         "against the untiered directory")
    args = ap.parse_args()
    out = measure(args.gb, args.segment_mib, args.repeat, args.spark)
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    assert pafs and kvlog
    main()
