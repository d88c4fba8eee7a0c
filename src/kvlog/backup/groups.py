"""Consumer groups restored exactly: every group's committed offsets as of a backup's cut, clamped to
the restored partitions, written either as the reset files ``kafka-consumer-groups.sh --reset-offsets
--from-file`` reads (a running target cluster) or as ``__consumer_offsets`` partitions a stopped
broker's group coordinator loads at startup.

Consistency of a group. All of a group's offsets come from one replay of the source's
``__consumer_offsets`` up to the cut (``as_of``, epoch ms, or everything backed up): a record counts
when its timestamp is at most ``as_of``, as :mod:`kvlog.internal_topics.consumer_offsets` replays it. A
transactional offset commit (``sendOffsetsToTransaction``) stays pending until its transaction's COMMIT
marker, so it counts only when that marker is at or before the cut; an ABORT, or a marker after the
cut, leaves the offset the group had before. The replay follows the 4.x group coordinator
(``OffsetMetadataManager.replay``): an offset tombstone also drops that partition's pending
transactional offsets, so a group deleted while a transaction was open stays deleted when the
transaction later commits (the Scala coordinator of 3.x and kvlog's ``replay`` keep the pending offset).

Clamping. A committed offset is where the group resumes. The restore keeps each partition's records
``[log start, log end)`` at their original offsets; an offset above the restored end becomes the end
(the group resumes at the next record the target receives), one below the start becomes the start
(those records were deleted before the backup), as ``kafka-consumer-groups --reset-offsets`` itself
clamps (``ConsumerGroupCommand.checkOffsetsRange``). Partitions that are not restored are dropped.

Two outputs (``docs/backup-groups.md`` has the commands):

* :func:`write_reset_csv`, for a running target cluster whose groups are inactive: one file per group
  in the tool's no-group format ``topic,partition,offset`` (no header). The tool reads a file of that
  format when it is given one ``--group``, which then names the group on the command line; the group
  never appears inside a file, so no group id needs CSV quoting (the tool splits the file on ``\\n``
  before parsing, so a group id holding a newline could not be written in the group-column format at
  all), and a group absent from the target is still reset (``--all-groups`` would only list groups the
  target already has). The tool commits the offset alone: leader epoch and metadata are not restored.
* :func:`write_offsets_partitions`, for stopped brokers: fresh ``__consumer_offsets-N`` partitions that
  hold only the group state (one OffsetCommit record per group and partition), each group placed in
  the partition the *target* coordinator looks in (``abs(groupId.hashCode()) % partitions``), so groups
  move when the source and target partition counts differ. The source's ``__consumer_offsets`` log is
  not copied: a cut copy would carry pending transactions whose markers lie after the cut, member and
  assignment records naming the source's topic ids, and the source's partition layout.

The Kafka facts cited (file and function names) were read in apache/kafka at 1eb7644 (4.0.0-SNAPSHOT).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import shlex
import struct
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kvlog import _io, broker_files
from kvlog.errors import ConfigError, KvlogError
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.consumer_offsets import OffsetsReplay
from kvlog.internal_topics.decoders import InternalTopic, UnknownSchemaError, encode_coordinator_record
from kvlog.internal_topics.layout import partition_dirs, read_batches
from kvlog.log import Log
from kvlog.records import Record, now_ms

__all__ = [
    "OffsetsPartition",
    "clamp",
    "coordinator_partition",
    "group_offsets_at_cut",
    "group_offsets_schema",
    "java_string_hash",
    "reset_file_names",
    "write_offsets_partitions",
    "write_reset_csv",
]

TOPIC = InternalTopic.CONSUMER_OFFSETS.value
RESET_SCRIPT = "reset-offsets.sh"
OFFSET_COMMIT_KEY_TYPE = 1      # what a 4.x coordinator writes (GroupCoordinatorRecordHelpers)
OFFSET_COMMIT_VALUE_VERSION = 4  # GroupCoordinatorRecordHelpers.offsetCommitValueVersion, 4.1+, no expire timestamp
BATCH_RECORDS = 1000
BATCH_BYTES = 512 << 10          # well under __consumer_offsets' max.message.bytes (1 MiB)
_ZERO_ID = uuid.UUID(int=0)
_RESERVED_TOPIC_IDS = (_ZERO_ID, uuid.UUID(int=1))  # Kafka's Uuid.RESERVED
_MAX_NAME = 200                  # escaped group ids longer than this are cut and get a hash suffix
_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


# ============================================================================== group → partition
def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode``: ``h = 31*h + c`` over UTF-16 code units, as a signed 32-bit int."""
    units = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for (unit,) in struct.iter_unpack(">H", units):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def coordinator_partition(group_id: str, num_partitions: int) -> int:
    """The ``__consumer_offsets`` partition a group's coordinator uses: ``Utils.abs(groupId.hashCode())
    % numPartitions`` (``GroupCoordinatorService.partitionFor``; ``Utils.abs`` maps MIN_VALUE to 0)."""
    if not isinstance(num_partitions, int) or isinstance(num_partitions, bool) or num_partitions < 1:
        raise ConfigError(f"the number of __consumer_offsets partitions must be a positive integer, "
                          f"got {num_partitions!r}")
    h = java_string_hash(group_id)
    return (0 if h == -(1 << 31) else abs(h)) % num_partitions


# ======================================================================================= the cut
def group_offsets_schema() -> pa.Schema:
    """Columns of :func:`group_offsets_at_cut`: ``offset`` is where the group resumes on the target
    (clamped), ``original_offset`` what the source had committed; ``leader_epoch`` is null when the
    commit recorded none; ``topic_id`` is the topic id the source's commit carried (a v4 value's
    ``topicId``, Kafka's text form), null when it carried none."""
    return pa.schema([
        pa.field("group", pa.string(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("offset", pa.int64(), nullable=False),
        pa.field("original_offset", pa.int64(), nullable=False),
        pa.field("clamped", pa.bool_(), nullable=False),
        pa.field("leader_epoch", pa.int32()),
        pa.field("metadata", pa.string(), nullable=False),
        pa.field("commit_timestamp", pa.timestamp("ms", tz="UTC"), nullable=False),
        pa.field("topic_id", pa.string()),
    ])


class _CoordinatorReplay(OffsetsReplay):
    """kvlog's replay with the 4.x coordinator's tombstone rule (``OffsetMetadataManager.replay``): a
    tombstone removes the committed offset *and* that partition's offsets pending in open
    transactions, whatever batch carries it."""

    def _apply(self, gtp: tuple[str, str, int], commit: Any, producer_id: int | None) -> None:
        if commit is None:
            self.offsets.pop(gtp, None)
            for pending in self.pending.values():
                pending.pop(gtp, None)
            return
        super()._apply(gtp, commit, producer_id)


def _replay(source_root: str | os.PathLike[str], as_of: int | None, errors: str) -> list[_CoordinatorReplay]:
    if errors not in ("raise", "skip"):
        raise ConfigError(f"errors must be 'raise' or 'skip', not {errors!r}")
    states = []
    for path, n in partition_dirs(source_root, TOPIC):
        state = _CoordinatorReplay(n, as_of=as_of, errors=errors)
        with Log.open(path, read_only=True) as log:
            for batch in read_batches(log):
                state.feed(batch)
        # An OffsetCommitValue version newer than the tables is skipped by the replay as a "problem";
        # here it would be an offset silently lost, so it stops the restore.
        for problem in state.problems:
            if "of OffsetCommitValue" in problem:
                raise UnknownSchemaError(f"cannot restore consumer group offsets exactly: {problem}")
        states.append(state)
    return states


def clamp(offset: int, log_start: int, log_end: int) -> int:
    """``offset`` moved into ``[log_start, log_end]`` (see the module docstring)."""
    return log_end if offset > log_end else log_start if offset < log_start else offset


def _check_ranges(log_ranges: Mapping[tuple[str, int], tuple[int, int]]) -> dict[tuple[str, int], tuple[int, int]]:
    out = {}
    for key, bounds in log_ranges.items():
        try:
            (topic, partition), (start, end) = key, bounds
        except (TypeError, ValueError):
            raise ConfigError(f"log_ranges maps (topic, partition) to (log start, log end); got "
                              f"{key!r:.100}: {bounds!r:.100}") from None
        if not isinstance(topic, str) or not isinstance(partition, int):
            raise ConfigError(f"log_ranges keys are (topic name, partition number), got {key!r:.100}")
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
            raise ConfigError(f"log range of {topic}-{partition} must be integers 0 <= start <= end, "
                              f"got [{start!r}, {end!r}]")
        out[(topic, partition)] = (start, end)
    return out


def group_offsets_at_cut(source_root: str | os.PathLike[str], *, as_of: int | None,
                         log_ranges: Mapping[tuple[str, int], tuple[int, int]],
                         groups: Iterable[str] | None = None, topics: Iterable[str] | None = None,
                         source_num_partitions: int | None = None, errors: str = "raise") -> pa.Table:
    """Every consumer group's committed offsets at the cut, for the restored partitions only, clamped
    to them (:func:`group_offsets_schema`, sorted by group, topic, partition).

    ``source_root`` is the backed-up data directory (or a URI) holding ``__consumer_offsets-N``
    partitions; ``as_of`` the cut (epoch ms; None: everything backed up); ``log_ranges`` maps each
    restored ``(topic, partition)`` to its ``(log start, log end)`` after the restore. ``groups`` and
    ``topics`` keep only those. A group found in more than one ``__consumer_offsets`` partition (a
    copy left behind when the source's partition count changed) needs ``source_num_partitions``: only
    the partition the source's coordinator used for it is then read. ``errors`` is the replay's.
    """
    ranges = _check_ranges(log_ranges)
    wanted_groups = None if groups is None else set(groups)
    wanted_topics = None if topics is None else set(topics)
    found: dict[tuple[str, str, int], tuple[int, Any]] = {}   # gtp → (coordinator partition, commit)
    homes: dict[str, set[int]] = {}
    for state in _replay(source_root, as_of, errors):
        for gtp, commit in state.offsets.items():
            group, topic, partition = gtp
            if wanted_groups is not None and group not in wanted_groups:
                continue
            if wanted_topics is not None and topic not in wanted_topics:
                continue
            if (topic, partition) not in ranges:
                continue
            if source_num_partitions is not None and \
                    coordinator_partition(group, source_num_partitions) != state.partition:
                continue
            homes.setdefault(group, set()).add(state.partition)
            found[gtp] = (state.partition, commit)
    split = sorted((g, sorted(ps)) for g, ps in homes.items() if len(ps) > 1)
    if split:
        g, ps = split[0]
        raise KvlogError(f"consumer group {g!r} has offsets in __consumer_offsets partitions "
                         f"{', '.join(map(str, ps))} of {source_root} ({len(split)} such groups): pass "
                         f"source_num_partitions (the source's offsets.topic.num.partitions) to read each "
                         f"group from the partition its coordinator used")
    rows = sorted(found.items())
    offsets, originals, clamped = [], [], []
    for (_, topic, partition), (_, c) in rows:
        start, end = ranges[(topic, partition)]
        got = clamp(c.offset, start, end)
        offsets.append(got)
        originals.append(c.offset)
        clamped.append(got != c.offset)
    return pa.table({
        "group": [g for (g, _, _), _ in rows],
        "topic": [t for (_, t, _), _ in rows],
        "partition": pa.array([p for (_, _, p), _ in rows], pa.int32()),
        "offset": pa.array(offsets, pa.int64()),
        "original_offset": pa.array(originals, pa.int64()),
        "clamped": pa.array(clamped, pa.bool_()),
        "leader_epoch": pa.array([c.leader_epoch if c.leader_epoch >= 0 else None for _, (_, c) in rows],
                                 pa.int32()),
        "metadata": [c.metadata for _, (_, c) in rows],
        "commit_timestamp": pa.array([c.commit_timestamp for _, (_, c) in rows],
                                     pa.int64()).cast(pa.timestamp("ms", tz="UTC")),
        "topic_id": pa.array([c.topic_id for _, (_, c) in rows], pa.string()),
    }, schema=group_offsets_schema())


# ==================================================================================== input rows
@dataclass(frozen=True)
class _Row:
    group: str
    topic: str
    partition: int
    offset: int
    leader_epoch: int | None
    metadata: str
    commit_timestamp: int | None
    topic_id: str | None = None


def _rows(table: pa.Table, what: str) -> list[_Row]:
    """The table's rows, checked: the columns needed, one row per (group, topic, partition)."""
    if not isinstance(table, pa.Table):
        raise TypeError(f"{what} takes a pyarrow.Table (group_offsets_at_cut's), not {type(table).__name__}")
    missing = [c for c in ("group", "topic", "partition", "offset") if c not in table.column_names]
    if missing:
        raise ConfigError(f"{what}: the table has no column {', '.join(missing)} "
                          f"(it has {', '.join(table.column_names)})")
    n = table.num_rows

    def column(name: str, default: Any) -> list[Any]:
        if name not in table.column_names:
            return [default] * n
        col = table.column(name)
        if pa.types.is_timestamp(col.type):
            col = col.cast(pa.timestamp("ms", tz=col.type.tz)).cast(pa.int64())
        values: list[Any] = col.to_pylist()
        return values

    out, seen = [], set()
    for g, t, p, o, e, m, ts, tid in zip(column("group", None), column("topic", None), column("partition", None),
                                         column("offset", None), column("leader_epoch", None),
                                         column("metadata", ""), column("commit_timestamp", None),
                                         column("topic_id", None)):
        if not isinstance(g, str) or not isinstance(t, str) or not isinstance(p, int) or not isinstance(o, int):
            raise ConfigError(f"{what}: a row needs a group, topic, partition and offset, got "
                              f"{(g, t, p, o)!r:.200}")
        if (g, t, p) in seen:
            raise ConfigError(f"{what}: group {g!r} has two rows for {t}-{p}")
        seen.add((g, t, p))
        out.append(_Row(g, t, p, o, e if e is not None and e >= 0 else None, m or "", ts,
                        tid if isinstance(tid, str) and tid else None))
    return out


# ============================================================================ reset files (CSV)
def _escape(group: str) -> str:
    raw = group.encode("utf-8", "surrogatepass")
    text = "".join(chr(b) if b in _SAFE else f"%{b:02X}" for b in raw)
    if text[:1] in (".", "-"):  # no hidden file, nothing that reads as an option
        text = f"%{ord(text[0]):02X}" + text[1:]
    return text


def reset_file_names(groups: Iterable[str]) -> dict[str, str]:
    """``{group: file name}`` of :func:`write_reset_csv`: the group id's UTF-8 bytes with everything
    but ``A-Za-z0-9_.-`` (and a leading ``.`` or ``-``) as ``%XX``, then ``.csv``. A name that is empty,
    longer than 200 characters, or equal to another one but for case (a case-insensitive file
    system) is cut to 200 and gets ``~`` and 16 hex digits of the id's SHA-256 (``~`` is otherwise
    always escaped, so such names never meet plain ones)."""
    escaped = {g: _escape(g) for g in set(groups)}
    folded: dict[str, int] = {}
    for name in escaped.values():
        folded[name.lower()] = folded.get(name.lower(), 0) + 1
    out = {}
    for g, name in escaped.items():
        if not name or len(name) > _MAX_NAME or folded[name.lower()] > 1:
            cut = name[:_MAX_NAME]
            if "%" in cut[-2:]:  # do not cut an escape in half
                cut = cut[:cut.rindex("%")]
            digest = hashlib.sha256(g.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            name = f"{cut}~{digest}"
        out[g] = f"{name}.csv"
    return out


def write_reset_csv(table: pa.Table, directory: str | os.PathLike[str], *, script: bool = True) -> list[str]:
    """One reset file per group in ``directory`` (created if needed), for ``kafka-consumer-groups.sh
    --bootstrap-server B --group G --reset-offsets --from-file FILE --execute``; returns their paths
    in group order. Each file holds ``topic,partition,offset`` lines (the ``offset`` column, clamped),
    by topic and partition, no header, ``\\n`` line ends; it is written atomically (temporary file,
    fsync, rename). ``script`` also writes ``reset-offsets.sh``, which runs the tool once per group
    with the group id quoted for the shell. Files of groups not in ``table`` are left alone.
    """
    rows = _rows(table, "write_reset_csv")
    by_group: dict[str, list[_Row]] = {}
    for r in rows:
        by_group.setdefault(r.group, []).append(r)
    names = reset_file_names(by_group)
    root = os.fspath(directory)
    os.makedirs(root, mode=_io.DIR_MODE, exist_ok=True)
    paths = []
    for group in sorted(by_group):
        lines = [f"{r.topic},{r.partition},{r.offset}\n"
                 for r in sorted(by_group[group], key=lambda r: (r.topic, r.partition))]
        path = os.path.join(root, names[group])
        _io.fs.write_atomic(path, "".join(lines).encode("ascii"))
        paths.append(path)
    if script:
        _io.fs.write_atomic(os.path.join(root, RESET_SCRIPT), _script(sorted(by_group), names).encode("utf-8"))
    return paths


def _script(groups: list[str], names: dict[str, str]) -> str:
    head = [
        "#!/bin/sh",
        "# Restores consumer group offsets with Kafka's own tool, one group per file beside this script",
        "# (kvlog.backup.groups.write_reset_csv). The groups must be inactive on the target cluster.",
        "#   BOOTSTRAP=host:9092 sh reset-offsets.sh            # dry run: prints the new offsets",
        "#   BOOTSTRAP=host:9092 sh reset-offsets.sh --execute  # commits them",
        "# KAFKA_CONSUMER_GROUPS names the tool (default kafka-consumer-groups.sh); EXTRA adds options,",
        "# e.g. EXTRA='--command-config client.properties'.",
        "set -eu",
        ': "${BOOTSTRAP:?set BOOTSTRAP to the target cluster bootstrap servers}"',
        'tool="${KAFKA_CONSUMER_GROUPS:-kafka-consumer-groups.sh}"',
        'action="${1:---dry-run}"',
        'here="$(cd "$(dirname "$0")" && pwd)"',
    ]
    body = []
    for g in groups:
        if "\0" in g:
            body.append(f"# skipped {names[g]}: its group id holds a NUL byte, which no command line can pass")
            continue
        body.append(f'"$tool" --bootstrap-server "$BOOTSTRAP" ${{EXTRA:-}} --group {shlex.quote(g)} '
                    f'--reset-offsets --from-file "$here/{names[g]}" "$action"')
    return "\n".join(head + body) + "\n"


# ============================================================= __consumer_offsets partitions (records)
@dataclass(frozen=True)
class OffsetsPartition:
    """One ``__consumer_offsets-N`` directory :func:`write_offsets_partitions` wrote."""

    partition: int
    path: str
    groups: int
    commits: int


def _topic_uuid(topic_id: str | uuid.UUID) -> uuid.UUID:
    """A topic id from Kafka's text (base64url, 22 characters) or a UUID; ConfigError for anything else."""
    value: uuid.UUID | None = topic_id if isinstance(topic_id, uuid.UUID) else None
    if value is None and isinstance(topic_id, str):
        text = topic_id.strip()
        try:
            value = uuid.UUID(text) if len(text) == 36 else None
        except ValueError:
            value = None
        if value is None and len(text) == 22:
            try:
                raw = base64.urlsafe_b64decode(text + "==")
            except (binascii.Error, ValueError):
                raw = b""
            if len(raw) == 16:
                value = uuid.UUID(bytes=raw)
    if value is None:
        raise ConfigError(f"topic id {topic_id!r:.60} is neither Kafka's base64 form (22 characters, as "
                          f"kafka-topics --describe prints it) nor a UUID")
    return value


def _topic_id(topic_id: str | uuid.UUID) -> str:
    """Kafka's text of a topic id (base64url, 22 characters), from that text or a UUID; not a reserved id."""
    value = _topic_uuid(topic_id)
    if value in _RESERVED_TOPIC_IDS:
        raise ConfigError(f"topic id {topic_id!r} is reserved by Kafka (Uuid.RESERVED)")
    return topic_id_text(value)


def _check_target(path: str, topic_id: str | None) -> None:
    """A partition directory that already exists must be empty and carry the same topic id."""
    if not _io.fs.isdir(path):
        return
    with Log.open(path, read_only=True) as log:
        if log.log_end_offset > 0:
            raise KvlogError(f"{path} already holds records (offsets {log.log_start_offset}.."
                             f"{log.log_end_offset - 1}); the group restore writes fresh __consumer_offsets "
                             f"partitions holding only the restored groups: move it away first")
    meta = os.path.join(path, "partition.metadata")
    if topic_id is not None and _io.fs.exists(meta):
        fields = dict(line.split(":", 1) for line in _io.fs.read_file(meta).decode("utf-8", "replace").splitlines()
                      if ":" in line)
        have = fields.get("topic_id", "").strip()
        if have and have != topic_id:
            raise KvlogError(f"{meta} names topic id {have}, not {topic_id}")


def _records(rows: list[_Row], now: int, keep_leader_epochs: bool, keep_commit_timestamps: bool,
             target_ids: Mapping[str, uuid.UUID]) -> list[list[Record]]:
    """The OffsetCommit records of one partition, in batches of bounded size."""
    batches: list[list[Record]] = [[]]
    size = 0
    for r in rows:
        epoch = r.leader_epoch if keep_leader_epochs and r.leader_epoch is not None else -1
        commit_ts = r.commit_timestamp if keep_commit_timestamps and r.commit_timestamp is not None else now
        topic_id = target_ids.get(r.topic, _ZERO_ID) if r.topic_id is not None else _ZERO_ID
        key, value = encode_coordinator_record(
            TOPIC, OFFSET_COMMIT_KEY_TYPE, {"group": r.group, "topic": r.topic, "partition": r.partition},
            OFFSET_COMMIT_VALUE_VERSION,
            {"offset": r.offset, "leaderEpoch": epoch, "metadata": r.metadata, "commitTimestamp": commit_ts,
             "topicId": topic_id})
        assert value is not None
        grows = len(key) + len(value) + 32
        if batches[-1] and (len(batches[-1]) >= BATCH_RECORDS or size + grows > BATCH_BYTES):
            batches.append([])
            size = 0
        batches[-1].append(Record(key, value, now))
        size += grows
    return batches


def write_offsets_partitions(table: pa.Table, target_root: str | os.PathLike[str], *, num_partitions: int,
                             topic_id: str | uuid.UUID | None, partitions: Iterable[int] | None = None,
                             keep_leader_epochs: bool = False, keep_commit_timestamps: bool = False,
                             now: int | None = None, topic_ids: Mapping[str, str | uuid.UUID] | None = None,
                             ) -> list[OffsetsPartition]:
    """Write the table's offsets as ``__consumer_offsets-N`` partitions under ``target_root`` (a stopped
    broker's log directory), which its group coordinator loads at startup; returns what was written,
    by partition.

    ``num_partitions`` is the target's ``__consumer_offsets`` partition count (``kafka-topics
    --describe``; ``offsets.topic.num.partitions`` before the topic exists): each group goes to
    ``abs(hashCode) % num_partitions``. ``topic_id`` is the target's ``__consumer_offsets`` topic id,
    written to ``partition.metadata`` (a KRaft broker treats a partition directory without one as stray,
    ``LogManager.isStrayKraftReplica``); None writes none. ``partitions`` keeps only these partitions
    (a broker holding some replicas). Only partitions that get records are written; a partition
    directory that already exists must be empty.

    Records: key type 1 (OffsetCommitKey), value version 4 (offset, leader epoch, metadata, commit
    timestamp and the tagged topic id; what a 4.1+ coordinator writes for a commit without an expire
    timestamp), plain (not transactional) v2 batches, uncompressed,
    create time ``now`` (epoch ms, default the clock). No group record is needed: replaying an offset
    commit of an unknown group creates an empty classic group (``OffsetMetadataManager.replay``), which
    a classic consumer joins and a consumer-protocol consumer converts. The commit timestamp is ``now``
    unless ``keep_commit_timestamps``: a simple group's offsets expire ``offsets.retention.minutes``
    after their commit timestamp, so an old backup restored with its original times would lose them at
    the first expiry check. The leader epoch is -1 unless ``keep_leader_epochs``: a consumer validates a
    committed epoch against the target's leader epochs, which restart with the target's topic, and an
    epoch the target never had makes it reset the partition (``SubscriptionState``: "Truncation
    detected").

    ``topic_ids`` maps topic names to the *target's* topic ids (each restored topic's, as its
    ``partition.metadata`` names it). A commit that carried a topic id on the source (``topic_id``: a
    4.4 broker stores the id of every commit that named the topic by id) is written with its topic's
    target id, as the target's coordinator would have stored it; without one, or when the source's commit
    carried none, with no id (Kafka's zero id, which matches the topic whatever its id). The source's id is
    never written: a 4.4 coordinator answers an offset fetch by id with no offset when the stored id
    differs (``OffsetMetadataManager.isMismatchedTopicId``), and the target's topics have ids of their own.
    """
    rows = _rows(table, "write_offsets_partitions")
    target_ids = {str(t): _topic_uuid(i) for t, i in (topic_ids or {}).items()}
    coordinator_partition("", num_partitions)  # checks the count
    wanted = None if partitions is None else set(partitions)
    tid = None if topic_id is None else _topic_id(topic_id)
    stamp = now_ms() if now is None else int(now)
    by_partition: dict[int, list[_Row]] = {}
    for r in rows:
        n = coordinator_partition(r.group, num_partitions)
        if wanted is None or n in wanted:
            by_partition.setdefault(n, []).append(r)
    root = os.fspath(target_root)
    paths = {n: os.path.join(root, f"{TOPIC}-{n}") for n in by_partition}
    for n in sorted(by_partition):   # check them all before writing any
        _check_target(paths[n], tid)
    out = []
    for n in sorted(by_partition):
        part = sorted(by_partition[n], key=lambda r: (r.group, r.topic, r.partition))
        os.makedirs(paths[n], mode=_io.DIR_MODE, exist_ok=True)
        # Kafka writes partition.metadata before the first append; without the target's id, none at all (a
        # broker sets a partition without one aside, so the operator must still give it)
        with Log.open(paths[n], topic_id=tid if tid is not None else broker_files.NO_TOPIC_ID) as log:
            for batch in _records(part, stamp, keep_leader_epochs, keep_commit_timestamps, target_ids):
                if batch:
                    log.append(batch)
        out.append(OffsetsPartition(n, paths[n], len({r.group for r in part}), len(part)))
    return out
