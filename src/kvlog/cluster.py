"""Several brokers' data directories read as one cluster: each partition once, from its best replica.

A replicated topic keeps a copy of each partition (a replica) on several brokers, and a broker may spread its
partitions over several log directories (JBOD). Given the log directories of a cluster's brokers (paths or
URIs, in any order), :class:`Cluster` finds every replica of every partition and reads each partition from
one of them:

* **which replica**: the one whose leader epochs are the newest (it followed, or was, the last leader), and of
  those the longest (copies of one leader's epoch are prefixes of each other);
* **up to where**: what the cluster had committed, as the files show it: the highest high watermark any
  replica's broker checkpointed, or, past it, the end that at least two replicas hold alike (a record a
  producer with ``acks=all`` saw acknowledged is on every in-sync replica, at least two with
  ``min.insync.replicas=2``), never past the chosen replica's end. A partition with one replica present is
  read to its end, as a single directory is.

The replicas are cross-checked on their leader epochs (``leader-epoch-checkpoint``), as a follower checks
itself against its leader: a replica holding records past the offset where the chosen replica's history left
that replica's last epoch has **diverged** (an unclean leader election, a replica restored from an older
copy): :class:`~kvlog.errors.DivergentReplicasError` names the partition, the replicas and the offset where
they part, unless ``divergent="newest"`` asks for the newest leader's history (what the live cluster serves
once the diverged replica truncates itself). Epoch histories that contradict each other without diverging
(one epoch starting at different offsets) are reported in :attr:`Cluster.problems`. A replica that has no
``leader-epoch-checkpoint`` (a directory kvlog wrote) is not cross-checked, and said so.

Directories of another cluster (another ``cluster.id`` in ``meta.properties``) are refused. A partition
directory being moved between a broker's log directories (``<topic>-<p>.<id>-future``) and those marked for
deletion or stray are not replicas: they are left out.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kvlog import _files, _io, checkpoint, committed_offsets, storage
from kvlog.broker_files import (LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA, parse_leader_epochs,
                                parse_partition_metadata, parse_properties, read_partition_metadata)
from kvlog.config import LONG_MAX
from kvlog.errors import (
    ConfigError,
    DirectoryNotFoundError,
    DivergentReplicasError,
    InconsistentTopicIdError,
    KvlogError,
    UnknownTopicOrPartitionError,
)
from kvlog.log import Log
from kvlog.segment import LogSegment

__all__ = ["Cluster", "LogDirectory", "Replica", "Partition"]

DIVERGENT = ("raise", "newest")


def _properties(root: str) -> dict[str, str]:
    path = storage.join(root, "meta.properties")
    try:
        if not _io.fs.exists(path):
            return {}
        text = _io.fs.read_file(path).decode("utf-8", "replace")
    except OSError:
        return {}
    return parse_properties(text)


@dataclass(frozen=True)
class LogDirectory:
    """One log directory of one broker: its root, the broker's id and cluster id (``meta.properties``; None
    for a directory without one), and the high watermarks its broker checkpointed."""

    root: str
    broker: int | None
    cluster_id: str | None
    high_watermarks: dict[tuple[str, int], int] = field(default_factory=dict, compare=False, repr=False)
    #: the log start offsets its broker checkpointed (``log-start-offset-checkpoint``)
    log_starts: dict[tuple[str, int], int] = field(default_factory=dict, compare=False, repr=False)
    #: whether a kvlog sink's committed offsets govern it (a read stops at them: see kvlog.committed_offsets)
    governed: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def read(cls, root: str) -> LogDirectory:
        props = _properties(root)
        broker = next((int(props[k]) for k in ("node.id", "broker.id") if props.get(k, "").lstrip("-").isdigit()),
                      None)
        tables = []
        for name in (checkpoint.REPLICATION_OFFSET, checkpoint.LOG_START_OFFSET):
            try:
                tables.append(checkpoint.read_offsets(storage.join(root, name)))
            except (checkpoint.CorruptCheckpointError, OSError):
                tables.append({})
        governed = bool(committed_offsets.latest(root).partitions)
        return cls(root, broker, props.get("cluster.id"), tables[0], tables[1], governed)

    @property
    def name(self) -> str:
        shown = storage.canonical(self.root) if storage.is_remote(self.root) else self.root
        return f"broker {self.broker} ({shown})" if self.broker is not None else shown


@dataclass(frozen=True)
class Replica:
    """One copy of a partition: where it is, and what its files say of it."""

    directory: LogDirectory
    path: str
    log_start: int
    log_end: int
    epochs: tuple[tuple[int, int], ...] | None  # None: no leader-epoch-checkpoint
    topic_id: str | None = None  # partition.metadata's (None: no such file)

    @property
    def latest_epoch(self) -> int:
        return self.epochs[-1][0] if self.epochs else -1

    def __str__(self) -> str:
        return f"{self.directory.name}: offsets {self.log_start}..{self.log_end}"


@dataclass(frozen=True)
class Partition:
    """A partition's replicas, the one read (``chosen``), the offset a read stops at (``end``), what the
    cross-check found (``problems``) and the replicas left out as diverged (``diverged``)."""

    topic: str
    partition: int
    replicas: tuple[Replica, ...]
    chosen: Replica
    end: int
    problems: tuple[str, ...] = ()
    diverged: tuple[tuple[Replica, int], ...] = ()  # (replica, the offset its history parts from the chosen)


def _end_of_epoch(epochs: Sequence[tuple[int, int]], log_end: int, epoch: int) -> int:
    """Where ``epoch`` ends in a history: the start of the first newer epoch, else the log's end (Kafka's
    OffsetsForLeaderEpoch answer, which a follower truncates to)."""
    for e, start in epochs:
        if e > epoch:
            return start
    return log_end


def _cross_check(chosen: Replica, other: Replica) -> tuple[int | None, list[str]]:
    """``(the offset where other parts from chosen, or None, problems)``."""
    problems: list[str] = []
    if other.epochs is None or chosen.epochs is None:
        return None, problems
    ref = dict(chosen.epochs)
    for e, start in other.epochs:
        if e in ref and ref[e] != start and start < min(other.log_end, chosen.log_end):
            problems.append(f"epoch {e} starts at offset {start} in {other.directory.name} and at {ref[e]} in "
                            f"{chosen.directory.name}")
    if not other.epochs:
        return None, problems
    end = _end_of_epoch(chosen.epochs, chosen.log_end, other.latest_epoch)
    if other.log_end > end and other.log_end > other.log_start:
        return max(end, other.log_start), problems
    return None, problems


@dataclass(frozen=True)
class _Facts:
    """What a replica's directory says of it without reading its segments."""

    directory: LogDirectory
    path: str
    last_base: int
    key: tuple[int, int, tuple[tuple[int, int], ...]]  # (last segment's base offset, its size, leader epochs)
    log_start: int  # (before the end is known: the root's checkpoint, the first segment)
    epochs: tuple[tuple[int, int], ...]
    topic_id: str | None

    def replica(self, end: int) -> Replica:
        return Replica(self.directory, self.path, min(self.log_start, end), end, self.epochs, self.topic_id)


_EPOCHS, _TOPIC_ID = 0, 1
_PARSED: dict[tuple[int, bytes], Any] = {}
_PARSED_LOCK = threading.Lock()


def _parsed(data: bytes, path: str, kind: int) -> Any:
    """A replica's leader epochs or topic id from its file's bytes, parsed once per distinct bytes: a partition's
    replicas (and a topic's partitions) mostly hold the same ones."""
    key = (kind, data)
    with _PARSED_LOCK:
        found = _PARSED.get(key)
    if found is not None:
        return found
    if kind == _EPOCHS:
        value: Any = tuple(parse_leader_epochs(data, storage.join(path, LEADER_EPOCH_CHECKPOINT)))
    else:
        value = parse_partition_metadata(data, storage.join(path, PARTITION_METADATA)) if data.strip(b"\0") else None
        if value is None:
            return None
    with _PARSED_LOCK:
        if len(_PARSED) > 4096:
            _PARSED.clear()
        _PARSED[key] = value
    return value


def _facts(d: LogDirectory, path: str) -> _Facts | None:
    """A replica's facts from its directory's names and small files, or None when the directory holds anything a
    read-only open would have to resolve (a swap, a cleaned or set-aside segment, a sink's committed offsets, no
    segment, no leader-epoch-checkpoint): the caller opens it then."""
    if d.governed:
        return None
    try:
        names = _io.fs.listdir(path)
        bases = []
        for n in names:
            if n.endswith((_files.SWAP, _files.CLEANED, _files.DELETED, _files.QUARANTINED)):
                return None
            if n.endswith(_files.LOG) and _files.is_offset_name(n):
                bases.append(_files.offset_from_name(n))
        if not bases or LEADER_EPOCH_CHECKPOINT not in names:
            return None
        bases.sort()
        epochs = _parsed(_io.fs.read_file(storage.join(path, LEADER_EPOCH_CHECKPOINT)), path, _EPOCHS)
        size = _io.fs.getsize(_files.segment_path(path, bases[-1], _files.LOG))
        log_start = max(bases[0], d.log_starts.get(_files.parse_partition_dir(os.path.basename(path)) or ("", -1), 0))
        topic_id = (_parsed(_io.fs.read_file(storage.join(path, PARTITION_METADATA)), path, _TOPIC_ID)
                    if PARTITION_METADATA in names else None)
    except (KvlogError, OSError):
        return None
    return _Facts(d, path, bases[-1], (bases[-1], size, epochs), log_start, epochs, topic_id)


def _probe(f: _Facts, seen: dict[tuple[int, int, tuple[tuple[int, int], ...]], int]) -> Replica | None:
    """The replica with its end (its last segment walked from its last index entry, the batches from there
    checksummed), or None when the walk cannot say. ``seen``: the ends of the replicas probed before, by their
    facts' key: a follower's copy of the same bytes (the common case) ends where they do, and is not walked again."""
    end = seen.get(f.key)
    if end is None:
        try:
            end = _walk_end(f.path, f.last_base)
        except (KvlogError, OSError):
            return None
        if end is None:
            return None
        seen[f.key] = end
    return None if f.log_start > end else f.replica(end)


def _walk_end(path: str, base: int) -> int | None:
    """Where the segment ``base`` of ``path`` ends: the last batch's last offset + 1, walked from the offset
    index's last entry with every batch from there checksummed; None when the index is not this segment's."""
    seg = LogSegment(path, base, read_only=True)
    try:
        entry = seg.offset_index.lookup(LONG_MAX) if seg.offset_index.entries else None
        start = entry.position if entry is not None and 0 < entry.position < seg.size_in_bytes else 0
        last = None
        for headers in seg.iter_headers(start, with_crc=True, stop_on_crc=True):
            if len(headers):
                if last is None and entry is not None and start and not (
                        headers["base_offset"][0] <= entry.offset <= headers["last_offset"][0]):
                    return None  # the index is not this segment's: the open finds out why
                last = int(headers["last_offset"][-1])
        if last is None and start:
            return None
        return base if last is None else last + 1
    finally:
        seg.close()


class Cluster:
    """The log directories of a cluster's brokers, read as one (see the module's notes).

    ``roots``: log directories (paths or URIs; each broker's, all of them for a broker with several).
    ``divergent``: ``"raise"`` (the default) or ``"newest"`` (read the newest leader's history). The
    partitions' logs are opened read-only as they are asked for, and closed with the cluster."""

    def __init__(self, roots: Sequence[str | os.PathLike[str]], *, divergent: str = "raise") -> None:
        if isinstance(roots, (str, os.PathLike)):
            roots = [roots]
        if not roots:
            raise ConfigError("a cluster needs at least one data directory")
        if divergent not in DIVERGENT:
            raise ConfigError(f"divergent={divergent!r}: it is one of {', '.join(DIVERGENT)}")
        self.divergent = divergent
        self.directories: list[LogDirectory] = []
        seen: set[str] = set()
        for r in roots:
            root = storage.normalize(r)
            if root in seen:
                raise ConfigError(f"{root} is given twice")
            seen.add(root)
            if not _io.fs.isdir(root):
                raise DirectoryNotFoundError(f"no data directory at {root}")
            _files.check_data_directory(root, _io.fs.listdir(root))
            self.directories.append(LogDirectory.read(root))
        ids = {d.cluster_id for d in self.directories if d.cluster_id}
        if len(ids) > 1:
            named = "; ".join(f"{d.root}: {d.cluster_id}" for d in self.directories if d.cluster_id)
            raise ConfigError(f"these directories belong to different clusters (cluster.id in meta.properties: "
                              f"{named}): read each cluster apart")
        self.cluster_id = next(iter(ids), None)
        self._found: dict[tuple[str, int], list[tuple[LogDirectory, str]]] = {}
        for d in self.directories:
            found, _ = _files.partition_dirs(d.root)
            for tp, path in found.items():
                self._found.setdefault(tp, []).append((d, path))
        for tp, places in self._found.items():
            brokers = [d.broker for d, _ in places if d.broker is not None]
            if len(brokers) != len(set(brokers)):
                where = ", ".join(p for _, p in places)
                raise ConfigError(f"partition {tp[0]}-{tp[1]} is in two log directories of one broker ({where}): "
                                  "a broker keeps one copy of a partition")
        self._partitions: dict[tuple[str, int], Partition] = {}
        self._logs: dict[tuple[str, int], Log] = {}
        self._lock = threading.Lock()
        self.problems: list[str] = []

    # ------------------------------------------------------------------------------------- listing
    def topics(self) -> dict[str, int]:
        """Every topic's partition count (its highest partition present + 1)."""
        out: dict[str, int] = {}
        for t, p in self._found:
            out[t] = max(out.get(t, 0), p + 1)
        return dict(sorted(out.items()))

    def partitions(self, topic: str) -> list[int]:
        got = sorted(p for t, p in self._found if t == topic)
        if not got:
            raise UnknownTopicOrPartitionError(f"no topic {topic!r} in {self.describe()}", topic=topic)
        return got

    def describe(self) -> str:
        return f"the cluster of {', '.join(d.name for d in self.directories)}"

    # ---------------------------------------------------------------------------------- replicas
    def partition(self, topic: str, partition: int) -> Partition:
        """The partition's replicas, the one read and where a read stops (cross-checked once)."""
        key = (topic, partition)
        with self._lock:
            found = self._partitions.get(key)
        if found is not None:
            return found
        places = self._found.get(key)
        if not places:
            raise UnknownTopicOrPartitionError(f"no partition {topic}-{partition} in {self.describe()}",
                                               topic=topic, partition=partition)
        # every replica probed cheaply (its epochs, where its last segment ends, the batches past its last index
        # entry checksummed), the chosen one opened and audited as any read-only open; when the audit disagrees
        # with the probe, or a probe could not answer, every replica is opened and audited
        facts = [_facts(d, path) for d, path in places]
        keep: Log | None = None
        if all(f is not None for f in facts):
            known = [f for f in facts if f is not None]
            opened: Log | None = None
            if len({f.key for f in known}) == 1:
                # every replica the same segments and epochs (a cluster in sync): the first one's open says where
                # they all end, no walk needed
                opened = Log.open(known[0].path, read_only=True)
                probes: list[Replica | None] = [f.replica(opened.log_end_offset) for f in known]
            else:
                seen: dict[tuple[int, int, tuple[tuple[int, int], ...]], int] = {}
                probes = [_probe(f, seen) for f in known]
            if all(r is not None for r in probes):
                result = self._choose(topic, partition, [r for r in probes if r is not None])
                if opened is not None and opened.dir != storage.normalize(result.chosen.path):
                    opened.close()
                    opened = None
                log = opened or Log.open(result.chosen.path, read_only=True)
                if (log.log_start_offset, log.log_end_offset) == (result.chosen.log_start, result.chosen.log_end):
                    keep = log
                else:
                    log.close()
            elif opened is not None:
                opened.close()
        if keep is None:
            result, keep = self._open_all(topic, partition, places)
        if keep.damage:
            result, keep = self._undamaged(result, keep)
        with self._lock:
            if key in self._partitions:  # (another thread got there first)
                keep.close()
                return self._partitions[key]
            self._partitions[key] = result
            self._logs[key] = keep
            self.problems.extend(f"{topic}-{partition}: {p}" for p in result.problems)
        return result

    def _undamaged(self, result: Partition, keep: Log) -> tuple[Partition, Log]:
        """The chosen replica's open found damage (a checksum that fails below what its broker called durable):
        another replica of the same history holding as much is read instead, and the damage reported; when every
        such replica is damaged, the chosen one stays (its read raises, naming the damage)."""
        chosen = result.chosen
        left_out = {id(r) for r, _ in result.diverged}
        for r in result.replicas:
            if r is chosen or id(r) in left_out or r.latest_epoch != chosen.latest_epoch or r.log_end < result.end:
                continue
            log = Log.open(r.path, read_only=True)
            if log.damage or log.log_end_offset < result.end:
                log.close()
                continue
            keep.close()
            found = keep.damage[0]
            note = (f"{chosen.directory.name}'s replica is damaged ({os.path.basename(found.path)} at byte "
                    f"{found.position}: {found.reason}): read from {r.directory.name}")
            return dataclasses.replace(result, chosen=r, problems=(*result.problems, note)), log
        return result, keep

    def _open_all(self, topic: str, partition: int, places: list[tuple[LogDirectory, str]]) -> tuple[Partition, Log]:
        """Every replica opened read-only (audited), the partition chosen from what the opens found."""
        replicas = []
        opened: dict[str, Log] = {}
        try:
            for d, path in places:
                log = Log.open(path, read_only=True)
                opened[path] = log
                try:
                    epochs = log.leader_epochs
                    has = _io.fs.exists(storage.join(path, LEADER_EPOCH_CHECKPOINT))
                except KvlogError:
                    epochs, has = [], False
                try:
                    topic_id = read_partition_metadata(path)
                except (KvlogError, OSError):
                    topic_id = None  # (the open's own checks report a damaged file)
                replicas.append(Replica(d, path, log.log_start_offset, log.log_end_offset,
                                        tuple(epochs) if has else None, topic_id))
            result = self._choose(topic, partition, replicas)
            return result, opened.pop(result.chosen.path)
        finally:
            for log in opened.values():
                log.close()

    def _choose(self, topic: str, partition: int, replicas: list[Replica]) -> Partition:
        ids = sorted({r.topic_id for r in replicas if r.topic_id is not None})
        if len(ids) > 1:
            named = "; ".join(f"{r.directory.name}: {r.topic_id}" for r in replicas if r.topic_id is not None)
            raise InconsistentTopicIdError(
                f"the replicas of {topic}-{partition} belong to different topics (topic ids in partition.metadata: "
                f"{named}): a topic deleted and created again under its name while a broker was away leaves that "
                f"broker the old topic's copy. Leave the stale broker's directory out, or read each alone")
        def hw(r: Replica) -> int:
            return r.directory.high_watermarks.get((topic, partition), -1)

        # the newest leader's history, and its longest copy: replicas of one epoch are prefixes of each other
        ranked = sorted(replicas, key=lambda r: (r.latest_epoch, r.log_end, hw(r)), reverse=True)
        chosen = ranked[0]
        problems: list[str] = []
        diverged: list[tuple[Replica, int]] = []
        for r in ranked[1:]:
            at, found = _cross_check(chosen, r)
            problems += found
            if at is not None:
                diverged.append((r, at))
        unchecked = [r for r in replicas if r.epochs is None]
        if unchecked and len(replicas) > 1:
            problems.append("not cross-checked (no leader-epoch-checkpoint): "
                            + ", ".join(r.directory.name for r in unchecked))
        if diverged and self.divergent == "raise":
            parts = "; ".join(f"{r.directory.name} holds offsets {at}..{r.log_end} (leader epoch "
                              f"{r.latest_epoch}) that {chosen.directory.name} (leader epoch "
                              f"{chosen.latest_epoch}) does not" for r, at in diverged)
            raise DivergentReplicasError(
                f"the replicas of {topic}-{partition} have diverged: {parts}. Read each replica alone (its data "
                f"directory by itself), or the newest leader's history with divergent='newest'",
                topic=topic, partition=partition, replicas=[chosen.path, *(r.path for r, _ in diverged)])
        agreeing = [r for r in replicas if all(r is not d for d, _ in diverged)]
        end = chosen.log_end
        if len(agreeing) > 1:
            ends = sorted((r.log_end for r in agreeing), reverse=True)
            committed = max([hw(r) for r in agreeing] + [ends[1]])
            end = min(chosen.log_end, max(committed, chosen.log_start))
        return Partition(topic, partition, tuple(replicas), chosen, end, tuple(problems), tuple(diverged))

    def log(self, topic: str, partition: int) -> Log:
        """The chosen replica's log (read-only; closed with the cluster)."""
        self.partition(topic, partition)
        return self._logs[(topic, partition)]

    def end_offset(self, topic: str, partition: int) -> int:
        """Where a read of the partition stops: what the cluster committed (see the module's notes)."""
        return self.partition(topic, partition).end

    def close(self) -> None:
        with self._lock:
            logs, self._logs = list(self._logs.values()), {}
            self._partitions.clear()
        for log in logs:
            log.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Cluster({[d.root for d in self.directories]!r})"
