#!/usr/bin/env python
"""Disaster recovery of a cluster's topic (issue 50): kvlog backup + restore against MirrorMaker 2.

    python asv_bench/dr_bench.py                 # 3 000 000 records: ~345 MB of keys and values, ~250 MB a replica
    python asv_bench/dr_bench.py --records 20000 --json out.json     # a minute: fixed costs only

The target: "backup of a 3-broker cluster + restore into a fresh 3-broker cluster, until a consumer can read
every record at its original offset, ≥ 5× faster than MirrorMaker 2 replicating the same topic into a fresh
cluster". Needs Java, Kafka 4.4.0's jars and MirrorMaker 2's (``tools/kafka-oracle/fetch.sh build/kafka-oracle
4.4.0 mirror-4.3.1``; ``KVLOG_KAFKA_JARS`` names another folder). Run it on an idle machine: every figure is
wall-clock time of processes sharing its cores.

**Source** (not timed): a Kafka 4.4.0 cluster of 3 brokers (combined KRaft voters, 2 log dirs each); one topic
(``--partitions``, RF 3, ``compression.type=lz4``) gets ``--records`` records from Kafka's Java producer (acks=all,
idempotent, lz4, explicit partition ``seq % P``; key ``k<seq:012>``, a ~100-byte JSON-like value, half random
hex); then DeleteRecords moves each partition's log start to ``--trim`` of its end (a topic that has lived:
retention deleted its oldest records), so offsets start above 0. A consumer reads the source once: each
partition's log start, end, record count, and digests of its (key, value) multiset and of its (offset, key,
value) set are the reference both routes are checked against.

**Both routes start with a fresh, running, empty target cluster** (3 brokers of Kafka 4.4.0, one log dir each,
a separate KRaft controller; started before the clock, not timed) and end when a consumer on the target (Kafka's
Java consumer, one JVM, started when the route needs it) has read every record of the topic:

* **kvlog**, timed phase by phase from the start of the backup: ``backup`` (``kvlog.backup.run.backup`` of the
  running source's six log dirs into a local directory), ``create`` (the topic on the target, same partitions,
  RF 3 and configs, until in sync), ``stop`` (every target broker, cleanly; the controller runs on, as in
  docs/backup.md's procedure), ``restore`` (``kvlog.backup.restore.restore`` once per target broker with its
  KRaft metadata dir, one after the other: on separate hosts they would run at once), ``start`` (the brokers, until registered), ``read`` (the
  consumer's JVM start to its last record). Checked: every partition's log start, end and (offset, key, value)
  digest equal the source's: every record at its original offset.
* **MirrorMaker 2** (connect-mirror 4.3.1 from Maven, dedicated mode ``org.apache.kafka.connect.mirror.MirrorMaker
  --clusters dst``, its own JVM with ``-Xmx1g`` and the JVM's default JIT and GC): timed from its process start,
  the consumer started at the same moment waiting for ``src.<topic>`` (the default replication policy's name),
  until it has read every record. Settings: ``tasks.max`` = partitions, the mirrored topic at RF 3, its producer
  lz4 (as the topic: no recompression on the brokers), ``linger.ms=20``, ``batch.size=256 KiB``,
  ``plugin.discovery=service_load`` (its log's advice: no class-path scan at startup); the rest MirrorMaker's
  defaults (checkpoints and heartbeats emitted, its Connect topics created on the target at RF 3).
  Phases from the consumer's clock: ``startup`` (to the topic's appearance on the target), ``first`` (to its
  first record), ``replicate`` (to its last). Checked: every partition holds the source's (key, value) multiset
  (duplicates, which at-least-once delivery could add, are counted, and the last record is the last distinct
  one). MirrorMaker writes new offsets: the mirrored partitions start at 0 whatever the source's log start, so
  a sample of records is printed at its source, kvlog-restored and mirrored offsets.

The brokers of all three clusters run as the broker tests run them (tests/kafka_oracle/cluster.py: ``-Xmx512m``,
serial GC, C1 only, 2 network and 2 I/O threads), the same for both routes. One target cluster runs at a time
(kvlog's is stopped and deleted before MirrorMaker's starts); the source runs throughout. The working
directory is a temporary one under ``--dir`` (default the system's temp dir, i.e. disk; ``/dev/shm`` for
memory), deleted at the end unless ``--keep``. Printed: the machine (CPU model, ``kvlog._core.build_info()``'s
crc and cpu fields, load average), both routes' times and phases, the ratio MirrorMaker/kvlog, the checks.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kvlog._core import build_info  # noqa: E402
from kvlog.backup.restore import restore  # noqa: E402
from kvlog.backup.run import backup  # noqa: E402
from tests.kafka_oracle import client  # noqa: E402
from tests.kafka_oracle.broker import JARS, KafkaDist, java  # noqa: E402
from tests.kafka_oracle.cluster import Cluster  # noqa: E402

KAFKA_VERSION = "4.4.0"
MIRROR = "mirror-4.3.1"  # tools/kafka-oracle/mirror-4.3.1.pom.xml
TOPIC = "drbench"
TOPIC_CONFIGS = {"compression.type": "lz4"}
MIRRORED = f"src.{TOPIC}"  # DefaultReplicationPolicy: <source alias>.<topic>

# The benchmark's Java side: a producer, and a consumer that reads a topic until it holds what is expected,
# digesting every record. Compiled once (by its hash) against Kafka 4.4.0's jars into build/kafka-oracle/classes.
JAVA_SOURCE = r"""
package io.kvlog.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** dr_bench.py's producer and reader: {@code DrBenchClient <request.json> <answer.json>}. */
public final class DrBenchClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final String[] EVENTS = {"click", "view", "purchase", "login", "logout"};

    private DrBenchClient() {
    }

    public static void main(String[] args) throws Exception {
        JsonNode req = JSON.readTree(new File(args[0]));
        ObjectNode out;
        switch (req.get("op").asText()) {
            case "produce": out = produce(req); break;
            case "read": out = read(req); break;
            case "tail": out = tail(req); break;
            default: throw new IllegalArgumentException(req.get("op").asText());
        }
        JSON.writeValue(new File(args[1]), out);
    }

    static byte[] key(long seq) {
        return String.format("k%012d", seq).getBytes(StandardCharsets.US_ASCII);
    }

    /** A JSON-like value of {@code size} bytes: fields derived from seq, padded with random hex (lz4 halves it). */
    static byte[] value(long seq, int size) {
        StringBuilder sb = new StringBuilder(size + 8);
        sb.append("{\"seq\":").append(seq).append(",\"user\":").append((seq * 7919) % 100000)
            .append(",\"event\":\"").append(EVENTS[(int) (seq % EVENTS.length)]).append("\",\"data\":\"");
        SplittableRandom r = new SplittableRandom(seq);
        while (sb.length() < size - 2) {
            sb.append(HEX[r.nextInt(16)]);
        }
        sb.append("\"}");
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static long seqOf(byte[] key) {
        long s = 0;
        for (int i = 1; i < key.length; i++) {
            s = s * 10 + (key[i] - '0');
        }
        return s;
    }

    static long mix(long z) {  // splitmix64's finalizer
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    static Properties common(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "30000");
        p.put("default.api.timeout.ms", "60000");
        return p;
    }

    static ObjectNode produce(JsonNode req) throws Exception {
        String bootstrap = req.get("bootstrap").asText();
        String topic = req.get("topic").asText();
        int parts = req.get("partitions").asInt();
        long records = req.get("records").asLong();
        int size = req.get("value_bytes").asInt();
        double trim = req.get("trim").asDouble();
        Properties p = common(bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(128L << 20));
        AtomicLong acked = new AtomicLong();
        AtomicReference<Exception> failed = new AtomicReference<>();
        long t0 = System.nanoTime();
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (long seq = 0; seq < records && failed.get() == null; seq++) {
                byte[] k = key(seq);
                byte[] v = value(seq, size);
                bytes += k.length + v.length;
                producer.send(new ProducerRecord<>(topic, (int) (seq % parts), k, v), (m, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    } else {
                        acked.incrementAndGet();
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw failed.get();
        }
        ObjectNode out = JSON.createObjectNode();
        out.put("records", acked.get());
        out.put("bytes", bytes);
        out.put("seconds", (System.nanoTime() - t0) / 1e9);
        ObjectNode trimmed = out.putObject("log_start");
        try (Admin admin = Admin.create(common(bootstrap))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < parts; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get();
            Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
            for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
                long before = (long) Math.floor(e.getValue().offset() * trim);
                trimmed.put(String.valueOf(e.getKey().partition()), before);
                if (before > 0) {
                    delete.put(e.getKey(), RecordsToDelete.beforeOffset(before));
                }
            }
            if (!delete.isEmpty()) {
                admin.deleteRecords(delete).all().get();
            }
        }
        return out;
    }

    /**
     * Every record of the topic's partitions from their beginning, until each partition holds {@code expect[p]}
     * distinct keys (or, without {@code expect}, up to the end offsets found at the start). The topic may not
     * exist yet: it is waited for. Per partition: the counts, the first and last offsets, a digest of the (key,
     * value) multiset and of the (offset, key, value) set; the offsets of the keys in {@code samples}.
     */
    /** Each partition's last record, fetched at its end offset - 1: when it comes, the cluster serves all. */
    static ObjectNode tail(JsonNode req) throws Exception {
        String topic = req.get("topic").asText();
        int parts = req.get("partitions").asInt();
        long deadline = System.currentTimeMillis() + req.get("timeout_s").asLong() * 1000;
        Properties p = common(req.get("bootstrap").asText());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        ObjectNode out = JSON.createObjectNode();
        ObjectNode last = JSON.createObjectNode();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < parts; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            c.assign(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps, Duration.ofSeconds(60));
            for (TopicPartition tp : tps) {
                c.seek(tp, ends.get(tp) - 1);
            }
            while (last.size() < parts) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("tail read timed out: " + last);
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                    if (!last.has(String.valueOf(r.partition()))) {
                        last.put(String.valueOf(r.partition()), r.offset());
                    }
                }
            }
        }
        out.put("done_ms", System.currentTimeMillis());
        out.set("last", last);
        return out;
    }

    static ObjectNode read(JsonNode req) throws Exception {
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        long t0 = System.currentTimeMillis();
        String topic = req.get("topic").asText();
        int parts = req.get("partitions").asInt();
        long records = req.get("records").asLong();
        long deadline = t0 + req.get("timeout_s").asLong() * 1000;
        JsonNode expect = req.get("expect");
        Set<Long> samples = new HashSet<>();
        for (JsonNode s : req.path("samples")) {
            samples.add(s.asLong());
        }
        Properties p = common(req.get("bootstrap").asText());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        ObjectNode out = JSON.createObjectNode();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            while (true) {
                List<PartitionInfo> infos = null;
                try {
                    infos = c.partitionsFor(topic, Duration.ofSeconds(2));
                } catch (org.apache.kafka.common.errors.TimeoutException
                         | org.apache.kafka.common.errors.UnknownTopicOrPartitionException e) {
                    infos = null;
                }
                if (infos != null && infos.size() >= parts) {
                    break;
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("topic " + topic + " did not appear");
                }
                Thread.sleep(50);
            }
            long found = System.currentTimeMillis();
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < parts; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = expect == null ? c.endOffsets(tps) : null;
            long[] want = new long[parts];
            for (int i = 0; i < parts; i++) {
                want[i] = expect == null ? -1 : expect.get(String.valueOf(i)).asLong();
            }
            long[] distinct = new long[parts];
            long[] dups = new long[parts];
            long[] digest = new long[parts];
            long[] digestOff = new long[parts];
            long[] first = new long[parts];
            long[] last = new long[parts];
            java.util.Arrays.fill(first, -1);
            java.util.Arrays.fill(last, -1);
            BitSet seen = new BitSet((int) records);
            ObjectNode hits = JSON.createObjectNode();
            CRC32C crc = new CRC32C();
            long firstRecord = -1;
            boolean done = false;
            while (!done) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("read timed out: " + java.util.Arrays.toString(distinct));
                }
                ConsumerRecords<byte[], byte[]> batch = c.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (firstRecord < 0) {
                        firstRecord = System.currentTimeMillis();
                    }
                    int i = r.partition();
                    long seq = seqOf(r.key());
                    if (seen.get((int) seq)) {
                        dups[i]++;
                        continue;
                    }
                    seen.set((int) seq);
                    crc.reset();
                    crc.update(r.key());
                    long h = crc.getValue() << 32;
                    crc.reset();
                    crc.update(r.value());
                    h |= crc.getValue();
                    h = mix(h);
                    distinct[i]++;
                    digest[i] += h;
                    digestOff[i] += mix(h ^ mix(r.offset()));
                    if (first[i] < 0) {
                        first[i] = r.offset();
                    }
                    last[i] = r.offset();
                    if (samples.contains(seq)) {
                        hits.put(String.valueOf(seq), r.offset());
                    }
                }
                done = true;
                for (int i = 0; i < parts && done; i++) {
                    done = expect != null ? distinct[i] >= want[i] : c.position(tps.get(i)) >= ends.get(tps.get(i));
                }
            }
            long doneMs = System.currentTimeMillis();
            Map<TopicPartition, Long> begins = c.beginningOffsets(tps);
            Map<TopicPartition, Long> endsNow = c.endOffsets(tps);
            ObjectNode per = out.putObject("partitions");
            for (int i = 0; i < parts; i++) {
                ObjectNode o = per.putObject(String.valueOf(i));
                o.put("log_start", begins.get(tps.get(i)));
                o.put("end", endsNow.get(tps.get(i)));
                o.put("records", distinct[i]);
                o.put("duplicates", dups[i]);
                o.put("first", first[i]);
                o.put("last", last[i]);
                o.put("digest", Long.toHexString(digest[i]));
                o.put("digest_offsets", Long.toHexString(digestOff[i]));
            }
            out.set("samples", hits);
            out.put("jvm_start_ms", jvmStart);
            out.put("main_ms", t0);
            out.put("topic_found_ms", found);
            out.put("first_record_ms", firstRecord);
            out.put("done_ms", doneMs);
        }
        return out;
    }
}
"""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------- Java side
def helper_classes() -> Path:
    src = Path(tempfile.mkdtemp(prefix="drbench-src-")) / "DrBenchClient.java"
    try:
        src.write_text(JAVA_SOURCE)
        return client.compiled(src, KAFKA_VERSION)
    finally:
        shutil.rmtree(src.parent, ignore_errors=True)


class Helper:
    """The Java producer and reader (``DrBenchClient``) in their own JVM, one request each."""

    def __init__(self, dist: KafkaDist, work: Path) -> None:
        self.classpath = f"{helper_classes()}:{dist.classpath}"
        self.work = work
        self.n = 0

    def start(self, request: dict[str, Any]) -> tuple[subprocess.Popen[bytes], Path]:
        self.n += 1
        req = self.work / f"helper-{self.n}.json"
        ans = self.work / f"helper-{self.n}.answer.json"
        req.write_text(json.dumps(request))
        exe = java()
        assert exe is not None
        cmd = [exe, "-Xms256m", "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
               "-Dorg.slf4j.simpleLogger.logFile=System.err", "-cp", self.classpath,
               "io.kvlog.bench.DrBenchClient", str(req), str(ans)]
        err = open(self.work / f"helper-{self.n}.err", "wb")
        proc = subprocess.Popen(cmd, stdout=err, stderr=subprocess.STDOUT, start_new_session=True)
        err.close()
        return proc, ans

    def finish(self, proc: subprocess.Popen[bytes], ans: Path, timeout: float) -> dict[str, Any]:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            stop_process(proc)
            raise RuntimeError(f"the Java helper took more than {timeout} s") from None
        if proc.returncode != 0:
            err = ans.with_name(ans.name.replace(".answer.json", ".err")).read_text(errors="replace")
            raise RuntimeError(f"the Java helper failed ({proc.returncode}):\n{err[-4000:]}")
        result: dict[str, Any] = json.loads(ans.read_text())
        return result

    def run(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        proc, ans = self.start(request)
        return self.finish(proc, ans, timeout)


def stop_process(proc: subprocess.Popen[bytes] | None, timeout: float = 30) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


# --------------------------------------------------------------------------------------------------- helpers
def topic_spec(partitions: int) -> dict[str, Any]:
    return {TOPIC: {"num_partitions": partitions, "replication_factor": 3, "configs": dict(TOPIC_CONFIGS)}}


def topic_bytes(dirs: list[Path], topic: str) -> int:
    """Bytes of ``topic``'s segments (.log files) in ``dirs``."""
    return sum(f.stat().st_size for d in dirs for f in d.glob(f"{topic}-*/*.log"))


def stop_cluster(c: Cluster | None) -> None:
    """Kill every process of ``c``: its data is thrown away (a clean stop of the source's combined voters can
    wait 90 s for a quorum that is gone)."""
    if c is None:
        return
    try:
        c.stop_all(kill=True)
    except BaseException:  # noqa: BLE001 - go on with the other clusters
        pass


def machine() -> dict[str, Any]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = build_info()
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "kvlog_crc32": info.get("crc32"), "kvlog_crc32c": info.get("crc32c"),
            "kvlog_cpu_features": info.get("cpu_features"), "kvlog_cpu_disabled": info.get("cpu_disabled"),
            "loadavg_start": os.getloadavg()}


def compare(reference: dict[str, Any], got: dict[str, Any], partitions: int, offsets: bool) -> list[str]:
    """What differs between the source's partitions and a target's: with ``offsets``, the log start, end and
    the (offset, key, value) digest; else the counts and the (key, value) digest."""
    bad = []
    for i in map(str, range(partitions)):
        r, g = reference["partitions"][i], got["partitions"][i]
        keys = ("log_start", "end", "records", "digest", "digest_offsets") if offsets else ("records", "digest")
        for k in keys:
            if r[k] != g[k]:
                bad.append(f"partition {i}: {k} {g[k]} (source {r[k]})")
    return bad


# ---------------------------------------------------------------------------------------------------- routes
def kvlog_route(dist: KafkaDist, work: Path, source: Cluster, partitions: int, reader: dict[str, Any],
                helper: Helper, timeout: float, keep: bool = False) -> dict[str, Any]:
    target = Cluster(dist, work / "target-kvlog", log_dirs=1, controllers="separate")
    bak = work / "backup"
    try:
        log("kvlog route: starting the fresh target cluster (not timed)")
        target.start()
        phases: dict[str, float] = {}
        source_dirs = [d for i in source.broker_ids for d in source.data_dirs(i)]
        log("kvlog route: clock starts: backup")
        t_start = time.time()
        t = time.monotonic()
        b = backup([str(d) for d in source_dirs], str(bak), topics=[TOPIC])
        phases["backup"] = time.monotonic() - t
        if b.errors:
            raise RuntimeError(f"backup errors: {b.errors}")
        t = time.monotonic()
        with target.admin() as a:
            a.create_topics(topic_spec(partitions))
        target.wait_in_sync([TOPIC])
        phases["create"] = time.monotonic() - t
        t = time.monotonic()
        target.stop_brokers(*target.broker_ids)  # the brokers, cleanly; the controller runs on (docs/backup.md)
        phases["stop"] = time.monotonic() - t
        t = time.monotonic()
        per_broker = {}
        placed = {}
        for i in target.broker_ids:
            t1 = time.monotonic()
            r = restore(str(bak), target.data_dirs(i)[0], metadata_dir=target.meta_dir(i), topics=[TOPIC])
            per_broker[i] = round(time.monotonic() - t1, 3)
            placed[i] = sorted(r.partitions)
            for w in r.warnings:
                log(f"restore broker {i}: warning: {w}")
        phases["restore"] = time.monotonic() - t
        t = time.monotonic()
        target.start_brokers(*target.broker_ids)
        phases["start"] = time.monotonic() - t
        t = time.monotonic()
        tail = helper.run({"op": "tail", "bootstrap": target.bootstrap, "topic": TOPIC, "partitions": partitions,
                           "timeout_s": int(timeout)}, timeout)
        phases["served"] = time.monotonic() - t
        served = tail["done_ms"] / 1000 - t_start
        t = time.monotonic()
        got = helper.run(dict(reader, bootstrap=target.bootstrap), timeout)
        phases["read"] = time.monotonic() - t
        total = got["done_ms"] / 1000 - t_start
        log(f"kvlog route: every partition's last record served after {served:.1f} s, every record read after "
            f"{total:.1f} s")
        return {"seconds": total, "served_seconds": served, "tail": tail["last"], "phases": phases,
                "restore_per_broker": per_broker, "placed": placed,
                "backup": {"bytes_copied": b.bytes_copied, "files_copied": b.files_copied,
                           "partitions": b.partitions},
                "read": got}
    finally:
        stop_cluster(target)
        if not keep:
            shutil.rmtree(target.root, ignore_errors=True)
            shutil.rmtree(bak, ignore_errors=True)


def mm2_properties(source: Cluster, target: Cluster, partitions: int) -> str:
    props = {
        "clusters": "src, dst",
        "src.bootstrap.servers": source.bootstrap,
        "dst.bootstrap.servers": target.bootstrap,
        "src->dst.enabled": "true",
        "src->dst.topics": TOPIC,
        "dst->src.enabled": "false",
        "dst->src.emit.heartbeats.enabled": "false",
        "tasks.max": str(partitions),
        "replication.factor": "3",
        "checkpoints.topic.replication.factor": "3",
        "heartbeats.topic.replication.factor": "3",
        "offset-syncs.topic.replication.factor": "3",
        "offset.storage.replication.factor": "3",
        "status.storage.replication.factor": "3",
        "config.storage.replication.factor": "3",
        "sync.topic.acls.enabled": "false",
        # as its log advises: no class-path scan for Connect plugins (seconds of its startup); "dst." makes it
        # the worker's setting too (MirrorMakerConfig.workerConfig takes the target cluster's keys)
        "plugin.discovery": "service_load",  # MirrorMaker's own Plugins (read from the top-level keys)
        "dst.plugin.discovery": "service_load",
        "refresh.topics.interval.seconds": "5",
        "refresh.groups.interval.seconds": "60",
        "dst.producer.compression.type": "lz4",
        "dst.producer.linger.ms": "20",
        "dst.producer.batch.size": "262144",
    }
    return "".join(f"{k} = {v}\n" for k, v in props.items())


def mm2_log_marks(text: str) -> dict[str, int]:
    """Milliseconds since MirrorMaker's JVM start (slf4j-simple's default time stamp) of its milestones."""
    marks: dict[str, int] = {}
    patterns = {"mirrormaker_started": r"Kafka MirrorMaker started",
                "source_task_started": r"MirrorSourceConnector-\d+\}? ?Source task finished initialization"}
    for line in text.splitlines():
        m = re.match(r"(\d+) ", line)
        if not m:
            continue
        for name, pat in patterns.items():
            if name not in marks and re.search(pat, line):
                marks[name] = int(m.group(1))
    return marks


def mm2_route(dist: KafkaDist, mirror: Path, work: Path, source: Cluster, partitions: int,
              reader: dict[str, Any], helper: Helper, timeout: float, keep: bool = False) -> dict[str, Any]:
    target = Cluster(dist, work / "target-mm2", log_dirs=1, controllers="separate")
    mm2: subprocess.Popen[bytes] | None = None
    consumer: subprocess.Popen[bytes] | None = None
    mm2_dir = work / "mm2"
    mm2_dir.mkdir(parents=True, exist_ok=True)
    try:
        log("MirrorMaker 2 route: starting the fresh target cluster (not timed)")
        target.start()
        props = mm2_dir / "mm2.properties"
        props.write_text(mm2_properties(source, target, partitions))
        exe = java()
        assert exe is not None
        cmd = [exe, "-Xms256m", "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
               "-Dorg.slf4j.simpleLogger.logFile=System.out", "-Dorg.slf4j.simpleLogger.showDateTime=true",
               "-cp", f"{mirror}/*", "org.apache.kafka.connect.mirror.MirrorMaker", str(props),
               "--clusters", "dst"]
        out = open(mm2_dir / "mm2.log", "wb")
        log("MirrorMaker 2 route: clock starts: MirrorMaker and the consumer")
        t_start = time.time()
        mm2 = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        consumer, ans = helper.start(dict(reader, bootstrap=target.bootstrap))
        deadline = time.monotonic() + timeout
        while consumer.poll() is None:
            if mm2.poll() is not None:
                raise RuntimeError(f"MirrorMaker exited ({mm2.returncode}): see {mm2_dir / 'mm2.log'}:\n"
                                   + (mm2_dir / "mm2.log").read_text(errors="replace")[-4000:])
            if time.monotonic() > deadline:
                raise RuntimeError(f"MirrorMaker route took more than {timeout} s")
            time.sleep(0.1)
        got = helper.finish(consumer, ans, timeout)
        total = got["done_ms"] / 1000 - t_start
        log(f"MirrorMaker 2 route: {total:.1f} s")
        stop_process(mm2)
        marks = mm2_log_marks((mm2_dir / "mm2.log").read_text(errors="replace"))
        phases = {"startup": got["topic_found_ms"] / 1000 - t_start,
                  "first": got["first_record_ms"] / 1000 - got["topic_found_ms"] / 1000,
                  "replicate": got["done_ms"] / 1000 - got["topic_found_ms"] / 1000}
        return {"seconds": total, "phases": phases, "log_marks_ms": marks, "read": got,
                "properties": props.read_text()}
    finally:
        stop_process(consumer)
        stop_process(mm2)
        stop_cluster(target)
        if not keep:
            shutil.rmtree(target.root, ignore_errors=True)


# ------------------------------------------------------------------------------------------------------ main
def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    dist = KafkaDist.find(KAFKA_VERSION)
    mirror = JARS / MIRROR
    if dist is None or not (mirror / ".complete").is_file():
        raise SystemExit(f"needs Kafka {KAFKA_VERSION}'s and MirrorMaker's jars in {JARS}: "
                         f"tools/kafka-oracle/fetch.sh {JARS} {KAFKA_VERSION} {MIRROR}")
    result: dict[str, Any] = {"machine": machine(), "kafka": KAFKA_VERSION, "mirrormaker": MIRROR.split("-")[1],
                              "params": {"records": args.records, "partitions": args.partitions,
                                         "value_bytes": args.value_bytes, "trim": args.trim, "dir": str(work)}}
    helper = Helper(dist, work)
    source = Cluster(dist, work / "source", size=3, log_dirs=2)
    try:
        log(f"source: starting 3 brokers under {work}")
        source.start()
        with source.admin() as a:
            a.create_topics(topic_spec(args.partitions))
        source.wait_in_sync([TOPIC])
        log(f"source: producing {args.records} records")
        produced = helper.run({"op": "produce", "bootstrap": source.bootstrap, "topic": TOPIC,
                               "partitions": args.partitions, "records": args.records,
                               "value_bytes": args.value_bytes, "trim": args.trim}, args.timeout)
        source.wait_in_sync([TOPIC])
        # samples: partition 0's and the last partition's first, middle and last record left: record seq went to
        # partition seq % P, at offset seq // P there (the reference read says where they really are)
        samples = []
        for i in sorted({0, args.partitions - 1}):
            start, end = produced["log_start"][str(i)], len(range(i, args.records, args.partitions))
            samples += [off * args.partitions + i for off in sorted({start, (start + end) // 2, end - 1})
                        if start <= off < end]
        log(f"source: {produced['records']} records in {produced['seconds']:.1f} s; reading it once (reference)")
        reference = helper.run({"op": "read", "bootstrap": source.bootstrap, "topic": TOPIC,
                                "partitions": args.partitions, "records": args.records,
                                "timeout_s": int(args.timeout), "samples": samples}, args.timeout)
        reader = {"op": "read", "topic": TOPIC, "partitions": args.partitions, "records": args.records,
                  "timeout_s": int(args.timeout), "samples": samples,
                  "expect": {str(i): reference["partitions"][str(i)]["records"] for i in range(args.partitions)}}
        src_dirs = [d for i in source.broker_ids for d in source.data_dirs(i)]
        result["source"] = {"produced": produced, "records": sum(p["records"] for p in
                                                                   reference["partitions"].values()),
                            "segment_bytes_all_replicas": topic_bytes(src_dirs, TOPIC),
                            "partitions": reference["partitions"], "samples": reference["samples"]}

        result["kvlog"] = kvlog_route(dist, work, source, args.partitions, reader, helper, args.timeout,
                                      args.keep)
        result["kvlog"]["mismatch"] = compare(reference, result["kvlog"]["read"], args.partitions, offsets=True)

        mm2_reader = dict(reader, topic=MIRRORED)
        result["mm2"] = mm2_route(dist, mirror, work, source, args.partitions, mm2_reader, helper, args.timeout,
                                 args.keep)
        result["mm2"]["mismatch"] = compare(reference, result["mm2"]["read"], args.partitions, offsets=False)
    finally:
        stop_cluster(source)
    result["ratio_mm2_over_kvlog"] = result["mm2"]["seconds"] / result["kvlog"]["seconds"]
    result["ratio_mm2_over_kvlog_served"] = result["mm2"]["seconds"] / result["kvlog"]["served_seconds"]
    ends = {i: reference["partitions"][i]["end"] - 1 for i in map(str, range(args.partitions))}
    if result["kvlog"]["tail"] != ends:
        result["kvlog"]["mismatch"].append(f"last records served at {result['kvlog']['tail']}, the source's at {ends}")
    result["machine"]["loadavg_end"] = os.getloadavg()
    return result


def report(r: dict[str, Any]) -> None:
    m, p = r["machine"], r["params"]
    print(f"machine: {m['cpu']}, {m['cores']} cores; kvlog crc32 {m['kvlog_crc32']}, crc32c {m['kvlog_crc32c']}, "
          f"cpu features {','.join(m['kvlog_cpu_features'] or [])} (disabled: {m['kvlog_cpu_disabled'] or 'none'}); "
          f"load average {m['loadavg_start'][0]:.2f} at start, {m['loadavg_end'][0]:.2f} at end")
    s = r["source"]
    per_replica = s["segment_bytes_all_replicas"] / 3
    print(f"source: Kafka {r['kafka']}, 3 brokers x 2 log dirs; topic {TOPIC}: {p['partitions']} partitions, RF 3, "
          f"lz4; {s['produced']['records']} records produced ({s['produced']['bytes'] / 1e6:.1f} MB of keys and "
          f"values, {s['produced']['seconds']:.1f} s), the first {p['trim']:.0%} of each partition deleted: "
          f"{s['records']} records, {per_replica / 1e6:.1f} MB of segments a replica; work dir under {p['dir']}")
    k, mm = r["kvlog"], r["mm2"]
    kp = k["phases"]
    print(f"kvlog backup + restore: {k['seconds']:.1f} s = " + " + ".join(f"{n} {v:.1f}" for n, v in kp.items())
          + f" (restore per broker: {', '.join(f'{v:.1f}' for v in k['restore_per_broker'].values())} s; "
          f"backup copied {k['backup']['bytes_copied'] / 1e6:.1f} MB)")
    mp = mm["phases"]
    marks = ", ".join(f"{n} at {v / 1000:.1f} s" for n, v in mm["log_marks_ms"].items())
    print(f"MirrorMaker 2 ({r['mirrormaker']}): {mm['seconds']:.1f} s = startup {mp['startup']:.1f} (to "
          f"{MIRRORED} on the target) + replicate {mp['replicate']:.1f} (first record after {mp['first']:.1f})"
          + (f"; its log: {marks}" if marks else ""))
    print(f"kvlog: every partition's last record served at its offset after {k['served_seconds']:.1f} s (the "
          f"restored cluster serves every record from then on); the full read done after {k['seconds']:.1f} s")
    print(f"ratio MirrorMaker 2 / kvlog: {r['ratio_mm2_over_kvlog_served']:.2f}x until every record is served, "
          f"{r['ratio_mm2_over_kvlog']:.2f}x until a consumer has read every record (target >= 5x); MirrorMaker's "
          "consumer reads as records arrive, so its read ends with its replication")
    kd = sum(v["duplicates"] for v in k["read"]["partitions"].values())
    md = sum(v["duplicates"] for v in mm["read"]["partitions"].values())
    print(f"check kvlog: {'every record at its original offset, log starts and ends equal' if not k['mismatch'] else k['mismatch']}"
          f"{f'; {kd} duplicates' if kd else ''}")
    print(f"check MirrorMaker 2: {'every record, per partition (keys and values)' if not mm['mismatch'] else mm['mismatch']}"
          f"; {md} duplicates; offsets CHANGED: its partitions start at "
          f"{sorted({v['log_start'] for v in mm['read']['partitions'].values()})}, the source's at "
          f"{sorted({v['log_start'] for v in s['partitions'].values()})}")
    print("offsets of sample records (key: source / kvlog-restored / MirrorMaker):")
    n = len(s["samples"])
    for key in list(sorted(s["samples"], key=int))[: min(n, 9)]:
        print(f"  k{int(key):012d} (partition {int(key) % p['partitions']}): {s['samples'][key]} / "
              f"{k['read']['samples'].get(key)} / {mm['read']['samples'].get(key)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=3_000_000)
    ap.add_argument("--partitions", type=int, default=6)
    ap.add_argument("--value-bytes", type=int, default=100)
    ap.add_argument("--trim", type=float, default=0.1, help="fraction of each partition deleted before the run")
    ap.add_argument("--dir", default=None, help="where the temporary working directory goes (default: $TMPDIR)")
    ap.add_argument("--keep", action="store_true", help="keep the working directory (logs)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds for one produce, read or route")
    ap.add_argument("--json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kvlog-dr-", dir=args.dir))
    t0 = time.monotonic()
    status = 1
    try:
        r = run(args, work)
        r["bench_seconds"] = time.monotonic() - t0
        report(r)
        print(f"(the whole benchmark took {r['bench_seconds']:.0f} s)")
        if args.json:
            Path(args.json).write_text(json.dumps(r, indent=1, default=str))
        status = 0 if not r["kvlog"]["mismatch"] and not r["mm2"]["mismatch"] else 2
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    try:
        code = main()
    except SystemExit as e:  # --help, or a missing jar's message
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except BaseException:  # noqa: BLE001 - printed, then the same exit as a failure
        import traceback

        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # kafka-python's network threads must not hold the exit
