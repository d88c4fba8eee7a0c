"""Read-only checks of partitions and data directories: what ``kvlog verify`` computes.

:func:`verify_partition` and :func:`verify_path` return typed reports (:class:`PartitionReport`,
:class:`Problem`) and print nothing, so tests, fuzzers and other tools use the same verdicts the command
prints. Batches are judged by :func:`kvlog.batch_audit.audit_segment`, the verdict recovery reaches.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kvlog import committed_offsets, _files, _io, checkpoint, storage
from kvlog.batch_audit import REPAIRABLE, ProducerLast, audit_segment, dense_history, snapshot_producers
from kvlog.broker_files import LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA, parse_partition_metadata
from kvlog.epoch_audit import EpochTrace
from kvlog.errors import CorruptPartitionMetadataError, CorruptSnapshotError, KvlogError
from kvlog.index import kafka_index_end, read_offset_index, read_time_index
from kvlog.mirror_checkpoint import CHECKPOINT_FILE, read_checkpoint
from kvlog.producer_state import read_snapshot
from kvlog.repair import REPAIRED
from kvlog.root_files import checked_topics
from kvlog.segment import LogSegment
from kvlog.txn_index import ENTRY_SIZE as TXN_ENTRY_SIZE

__all__ = ["MAX_REPORTED", "PartitionReport", "Problem", "verify_partition", "verify_path"]

MAX_REPORTED = 20  # problems of one kind reported per file before summarising
# Kafka 3.6-3.7's topic-based remote log metadata manager keeps its consumed positions of a tiered partition
# in this file of the partition's directory (seen in a 3.7.2 broker's directory; later versions do not).
REMOTE_LOG_SNAPSHOT = "remote_log_snapshot"


@dataclass
class Problem:
    """One finding of ``kvlog verify``: ``severity`` is "error" (the check fails) or "warning"."""

    severity: str
    file: str
    message: str
    position: int | None = None
    count: int = 1
    """How many findings this problem stands for: a summary of findings not listed one by one counts them all."""

    def text(self) -> str:
        where = f" position {self.position}" if self.position is not None else ""
        return f"{self.severity}: {self.file}{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "file": self.file, "position": self.position,
                "message": self.message, "count": self.count}


@dataclass
class PartitionReport:
    """What ``kvlog verify`` found in one partition: its extent and every :class:`Problem`."""

    path: str
    topic: str | None
    partition: int | None
    segments: int = 0
    batches: int = 0
    bytes: int = 0
    first_offset: int | None = None
    next_offset: int | None = None
    problems: list[Problem] = field(default_factory=list)
    topic_id: str | None = None
    """The id in the directory's ``partition.metadata`` (None: no file, or one that failed its checks)."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    @property
    def error_count(self) -> int:
        """Every error found, the summarised ones included (``errors`` lists at most MAX_REPORTED of a kind)."""
        return sum(p.count for p in self.errors)

    @property
    def warning_count(self) -> int:
        return sum(p.count for p in self.warnings)

    def error(self, file: str, message: str, position: int | None = None, count: int = 1) -> None:
        self.problems.append(Problem("error", file, message, position, count))

    def warn(self, file: str, message: str, position: int | None = None) -> None:
        self.problems.append(Problem("warning", file, message, position))

    def many(self, file: str, hits: np.ndarray, describe: Callable[[int], tuple[str, int | None]]) -> None:
        """Report ``describe(i)`` for the first hits, then summarise the rest."""
        for i in hits[:MAX_REPORTED].tolist():
            msg, pos = describe(i)
            self.error(file, msg, pos)
        if len(hits) > MAX_REPORTED:
            more = len(hits) - MAX_REPORTED
            self.error(file, f"... and {more} more like the above", count=more)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "topic": self.topic, "partition": self.partition, "ok": not self.errors,
            "segments": self.segments, "batches": self.batches, "bytes": self.bytes,
            "first_offset": self.first_offset, "next_offset": self.next_offset,
            "error_count": self.error_count, "warning_count": self.warning_count,
            "errors": [p.as_dict() for p in self.errors], "warnings": [p.as_dict() for p in self.warnings],
        }


def _check_leader_epochs(report: PartitionReport, path: str, name: str) -> list[tuple[int, int]] | None:
    """Check the checkpoint's syntax; returns its entries for the cross-check, None when it is malformed."""
    try:
        lines = _io.fs.read_file(path).decode("utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        report.error(name, f"cannot read: {exc}")
        return None
    if lines == [""]:
        return []  # an empty file: no entries, as Kafka's checkpoint reader sees it
    if lines and lines[-1] == "":
        lines.pop()
    try:
        version, count = int(lines[0]), int(lines[1])
    except (IndexError, ValueError):
        report.error(name, "malformed checkpoint header (expected a version line and an entry count)")
        return None
    if version != 0:
        report.error(name, f"unknown checkpoint version {version}")
        return None
    if len(lines) - 2 != count:
        report.error(name, f"header says {count} entries, found {len(lines) - 2}")
        return None
    entries: list[tuple[int, int]] = []
    ok = True
    for i, line in enumerate(lines[2:], start=3):
        parts = line.split()
        try:
            epoch, start = int(parts[0]), int(parts[1])
            if len(parts) != 2:
                raise ValueError
        except (IndexError, ValueError):
            report.error(name, f"line {i} is not '<epoch> <start offset>'")
            return None
        if epoch < 0 or start < 0:
            report.error(name, f"line {i}: epoch {epoch} at offset {start}: neither may be negative")
            ok = False
        elif entries and (epoch <= entries[-1][0] or start <= entries[-1][1]):
            report.error(name, f"line {i}: epoch {epoch} at offset {start} does not follow epoch "
                               f"{entries[-1][0]} at offset {entries[-1][1]}")
            ok = False
        entries.append((epoch, start))
    return entries if ok else None


def _check_partition_metadata(report: PartitionReport, path: str, name: str) -> None:
    try:
        data = _io.fs.read_file(path)
    except OSError as exc:
        report.error(name, f"cannot read: {exc}")
        return
    if not data.strip(b"\0"):
        report.warn(name, "empty (what a crash leaves of an unsynced write); a writer's open writes it again")
        return
    try:
        report.topic_id = parse_partition_metadata(data, name)
    except CorruptPartitionMetadataError as exc:
        report.error(name, str(exc).removeprefix(f"{name}: "))


def _check_snapshot(report: PartitionReport, path: str, name: str) -> None:
    """A producer snapshot Kafka's reader refuses (its CRC, its size, its version): a warning, since a broker that
    loads the log deletes it and rebuilds the producer state from an older snapshot or from the log itself."""
    try:
        read_snapshot(_io.fs.read_file(path), name)
    except OSError as exc:
        report.error(name, f"cannot read: {exc}")
    except CorruptSnapshotError as exc:
        report.warn(name, f"{str(exc).removeprefix(f'{name}: ')}; a broker that loads the log deletes this "
                          "snapshot and rebuilds the producer state from an older one or from the log")


def _check_epochs_against_batches(report: PartitionReport, trace: EpochTrace, entries: list[tuple[int, int]] | None,
                                  has_file: bool, log_start: int | None, dense: bool) -> None:
    """The leader-epoch-checkpoint held against the epochs the batches carry (``kvlog.epoch_audit``)."""
    name = LEADER_EPOCH_CHECKPOINT
    if not has_file:
        if trace.runs:
            report.warn(name, f"missing, though batches carry partition leader epochs (from epoch "
                              f"{trace.runs[0].epoch} at offset {trace.runs[0].base}); a writer's open rebuilds it")
        return
    if entries is None:
        return  # malformed: reported already
    end = report.next_offset if report.next_offset is not None else 0
    for p in trace.check(entries, end, log_start, dense, name):
        report.problems.append(Problem(p.severity, p.file, p.message, p.position))


def _root_log_start(directory: str, tp: tuple[str, int] | None) -> int | None:
    """The partition's log start offset by the root's log-start-offset-checkpoint, None when it has none."""
    if tp is None:
        return None
    try:
        table = checkpoint.read_offsets(os.path.join(os.path.dirname(directory), checkpoint.LOG_START_OFFSET))
    except (checkpoint.CorruptCheckpointError, OSError):
        return None
    return table.get(tp)


def _sane_offset_index(directory: str, base: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The offset index's entries as evidence for the audit, when the file passes Kafka's own checks."""
    path = _files.segment_path(directory, base, _files.INDEX)
    if not _io.fs.exists(path):
        return None
    offsets, pos, length = read_offset_index(path, base)
    cut = kafka_index_end(offsets, base)
    offsets, pos = offsets[:cut], pos[:cut]
    if length % 8 or (len(offsets) > 1 and ((np.diff(offsets) <= 0).any() or (np.diff(pos) <= 0).any())):
        return None
    return offsets, pos


def verify_segment(report: PartitionReport, directory: str, base: int, last_segment: bool,
                   prev_last: int, next_base: int | None, dense: bool,
                   producers: Callable[[], list[ProducerLast]], trace: EpochTrace) -> int:
    """Check one segment's ``.log`` and its indexes; returns the last offset seen (or ``prev_last``).

    The batches are judged by ``audit_segment``, the same verdict recovery and read-only opens reach:
    each finding names the field, and the value the neighbours (or the CRC) prove where they do.
    """
    seg = LogSegment(directory, base, read_only=True, open_indexes=False)
    log_name = os.path.basename(seg.log_path)
    try:
        size = seg.size_in_bytes
        report.segments += 1
        report.bytes += size
        audit = audit_segment(seg, prev_last=prev_last, next_base=next_base, dense=dense,
                              index=_sane_offset_index(directory, base), producers=producers)
        h = audit.headers
        for f in audit.findings:
            repair = " (kvlog repair can rewrite it)" if f.proven and f.field in REPAIRABLE else ""
            report.error(log_name, f.text() + repair, f.position)
        if audit.valid_end < size:
            if audit.zero_tail:
                report.warn(log_name, f"{size - audit.valid_end} zero bytes after the last batch (a preallocated "
                                      "file)", audit.valid_end)
            else:
                report.error(log_name, f"recovery would set aside the {size - audit.valid_end} bytes from here to "
                                       "the end of the file (they are not log data until repaired)", audit.valid_end)
        if len(h):
            firsts = np.where((h["magic"] < 2) & (h["base_offset"] < 0), h["last_offset"], h["base_offset"])
            if report.first_offset is None:
                report.first_offset = int(firsts[0])
            prev_last = int(h["last_offset"][-1])
            report.next_offset = prev_last + 1
        report.batches += len(h)
        trace.add(h, log_name)
        pos_a = h["position"].astype(np.int64)
        last_a = h["last_offset"].astype(np.int64)
        max_a = h["max_timestamp"].astype(np.int64)
        if audit.valid_end == size:  # after a cut the index entries past it point at set-aside bytes
            _verify_offset_index(report, directory, base, log_name, pos_a, last_a)
            first_a = (np.where((h["magic"] < 2) & (h["base_offset"] < 0), h["last_offset"], h["base_offset"])
                       .astype(np.int64) if len(h) else last_a)
            _verify_time_index(report, directory, base, log_name, pos_a, first_a, last_a, max_a, last_segment)
        txn = _files.segment_path(directory, base, _files.TXN_INDEX)
        if _io.fs.exists(txn) and _io.fs.getsize(txn) % TXN_ENTRY_SIZE:
            report.error(os.path.basename(txn), f"size {_io.fs.getsize(txn)} is not a multiple of the "
                                                f"{TXN_ENTRY_SIZE}-byte aborted-transaction entry")
        return prev_last
    finally:
        seg.close_handlers()


def _index_entries(report: PartitionReport, directory: str, base: int, suffix: str,
                   missing: str) -> tuple[str, np.ndarray, np.ndarray] | None:
    """Read a segment's offset or time index and run the checks both kinds share: whole entries, and
    nothing after the zero-filled end.

    Returns the file name and the entries before that end (the ones the other checks look at): offsets and
    positions, or timestamps and offsets; None, with the warning ``missing``, when there is no file.
    """
    path = _files.segment_path(directory, base, suffix)
    name = os.path.basename(path)
    if not _io.fs.exists(path):
        report.warn(name, missing)
        return None
    if suffix == _files.INDEX:
        offsets, other, length = read_offset_index(path, base)
        entry, first, second = 8, offsets, other
        describe = "offset {}, position {}"
    else:
        other, offsets, length = read_time_index(path, base)
        entry, first, second = 12, other, offsets
        describe = "timestamp {}, offset {}"
    if length % entry:
        report.error(name, f"file size {length} is not a multiple of the {entry}-byte entry")
    cut = kafka_index_end(offsets, base)
    if cut and offsets[0] == base and other[0] == 0 and not ((offsets[1:] != base) | (other[1:] != 0)).any():
        # Nothing but zeros: an index a broker preallocated (segment.index.bytes, 10 MiB by default) for its
        # active segment and has not written yet, as a running or killed broker leaves it. Entry 0 reads as
        # (base offset, position 0) or (timestamp 0, base offset), which Kafka never writes: an offset index
        # entry comes only after index.interval.bytes of data, a time index entry only for a timestamp above
        # the last one.
        cut = 0
    tail = np.flatnonzero((offsets[cut:] != base) | (other[cut:] != 0))
    if len(tail):
        k = cut + int(tail[0])
        report.error(name, f"entry {k} ({describe.format(int(first[k]), int(second[k]))}) follows the "
                           f"zero-filled end of the index at entry {cut}", k * entry)
    return name, first[:cut], second[:cut]


def _verify_offset_index(report: PartitionReport, directory: str, base: int, log_name: str,
                         positions: np.ndarray, lasts: np.ndarray) -> None:
    if (loaded := _index_entries(report, directory, base, _files.INDEX,
                                 "missing offset index (Kafka rebuilds it when it loads the log)")) is None:
        return
    name, offsets, pos = loaded
    report.many(name, np.flatnonzero(np.diff(offsets) <= 0) + 1, lambda i: (
        f"entry {i}: offset {int(offsets[i])} is not above the previous entry's {int(offsets[i - 1])}",
        i * 8))
    report.many(name, np.flatnonzero(np.diff(pos) <= 0) + 1, lambda i: (
        f"entry {i}: log position {int(pos[i])} is not above the previous entry's {int(pos[i - 1])}", i * 8))
    if not len(offsets):
        return
    j = np.searchsorted(positions, pos)
    jc = np.minimum(j, max(len(positions) - 1, 0))
    starts = (j < len(positions)) & (positions[jc] == pos) if len(positions) else np.zeros(len(pos), bool)
    report.many(name, np.flatnonzero(~starts), lambda i: (
        (f"entry {i} (offset {int(offsets[i])}) points at position {int(pos[i])} of {log_name}, where no "
         "batch starts"), i * 8))
    if len(positions):
        wrong = starts & (lasts[jc] != offsets)
        report.many(name, np.flatnonzero(wrong), lambda i: (
            (f"entry {i} (offset {int(offsets[i])}) points at position {int(pos[i])} of {log_name}, "
             f"where the batch ends at offset {int(lasts[jc[i]])}"), i * 8))


def _verify_time_index(report: PartitionReport, directory: str, base: int, log_name: str,
                       positions: np.ndarray, firsts: np.ndarray, lasts: np.ndarray, maxes: np.ndarray,
                       last_segment: bool) -> None:
    if (loaded := _index_entries(report, directory, base, _files.TIME_INDEX,
                                 "missing time index (Kafka creates an empty one when it loads the log)")) is None:
        return
    name, stamps, offsets = loaded
    report.many(name, np.flatnonzero(np.diff(stamps) <= 0) + 1, lambda i: (
        (f"entry {i}: timestamp {int(stamps[i])} is not above the previous entry's {int(stamps[i - 1])} "
         "(time index timestamps must increase)"), i * 12))
    report.many(name, np.flatnonzero(np.diff(offsets) < 0) + 1, lambda i: (
        f"entry {i}: offset {int(offsets[i])} is below the previous entry's {int(offsets[i - 1])}", i * 12))
    if not len(stamps):
        return
    # Two rules, by the broker version that wrote the segment (docs/storage-format.md#time-index): from
    # Kafka 3.8 (KAFKA-16310) an entry names the last offset of the batch that brought its timestamp; before,
    # the offset of the record carrying it, inside that batch. Either way the timestamp is the largest of
    # the segment up to that batch, and under the older rule that batch holds it.
    cummax = np.maximum.accumulate(maxes) if len(maxes) else maxes
    j = np.searchsorted(lasts, offsets)
    jc = np.minimum(j, max(len(lasts) - 1, 0))
    inside = (j < len(lasts)) & (firsts[jc] <= offsets) if len(lasts) else np.zeros(len(offsets), bool)
    report.many(name, np.flatnonzero(~inside), lambda i: (
        (f"entry {i} (timestamp {int(stamps[i])}, offset {int(offsets[i])}): no batch of {log_name} holds "
         f"offset {int(offsets[i])}"), i * 12))
    if len(lasts):
        ends = lasts[jc] == offsets
        wrong = inside & ((cummax[jc] != stamps) | (~ends & (maxes[jc] != stamps)))
        report.many(name, np.flatnonzero(wrong), lambda i: (
            (f"entry {i}: timestamp {int(stamps[i])} at offset {int(offsets[i])}, but the largest "
             f"timestamp up to that offset is {int(cummax[jc[i]])} (batch at position "
             f"{int(positions[jc[i]])} of {log_name}, its own largest {int(maxes[jc[i]])})"),
            i * 12))
        top = int(cummax[-1])
        if not last_segment and top >= 0 and int(stamps[-1]) != top:
            report.warn(name, f"the last entry's timestamp {int(stamps[-1])} is not the segment's largest "
                              f"timestamp {top} (Kafka writes that entry when it rolls the segment)")


def verify_partition(path: str, topic: str | None = None, partition: int | None = None) -> PartitionReport:
    """Check one partition directory without writing anything (see ``kvlog verify``)."""
    report = PartitionReport(path, topic, partition)
    names = sorted(_io.fs.listdir(path))
    tp = (topic, partition) if topic is not None and partition is not None else _files.parse_partition_dir(path)
    committed = committed_offsets.latest(os.path.dirname(path)).range_of(*tp) if tp else None
    if committed is not None:  # a governed directory: files at or past the committed end are not the log
        kept = committed_offsets.uncommitted_split(names, committed[1])
        for n in sorted(set(names) - set(kept)):
            if n.endswith(_files.LOG):
                report.warn(n, f"not committed (at or past the committed end offset {committed[1]}): a sink write "
                               "in progress or one that failed; not part of the log, the next write removes it")
        names = kept
    bases = sorted(_files.offset_from_name(n) for n in names
                   if _files.is_offset_name(n) and n.split(".", 1)[1] == "log")
    have = set(bases)
    epochs: list[tuple[int, int]] | None = None
    for n in names:
        full = os.path.join(path, n)
        if _io.fs.isdir(full):
            report.warn(n, "unexpected directory in a partition directory")
        elif _files.is_offset_name(n):
            ext = "." + n.split(".", 1)[1]
            if ext == _files.SNAPSHOT:
                _check_snapshot(report, full, n)
                continue
            if ext == _files.LOG:
                continue
            if ext in (_files.INDEX, _files.TIME_INDEX, _files.TXN_INDEX):
                if _files.offset_from_name(n) not in have:
                    report.error(n, "orphan index file: there is no .log for this base offset")
            elif ext.endswith((_files.SWAP, _files.CLEANED)):
                report.error(n, "leftover temporary file of an interrupted compaction or segment split "
                                "(Kafka finishes or rolls it back when it loads the log)")
            elif committed_offsets.UNCOMMITTED in ext:
                report.warn(n, "set aside by a writer's open: it lay past the committed end offset (not part of "
                               "the log; kept for inspection)")
            elif ext.endswith(_files.DELETED):
                report.warn(n, "segment file awaiting asynchronous deletion")
            elif ext.endswith(REPAIRED):
                report.warn(n, "original bytes kept by kvlog repair (not part of the log)")
            elif ext.endswith(_files.QUARANTINED):
                parts = n.split(".")
                if parts[1] == "snapshot":
                    report.warn(n, "producer snapshot past the log end, set aside by recovery with the bytes it "
                                   "describes (evidence for kvlog repair)")
                elif len(parts) == 4 and parts[1] == "log":
                    report.warn(n, f"bytes recovery set aside from position {parts[2].split('-')[0]} of "
                                   f"{parts[0]}.log, where they stopped being trustworthy (not part of the "
                                   "log; kept for inspection and kvlog repair)")
                else:
                    report.warn(n, "segment set aside by recovery after a damaged segment before it "
                                   "(not part of the log; kept for inspection)")
            else:
                report.warn(n, "unknown file")
        elif n == LEADER_EPOCH_CHECKPOINT:
            epochs = _check_leader_epochs(report, full, n)
        elif n == PARTITION_METADATA:
            _check_partition_metadata(report, full, n)
        elif n == CHECKPOINT_FILE:
            try:
                read_checkpoint(path)
            except KvlogError as exc:
                report.error(n, str(exc))
        elif n.endswith(".tmp"):
            report.warn(n, "leftover temporary file (an interrupted checkpoint write)")
        elif n in (_files.LOCK, "quorum-state", REMOTE_LOG_SNAPSHOT) or n.endswith(_KRAFT_SUFFIXES):
            continue
        else:
            report.warn(n, "unknown file")
    prev_last = -1
    dense = dense_history(path, topic, partition)
    snapshots: list[list[ProducerLast]] = []
    trace = EpochTrace()

    def producers() -> list[ProducerLast]:
        if not snapshots:
            snapshots.append(snapshot_producers(path))
        return snapshots[0]

    for i, base in enumerate(bases):
        if base <= prev_last:
            report.error(_files.prefix(base) + _files.LOG, f"segment base offset {base} is not above the "
                                                           f"previous segment's last offset {prev_last}")
        nxt = bases[i + 1] if i + 1 < len(bases) else None
        prev_last = verify_segment(report, path, base, i == len(bases) - 1, prev_last, nxt, dense, producers,
                                    trace)
    if report.next_offset is None and bases:
        report.next_offset = bases[-1]
    log_start = _root_log_start(path, tp)
    if committed is not None:
        log_start = max(log_start or 0, committed[0])
    _check_epochs_against_batches(report, trace, epochs, LEADER_EPOCH_CHECKPOINT in names, log_start, dense)
    return report


_KRAFT_SUFFIXES = (".checkpoint", ".checkpoint.part", ".checkpoint.deleted")
_ROOT_CHECKPOINTS = (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.CLEANER_OFFSET,
                     checkpoint.REPLICATION_OFFSET)


def verify_path(path: str) -> tuple[list[PartitionReport], list[Problem]]:
    """Reports for every partition under ``path`` (a partition or data directory) and root-level problems."""
    single, parts = _files.discover_partitions(path)
    reports = [verify_partition(p, t, n) for p, t, n in parts]
    root_problems: list[Problem] = []
    if not single:
        root = storage.normalize(path)
        for name in _files.partition_dirs(root)[1]:
            root_problems.append(Problem("warning", name, "named like a partition directory but holds no Kafka "
                                                          "partition files; not verified"))
        by_tp = {(r.topic, r.partition): r for r in reports}
        for name in _ROOT_CHECKPOINTS:
            full = os.path.join(root, name)
            if not _io.fs.exists(full):
                continue
            try:
                table = checkpoint.read_offsets(full)
            except checkpoint.CorruptCheckpointError as exc:
                root_problems.append(Problem("error", name, str(exc)))
                continue
            if name == checkpoint.LOG_START_OFFSET:
                for (t, p), off in sorted(table.items()):
                    r = by_tp.get((t, p))
                    if r is not None and r.next_offset is not None and off > r.next_offset:
                        r.error(name, f"log start offset {off} of {t}-{p} is past its log end offset "
                                      f"{r.next_offset}: loading the log would delete every segment")
        topics = os.path.join(root, "kvlog-topics.json")
        topic_table: Any = {}
        if _io.fs.exists(topics):
            try:
                topic_table = json.loads(_io.fs.read_file(topics).decode("utf-8"))
            except (OSError, ValueError) as exc:
                root_problems.append(Problem("error", "kvlog-topics.json", f"cannot parse: {exc}"))
            else:
                try:
                    checked_topics(topic_table, "kvlog-topics.json")
                except KvlogError as exc:
                    root_problems.append(Problem("error", "kvlog-topics.json", str(exc).removeprefix(
                        "kvlog-topics.json: ")))
                    topic_table = {}
        _check_topic_ids(reports, topic_table)
    return reports, root_problems


def _check_topic_ids(reports: list[PartitionReport], table: dict[str, Any]) -> None:
    """Each partition's ``partition.metadata`` against the topic table's id for its topic, and, for a topic
    the table gives none, against its other partitions (a topic's partitions share one id)."""
    by_topic: dict[str, list[PartitionReport]] = {}
    for r in reports:
        if r.topic is not None and r.topic_id is not None:
            by_topic.setdefault(r.topic, []).append(r)
    for topic, rs in sorted(by_topic.items()):
        entry = table.get(topic) if isinstance(table, dict) else None
        want = entry.get("topic_id") if isinstance(entry, dict) else None
        if isinstance(want, str):
            for r in rs:
                if r.topic_id != want:
                    r.error(PARTITION_METADATA, f"topic id {r.topic_id}, but kvlog-topics.json gives topic "
                                                f"{topic} the id {want}")
            continue
        counts: dict[str, int] = {}
        for r in rs:
            tid = r.topic_id or ""
            counts[tid] = counts.get(tid, 0) + 1
        common = max(counts, key=lambda t: (counts[t], -min(r.partition or 0 for r in rs if r.topic_id == t)))
        ref = min((r for r in rs if r.topic_id == common), key=lambda r: r.partition or 0)
        for r in rs:
            if r.topic_id != common:
                r.error(PARTITION_METADATA, f"topic id {r.topic_id} differs from {common} of {topic}-{ref.partition} "
                                            "(the partitions of a topic share one id)")
