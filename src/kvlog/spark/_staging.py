"""Staged appends: Spark tasks encode batches into private files; one driver-side commit makes them visible.

A task never touches a log. It routes its rows (Kafka's default partitioner for rows without a partition),
encodes them with the record kernels and writes one file per (topic, partition) under
``<root>/.kvlog-staging/<job>/<task>``. The commit writes a manifest naming every staged file and each
target log's end offset *before* appending, then appends file by file and removes the job directory. A
manifest left by a crash is rolled forward by the next commit (or :func:`recover`): a log whose end offset
still equals the recorded one gets its files, a log already past it is done. So a failed job leaves nothing
visible, and a commit interrupted half way completes exactly once.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kvlog import _io, storage
from kvlog._core.partitioner import partition_many
from kvlog.errors import ConfigError, DirectoryNotFoundError, KvlogError, LogLockedError
from kvlog.manager import LogManager, validate_topic_name
from kvlog.records import MemoryRecords, encode_arrays, now_ms
from kvlog.records.record import DEFAULT_MAX_BATCH_BYTES, V2_HEADER_SIZE
from kvlog.spark import _remote
from kvlog.spark._plan import lowered
from kvlog.topic_configs import INTERNAL_TOPICS

STAGING = ".kvlog-staging"
MANIFEST = "_COMMIT.json"
SINKS = ".kvlog-sinks"


@dataclass
class StagedFile:
    topic: str
    partition: int
    path: str
    records: int


@dataclass
class SinkPlan:
    """What every task needs to route rows, fixed on the driver when the write is planned."""

    root: str
    job: str
    topic_option: str | None
    partition_counts: dict[str, int]
    default_partitions: int
    compression: str
    overwrite: bool = False
    input_columns: tuple[str, ...] = ()
    staged: list[StagedFile] = field(default_factory=list)
    #: per existing topic, the largest batch its log accepts: min(segment.bytes, max.message.bytes)
    batch_limits: dict[str, int] = field(default_factory=dict)
    #: typed keys and values: their encoders (kvlog.spark.typed_sink), applied before routing
    typed: Any = None

    def partitions_of(self, topic: str) -> int:
        return self.partition_counts.get(topic, self.default_partitions)

    def max_batch_bytes(self, topic: str) -> int:
        """The uncompressed size a task closes ``topic``'s batches at: 1 MiB, or less where the topic's
        segment.bytes or max.message.bytes is smaller (Kafka refuses a batch above either), with room for a
        codec's framing of incompressible records."""
        limit = self.batch_limits.get(topic, DEFAULT_MAX_BATCH_BYTES + 12)
        return max(V2_HEADER_SIZE, min(DEFAULT_MAX_BATCH_BYTES, limit - limit // 64 - 64))


# ---------------------------------------------------------------------------------------- planning
KAFKA_SINK_COLUMNS = ("key", "value", "topic", "partition", "headers", "timestamp")


def _sink_topic(name: str) -> None:
    """A topic the sink may write: a legal name, and not one of Kafka's internal topics (a broker refuses
    produce requests to them; rows appended to ``__cluster_metadata`` or ``__consumer_offsets`` as records
    of an ordinary topic would corrupt the cluster's metadata or its consumer positions)."""
    validate_topic_name(name)
    if name in INTERNAL_TOPICS:
        raise ConfigError(f"the kvlog sink does not write to the internal topic {name!r}: Kafka's brokers refuse "
                          "produce requests to internal topics, and rows written there as an ordinary topic's "
                          "records would corrupt it")


def plan(root: str, options: Mapping[str, str], columns: Iterable[str], overwrite: bool, job: str | None = None) -> SinkPlan:
    opts = lowered(options)
    cols = tuple(columns)
    if "value" not in cols:
        raise ConfigError("the kvlog sink needs a 'value' column (binary or string), as Spark's Kafka sink does")
    topic_option = opts.get("topic")
    if topic_option is not None:
        _sink_topic(topic_option)
    elif "topic" not in cols:
        raise ConfigError("give the target topic with option('topic', ...) or a 'topic' column")
    try:
        default_partitions = int(opts.get("partitions", 1))
    except ValueError:
        raise ConfigError(f"option partitions must be a positive integer, got {opts.get('partitions')!r}") from None
    if default_partitions < 1:
        raise ConfigError("option partitions must be a positive integer")
    compression = str(opts.get("compression", opts.get("kafka.compression.type", "none")))
    counts: dict[str, int] = {}
    limits: dict[str, int] = {}
    remote = storage.is_remote(root)
    if remote or os.path.isdir(root):
        try:
            with LogManager(root, read_only=True) as mgr:
                # rows are routed by the topic's partition count: its highest partition here + 1 (a copy of a
                # broker's directory may lack some; rows routed to one of those are refused at commit)
                counts = {t: mgr.partitions(t)[-1] + 1 for t in mgr.topics()}
                written = [topic_option] if topic_option is not None else list(counts)
                for t in written:
                    if t in counts and t not in INTERNAL_TOPICS:  # (the sink refuses internal topics)
                        cfg = mgr.topic_config(t)
                        limits[t] = min(cfg.segment_bytes, cfg.max_message_bytes)
        except DirectoryNotFoundError:
            if not remote:
                raise
    from kvlog.spark.typed_sink import typed_sink

    root = root if remote else os.path.abspath(root)
    typed = typed_sink(root, options, topic_option)
    return SinkPlan(root, job or uuid.uuid4().hex, topic_option, counts, default_partitions, compression,
                    overwrite, cols, batch_limits=limits, typed=typed)


# ----------------------------------------------------------------------------------------- staging
def _binary_column(batch: pa.RecordBatch, name: str) -> pa.Array | None:
    if name not in batch.schema.names:
        return None
    col = batch.column(name)
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        return col.cast(pa.binary() if pa.types.is_string(col.type) else pa.large_binary())
    if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type) or pa.types.is_null(col.type):
        return col
    raise ConfigError(f"column {name!r} must be binary or string, not {col.type}")


def _hash_partitions(col: pa.Array | None, n: int, counts: int) -> np.ndarray:
    """``toPositive(murmur2(bytes)) % counts`` per row of a binary column (null and absent: empty bytes)."""
    if col is None or pa.types.is_null(col.type):
        col = pa.nulls(n, pa.binary())
    if col.null_count:
        col = pc.fill_null(col, pa.scalar(b"", col.type))
    width = np.int64 if pa.types.is_large_binary(col.type) else np.int32
    bufs = col.buffers()
    offs = np.frombuffer(bufs[1], dtype=width)[col.offset: col.offset + n + 1]
    data = bufs[2] if bufs[2] is not None else b""
    out: np.ndarray = partition_many(offs, data, n, counts)
    return out


def _route(batch: pa.RecordBatch, p: SinkPlan) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per row: topic index and partition: explicit, else murmur2 of the key, else (a null key) murmur2 of the
    value. A rule of the row alone, so a retried task routes every row as its first attempt did (the JVM sink
    routes the same way)."""
    n = batch.num_rows
    if p.topic_option is not None:
        topics = [p.topic_option]
        topic_idx = np.zeros(n, dtype=np.int32)
    else:
        col = batch.column("topic")
        if col.null_count:
            raise ConfigError("the 'topic' column holds a null; every row needs a topic (or set option topic)")
        enc = pc.dictionary_encode(col)
        topics = [str(t) for t in enc.dictionary.to_pylist()]
        for t in topics:
            _sink_topic(t)
        topic_idx = enc.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    counts = np.array([p.partitions_of(t) for t in topics], dtype=np.int64)
    n_parts = counts[topic_idx]
    parts = np.full(n, -1, dtype=np.int64)
    if "partition" in batch.schema.names:
        col = batch.column("partition")
        if not pa.types.is_integer(col.type) and not pa.types.is_null(col.type):
            raise ConfigError(f"column 'partition' must be an int, not {col.type}")
        given = pc.fill_null(col.cast(pa.int64()), -1).to_numpy(zero_copy_only=False)
        bad = (given != -1) & ((given < 0) | (given >= n_parts))
        if bad.any():
            i = int(np.argmax(bad))
            raise ConfigError(f"row {i}: partition {int(given[i])} does not exist in topic {topics[topic_idx[i]]} "
                              f"({int(n_parts[i])} partitions)")
        parts = given.astype(np.int64)
    todo = parts < 0
    if todo.any():
        keys = _binary_column(batch, "key")
        if keys is not None and not pa.types.is_null(keys.type) and keys.null_count < n:
            # rows with a key hash it; rows without hash their value
            keyed = keys.is_valid().to_numpy(zero_copy_only=False)
            if not keyed.all():
                values = _binary_column(batch, "value")
                assert values is not None  # plan() refuses a sink without a value column
                keys = pc.if_else(pa.array(keyed), keys, values.cast(keys.type))
        else:
            keys = _binary_column(batch, "value")
        for t in np.unique(topic_idx[todo]):
            rows = todo & (topic_idx == t)
            parts[rows] = _hash_partitions(keys, n, int(counts[t]))[rows]
    return topic_idx, parts, topics


def _timestamps_ms(batch: pa.RecordBatch) -> np.ndarray | None:
    """The optional ``timestamp`` column in epoch ms (a double is seconds, as Spark casts it); null → now."""
    if "timestamp" not in batch.schema.names:
        return None
    ts = batch.column("timestamp")
    if pa.types.is_timestamp(ts.type):
        ms = pc.cast(ts, pa.timestamp("ms", tz=ts.type.tz), safe=False).view(pa.int64())
    elif pa.types.is_floating(ts.type) or pa.types.is_integer(ts.type):
        ms = pc.cast(pc.floor(pc.multiply(ts.cast(pa.float64()), 1000.0)), pa.int64(), safe=False)
    elif pa.types.is_null(ts.type):
        return None
    else:
        raise ConfigError(f"column 'timestamp' must be a timestamp or a double, not {ts.type}")
    out: np.ndarray = pc.fill_null(ms, now_ms()).to_numpy(zero_copy_only=False).astype(np.int64)
    return out


def _makedirs(path: str) -> None:
    """``os.makedirs`` that survives a commit removing the empty staging directory meanwhile."""
    for attempt in range(3):
        try:
            os.makedirs(path, mode=_io.DIR_MODE, exist_ok=True)
            return
        except FileNotFoundError:  # a parent went between makedirs' check and its mkdir
            if attempt == 2:
                raise


def _remove_staging_if_empty(root: str) -> None:
    """A finished commit leaves no ``.kvlog-staging`` behind; other jobs' files keep it."""
    try:
        os.rmdir(os.path.join(root, STAGING))
    except OSError:
        pass  # not empty (a running job, a tombstone) or already gone


STREAM_JOB_PREFIX = "stream-"


def stream_job(sink: str, batch_id: int) -> str:
    """A streaming micro-batch's job name. It is derived, not random, because Spark builds separate writers
    for the tasks and for the commit; so a restarted query's retry of a failed batch reuses the name."""
    return f"{STREAM_JOB_PREFIX}{sink}-{batch_id}"


def _tombstone_stamp(root: str, job: str) -> bytes | None:
    """The abort marker's token (each abort writes a new one; file times can be too coarse to tell)."""
    try:
        with open(_tombstone(root, job), "rb") as f:
            return f.read(64)
    except FileNotFoundError:
        return None


class _AbortWatch:
    """Whether the job this task belongs to was aborted. A batch job's name is unique, so any tombstone means
    this attempt; a micro-batch's name is reused by its retry, so only a tombstone that appeared (or was
    renewed) while this task ran counts, and an old one, left by a failed earlier attempt, does not."""

    def __init__(self, p: SinkPlan):
        self.root, self.job = p.root, p.job
        self.reused = p.job.startswith(STREAM_JOB_PREFIX)
        self.seen = _tombstone_stamp(p.root, p.job) if self.reused else None

    def aborted(self) -> bool:
        stamp = _tombstone_stamp(self.root, self.job)
        return stamp is not None and (not self.reused or stamp != self.seen)


def stage_batches(p: SinkPlan, batches: Iterable[pa.RecordBatch], task_dir: str) -> list[StagedFile]:
    """Encode the task's rows into one staging file per target (topic, partition); on an object store one
    upload each, which appears only once complete.

    On a local root the task's directory is made only when its first file is, after checking that the job
    was not aborted meanwhile: a task Spark is still starting when the job fails (its input already closed)
    then leaves nothing, and one that ran on through the abort removes its own files at the end."""
    remote = storage.is_remote(p.root)
    watch = None if remote else _AbortWatch(p)
    files: dict[tuple[str, int], Any] = {}
    paths: dict[tuple[str, int], str] = {}
    counts: dict[tuple[str, int], int] = {}
    try:
        for batch in batches:
            if batch.num_rows == 0:
                continue
            if p.typed is not None:
                batch = p.typed.encode(batch)
            topic_idx, parts, topics = _route(batch, p)
            order = np.lexsort((parts, topic_idx))
            key_t, key_p = topic_idx[order], parts[order]
            cuts = np.flatnonzero((np.diff(key_t) != 0) | (np.diff(key_p) != 0)) + 1
            sorted_batch = batch.take(pa.array(order)) if len(cuts) else batch
            if not len(cuts):
                order = np.arange(batch.num_rows)
            bounds = [0, *cuts.tolist(), batch.num_rows]
            values = _binary_column(sorted_batch, "value")
            assert values is not None  # plan() refuses a sink without a value column
            keys = _binary_column(sorted_batch, "key")
            headers = sorted_batch.column("headers") if "headers" in sorted_batch.schema.names else None
            stamps = _timestamps_ms(sorted_batch)
            for a, b in zip(bounds, bounds[1:]):
                tp = (topics[int(key_t[a])], int(key_p[a]))
                blob = encode_arrays(
                    keys.slice(a, b - a) if keys is not None else None,
                    values.slice(a, b - a),
                    stamps[a:b] if stamps is not None else None,
                    headers=headers.slice(a, b - a) if headers is not None else None,
                    compression=p.compression, max_batch_bytes=p.max_batch_bytes(tp[0]))
                f = files.get(tp)
                if f is None:
                    if remote:
                        paths[tp] = _remote.staging_path(p.root, p.job, task_dir, *tp)
                        f = files[tp] = _remote.open_staged(p.root, paths[tp])
                    else:
                        if not files:
                            assert watch is not None
                            if watch.aborted():
                                raise KvlogError(f"sink job {p.job} was aborted while this task ran; "
                                                 "it stages nothing")
                            _makedirs(task_dir)
                        paths[tp] = os.path.join(task_dir, f"{tp[0]}-{tp[1]}.batches")
                        f = files[tp] = open(paths[tp], "wb")
                f.write(blob)
                counts[tp] = counts.get(tp, 0) + (b - a)
        out = []
        for tp, f in files.items():
            if not remote:
                f.flush()
                os.fsync(f.fileno())
            f.close()
            out.append(StagedFile(tp[0], tp[1], paths[tp], counts[tp]))
        return out
    finally:
        for f in files.values():
            if not f.closed:
                f.close()
        if watch is not None and paths and watch.aborted():  # the job failed elsewhere while this task ran
            shutil.rmtree(task_dir, ignore_errors=True)
            try:
                os.rmdir(os.path.dirname(task_dir))
            except OSError:
                pass  # another late task still has files there


# ------------------------------------------------------------------------------------------ commit
LOCK_TIMEOUT_S = 120.0


def _manager(root: str, timeout: float = LOCK_TIMEOUT_S) -> LogManager:
    """The data directory opened for writing, waiting while another commit (or writer) holds it."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        try:
            return LogManager(root)
        except LogLockedError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def job_dir(root: str, job: str) -> str:
    return os.path.join(root, STAGING, job)


def _tombstone(root: str, job: str) -> str:
    return os.path.join(root, STAGING, f"{job}.aborted")


ABANDONED_AFTER_S = 24 * 3600


def commit(p: SinkPlan, staged: list[StagedFile], *, sink: str | None = None, batch_id: int | None = None) -> dict[str, Any]:
    """Make the staged files visible: manifest first, then the appends, then clean up."""
    root = p.root
    with _manager(root) as mgr:
        _roll_forward(mgr, root)
        if sink is not None and batch_id is not None and batch_id <= _last_batch(root, sink):
            shutil.rmtree(job_dir(root, p.job), ignore_errors=True)
            _forget_tombstone(root, p.job)
            _remove_staging_if_empty(root)
            return {"skipped": True, "batch_id": batch_id}
        topics = mgr.topics()
        targets = sorted({(s.topic, s.partition) for s in staged})
        for t in sorted({t for t, _ in targets} - set(topics)):
            mgr.create_topic(t, p.partitions_of(t))
        for t, part in targets:
            if part not in mgr.partitions(t):
                raise KvlogError(f"staged data for {t}-{part}, but {root} has no partition {part} of topic {t} "
                                 f"(it has {mgr.topics()[t]})")
        if p.overwrite:  # overwrite empties every partition of the written topics, not just those with rows
            written_topics = {t for t, _ in targets} | ({p.topic_option} if p.topic_option else set())
            for t in sorted(written_topics - set(mgr.topics())):
                mgr.create_topic(t, p.partitions_of(t))
            targets = sorted(set(targets) | {(t, i) for t in written_topics for i in mgr.partitions(t)})
        before = {f"{t}-{part}": mgr.log(t, part).log_end_offset for t, part in targets}
        manifest = {
            "job": p.job,
            "overwrite": p.overwrite,
            "sink": sink,
            "batch_id": batch_id,
            "before": before,
            "files": [[s.topic, s.partition, os.path.relpath(s.path, root), s.records] for s in staged],
        }
        jd = job_dir(root, p.job)
        _makedirs(jd)
        _io.fs.write_atomic(os.path.join(jd, MANIFEST), json.dumps(manifest).encode())
        result = _apply(mgr, root, manifest)
        shutil.rmtree(jd, ignore_errors=True)  # under the lock: a concurrent commit must not replay it
        _forget_tombstone(root, p.job)  # a micro-batch retried after a failed attempt: that attempt is over
        _remove_staging_if_empty(root)
    return result


def _appends(data: bytes, limit: int) -> Iterable[memoryview]:
    """A task's staged batches for one partition as appends of whole batches of at most ``limit`` bytes (the
    log's segment.bytes: Kafka refuses a larger append, and so does ``Log.append``); a batch larger on its own
    is an append of its own, which ``Log.append`` refuses as Kafka would."""
    if not data:
        return
    view = memoryview(data)
    headers = MemoryRecords(data).batch_headers(check_crc=False)
    start = end = 0
    for pos, size in zip(headers["position"].tolist(), headers["size"].tolist()):
        if end > start and pos + size - start > limit:
            yield view[start:end]
            start = pos
        end = pos + size
    yield view[start:]


def _forget_tombstone(root: str, job: str) -> None:
    try:
        os.unlink(_tombstone(root, job))
    except FileNotFoundError:
        pass


def _apply(mgr: LogManager, root: str, manifest: dict[str, Any]) -> dict[str, Any]:
    by_tp: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for name in manifest["before"]:
        topic, _, part = name.rpartition("-")
        by_tp[(topic, int(part))] = []
    for topic, part, rel, records in manifest["files"]:
        by_tp.setdefault((topic, part), []).append((rel, records))
    written = {}
    for (topic, part), items in sorted(by_tp.items()):
        log = mgr.log(topic, part)
        expected = manifest["before"][f"{topic}-{part}"]
        if log.log_end_offset != expected:
            if log.log_end_offset == expected + sum(r for _, r in items):
                continue  # appended before a crash
            raise KvlogError(f"{topic}-{part} ends at {log.log_end_offset}, but a pending sink commit "
                             f"({manifest['job']}) expected {expected}; refusing to guess")
        if manifest["overwrite"] and log.log_end_offset > log.log_start_offset:
            log.delete_records(log.log_end_offset)
        first = log.log_end_offset
        missing = [rel for rel, _records in items if not os.path.exists(os.path.join(root, rel))]
        if missing:  # checked before any append: the partition keeps its end, and the error says so truly
            raise KvlogError(f"sink commit {manifest['job']}: its staged file {missing[0]} under {root} is gone "
                             f"({topic}-{part} still ends at {log.log_end_offset}; nothing of the job was "
                             "appended there)")
        for rel, _records in items:
            with open(os.path.join(root, rel), "rb") as f:
                data = f.read()
            for piece in _appends(data, log.config.segment_bytes):
                log.append(piece)
        log.flush()
        written[f"{topic}-{part}"] = [first, log.log_end_offset]
    if manifest.get("sink") is not None and manifest.get("batch_id") is not None:
        sinks = os.path.join(root, SINKS)
        os.makedirs(sinks, mode=_io.DIR_MODE, exist_ok=True)
        _io.fs.write_atomic(os.path.join(sinks, f"{manifest['sink']}.json"),
                            json.dumps({"last_batch_id": manifest["batch_id"]}).encode())
    return {"skipped": False, "written": written}


def _last_batch(root: str, sink: str) -> int:
    path = os.path.join(root, SINKS, f"{sink}.json")
    try:
        with open(path, encoding="utf-8") as f:
            return int(json.load(f)["last_batch_id"])
    except FileNotFoundError:
        return -1
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KvlogError(f"cannot read sink state {path}: {exc}") from None


def recover(root: str) -> int:
    """Roll forward every manifest a crashed commit left (the next commit does this too)."""
    if not os.path.isdir(os.path.join(root, STAGING)):
        return 0
    with _manager(root) as mgr:
        done = _roll_forward(mgr, root)
        _remove_staging_if_empty(root)
        return done


def _roll_forward(mgr: LogManager, root: str) -> int:
    staging = os.path.join(root, STAGING)
    done = 0
    now = time.time()
    for job in sorted(os.listdir(staging)) if os.path.isdir(staging) else ():
        path = os.path.join(staging, job, MANIFEST)
        if not os.path.exists(path):
            # no manifest: a job still running, an aborted one, or one whose driver died before its commit
            entry = os.path.join(staging, job)
            if (not job.endswith(".aborted") and not job.startswith(STREAM_JOB_PREFIX)
                    and os.path.exists(entry + ".aborted") and os.path.isdir(entry)):
                # an aborted batch job's files that a task killed with the job could not remove itself (a
                # micro-batch's name is reused by its retry, whose commit removes what the failed attempt left)
                shutil.rmtree(entry, ignore_errors=True)
                continue
            try:
                age = now - os.stat(entry).st_mtime
            except FileNotFoundError:
                continue
            if age > ABANDONED_AFTER_S or (job.endswith(".aborted") and age > 3600):
                if os.path.isdir(entry):
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    os.unlink(entry)
            continue
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
        _apply(mgr, root, manifest)
        shutil.rmtree(os.path.join(staging, job), ignore_errors=True)
        done += 1
    return done


def abort(root: str, job: str) -> None:
    """Forget a job's staged files (a failed or cancelled write); nothing of it was visible."""
    jd = job_dir(root, job)
    if os.path.exists(os.path.join(jd, MANIFEST)):
        return  # the commit already started: it must be rolled forward, not dropped
    for attempt in range(3):
        _makedirs(os.path.dirname(jd))
        try:
            # whole or not at all (a task reading it meanwhile must not take a partial token for another abort);
            # tasks still running when the job failed clean up after themselves
            _io.fs.write_atomic(_tombstone(root, job), uuid.uuid4().hex.encode())
            break
        except FileNotFoundError:  # a commit removed the empty staging directory meanwhile
            if attempt == 2:
                raise
    shutil.rmtree(jd, ignore_errors=True)
