"""The files a data directory's root holds for all its logs: the recovery-point and log-start-offset
checkpoints (Kafka's layout), the lock that serialises their read-modify-write, and kvlog's topic table
(``kvlog-topics.json``: each topic's partitions, config and id, which ``LogManager`` writes) with Kafka's
topic-name rules.

Beside ``kvlog.checkpoint`` (the file format) rather than in the log package: a ``LogManager`` and the
cleaner use them too, and none of them may import the log package's internals.
"""

from __future__ import annotations

import fcntl
import json
import os
import re

from kvlog import _io, checkpoint
from kvlog.broker_files import parse_topic_id
from kvlog.errors import ConfigError, CorruptPartitionMetadataError, StorageError


class _RootCheckpoints:
    """The data directory's recovery-point and log-start-offset checkpoint files (Kafka's layout)."""

    def __init__(self, root: str):
        self.root = root

    def read(self, topic: str, partition: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, key in ((checkpoint.RECOVERY_POINT, "recovery_point"),
                          (checkpoint.LOG_START_OFFSET, "log_start_offset"),
                          (checkpoint.REPLICATION_OFFSET, "high_watermark")):
            try:
                table = checkpoint.read_offsets_cached(os.path.join(self.root, name))
            except checkpoint.CorruptCheckpointError:
                table = {}  # Kafka's fallback: full recovery
            if (topic, partition) in table:
                out[key] = table[(topic, partition)]
        return out

    def write(self, topic: str, partition: int, *, recovery_point: int, log_start_offset: int) -> None:
        lock = _RootLock(self.root)
        with lock:
            checkpoint.update_offsets(os.path.join(self.root, checkpoint.RECOVERY_POINT),
                                      {(topic, partition): recovery_point})
            checkpoint.update_offsets(os.path.join(self.root, checkpoint.LOG_START_OFFSET),
                                      {(topic, partition): log_start_offset})

    def remove(self, topic: str, partition: int) -> None:
        with _RootLock(self.root):
            for name in (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.CLEANER_OFFSET):
                path = os.path.join(self.root, name)
                if _io.fs.exists(path):
                    checkpoint.update_offsets(path, {(topic, partition): None})


class _RootLock:
    """Serialises read-modify-write of the root checkpoint files between logs and processes."""

    def __init__(self, root: str):
        self.path = os.path.join(root, ".kvlog-checkpoints.lock")
        self.fd = -1

    def __enter__(self) -> "_RootLock":
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                          0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


# ------------------------------------------------------------------------------------ topic table
MAX_TOPIC_LENGTH = 249
TOPICS_FILE = "kvlog-topics.json"
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")


def validate_topic_name(name: str) -> None:
    """Kafka's rules (Topic.validate): legal characters, at most 249 characters, not '.' or '..'."""
    if not isinstance(name, str) or not name:
        raise ConfigError("topic name must be a non-empty string")
    if name in (".", ".."):
        raise ConfigError(f"topic name cannot be {name!r}")
    if len(name) > MAX_TOPIC_LENGTH:
        raise ConfigError(f"topic name is {len(name)} characters; the maximum is {MAX_TOPIC_LENGTH}")
    if not _LEGAL.match(name):
        raise ConfigError(f"topic name {name!r} has characters outside [a-zA-Z0-9._-]")


def read_topics_file(path: str) -> dict[str, dict[str, object]]:
    """kvlog's topic table (``kvlog-topics.json``) at ``path``, checked; empty when there is none."""
    if not _io.fs.exists(path):
        return {}
    try:
        table = json.loads(_io.fs.read_file(path).decode("utf-8"))
    except StorageError:
        raise
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    return checked_topics(table, path)


def checked_topics(table: object, path: str) -> dict[str, dict[str, object]]:
    """The topics file's shape, checked: ``{topic: {"partitions": n, "config": {name: value}, "topic_id": id}}``
    (``topic_id``, Kafka's base64url text, is absent from tables kvlog wrote before it kept ids)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: expected a JSON object of topics, found {type(table).__name__}")
    for topic, entry in table.items():
        try:
            validate_topic_name(topic)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        parts = entry.get("partitions") if isinstance(entry, dict) else None
        config = entry.get("config", {}) if isinstance(entry, dict) else None
        if not isinstance(parts, int) or isinstance(parts, bool) or parts < 0 or not isinstance(config, dict):
            raise ConfigError(f"{path}: topic {topic!r} needs an integer \"partitions\" >= 0 and a \"config\" "
                              f"object, found {entry!r:.200}")
        if not all(isinstance(v, (str, int, float, bool)) for v in config.values()):
            raise ConfigError(f"{path}: topic {topic!r} has a config value that is not a string or number")
        if "topic_id" in entry:
            try:
                entry["topic_id"] = parse_topic_id(entry["topic_id"])
            except CorruptPartitionMetadataError as exc:
                raise ConfigError(f"{path}: topic {topic!r}: {exc}") from None
    return table
