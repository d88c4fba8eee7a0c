#!/usr/bin/env python
"""A topic into an Iceberg table: kvlog's export of the broker's files against Apache Iceberg's Kafka Connect sink
reading the same topic from the live broker (issue 51's Connect target: >= 5x).

    make kafka-jars                 # Kafka 4.4.0's broker and tools
    tools/kafka-connect/fetch.sh    # Kafka Connect 4.4.0 + iceberg-kafka-connect 1.11.0, the record transform
    python asv_bench/iceberg_connect_bench.py [--rows N] [--quick] [--json PATH]

One Kafka 4.4.0 broker (tests/kafka_oracle: KRaft, one node, on this machine). N records (100-byte values,
null keys, uncompressed, 4 partitions) produced by Kafka's own ProducerPerformance. Then:

* the peer: a Kafka Connect standalone worker (one JVM) running Iceberg's sink, ``tasks.max`` = the partitions,
  ByteArrayConverter and a record transform that makes each record the row kvlog exports (key, value,
  partition, offset, timestamp; tools/kafka-connect/src), the table auto-created, a commit every second
  (``iceberg.control.commit.interval-ms=1000``; the default is five minutes), into a JDBC catalog on SQLite
  and a local warehouse; timed from the worker's start until the table holds every record (polled through
  pyiceberg every 0.2 s), and also from its first commit to its last (its steady rate, the JVM's start and the
  group's joining left out);
* ``kvlog.iceberg.export`` of the running broker's data directory into a new table of kvlog's embedded catalog
  (after a warm-up export of another topic: the modules imported, as in a running service).

Rows/s, one run each. The load average and kvlog's CPU features are printed.
"""

from __future__ import annotations

import argparse
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

PARTITIONS = 4
STALL_S = 60


def connect_classpath() -> str:
    root = REPO / "build" / "kafka-connect"
    jars = root / "jars"
    if not (jars / ".complete").exists() or not (root / "record-as-row.jar").exists():
        raise SystemExit("no Kafka Connect jars: run tools/kafka-connect/fetch.sh first")
    return f"{jars}/*:{root / 'record-as-row.jar'}"


def produce(kafka_jars: Path, bootstrap: str, topic: str, n: int) -> float:
    t = time.perf_counter()
    subprocess.run(["java", "-cp", f"{kafka_jars}/*", "org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                    "--num-records", str(n), "--record-size", "100", "--throughput", "-1", "--producer-props",
                    f"bootstrap.servers={bootstrap}", "linger.ms=20", "batch.size=262144", "acks=1",
                    "compression.type=none"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def connect(work: Path, bootstrap: str, topic: str, n: int, catalog_db: Path, warehouse: Path) -> dict:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.exceptions import NoSuchTableError

    work.mkdir(parents=True)
    worker = work / "worker.properties"
    worker.write_text(f"bootstrap.servers={bootstrap}\n"
                      "key.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n"
                      "value.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n"
                      f"offset.storage.file.filename={work / 'connect.offsets'}\n"
                      "offset.flush.interval.ms=1000\nlisteners=http://127.0.0.1:0\nplugin.discovery=only_scan\n")
    sink = work / "iceberg-sink.properties"
    sink.write_text("name=iceberg-sink\nconnector.class=org.apache.iceberg.connect.IcebergSinkConnector\n"
                    f"tasks.max={PARTITIONS}\ntopics={topic}\n"
                    "key.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n"
                    "value.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n"
                    "transforms=row\ntransforms.row.type=kvlog.bench.RecordAsRow\n"
                    "iceberg.tables=connect.events\niceberg.tables.auto-create-enabled=true\n"
                    "iceberg.catalog=connect\niceberg.catalog.catalog-impl=org.apache.iceberg.jdbc.JdbcCatalog\n"
                    f"iceberg.catalog.uri=jdbc:sqlite:{catalog_db}\niceberg.catalog.warehouse=file://{warehouse}\n"
                    "iceberg.catalog.jdbc.schema-version=V1\niceberg.catalog.clients=1\n"
                    "iceberg.control.topic=control-iceberg\niceberg.control.commit.interval-ms=1000\n"
                    f"iceberg.kafka.bootstrap.servers={bootstrap}\n")
    cat = SqlCatalog("connect", uri=f"sqlite:///{catalog_db}", warehouse=f"file://{warehouse}")
    log = open(work / "connect.log", "w")
    t0 = time.perf_counter()
    proc = subprocess.Popen(["java", "-Xmx1g", "-cp", connect_classpath(),
                             "org.apache.kafka.connect.cli.ConnectStandalone", str(worker), str(sink)],
                            stdout=log, stderr=subprocess.STDOUT)
    first = None
    rows = 0
    changed = t0
    try:
        deadline = t0 + 1800
        while time.perf_counter() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"the Connect worker exited ({proc.returncode}): see {work / 'connect.log'}")
            try:
                snap = cat.load_table("connect.events").current_snapshot()
            except NoSuchTableError:
                snap = None
            if snap is not None:
                now_rows = int(snap.summary["total-records"] or 0)
                if now_rows != rows:
                    rows, changed = now_rows, time.perf_counter()
                if first is None and rows:
                    first = (time.perf_counter(), rows)
                if rows >= n:
                    break
            if rows and time.perf_counter() - changed > STALL_S:
                break  # (nothing committed for a while: what the table holds is what the sink gives)
            time.sleep(0.2)
        t1 = changed if rows < n else time.perf_counter()
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    if rows < n:
        print(f"Connect's table holds {rows:,} of {n:,} records, nothing more committed in {STALL_S} s "
              f"(its consumer group's offsets: {group_offsets(bootstrap)})")
    steady = (rows - first[1]) / (t1 - first[0]) if first is not None and t1 > first[0] else float("nan")
    return {"seconds": t1 - t0, "rows": rows, "rows_per_s": rows / (t1 - t0), "steady_rows_per_s": steady}


def group_offsets(bootstrap: str) -> dict[int, int]:
    """The Connect sink's committed offsets of the topic (its consumer group), by partition."""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        got = admin.list_group_offsets({"connect-iceberg-sink": None})
        table = got.get("connect-iceberg-sink", got) if isinstance(got, dict) else got
        return {tp.partition: getattr(meta, "offset", meta) for tp, meta in sorted(table.items())}
    finally:
        admin.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--quick", action="store_true", help="200 000 rows")
    ap.add_argument("--version", default="4.4.0")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    n = 200_000 if args.quick else args.rows
    import kvlog._core as core
    import kvlog.iceberg as ki
    from tests.kafka_oracle.broker import Broker, KafkaDist
    from tests.kafka_oracle.serve import create_topics

    info = core.build_info()
    print(f"kvlog kernels crc32 {info.get('crc32')}, cpu_features {info.get('cpu_features')}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    os.environ["KVLOG_KAFKA_JARS"] = os.environ.get("KVLOG_KAFKA_JARS", str(REPO / "build" / "kafka-oracle"))
    dist = KafkaDist.find(args.version)
    if dist is None:
        raise SystemExit(f"Kafka {args.version}'s jars are not fetched: run `make kafka-jars`")
    kafka_jars = Path(os.environ["KVLOG_KAFKA_JARS"]) / args.version
    work = Path(tempfile.mkdtemp(prefix="kvlog-iceberg-connect-bench-"))
    broker = Broker(dist, work / "broker", extra={"log.retention.ms": "-1", "log.segment.bytes": str(1 << 30)})
    results = {}
    try:
        broker.start()
        create_topics(broker, {"events": (PARTITIONS, {}), "control-iceberg": (1, {})})
        took = produce(kafka_jars, broker.bootstrap, "events", n)
        print(f"produced {n:,} records in {took:.1f} s")
        time.sleep(6)  # (the broker checkpoints its high watermarks every 5 s: what kvlog exports ends there)
        ki.export(broker.data, "control-iceberg", "bench.warm", warehouse=work / "lake")  # (imports, warm-up)
        t = time.perf_counter()
        r = ki.export(broker.data, "events", "bench.events", warehouse=work / "lake")
        seconds = time.perf_counter() - t
        assert r.rows == n, r
        results["kvlog.iceberg.export of the broker's directory"] = {"seconds": seconds, "rows": r.rows,
                                                                    "rows_per_s": n / seconds}
        results["Iceberg's Kafka Connect sink (standalone worker)"] = connect(
            work / "connect", broker.bootstrap, "events", n, work / "connect-catalog.db", work / "connect-wh")
    finally:
        broker.stop_all()
        shutil.rmtree(work, ignore_errors=True)
    peer = results["Iceberg's Kafka Connect sink (standalone worker)"]
    ours = results["kvlog.iceberg.export of the broker's directory"]
    print(f"| kvlog.iceberg.export | {ours['seconds']:.2f} s | {ours['rows_per_s'] / 1e6:.3f} M rows/s |")
    print(f"| Connect sink, start to last row | {peer['seconds']:.2f} s | {peer['rows_per_s'] / 1e6:.3f} M rows/s | "
          f"kvlog {ours['rows_per_s'] / peer['rows_per_s']:.1f}x |")
    print(f"| Connect sink, first commit to last | | {peer['steady_rows_per_s'] / 1e6:.3f} M rows/s | "
          f"kvlog {ours['rows_per_s'] / peer['steady_rows_per_s']:.1f}x |")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": n, "load": load, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
