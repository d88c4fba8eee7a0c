"""Mirroring: copy a log, or every partition of a data directory, into another (MirrorMaker-style).

What is copied, per record: key, value, headers and timestamp (the timestamp is written as CreateTime;
a target configured with ``message.timestamp.type=LogAppendTime`` stamps its own append time instead).
Offsets are **reassigned** by the target (leader semantics: the target's ``append`` assigns them from its
log end offset), so a record at source offset ``s`` usually lands at another target offset ``t``;
:meth:`MirrorStats.translate` maps one to the other.

What is not copied:

* control batches (transaction markers): consumers never see them;
* producer ids, epochs and sequences, and the transactional flag: the target is a new producer, as it is
  for MirrorMaker. Records of **aborted** transactions are copied as-is, like committed ones
  (``read_committed`` filtering needs the aborted-transaction index and comes in a later issue);
* the source's batch boundaries: records are re-encoded in batches of up to
  :data:`kvlog.records.DEFAULT_RECORDS_PER_BATCH` records and at most the target's ``max.message.bytes``,
  keeping each source batch's codec (unless the target's ``compression.type`` or ``compression=`` says
  otherwise).

Sources are opened read-only (a writer may be appending): a run copies the snapshot of the source that
existed when it started, up to its log end offset at that moment.

**Resuming.** After a run the target partition directory holds ``mirror-checkpoint``, a small JSON file
``{"version": 1, "sources": {"<source partition path>": {"next_offset": N, "target_end_offset": M}}}``
written atomically after the target was flushed. Running again copies only what the source gained since.
The checkpoint is also written every :data:`CHECKPOINT_EVERY_BYTES` of source data. If a run stopped
after appending but before its checkpoint (a crash), the target's log end offset is past
``target_end_offset``; when the records past it equal (key and value) the next source records, the next
run skips them so nothing is copied twice (otherwise it warns and copies from the checkpoint).

Throughput: whole chunks of batches are decoded to Arrow columns (``MemoryRecords.to_arrow``) and
re-encoded from those columns (``encode_arrays``); there is no per-record Python code on this path.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kvlog import _files, _io, storage
from kvlog.config import LogConfig
from kvlog.errors import ConfigError, DirectoryNotFoundError, OffsetOutOfRangeError
from kvlog.log import Log
from kvlog.manager import LogManager
from kvlog.mirror_checkpoint import CHECKPOINT_FILE as CHECKPOINT_FILE, read_checkpoint, write_checkpoint
from kvlog.records import Compression, MemoryRecords, encode_arrays

__all__ = ["CHECKPOINT_FILE", "DEFAULT_BATCH_BYTES", "MirrorStats", "mirror_directory", "mirror_log",
           "read_checkpoint"]

DEFAULT_BATCH_BYTES = 8 << 20
CHECKPOINT_EVERY_BYTES = 256 << 20  # of source data copied: bounds what a crash leaves to reconcile
_MAX_ENCODED_BATCH = 1 << 20

ProgressCallback = Callable[["MirrorStats"], None]


@dataclass
class MirrorStats:
    """What one ``mirror_log`` run copied.

    ``source_start_offset``/``source_end_offset``: the source offsets this run covered,
    ``[start, end)``; ``source_end_offset`` is where the next run resumes. ``target_start_offset``/
    ``target_end_offset``: the target offsets the copied records received, ``[start, end)`` (equal when
    nothing was copied). ``bytes`` counts bytes appended to the target, ``source_bytes`` bytes of source
    batches read; ``control_records`` the transaction markers skipped.
    """

    source: str
    target: str
    records: int = 0
    batches: int = 0
    bytes: int = 0
    source_bytes: int = 0
    control_records: int = 0
    source_start_offset: int = -1
    source_end_offset: int = -1
    target_start_offset: int = -1
    target_end_offset: int = -1
    elapsed_s: float = 0.0
    warnings: list[str] = field(default_factory=list)
    #: why this partition was not copied at all ("" when it was): ``__cluster_metadata`` is skipped
    skipped: str = ""
    _runs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list, repr=False)
    _map: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def records_per_second(self) -> float:
        return self.records / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def _add_runs(self, src: np.ndarray, tgt_first: int) -> None:
        """Record that source offsets ``src`` (increasing) became target offsets ``tgt_first, +1, …``."""
        if not len(src):
            return
        breaks = np.flatnonzero(np.diff(src) != 1) + 1
        starts = np.concatenate([[0], breaks])
        lengths = np.diff(np.concatenate([starts, [len(src)]]))
        self._runs.append((src[starts].astype(np.int64), (tgt_first + starts).astype(np.int64),
                           lengths.astype(np.int64)))
        self._map = None

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._map is None:
            if self._runs:
                src, tgt, length = (np.concatenate([r[i] for r in self._runs]) for i in range(3))
                self._map = (src, tgt, length)
            else:
                empty = np.empty(0, dtype=np.int64)
                self._map = (empty, empty, empty)
        assert self._map is not None
        return self._map

    @property
    def offset_map(self) -> list[tuple[int, int]]:
        """``(source offset, target offset)`` at the start of every run of consecutive copied offsets.

        A new entry starts wherever the copied source offsets have a gap (a compacted range, a skipped
        control batch) or a new append began; between entries offsets advance together.
        """
        src, tgt, _ = self._arrays()
        return list(zip(src.tolist(), tgt.tolist()))

    def translate(self, source_offset: int) -> int:
        """The target offset of source offset ``source_offset`` (for offsets this run covered).

        Resolution: exact for every source offset that was copied. An offset that was not copied (a
        control record, a gap in a compacted source) maps to the target offset of the next copied
        record — the position a consumer switching over should resume at; ``source_end_offset`` maps to
        ``target_end_offset``. ``OffsetOutOfRangeError`` outside ``[source_start_offset,
        source_end_offset]``.
        """
        s = int(source_offset)
        if self.source_start_offset < 0 or not self.source_start_offset <= s <= self.source_end_offset:
            raise OffsetOutOfRangeError(
                f"source offset {s} was not covered by this mirror run "
                f"({self.source_start_offset}..{self.source_end_offset})",
                log_start_offset=self.source_start_offset, log_end_offset=self.source_end_offset)
        src, tgt, length = self._arrays()
        i = int(np.searchsorted(src, s, side="right")) - 1
        if i < 0:
            return int(tgt[0]) if len(tgt) else self.target_end_offset
        return int(tgt[i] + min(s - int(src[i]), int(length[i])))

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "target": self.target, "records": self.records, "batches": self.batches,
            "bytes": self.bytes, "source_bytes": self.source_bytes, "control_records": self.control_records,
            "source_offsets": [self.source_start_offset, self.source_end_offset],
            "target_offsets": [self.target_start_offset, self.target_end_offset],
            "elapsed_s": round(self.elapsed_s, 6), "warnings": list(self.warnings), "skipped": self.skipped,
        }


# ---------------------------------------------------------------------------------------------- copying
def _target_codec(target: Log, forced: Compression | str | int | None) -> Compression | None:
    if forced is not None:
        return Compression.parse(forced)
    ct = target.config.compression_type
    if ct != "producer":
        return Compression.parse(ct)
    return None


def _plain_headers(col: Any) -> Any:
    """Arrow headers column without nulls (records without headers get an empty list), or None."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if col.null_count == len(col):
        return None
    if col.null_count:
        # encode_arrays takes a fast path for lists without nulls; an empty list encodes like no headers
        lengths = pc.fill_null(pc.list_value_length(col), 0).to_numpy()
        offsets = np.zeros(len(col) + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        col = pa.ListArray.from_arrays(pa.array(offsets), pc.list_flatten(col))  # flatten skips nulls
    return col


def _reconcile(src: Log, target: Log, start: int, end: int, target_from: int, count: int,
               batch_bytes: int) -> int | None:
    """Where to resume when the target holds ``count`` records past its checkpoint (``target_from`` on).

    Those records were appended by a run that stopped before writing its checkpoint if they equal (key
    and value) the next ``count`` copyable source records from ``start``: then the source offset after
    them, else None (someone else wrote to the target, or the source changed).
    """
    pos, done = start, 0
    while done < count and pos < end:
        mr = src.read(pos, batch_bytes, max_offset=end)
        if not len(mr):
            break
        hdr = mr.batch_headers(check_crc=True)
        tab = mr.to_arrow(include_headers=False, check_crc=False)
        offs = tab.column("offset")
        tab = tab.filter(pc.and_(pc.greater_equal(offs, pos), pc.less(offs, end)))
        take = min(len(tab), count - done)
        mine = tab.slice(0, take)
        theirs = target.to_arrow(target_from + done, target_from + done + take, include_headers=False)
        if len(theirs) != take or not (theirs.column("key").equals(mine.column("key"))
                                       and theirs.column("value").equals(mine.column("value"))):
            return None
        done += take
        if take < len(tab):
            return int(mine.column("offset")[take - 1].as_py()) + 1
        pos = min(int(hdr["last_offset"][-1]) + 1, end)
    return pos if done == count else None


def mirror_log(
    source: Log | str | os.PathLike[str],
    target: Log,
    *,
    start_offset: int | None = None,
    from_timestamp: int | None = None,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    progress: ProgressCallback | None = None,
    compression: Compression | str | int | None = None,
    checkpoint: bool = True,
) -> MirrorStats:
    """Copy the records of ``source`` (a Log, or a partition directory opened read-only) into ``target``.

    Where to start: ``start_offset`` if given; else the ``mirror-checkpoint`` entry for this source in
    the target directory (resume); else the first offset whose timestamp is ≥ ``from_timestamp``
    (nothing when no record is that recent); else the source's log start offset. The run ends at the
    source's log end offset as seen when it started. ``batch_bytes`` bounds each read from the source
    (at least one batch is read). ``progress(stats)`` is called after every chunk. ``compression``
    forces the target codec (default: each source batch's codec, or the target's ``compression.type``).
    ``checkpoint=False`` neither reads nor writes ``mirror-checkpoint``.
    """
    if not isinstance(target, Log):
        raise TypeError(f"mirror_log's target must be a Log opened for writing, not {type(target).__name__}")
    _refuse_metadata_log(source.dir if isinstance(source, Log) else os.fspath(source), "mirror from")
    _refuse_metadata_log(target.dir, "mirror into")
    own = not isinstance(source, Log)
    src = source if isinstance(source, Log) else Log.open(source, read_only=True)
    t0 = time.monotonic()
    try:
        key = src.dir if storage.is_remote(src.dir) else os.path.realpath(src.dir)
        stats = MirrorStats(source=src.dir, target=target.dir)
        table = read_checkpoint(target.dir) if checkpoint else {}
        entry = table.get(key)
        end = src.log_end_offset
        if start_offset is not None:
            start = int(start_offset)
        elif entry is not None:
            start = entry["next_offset"]
            extra = target.log_end_offset - entry["target_end_offset"]
            if extra > 0:
                # maybe appended by a run that stopped before writing its checkpoint: don't copy twice
                resume = _reconcile(src, target, max(start, src.log_start_offset), end,
                                    entry["target_end_offset"], extra, batch_bytes)
                if resume is None:
                    stats.warnings.append(f"the target has {extra} records past its checkpoint that are not "
                                          "the next source records; copying from the checkpoint")
                else:
                    start = resume
        elif from_timestamp is not None:
            found = src.offset_for_timestamp(int(from_timestamp))
            start = end if found is None else found.offset
        else:
            start = src.log_start_offset
        if start < src.log_start_offset:
            stats.warnings.append(
                f"source offsets {start}..{src.log_start_offset - 1} are gone (retention); starting at "
                f"{src.log_start_offset}")
            start = src.log_start_offset
        start = min(start, end)
        stats.source_start_offset = stats.source_end_offset = start
        stats.target_start_offset = stats.target_end_offset = target.log_end_offset
        forced = _target_codec(target, compression)
        cfg = target.config
        # (source offset, target log end offset) after the last fully copied chunk
        done = (start, target.log_end_offset)
        saved = (entry["next_offset"], entry["target_end_offset"]) if entry is not None else None
        unsaved_bytes = 0

        def save() -> None:
            nonlocal saved, unsaved_bytes
            unsaved_bytes = 0
            if not checkpoint or done == saved:
                return
            target.flush()  # the checkpoint must never claim more than the target has on disk
            table[key] = {"next_offset": done[0], "target_end_offset": done[1]}
            write_checkpoint(target.dir, table)
            saved = done

        try:
            pos = start
            while pos < end:
                mr = src.read(pos, batch_bytes, max_offset=end)
                if not len(mr):
                    break
                hdr = mr.batch_headers(check_crc=True)
                next_pos = min(int(hdr["last_offset"][-1]) + 1, end)
                _copy_chunk(mr, hdr, pos, end, target, cfg, forced, stats)
                done = (next_pos, target.log_end_offset)
                stats.source_bytes += len(mr)
                stats.source_end_offset = next_pos
                stats.elapsed_s = time.monotonic() - t0
                unsaved_bytes += len(mr)
                if unsaved_bytes >= CHECKPOINT_EVERY_BYTES:
                    save()
                if progress is not None:
                    progress(stats)
                if next_pos <= pos:
                    break
                pos = next_pos
        finally:
            stats.elapsed_s = time.monotonic() - t0
            save()
        return stats
    finally:
        if own:
            src.close()


def _copy_chunk(mr: MemoryRecords, hdr: np.ndarray, pos: int, end: int, target: Log, cfg: LogConfig,
                forced: Compression | None, stats: MirrorStats) -> None:
    """Decode one chunk of source batches, keep offsets in ``[pos, end)``, re-encode and append."""
    control = (hdr["magic"] == 2) & ((hdr["attributes"] & 0x20) != 0)
    if control.any():
        lo = np.maximum(hdr["base_offset"], pos)
        hi = np.minimum(hdr["last_offset"], end - 1)
        counted = np.where(control & (hi >= lo), np.maximum(hdr["record_count"], 0), 0)
        stats.control_records += int(counted.sum())
    tab = mr.to_arrow(include_headers=True, check_crc=False, include_control=False)
    if not len(tab):
        return
    offs = tab.column("offset")
    first, last = pc.min(offs).as_py(), pc.max(offs).as_py()
    if first < pos or last >= end:
        tab = tab.filter(pc.and_(pc.greater_equal(offs, pos), pc.less(offs, end)))
        if not len(tab):
            return
    src_offsets = tab.column("offset").to_numpy()
    if forced is not None:
        groups = [(0, len(tab), forced)]
    else:
        # each record keeps the codec of the source batch it came from (runs of equal codecs)
        codecs = (hdr["attributes"] & 7).astype(np.int64)
        which = np.searchsorted(hdr["last_offset"], src_offsets, side="left")
        row_codec = codecs[np.minimum(which, len(codecs) - 1)]
        cuts = np.flatnonzero(np.diff(row_codec)) + 1
        bounds = np.concatenate([[0], cuts, [len(tab)]])
        groups = [(int(a), int(b), Compression(int(row_codec[a]))) for a, b in itertools.pairwise(bounds)]
    for a, b, codec in groups:
        part = tab.slice(a, b - a)
        limit = min(_MAX_ENCODED_BATCH, cfg.max_message_bytes)
        if codec != Compression.NONE:
            limit -= min(limit // 2, 256 + limit // 100)  # room for a codec's framing on incompressible data
        data = encode_arrays(part.column("key"), part.column("value"), part.column("timestamp"),
                             headers=_plain_headers(part.column("headers")), compression=codec,
                             max_batch_bytes=max(limit, 128))
        _append_groups(data, src_offsets[a:b], target, cfg, stats)


def _append_groups(data: bytes, src_offsets: np.ndarray, target: Log, cfg: LogConfig,
                   stats: MirrorStats) -> None:
    """Append ``data`` (whole batches) in pieces no larger than ``segment.bytes``; record the offset map."""
    hdr = MemoryRecords(data).batch_headers(check_crc=False)
    sizes = hdr["size"].astype(np.int64)
    counts = hdr["record_count"].astype(np.int64)
    view = memoryview(data)
    i, n, pos, row = 0, len(hdr), 0, 0
    while i < n:
        j, size = i, 0
        while j < n and (j == i or size + sizes[j] <= cfg.segment_bytes):
            size += int(sizes[j])
            j += 1
        info = target.append(view[pos:pos + size])
        rows = int(counts[i:j].sum())
        stats._add_runs(src_offsets[row:row + rows], info.first_offset)
        if stats.records == 0:
            stats.target_start_offset = info.first_offset
        stats.records += rows
        stats.batches += j - i
        stats.bytes += info.valid_bytes
        stats.target_end_offset = info.last_offset + 1
        pos += size
        row += rows
        i = j


METADATA_LOG_SKIPPED = (f"{_files.CLUSTER_METADATA} is KRaft's Raft log, not a topic: mirroring renumbers offsets "
                        "and drops control records, which would corrupt it; copy its files instead")


def _refuse_metadata_log(path: str, what: str) -> None:
    tp = _files.parse_partition_dir(storage.split_query(path)[0])
    if tp is not None and tp[0] == _files.CLUSTER_METADATA:
        raise ConfigError(f"refusing to {what} {storage.redact(path)}: {METADATA_LOG_SKIPPED}")


# -------------------------------------------------------------------------------------------- directories
def _partition_dirs(root: str) -> dict[str, list[int]]:
    """``{topic: [partitions]}`` for the partition directories under ``root`` (only those that exist and
    hold Kafka partition files; see ``kvlog._files.partition_dirs``)."""
    out: dict[str, list[int]] = {}
    for topic, partition in sorted(_files.partition_dirs(root)[0]):
        out.setdefault(topic, []).append(partition)
    return out


def _resolve_config(config: LogConfig | Mapping[str, object] | None, base: LogConfig) -> LogConfig:
    if isinstance(config, LogConfig):
        return config
    if config is None:
        return base
    props: dict[str, object] = dict(base.to_properties())
    props.update(config)
    return LogConfig.from_properties(props)


def mirror_directory(
    source_root: str | os.PathLike[str],
    target_root: str | os.PathLike[str],
    *,
    topic_map: Mapping[str, str] | None = None,
    config: LogConfig | Mapping[str, object] | None = None,
    from_timestamp: int | None = None,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    progress: ProgressCallback | None = None,
    compression: Compression | str | int | None = None,
    topics: list[str] | None = None,
) -> dict[tuple[str, int], MirrorStats]:
    """Mirror every partition of a Kafka or kvlog data directory into another data directory.

    Target topics are named through ``topic_map`` (default: the same name) and created through a
    :class:`LogManager` on ``target_root`` with exactly the partitions the source directory holds (a
    broker's directory may hold some of a topic's partitions: no others are created); an existing target
    topic must have every partition the source has. ``__cluster_metadata`` (KRaft's Raft log) is never
    copied: its entry in the result has ``skipped`` set and no records. Their configuration: ``config`` when it is a :class:`LogConfig`;
    otherwise the source topic's configuration (kvlog's topic table; Kafka defaults for a broker's
    directory) with ``config``'s ``{kafka name: value}`` entries on top. ``topics`` restricts the run
    to those source topics. Each partition goes through :func:`mirror_log` (resumable, read-only source).
    Returns ``{(source topic, partition): MirrorStats}``.
    """
    src_root = storage.normalize(source_root)  # a local directory or a backup in an object store
    if not _io.fs.isdir(src_root):
        raise DirectoryNotFoundError(f"no data directory at {storage.redact(src_root)}")
    mapping = dict(topic_map or {})
    found = _partition_dirs(src_root)
    if topics is not None:
        if isinstance(topics, str):
            raise TypeError(f"topics must be a list of topic names, not the string {topics!r}")
        missing = [t for t in topics if t not in found]
        if missing:
            raise ConfigError(f"no topic {missing[0]!r} in {src_root}")
        if _files.CLUSTER_METADATA in topics:
            raise ConfigError(f"refusing to mirror {_files.CLUSTER_METADATA}: {METADATA_LOG_SKIPPED}")
        found = {t: found[t] for t in topics}
    unknown = [t for t in mapping if t not in found]
    if unknown:
        raise ConfigError(f"--topic-map names topic {unknown[0]!r}, which {src_root} does not have")
    if _files.CLUSTER_METADATA in {mapping.get(t, t) for t in found if t != _files.CLUSTER_METADATA}:
        raise ConfigError(f"--topic-map cannot write into {_files.CLUSTER_METADATA}: {METADATA_LOG_SKIPPED}")
    src_mgr = LogManager(src_root, read_only=True)
    results: dict[tuple[str, int], MirrorStats] = {}
    try:
        with LogManager(target_root) as tgt_mgr:
            existing = tgt_mgr.topics()
            for topic, parts in found.items():
                if topic == _files.CLUSTER_METADATA:
                    for p in parts:
                        results[(topic, p)] = MirrorStats(source=os.path.join(src_root, f"{topic}-{p}"), target="",
                                                          skipped=METADATA_LOG_SKIPPED)
                    continue
                name = mapping.get(topic, topic)
                if name in existing:
                    have = set(tgt_mgr.partitions(name))
                    lacking = [p for p in parts if p not in have]
                    if lacking:
                        raise ConfigError(f"target topic {name!r} lacks partition {lacking[0]}, which the "
                                          f"source topic {topic!r} has")
                else:
                    tgt_mgr.create_topic(name, parts, _resolve_config(config, src_mgr.topic_config(topic)))
                    existing[name] = len(parts)
                for p in parts:
                    results[(topic, p)] = mirror_log(
                        os.path.join(src_root, f"{topic}-{p}"), tgt_mgr.log(name, p),
                        from_timestamp=from_timestamp, batch_bytes=batch_bytes, progress=progress,
                        compression=compression)
    finally:
        src_mgr.close()
    return results
