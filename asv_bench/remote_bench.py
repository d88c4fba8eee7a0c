#!/usr/bin/env python
"""A Kafka log directory in S3 against the same files on local disk (issue 15), in one run.

    python asv_bench/remote_bench.py                  # 1 GB topic, 16 MiB segments, Spark included
    python asv_bench/remote_bench.py --gb 0.25 --no-spark --repeat 2
    python asv_bench/remote_bench.py --json out.json

Two S3 endpoints on 127.0.0.1, each in its own process (so neither shares this process's interpreter
lock), serve the same topic: 4 partitions of 12 B keys and 100 B random values (v2, uncompressed, 1 000
records per batch), written on tmpfs.

* ``moto``: moto's server, the S3 the tests run against, with the topic uploaded to it. moto keeps
  each object in memory and copies the whole object for every ranged GET: a GET costs about 0.6 ms per
  MiB of the object, so segments are 16 MiB here (``--segment-mib``); Kafka's default 1 GiB segments
  would measure moto, not kvlog.
* ``static``: ``s3_static.py``, a read-only S3 front over the same tmpfs files that sends bodies with
  ``sendfile``: what a fast object store looks like to the client.

Per server:

* scan: every partition read whole with ``Log.open(..., read_only=True).to_arrow()`` (the open
  included), local against ``s3://``, alternately, best of ``--repeat``; GETs per MiB of log read;
* the server's ceiling: the same ``.log`` objects read with pyarrow ``read_at`` in the same 8 MiB
  ranges and with the same 3 requests in flight, decoding nothing: what any client gets from it;
* open: requests and time of a read-only open; point: requests and latency of ``offset_for_timestamp``;
* Spark: ``sum(offset), sum(length(value))`` through ``format("kvlog_python")`` on the two roots.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow.fs as pafs

import kvlog
from kvlog import LogConfig, LogManager, storage
from kvlog._core import build_info

PARTITIONS = 4
VALUE_BYTES = 100
BUCKET = "kvlog-bench"
T0 = 1_700_000_000_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_moto() -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/moto-api/", timeout=1).read()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("moto's server did not start")


def build(root: str, gb: float, segment_mib: int, partitions: int = PARTITIONS) -> int:
    """The topic on local disk; returns its record count."""
    per = int(gb * 1e9 / (VALUE_BYTES + 12 + 10) / partitions)
    rng = np.random.default_rng(1)
    keys = [b"key-%08d" % i for i in range(100_000)]
    with LogManager(root, LogConfig(segment_bytes=segment_mib << 20)) as mgr:
        for log in mgr.create_topic("bench", partitions):
            for lo in range(0, per, 100_000):
                n = min(100_000, per - lo)
                values = [rng.bytes(VALUE_BYTES) for _ in range(n)]
                stamps = T0 + lo + np.arange(n, dtype=np.int64)
                log.append(kvlog.encode_arrays(keys[:n], values, stamps, records_per_batch=1000))
            log.flush()
    return per * partitions


def log_bytes(root: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs if f.endswith(".log"))


def scan(root: str) -> int:
    rows = 0
    for p in range(PARTITIONS):
        with kvlog.Log.open(storage.join(root, f"bench-{p}"), read_only=True) as log:
            rows += log.to_arrow(include_headers=False).num_rows
    return rows


def raw_ceiling(fs: pafs.S3FileSystem, key: str, block: int, in_flight: int) -> tuple[float, int]:
    """Seconds to GET every .log object in ``block`` ranges, ``in_flight`` at a time; bytes read."""
    infos = [i for i in fs.get_file_info(pafs.FileSelector(f"{BUCKET}/{key}", recursive=True))
             if i.path.endswith(".log")]
    ranges = []
    for info in infos:
        f = fs.open_input_file(info.path)
        ranges += [(f, off, min(block, info.size - off)) for off in range(0, info.size, block)]
    t = time.perf_counter()
    with ThreadPoolExecutor(in_flight) as pool:
        got = sum(len(b) for b in pool.map(lambda r: r[0].read_at(r[2], r[1]), ranges))
    return time.perf_counter() - t, got


def start_static(root: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3_static.py"),
                             root, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/{BUCKET}", method="HEAD"),
                                   timeout=1).read()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the static S3 server did not start")


def against(uri: str, fs: pafs.S3FileSystem, root: str, rows: int, size: int, repeat: int,
            spark: object | None) -> dict[str, object]:
    """The figures of one S3 endpoint holding ``root``'s files under ``uri``."""
    store = storage.store_for(uri)
    mib = size / (1 << 20)
    scan(root), scan(uri)  # warm: imports, the page cache of tmpfs, the server's first touches
    best_local = best_remote = float("inf")
    gets = 0
    for _ in range(repeat):
        t = time.perf_counter()
        assert scan(root) == rows
        best_local = min(best_local, time.perf_counter() - t)
        store.reset_stats()
        t = time.perf_counter()
        assert scan(uri) == rows
        best_remote = min(best_remote, time.perf_counter() - t)
        gets = store.stats.gets
    ceiling_s, got = min((raw_ceiling(fs, "kafka", store.block_size, store.prefetch + 1) for _ in range(repeat)),
                         key=lambda x: x[0])
    out: dict[str, object] = {"scan": {
        "local_MBps": size / best_local / 1e6, "s3_MBps": size / best_remote / 1e6,
        "ratio": best_local / best_remote, "gets": gets, "gets_per_MiB": gets / mib,
        "server_ceiling_MBps": got / ceiling_s / 1e6, "s3_vs_ceiling": (size / best_remote) / (got / ceiling_s),
    }}

    # the open and point searches on partition 0
    p0 = storage.join(uri, "bench-0")
    store.reset_stats()
    t = time.perf_counter()
    log = kvlog.Log.open(p0, read_only=True)
    open_s = time.perf_counter() - t
    opened = store.reset_stats()
    segments = len(log.segments)
    per = rows // PARTITIONS
    mid = T0 + per // 2
    t = time.perf_counter()
    found = log.offset_for_timestamp(mid)
    first_call = time.perf_counter() - t
    point = store.reset_stats()
    t = time.perf_counter()
    for k in range(100):
        log.offset_for_timestamp(T0 + (k * 7919) % per)
    many = store.reset_stats()
    per_call = (time.perf_counter() - t) / 100
    log.close()
    assert found is not None and found.timestamp == mid
    out["open"] = {"segments": segments, "ms": open_s * 1e3, **opened.as_dict()}
    out["offset_for_timestamp"] = {"requests_first": point.requests, "first_call_ms": first_call * 1e3,
                                   "requests_per_call_100_random": many.requests / 100,
                                   "mean_call_ms_100_random": per_call * 1e3}
    if spark is not None:
        from pyspark.sql import functions as F

        def spark_scan(path: str) -> float:
            t = time.perf_counter()
            r = spark.read.format("kvlog_python").option("subscribePattern", ".*").load(path).agg(F.sum("offset"), F.sum(F.length("value"))).collect()  # type: ignore[attr-defined]
            assert r[0][0] is not None
            return time.perf_counter() - t

        spark_scan(root), spark_scan(uri)
        sl = sr = float("inf")
        for _ in range(repeat):
            sl = min(sl, spark_scan(root))
            sr = min(sr, spark_scan(uri))
        out["spark_scan"] = {"local_Mrows_s": rows / sl / 1e6, "s3_Mrows_s": rows / sr / 1e6, "ratio": sl / sr}
    return out


def measure(gb: float, segment_mib: int, repeat: int, with_spark: bool,
            servers: tuple[str, ...] = ("moto", "static")) -> dict[str, object]:
    """Every figure of this benchmark (see the module docstring) as a dict, one entry per server."""
    work = tempfile.mkdtemp(prefix="kvlog-remote-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    out: dict[str, object] = {"build_info": build_info(), "gb": gb, "segment_mib": segment_mib}
    spark = None
    procs: list[subprocess.Popen[bytes]] = []
    try:
        served = os.path.join(work, "served")
        root = os.path.join(served, BUCKET, "kafka")
        t = time.perf_counter()
        rows = build(root, gb, segment_mib)
        size = log_bytes(root)
        print(f"built {rows:,} records, {size / 1e9:.2f} GB of .log in {time.perf_counter() - t:.1f} s")
        if with_spark:
            here = os.path.dirname(os.path.abspath(__file__))
            sys.path.insert(0, here)
            from spark_bench import session  # noqa: E402

            spark = session()
        for name in servers:
            if name == "moto":
                proc, port = start_moto()
            else:
                proc, port = start_static(served)
            procs.append(proc)
            fs = pafs.S3FileSystem(access_key="bench", secret_key="bench", region="us-east-1",
                                   endpoint_override=f"127.0.0.1:{port}", scheme="http",
                                   allow_bucket_creation=True)
            if name == "moto":
                fs.create_dir(BUCKET)
                t = time.perf_counter()
                pafs.copy_files(root, f"{BUCKET}/kafka", destination_filesystem=fs,
                                source_filesystem=pafs.LocalFileSystem())
                print(f"uploaded to moto in {time.perf_counter() - t:.1f} s")
            uri = (f"s3://bench:bench@{BUCKET}/kafka?endpoint_override=127.0.0.1:{port}&scheme=http"
                   "&region=us-east-1")
            out[name] = against(uri, fs, root, rows, size, repeat, spark)
            print(name, json.dumps(out[name]))
            proc.terminate()
            proc.wait()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        if spark is not None:
            spark.stop()  # type: ignore[attr-defined]
        shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--segment-mib", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    out = measure(args.gb, args.segment_mib, args.repeat, not args.no_spark)
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
