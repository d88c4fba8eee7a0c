"""Which option names a ``kvlog`` read takes, and the rule that turns a misspelt one into an error.

The JVM source (``io.kvlog.spark.read.OptionNames``) holds the same lists and applies the same rule; a test
compares the two. Spark hands both engines lower-cased keys (``CaseInsensitiveDict`` in Python,
``CaseInsensitiveStringMap`` on the JVM), so names are compared lower-cased and reported as given.

The rule: a key that is not a known option is refused, with the known name it most likely meant, when

* it is within a small edit distance of a known name (insertions, deletions, substitutions and swaps of
  two neighbouring characters count one each; at most 1 for names of up to 6 characters, else 2), or
* it is a known name with the ``kvlog.`` or ``kafka.`` prefix added or left out (``chunkBytes`` for
  ``kvlog.chunkBytes``, ``isolation.level`` for ``kafka.isolation.level``).

Other unknown keys are ignored, as Spark's sources ignore options they do not know (a job written for
``format("kafka")`` carries ``kafka.bootstrap.servers`` and other consumer settings).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kvlog.errors import ConfigError

#: options a kvlog read acts on
READ_OPTIONS: tuple[str, ...] = (
    "subscribe", "subscribePattern", "assign",
    "startingOffsets", "endingOffsets", "startingTimestamp", "endingTimestamp",
    "startingOffsetsByTimestamp", "endingOffsetsByTimestamp", "startingOffsetsByTimestampStrategy",
    "failOnDataLoss", "minPartitions", "maxRecordsPerPartition", "includeHeaders",
    "maxOffsetsPerTrigger", "minOffsetsPerTrigger", "maxTriggerDelay",
    "kafka.isolation.level", "includeInternalTopics", "kafka.exclude.internal.topics",
    "kvlog.chunkBytes", "kvlog.maxRowsPerBatch", "kvlog.verifyChecksums", "kvlog.aggregatePushdown",
    "kvlog.completeAggregateBatches", "kvlog.backupRun", "kvlog.divergentReplicas",
    "kvlog.remoteStorage.layout", "kvlog.remoteStorage.path", "kvlog.remoteStorage.metadataPath",
    "kvlog.remoteStorage.keyPrefix", "kvlog.remoteStorage.keyPairs",
    # typed keys and values (kvlog.spark.typed)
    "keyFormat", "valueFormat", "keySchema", "valueSchema", "keySubject", "valueSubject", "keyMessage",
    "valueMessage", "schemas", "errors",
)

#: options Spark itself passes: load(path) and load([a, b])
SPARK_OPTIONS: tuple[str, ...] = ("path", "paths")

#: options of Spark's Kafka source that only concern a broker connection: accepted, and without effect
KAFKA_ONLY_OPTIONS: tuple[str, ...] = (
    "kafka.bootstrap.servers", "kafkaConsumer.pollTimeoutMs", "fetchOffset.numRetries",
    "fetchOffset.retryIntervalMs", "groupIdPrefix", "kafka.group.id",
)

KNOWN: tuple[str, ...] = READ_OPTIONS + SPARK_OPTIONS + KAFKA_ONLY_OPTIONS
_PREFIXES = ("kvlog.", "kafka.")

#: the topic names Kafka keeps for itself (``__consumer_offsets``, ``__transaction_state``,
#: ``__cluster_metadata``, ``__share_group_state``, ``__remote_log_metadata``, ...)
INTERNAL_PREFIX = "__"


def is_internal_topic(topic: str) -> bool:
    """Whether ``topic`` is one of Kafka's own (its name starts with ``__``)."""
    return topic.startswith(INTERNAL_PREFIX)


def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap of two neighbours) that turn ``a`` into ``b``."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[len(b)]


def _limit(name: str) -> int:
    return 1 if len(name) <= 6 else 2


def _unprefixed(key: str) -> str:
    for p in _PREFIXES:
        if key.startswith(p):
            return key[len(p):]
    return key


def suggestions(key: str, known: Iterable[str] = KNOWN) -> list[str]:
    """The known names an unknown ``key`` most likely meant (empty when it is known or far from all)."""
    k = key.lower()
    names = list(known)
    lowered = {n.lower() for n in names}
    if k in lowered:
        return []
    scored = []
    for name in names:
        n = name.lower()
        if _unprefixed(k) == _unprefixed(n):
            scored.append((0, name))
            continue
        d = edit_distance(k, n)
        if d <= _limit(n):
            scored.append((d, name))
    if not scored:
        return []
    best = min(d for d, _ in scored)
    return sorted(name for d, name in scored if d == best)


def check_option_names(options: Mapping[str, Any]) -> None:
    """Refuse any key that looks like a misspelt known option (see the module's rule)."""
    for key in sorted(str(k).lower() for k in options):
        near = suggestions(key)
        if near:
            meant = near[0] if len(near) == 1 else "one of " + ", ".join(near)
            raise ConfigError(f"unknown option {key.lower()!r}: did you mean {meant}? "
                              "(option names are case-insensitive)")
