"""Per-partition log configuration: Kafka's topic configs under Python names, with Kafka's defaults
and validation.

``LogConfig`` covers every Kafka topic config that changes how one partition's log is stored,
rolled, indexed, retained or compacted. Replication, quota and tiered-storage configs do not apply
to a single log; :meth:`LogConfig.from_properties` accepts their names (see
``IGNORED_TOPIC_CONFIGS``) and ignores them, so a topic's full Kafka config can be loaded as it is.

Defaults and limits follow Apache Kafka 4.0 (``LogConfig.java``, ``TopicConfig.java``,
``ServerLogConfigs.java``). Two additions are not Kafka configs and say so in their docs: the
KIP-280 compaction strategy (``compaction.strategy``, ``compaction.strategy.header``; the KIP was
accepted but never shipped by Apache Kafka) and kvlog's own ``kvlog.fsync.per.append``.

``TOPIC_CONFIGS`` lists every supported name with its default and a one-line meaning;
:func:`config_table_markdown` renders it for the documentation.
"""

from __future__ import annotations

import dataclasses
import difflib
import numbers
import random
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from kvlog.compression import Compression
from kvlog.errors import ConfigError
from kvlog.records import TimestampType

__all__ = [
    "LogConfig",
    "ConfigSpec",
    "TOPIC_CONFIGS",
    "IGNORED_TOPIC_CONFIGS",
    "config_table_markdown",
    "LONG_MAX",
]

#: Java's ``Long.MAX_VALUE``: Kafka's "no limit" default for many millisecond and count settings.
LONG_MAX = (1 << 63) - 1
_LONG_MIN = -(1 << 63)
_INT_MAX = (1 << 31) - 1
_INT_MIN = -(1 << 31)

_CLEANUP_POLICIES = ("compact", "delete")
_COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_TIMESTAMP_TYPES = {"CreateTime": TimestampType.CREATE_TIME, "LogAppendTime": TimestampType.LOG_APPEND_TIME}
_STRATEGIES = ("offset", "timestamp", "header")

#: Kafka topic configs that do not affect a single partition's log. ``from_properties`` accepts and
#: ignores them: replication and quota settings belong to the cluster, tiered storage is not part of
#: local log storage, and ``message.format.version`` / ``message.downconversion.enable`` were removed
#: in Kafka 4.0 (every log written today is magic v2).
IGNORED_TOPIC_CONFIGS: frozenset[str] = frozenset({
    "message.format.version",
    "message.downconversion.enable",
    "unclean.leader.election.enable",
    "min.insync.replicas",
    "leader.replication.throttled.replicas",
    "follower.replication.throttled.replicas",
    "remote.storage.enable",
    "local.retention.ms",
    "local.retention.bytes",
    "remote.log.copy.disable",
    "remote.log.delete.on.disable",
})


class ConfigSpec(NamedTuple):
    """One row of ``TOPIC_CONFIGS``."""

    kafka_name: str
    """Dotted name as Kafka spells it (``segment.bytes``)."""
    name: str
    """``LogConfig`` field name (``segment_bytes``)."""
    default: Any
    """Default value, as stored on a ``LogConfig``."""
    doc: str
    """What the setting does and why it matters."""
    origin: str
    """``"kafka"`` (an Apache Kafka topic config), ``"kip-280"`` or ``"kvlog"``."""


# --------------------------------------------------------------------------------- value kinds
# Each field has a kind: how a native value is checked (constructor), how a property string is parsed
# (from_properties) and how a value is written back (to_properties).

_INT_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def _got(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


def _check_int(key: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError(f"{key} must be an integer, got {_got(value)}")
    v = int(value)
    if v < lo:
        raise ConfigError(f"{key} must be at least {lo}, got {v}")
    if v > hi:
        raise ConfigError(f"{key} must be at most {hi}, got {v}")
    return v


def _parse_int(key: str, text: str) -> int:
    if not _INT_RE.fullmatch(text):
        raise ConfigError(f"{key} must be an integer, got {text!r}")
    return int(text)


def _check_float(key: str, value: object, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(f"{key} must be a number, got {_got(value)}")
    v = float(value)
    if not lo <= v <= hi:  # also rejects NaN
        raise ConfigError(f"{key} must be between {lo:g} and {hi:g}, got {v!r}")
    return v


def _parse_float(key: str, text: str) -> float:
    if not _FLOAT_RE.fullmatch(text):
        raise ConfigError(f"{key} must be a number, got {text!r}")
    return float(text)


def _check_bool(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be a boolean, got {_got(value)}")
    return value


def _parse_bool(key: str, text: str) -> bool:
    low = text.lower()
    if low == "true":
        return True
    if low == "false":
        return False
    raise ConfigError(f"{key} must be true or false, got {text!r}")


def _check_str(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string, got {_got(value)}")
    return value


def _check_policy(key: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        items: list[object] = [p.strip() for p in value.split(",")] if value.strip() else []
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    else:
        raise ConfigError(
            f"{key} must be a list of compact/delete or a comma-separated string, got {_got(value)}")
    for item in items:
        if item not in _CLEANUP_POLICIES:
            raise ConfigError(f"{key} values must be 'compact' or 'delete', got {item!r}")
    if len(set(items)) != len(items):
        raise ConfigError(f"{key} must not repeat a policy, got {','.join(map(str, items))!r}")
    return tuple(p for p in _CLEANUP_POLICIES if p in items)


def _check_timestamp_type(key: str, value: object) -> TimestampType:
    if isinstance(value, TimestampType):
        if value is TimestampType.NO_TIMESTAMP_TYPE:
            raise ConfigError(f"{key} must be CreateTime or LogAppendTime, got {value.kafka_name}")
        return value
    if isinstance(value, str) and value in _TIMESTAMP_TYPES:
        return _TIMESTAMP_TYPES[value]
    raise ConfigError(f"{key} must be CreateTime or LogAppendTime, got {_got(value)}")


def _check_compression_type(key: str, value: object) -> str:
    if isinstance(value, Compression):
        return "uncompressed" if value is Compression.NONE else value.kafka_name
    if isinstance(value, str) and value in _COMPRESSION_TYPES:
        return value
    raise ConfigError(f"{key} must be one of {', '.join(_COMPRESSION_TYPES)}, got {_got(value)}")


def _check_strategy(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string, got {_got(value)}")
    v = value.strip().lower() or "offset"
    if v not in _STRATEGIES:
        raise ConfigError(f"{key} must be one of {', '.join(_STRATEGIES)}, got {value!r}")
    return v


def _check_gzip_level(key: str, value: object) -> int:
    v = _check_int(key, value, _INT_MIN, _INT_MAX)
    if v != -1 and not 1 <= v <= 9:
        raise ConfigError(f"{key} must be -1 or between 1 and 9, got {v}")
    return v


def _check_level(lo: int, hi: int) -> Callable[[str, object], int]:
    def check(key: str, value: object) -> int:
        v = _check_int(key, value, _INT_MIN, _INT_MAX)
        if not lo <= v <= hi:
            raise ConfigError(f"{key} must be between {lo} and {hi}, got {v}")
        return v

    return check


def _int_kind(lo: int, hi: int) -> tuple[Callable[[str, object], Any], Callable[[str, str], Any]]:
    return (lambda key, value: _check_int(key, value, lo, hi)), _parse_int


def _format(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, TimestampType):
        return value.kafka_name
    if isinstance(value, tuple):
        return ",".join(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _opt(
    kafka: str,
    default: Any,
    check: Callable[[str, object], Any],
    parse: Callable[[str, str], Any] | None,
    doc: str,
    origin: str = "kafka",
) -> Any:
    """A dataclass field carrying its Kafka name, validator, string parser and documentation."""
    meta = {"kafka": kafka, "check": check, "parse": parse, "doc": doc, "origin": origin}
    return dataclasses.field(default=default, metadata=MappingProxyType(meta))


_I = _int_kind


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LogConfig:
    """Configuration of one partition log, validated on construction and immutable.

    Field names are Kafka's topic config names with ``_`` for ``.``; defaults are Kafka's. Build one
    with keywords (``LogConfig(segment_bytes=1 << 20, cleanup_policy="compact")``), from Kafka
    properties (:meth:`from_properties`), or from another (:meth:`replace`). An invalid value raises
    :class:`~kvlog.errors.ConfigError` naming the Kafka config, the limit and the value.

    Values are stored normalised: ``cleanup_policy`` as a tuple in the order ``("compact",
    "delete")``, ``message_timestamp_type`` as :class:`~kvlog.TimestampType`, ``compression_type``
    as Kafka's name, ``compaction_strategy`` lower-cased with ``""`` meaning ``"offset"``.
    The meaning of every field is listed under *Attributes* below and in ``TOPIC_CONFIGS``.
    """

    segment_bytes: int = _opt(
        "segment.bytes", 1 << 30, *_I(14, _INT_MAX),
        "Largest size of one segment file; an append that would cross it rolls a new segment. "
        "Retention and compaction work on whole segments, so this is their granularity.")
    segment_ms: int = _opt(
        "segment.ms", 604800000, *_I(1, LONG_MAX),
        "Age after which the active segment is rolled even if not full, so time-based retention "
        "and compaction can reach its data.")
    segment_jitter_ms: int = _opt(
        "segment.jitter.ms", 0, *_I(0, LONG_MAX),
        "Largest random amount taken off segment.ms for each new segment, so that many partitions "
        "do not all roll at the same moment.")
    segment_index_bytes: int = _opt(
        "segment.index.bytes", 10485760, *_I(4, _INT_MAX),
        "Size the offset and time indexes are preallocated to; a segment rolls when either fills.")
    index_interval_bytes: int = _opt(
        "index.interval.bytes", 4096, *_I(0, _INT_MAX),
        "Log bytes between offset-index entries: smaller gives denser indexes and shorter scans "
        "per lookup, larger gives smaller indexes.")
    retention_ms: int = _opt(
        "retention.ms", 604800000, *_I(-1, LONG_MAX),
        "Under the delete policy, age (by a segment's largest timestamp) after which a segment is "
        "deleted; -1 keeps data forever.")
    retention_bytes: int = _opt(
        "retention.bytes", -1, *_I(_LONG_MIN, LONG_MAX),
        "Under the delete policy, size the partition may reach before its oldest segments are "
        "deleted; negative means no size limit.")
    cleanup_policy: tuple[str, ...] = _opt(
        "cleanup.policy", ("delete",), _check_policy, None,
        "delete drops old segments by age and size, compact keeps the latest record per key; "
        "both may be set, and an empty list means neither.")
    min_cleanable_dirty_ratio: float = _opt(
        "min.cleanable.dirty.ratio", 0.5, lambda k, v: _check_float(k, v, 0.0, 1.0), _parse_float,
        "Share of a compacted log that must be dirty (not yet cleaned) before the cleaner picks "
        "it: lower saves space, higher saves cleaning I/O.")
    delete_retention_ms: int = _opt(
        "delete.retention.ms", 86400000, *_I(0, LONG_MAX),
        "How long a tombstone (null value) survives compaction once its segment has been cleaned, "
        "so that consumers catching up still see the delete.")
    min_compaction_lag_ms: int = _opt(
        "min.compaction.lag.ms", 0, *_I(0, LONG_MAX),
        "Youngest a record may be and still be compacted away: consumers are guaranteed this "
        "long to see every update.")
    max_compaction_lag_ms: int = _opt(
        "max.compaction.lag.ms", LONG_MAX, *_I(1, LONG_MAX),
        "Longest a record may stay uncompacted; it also caps the age of the active segment of a "
        "compacted log, since the active segment is never cleaned.")
    file_delete_delay_ms: int = _opt(
        "file.delete.delay.ms", 60000, *_I(0, LONG_MAX),
        "Delay between renaming a removed segment's files to .deleted and deleting them, so that "
        "reads already in flight can finish.")
    max_message_bytes: int = _opt(
        "max.message.bytes", 1048588, *_I(0, _INT_MAX),
        "Largest record batch (after compression, with its 12-byte log overhead) an append accepts.")
    message_timestamp_type: TimestampType = _opt(
        "message.timestamp.type", TimestampType.CREATE_TIME, _check_timestamp_type, None,
        "CreateTime keeps the producer's timestamps; LogAppendTime overwrites them with the append "
        "time, which makes time-based retention and lookups follow arrival order.")
    message_timestamp_difference_max_ms: int = _opt(
        "message.timestamp.difference.max.ms", LONG_MAX, *_I(0, LONG_MAX),
        "Deprecated since Kafka 3.6 (KIP-937), gone in 4.0: used for the before/after limits "
        "while those are left at their defaults.")
    message_timestamp_before_max_ms: int = _opt(
        "message.timestamp.before.max.ms", LONG_MAX, *_I(0, LONG_MAX),
        "How far a CreateTime timestamp may lie before the append time; older batches are "
        "rejected, which protects time-based retention from bogus old timestamps.")
    message_timestamp_after_max_ms: int = _opt(
        "message.timestamp.after.max.ms", LONG_MAX, *_I(0, LONG_MAX),
        "How far a CreateTime timestamp may lie after the append time; later batches are "
        "rejected, which keeps future timestamps from pinning segments against retention.")
    flush_messages: int = _opt(
        "flush.messages", LONG_MAX, *_I(1, LONG_MAX),
        "Records appended between forced fsyncs of the log. Kafka relies on replication for "
        "durability, so by default it never forces one.")
    flush_ms: int = _opt(
        "flush.ms", LONG_MAX, *_I(0, LONG_MAX),
        "Longest time appended data may stay unsynced before a forced fsync; never by default.")
    preallocate: bool = _opt(
        "preallocate", False, _check_bool, _parse_bool,
        "Create each new segment file at its full segment.bytes size, which can reduce "
        "fragmentation; the file is trimmed when the segment rolls.")
    compression_type: str = _opt(
        "compression.type", "producer", _check_compression_type, None,
        "Codec of stored batches: producer keeps each batch's own codec; uncompressed, gzip, "
        "snappy, lz4 or zstd recompress batches that use another one.")
    compression_gzip_level: int = _opt(
        "compression.gzip.level", -1, _check_gzip_level, _parse_int,
        "gzip level used when compression.type is gzip: -1 (codec default) or 1 to 9.")
    compression_lz4_level: int = _opt(
        "compression.lz4.level", 9, _check_level(1, 17), _parse_int,
        "lz4 level used when compression.type is lz4: 1 to 17.")
    compression_zstd_level: int = _opt(
        "compression.zstd.level", 3, _check_level(-131072, 22), _parse_int,
        "zstd level used when compression.type is zstd: -131072 to 22.")
    compaction_strategy: str = _opt(
        "compaction.strategy", "offset", _check_strategy, None,
        "KIP-280, not in Apache Kafka: which record of a key survives compaction: highest "
        "offset, highest timestamp, or highest version header.", "kip-280")
    compaction_strategy_header: str = _opt(
        "compaction.strategy.header", "", lambda k, v: _check_str(k, v).strip(), None,
        "KIP-280, not in Apache Kafka: header key that holds the version for the header "
        "strategy; when blank, the header strategy falls back to offset.", "kip-280")
    fsync_per_append: bool = _opt(
        "kvlog.fsync.per.append", False, _check_bool, _parse_bool,
        "kvlog only: fsync the segment after every append, for durability without replicas "
        "(costs one disk sync per append).", "kvlog")

    if TYPE_CHECKING:
        # The constructor accepts a few convenient spellings that are normalised on construction
        # (see the class docstring); this signature tells type checkers so.
        def __init__(
            self,
            *,
            segment_bytes: int = ...,
            segment_ms: int = ...,
            segment_jitter_ms: int = ...,
            segment_index_bytes: int = ...,
            index_interval_bytes: int = ...,
            retention_ms: int = ...,
            retention_bytes: int = ...,
            cleanup_policy: str | Iterable[str] = ...,
            min_cleanable_dirty_ratio: float = ...,
            delete_retention_ms: int = ...,
            min_compaction_lag_ms: int = ...,
            max_compaction_lag_ms: int = ...,
            file_delete_delay_ms: int = ...,
            max_message_bytes: int = ...,
            message_timestamp_type: TimestampType | str = ...,
            message_timestamp_difference_max_ms: int = ...,
            message_timestamp_before_max_ms: int = ...,
            message_timestamp_after_max_ms: int = ...,
            flush_messages: int = ...,
            flush_ms: int = ...,
            preallocate: bool = ...,
            compression_type: str | Compression = ...,
            compression_gzip_level: int = ...,
            compression_lz4_level: int = ...,
            compression_zstd_level: int = ...,
            compaction_strategy: str = ...,
            compaction_strategy_header: str = ...,
            fsync_per_append: bool = ...,
        ) -> None: ...

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = f.metadata["check"](f.metadata["kafka"], getattr(self, f.name))
            object.__setattr__(self, f.name, value)
        if self.min_compaction_lag_ms > self.max_compaction_lag_ms:
            raise ConfigError(
                f"min.compaction.lag.ms ({self.min_compaction_lag_ms}) must not exceed "
                f"max.compaction.lag.ms ({self.max_compaction_lag_ms})")

    # ------------------------------------------------------------------------------ derived values

    @property
    def compact(self) -> bool:
        """Whether the log is compacted (``cleanup.policy`` contains ``compact``)."""
        return "compact" in self.cleanup_policy

    @property
    def delete(self) -> bool:
        """Whether old segments are deleted by age and size (``cleanup.policy`` contains ``delete``)."""
        return "delete" in self.cleanup_policy

    @property
    def effective_timestamp_before_max_ms(self) -> int:
        """The before-limit in force: ``message_timestamp_before_max_ms``, or while that is left at
        its default, the deprecated ``message_timestamp_difference_max_ms`` (KIP-937)."""
        if self.message_timestamp_before_max_ms != LONG_MAX:
            return self.message_timestamp_before_max_ms
        return self.message_timestamp_difference_max_ms

    @property
    def effective_timestamp_after_max_ms(self) -> int:
        """The after-limit in force, with the same KIP-937 fallback as the before-limit."""
        if self.message_timestamp_after_max_ms != LONG_MAX:
            return self.message_timestamp_after_max_ms
        return self.message_timestamp_difference_max_ms

    @property
    def max_segment_ms(self) -> int:
        """Age at which the active segment rolls: ``segment_ms``, capped by ``max_compaction_lag_ms``
        on compacted logs so that records become cleanable within the lag."""
        if self.compact and self.max_compaction_lag_ms > 0:
            return min(self.segment_ms, self.max_compaction_lag_ms)
        return self.segment_ms

    @property
    def effective_compaction_strategy(self) -> str:
        """The strategy the cleaner uses: ``compaction_strategy``, except that ``header`` with a
        blank ``compaction_strategy_header`` falls back to ``offset`` (KIP-280)."""
        if self.compaction_strategy == "header" and not self.compaction_strategy_header:
            return "offset"
        return self.compaction_strategy

    @property
    def init_file_size(self) -> int:
        """Size a new segment file is created with: ``segment_bytes`` when preallocating, else 0."""
        return self.segment_bytes if self.preallocate else 0

    @property
    def compression(self) -> Compression | None:
        """The codec appends are recompressed to, or ``None`` for ``producer`` (keep each batch's)."""
        if self.compression_type == "producer":
            return None
        return Compression.parse(self.compression_type)

    @property
    def compression_level(self) -> int | None:
        """The configured level of the ``compression_type`` codec, or ``None`` if it has no level."""
        return {
            "gzip": self.compression_gzip_level,
            "lz4": self.compression_lz4_level,
            "zstd": self.compression_zstd_level,
        }.get(self.compression_type)

    def random_segment_jitter(self, rng: random.Random | None = None) -> int:
        """A jitter to take off ``segment_ms`` for a new segment: uniform in
        ``[0, min(segment_jitter_ms, segment_ms))``, or 0 without jitter."""
        if self.segment_jitter_ms == 0:
            return 0
        return (rng or random).randrange(min(self.segment_jitter_ms, self.segment_ms))

    # ------------------------------------------------------------------------------ conversions

    def replace(self, **changes: Any) -> LogConfig:
        """A validated copy with the given fields (Python names) changed."""
        unknown = [k for k in changes if k not in _FIELD_NAMES]
        if unknown:
            raise ConfigError(_unknown_message("LogConfig field", unknown[0], _FIELD_NAMES))
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_properties(cls, properties: Mapping[str, object], *, strict: bool = True) -> LogConfig:
        """Build a config from Kafka topic config names (``{"segment.bytes": "1048576"}``).

        Values may be strings, parsed and trimmed as Kafka does (integers, ``true``/``false``,
        comma-separated lists), or native Python values. Names in ``IGNORED_TOPIC_CONFIGS`` are
        accepted and ignored. Any other unknown name raises ``ConfigError`` (listing close
        matches) when ``strict``, and is ignored otherwise. Broker names (``log.segment.bytes``)
        are not topic configs and count as unknown.
        """
        if not isinstance(properties, Mapping):
            raise ConfigError(f"properties must be a mapping, got {type(properties).__name__}")
        kwargs: dict[str, Any] = {}
        for key, value in properties.items():
            if not isinstance(key, str):
                raise ConfigError(f"config names must be strings, got {_got(key)}")
            f = _BY_KAFKA.get(key)
            if f is None:
                if key in IGNORED_TOPIC_CONFIGS or not strict:
                    continue
                raise ConfigError(_unknown_message("topic config", key, _KNOWN_NAMES))
            if isinstance(value, str):
                text = value.strip()
                parse = f.metadata["parse"]
                value = parse(key, text) if parse is not None else text
            elif value is None:
                raise ConfigError(f"{key} must have a value, got None")
            kwargs[f.name] = value
        return cls(**kwargs)

    def to_properties(self, *, kafka_only: bool = False) -> dict[str, str]:
        """Every setting as Kafka name -> string, in ``TOPIC_CONFIGS`` order.

        The result round-trips through :meth:`from_properties`. With ``kafka_only`` the names Apache
        Kafka does not know (KIP-280's and kvlog's own) are left out, e.g. to feed ``kafka-configs``.
        """
        out = {}
        for f in dataclasses.fields(self):
            if kafka_only and f.metadata["origin"] != "kafka":
                continue
            out[f.metadata["kafka"]] = _format(getattr(self, f.name))
        return out


_FIELDS = dataclasses.fields(LogConfig)
_FIELD_NAMES = tuple(f.name for f in _FIELDS)
_BY_KAFKA: Mapping[str, dataclasses.Field[Any]] = MappingProxyType({f.metadata["kafka"]: f for f in _FIELDS})
_KNOWN_NAMES = tuple(_BY_KAFKA) + tuple(sorted(IGNORED_TOPIC_CONFIGS))


def _unknown_message(what: str, name: str, known: Iterable[str]) -> str:
    known = tuple(known)
    matches = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if name.startswith("log.") and name[4:] in known:
        matches = [name[4:]] + [m for m in matches if m != name[4:]]
    msg = f"unknown {what} {name!r}"
    if matches:
        msg += "; did you mean " + " or ".join(repr(m) for m in matches) + "?"
    return msg


#: Every supported config: Kafka name -> ``ConfigSpec`` (Python name, default, meaning, origin), in
#: field order. The source of the configuration table in the documentation.
TOPIC_CONFIGS: Mapping[str, ConfigSpec] = MappingProxyType({
    f.metadata["kafka"]: ConfigSpec(
        f.metadata["kafka"], f.name, f.default, f.metadata["doc"], f.metadata["origin"])
    for f in _FIELDS
})


def config_table_markdown() -> str:
    """``TOPIC_CONFIGS`` as a Markdown table: Kafka name | kvlog name | default | meaning."""
    lines = ["| Kafka name | kvlog name | default | meaning |", "|---|---|---|---|"]
    for spec in TOPIC_CONFIGS.values():
        default = _format(spec.default)
        shown = f"`{default}`" if default else '`""`'
        doc = spec.doc.replace("|", "\\|")
        lines.append(f"| `{spec.kafka_name}` | `{spec.name}` | {shown} | {doc} |")
    return "\n".join(lines) + "\n"


def _attribute_docs() -> str:
    rows = []
    for spec in TOPIC_CONFIGS.values():
        default = _format(spec.default) or '""'
        rows.append(f"    {spec.name}: ``{spec.kafka_name}``, default ``{default}``.\n        {spec.doc}")
    return "\n\n    Attributes:\n" + "\n".join(rows) + "\n"


LogConfig.__doc__ = (LogConfig.__doc__ or "").rstrip() + _attribute_docs()
del _I
