"""Each topic's effective configuration in a data directory, resolved from where a broker keeps it, with
the source that decided every value, and the rules that keep maintenance off Kafka's internal topics.

A Kafka 4 (KRaft) broker keeps topic configs in its metadata log, ``__cluster_metadata-0``, not beside
the data: a ``ConfigRecord`` of resource type 2 (TOPIC) sets or (with a null value) deletes one config of
one topic by name, a ``RemoveTopicRecord`` drops the topic and its configs, and a ConfigRecord of resource
type 4 (BROKER) sets a dynamic broker config, for every broker when its resource name is empty and for
one node otherwise. The log is replayed with :func:`kvlog.cluster_metadata` (newest snapshot, then the
log after it). Broker configs reach a topic through their synonyms (``log.retention.ms`` for
``retention.ms``; Kafka's ``ServerTopicConfigSynonyms``): only a name's first synonym is dynamically
settable, so only those can appear in the metadata. A broker's static ``server.properties`` is not in the
data directory, so static broker settings cannot be seen; ZooKeeper-era overrides live in ZooKeeper
(``/config/topics``), not on disk, and cannot be seen either.

Precedence, for every config name, first match wins:

1. ``override`` — per-run settings (``--config``, ``config_overrides``); not applied to internal topics
   unless the caller forces internal maintenance;
2. ``kraft-metadata`` — the topic's own ConfigRecords;
3. ``kvlog`` — kvlog's ``kvlog-topics.json`` (what :class:`~kvlog.LogManager` writes);
4. ``internal-topic-default`` — for an internal topic the metadata does not list, the configs Kafka
   creates it with (``__consumer_offsets`` and ``__transaction_state`` compacted, …);
5. ``kraft-metadata`` — the dynamic broker config of this node (``node.id`` in ``meta.properties``),
   then the cluster-wide default;
6. ``kafka-default`` — Kafka's defaults (or the ``LogManager``'s own default config, as ``kvlog``).

Damaged or incomplete metadata is an error (:class:`~kvlog.errors.CorruptInternalRecordError`), never a
guess: configs resolved from half a metadata log could make retention delete what the broker keeps.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from kvlog import _files, _io, storage
from kvlog.config import TOPIC_CONFIGS, LogConfig
from kvlog.errors import ConfigError, CorruptInternalRecordError, StorageError
from kvlog.internal_topics.cluster_metadata import TOPIC as METADATA_TOPIC
from kvlog.internal_topics.cluster_metadata import cluster_metadata
from kvlog.internal_topics.layout import partition_dirs
from kvlog.log import Log
from kvlog.root_files import TOPICS_FILE as KVLOG_TOPICS_FILE, read_topics_file

__all__ = [
    "ConfigSource",
    "ConfigValue",
    "INTERNAL_TOPICS",
    "INTERNAL_TOPIC_CONFIGS",
    "KraftConfigs",
    "ResolvedConfig",
    "TopicConfigs",
    "maintenance_refusal",
    "read_kraft_configs",
    "read_kvlog_topics",
]

#: Kafka's internal topics: their records are the cluster's state, so retention never deletes them
#: unless forced, and per-run overrides do not reach them unless forced.
INTERNAL_TOPICS: frozenset[str] = frozenset({
    "__consumer_offsets", "__transaction_state", METADATA_TOPIC, "__remote_log_metadata", "__share_group_state"})

_MIB_100 = str(100 * 1024 * 1024)
#: The topic configs Kafka creates each internal topic with (GroupCoordinatorService
#: ``groupMetadataTopicConfigs``, TransactionStateManager ``transactionTopicConfigs``,
#: ShareCoordinatorService ``shareGroupStateTopicConfigs`` — delete, as KIP-932 defines it —,
#: TopicBasedRemoteLogMetadataManager, with their default segment sizes and retention), and for
#: ``__cluster_metadata`` the settings ``KafkaMetadataLog`` forces (no time or size retention: Raft cleans
#: its log by snapshots). A broker writes the first four into the metadata when it creates the topic, so
#: they are used only for a topic the metadata does not list (no metadata log in the directory).
INTERNAL_TOPIC_CONFIGS: Mapping[str, Mapping[str, str]] = {
    "__consumer_offsets": {"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": _MIB_100},
    "__transaction_state": {"cleanup.policy": "compact", "compression.type": "uncompressed",
                            "segment.bytes": _MIB_100},
    "__share_group_state": {"cleanup.policy": "delete", "compression.type": "producer", "segment.bytes": _MIB_100},
    "__remote_log_metadata": {"cleanup.policy": "delete", "retention.ms": "-1"},
    METADATA_TOPIC: {"retention.ms": "-1", "retention.bytes": "-1"},
}

#: Topic config -> the broker config that sets it dynamically (the first of Kafka's synonyms), for the
#: configs kvlog supports.
BROKER_SYNONYMS: Mapping[str, str] = {
    "segment.bytes": "log.segment.bytes",
    "segment.ms": "log.roll.ms",
    "segment.jitter.ms": "log.roll.jitter.ms",
    "segment.index.bytes": "log.index.size.max.bytes",
    "flush.messages": "log.flush.interval.messages",
    "flush.ms": "log.flush.interval.ms",
    "retention.bytes": "log.retention.bytes",
    "retention.ms": "log.retention.ms",
    "max.message.bytes": "message.max.bytes",
    "index.interval.bytes": "log.index.interval.bytes",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "file.delete.delay.ms": "log.segment.delete.delay.ms",
    "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
    "cleanup.policy": "log.cleanup.policy",
    "compression.type": "compression.type",
    "preallocate": "log.preallocate",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.difference.max.ms": "log.message.timestamp.difference.max.ms",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
}

_KAFKA_DEFAULTS: Mapping[str, str] = LogConfig().to_properties()
_TOPIC_RESOURCE = 2
_BROKER_RESOURCE = 4
# The record types whose loss would change a topic's config; an unreadable one is damage, not noise.
_CONFIG_RECORD_NAMES = ("TopicRecord", "ConfigRecord", "RemoveTopicRecord")


class ConfigSource(str, Enum):
    """Where a config value came from (printed by dry runs)."""

    OVERRIDE = "override"
    KRAFT_METADATA = "kraft-metadata"
    KVLOG = "kvlog"
    INTERNAL_TOPIC_DEFAULT = "internal-topic-default"
    KAFKA_DEFAULT = "kafka-default"


@dataclass(frozen=True)
class ConfigValue:
    """One resolved config: Kafka name, value as a string, the source that decided it and a detail
    (``cluster default log.retention.ms``, ``node 1 log.cleanup.policy``, a file name) or ``""``."""

    name: str
    value: str
    source: ConfigSource
    detail: str = ""

    def __str__(self) -> str:
        origin = f"{self.source.value}: {self.detail}" if self.detail else self.source.value
        return f"{self.name}={self.value} ({origin})"


@dataclass(frozen=True)
class ResolvedConfig:
    """A topic's effective :class:`~kvlog.LogConfig` and, per Kafka config name, the value's source."""

    topic: str
    config: LogConfig
    values: Mapping[str, ConfigValue]
    in_metadata: bool | None = None
    """True/False when a KRaft metadata log was read (whether it lists the topic), None without one."""
    ignored_overrides: tuple[str, ...] = ()
    """Per-run overrides not applied because the topic is internal and internal maintenance is not forced."""

    @property
    def internal(self) -> bool:
        return self.topic in INTERNAL_TOPICS

    def source(self, name: str) -> ConfigSource:
        return self.values[name].source

    def explain(self, names: Iterable[str]) -> str:
        """``"cleanup.policy=compact (kraft-metadata), retention.ms=604800000 (kafka-default)"``."""
        text = ", ".join(str(self.values[n]) for n in names)
        if self.ignored_overrides:
            text += f"; overrides not applied to internal topic {self.topic}: {', '.join(self.ignored_overrides)}"
        return text


@dataclass(frozen=True)
class KraftConfigs:
    """The config state a KRaft metadata log holds: topic configs by topic name, the cluster-wide broker
    default and this node's dynamic broker config, and which topics exist."""

    path: str
    topics: frozenset[str]
    topic_configs: Mapping[str, Mapping[str, str]]
    cluster_default: Mapping[str, str] = field(default_factory=dict)
    node: Mapping[str, str] = field(default_factory=dict)
    node_id: int | None = None


def _node_id(root: str) -> int | None:
    """``node.id`` (or ``broker.id`` before KRaft) from the directory's ``meta.properties``, if any."""
    path = storage.join(root, "meta.properties")
    try:
        if not _io.fs.exists(path):
            return None
        text = _io.fs.read_file(path).decode("utf-8", "replace")
    except (OSError, StorageError):
        return None
    props = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith(("#", "!")):
            props[key.strip()] = value.strip()
    for key in ("node.id", "broker.id"):
        value = props.get(key, "")
        if value.lstrip("-").isdigit():
            return int(value)
    return None


def _metadata_partition(directory: str) -> str | None:
    """The ``__cluster_metadata-0`` directory in ``directory`` (or ``directory`` itself), or None."""
    if not _io.fs.isdir(storage.normalize(directory)):
        return None
    dirs = partition_dirs(directory, METADATA_TOPIC)
    return dirs[0][0] if dirs else None


def read_kraft_configs(root: str | os.PathLike[str], *, metadata_dir: str | os.PathLike[str] | None = None,
                       node_id: int | None = None) -> KraftConfigs | None:
    """The KRaft config state of a data directory, or None when no ``__cluster_metadata-0`` is there.

    ``metadata_dir`` is where the metadata log lives when it is not in ``root`` (a broker's
    ``metadata.log.dir``); ``node_id`` defaults to ``meta.properties``'s. Raises
    :class:`~kvlog.errors.CorruptInternalRecordError` when a record that carries configs or topic names
    cannot be read, or when the log starts past offset 0 with no snapshot covering what was cleaned.
    """
    where = os.fspath(metadata_dir if metadata_dir is not None else root)
    path = _metadata_partition(where)
    if path is None:
        if metadata_dir is not None:
            raise ConfigError(f"no {METADATA_TOPIC}-0 directory in {where}")
        return None
    label = f"{METADATA_TOPIC}-0"
    state = cluster_metadata(path)  # errors="raise": a malformed record is an error, not a skip
    for problem in state.problems:  # unknown types and versions are noted, not raised, by the replay
        if any(f"of {name} " in problem for name in _CONFIG_RECORD_NAMES):
            raise CorruptInternalRecordError(
                f"topic configs cannot be resolved from {path}: {problem}", partition=label)
    covered = int(os.path.basename(state.snapshot)[:20]) if state.snapshot else 0
    with Log.open(path, read_only=True) as log:
        start = log.log_start_offset
    if start > covered:
        raise CorruptInternalRecordError(
            f"topic configs cannot be resolved from {path}: the metadata log starts at offset {start} and "
            f"no snapshot covers the records before it", partition=label, offset=start)
    if node_id is None:
        node_id = _node_id(storage.normalize(os.fspath(root)))
    topic_configs: dict[str, dict[str, str]] = {}
    cluster: dict[str, str] = {}
    node: dict[str, str] = {}
    for (rtype, rname, name), value in state.config_state.items():
        if rtype == _TOPIC_RESOURCE:
            topic_configs.setdefault(rname, {})[name] = value
        elif rtype == _BROKER_RESOURCE and rname == "":
            cluster[name] = value
        elif rtype == _BROKER_RESOURCE and node_id is not None and rname == str(node_id):
            node[name] = value
    return KraftConfigs(storage.normalize(path), frozenset(state.topic_names.values()), topic_configs, cluster,
                        node, node_id)


def read_kvlog_topics(root: str | os.PathLike[str]) -> dict[str, dict[str, object]]:
    """``{topic: {config name: value}}`` from kvlog's ``kvlog-topics.json`` in ``root`` (empty without one)."""
    table = read_topics_file(storage.join(storage.normalize(os.fspath(root)), KVLOG_TOPICS_FILE))
    return {t: dict(e.get("config") or {}) for t, e in table.items()}  # type: ignore[call-overload]


class TopicConfigs:
    """The config sources of one data directory; :meth:`resolve` gives a topic's effective config.

    ``kraft`` is the metadata log's state (None without one), ``kvlog`` kvlog's per-topic configs, and
    ``base`` replaces Kafka's defaults as the lowest layer (a ``LogManager``'s default config).
    """

    def __init__(self, *, kraft: KraftConfigs | None = None,
                 kvlog: Mapping[str, Mapping[str, object]] | None = None, base: LogConfig | None = None) -> None:
        self.kraft = kraft
        self.kvlog = kvlog or {}
        self.base = base
        self._bottom = (ConfigSource.KAFKA_DEFAULT, "", _KAFKA_DEFAULTS) if base is None else \
            (ConfigSource.KVLOG, "LogManager config", base.to_properties())

    @classmethod
    def load(cls, root: str | os.PathLike[str], *, metadata_dir: str | os.PathLike[str] | None = None,
             ) -> "TopicConfigs":
        """The sources of the data directory ``root`` (or of the data directory holding the partition
        directory ``root``), read-only; ``root`` may be an object-store URI."""
        text = os.fspath(root)
        base, query = storage.split_query(text)
        if _files.parse_partition_dir(base.rstrip("/")) is not None and _looks_like_partition(text):
            parent = base.rstrip("/").rsplit("/", 1)[0] if storage.is_remote(base) else os.path.dirname(
                storage.normalize(base))
            text = f"{parent}?{query}" if query else parent
        return cls(kraft=read_kraft_configs(text, metadata_dir=metadata_dir), kvlog=read_kvlog_topics(text))

    def resolve(self, topic: str, overrides: Mapping[str, object] | None = None, *,
                force_internal: bool = False) -> ResolvedConfig:
        """``topic``'s effective config with the source of every value (see the module's precedence).

        ``overrides`` are per-run settings; for an internal topic they apply only with
        ``force_internal``. Raises :class:`~kvlog.errors.ConfigError` naming the source of a bad value.
        """
        kraft = self.kraft
        in_metadata = None if kraft is None else topic in kraft.topics
        layers: list[tuple[ConfigSource, str, Mapping[str, object]]] = []
        ignored: tuple[str, ...] = ()
        if overrides:
            if topic in INTERNAL_TOPICS and not force_internal:
                ignored = tuple(f"{k}={v}" for k, v in overrides.items())
            else:
                layers.append((ConfigSource.OVERRIDE, "", overrides))
        if kraft is not None and topic in kraft.topic_configs:
            layers.append((ConfigSource.KRAFT_METADATA, "", kraft.topic_configs[topic]))
        if topic in self.kvlog:
            layers.append((ConfigSource.KVLOG, KVLOG_TOPICS_FILE, self.kvlog[topic]))
        if topic in INTERNAL_TOPIC_CONFIGS and not in_metadata:
            layers.append((ConfigSource.INTERNAL_TOPIC_DEFAULT, "", INTERNAL_TOPIC_CONFIGS[topic]))
        values: dict[str, ConfigValue] = {}
        for name in TOPIC_CONFIGS:
            values[name] = self._pick(name, layers, kraft)
        props = {n: v.value for n, v in values.items()}
        try:
            config = LogConfig.from_properties(props)
        except ConfigError as exc:
            raise ConfigError(f"topic {topic}: {exc} (sources: "
                              f"{', '.join(str(v) for v in values.values() if v.source is not ConfigSource.KAFKA_DEFAULT)})"
                              ) from None
        return ResolvedConfig(topic, config, values, in_metadata, ignored)

    def _pick(self, name: str, layers: list[tuple[ConfigSource, str, Mapping[str, object]]],
              kraft: KraftConfigs | None) -> ConfigValue:
        for source, detail, props in layers:
            if name in props:
                return ConfigValue(name, _text(props[name]), source, detail)
        synonym = BROKER_SYNONYMS.get(name)
        if kraft is not None and synonym is not None:
            if synonym in kraft.node:
                return ConfigValue(name, kraft.node[synonym], ConfigSource.KRAFT_METADATA,
                                   f"node {kraft.node_id} {synonym}")
            if synonym in kraft.cluster_default:
                return ConfigValue(name, kraft.cluster_default[synonym], ConfigSource.KRAFT_METADATA,
                                   f"cluster default {synonym}")
        source, detail, defaults = self._bottom
        return ConfigValue(name, defaults[name], source, detail)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _looks_like_partition(path: str) -> bool:
    """Whether ``path`` (a ``topic-N`` name) is one partition's directory rather than a data directory
    that happens to be named like one: it holds files, not ``topic-N`` directories."""
    norm = storage.normalize(path)
    if not _io.fs.isdir(norm):
        return True
    return not any(_files.parse_partition_dir(n) is not None and _io.fs.isdir(storage.join(norm, n))
                   for n in _io.fs.listdir(norm))


def maintenance_refusal(topic: str, action: str, *, force_internal: bool = False) -> str | None:
    """Why ``action`` (``"retention"`` or ``"compact"``) must not touch ``topic``, or None when it may.

    ``__cluster_metadata`` is Raft's log, cleaned only by its own snapshots: never retained or compacted,
    even forced. Other internal topics are never retained unless ``force_internal``; their compaction
    follows their configs (see :meth:`TopicConfigs.resolve` for overrides).
    """
    if action not in ("retention", "compact"):
        raise ValueError(f"action must be 'retention' or 'compact', not {action!r}")
    if topic == METADATA_TOPIC:
        return (f"{METADATA_TOPIC} is KRaft's Raft log, cleaned only by its own snapshots; kvlog never "
                f"{'retains' if action == 'retention' else 'compacts'} it")
    if action == "retention" and topic in INTERNAL_TOPICS and not force_internal:
        return f"{topic} is an internal topic; retention never deletes its segments unless forced (--force-internal)"
    return None
