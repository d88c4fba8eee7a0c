"""Which offsets of which partition logs a read covers: Spark's Kafka-source options resolved against logs.

Nothing here imports pyspark: planning runs in Spark's driver-side Python workers, and the same code is
what the tests check against brute-force models without a JVM.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from dataclasses import dataclass, replace
from typing import Any, Iterator, Mapping

import pyarrow as pa

from kvlog import _files, _io, storage
from kvlog.errors import ConfigError, KvlogError, OffsetOutOfRangeError
from kvlog.log import Log
from kvlog.scanning import const_string as _const_string  # noqa: F401  (the benchmarks' ceiling source)
from kvlog.scanning import decode_range, kafka_schema, to_spark_batch
from kvlog.scanning import spark_headers_type as spark_headers_type
from kvlog.spark._options import check_option_names, is_internal_topic
from kvlog.spark._tiered import RemoteSpec, cut_at_pieces, open_tiered
from kvlog.tiered.lineage import RemotePiece
from kvlog.tiered.view import remote_pieces

EARLIEST = -2
LATEST = -1

NO_SUBSCRIPTION = ("one of the options subscribe, subscribePattern or assign must be given, as for Spark's Kafka "
                   "source: subscribe=<topic,topic> reads named topics, subscribePattern=<regex> topics by name "
                   "(.* for all but Kafka's internal __ topics), assign=<JSON> partitions")

def lowered(options: Mapping[str, Any]) -> dict[str, Any]:
    """Spark's options are case-insensitive; kvlog reads them through lower-cased keys."""
    return {str(k).lower(): v for k, v in options.items()}


def spark_arrow_schema(include_headers: bool) -> pa.Schema:
    """The Arrow schema Spark expects for the Kafka-source columns (what ``to_arrow_schema`` yields)."""
    return kafka_schema(include_headers)


@dataclass(frozen=True)
class OffsetRange:
    """Offsets ``[start, end)`` of one partition log; one Spark task reads one range.

    ``backup_run`` (option ``kvlog.backupRun``): the offsets are those of that run of a ``kvlog backup``, so
    the task opens the partition as that run holds it (a later run's longer copy of a segment is not read).
    """

    topic: str
    partition: int
    path: str
    start: int
    end: int
    backup_run: int | None = None
    remote: RemoteSpec | None = None  # a tiered topic's remote storage (kvlog.remoteStorage.*)
    pieces: tuple[RemotePiece, ...] | None = None  # the remote piece this range reads (planned by the driver)

    @property
    def size(self) -> int:
        return self.end - self.start


# ---------------------------------------------------------------------------------------- options
def _bool(options: Mapping[str, str], name: str, default: bool) -> bool:
    raw = options.get(name)
    if raw is None:
        return default
    value = str(raw).strip().lower()
    if value not in ("true", "false"):
        raise ConfigError(f"option {name} must be true or false, got {raw!r}")
    return value == "true"


def _positive(options: Mapping[str, str], name: str, kind: type = int, shown: str | None = None) -> Any:
    raw = options.get(name)
    if raw is None:
        return None
    shown = shown or name
    try:
        value = kind(str(raw).strip())
    except ValueError:
        raise ConfigError(f"option {shown} must be a positive integer, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"option {shown} must be a positive integer, got {raw!r}")
    return value


def _long(options: Mapping[str, str], name: str) -> int | None:
    raw = options.get(name)
    if raw is None:
        return None
    try:
        return int(str(raw).strip())
    except ValueError:
        raise ConfigError(f"option {name} must be a timestamp in epoch milliseconds, got {raw!r}") from None


_UNITS_MS = {"ms": 1, "s": 1000, "sec": 1000, "second": 1000, "seconds": 1000, "m": 60_000, "min": 60_000,
             "minute": 60_000, "minutes": 60_000, "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
             "d": 86_400_000, "day": 86_400_000, "days": 86_400_000}


def _duration_ms(raw: Any, name: str) -> int:
    """Spark's time strings (``15m``, ``30s``, ``500ms``, ``1 hour``); a bare number is milliseconds."""
    m = re.fullmatch(r"\s*(\d+)\s*([a-z]*)\s*", str(raw).lower())
    if m is None or (m.group(2) and m.group(2) not in _UNITS_MS):
        raise ConfigError(f"option {name} must be a duration like 15m, 30s or 500ms, got {raw!r}")
    return int(m.group(1)) * _UNITS_MS[m.group(2) or "ms"]


def _json_partition_map(options: Mapping[str, str], name: str) -> dict[tuple[str, int], int] | None:
    """Kafka's ``{"topic": {"0": 23}}`` form."""
    raw = options.get(name)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        out = {}
        for topic, parts in data.items():
            for p, value in parts.items():
                out[(str(topic), int(p))] = int(value)
    except (ValueError, TypeError, AttributeError):
        raise ConfigError(f"option {name} must be JSON like {{\"topic\":{{\"0\":23}}}}, got {raw!r}") from None
    return out


@dataclass(frozen=True)
class ReadOptions:
    """The Kafka-source options kvlog honours, parsed and checked once on the driver."""

    subscribe: tuple[str, ...] | None = None
    subscribe_pattern: str | None = None
    assign: dict[str, tuple[int, ...]] | None = None
    starting: str | dict[tuple[str, int], int] = "earliest"
    ending: str | dict[tuple[str, int], int] = "latest"
    starting_timestamp: int | None = None
    ending_timestamp: int | None = None
    starting_by_timestamp: dict[tuple[str, int], int] | None = None
    ending_by_timestamp: dict[tuple[str, int], int] | None = None
    starting_timestamp_strategy: str = "error"
    fail_on_data_loss: bool = True
    min_partitions: int | None = None
    max_records_per_partition: int | None = None
    max_offsets_per_trigger: int | None = None
    min_offsets_per_trigger: int | None = None
    max_trigger_delay_ms: int = 15 * 60 * 1000
    include_headers: bool = False
    include_internal_topics: bool = False
    read_committed: bool = False
    chunk_bytes: int = 1 << 20
    max_rows_per_batch: int = 10_000
    backup_run: int | None = None
    remote: RemoteSpec | None = None
    divergent: str = "raise"  # kvlog.divergentReplicas: a cluster's diverged replicas (kvlog.cluster)

    @classmethod
    def parse(cls, options: Mapping[str, str], *, streaming: bool = False) -> "ReadOptions":
        check_option_names(options)
        opts = lowered(options)
        chosen = [k for k in ("subscribe", "subscribepattern", "assign") if opts.get(k) is not None]
        if not chosen:
            raise ConfigError(NO_SUBSCRIPTION)
        if len(chosen) > 1:
            raise ConfigError(f"options {', '.join(chosen)} exclude each other: give only one of subscribe, "
                              "subscribePattern or assign")
        subscribe = None
        if "subscribe" in chosen:
            subscribe = tuple(t.strip() for t in str(opts["subscribe"]).split(",") if t.strip())
            if not subscribe:
                raise ConfigError(f"option subscribe names no topic: {opts['subscribe']!r}")
        pattern = opts.get("subscribepattern")
        if pattern is not None:
            if not str(pattern).strip():
                raise ConfigError(f"option subscribePattern is empty: {pattern!r}")
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigError(f"option subscribePattern is not a valid regex: {exc}") from None
        assign = None
        if "assign" in chosen:
            raw = str(opts["assign"]).strip()
            try:
                if not raw.startswith("{"):
                    raise ValueError
                assign = {str(t): tuple(int(p) for p in ps) for t, ps in json.loads(raw).items()}
            except (ValueError, TypeError, AttributeError):
                raise ConfigError(f"option assign must be JSON like {{\"topicA\":[0,1]}}, got {raw!r}") from None
            if not any(assign.values()):
                raise ConfigError(f"option assign names no partition: {raw!r}")
        include_internal = _bool(opts, "includeinternaltopics", False)
        if opts.get("kafka.exclude.internal.topics") is not None:
            exclude = _bool(opts, "kafka.exclude.internal.topics", True)
            if opts.get("includeinternaltopics") is not None and exclude == include_internal:
                raise ConfigError(f"options includeInternalTopics={str(include_internal).lower()} and "
                                  f"kafka.exclude.internal.topics={str(exclude).lower()} contradict each other")
            include_internal = not exclude

        def offsets(name: str, default: str) -> str | dict[tuple[str, int], int]:
            raw = opts.get(name.lower())
            if raw is None:
                return default
            word = str(raw).strip().lower()
            if word in ("earliest", "latest"):
                return word
            parsed = _json_partition_map(opts, name.lower())
            assert parsed is not None
            return parsed

        starting = offsets("startingOffsets", "latest" if streaming else "earliest")
        ending = offsets("endingOffsets", "latest")
        if streaming:
            for name in ("endingoffsets", "endingtimestamp", "endingoffsetsbytimestamp"):
                if opts.get(name) is not None:
                    raise ConfigError(f"option {name} is for batch queries only (a stream has no end)")
        else:
            if starting == "latest" or (isinstance(starting, dict) and LATEST in starting.values()):
                raise ConfigError("startingOffsets latest (-1) is for streaming queries only, as in Spark's Kafka "
                                  "source; a batch read starts at earliest or at given offsets")
            if ending == "earliest" or (isinstance(ending, dict) and EARLIEST in ending.values()):
                raise ConfigError("endingOffsets earliest (-2) is not allowed, as in Spark's Kafka source")
            if isinstance(starting, dict) and isinstance(ending, dict):
                if set(starting) != set(ending):
                    raise ConfigError("startingOffsets and endingOffsets must name the same partitions")
                for tp, s in starting.items():
                    e = ending[tp]
                    if s >= 0 and e >= 0 and s > e:
                        raise ConfigError(f"startingOffsets {s} is after endingOffsets {e} for {tp[0]}-{tp[1]}")
        strategy = str(opts.get("startingoffsetsbytimestampstrategy", "error")).strip().lower()
        if strategy not in ("error", "latest"):
            raise ConfigError(f"option startingOffsetsByTimestampStrategy must be error or latest, got {strategy!r}")
        level = str(opts.get("kafka.isolation.level", "read_uncommitted")).strip().lower()
        if level not in ("read_uncommitted", "read_committed"):
            raise ConfigError(f"option kafka.isolation.level must be read_uncommitted or read_committed, got {level!r}")
        # The JVM source may serve offsets-only columns from batch headers unless this is true; this source
        # always reads batches whole (CRC checked), so the options are only validated here.
        _bool(opts, "kvlog.verifychecksums", False)
        divergent = str(opts.get("kvlog.divergentreplicas", "raise")).strip().lower()
        if divergent not in ("raise", "newest"):
            raise ConfigError(f"option kvlog.divergentReplicas={divergent!r}: it is raise or newest")
        _bool(opts, "kvlog.aggregatepushdown", True)  # the JVM source's; Python sources take no aggregates
        if opts.get("kvlog.completeaggregatebatches") is not None and \
                not str(opts["kvlog.completeaggregatebatches"]).strip().isdigit():
            raise ConfigError("option kvlog.completeAggregateBatches must be a non-negative integer, got "
                              f"{opts['kvlog.completeaggregatebatches']!r}")
        backup_run = _positive(opts, "kvlog.backuprun", shown="kvlog.backupRun")
        if backup_run is not None and streaming:
            raise ConfigError(f"option kvlog.backupRun ({backup_run}) is for batch queries only: a backup run never "
                              "grows, so a stream of it would never see a new record (stream the newest run instead)")
        max_trigger = _positive(opts, "maxoffsetspertrigger")
        min_trigger = _positive(opts, "minoffsetspertrigger")
        delay = _duration_ms(opts.get("maxtriggerdelay", "15m"), "maxTriggerDelay")
        if max_trigger is not None and min_trigger is not None and min_trigger > max_trigger:
            raise ConfigError(f"minOffsetsPerTrigger ({min_trigger}) is larger than maxOffsetsPerTrigger "
                              f"({max_trigger})")
        for name, value in (("maxOffsetsPerTrigger", max_trigger), ("minOffsetsPerTrigger", min_trigger)):
            if value is not None and not streaming:
                warnings.warn(f"{name} is ignored by batch queries", stacklevel=2)
        return cls(
            subscribe=subscribe,
            subscribe_pattern=pattern,
            assign=assign,
            starting=starting,
            ending=ending,
            starting_timestamp=_long(opts, "startingtimestamp"),
            ending_timestamp=_long(opts, "endingtimestamp"),
            starting_by_timestamp=_json_partition_map(opts, "startingoffsetsbytimestamp"),
            ending_by_timestamp=_json_partition_map(opts, "endingoffsetsbytimestamp"),
            starting_timestamp_strategy=strategy,
            fail_on_data_loss=_bool(opts, "failondataloss", True),
            min_partitions=_positive(opts, "minpartitions"),
            max_records_per_partition=_positive(opts, "maxrecordsperpartition"),
            max_offsets_per_trigger=max_trigger,
            min_offsets_per_trigger=min_trigger,
            max_trigger_delay_ms=delay,
            include_headers=_bool(opts, "includeheaders", False),
            include_internal_topics=include_internal,
            read_committed=level == "read_committed",
            chunk_bytes=_positive(opts, "kvlog.chunkbytes") or (1 << 20),
            max_rows_per_batch=_positive(opts, "kvlog.maxrowsperbatch") or 10_000,
            backup_run=backup_run,
            remote=RemoteSpec.parse(opts),
            divergent=divergent,
        )


# -------------------------------------------------------------------------------------- discovery
def _is_partition_dir_name(name: str) -> bool:
    tp = _files.parse_partition_dir(name)
    # "-delete", "-future" and "-stray" directories carry a "." suffix after the partition number
    return tp is not None and "." not in name.rsplit("-", 1)[-1]


def input_paths(options: Mapping[str, str]) -> list[str]:
    """``load(path)`` gives ``path``; ``load([a, b])`` gives ``paths`` as a JSON array."""
    opts = lowered(options)
    paths: list[str] = []
    if opts.get("paths"):
        try:
            paths = [str(p) for p in json.loads(opts["paths"])]
        except (ValueError, TypeError):
            raise ConfigError(f"paths must be a JSON list, got {opts['paths']!r}") from None
    if opts.get("path"):
        paths.insert(0, str(opts["path"]))
    if not paths:
        raise ConfigError("give the data directory (or a partition directory) to load(), e.g. load('/data/kvlog')")
    return paths


class Found(dict):  # type: ignore[type-arg]
    """``{(topic, partition): path}``, and ``caps``: where a partition replicated in several of the paths (a
    cluster's brokers) stops, as :class:`kvlog.cluster.Cluster` chose its replica and committed end."""

    caps: dict[tuple[str, int], int]


def discover(paths: list[str], divergent: str = "raise") -> Found:
    """Partition directories under each path; a path may itself be one ``topic-N`` directory. A partition in
    several data directories (a cluster's brokers) is read from the replica :class:`kvlog.cluster.Cluster`
    chooses, up to what the cluster committed."""
    found = Found()
    found.caps = {}
    replicated: set[tuple[str, int]] = set()
    data_dirs: list[str] = []
    for raw in paths:
        path = storage.normalize(raw)
        remote = storage.is_remote(path)
        if not _io.fs.isdir(path):
            raise ConfigError(f"no directory at {path}")
        names = sorted(_io.fs.listdir(path))
        # a child is a partition when a broker could have named it so and it holds Kafka files (/etc/dbus-1 is not)
        children = [n for n in names if _is_partition_dir_name(n) and _io.fs.isdir(os.path.join(path, n))
                    and _files.looks_like_partition(_io.fs.listdir(os.path.join(path, n)))]
        own_segments = any(_files.is_offset_name(n.split(".", 1)[0]) and n.endswith(".log") for n in names)
        # a remote partition keeps the URI as given (its query and credentials configure the executors)
        if _is_partition_dir_name(os.path.basename(path)) and (own_segments or not children):
            tp = _files.parse_partition_dir(os.path.basename(path))
            assert tp is not None
            candidates = {tp: raw if remote else path}
        else:
            real_root = os.path.realpath(path)
            candidates = {}
            for n in children:
                full = os.path.join(path, n)
                if remote:
                    candidates[_files.parse_partition_dir(n)] = storage.join(raw, n)  # type: ignore[index]
                    continue
                if os.path.commonpath([os.path.realpath(full), real_root]) != real_root:
                    raise KvlogError(f"{full} resolves outside {path} (a symlink?); refusing it")
                tp = _files.parse_partition_dir(n)
                assert tp is not None
                candidates[tp] = full
        is_data_dir = not (_is_partition_dir_name(os.path.basename(path)) and (own_segments or not children))
        if is_data_dir:
            data_dirs.append(raw)
        for tp, p in candidates.items():
            if tp in found and found[tp] != p:
                if not is_data_dir or found[tp] in paths:
                    raise ConfigError(f"partition {tp[0]}-{tp[1]} is in both {found[tp]} and {p}: give the "
                                      "data directories of a cluster's brokers to read its replicas as one")
                replicated.add(tp)
                continue
            found[tp] = p
    if replicated:
        from kvlog.cluster import Cluster

        with Cluster(data_dirs, divergent=divergent) as cluster:
            for tp in sorted(replicated):
                part = cluster.partition(*tp)
                chosen = part.chosen.path
                found[tp] = next((storage.join(r, os.path.basename(chosen)) for r in data_dirs
                                  if storage.normalize(r) == part.chosen.directory.root), chosen)
                found.caps[tp] = part.end
    return found


def _where(paths: list[str]) -> str:
    """The paths read, as messages may show them (a URI without its credentials or query)."""
    shown = [storage.canonical(p) if storage.is_remote(p) else p for p in paths]
    return shown[0] if len(shown) == 1 else "[" + ", ".join(shown) + "]"


def _listing(names: list[str], limit: int = 20) -> str:
    if not names:
        return "none"
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def missing_topics_message(what: str, missing: list[str], topics: list[str], paths: list[str]) -> str:
    """The error for subscribed/assigned topics with no partition directory (the JVM source says the same)."""
    names = ", ".join(repr(t) for t in missing)
    noun = "topic" if len(missing) == 1 else "topics"
    verb = "does" if len(missing) == 1 else "do"
    return f"{what} {noun} {names} {verb} not exist under {_where(paths)}; topics there: {_listing(sorted(topics))}"


def select(found: dict[tuple[str, int], str], opts: ReadOptions, paths: list[str] | None = None,
           *, strict: bool = True) -> dict[tuple[str, int], str]:
    """The partitions ``subscribe`` / ``subscribePattern`` / ``assign`` pick.

    A subscribed or assigned topic (or assigned partition) with no directory is an error naming it and what
    there is (``strict``; a running stream instead lets ``failOnDataLoss`` judge a topic that went away).
    A pattern matches whole topic names and skips Kafka's internal topics (``__*``) unless
    ``includeInternalTopics`` is true; matching nothing reads nothing, as Spark's Kafka source does.
    """
    topics = sorted({tp[0] for tp in found})
    where = paths or []
    if opts.subscribe is not None:
        wanted = set(opts.subscribe)
        missing = [t for t in dict.fromkeys(opts.subscribe) if t not in topics]
        if missing and strict:
            raise ConfigError(missing_topics_message("subscribed", missing, topics, where))
        return {tp: p for tp, p in found.items() if tp[0] in wanted}
    if opts.subscribe_pattern is not None:
        rx = re.compile(opts.subscribe_pattern)
        return {tp: p for tp, p in found.items()
                if rx.fullmatch(tp[0]) and (opts.include_internal_topics or not is_internal_topic(tp[0]))}
    if opts.assign is None:  # ReadOptions.parse requires one of the three
        raise ConfigError(NO_SUBSCRIPTION)
    missing = [t for t, parts in opts.assign.items() if parts and t not in topics]
    if missing and strict:
        raise ConfigError(missing_topics_message("assigned", missing, topics, where))
    out = {}
    for topic, parts in opts.assign.items():
        for part in parts:
            if (topic, part) not in found:
                if not strict:
                    continue
                have = sorted(p for t, p in found if t == topic)
                raise ConfigError(f"assigned partition {topic}-{part} has no log directory under {_where(where)}; "
                                  f"{topic} has partitions {_listing([str(p) for p in have])}")
            out[(topic, part)] = found[(topic, part)]
    return out


# ------------------------------------------------------------------------------------- resolution
@dataclass(frozen=True)
class LogBounds:
    """What a read-only open saw: the log start offset, the readable end and the log end offset."""

    log_start_offset: int
    end: int
    log_end_offset: int
    pieces: tuple[RemotePiece, ...] = ()  # a tiered view's remote pieces


def open_read_only(path: str, on_damage: str = "raise", backup_run: int | None = None,
                   remote: RemoteSpec | None = None, pieces: tuple[RemotePiece, ...] | None = None,
                   cache: dict[str, Any] | None = None) -> Log:
    """A read-only open (no lock, nothing rewritten); use it in a ``with`` block. ``on_damage="skip"``
    (``failOnDataLoss=false``) reads around damaged durable data with a ``DataLossWarning``. ``backup_run``
    (``kvlog.backupRun``) opens the partition as that run of a backup holds it; ``BackupError`` when the run
    does not exist or a later run moved the partition's files aside. ``remote`` (``kvlog.remoteStorage.*``)
    adds a tiered topic's remote history: all of it, or only ``pieces`` (a task's)."""
    if remote is not None:
        if backup_run is not None:
            raise ConfigError("options kvlog.backupRun and kvlog.remoteStorage.* do not go together: a backup holds "
                              "the local segments only")
        return open_tiered(path, remote, on_damage=on_damage, pieces=pieces, cache=cache)
    return Log.open(path, read_only=True, on_damage=on_damage, backup_run=backup_run)


def read_bounds(path: str, read_committed: bool, remote: RemoteSpec | None = None,
                cache: dict[str, Any] | None = None, cap: int | None = None) -> LogBounds:
    with open_read_only(path, remote=remote, cache=cache) as log:
        return bounds(log, read_committed, cap)


def bounds(log: Log, read_committed: bool, cap: int | None = None) -> LogBounds:
    """``cap``: a cluster's committed end of the partition (:func:`discover`), past which a replica's records
    are not read."""
    end = log.log_end_offset
    if read_committed:
        end = log.last_stable_offset
    if cap is not None:
        end = min(end, cap)
    return LogBounds(log.log_start_offset, end, log.log_end_offset, remote_pieces(log))


def _by_timestamp(log: Log, ts: int) -> int | None:
    found = log.offset_for_timestamp(ts)
    return None if found is None else found.offset


def _pick(
    spec: str | dict[tuple[str, int], int],
    by_ts: dict[tuple[str, int], int] | None,
    ts_all: int | None,
    tps: list[tuple[str, int]],
    what: str,
) -> dict[tuple[str, int], tuple[str, int]]:
    """Per partition, ("offset"|"timestamp", value) with Kafka's precedence: *Timestamp > *ByTimestamp > *Offsets."""
    if ts_all is not None:
        return {tp: ("timestamp", ts_all) for tp in tps}
    if by_ts is not None:
        if set(by_ts) != set(tps):
            missing = sorted(set(tps) - set(by_ts))
            raise ConfigError(f"{what}OffsetsByTimestamp must cover every assigned partition; missing {missing}")
        return {tp: ("timestamp", by_ts[tp]) for tp in tps}
    if isinstance(spec, dict):
        if set(spec) != set(tps):
            raise ConfigError(f"{what}Offsets must name exactly the assigned partitions "
                              f"({sorted(tps)}); use -1 for latest and -2 for earliest")
        return {tp: ("offset", spec[tp]) for tp in tps}
    return {tp: ("offset", EARLIEST if spec == "earliest" else LATEST) for tp in tps}


def resolve_start(log: Log, b: LogBounds, how: tuple[str, int], opts: ReadOptions, tp: tuple[str, int]) -> int:
    kind, value = how
    if kind == "timestamp":
        off = _by_timestamp(log, value)
        if off is None:
            if opts.starting_timestamp_strategy == "latest":
                return b.end
            raise OffsetOutOfRangeError(
                f"no record in {tp[0]}-{tp[1]} has a timestamp at or after {value} "
                "(set startingOffsetsByTimestampStrategy=latest to start at the end instead)",
                log_start_offset=b.log_start_offset, log_end_offset=b.log_end_offset)
        return min(off, b.end)
    if value == EARLIEST:
        return b.log_start_offset
    if value == LATEST:
        return b.end
    return value


def resolve_end(log: Log, b: LogBounds, how: tuple[str, int]) -> int:
    kind, value = how
    if kind == "timestamp":
        off = _by_timestamp(log, value)
        return b.end if off is None else min(off, b.end)
    if value == LATEST:
        return b.end
    return value


def check_range(tp: tuple[str, int], start: int, end: int, b: LogBounds, fail_on_data_loss: bool) -> tuple[int, int]:
    """Clamp ``[start, end)`` to what the log still holds; with failOnDataLoss, refuse instead."""
    problems = []
    if start < b.log_start_offset:
        problems.append(f"offsets {start}..{b.log_start_offset - 1} were deleted (log start offset is "
                        f"{b.log_start_offset})")
        start = b.log_start_offset
    if end > b.end:
        problems.append(f"offsets up to {end} were asked for but the log ends at {b.end}")
        end = b.end
    if start > end:
        problems.append(f"start offset {start} is past the end {end}")
        start = end
    if problems:
        msg = f"{tp[0]}-{tp[1]}: " + "; ".join(problems)
        if fail_on_data_loss:
            raise OffsetOutOfRangeError(
                msg + " (set failOnDataLoss=false to read what is left)",
                log_start_offset=b.log_start_offset, log_end_offset=b.log_end_offset)
        warnings.warn(msg + "; reading what is left (failOnDataLoss=false)", stacklevel=2)
    return start, end


def plan_batch(options: Mapping[str, str]) -> tuple[ReadOptions, list[OffsetRange]]:
    """Parse the options, find the partitions and resolve each one's offset range (driver side)."""
    opts = ReadOptions.parse(options)
    paths = input_paths(options)
    found = discover(paths, opts.divergent)
    chosen = select(found, opts, paths)
    tps = sorted(chosen)
    starts = _pick(opts.starting, opts.starting_by_timestamp, opts.starting_timestamp, tps, "starting")
    ends = _pick(opts.ending, opts.ending_by_timestamp, opts.ending_timestamp, tps, "ending")
    ranges = []
    cache: dict[str, Any] = {}  # __remote_log_metadata replayed once per plan
    for tp in tps:
        with open_read_only(chosen[tp], backup_run=opts.backup_run, remote=opts.remote, cache=cache) as log:
            b = bounds(log, opts.read_committed, found.caps.get(tp))
            start = resolve_start(log, b, starts[tp], opts, tp)
            end = resolve_end(log, b, ends[tp])
            start, end = check_range(tp, start, end, b, opts.fail_on_data_loss)
            r = OffsetRange(tp[0], tp[1], chosen[tp], start, end, opts.backup_run, opts.remote)
            ranges.extend(cut_at_pieces(r, b.pieces) if opts.remote is not None else [r])
    return opts, split_ranges(ranges, opts.min_partitions, opts.max_records_per_partition)


def split_ranges(ranges: list[OffsetRange], min_partitions: int | None,
                 max_records: int | None) -> list[OffsetRange]:
    """Kafka's ``KafkaOffsetRangeCalculator``: cap each range at ``max_records``, then split to ``min_partitions``."""
    ranges = [r for r in ranges if r.size > 0]
    if max_records is not None:
        ranges = [piece for r in ranges for piece in _split(r, math.ceil(r.size / max_records))]
    if min_partitions is not None and len(ranges) < min_partitions:
        # Spark's calculator: ranges that get one part are set aside from the proportions of the rest
        total = sum(r.size for r in ranges)
        whole = {(r.topic, r.partition) for r in ranges if _part_count(r.size, total, min_partitions) == 1}
        rest = total - sum(r.size for r in ranges if (r.topic, r.partition) in whole)
        rest_min = max(min_partitions - sum((r.topic, r.partition) in whole for r in ranges), 1)
        ranges = [piece for r in ranges for piece in _divide(
            r, 1 if (r.topic, r.partition) in whole else _part_count(r.size, rest, rest_min))]
    return ranges


def _part_count(size: int, total: int, min_parts: int) -> int:
    """Spark's share of ``min_parts`` for a range, rounded half up (``math.round``), at least one."""
    return max(math.floor(size / total * min_parts + 0.5), 1)


def _divide(r: OffsetRange, parts: int) -> list[OffsetRange]:
    """Spark's pieces of a range: each takes what remains over the parts left, so larger pieces come last."""
    out, start, remaining = [], r.start, r.size
    for part in range(parts):
        size = remaining // (parts - part)
        remaining -= size
        if size > 0:
            out.append(replace(r, start=start, end=start + size))
        start += size
    return out


def _split(r: OffsetRange, parts: int) -> list[OffsetRange]:
    if parts <= 1:
        return [r]
    cuts = [r.start + (r.size * i) // parts for i in range(parts + 1)]
    return [replace(r, start=a, end=b) for a, b in zip(cuts, cuts[1:]) if b > a]


# ------------------------------------------------------------------------------------------ reading
def read_range(r: OffsetRange, *, include_headers: bool, read_committed: bool = False,
               chunk_bytes: int = 1 << 20, max_rows: int = 10_000,
               schema: pa.Schema | None = None, on_damage: str = "raise",
               typed: Any = None) -> Iterator[pa.RecordBatch]:
    """Arrow batches of the records with ``r.start ≤ offset < r.end``, straight from the record kernels
    (the decode path of every kvlog scan: :func:`kvlog.scanning.decode_range`); with ``typed`` (a
    :class:`kvlog.spark.typed.SparkTyped`), keys and values decoded by their formats.

    Batches hold at most ``max_rows`` rows (zero-copy slices of a decoded chunk): Spark ingests Arrow
    from Python fastest at about its own ``maxRecordsPerBatch`` (10 000).
    """
    if r.size <= 0:
        return
    if typed is not None:
        schema = schema or pa.schema(typed.arrow_fields(include_headers))
        names = list(schema.names)
        decoders = typed.typed.decoders(r.topic, names)
        headers = include_headers or decoders.needs_headers
        with open_read_only(r.path, on_damage, r.backup_run, r.remote, r.pieces) as log:
            for decoded in decode_range(log, r.start, r.end, chunk_bytes, headers, read_committed=read_committed):
                yield from typed.batches(decoded, r.topic, r.partition, schema, decoders, max_rows)
        return
    schema = schema or spark_arrow_schema(include_headers)
    with open_read_only(r.path, on_damage, r.backup_run, r.remote, r.pieces) as log:
        for decoded in decode_range(log, r.start, r.end, chunk_bytes, include_headers, read_committed=read_committed):
            for i in range(0, decoded.num_rows, max_rows):
                yield to_spark_batch(decoded.slice(i, max_rows), r.topic, r.partition, schema)


def _windows(log: Log, start: int, end: int, window: int, include_headers: bool) -> Iterator[pa.RecordBatch]:
    """Decoded record batches of ``[start, end)`` read through one reused buffer of about ``window`` bytes."""
    return decode_range(log, start, end, window, include_headers)
