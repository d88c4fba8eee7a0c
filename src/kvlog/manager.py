"""LogManager: a data directory of ``<topic>-<partition>`` logs, as a Kafka broker lays it out.

The root holds Kafka's checkpoint files (``recovery-point-offset-checkpoint``,
``log-start-offset-checkpoint``), the ``.lock`` a broker takes, and the clean-shutdown marker written by
``close()``. Kafka keeps topic configurations in its metadata log (``__cluster_metadata-0``); kvlog keeps
its own in ``kvlog-topics.json`` in the root (a plain file, which brokers ignore). A log opened without a
config gets its topic's effective config from both, as :mod:`kvlog.topic_configs` resolves it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Callable

from kvlog import _files, _io, storage
from kvlog.config import LogConfig
from kvlog.errors import ConfigError, KvlogError, StorageError
from kvlog.log import Log, _RootCheckpoints
from kvlog.topic_configs import KraftConfigs, ResolvedConfig, TopicConfigs, read_kraft_configs

__all__ = ["LogManager", "validate_topic_name", "MAX_TOPIC_LENGTH"]

MAX_TOPIC_LENGTH = 249
MAX_NAME_BYTES = 255
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


def _checked_topics(table: object, path: str) -> dict[str, dict[str, object]]:
    """The topics file's shape, checked: ``{topic: {"partitions": n, "config": {name: value}}}``."""
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
    return table


class LogManager:
    """Create, open and delete topics' partition logs under one data directory."""

    def __init__(self, root: str | os.PathLike[str], config: LogConfig | None = None, *,
                 read_only: bool = False, time: Callable[[], int] | None = None):
        if not read_only:
            storage.refuse_remote_writer(root, "LogManager without read_only=True")
        self.root = storage.normalize(root)
        self.default_config = config or LogConfig()
        self._explicit_config = config
        self._kraft: KraftConfigs | None = None
        self._kraft_read = False
        self.read_only = read_only
        self._time = time
        self._logs: dict[tuple[str, int], Log] = {}
        self._lock_fd = -1
        self._closed = False
        if not _io.fs.isdir(self.root):
            if read_only:
                raise FileNotFoundError(f"no data directory at {self.root}")
            os.makedirs(self.root, mode=_io.DIR_MODE, exist_ok=True)
        self._checkpoints = _RootCheckpoints(self.root)
        self._clean_shutdown = False
        if not read_only:
            self._lock()
            marker = os.path.join(self.root, _files.CLEAN_SHUTDOWN)
            if os.path.exists(marker):
                # read, then delete before any log loads: a crash during loading is not clean (KAFKA-10471)
                self._clean_shutdown = True
                _io.fs.unlink(marker)
                _io.fs.fsync_dir(self.root)
            self._remove_deleted_dirs()
        self._topics = self._read_topics()

    def _lock(self) -> None:
        self._lock_fd = _files.lock_file(os.path.join(self.root, ".lock"), f"data directory {self.root}")

    def _remove_deleted_dirs(self) -> None:
        for name in os.listdir(self.root):
            if name.endswith("-delete") and os.path.isdir(os.path.join(self.root, name)):
                shutil.rmtree(os.path.join(self.root, name), ignore_errors=True)

    # ------------------------------------------------------------------------------- topic table
    def _read_topics(self) -> dict[str, dict[str, object]]:
        path = os.path.join(self.root, TOPICS_FILE)
        table: dict[str, dict[str, object]] = {}
        if _io.fs.exists(path):
            try:
                table = json.loads(_io.fs.read_file(path).decode("utf-8"))
            except StorageError:
                raise
            except (OSError, ValueError) as exc:
                raise ConfigError(f"cannot read {path}: {exc}") from None
            table = _checked_topics(table, path)
        # directories written by a broker (or another tool) count too
        for name in _io.fs.listdir(self.root):
            tp = _files.parse_partition_dir(name)
            if tp is None or not _io.fs.isdir(os.path.join(self.root, name)) or "." in name.rsplit("-", 1)[-1]:
                continue
            topic, partition = tp
            entry = table.setdefault(topic, {"partitions": 0, "config": {}})
            entry["partitions"] = max(int(entry["partitions"]), partition + 1)  # type: ignore[call-overload]
        return table

    def _write_topics(self) -> None:
        data = json.dumps(self._topics, indent=1, sort_keys=True).encode()
        _io.fs.write_atomic(os.path.join(self.root, TOPICS_FILE), data)

    def topics(self) -> dict[str, int]:
        """``{topic: partition count}``."""
        return {t: int(e["partitions"]) for t, e in sorted(self._topics.items())}  # type: ignore[call-overload]

    def topic_config(self, topic: str) -> LogConfig:
        """The config a log of ``topic`` is opened with (see :meth:`resolved_config`)."""
        return self.resolved_config(topic).config

    def resolved_config(self, topic: str) -> ResolvedConfig:
        """``topic``'s effective config and the source of every value: the broker's KRaft metadata in the
        root (read once, on first use), then ``kvlog-topics.json``, then for internal topics Kafka's
        built-in configs, then the metadata's broker defaults, then this manager's ``config`` (or Kafka's
        defaults when none was given)."""
        entry = self._topics.get(topic)
        if entry is None:
            raise KeyError(f"no topic {topic!r} in {self.root}")
        if not self._kraft_read:
            self._kraft = read_kraft_configs(self.root)
            self._kraft_read = True
        kvlog = {topic: dict(entry.get("config") or {})}  # type: ignore[call-overload]
        return TopicConfigs(kraft=self._kraft, kvlog=kvlog, base=self._explicit_config).resolve(topic)

    # ---------------------------------------------------------------------------------- topics
    def create_topic(self, name: str, partitions: int, config: LogConfig | None = None) -> list[Log]:
        """Create ``partitions`` empty logs for a new topic (Kafka's naming rules apply)."""
        self._check(writing=True)
        validate_topic_name(name)
        if not isinstance(partitions, int) or partitions < 1:
            raise ConfigError("partitions must be a positive integer")
        if name in self._topics:
            raise ConfigError(f"topic {name!r} already exists in {self.root}")
        longest = f"{name}-{partitions - 1}.{uuid.uuid4().hex}-delete"
        if len(f"{name}-{partitions - 1}".encode()) > MAX_NAME_BYTES:
            raise ConfigError(f"partition directory names of {name!r} would exceed {MAX_NAME_BYTES} bytes")
        del longest  # delete-directory names truncate the topic as Kafka does, so they always fit
        cfg = config or self.default_config
        self._topics[name] = {"partitions": partitions,
                              "config": cfg.to_properties() if config is not None else {}}
        self._write_topics()
        return [self.log(name, p) for p in range(partitions)]

    def log(self, topic: str, partition: int) -> Log:
        """The open Log for ``topic``/``partition`` (opened, and recovered if needed, on first use)."""
        self._check()
        key = (topic, partition)
        if key in self._logs:
            return self._logs[key]
        entry = self._topics.get(topic)
        if entry is None or not 0 <= partition < int(entry["partitions"]):  # type: ignore[call-overload]
            raise KeyError(f"no partition {topic}-{partition} in {self.root}")
        path = os.path.join(self.root, f"{topic}-{partition}")
        real_root = os.path.realpath(self.root)
        if not storage.is_remote(path) and os.path.commonpath([os.path.realpath(path), real_root]) != real_root:
            raise KvlogError(f"{path} resolves outside the data directory {self.root} (a symlink?); refusing it")
        log = Log.open(path, self.topic_config(topic), read_only=self.read_only, time=self._time,
                       _clean_shutdown=self._clean_shutdown, _checkpoints=self._checkpoints)
        self._logs[key] = log
        return log

    def logs(self) -> list[Log]:
        """Every partition log of every topic (opening them as needed)."""
        return [self.log(t, p) for t, n in self.topics().items() for p in range(n)]

    def delete_topic(self, name: str) -> None:
        """Close the topic's logs, rename their directories to Kafka's ``-delete`` form, remove them."""
        self._check(writing=True)
        entry = self._topics.pop(name, None)
        if entry is None:
            raise KeyError(f"no topic {name!r} in {self.root}")
        for p in range(int(entry["partitions"])):  # type: ignore[call-overload]
            log = self._logs.pop((name, p), None)
            if log is not None:
                log.close()
            src = os.path.join(self.root, f"{name}-{p}")
            if not os.path.isdir(src):
                continue
            suffix = f"-{p}.{uuid.uuid4().hex}-delete"
            dst = os.path.join(self.root, name[: MAX_NAME_BYTES - len(suffix)] + suffix)
            _io.fs.rename(src, dst)
            self._checkpoints.remove(name, p)
        _io.fs.fsync_dir(self.root)
        self._write_topics()
        self._remove_deleted_dirs()

    # ------------------------------------------------------------------------------------ close
    def _check(self, writing: bool = False) -> None:
        if self._closed:
            raise KvlogError(f"LogManager for {self.root} is closed")
        if writing and self.read_only:
            raise KvlogError(f"LogManager for {self.root} is read-only")

    def close(self) -> None:
        """Close every log (flushed, checkpointed) and write the clean-shutdown marker."""
        if self._closed:
            return
        try:
            for log in self._logs.values():
                log.close()
            if not self.read_only:
                _io.fs.write_atomic(os.path.join(self.root, _files.CLEAN_SHUTDOWN), b"")
        finally:
            self._logs.clear()
            self._closed = True
            if self._lock_fd >= 0:
                _files.unlock_file(self._lock_fd)
                self._lock_fd = -1

    def __enter__(self) -> "LogManager":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
