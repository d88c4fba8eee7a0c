"""The Python sink on an object store: the JVM sink's protocol (``docs/spark.md``, "Exactly once without
renames") through ``pyarrow.fs``.

Tasks stage encoded batches as objects under ``<root>/.kvlog-staging/<job>/`` (each upload appears only
complete). The driver's commit then

1. takes the write lease ``kvlog-write-lease.<job>`` (the JVM sink's file and format, so the two engines
   exclude each other);
2. governs the directory (a root without ``kvlog-committed-offsets.*`` is first committed as it is), and drops
   a streaming micro-batch whose id the sink already applied;
3. per written partition, removes segment files at or past its committed end (a failed job's leftovers),
   builds the new segments from the staged batches with offsets from that end (a local scratch ``Log``, so the
   files are exactly what a local append writes) and uploads them whole;
4. publishes the next committed-offsets version: the one write that makes the job visible, in every
   partition at once. Until then readers stop at the old committed ends, so a driver that dies anywhere
   before it leaves nothing visible, and the next commit removes what it left.

``pyarrow.fs`` has no conditional put, so mutual exclusion rests on the lease: taken, then looked for again,
so that of two jobs that took theirs at once at least one steps back. The version file is checked, then
written and read back; a writer that ignores a live lease (past its timeout, or deleted by hand) can still
race another within one instant. ``Log``/``LogManager`` stay local writers: an object cannot be appended to, so
every flush would be a new segment.
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from kvlog import broker_files, committed_offsets, storage
from kvlog.broker_files import (LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA, LeaderEpochCache, format_leader_epochs,
                                format_partition_metadata, new_topic_id)
from kvlog.checkpoint import CorruptCheckpointError
from kvlog.config import LogConfig
from kvlog.errors import DirectoryNotFoundError, KvlogError, LogLockedError, ObjectNotFoundError, \
    UnknownTopicOrPartitionError
from kvlog.log import Log
from kvlog.manager import LogManager
from kvlog.object_store import ObjectStore

if TYPE_CHECKING:
    from kvlog.spark._staging import SinkPlan, StagedFile

STAGING = ".kvlog-staging"
LEASE_TIMEOUT_MS = 24 * 3600 * 1000
ABANDONED_AFTER_MS = 24 * 3600 * 1000
READ_BLOCK = 16 << 20
_SEGMENT_SUFFIXES = (".log", ".index", ".timeindex", ".txnindex", ".snapshot")


def canonical(root: str) -> tuple[str, ObjectStore]:
    """``root`` as kvlog names it (no credentials or query; the store is configured from them) and its store."""
    uri = storage.normalize(root)
    return uri, storage.store_for(root)


def _join(*parts: str) -> str:
    return "/".join(p.strip("/") if i else p.rstrip("/") for i, p in enumerate(parts))


# ------------------------------------------------------------------------------------------ tasks
def staging_path(root: str, job: str, task: str, topic: str, partition: int) -> str:
    return _join(canonical(root)[0], STAGING, job, task, f"{topic}-{partition}.batches")


def open_staged(root: str, path: str) -> Any:
    """A task's output stream for one staged file (visible once closed)."""
    return canonical(root)[1].open_output(path)


# ------------------------------------------------------------------------------------------ lease
def _lease(uri: str, job: str) -> str:
    return _join(uri, committed_offsets.LEASE_PREFIX + job)


def take_lease(uri: str, store: ObjectStore, job: str, topic: str | None, sink: str | None) -> None:
    """Refuse while another write's lease is live; then take ours (as ``SinkPlan.takeLease`` does), then look
    again: two jobs that took theirs at the same moment each see the other's (a LIST after one's own PUT shows
    it), so at least one steps back and two never both go on."""
    now = int(time.time() * 1000)
    _refuse_other_leases(uri, store, job, topic, sink, now)
    store.put(_lease(uri, job), f"{now} {topic or '*'} {sink or '-'}\n".encode())
    try:
        _refuse_other_leases(uri, store, job, topic, sink, now)
    except LogLockedError as exc:
        release_lease(uri, store, job)
        raise LogLockedError(f"another kvlog write took a lease on {uri} at the same moment as this one; neither "
                             f"may interleave with the other, so this one stepped back: write again ({exc})") from None


def _refuse_other_leases(uri: str, store: ObjectStore, job: str, topic: str | None, sink: str | None,
                         now: int) -> None:
    store.forget(uri)  # a fresh LIST: a lease taken a moment ago must be seen
    try:
        names = store.listdir(uri)
    except ObjectNotFoundError:
        names = []
    committed = None
    for name in names:
        if not name.startswith(committed_offsets.LEASE_PREFIX) or name == committed_offsets.LEASE_PREFIX + job:
            continue
        theirs = name[len(committed_offsets.LEASE_PREFIX):]
        if committed is None:
            committed = _committed_jobs(uri, store, names)
        if theirs in committed:
            store.delete(_join(uri, name))  # its job published, then its driver died before letting go
            continue
        try:
            fields = store.read_all(_join(uri, name))[:4096].decode("utf-8", "replace").split()
        except KvlogError:
            continue  # released meanwhile
        if len(fields) < 3 or not fields[0].isdigit():
            continue  # torn: its writer died while taking it
        same_query = sink is not None and fields[2] == sink
        overlaps = fields[1] == "*" or topic is None or fields[1] == topic
        if not same_query and overlaps and now - int(fields[0]) < LEASE_TIMEOUT_MS:
            raise LogLockedError(
                f"another kvlog write is in progress on {uri} (lease {name}, topic {fields[1]}): two writes to one "
                f"partition may not interleave. If that job is dead, delete {_join(uri, name)} and write again")


def release_lease(uri: str, store: ObjectStore, job: str) -> None:
    try:
        store.delete(_lease(uri, job))
    except KvlogError:
        pass  # a lease left behind only delays the next write until it times out


def _committed_jobs(uri: str, store: ObjectStore, names: list[str]) -> set[str]:
    out = set()
    for name in names:
        v = committed_offsets.version_of(name)
        if v > 0:
            try:
                got = committed_offsets.parse(store.read_all(_join(uri, name)), v, v)
            except KvlogError:
                continue
            if got is not None:
                out.add(got.job)
    return out


# ---------------------------------------------------------------------------------- the directory
def current_ranges(root: str) -> dict[tuple[str, int], tuple[int, int]]:
    """An ungoverned directory as it is: each partition's log start and end (its last valid batch)."""
    try:
        mgr = LogManager(root, read_only=True)
    except DirectoryNotFoundError:
        return {}
    out = {}
    with mgr:
        for topic in mgr.topics():
            for part in mgr.partitions(topic):
                log = mgr.log(topic, part)
                out[(topic, part)] = (log.log_start_offset, log.log_end_offset)
    return out


def publish(uri: str, store: ObjectStore, version: int, text: bytes, job: str) -> bool:
    """The commit point: create ``version`` unless it exists, then read it back (False: another won)."""
    path = _join(uri, committed_offsets.file_name(version))
    if store.head(path) is not None:
        return False
    store.put(path, text)
    back = committed_offsets.parse(store.read_all(path), version, version)
    if back is None or back.job != job:
        return False
    for name in store.listdir(uri):
        v = committed_offsets.version_of(name)
        if 0 < v < version - committed_offsets.KEEP:
            store.delete(_join(uri, name))
    return True


def remove_uncommitted(store: ObjectStore, directory: str, end: int) -> list[str]:
    """Delete a partition's segment files at or past its committed ``end``: a failed write's, never read.
    Returns the names that stay (empty for a partition not there yet)."""
    try:
        names = store.listdir(directory)
    except KvlogError:
        return []
    kept = []
    for name in names:
        if name not in committed_offsets.uncommitted_split([name], end):
            store.delete(_join(directory, name))
        else:
            kept.append(name)
    return kept


# ---------------------------------------------------------------------------------- segment build
def _staged_batches(store: ObjectStore, path: str) -> Iterator[memoryview]:
    """A staged file's bytes in runs of whole batches, read in large ranged blocks."""
    f = store.open_ranged(path)
    try:
        pos, carry = 0, b""
        while pos < f.size or carry:
            block = f.pread(min(READ_BLOCK, f.size - pos), pos) if pos < f.size else b""
            pos += len(block)
            buf = memoryview(carry + block if carry else block)
            end = 0
            while end + 12 <= len(buf):
                size = 12 + struct.unpack_from(">i", buf, end + 8)[0]
                if size < 61 or end + size > len(buf):
                    if size < 61:
                        raise KvlogError(f"staged file {path} holds a damaged batch at byte {pos - len(buf) + end}")
                    break
                end += size
            if end:
                yield buf[:end]
            carry = bytes(buf[end:])
            if not block and carry:
                raise KvlogError(f"staged file {path} ends in a partial batch ({len(carry)} bytes)")
    finally:
        f.close()


@dataclass
class Written:
    start: int
    end: int
    files: list[str]
    epochs: list[tuple[int, int]] = field(default_factory=list)  # leader epochs the new batches start


def write_partition(uri: str, store: ObjectStore, topic: str, partition: int, start: int,
                    staged: list[str], config: LogConfig, topic_id: str | None = None) -> Written:
    """Build ``topic-partition``'s new segments from ``staged`` (offsets from ``start``) and upload them."""
    directory = _join(uri, f"{topic}-{partition}")
    scratch = tempfile.mkdtemp(prefix="kvlog-sink-")
    uploaded: list[str] = []
    try:
        local_dir = os.path.join(scratch, f"{topic}-{partition}")
        log = Log.open(local_dir, config, topic_id=topic_id)
        try:
            log.truncate_fully_and_start_at(start)
            for path in staged:
                for run in _staged_batches(store, path):
                    log.append(run, assign_offsets=True)
            log.flush()
            end = log.log_end_offset
            epochs = log.leader_epochs
        finally:
            log.close()
        for name in sorted(os.listdir(local_dir)):
            base, dot, suffix = name.partition(".")
            if not (len(base) == 20 and base.isdigit() and dot + suffix in _SEGMENT_FILES_SET):
                continue
            if name.endswith(".log") and os.path.getsize(os.path.join(local_dir, name)) == 0 and end == start:
                continue
            target = _join(directory, name)
            if store.head(target) is not None:
                raise KvlogError(f"{target} exists past the committed end of {topic}-{partition}: another writer "
                                 "is writing this partition")
            store.upload(target, os.path.join(local_dir, name))
            uploaded.append(target)
        return Written(start, end, uploaded, epochs)
    except BaseException:
        for target in uploaded:
            store.delete(target)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


_SEGMENT_FILES_SET = frozenset(_SEGMENT_SUFFIXES)


# ------------------------------------------------------------------------------------------ commit
def commit(p: "SinkPlan", staged: list["StagedFile"], *, sink: str | None = None,
           batch_id: int | None = None) -> dict[str, Any]:
    uri, store = canonical(p.root)
    take_lease(uri, store, p.job, p.topic_option, sink)
    written: list[Written] = []
    try:
        latest = committed_offsets.latest(uri)
        if sink is not None and batch_id is not None and latest.sinks.get(sink, -1) >= batch_id:
            return {"skipped": True, "batch_id": batch_id}
        if not latest.governed:
            ranges = current_ranges(uri)
            if ranges:
                # under a name of its own: this job's lease is released by a version that holds its records,
                # not by the one that only governs the directory
                governor = f"{p.job}.govern"
                version = latest.max_listed + 1
                text = committed_offsets.format_text(version, governor, ranges, {})
                if not publish(uri, store, version, text, governor):
                    raise KvlogError(f"another writer committed to {uri} while this job governed it; write again")
                latest = committed_offsets.CommittedOffsets(version, governor, ranges, {}, version)
        parts = dict(latest.partitions)
        counts = dict(p.partition_counts)
        for (t, part) in parts:
            counts[t] = max(counts.get(t, 0), part + 1)
        by_tp: dict[tuple[str, int], list[str]] = {}
        for s in staged:
            by_tp.setdefault((s.topic, s.partition), []).append(s.path)
        topics = {t for t, _ in by_tp} | ({p.topic_option} if p.topic_option else set())
        touched = set(by_tp)
        for t in topics:
            n = counts.get(t) or p.partitions_of(t)
            is_new = not any(tt == t for tt, _ in parts)
            for i in range(n):
                if is_new or p.overwrite:
                    touched.add((t, i))
            for tp in by_tp:
                if tp[0] == t and not 0 <= tp[1] < n:
                    raise KvlogError(f"staged data for {t}-{tp[1]}, but {uri} has {n} partitions of topic {t}")
        configs, ids = _topic_facts(uri, {t for t, _ in touched})
        nxt = dict(parts)
        epoch_files: list[tuple[str, list[str], int, int | None, list[tuple[int, int]], bool]] = []
        for tp in sorted(touched):
            start, end = parts.get(tp, (0, 0))
            if p.overwrite and tp[0] in topics:
                start = end  # overwrite empties the topic: its log start moves to the old end
            directory = _join(uri, f"{tp[0]}-{tp[1]}")
            names = remove_uncommitted(store, directory, end)
            new_epochs: list[tuple[int, int]] = []
            if tp in by_tp:
                w = write_partition(uri, store, tp[0], tp[1], end, by_tp[tp], configs.get(tp[0], LogConfig()),
                                    ids[tp[0]])
                written.append(w)
                new_epochs = w.epochs
                old_end, end = end, w.end
            else:
                old_end = end
                if tp not in parts:
                    store.make_dir(directory)  # a new topic's partition without rows is still listed
            if PARTITION_METADATA not in names:  # before the commit: a committed partition has its topic id
                store.put(_join(directory, PARTITION_METADATA), format_partition_metadata(ids[tp[0]]))
            epoch_files.append((directory, names, old_end, start if p.overwrite else None, new_epochs,
                                tp not in parts))
            nxt[tp] = (start, end)
        sinks = dict(latest.sinks)
        if sink is not None and batch_id is not None:
            sinks[sink] = batch_id
        version = latest.max_listed + 1
        if not publish(uri, store, version, committed_offsets.format_text(version, p.job, nxt, sinks), p.job):
            raise KvlogError(f"another writer committed to {uri} during this job (version {version}); this job's "
                             "records were not committed")
        for directory, names, old_end, new_start, new_epochs, is_new in epoch_files:
            _update_leader_epochs(store, directory, names, old_end, new_start, new_epochs, is_new)
        return {"skipped": False, "version": version,
                "written": {f"{t}-{i}": list(nxt[(t, i)]) for t, i in sorted(touched)}}
    except BaseException:
        for w in written:
            for target in w.files:
                try:
                    store.delete(target)
                except KvlogError:
                    pass  # the next commit removes what is past the committed end
        raise
    finally:
        _remove_staging(uri, store, p.job)
        release_lease(uri, store, p.job)


def _topic_facts(uri: str, topics: set[str]) -> tuple[dict[str, LogConfig], dict[str, str]]:
    """The configs of the directory's topics, and the ids of ``topics``: the one a topic has (its table
    entry, else a partition's ``partition.metadata``), else a new one."""
    configs: dict[str, LogConfig] = {}
    ids: dict[str, str] = {}
    try:
        with LogManager(uri, read_only=True) as mgr:
            configs = {t: mgr.topic_config(t) for t in mgr.topics()}
            for t in topics:
                try:
                    found = mgr.topic_id(t)
                except UnknownTopicOrPartitionError:
                    continue
                if found is not None:
                    ids[t] = found
    except DirectoryNotFoundError:
        pass
    for t in topics:
        ids.setdefault(t, new_topic_id())
    return configs, ids


def _update_leader_epochs(store: ObjectStore, directory: str, names: list[str], old_end: int,
                          new_start: int | None, new_epochs: list[tuple[int, int]], is_new: bool) -> None:
    """After the commit: the partition's leader-epoch-checkpoint as a local log would have it (cut at the
    old committed end, at the new log start after an overwrite, then the new batches' epochs). A new
    partition gets one; an old one without (kvlog before it kept them) is left to a writer's open. Best
    effort: the commit is published, and a failure here must not undo it (a writer's open repairs the file)."""
    path = _join(directory, LEADER_EPOCH_CHECKPOINT)
    try:
        if is_new or LEADER_EPOCH_CHECKPOINT not in names:
            stored: list[tuple[int, int]] | None = [] if is_new else None
        else:
            try:
                stored = broker_files.parse_leader_epochs(store.read_all(path), path)
            except CorruptCheckpointError:
                stored = None
        if stored is None:
            return
        cache = LeaderEpochCache(stored)
        cache.truncate_from_end(old_end)
        if new_start is not None:
            cache.truncate_from_start(new_start)
        for epoch, start in new_epochs:
            if epoch > cache.latest_epoch:
                cache.assign(epoch, start)
        if is_new or cache.entries != stored:
            store.put(path, format_leader_epochs(cache.entries))
    except (KvlogError, OSError):
        pass


def _remove_staging(uri: str, store: ObjectStore, job: str) -> None:
    """This job's staged objects, and those of jobs abandoned for a day (their drivers died)."""
    staging = _join(uri, STAGING)
    try:
        objects = store.walk(staging)
    except KvlogError:
        return
    now = int(time.time() * 1000)
    newest: dict[str, int] = {job: now}
    for path, _size, mtime in objects:
        other = path[len(staging) + 1:].split("/", 1)[0]
        newest[other] = max(newest.get(other, 0), mtime)
    for other, mtime in newest.items():
        if other == job or now - mtime > ABANDONED_AFTER_MS:
            try:
                store.delete_tree(_join(staging, other))
            except KvlogError:
                pass  # the next commit tries again
    if set(newest) <= {job} or all(o == job or now - m > ABANDONED_AFTER_MS for o, m in newest.items()):
        try:
            store.delete_tree(staging)  # no other job stages here: no empty marker is left behind
        except KvlogError:
            pass


def abort(root: str, job: str) -> None:
    """A failed or cancelled job: its staged objects go; nothing of it was visible."""
    uri, store = canonical(root)
    _remove_staging(uri, store, job)
