"""What of a live partition directory a backup takes, and where it cuts the partition.

The source is a broker's ``log.dirs`` entry being written while we read. Nothing here writes to it. A
partition's backup ends at its **cut**: the high watermark the broker last checkpointed
(``replication-offset-checkpoint``) when it has one, else the log's end. The high watermark is what
consumers could see and what every in-sync replica holds; past it lie records a leader change may still
truncate, so a backup that took them could hold records the cluster never kept. The recovery point is not
used: with Kafka's default ``flush.messages``/``flush.ms`` it moves only when a segment rolls, so it would
cut most of the active segment. The checkpoint lags the live high watermark by up to
``replica.high.watermark.checkpoint.interval.ms`` (5 s by default), never the other way.

The segment holding the cut is copied up to the last whole, CRC-valid batch before it, and its indexes are
built for that prefix from its batch headers by the rules of recovery (:func:`recovered_indexes`, what
:meth:`kvlog.segment.LogSegment.recover` and Kafka's ``LogSegment.recover`` build), its transaction index
and the leader-epoch checkpoint cut to it. Closed segments are copied verbatim, each batch's CRC checked on
the way: damage there stops the partition's backup (its previous copy stands) unless ``allow_damage``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from kvlog import _files, broker_files, checkpoint, committed_offsets
from kvlog._core import records as _k
from kvlog.errors import BackupError, KvlogError
from kvlog.txn_index import ENTRY_DTYPE, parse_entries

__all__ = ["FileJob", "PartitionPlan", "plan_partition", "RootState", "read_root_state", "SKIP_SUFFIXES"]

#: files a broker or kvlog leaves that are never part of a backup (work in progress, locks, set-aside bytes)
SKIP_SUFFIXES = (".deleted", ".cleaned", ".swap", ".tmp", ".quarantined", ".kvlog.lock", ".lock")
_SCAN_CAP = 4096
_WINDOW = 8 << 20


@dataclass
class FileJob:
    """One file of the backup: ``name`` in the partition directory, from ``path`` (the source file).

    ``kind``: ``verbatim`` (the source file's bytes, ``.log`` files CRC-checked batch by batch),
    ``prefix`` (the first ``size`` bytes of the source ``.log``), or ``bytes`` (``data``, built here).
    """

    name: str
    kind: str
    path: str = ""
    stat: tuple[int, int, int] | None = None
    size: int = 0
    data: bytes = b""
    derived: str = ""


@dataclass
class PartitionPlan:
    topic: str
    partition: int
    directory: str
    log_start_offset: int
    end_offset: int
    cut: str
    high_watermark: int | None
    recovery_point: int | None
    topic_id: str | None
    index_interval_bytes: int
    jobs: list[FileJob] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class RootState:
    high_watermarks: dict[tuple[str, int], int]
    recovery_points: dict[tuple[str, int], int]
    log_starts: dict[tuple[str, int], int]
    committed: committed_offsets.CommittedOffsets
    files: list[str]  # root files worth keeping (checkpoints, meta.properties, kvlog-topics.json …)


def _table(root: str, name: str, warnings: list[str]) -> dict[tuple[str, int], int]:
    try:
        return checkpoint.read_offsets(os.path.join(root, name))
    except checkpoint.CorruptCheckpointError as exc:
        warnings.append(f"{exc}; partitions are cut at their log end instead")
        return {}


def read_root_state(root: str, warnings: list[str]) -> RootState:
    files = []
    for name in sorted(os.listdir(root)):
        full = os.path.join(root, name)
        if not os.path.isfile(full) or name.endswith(SKIP_SUFFIXES) or name.startswith(
                (committed_offsets.LEASE_PREFIX, ".kvlog")) or name == _files.LOCK:
            continue
        files.append(name)
    return RootState(_table(root, checkpoint.REPLICATION_OFFSET, warnings),
                     _table(root, checkpoint.RECOVERY_POINT, warnings),
                     _table(root, checkpoint.LOG_START_OFFSET, warnings),
                     committed_offsets.latest(root), files)


def stat_of(path: str) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def read_topic_id(directory: str) -> str | None:
    """The directory's topic id, or None when it has no readable ``partition.metadata`` (a backup copies the
    file as it is, and ``kvlog verify`` names what is wrong with it)."""
    try:
        return broker_files.read_partition_metadata(directory)
    except (OSError, KvlogError):
        return None


def scan_prefix(path: str, stop_offset: int) -> tuple[int, int, np.ndarray, str]:
    """The whole, CRC-valid batches at the start of the ``.log`` at ``path`` that end before
    ``stop_offset``: ``(bytes, next offset, headers, why it stopped)``; why is "" at the file's end or the
    stop offset, else what was wrong at that position. Read in windows: only the headers are kept."""
    parts: list[np.ndarray] = []
    out = np.empty(_SCAN_CAP, dtype=_k.BATCH_DTYPE)
    why, base_pos, carry = "", 0, b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(_WINDOW)
            data = carry + chunk if carry else chunk
            if not data:
                break
            pos, stop = 0, False
            while pos < len(data):
                count, nxt, status, error = _k.scan(data, pos, len(data), out, True, True)
                got = out[:count].copy()
                got["position"] += base_pos
                bad = np.flatnonzero(got["crc_valid"] == 0) if count else np.empty(0, np.int64)
                if len(bad):
                    why = f"CRC mismatch in the batch at position {int(got['position'][bad[0]])}"
                    got, stop = got[:bad[0]], True
                over = np.flatnonzero(got["last_offset"] >= stop_offset) if len(got) else np.empty(0, np.int64)
                if len(over):
                    got, why, stop = got[:over[0]], "", True
                parts.append(got)
                if error is not None and not stop:
                    why, stop = f"{error}", True
                if stop:
                    break
                pos = nxt
                if status != _k.FULL:
                    break
            if stop:
                break
            carry = bytes(data[pos:])
            base_pos += pos
            if not chunk:  # the file's end: what is left is no whole batch
                if carry and any(carry):
                    why = f"incomplete batch at position {base_pos}"
                break
    heads = np.concatenate(parts) if parts else np.empty(0, _k.BATCH_DTYPE)
    size = int(heads["position"][-1] + heads["size"][-1]) if len(heads) else 0
    return size, (int(heads["last_offset"][-1]) + 1 if len(heads) else -1), heads, why


def recovered_indexes(heads: np.ndarray, base: int, interval: int) -> tuple[bytes, bytes]:
    """The ``.index`` and ``.timeindex`` that recovery (:meth:`kvlog.segment.LogSegment.recover`, Kafka's
    ``LogSegment.recover``) builds for a segment whose batches are ``heads``, without reading the segment
    again: an offset entry (the batch's last offset, its position) at the first batch more than
    ``interval`` bytes past the previous entry, with a time entry (the largest timestamp so far, the last
    offset of the batch that first carried it) where that timestamp grew, and a last time entry for the
    segment's largest timestamp."""
    n = len(heads)
    if not n:
        return b"", b""
    pos = heads["position"].astype(np.int64)
    last = heads["last_offset"].astype(np.int64)
    stamps = np.maximum(heads["max_timestamp"].astype(np.int64), -1)
    run = np.maximum.accumulate(stamps)
    grew = np.empty(n, dtype=bool)
    grew[0] = stamps[0] > -1
    grew[1:] = stamps[1:] > run[:-1]
    at = np.maximum.accumulate(np.where(grew, np.arange(n), -1))
    shallow = np.where(at >= 0, last[np.maximum(at, 0)], base)
    offsets, times = [], []
    last_time, indexed = -1, 0
    i = int(np.searchsorted(pos, interval, side="right"))
    while i < n:
        offsets.append((int(last[i]) - base, int(pos[i])))
        if run[i] > last_time:
            last_time = int(run[i])
            times.append((last_time, int(shallow[i]) - base))
        indexed = int(pos[i])
        i = int(np.searchsorted(pos, indexed + interval, side="right"))
    if run[-1] > last_time:
        times.append((int(run[-1]), int(shallow[-1]) - base))
    index = np.array(offsets, dtype=[("o", ">i4"), ("p", ">i4")]).tobytes()
    time_index = np.array(times, dtype=[("t", ">i8"), ("o", ">i4")]).tobytes()
    return index, time_index


def epochs_below(data: bytes, where: str, end: int) -> bytes:
    """A leader-epoch checkpoint's bytes without the entries starting at or past ``end`` (Kafka's
    ``truncateFromEnd``); ``BackupError`` naming ``where`` when the file breaks the format."""
    try:
        entries = broker_files.parse_leader_epochs(data, where)
    except KvlogError as exc:
        raise BackupError(str(exc)) from None
    return broker_files.format_leader_epochs(e for e in entries if e[1] < end)


def _epochs_cut(path: str, end: int) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return epochs_below(f.read(), path, end)
    except FileNotFoundError:
        return None


def _txn_cut(path: str, end: int) -> bytes:
    with open(path, "rb") as f:
        entries = parse_entries(f.read())
    return np.ascontiguousarray(entries[entries["last_offset"] < end], dtype=ENTRY_DTYPE).tobytes()


def plan_partition(root: str, topic: str, partition: int, state: RootState, index_interval: int, *,
                   allow_damage: bool = False, cluster_end: int | None = None) -> PartitionPlan:
    """Decide what of ``<root>/<topic>-<partition>`` this run backs up (see the module docstring).

    ``cluster_end``: the end a cluster of brokers committed (:class:`kvlog.Cluster`), the cut instead of this
    broker's checkpointed high watermark (a cluster's backup reads each partition from one replica)."""
    d = os.path.join(root, f"{topic}-{partition}")
    names = sorted(os.listdir(d))
    tp = (topic, partition)
    hw = state.high_watermarks.get(tp)
    rp = state.recovery_points.get(tp)
    governed = state.committed.range_of(topic, partition)
    bases = sorted(_files.offset_from_name(n) for n in names
                   if n.endswith(_files.LOG) and _files.is_offset_name(n))
    limit, cut = (hw, "high_watermark") if hw is not None else (None, "log_end")
    if cluster_end is not None:
        limit, cut = cluster_end, "cluster_committed"
    if governed is not None and (limit is None or governed[1] < limit):
        limit, cut = governed[1], "committed_offsets"
    kept = [b for b in bases if limit is None or b < limit] or bases[:1]
    plan = PartitionPlan(topic, partition, d, 0, 0, cut, hw, rp, read_topic_id(d), index_interval)
    if not kept:
        start = max(state.log_starts.get(tp, 0), governed[0] if governed else 0)
        plan.log_start_offset = plan.end_offset = start
    else:
        last = kept[-1]
        log_path = _files.segment_path(d, last, _files.LOG)
        before = stat_of(log_path)
        size, nxt, heads, why = scan_prefix(log_path, limit if limit is not None else 2**63 - 1)
        end = nxt if nxt >= 0 else last
        if why:
            if last != bases[-1] or (limit is not None and end < limit and not allow_damage):
                # damage below what the broker reported durable: not a torn tail
                raise BackupError(f"{log_path}: {why}, below the cut at offset {limit}; the partition's "
                                  "previous backup stands (repair the source, or allow damage to back up what "
                                  "precedes it)")
            plan.warnings.append(f"{log_path}: {why}; the backup of {topic}-{partition} ends at offset {end}")
            cut = "damage" if limit is not None and end < limit else cut
        plan.end_offset = end
        plan.cut = cut
        plan.log_start_offset = min(max(state.log_starts.get(tp, kept[0]), kept[0], governed[0] if governed else 0),
                                    end)
        for base in kept[:-1]:
            for suffix in _files.SEGMENT_SUFFIXES:
                name = _files.prefix(base) + suffix
                if name in names:
                    p = os.path.join(d, name)
                    plan.jobs.append(FileJob(name, "verbatim", p, stat_of(p)))
        pre = _files.prefix(last)
        plan.jobs.append(FileJob(pre + _files.LOG, "prefix", log_path, before, size=size,
                                 derived=f"prefix:{size}"))
        if size:
            index, time_index = recovered_indexes(heads, last, index_interval)
            plan.jobs.append(FileJob(pre + _files.INDEX, "bytes", data=index, derived="rebuilt"))
            plan.jobs.append(FileJob(pre + _files.TIME_INDEX, "bytes", data=time_index, derived="rebuilt"))
        else:
            for suffix in (_files.INDEX, _files.TIME_INDEX):
                plan.jobs.append(FileJob(pre + suffix, "bytes", data=b"", derived="rebuilt"))
        if pre + _files.TXN_INDEX in names:
            plan.jobs.append(FileJob(pre + _files.TXN_INDEX, "bytes",
                                     data=_txn_cut(os.path.join(d, pre + _files.TXN_INDEX), end), derived="cut"))
        after = stat_of(log_path)
        if after[2] != before[2] or after[0] < size:
            raise BackupError(f"{log_path} was replaced while it was read (compaction or truncation); "
                              "run the backup again")
    for name in names:
        full = os.path.join(d, name)
        if name.endswith(SKIP_SUFFIXES) or committed_offsets.UNCOMMITTED in name or not os.path.isfile(full):
            continue
        if name.endswith(_files.SNAPSHOT) and _files.is_offset_name(name):
            if _files.offset_from_name(name) <= plan.end_offset:
                plan.jobs.append(FileJob(name, "verbatim", full, stat_of(full)))
        elif name == "leader-epoch-checkpoint":
            data = _epochs_cut(full, plan.end_offset)
            if data is not None:
                plan.jobs.append(FileJob(name, "bytes", data=data, derived="cut"))
        elif name in ("partition.metadata", "quorum-state") or name.endswith(".checkpoint"):
            plan.jobs.append(FileJob(name, "verbatim", full, stat_of(full)))
        elif not (_files.is_offset_name(name) and name.endswith(_files.SEGMENT_SUFFIXES)):
            plan.warnings.append(f"{full}: not a Kafka partition file; not backed up")
    return plan
