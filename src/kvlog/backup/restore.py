"""``kvlog restore BACKUP DST``: a broker's ``log.dirs`` entry from one backup run, every record at its offset.

Per partition: the run's files are fetched (each checked against the manifest's CRC-32C; bytes a later run
replaced come from ``.kvlog-backup/objects``, and files kvlog derived are derived again and checked), the
partition is cut (:func:`cut_offset`: ``as_of``, then never inside a transaction), the segment holding the
cut is truncated there with its indexes rebuilt by Kafka's recovery rules, later segments and producer
snapshots past the cut are dropped, the leader-epoch checkpoint is cut, and ``partition.metadata`` gets the
target cluster's topic id. Batches' partition leader epochs are set to 0 (a field outside the CRC), the epoch
the target cluster's new partition starts at: a follower refuses to copy batches of a newer epoch than its
leader's, and a leader-epoch cache ahead of the controller's epoch confuses truncation
(``docs/broker-files.md``); ``keep_leader_epochs`` keeps them for a restore into the cluster they came from.

Each partition is assembled in ``DST/<topic>-<p>.<id>-delete`` and renamed into place whole: a broker that
starts while a killed restore left one behind takes it for a deleted partition and removes it (any other
unknown directory would stop the broker). Each gets a producer snapshot at its end, as a clean shutdown leaves
one. The root: log start offsets set, high watermarks at the restored ends, recovery points dropped, the
cleaner's progress clamped. The target broker's ``.kafka_cleanshutdown`` is kept (a 4.x broker that starts
without it registers as uncleanly shut down: the controller takes it out of every partition's ISR and elects
again, uncleanly, as the broker tests saw), so the broker loads the restored partitions as they are; the broker
tests check that these are the files Kafka's own recovery writes. ``recover`` removes the marker (the broker
then recovers every log of the directory). ``meta.properties`` is never written: it is the target broker's
identity.

A journal (``DST/.kvlog-restore-journal``, a file: a broker loads only directories) names the finished
partitions, so a killed restore run again with the same arguments finishes the rest; it stays, marked
complete, when the restore ends (running the same command again then does nothing).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from kvlog import _files, broker_files, checkpoint
from kvlog._core import records as _k
from kvlog.backup.adopt import (KAFKA_LOCK, META_PROPERTIES, batch_heads, broker_running, root_checkpoints,
                                target_metadata, write_end_snapshot)
from kvlog.backup.manifest import OBJECTS, FileEntry, Manifest, PartitionEntry
from kvlog.backup.run import latest_manifest, read_manifest
from kvlog.backup.source import epochs_below, read_topic_id
from kvlog.backup.target import META_DIR, Target, open_target
from kvlog.checksum import crc32c
from kvlog.errors import BackupError, ConfigError, KvlogError
from kvlog.log import Log
from kvlog.segment import LogSegment
from kvlog.txn_index import ENTRY_DTYPE, parse_entries

__all__ = ["RestoreResult", "PartitionRestore", "restore", "cut_offset", "open_transactions_cut",
           "JOURNAL", "INTERNAL", "as_flags"]

TMP_MARK = "6b766c6f67"  # "kvlog" in hex: the start of the id in a work directory's name
JOURNAL = ".kvlog-restore-journal"
SETTLE_BYTES = 256 << 20  # restored bytes made durable (and journaled as done) together
INTERNAL = ("__consumer_offsets", "__transaction_state", "__share_group_state", "__remote_log_metadata")
_groups_topic = "__consumer_offsets"

Progress = Callable[["RestoreResult"], None]

#: How the errors and warnings of :func:`restore` name its arguments (its keywords), and the flags of ``kvlog
#: restore`` for them: :func:`as_flags` turns one into the other, so each names what its caller typed.
_FLAGS = ((re.compile(r"\btopic_ids=\{'([^']*)': ID\}"), r"--topic-id \1=ID"),
          (re.compile(r"\btopic_ids=\{TOPIC: ID\}"), "--topic-id TOPIC=ID"),
          (re.compile(r"\bmetadata_dir=DIR\b"), "--metadata-dir DIR"),
          (re.compile(r"\bkeep_topic_ids=True\b"), "--keep-topic-ids"),
          (re.compile(r"\bforce=True\b"), "--force"))


def as_flags(message: str) -> str:
    """An error or warning of :func:`restore` as ``kvlog restore`` says it: its flags named, not the keywords."""
    for pattern, flag in _FLAGS:
        message = pattern.sub(flag, message)
    return message


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
    #: partitions of the backup the target's KRaft metadata assigns to other brokers only: not placed here
    elsewhere: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("backup", "destination", "run", "as_of", "resumed", "bytes",
                                              "elapsed_s", "warnings", "groups", "elsewhere")}
        out["partitions"] = {k: vars(v) for k, v in self.partitions.items()}
        return out


# ----------------------------------------------------------------------------------------------- cuts
def _headers(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        return _headers_of(f.read(), path)


def _headers_of(data: bytes, path: str) -> np.ndarray:
    return batch_heads(data, path, BackupError)


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
def _fetch(target: Target, rel: str, entry: FileEntry, dest: str) -> bytes:
    """Write the manifest's bytes of ``rel`` to ``dest``, checked against its CRC-32C; returns them."""
    data = _bytes_of(target, rel, entry)
    _write(dest, data)
    return data


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
        out = epochs_below(data, rel, end)
    if crc32c(out) != entry.crc32c:
        raise BackupError(f"backup object {target.path(rel)}: cut at offset {end} it does not give the bytes its "
                          f"manifest names (CRC-32C {crc32c(out):08x}, expected {entry.crc32c:08x})")
    return out


def _write(path: str, data: bytes) -> None:
    """Written, not yet synced: :func:`_sync` makes a whole partition durable with one call."""
    with open(path, "wb") as f:
        f.write(data)


_libc: Any = None


def _sync(path: str) -> None:
    """Flush the file system holding ``path`` (Linux ``syncfs``: one call for all of a partition's files,
    where an ``fsync`` per file costs a disk round trip each); elsewhere every file under ``path``."""
    global _libc
    if _libc is None:
        import ctypes
        import ctypes.util

        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            getattr(_libc, "syncfs")  # noqa: B009 (present on Linux's libc only)
        except (OSError, AttributeError):
            _libc = False
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if _libc and _libc.syncfs(fd) == 0:
            return
        for d, _dirs, names in os.walk(path):
            for n in names:
                f = os.open(os.path.join(d, n), os.O_RDONLY)
                try:
                    os.fsync(f)
                finally:
                    os.close(f)
        os.fsync(fd)
    finally:
        os.close(fd)


def _partition_metadata(topic_id: str) -> bytes:
    """Exactly the bytes Kafka's ``PartitionMetadataFileFormatter`` writes (no newline after the id)."""
    return broker_files.format_partition_metadata(topic_id)


# ------------------------------------------------------------------------------------------- restore
def _has_cluster_metadata(dst: str, metadata_dir: str | None) -> bool:
    """Whether ``dst`` belongs to a cluster whose topic ids a restore must take: a formatted broker's directory
    (``meta.properties``), a combined-mode one (``__cluster_metadata-0``), or one given its KRaft metadata."""
    return (metadata_dir is not None or os.path.exists(os.path.join(dst, META_PROPERTIES))
            or os.path.isdir(os.path.join(dst, f"{_files.CLUSTER_METADATA}-0")))


def _assigned_here(manifest: Manifest, labels: list[str], dst: str, metadata_dir: str | None
                   ) -> tuple[list[str], list[str]]:
    """``labels`` split by the target's KRaft metadata (``metadata_dir``, or ``dst``'s own combined-mode
    ``__cluster_metadata-0``): those whose replicas include this broker (its ``node.id`` in ``meta.properties``),
    and those assigned to other brokers only. A restore into each broker of a cluster thus places every replica
    where the controller expects it. Without metadata or a node id, or for a partition the metadata does not
    list, everything stays (a broker sets aside what its metadata does not assign it, as a stray)."""
    if metadata_dir is None and not os.path.isdir(os.path.join(dst, f"{_files.CLUSTER_METADATA}-0")):
        return labels, []
    meta = target_metadata(dst, metadata_dir)
    if meta.node_id is None or not meta.partitions:
        return labels, []
    here: list[str] = []
    elsewhere: list[str] = []
    for label in labels:
        e = manifest.partitions[label]
        st = meta.partitions.get((e.topic, e.partition))
        (elsewhere if st is not None and meta.node_id not in st["replicas"] else here).append(label)
    return here, elsewhere


def _topic_ids(manifest: Manifest, labels: list[str], dst: str, given: Mapping[str, str],
               metadata_dir: str | None, keep: bool, kept: list[str] | None = None) -> dict[str, str]:
    """Each restored topic's target id; ``kept`` (when given) gets the topics that keep the source's."""
    topics = sorted({manifest.partitions[k].topic for k in labels})
    known: dict[str, str] = {}
    if metadata_dir is not None:
        from kvlog.internal_topics.cluster_metadata import cluster_metadata, topic_id_text

        state = cluster_metadata(metadata_dir)
        known = {name: topic_id_text(tid) for tid, name in state.topic_names.items()}
    out: dict[str, str] = {}
    lacking = []
    for topic in topics:
        here = {tid for k in labels if manifest.partitions[k].topic == topic and os.path.isdir(os.path.join(dst, k))
                for tid in [read_topic_id(os.path.join(dst, k))] if tid is not None}
        if topic in given:
            out[topic] = given[topic]
        elif topic in known:
            out[topic] = known[topic]
        elif len(here) == 1:
            out[topic] = next(iter(here))  # the topic as the target cluster made it
        elif keep:
            src = {tid for k in labels if manifest.partitions[k].topic == topic
                   for tid in [manifest.partitions[k].topic_id] if tid is not None}
            if len(src) != 1:
                raise ConfigError(f"the backup holds no single topic id for {topic!r}; give "
                                  f"topic_ids={{{topic!r}: ID}}")
            out[topic] = next(iter(src))
            if kept is not None:
                kept.append(topic)
        else:
            lacking.append(topic)
        if topic in out and len(here) == 1 and out[topic] not in here:
            raise ConfigError(f"{dst} already holds {topic!r} with topic id {next(iter(here))}, not "
                              f"{out[topic]}: a broker would treat one of them as a stray")
    if lacking:
        raise ConfigError(f"no target topic id for {', '.join(map(repr, lacking))}: create the topics on the target "
                          "cluster first and restore into that broker's log directory (the ids are read from its "
                          "partition.metadata), or give topic_ids={TOPIC: ID}, metadata_dir=DIR, or keep_topic_ids=True")
    for topic, tid in out.items():
        try:
            out[topic] = broker_files.parse_topic_id(tid, f"the topic id of {topic!r}")
        except (ValueError, KvlogError) as exc:
            raise ConfigError(f"topic id {tid!r} for {topic!r} is not a Kafka Uuid (22 base64url characters): "
                              f"{exc}") from None
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
            data = json.load(f)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return data
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise BackupError(f"{os.path.join(dst, JOURNAL)} is unreadable ({exc}); delete it to start afresh") from None


def _write_journal(dst: str, data: dict[str, Any]) -> None:
    """Replaced atomically; durable at the next :func:`_sync` (which a finished partition waits for)."""
    tmp = os.path.join(dst, JOURNAL + ".tmp")
    _write(tmp, json.dumps(data, sort_keys=True).encode())
    os.replace(tmp, os.path.join(dst, JOURNAL))


def _work_dir(dst: str, label: str) -> str:
    return os.path.join(dst, f"{label}.{TMP_MARK}{uuid.uuid4().hex[:22]}-delete")


def _clear_work_dirs(dst: str) -> None:
    """A killed run's work directories (only ours: the broker's own ``-delete`` directories stay)."""
    for name in os.listdir(dst):
        if name.endswith("-delete") and f".{TMP_MARK}" in name:
            shutil.rmtree(os.path.join(dst, name), ignore_errors=True)


def restore(backup: str | os.PathLike[str], destination: str | os.PathLike[str], *, run: int | None = None,
            as_of: int | None = None, topics: list[str] | None = None,
            topic_ids: Mapping[str, str] | None = None, metadata_dir: str | os.PathLike[str] | None = None,
            keep_topic_ids: bool | None = None, keep_leader_epochs: bool = False, force: bool = False,
            groups_csv: str | os.PathLike[str] | None = None, groups_partitions: int | None = None,
            recover: bool = False, progress: Progress | None = None,
            partitions: Collection[str] | None = None,
            restored_elsewhere: Mapping[str, PartitionRestore] | None = None) -> RestoreResult:
    """Restore backup run ``run`` (default: the newest) of ``backup`` into the local directory ``destination``.

    ``topics``: the topics to restore (default: every topic but Kafka's internal ones, whose state the target
    cluster keeps itself; consumer group offsets go through :mod:`kvlog.backup.groups`). Topic ids, first
    found: ``topic_ids``; the target's KRaft metadata (``metadata_dir``); the destination's own
    ``partition.metadata`` (the topics as the target cluster created them); with ``keep_topic_ids`` the
    source's. By default (``keep_topic_ids=None``) a destination no cluster owns yet (no ``meta.properties``, no
    ``__cluster_metadata-0``, no ``metadata_dir``) keeps the source's too, and a warning in the result says so;
    a destination of a cluster, or ``keep_topic_ids=False``, refuses a topic without an id.
    ``__cluster_metadata`` is never restored. A destination partition that holds records is refused unless
    ``force``.

    Consumer groups (:mod:`kvlog.backup.groups`): their committed offsets as of the cut (``as_of``, else the
    run's start), clamped to the restored partitions, go to ``groups_csv`` as ``kafka-consumer-groups.sh
    --reset-offsets --from-file`` files (a running target cluster), and with ``groups_partitions`` (the target's
    ``offsets.topic.num.partitions``) into fresh ``__consumer_offsets`` partitions under ``destination``
    (brokers stopped; the target's ``__consumer_offsets`` topic id comes from ``topic_ids``, ``metadata_dir``, the
    source's when topic ids are kept, or an existing ``__consumer_offsets-N/partition.metadata`` in ``destination``).
    A run without ``__consumer_offsets`` restores its partitions all the same, with a warning (and reset files for
    no group).

    The root (:func:`kvlog.backup.adopt.root_checkpoints`): log start offsets set, high watermarks at the restored
    ends, recovery points dropped, the source cleaner's progress clamped. The target broker's clean-shutdown marker
    (``.kafka_cleanshutdown``) is kept, so the broker loads the restored partitions as they are (each gets a producer
    snapshot at its end, as a clean shutdown leaves one); ``recover`` removes it, so the broker recovers every log
    of the directory, and a 4.x controller then handles the broker as having shut down uncleanly (see
    ``docs/broker-files.md``). A broker running on ``destination`` is refused.

    ``partitions``: only these (``topic-N`` labels) of the selected ones: a broker with several log directories is
    restored through :func:`kvlog.backup.placement.restore_broker`, which gives each directory its share, and
    ``restored_elsewhere`` (the other directories' partitions) for the groups' offsets to be clamped to them too.
    """
    t0 = time.monotonic()
    target = open_target(backup)
    manifest = read_manifest(target, run) if run is not None else latest_manifest(target)
    if manifest is None:
        raise BackupError(f"{target.uri} holds no backup run")
    dst = os.path.abspath(os.fspath(destination))
    if "://" not in target.uri:
        real, bak = os.path.realpath(dst), os.path.realpath(target.uri)
        if real == bak or real.startswith(bak + os.sep) or bak.startswith(real + os.sep):
            raise BackupError(f"the restore destination {dst} and the backup {target.uri} overlap: restore into a "
                              "broker's log directory apart from the backup")
    os.makedirs(dst, exist_ok=True)
    if broker_running(dst):
        raise BackupError(f"a broker is running on {dst} (it holds {os.path.join(dst, KAFKA_LOCK)}): restore into a "
                          "stopped broker's log directory")
    if topics is not None and _files.CLUSTER_METADATA in topics:
        raise ConfigError(f"{_files.CLUSTER_METADATA} is never restored: the target cluster has its own")
    labels = sorted(k for k, e in manifest.partitions.items()
                    if e.topic != _files.CLUSTER_METADATA and (e.topic in topics if topics is not None
                                                                  else e.topic not in INTERNAL))
    if topics is not None:
        have = {manifest.partitions[k].topic for k in labels}
        missing = [t for t in topics if t not in have]
        if missing:
            raise ConfigError(f"backup run {manifest.run} holds no topic {missing[0]!r}")
    meta_dir = None if metadata_dir is None else os.fspath(metadata_dir)
    labels, elsewhere = _assigned_here(manifest, labels, dst, meta_dir)
    if partitions is not None:  # (kvlog.backup.placement: a JBOD broker's share of this log directory)
        labels = [k for k in labels if k in set(partitions)]
    by_default = keep_topic_ids is None and not _has_cluster_metadata(dst, meta_dir)
    keep_ids = bool(keep_topic_ids) or by_default
    kept: list[str] = []
    ids = _topic_ids(manifest, labels, dst, topic_ids or {}, meta_dir, keep_ids, kept)
    params = {"backup": target.uri, "run": manifest.run, "as_of": as_of, "topics": labels, "ids": ids,
              "keep_leader_epochs": keep_leader_epochs}
    journal = _read_journal(dst)
    if journal is not None and journal.get("complete"):
        if journal.get("params") == params:  # finished already (its process may have died right after)
            again = RestoreResult(target.uri, dst, manifest.run, as_of)
            again.partitions = {k: PartitionRestore(**v) for k, v in journal.get("partitions", {}).items()}
            again.resumed = list(again.partitions)
            again.warnings.append(f"this restore finished already ({os.path.join(dst, JOURNAL)}): nothing to do")
            if recover:
                try:
                    os.unlink(os.path.join(dst, _files.CLEAN_SHUTDOWN))
                except FileNotFoundError:
                    pass
            return again
        journal = None  # an earlier restore's record: it finished, so it binds nothing
    done: list[str] = []
    if journal is not None:
        if journal.get("params") != params:
            raise BackupError(f"{os.path.join(dst, JOURNAL)} belongs to an unfinished restore with other arguments "
                              f"({journal.get('params')}); finish that one, or delete the journal")
        done = list(journal.get("done", []))
    # partitions the first run found empty: whatever they hold now, a killed run placed there
    checked = set((journal or {}).get("checked", []))
    if not force:
        busy = [k for k in labels if k not in done and k not in checked and _has_records(os.path.join(dst, k))]
        if busy:
            raise BackupError(f"{os.path.join(dst, busy[0])} already holds records; restore into partition "
                              "directories that are empty (as a new topic's are), or pass force=True")
    result = RestoreResult(target.uri, dst, manifest.run, as_of)
    result.resumed = list(done)
    result.elsewhere = elsewhere
    if elsewhere:
        result.warnings.append(f"{len(elsewhere)} of the backup's partitions are assigned to other brokers only by the "
                               "target's KRaft metadata: not placed here (restore them into those brokers' log "
                               "directories)")
    if by_default and kept:
        result.warnings.append(f"{dst} has no cluster metadata (no meta.properties, no {_files.CLUSTER_METADATA}-0, "
                               f"no metadata_dir=DIR): kept the backup's topic ids of {', '.join(map(repr, kept))} "
                               "(right for the cluster they came from; for another cluster give topic_ids={TOPIC: "
                               "ID}, or create the topics there first and restore into that broker's log directory)")
    _clear_work_dirs(dst)
    finished: dict[str, Any] = dict((journal or {}).get("partitions", {}))
    _write_journal(dst, {"params": params, "done": done, "partitions": finished, "checked": labels})
    if recover:  # the broker then recovers every log of the directory (and registers as uncleanly shut down)
        try:
            os.unlink(os.path.join(dst, _files.CLEAN_SHUTDOWN))
        except FileNotFoundError:
            pass
    _topic_table(target, manifest, dst, labels, ids)
    cleaned = _source_cleaner_offsets(target, manifest)
    pending: list[str] = []
    pending_bytes = 0

    def settle() -> None:
        """Make the placed partitions durable, then record them as done (one sync for several)."""
        nonlocal pending_bytes
        if not pending:
            return
        _sync(dst)
        done.extend(pending)
        pending.clear()
        pending_bytes = 0
        _write_journal(dst, {"params": params, "done": done, "partitions": finished, "checked": labels})

    for label in labels:
        if label in done:
            result.partitions[label] = PartitionRestore(**finished[label])
            continue
        entry = manifest.partitions[label]
        work = _work_dir(dst, label)
        pr = _restore_partition(target, manifest, entry, label, work, ids[entry.topic], as_of, keep_leader_epochs)
        final = os.path.join(dst, label)
        if os.path.isdir(final):
            old = _work_dir(dst, label)
            os.replace(final, old)
            os.replace(work, final)
            shutil.rmtree(old)
        else:
            os.replace(work, final)
        result.partitions[label] = pr
        result.bytes += pr.bytes
        finished[label] = vars(pr)
        pending.append(label)
        pending_bytes += pr.bytes
        if pending_bytes >= SETTLE_BYTES:
            settle()
        if progress is not None:
            progress(result)
    settle()
    _checkpoints(dst, [(manifest.partitions[k], result.partitions[k]) for k in labels], cleaned)
    for label in labels:  # the producer state a broker that does not recover them loads (idempotent)
        e = manifest.partitions[label]
        # the source's producer ids mean something only in the source cluster: a topic of another id (a new
        # cluster's) gets no producer state, the same topic (the same cluster) the state its batches give
        write_end_snapshot(os.path.join(dst, label), producers=e.topic_id is not None and e.topic_id == ids[e.topic])
    if groups_csv is not None or groups_partitions is not None:
        given = dict(topic_ids or {})
        if groups_partitions is not None and _groups_topic not in given:
            found = _offsets_topic_id(manifest, dst, meta_dir, keep_ids)
            if found is not None:
                given[_groups_topic] = found
        _restore_groups(target, manifest, result, as_of, groups_csv, groups_partitions, given, dst, ids,
                        restored_elsewhere or {})
    if not os.path.exists(os.path.join(dst, "meta.properties")):
        result.warnings.append(f"{dst} has no meta.properties: format it (kafka-storage format --ignore-formatted, "
                               "with the cluster's id) before starting the broker")
    if not recover and not os.path.exists(os.path.join(dst, _files.CLEAN_SHUTDOWN)):
        result.warnings.append(f"{dst} has no {_files.CLEAN_SHUTDOWN}: the broker will recover every log of the "
                               "directory when it starts")
    _sync(dst)  # the checkpoints, before the journal says the restore is complete
    # kept, marked complete: a run of the same command after a kill that came just after this does nothing
    # (a broker ignores regular files at a log directory's root)
    _write_journal(dst, {"params": params, "done": done, "partitions": finished, "checked": labels,
                         "complete": True})
    _fsync_dir(dst)
    result.elapsed_s = time.monotonic() - t0
    return result


def _restore_groups(target: Target, manifest: Manifest, result: RestoreResult, as_of: int | None,
                    csv_dir: str | os.PathLike[str] | None, partitions: int | None, given: Mapping[str, str],
                    dst: str, ids: Mapping[str, str], elsewhere: Mapping[str, PartitionRestore]) -> None:
    from kvlog.backup import groups

    cut = as_of if as_of is not None else manifest.started_ms
    if not any(e.topic == groups.TOPIC for e in manifest.partitions.values()):
        # what there is: no group (the source had none, or kept its group offsets elsewhere)
        skipped = f"; no {groups.TOPIC} partition written" if partitions is not None else ""
        result.warnings.append(f"backup run {manifest.run} holds no {groups.TOPIC}: no consumer group offsets to "
                               f"restore{skipped}")
        table = pa.Table.from_batches([], schema=groups.group_offsets_schema())
        partitions = None
    else:
        if partitions is not None and groups.TOPIC not in given:
            raise ConfigError(f"writing {groups.TOPIC} partitions needs the target cluster's topic id of "
                              f"{groups.TOPIC}: topic_ids={{{groups.TOPIC!r}: ID}} (kafka-topics --describe), "
                              f"metadata_dir=DIR, or an existing {groups.TOPIC}-N directory in the destination")
        ranges = {(p.topic, p.partition): (p.log_start_offset, p.end_offset)
                  for p in [*elsewhere.values(), *result.partitions.values()]}
        table = groups.group_offsets_at_cut(target.uri, as_of=cut, log_ranges=ranges)
    result.groups = {"groups": len(set(table.column("group").to_pylist())), "offsets": table.num_rows,
                     "clamped": sum(table.column("clamped").to_pylist()), "as_of": cut}
    if csv_dir is not None:
        result.groups["csv"] = groups.write_reset_csv(table, csv_dir)
    if partitions is not None:
        written = groups.write_offsets_partitions(table, dst, num_partitions=partitions,
                                                  topic_id=given[groups.TOPIC], topic_ids=ids)
        result.groups["partitions"] = [w.path for w in written]
        ranges = {}
        for w in written:
            with Log.open(w.path, read_only=True) as log:
                ranges[(groups.TOPIC, w.partition)] = (log.log_start_offset, log.log_end_offset)
        root_checkpoints(dst, ranges)
        for w in written:
            write_end_snapshot(w.path)


def _topic_table(target: Target, manifest: Manifest, dst: str, labels: list[str], ids: Mapping[str, str]) -> None:
    """The restored topics' entries of the backed-up ``kvlog-topics.json`` (their configs, for kvlog's readers
    of the restored directory; a broker ignores the file and takes configs from its metadata)."""
    data = target.read(f"{META_DIR}/runs/{manifest.run:020d}/root/kvlog-topics.json")
    if data is None:
        return
    try:
        theirs = json.loads(data)
    except ValueError as exc:
        raise BackupError(f"the backed-up kvlog-topics.json of run {manifest.run} is unreadable: {exc}") from None
    path = os.path.join(dst, "kvlog-topics.json")
    try:
        with open(path, encoding="utf-8") as f:
            ours = json.load(f)
    except FileNotFoundError:
        ours = {}
    except (OSError, ValueError) as exc:
        raise BackupError(f"{path} is unreadable: {exc}") from None
    for topic in {manifest.partitions[k].topic for k in labels}:
        if topic in theirs:
            entry = dict(theirs[topic])
            if "topic_id" in entry:
                entry["topic_id"] = ids[topic]
            ours[topic] = entry
    tmp = path + ".tmp"
    _write(tmp, json.dumps(ours, indent=1, sort_keys=True).encode())
    os.replace(tmp, path)


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _source_cleaner_offsets(target: Target, manifest: Manifest) -> dict[tuple[str, int], int]:
    data = target.read(f"{META_DIR}/runs/{manifest.run:020d}/root/{checkpoint.CLEANER_OFFSET}")
    if not data:
        return {}
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        try:
            return checkpoint.read_offsets(f.name)
        except checkpoint.CorruptCheckpointError:
            return {}


def _checkpoints(dst: str, restored: list[tuple[PartitionEntry, PartitionRestore]],
                 cleaned: dict[tuple[str, int], int]) -> None:
    """The restored partitions' root checkpoints (:func:`kvlog.backup.adopt.root_checkpoints`): log start offsets,
    high watermarks at the restored ends (a target's stale entry, 0 for a new topic, lies below a restored log
    start, and the leader then moves its high watermark backwards), no recovery points, and the source cleaner's
    progress clamped to the restored range (same offsets, same bytes: it still holds, and it tells readers the log
    was compacted, so gaps in its offsets are expected)."""
    root_checkpoints(dst, {(e.topic, e.partition): (pr.log_start_offset, pr.end_offset) for e, pr in restored},
                     {(e.topic, e.partition): cleaned.get((e.topic, e.partition)) for e, _ in restored})


def _offsets_topic_id(manifest: Manifest, dst: str, metadata_dir: str | None, keep: bool) -> str | None:
    """The target's ``__consumer_offsets`` topic id when none was given: the KRaft metadata's, the source's (the
    same cluster), or the one an existing ``__consumer_offsets-N`` directory of ``dst`` names."""
    if metadata_dir is not None:
        found = target_metadata(dst, metadata_dir).topic_ids.get(_groups_topic)
        if found is not None:
            return found
    if keep:
        src = {e.topic_id for e in manifest.partitions.values() if e.topic == _groups_topic and e.topic_id}
        if len(src) == 1:
            return next(iter(src))
    here = {tid for name in sorted(os.listdir(dst)) if name.startswith(_groups_topic + "-")
            and _files.parse_partition_dir(name) is not None
            for tid in [read_topic_id(os.path.join(dst, name))] if tid is not None}
    return next(iter(here)) if len(here) == 1 else None


def _reset_epochs(path: str, heads: np.ndarray) -> int:
    """Set every v2 batch's partition leader epoch (bytes 12..15, outside the CRC) to 0; returns how many.
    ``heads``: the file's batch headers."""
    v2 = heads[heads["magic"] == 2]
    if not len(v2) or not (v2["partition_leader_epoch"] != 0).any():
        return len(v2)
    fd = os.open(path, os.O_WRONLY)
    try:
        for pos in v2["position"][v2["partition_leader_epoch"] != 0].tolist():
            os.pwrite(fd, b"\0\0\0\0", int(pos) + 12)
    finally:
        os.close(fd)
    return len(v2)


def _restore_partition(target: Target, manifest: Manifest, entry: PartitionEntry, label: str, work: str,
                       topic_id: str, as_of: int | None, keep_leader_epochs: bool) -> PartitionRestore:
    os.makedirs(work)
    files = manifest.partition_files(entry.topic, entry.partition)
    bases = sorted(_files.offset_from_name(n) for n in files if n.endswith(_files.LOG) and _files.is_offset_name(n))
    total = 0
    seg_heads_of: dict[int, np.ndarray] = {}
    stale: set[int] = set()  # segments whose rebuilt indexes a later run replaced: built again below
    for name, fe in files.items():
        rel = f"{label}/{name}"
        if fe.derived == "rebuilt":
            try:
                _fetch(target, rel, fe, os.path.join(work, name))
            except BackupError:
                stale.add(_files.offset_from_name(name))
            continue
        if fe.derived == "cut":
            try:
                data = _bytes_of(target, rel, fe)
            except BackupError:
                data = _recut(target, rel, fe, entry.end_offset)
            _write(os.path.join(work, name), data)
        else:
            data = _fetch(target, rel, fe, os.path.join(work, name))
            if name.endswith(_files.LOG) and _files.is_offset_name(name):
                seg_heads_of[_files.offset_from_name(name)] = _headers_of(data, os.path.join(work, name))
        total += fe.size
    heads = np.concatenate([seg_heads_of[b] for b in bases]) if bases else np.empty(0, _k.BATCH_DTYPE)
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
        seg_heads = seg_heads_of[base]
        cut_here = base == kept[-1] and len(seg_heads) and int(seg_heads["last_offset"][-1]) >= end
        if base in stale or cut_here:
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
    if keep_leader_epochs:
        if os.path.exists(epochs):
            with open(epochs, "rb") as f:
                _write(epochs, epochs_below(f.read(), epochs, end))
    else:
        v2 = 0
        for b in kept:
            h = seg_heads_of[b]
            v2 += _reset_epochs(_files.segment_path(work, b, _files.LOG), h[h["base_offset"] < end])
        _write(epochs, broker_files.format_leader_epochs([(0, start)] if v2 and end > start else []))
    _write(os.path.join(work, "partition.metadata"), _partition_metadata(topic_id))
    return PartitionRestore(entry.topic, entry.partition, topic_id, start, end, entry.end_offset, why, total)

