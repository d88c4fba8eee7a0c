"""``kvlog restore BACKUP DST``: a broker's ``log.dirs`` entry from one backup run, every record at its offset.

Per partition: the run's files are fetched (each checked against the manifest's CRC-32C; bytes a later run
replaced come from ``.kvlog-backup/objects``, and files kvlog derived are derived again and checked), the
partition is cut (:func:`cut_offset`: ``as_of``, then never inside a transaction), the segment holding the
cut is truncated there with its indexes rebuilt by Kafka's recovery rules, later segments and producer
snapshots past the cut are dropped, the leader-epoch checkpoint is cut, and ``partition.metadata`` gets the
target cluster's topic id. Each partition is assembled under ``DST/.kvlog-restore-tmp`` and renamed into
place whole; the root checkpoints get the partition's recovery point and log start offset.

A journal (``DST/.kvlog-restore-journal``, a file: a broker loads only directories) names the finished
partitions, so a killed restore run again with the same arguments finishes the rest. Run it to completion
before starting the broker: a leftover ``.kvlog-restore-tmp`` directory is not a partition and a broker
refuses a log directory holding one.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kvlog import _files, checkpoint
from kvlog._core import records as _k
from kvlog.backup.manifest import OBJECTS, FileEntry, Manifest, PartitionEntry
from kvlog.backup.run import latest_manifest, read_manifest
from kvlog.backup.source import read_topic_id
from kvlog.backup.target import Target, open_target
from kvlog.checksum import crc32c
from kvlog.errors import BackupError, ConfigError
from kvlog.segment import LogSegment
from kvlog.txn_index import ENTRY_DTYPE, parse_entries

__all__ = ["RestoreResult", "PartitionRestore", "restore", "cut_offset", "open_transactions_cut",
           "TMP_DIR", "JOURNAL"]

TMP_DIR = ".kvlog-restore-tmp"
JOURNAL = ".kvlog-restore-journal"
_CAP = 4096

Progress = Callable[["RestoreResult"], None]


@dataclass
class PartitionRestore:
    topic: str
    partition: int
    topic_id: str
    log_start_offset: int
    end_offset: int  # the restored log holds [log_start_offset, end_offset)
    backup_end_offset: int
    cut: str  # "backup" (the run's end), "as_of", "transaction" (moved before an open transaction)
    bytes: int = 0


@dataclass
class RestoreResult:
    backup: str
    destination: str
    run: int
    as_of: int | None = None
    partitions: dict[str, PartitionRestore] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)
    bytes: int = 0
    elapsed_s: float = 0.0
    warnings: list[str] = field(default_factory=list)
    groups: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("backup", "destination", "run", "as_of", "resumed", "bytes",
                                              "elapsed_s", "warnings", "groups")}
        out["partitions"] = {k: vars(v) for k, v in self.partitions.items()}
        return out


# ----------------------------------------------------------------------------------------------- cuts
def _headers(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        data = f.read()
    parts, pos = [], 0
    out = np.empty(_CAP, dtype=_k.BATCH_DTYPE)
    while pos < len(data):
        count, nxt, status, error = _k.scan(data, pos, len(data), out, False, False)
        parts.append(out[:count].copy())
        if error is not None:
            raise BackupError(f"{path}: {error}")
        if status != _k.FULL:
            break
        pos = nxt
    return np.concatenate(parts) if parts else np.empty(0, _k.BATCH_DTYPE)


def open_transactions_cut(heads: np.ndarray, cut: int) -> int:
    """The largest offset ≤ ``cut`` at which no transaction is open: a transaction open at ``cut`` (its
    first batch before, its marker at or after it) moves the cut to its first offset, repeatedly."""
    while True:
        open_at: dict[int, int] = {}
        for h in heads[heads["base_offset"] < cut]:
            if h["magic"] < 2 or not (int(h["attributes"]) & 0x10):
                continue
            pid = int(h["producer_id"])
            if int(h["attributes"]) & 0x20:
                open_at.pop(pid, None)  # its marker: the transaction ended
            else:
                open_at.setdefault(pid, int(h["base_offset"]))
        moved = min(open_at.values(), default=cut)
        if moved >= cut:
            return cut
        cut = moved


def cut_offset(heads: np.ndarray, start: int, end: int, as_of: int | None) -> tuple[int, str]:
    """Where a restore ends a partition whose batches are ``heads`` and range ``[start, end)``.

    ``as_of`` (epoch ms): at the batch holding the first record stamped later (the time index's answer for
    ``as_of + 1``: batches are atomic, so records of that batch stamped earlier go too); then before any
    transaction open there. The result is a batch boundary in ``[start, end]``.
    """
    live = heads[(heads["last_offset"] >= start) & (heads["base_offset"] < end)]
    cut, why = end, "backup"
    if as_of is not None:
        # a v2 batch's max timestamp covers its records; v0 batches have none (-1): never later than as_of
        later = np.flatnonzero(live["max_timestamp"] > as_of)
        if len(later):
            cut, why = max(int(live["base_offset"][later[0]]), start), "as_of"
    moved = open_transactions_cut(heads[heads["base_offset"] < end], cut)
    if moved < cut:
        cut, why = max(moved, start), "transaction"
    return cut, why


# -------------------------------------------------------------------------------------------- fetching
def _fetch(target: Target, rel: str, entry: FileEntry, dest: str) -> None:
    """Write the manifest's bytes of ``rel`` to ``dest``, checked against its CRC-32C."""
    data = _bytes_of(target, rel, entry)
    with open(dest, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _bytes_of(target: Target, rel: str, entry: FileEntry) -> bytes:
    tried = []
    for where in (rel, f"{OBJECTS}/{rel}.{entry.crc32c:08x}"):
        size = target.size(where)
        if size is None:
            tried.append(f"{where}: missing")
            continue
        if size < entry.size or (size > entry.size and not entry.derived.startswith("prefix:")
                                 and not entry.derived):
            tried.append(f"{where}: {size} bytes, the manifest says {entry.size}")
            continue
        data = target.read(where) if size == entry.size else target.read_range(where, 0, entry.size)
        assert data is not None
        if entry.derived == "cut" and crc32c(data) != entry.crc32c:
            tried.append(f"{where}: a later run's copy (re-cut below)")
            continue
        if crc32c(data) == entry.crc32c:
            return data
        tried.append(f"{where}: CRC-32C {crc32c(data):08x}, the manifest says {entry.crc32c:08x}")
    raise BackupError(f"backup object {target.path(rel)} does not hold the bytes its manifest names: "
                      + "; ".join(tried))


def _recut(target: Target, rel: str, entry: FileEntry, end: int) -> bytes:
    """A derived ``cut`` file (leader epochs, transaction index) of an older run: the newer copy, cut again."""
    data = target.read(rel)
    if data is None:
        raise BackupError(f"backup object {target.path(rel)} is missing")
    if rel.endswith(_files.TXN_INDEX):
        entries = parse_entries(data)
        out = np.ascontiguousarray(entries[entries["last_offset"] < end], dtype=ENTRY_DTYPE).tobytes()
    else:
        out = _epochs_bytes([e for e in _epochs(data, rel) if e[1] < end])
    if crc32c(out) != entry.crc32c:
        raise BackupError(f"backup object {target.path(rel)}: cut at offset {end} it does not give the bytes its "
                          f"manifest names (CRC-32C {crc32c(out):08x}, expected {entry.crc32c:08x})")
    return out


def _epochs(data: bytes, where: str) -> list[tuple[int, int]]:
    lines = data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        entries = [(int(a), int(b)) for a, b in (line.split() for line in lines[2:])]
        if int(lines[0]) != 0 or int(lines[1]) != len(entries):
            raise ValueError
    except (ValueError, IndexError):
        raise BackupError(f"{where} is not a leader-epoch checkpoint") from None
    return entries


def _epochs_bytes(entries: list[tuple[int, int]]) -> bytes:
    return ("\n".join(["0", str(len(entries))] + [f"{e} {o}" for e, o in entries]) + "\n").encode()


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _partition_metadata(topic_id: str) -> bytes:
    return f"version: 0\ntopic_id: {topic_id}\n".encode()


# ------------------------------------------------------------------------------------------- restore
def _topic_ids(manifest: Manifest, labels: list[str], dst: str, given: Mapping[str, str],
               metadata_dir: str | None, keep: bool) -> dict[str, str]:
    topics = sorted({manifest.partitions[k].topic for k in labels})
    known: dict[str, str] = {}
    if metadata_dir is not None:
        from kvlog.internal_topics.cluster_metadata import cluster_metadata, topic_id_text

        state = cluster_metadata(metadata_dir)
        known = {name: topic_id_text(tid) for tid, name in state.topic_names.items()}
    out: dict[str, str] = {}
    lacking = []
    for topic in topics:
        here = {read_topic_id(os.path.join(dst, k)) for k in labels
                if manifest.partitions[k].topic == topic and os.path.isdir(os.path.join(dst, k))} - {None}
        if topic in given:
            out[topic] = given[topic]
        elif topic in known:
            out[topic] = known[topic]
        elif len(here) == 1:
            out[topic] = next(iter(here))  # type: ignore[arg-type]  # the topic as the target cluster made it
        elif keep:
            src = {manifest.partitions[k].topic_id for k in labels if manifest.partitions[k].topic == topic} - {None}
            if len(src) != 1:
                raise ConfigError(f"the backup holds no single topic id for {topic!r}; give --topic-id {topic}=ID")
            out[topic] = next(iter(src))  # type: ignore[arg-type]
        else:
            lacking.append(topic)
        if topic in out and len(here) == 1 and out[topic] not in here:
            raise ConfigError(f"{dst} already holds {topic!r} with topic id {next(iter(here))}, not "
                              f"{out[topic]}: a broker would treat one of them as a stray")
    if lacking:
        raise ConfigError(f"no target topic id for {', '.join(map(repr, lacking))}: create the topics on the target "
                          "cluster first and restore into that broker's log directory (the ids are read from its "
                          "partition.metadata), or give --topic-id TOPIC=ID, --metadata-dir, or --keep-topic-ids")
    for topic, tid in out.items():
        if len(tid) != 22 or not all(c.isalnum() or c in "-_" for c in tid):
            raise ConfigError(f"topic id {tid!r} for {topic!r} is not a Kafka Uuid (22 base64url characters)")
    return out


def _has_records(directory: str) -> bool:
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return False
    return any(n.endswith(_files.LOG) and _files.is_offset_name(n) and os.path.getsize(os.path.join(directory, n))
               for n in names)


def _read_journal(dst: str) -> dict[str, Any] | None:
    try:
        with open(os.path.join(dst, JOURNAL), encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise BackupError(f"{os.path.join(dst, JOURNAL)} is unreadable ({exc}); delete it to start afresh") from None


def _write_journal(dst: str, data: dict[str, Any]) -> None:
    tmp = os.path.join(dst, JOURNAL + ".tmp")
    _write(tmp, json.dumps(data, sort_keys=True).encode())
    os.replace(tmp, os.path.join(dst, JOURNAL))


def restore(backup: str | os.PathLike[str], destination: str | os.PathLike[str], *, run: int | None = None,
            as_of: int | None = None, topics: list[str] | None = None,
            topic_ids: Mapping[str, str] | None = None, metadata_dir: str | os.PathLike[str] | None = None,
            keep_topic_ids: bool = False, force: bool = False, progress: Progress | None = None) -> RestoreResult:
    """Restore backup run ``run`` (default: the newest) of ``backup`` into the local directory ``destination``.

    Topic ids, first found: ``topic_ids``; the target's KRaft metadata (``metadata_dir``); the destination's
    own ``partition.metadata`` (the topics as the target cluster created them); with ``keep_topic_ids`` the
    source's. ``__cluster_metadata`` is never restored (the target cluster has its own). A destination
    partition that holds records is refused unless ``force``.
    """
    t0 = time.monotonic()
    target = open_target(backup)
    manifest = read_manifest(target, run) if run is not None else latest_manifest(target)
    if manifest is None:
        raise BackupError(f"{target.uri} holds no backup run")
    dst = os.path.abspath(os.fspath(destination))
    os.makedirs(dst, exist_ok=True)
    labels = sorted(k for k, e in manifest.partitions.items()
                    if e.topic != _files.CLUSTER_METADATA and (topics is None or e.topic in topics))
    if topics is not None:
        have = {manifest.partitions[k].topic for k in labels}
        missing = [t for t in topics if t not in have]
        if missing:
            raise ConfigError(f"backup run {manifest.run} holds no topic {missing[0]!r}"
                              + (f" ({_files.CLUSTER_METADATA} is never restored)" if missing[0] ==
                                 _files.CLUSTER_METADATA else ""))
    ids = _topic_ids(manifest, labels, dst, topic_ids or {}, None if metadata_dir is None else os.fspath(metadata_dir),
                     keep_topic_ids)
    params = {"backup": target.uri, "run": manifest.run, "as_of": as_of, "topics": labels, "ids": ids}
    journal = _read_journal(dst)
    done: list[str] = []
    if journal is not None:
        if journal.get("params") != params:
            raise BackupError(f"{os.path.join(dst, JOURNAL)} belongs to an unfinished restore with other arguments "
                              f"({journal.get('params')}); finish that one, or delete the journal and "
                              f"{os.path.join(dst, TMP_DIR)}")
        done = list(journal.get("done", []))
    if not force:
        busy = [k for k in labels if k not in done and _has_records(os.path.join(dst, k))]
        if busy:
            raise BackupError(f"{os.path.join(dst, busy[0])} already holds records; restore into partition "
                              "directories that are empty (as a new topic's are), or pass force")
    result = RestoreResult(target.uri, dst, manifest.run, as_of)
    result.resumed = list(done)
    tmp_root = os.path.join(dst, TMP_DIR)
    shutil.rmtree(tmp_root, ignore_errors=True)
    os.makedirs(tmp_root)
    _write_journal(dst, {"params": params, "done": done, "partitions": (journal or {}).get("partitions", {})})
    finished: dict[str, Any] = dict((journal or {}).get("partitions", {}))
    for label in labels:
        if label in done:
            result.partitions[label] = PartitionRestore(**finished[label])
            continue
        entry = manifest.partitions[label]
        pr = _restore_partition(target, manifest, entry, label, os.path.join(tmp_root, label), ids[entry.topic],
                                as_of)
        final = os.path.join(dst, label)
        if os.path.isdir(final):
            old = os.path.join(tmp_root, label + ".replaced")
            os.replace(final, old)
            os.replace(os.path.join(tmp_root, label), final)
            shutil.rmtree(old)
        else:
            os.replace(os.path.join(tmp_root, label), final)
        _fsync_dir(dst)
        _checkpoints(dst, entry, pr)
        result.partitions[label] = pr
        result.bytes += pr.bytes
        done.append(label)
        finished[label] = vars(pr)
        _write_journal(dst, {"params": params, "done": done, "partitions": finished})
        if progress is not None:
            progress(result)
    shutil.rmtree(tmp_root, ignore_errors=True)
    os.unlink(os.path.join(dst, JOURNAL))
    _fsync_dir(dst)
    result.elapsed_s = time.monotonic() - t0
    return result


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _checkpoints(dst: str, entry: PartitionEntry, pr: PartitionRestore) -> None:
    """The restored partition's recovery point (everything restored was checked) and log start offset; the
    source's cleaner progress does not carry over."""
    key = (entry.topic, entry.partition)
    checkpoint.update_offsets(os.path.join(dst, checkpoint.RECOVERY_POINT), {key: pr.end_offset})
    checkpoint.update_offsets(os.path.join(dst, checkpoint.LOG_START_OFFSET), {key: pr.log_start_offset})
    cleaner = os.path.join(dst, checkpoint.CLEANER_OFFSET)
    if os.path.exists(cleaner):
        checkpoint.update_offsets(cleaner, {key: None})


def _restore_partition(target: Target, manifest: Manifest, entry: PartitionEntry, label: str, work: str,
                       topic_id: str, as_of: int | None) -> PartitionRestore:
    os.makedirs(work)
    files = manifest.partition_files(entry.topic, entry.partition)
    bases = sorted(_files.offset_from_name(n) for n in files if n.endswith(_files.LOG) and _files.is_offset_name(n))
    total = 0
    for name, fe in files.items():
        rel = f"{label}/{name}"
        if fe.derived == "rebuilt":
            continue  # built again below from the restored .log
        if fe.derived == "cut":
            try:
                data = _bytes_of(target, rel, fe)
            except BackupError:
                data = _recut(target, rel, fe, entry.end_offset)
            _write(os.path.join(work, name), data)
        else:
            _fetch(target, rel, fe, os.path.join(work, name))
        total += fe.size
    heads = np.concatenate([_headers(_files.segment_path(work, b, _files.LOG)) for b in bases]) if bases else \
        np.empty(0, _k.BATCH_DTYPE)
    end, why = cut_offset(heads, entry.log_start_offset, entry.end_offset, as_of)
    start = min(entry.log_start_offset, end)
    # segments wholly at or past the cut go; the one holding it is truncated there
    for base in bases:
        if base >= end and base != bases[0]:
            for suffix in _files.SEGMENT_SUFFIXES:
                path = _files.segment_path(work, base, suffix)
                if os.path.exists(path):
                    os.unlink(path)
    kept = [b for b in bases if b < end] or bases[:1]
    for base in kept:
        rebuilt = any(files.get(_files.prefix(base) + s, FileEntry(0, 0)).derived == "rebuilt"
                      for s in (_files.INDEX, _files.TIME_INDEX))
        seg_heads = heads[(heads["base_offset"] >= base) & ((heads["base_offset"] < kept[kept.index(base) + 1])
                                                          if base != kept[-1] else True)]
        cut_here = base == kept[-1] and len(seg_heads) and int(seg_heads["last_offset"][-1]) >= end
        if rebuilt or cut_here:
            log_path = _files.segment_path(work, base, _files.LOG)
            keep = seg_heads[seg_heads["last_offset"] < end]
            size = int(keep["position"][-1] + keep["size"][-1]) if len(keep) else 0
            os.truncate(log_path, size)
            for suffix in (_files.INDEX, _files.TIME_INDEX):
                path = _files.segment_path(work, base, suffix)
                if os.path.exists(path):
                    os.unlink(path)
            seg = LogSegment(work, base, index_interval_bytes=entry.index_interval_bytes)
            try:
                if seg.recover(dense=False):
                    raise BackupError(f"{log_path}: recovery of the restored bytes cut some of them")
            finally:
                seg.close()
            txn = _files.segment_path(work, base, _files.TXN_INDEX)
            if os.path.exists(txn):
                with open(txn, "rb") as f:
                    entries = parse_entries(f.read())
                _write(txn, np.ascontiguousarray(entries[entries["last_offset"] < end], dtype=ENTRY_DTYPE).tobytes())
    for name in list(os.listdir(work)):
        if name.endswith(_files.SNAPSHOT) and _files.is_offset_name(name) and _files.offset_from_name(name) > end:
            os.unlink(os.path.join(work, name))
    epochs = os.path.join(work, "leader-epoch-checkpoint")
    if os.path.exists(epochs):
        with open(epochs, "rb") as f:
            _write(epochs, _epochs_bytes([e for e in _epochs(f.read(), epochs) if e[1] < end]))
    _write(os.path.join(work, "partition.metadata"), _partition_metadata(topic_id))
    _fsync_dir(work)
    return PartitionRestore(entry.topic, entry.partition, topic_id, start, end, entry.end_offset, why, total)

