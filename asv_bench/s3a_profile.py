"""Where the JVM scan's time goes on S3A: requests, bytes and the server's own rate (issue 42's S3A rows).

    make spark-jars jar                      # once: S3A's jars and kvlog's
    python asv_bench/s3a_profile.py [--rows N] [--codecs none,lz4] [--server moto|static] [--json PATH]

A topic of N records (12 B keys, 100 B values, 4 partitions; kvlog's JVM sink in a default ``local[2]``
session), backed up with ``kvlog backup`` into an S3 endpoint on 127.0.0.1: moto's server (in this process, as
the suite and spark_kafka_bench.py use it) or ``s3_static.py`` (its own process, sendfile; over a copy of the
backup's objects). For each codec, the same aggregate (count, sum(offset), sum(length(value))) as
spark_kafka_bench.py, second of two passes:

* the JVM scan of the local files, and of the backup through S3A;
* S3A's own statistics of that scan (``IOStatistics`` of the file system: GET requests, HEAD and LIST
  requests, bytes read, stream opens, seeks, aborts and the time S3A reports spent in GETs);
* the server's rate: every object of the backup fetched whole with pyarrow's S3 client, one at a time and
  two at a time (the executors' threads), decoding nothing.

CPU features (``kvlog._core.build_info()``) and the load average are printed first.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "asv_bench"))
sys.path.insert(0, str(REPO / "tests"))

from spark_kafka_bench import PARTITIONS, default_session, scan_query, source, spark_kafka_jars, timed  # noqa: E402

STAT_KEYS = ("object_get_requests", "object_metadata_request", "object_list_request", "stream_read_opened",
             "stream_read_bytes", "stream_read_seek_operations", "stream_read_seek_forward_operations",
             "stream_read_seek_backward_operations", "stream_read_seek_bytes_skipped", "stream_aborted",
             "stream_read_operations", "stream_read_fully_operations", "stream_read_close_operations",
             "action_http_get_request")


def s3a_statistics(spark, uri: str) -> dict[str, float]:
    """Counters and the mean durations S3A's file system for ``uri`` kept (``IOStatistics``)."""
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI(uri), conf)
    stats = fs.getIOStatistics()
    out: dict[str, float] = {}
    counters = stats.counters()
    for key in counters.keySet().toArray():
        out[str(key)] = float(counters.get(key))
    means = stats.meanStatistics()
    for key in means.keySet().toArray():
        m = means.get(key)
        if m.getSamples() > 0:
            out[f"{key}.mean_ms"] = float(m.mean())
            out[f"{key}.samples"] = float(m.getSamples())
    return out


def close_s3a(spark, uri: str) -> None:
    jvm = spark._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI(uri), conf).close()


def server_rate(fs, keys: list[tuple[str, int]], threads: int) -> float:
    """Seconds to fetch every object whole through pyarrow's client with ``threads`` in flight."""
    def get(key: str) -> int:
        with fs.open_input_stream(key) as f:
            n = 0
            while True:
                chunk = f.read(8 << 20)
                if not chunk:
                    return n
                n += len(chunk)

    t = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        total = sum(pool.map(get, [k for k, _ in keys]))
    assert total == sum(s for _, s in keys)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--codecs", default="none,lz4")
    ap.add_argument("--server", choices=("moto", "static"), default="moto")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    import pyarrow.fs as pafs

    import kvlog._core as core
    from kvlog.backup.run import backup
    from s3_support import ACCESS_KEY, BUCKET, SECRET_KEY, S3Server

    print(f"kvlog {core.build_info()}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs", flush=True)
    work = tempfile.mkdtemp(prefix="kvlog-s3a-profile-")
    spark = default_session(spark_kafka_jars("s3a"))
    srv = S3Server()
    static = None
    results: dict[str, dict[str, object]] = {}
    try:
        host, port = srv.host, srv.port
        src = source(spark, args.rows).cache()
        assert src.count() == args.rows
        for codec in args.codecs.split(","):
            root = os.path.join(work, f"local-{codec}")
            topic = f"t-{codec}"
            (src.write.format("kvlog").mode("append").option("topic", topic).option("partitions", str(PARTITIONS))
             .option("compression", codec).save(root))
            key = f"backup-{codec}"
            result = backup(root, srv.uri(key), topics=[topic])
            assert not result.errors, result.errors
            results[codec] = {}
        if args.server == "static":
            mirror = os.path.join(work, "static")
            files = pafs.FileSelector(BUCKET, recursive=True)
            for info in srv.fs.get_file_info(files):
                if info.type == pafs.FileType.File:
                    dest = os.path.join(mirror, BUCKET, info.path.split("/", 1)[1])
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    with srv.fs.open_input_stream(info.path) as f, open(dest, "wb") as out:
                        shutil.copyfileobj(f, out, 8 << 20)
            import socket

            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = sock.getsockname()[1]
            static = subprocess.Popen([sys.executable, str(REPO / "asv_bench" / "s3_static.py"), mirror, str(port)])
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        conf = spark.sparkContext._jsc.hadoopConfiguration()
        for k, v in {"access.key": ACCESS_KEY, "secret.key": SECRET_KEY, "endpoint": f"http://{host}:{port}",
                     "path.style.access": "true", "endpoint.region": "us-east-1",
                     "connection.ssl.enabled": "false", "change.detection.mode": "none"}.items():
            conf.set(f"fs.s3a.bucket.{BUCKET}.{k}", v)
        fs = pafs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET_KEY, region="us-east-1",
                               endpoint_override=f"{host}:{port}", scheme="http")
        for codec in args.codecs.split(","):
            topic, key = f"t-{codec}", f"backup-{codec}"
            root = os.path.join(work, f"local-{codec}")
            uri = f"s3a://{BUCKET}/{key}"
            read = lambda path: scan_query(spark.read.format("kvlog").option("subscribe", topic).load(path))  # noqa: E731
            read(root)
            t_local, want = timed(lambda: read(root))
            read(uri)
            close_s3a(spark, uri)  # fresh statistics: the file system is created again by the timed scan
            t_s3a, got = timed(lambda: read(uri))
            assert got == want, (got, want)
            stats = s3a_statistics(spark, uri)
            objects = [(i.path, i.size) for i in fs.get_file_info(pafs.FileSelector(f"{BUCKET}/{key}", recursive=True))
                       if i.type == pafs.FileType.File]
            logs = [(p, s) for p, s in objects if p.endswith(".log")]
            t_get1 = server_rate(fs, logs, 1)
            t_get2 = server_rate(fs, logs, 2)
            mb = sum(s for _, s in logs) / 1e6
            results[codec] = {"local_s": t_local, "s3a_s": t_s3a, "ratio": t_local / t_s3a, "log_mb": mb,
                              "objects": len(objects), "log_objects": len(logs), "get_1_s": t_get1,
                              "get_2_s": t_get2, "s3a": {k: v for k, v in stats.items()
                                                         if any(k.startswith(s) for s in STAT_KEYS)}}
            print(f"\n[{codec}] {len(objects)} objects ({len(logs)} .log, {mb:.1f} MB): local {t_local:.2f} s, "
                  f"S3A {t_s3a:.2f} s = {t_local / t_s3a:.2f}x local; the server: every .log whole, 1 at a time "
                  f"{t_get1:.2f} s ({mb / t_get1:.0f} MB/s), 2 at a time {t_get2:.2f} s ({mb / t_get2:.0f} MB/s)")
            for k, v in sorted(results[codec]["s3a"].items()):  # type: ignore[union-attr]
                if v:
                    print(f"    {k:<55} {v:,.1f}")
    finally:
        if static is not None:
            static.kill()
            static.wait()
        srv.stop()
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": args.rows, "server": args.server, "load": load,
                                               "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
