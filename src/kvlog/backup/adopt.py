"""``kvlog adopt LOG_DIR PARTITION_DIR...``: partition directories kvlog wrote, made into ones a stopped Kafka
broker loads and serves as its own (``docs/broker-files.md``, "Serving what kvlog wrote").

A broker serves a partition directory as it is only when it agrees with the cluster's metadata; otherwise it
does something quietly (the broker tests saw each):

* **topic id**: ``partition.metadata`` must name the id the metadata gives the topic, and this broker must be a
  replica of the partition. Otherwise a KRaft broker renames the directory ``<topic>-<p>.<id>-stray`` and serves
  an empty log in its place. So the topic is created on the target cluster first; the id comes from the KRaft
  metadata (``--metadata-dir``, or the log directory's own ``__cluster_metadata-0``), ``--topic-id``, or the
  ``partition.metadata`` of the (empty) directory the broker created for it. A topic none of them knows is
  refused with that reason.
* **leader epochs**: a batch stamped with an epoch newer than the partition's current one is beyond what the
  leader knows (its followers truncate in a loop, KAFKA-18723). Batches above the partition's current epoch (the
  metadata's, else the one the broker's own ``leader-epoch-checkpoint`` of the directory holds, else 0) are
  lowered to it, and ``leader-epoch-checkpoint`` is written from the batches as Kafka's recovery would.
* **root checkpoints**: ``log-start-offset-checkpoint`` gets the log start (an entry past the end deletes every
  segment), ``replication-offset-checkpoint`` the log end (a stale high watermark below the log start makes the
  leader move it backwards: "Non-monotonic update of high watermark"), the recovery point is dropped (a crash
  later recovers the whole partition) and the cleaner's entry dropped (one outside the log is reset anyway).
* **producer state**: a producer snapshot at the log end, as Kafka's clean shutdown leaves one, so the broker
  loads exactly the state its recovery would rebuild (with no snapshot at all it would start empty).
* **the clean-shutdown marker** ``.kafka_cleanshutdown`` is kept: it carries the broker epoch, and a 4.x broker
  that registers without it is handled by the controller as having shut down uncleanly (every partition of the
  broker leaves its ISR and eligible replicas and is elected again, uncleanly: "handleBrokerUncleanShutdown",
  seen on 4.1.2 and 4.4.0). Kept, the broker loads the directories without recovering them; ``recover=True``
  removes it, so the broker recovers (checks and rebuilds) every log of the directory, with that side effect.

Everything is checked before anything is written: one refused partition refuses the whole call (exit 1), naming
each reason. A running broker is refused too (it holds a lock on ``LOG_DIR/.lock``).
"""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
import shutil
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kvlog import _files, _io, broker_files, checkpoint
from kvlog._core import records as _k
from kvlog.errors import ConfigError, KvlogError

__all__ = ["AdoptError", "AdoptResult", "AdoptedPartition", "TargetMetadata", "adopt", "broker_running",
           "cap_leader_epochs", "root_checkpoints", "target_metadata", "write_end_snapshot"]

KAFKA_LOCK = ".lock"  # the file a broker holds a lock on in every log directory while it runs
META_PROPERTIES = "meta.properties"
_CAP = 4096


class AdoptError(KvlogError):
    """Partition directories a broker would not serve as they are (the reasons are in the message)."""


# ------------------------------------------------------------------------------------------- the target
@dataclass
class TargetMetadata:
    """What the target cluster knows of its topics: ids by name, each partition's replicas and leader epoch
    (from the KRaft metadata; empty without it), and this broker's node id (``meta.properties``)."""

    topic_ids: dict[str, str] = field(default_factory=dict)
    partitions: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    node_id: int | None = None
    source: str | None = None  # the metadata directory read, if any


def _node_id(log_dir: str) -> int | None:
    props = read_properties(os.path.join(log_dir, META_PROPERTIES))
    for key in ("node.id", "broker.id"):
        value = (props or {}).get(key, "")
        if value.lstrip("-").isdigit():
            return int(value)
    return None


def read_properties(path: str) -> dict[str, str] | None:
    """A Java properties file's ``key=value`` lines; None when it does not exist."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    return broker_files.parse_properties(text)


def target_metadata(log_dir: str, metadata_dir: str | None = None) -> TargetMetadata:
    """The target's metadata: ``metadata_dir`` (a KRaft ``metadata.log.dir``, or any directory holding
    ``__cluster_metadata-0``), else ``log_dir``'s own ``__cluster_metadata-0`` (combined mode, one directory),
    else none (ZooKeeper mode, or a metadata directory elsewhere that was not given)."""
    out = TargetMetadata(node_id=_node_id(log_dir))
    where = metadata_dir
    if where is None and os.path.isdir(os.path.join(log_dir, f"{_files.CLUSTER_METADATA}-0")):
        where = log_dir
    if where is None:
        return out
    from kvlog.internal_topics.cluster_metadata import cluster_metadata, topic_id_text

    state = cluster_metadata(where)
    out.source = os.fspath(where)
    out.topic_ids = {name: topic_id_text(tid) for tid, name in state.topic_names.items()}
    for (tid, p), st in state.partition_state.items():
        name = state.topic_names.get(tid)
        if name is not None:
            out.partitions[(name, p)] = {"replicas": list(st.get("replicas") or []),
                                         "leader_epoch": int(st.get("leaderEpoch") or 0),
                                         # each replica's log directory id (JBOD, KRaft 3.7+), as replicas orders them
                                         "directories": [topic_id_text(u) for u in st.get("directories") or []]}
    if out.node_id is None and metadata_dir is not None:
        out.node_id = _node_id(os.fspath(metadata_dir))
    return out


def broker_running(log_dir: str) -> bool:
    """Whether a process holds the lock a Kafka broker takes on ``LOG_DIR/.lock`` while it runs (a POSIX
    record lock, which Java's ``FileChannel.tryLock`` takes on Linux)."""
    path = os.path.join(log_dir, KAFKA_LOCK)
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EACCES, errno.EAGAIN)
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------------ file-level changes
def _heads(path: str) -> np.ndarray:
    # mapped, not read: the scan touches only the pages holding batch headers (the files are kvlog's own, not yet
    # a broker's, so nothing truncates them under the map)
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return np.empty(0, _k.BATCH_DTYPE)
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            view = memoryview(m)
            try:
                return batch_heads(view, path)
            finally:
                view.release()


def batch_heads(data: bytes | memoryview, path: str, error: type[KvlogError] = KvlogError) -> np.ndarray:
    """Every batch header of a segment's bytes (``_k.scan``, CRCs unchecked), ``error`` on a damaged frame;
    shared with restore, which cuts backups at batch boundaries."""
    parts, pos = [], 0
    out = np.empty(_CAP, dtype=_k.BATCH_DTYPE)
    while pos < len(data):
        count, nxt, status, err = _k.scan(data, pos, len(data), out, False, False)
        parts.append(out[:count].copy())
        if err is not None:
            raise error(f"{path}: {err}")
        if status != _k.FULL:
            break
        pos = nxt
    return np.concatenate(parts) if parts else np.empty(0, _k.BATCH_DTYPE)


def segment_bases(directory: str) -> list[int]:
    return sorted(_files.offset_from_name(n) for n in os.listdir(directory)
                  if n.endswith(_files.LOG) and _files.is_offset_name(n))


def cap_leader_epochs(directory: str, cap: int, log_start: int, *, write: bool = True) -> tuple[int, list[tuple[int, int]]]:
    """Lower every v2 batch's partition leader epoch above ``cap`` to ``cap`` (the field lies outside the CRC)
    and write ``leader-epoch-checkpoint`` from the batches as Kafka's recovery builds it (a newer epoch starts at
    its first batch; the entries are then cut to the log start). Returns (batches lowered, entries)."""
    cache = broker_files.LeaderEpochCache()
    lowered = 0
    for base in segment_bases(directory):
        path = _files.segment_path(directory, base, _files.LOG)
        heads = _heads(path)
        if not len(heads):
            continue
        epochs = heads["partition_leader_epoch"].copy()
        over = (heads["magic"] == 2) & (epochs > cap)
        if over.any():
            lowered += int(over.sum())
            if write:
                fd = os.open(path, os.O_WRONLY)
                try:
                    for pos in heads["position"][over].tolist():
                        os.pwrite(fd, int(cap).to_bytes(4, "big", signed=True), int(pos) + 12)
                finally:
                    os.close(fd)
            epochs[over] = cap
        cache.apply_batches(heads["magic"], epochs, heads["base_offset"])
    cache.truncate_from_start(log_start)
    if write:
        _io.fs.write_atomic(os.path.join(directory, broker_files.LEADER_EPOCH_CHECKPOINT),
                            broker_files.format_leader_epochs(cache.entries))
    return lowered, list(cache.entries)


def write_end_snapshot(directory: str, *, producers: bool = True) -> str | None:
    """The producer snapshot Kafka's clean shutdown leaves at a log's end (``<end>.snapshot``), written unless one
    is there already; snapshots past the end are deleted. With it, a broker that loads the directory without
    recovering it (the clean-shutdown marker present) has exactly the producer state its recovery would rebuild;
    with no snapshot at all it would start with none.

    ``producers=False``: no producer state at all. Every snapshot goes and an empty one is written at the end, so
    such a broker starts with no producer known: for a log moved into another cluster, whose producer id manager
    hands out the same ids to other producers (a restored entry for id 0 makes the first appends of the target's
    producer 0 fail with OUT_OF_ORDER_SEQUENCE_NUMBER, as the broker tests saw). Returns the path written, or
    None."""
    from kvlog.log import Log
    from kvlog.producer_state import encode_snapshot

    with Log.open(directory, read_only=True) as log:
        end = log.log_end_offset
        start = log.log_start_offset
        psm = log.producer_state
        latest = psm.latest_snapshot_offset()
        entries = [psm.producers[p] for p in sorted(psm.producers)] if producers else []
    for name in os.listdir(directory):
        if name.endswith(_files.SNAPSHOT) and _files.is_offset_name(name) and (
                _files.offset_from_name(name) > end or not producers):
            os.unlink(os.path.join(directory, name))
    if producers and (end <= start or (latest is not None and latest >= end)):
        return None
    if not producers and end <= start:
        return None
    path = _files.segment_path(directory, end, _files.SNAPSHOT)
    _io.fs.write_atomic(path, encode_snapshot(entries))
    return path


def root_checkpoints(log_dir: str, ranges: Mapping[tuple[str, int], tuple[int, int]],
                     cleaner: Mapping[tuple[str, int], int | None] | None = None) -> None:
    """The root checkpoints of partitions placed in ``log_dir`` with ``(log start, log end)``: the log start
    offset set, the high watermark at the end (every record placed is committed), the recovery point dropped,
    the cleaner's progress as ``cleaner`` gives it (clamped to the range) or dropped."""
    cleaner = cleaner or {}
    starts: dict[tuple[str, int], int | None] = {}
    ends: dict[tuple[str, int], int | None] = {}
    points: dict[tuple[str, int], int | None] = {}
    cleaned: dict[tuple[str, int], int | None] = {}
    for key, (start, end) in ranges.items():
        starts[key] = start
        ends[key] = end
        points[key] = None
        got = cleaner.get(key)
        cleaned[key] = None if got is None else max(min(got, end), start)
    checkpoint.update_offsets(os.path.join(log_dir, checkpoint.LOG_START_OFFSET), starts)
    checkpoint.update_offsets(os.path.join(log_dir, checkpoint.REPLICATION_OFFSET), ends)
    for name, changes in ((checkpoint.RECOVERY_POINT, points), (checkpoint.CLEANER_OFFSET, cleaned)):
        path = os.path.join(log_dir, name)
        if os.path.exists(path) or any(v is not None for v in changes.values()):
            checkpoint.update_offsets(path, changes)


# ----------------------------------------------------------------------------------------------- adopt
@dataclass
class AdoptedPartition:
    topic: str
    partition: int
    source: str
    path: str  # where it is now (LOG_DIR/<topic>-<p>)
    topic_id: str
    topic_id_from: str  # "topic-id", "metadata", "target" (the broker's own partition.metadata)
    log_start_offset: int
    end_offset: int
    leader_epoch_cap: int
    epochs_lowered: int = 0
    leader_epochs: list[tuple[int, int]] = field(default_factory=list)
    snapshot: str | None = None
    in_place: bool = False


@dataclass
class AdoptResult:
    log_dir: str
    partitions: dict[str, AdoptedPartition] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    dry_run: bool = False
    recover: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"log_dir": self.log_dir, "dry_run": self.dry_run, "recover": self.recover,
                "partitions": {k: vars(v) for k, v in self.partitions.items()}, "refused": dict(self.refused),
                "warnings": list(self.warnings)}


@dataclass
class _Plan:
    label: str
    topic: str
    partition: int
    source: str
    target: str
    in_place: bool
    topic_id: str
    id_from: str
    start: int
    end: int
    cap: int
    cleaner: int | None


def _has_records(directory: str) -> bool:
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return False
    return any(n.endswith(_files.LOG) and _files.is_offset_name(n) and os.path.getsize(os.path.join(directory, n))
               for n in names)


def _stored_latest_epoch(directory: str) -> int | None:
    path = os.path.join(directory, broker_files.LEADER_EPOCH_CHECKPOINT)
    try:
        entries = broker_files.read_leader_epochs(path)
    except (FileNotFoundError, KvlogError):
        return None
    return entries[-1][0] if entries else None


def read_extent(source: str, refused: dict[str, str]) -> tuple[int, int, int] | None:
    """A kvlog-written partition's (log start, log end, last stable offset), read-only; None with the reason in
    ``refused`` when kvlog cannot read it or it is damaged."""
    from kvlog.log import Log

    try:
        with Log.open(source, read_only=True) as log:
            extent = (log.log_start_offset, log.log_end_offset, log.last_stable_offset)
            damage = [str(d) for d in log.damage]
    except KvlogError as exc:
        refused[source] = f"kvlog cannot read it: {exc}"
        return None
    if damage:
        refused[source] = f"it is damaged ({damage[0]}): run kvlog verify / kvlog repair first"
        return None
    return extent


def _plan(log_dir: str, source: str, meta: TargetMetadata, given: Mapping[str, str], force: bool,
          refused: dict[str, str]) -> _Plan | None:

    name = os.path.basename(os.path.normpath(source))
    tp = _files.parse_partition_dir(name)
    if tp is None:
        refused[source] = (f"{name!r} is not a partition directory name (<topic>-<partition>): a broker would refuse "
                           "to start on it")
        return None
    topic, p = tp
    if topic == _files.CLUSTER_METADATA:
        refused[source] = f"{_files.CLUSTER_METADATA} is the cluster's own metadata log: never adopted"
        return None
    if not os.path.isdir(source):
        refused[source] = "no such directory"
        return None
    target = os.path.join(log_dir, name)
    in_place = os.path.realpath(source) == os.path.realpath(target)
    extent = read_extent(source, refused)
    if extent is None:
        return None
    start, end, _stable = extent
    # the topic id: the metadata's, given, or the one the broker wrote when it created the topic's directory
    try:
        existing = broker_files.read_partition_metadata(target) if os.path.isdir(target) else None
    except KvlogError:
        existing = None
    meta_id = meta.topic_ids.get(topic)
    if topic in given:
        tid, id_from = given[topic], "topic-id"
    elif meta_id is not None:
        tid, id_from = meta_id, "metadata"
    elif existing is not None:
        tid, id_from = existing, "target"
    else:
        refused[source] = (f"topic {topic!r} is unknown to the target (no --topic-id, no KRaft metadata naming it, "
                           f"no partition.metadata in {target}): a broker would rename the directory "
                           f"{name}.<id>-stray and serve an empty log; create the topic on the target cluster first")
        return None
    try:
        tid = broker_files.parse_topic_id(tid, f"the topic id of {topic!r}")
    except (ValueError, KvlogError) as exc:
        refused[source] = f"topic id {tid!r} is not a Kafka Uuid: {exc}"
        return None
    if meta_id is not None and meta_id != tid:
        refused[source] = (f"topic id {tid} is not the one the KRaft metadata gives {topic!r} ({meta_id}): the broker "
                           "would treat the directory as a stray")
        return None
    if existing is not None and existing != tid and not in_place and meta_id is None:
        refused[source] = (f"topic id {tid} is not the one {target}/partition.metadata names ({existing}), the topic "
                           "as the broker created it: the broker would treat one of them as a stray")
        return None
    if meta.source is not None:
        if meta_id is None:
            refused[source] = (f"topic {topic!r} is not in the KRaft metadata of {meta.source}: a broker would rename "
                               f"the directory {name}.<id>-stray; create the topic first")
            return None
        state = meta.partitions.get((topic, p))
        if state is None:
            count = sum(1 for t, _ in meta.partitions if t == topic)
            refused[source] = (f"{topic!r} has {count} partitions in the KRaft metadata, no partition {p}: a broker "
                               "would treat the directory as a stray")
            return None
        if meta.node_id is not None and meta.node_id not in state["replicas"]:
            refused[source] = (f"this broker (node {meta.node_id}) is not a replica of {name} (replicas "
                               f"{state['replicas']}): it would rename the directory {name}.<id>-stray")
            return None
        cap = state["leader_epoch"]
    else:
        stored = _stored_latest_epoch(target) if os.path.isdir(target) and not in_place else None
        cap = stored if stored is not None else 0
    if not in_place and _has_records(target) and not force:
        refused[source] = (f"{target} already holds records: adopt replaces only the empty directory of a new "
                           "topic (force replaces it)")
        return None
    cleaner = None
    try:
        cleaner = checkpoint.read_offsets(os.path.join(os.path.dirname(os.path.abspath(source)),
                                                       checkpoint.CLEANER_OFFSET)).get((topic, p))
    except checkpoint.CorruptCheckpointError:
        pass
    return _Plan(name, topic, p, source, target, in_place, tid, id_from, start, end, cap, cleaner)


def adopt(log_dir: str | os.PathLike[str], sources: Sequence[str | os.PathLike[str]], *,
          metadata_dir: str | os.PathLike[str] | None = None, topic_ids: Mapping[str, str] | None = None,
          force: bool = False, move: bool = False, recover: bool = False, dry_run: bool = False) -> AdoptResult:
    """Place the partition directories ``sources`` (kvlog-written; already inside ``log_dir`` or elsewhere) into
    the stopped broker's log directory ``log_dir`` as that broker loads and serves them (see the module's
    docstring). ``move`` renames a source from elsewhere into place rather than copying it. Raises
    :class:`AdoptError` naming every partition a broker would not serve (nothing is written then), and when a
    broker runs on ``log_dir``."""
    root = os.path.abspath(os.fspath(log_dir))
    if not os.path.isdir(root):
        raise ConfigError(f"{root} is not a directory (the broker's log.dirs entry)")
    if broker_running(root):
        raise AdoptError(f"a broker is running on {root} (it holds {os.path.join(root, KAFKA_LOCK)}): stop it first")
    result = AdoptResult(root, dry_run=dry_run, recover=recover)
    meta = target_metadata(root, None if metadata_dir is None else os.fspath(metadata_dir))
    plans: list[_Plan] = []
    seen: set[str] = set()
    for src in sources:
        source = os.path.abspath(os.fspath(src))
        plan = _plan(root, source, meta, topic_ids or {}, force, result.refused)
        if plan is None:
            continue
        if plan.label in seen:
            result.refused[source] = f"{plan.label} is given twice"
            continue
        seen.add(plan.label)
        plans.append(plan)
    if result.refused:
        raise AdoptError("not adopted (nothing was written): " + "; ".join(f"{k}: {v}" for k, v in result.refused.items()))
    if not os.path.exists(os.path.join(root, META_PROPERTIES)):
        result.warnings.append(f"{root} has no meta.properties: format it (kafka-storage format --ignore-formatted) "
                               "before starting the broker")
    marker = os.path.join(root, _files.CLEAN_SHUTDOWN)
    if not os.path.exists(marker) and not recover:
        result.warnings.append(f"{root} has no {_files.CLEAN_SHUTDOWN} (the broker did not stop cleanly): it will "
                               "recover every log of the directory when it starts")
    for plan in plans:
        done = AdoptedPartition(plan.topic, plan.partition, plan.source, plan.target, plan.topic_id, plan.id_from,
                                plan.start, plan.end, plan.cap, in_place=plan.in_place)
        result.partitions[plan.label] = done
        if dry_run:
            done.epochs_lowered, done.leader_epochs = cap_leader_epochs(plan.source, plan.cap, plan.start, write=False)
            continue
        work = plan.target if plan.in_place else _place_work(root, plan, move)
        done.epochs_lowered, done.leader_epochs = cap_leader_epochs(work, plan.cap, plan.start)
        _io.fs.write_atomic(os.path.join(work, broker_files.PARTITION_METADATA),
                            broker_files.format_partition_metadata(plan.topic_id))
        if not plan.in_place:
            if os.path.isdir(plan.target):
                old = work_name(root, plan.label)
                os.replace(plan.target, old)
                os.replace(work, plan.target)
                shutil.rmtree(old)
            else:
                os.replace(work, plan.target)
    if dry_run:
        return result
    root_checkpoints(root, {(p.topic, p.partition): (p.start, p.end) for p in plans},
                     {(p.topic, p.partition): p.cleaner for p in plans})
    for plan in plans:
        result.partitions[plan.label].snapshot = write_end_snapshot(plan.target)
    if recover:
        try:
            os.unlink(marker)
        except FileNotFoundError:
            pass
    _io.fs.fsync_dir(root)
    return result


def work_name(root: str, label: str) -> str:
    # a name a broker that starts after a killed adopt takes for a deleted partition (and removes)
    return os.path.join(root, f"{label}.{uuid.uuid4().hex}-delete")


def stage(root: str, label: str, source: str, move: bool) -> tuple[str, bool]:
    """``source`` as a work directory inside ``root`` (``work_name``): renamed there with ``move`` (when on the
    same file system), else copied without kvlog's lock file. Returns (work directory, whether it was renamed:
    a copy leaves the source for the caller to remove once the work is in place)."""
    work = work_name(root, label)
    if move:
        try:
            os.rename(source, work)
            return work, True
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
    shutil.copytree(source, work, ignore=shutil.ignore_patterns(_files.LOCK))
    return work, False


def _place_work(root: str, plan: _Plan, move: bool) -> str:
    work, moved = stage(root, plan.label, plan.source, move)
    if move and not moved:
        shutil.rmtree(plan.source)
    return work


def adopt_sources(paths: Iterable[str]) -> list[str]:
    """The partition directories named: a partition directory itself, or every partition directory under a
    data directory (kvlog's, holding several)."""
    out: list[str] = []
    for path in paths:
        if _files.parse_partition_dir(path) is not None or not os.path.isdir(path):
            out.append(path)
            continue
        subs = sorted(os.path.join(path, n) for n in os.listdir(path)
                      if os.path.isdir(os.path.join(path, n)) and _files.parse_partition_dir(n) is not None
                      and not n.startswith(_files.CLUSTER_METADATA))
        out.extend(subs if subs else [path])
    return out
