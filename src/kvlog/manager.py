"""LogManager: a data directory of ``<topic>-<partition>`` logs, as a Kafka broker lays it out.

The root holds Kafka's checkpoint files (``recovery-point-offset-checkpoint``,
``log-start-offset-checkpoint``), the ``.lock`` a broker takes, and the clean-shutdown marker written by
``close()``. Kafka keeps topic configurations in its metadata log (``__cluster_metadata-0``); kvlog keeps
its own in ``kvlog-topics.json`` in the root (a plain file, which brokers ignore). A log opened without a
config gets its topic's effective config from both, as :mod:`kvlog.topic_configs` resolves it. The table
also holds each topic's id, which every partition directory carries in ``partition.metadata`` as a
broker's does (:mod:`kvlog.broker_files`).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable, Collection
from typing import Any

from kvlog import _files, _io, storage
from kvlog.broker_files import new_topic_id, parse_topic_id, read_partition_metadata
from kvlog.config import LogConfig
from kvlog.errors import (
    ConfigError,
    DirectoryNotFoundError,
    KvlogError,
    UnknownTopicOrPartitionError,
)
from kvlog.log import Log
from kvlog.root_files import MAX_TOPIC_LENGTH, TOPICS_FILE, _RootCheckpoints, read_topics_file, validate_topic_name
from kvlog.tiered.base import RemoteStorage
from kvlog.tiered.view import RemoteLogMetadataSource
from kvlog.topic_configs import KraftConfigs, ResolvedConfig, TopicConfigs, read_kraft_configs

__all__ = ["LogManager", "validate_topic_name", "MAX_TOPIC_LENGTH"]
MAX_NAME_BYTES = 255


class LogManager:
    """Create, open and delete topics' partition logs under one data directory."""

    def __init__(self, root: str | os.PathLike[str], config: LogConfig | None = None, *,
                 read_only: bool = False, time: Callable[[], int] | None = None, backup_run: int | None = None,
                 remote_storage: RemoteStorage | None = None, remote_log_metadata: RemoteLogMetadataSource | None = None):
        """``backup_run`` (read-only, a ``kvlog backup``): every partition as that run backed it up.
        ``remote_storage`` (read-only, a tiered cluster's data directory): every partition of a topic with
        remote segments reads its whole history (``Log.open``); ``__remote_log_metadata`` is replayed once,
        from the data directory or ``remote_log_metadata``."""
        if not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"LogManager takes a data directory (a path or a URI), not {type(root).__name__}")
        if not read_only:
            storage.refuse_remote_writer(root, "LogManager without read_only=True")
        self.root = storage.normalize(root)
        self.default_config = config or LogConfig()
        self._explicit_config = config
        self._kraft: KraftConfigs | None = None
        self._kraft_read = False
        self._config_cache: dict[str, tuple[tuple[tuple[str, Any], ...], LogConfig]] = {}
        self._real_root: str | None = None
        self.read_only = read_only
        if backup_run is not None and not read_only:
            raise ConfigError("backup_run reads an older backup run: it needs read_only=True")
        self.backup_run = backup_run
        if (remote_storage is not None or remote_log_metadata is not None) and not read_only:
            raise ConfigError("remote_storage reads a tiered topic's remote segments: it needs read_only=True")
        self.remote_storage = remote_storage
        self._remote_metadata: Any = remote_log_metadata
        self._time = time
        self._logs: dict[tuple[str, int], Log] = {}
        self._present: dict[str, set[int]] = {}  # partition directories on disk (and created here)
        self._ids: dict[str, str] = {}  # topic ids learned from partition.metadata (topics without one in the table)
        self._lock_fd = -1
        self._closed = False
        if not _io.fs.isdir(self.root):
            if read_only:
                raise DirectoryNotFoundError(f"no data directory at {self.root}")
            os.makedirs(self.root, mode=_io.DIR_MODE, exist_ok=True)
        else:  # not a partition directory (its files would read as no topics, and a writer's root files go in)
            _files.check_data_directory(self.root, _io.fs.listdir(self.root))
        self._checkpoints = _RootCheckpoints(self.root)
        self._clean_shutdown = False
        self._marker = b""  # the clean-shutdown marker's bytes, written back on close
        if not read_only:
            self._lock()
            marker = os.path.join(self.root, _files.CLEAN_SHUTDOWN)
            if os.path.exists(marker):
                # read, then delete before any log loads: a crash during loading is not clean (KAFKA-10471)
                self._clean_shutdown = True
                self._marker = _io.fs.read_file(marker)
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
        table = read_topics_file(os.path.join(self.root, TOPICS_FILE))
        # the partitions are the directories on disk, whoever wrote them (a broker holds only its replicas)
        for topic, partition in _files.partition_dirs(self.root)[0]:
            self._present.setdefault(topic, set()).add(partition)
        return table

    def _write_topics(self) -> None:
        data = json.dumps(self._topics, indent=1, sort_keys=True).encode()
        _io.fs.write_atomic(os.path.join(self.root, TOPICS_FILE), data)

    def topics(self) -> dict[str, int]:
        """``{topic: number of its partition directories in this data directory}``, by topic name.

        The count is what is on disk, not the topic's partition count in the cluster: a broker's
        directory holds only the partitions it has replicas of, so ``__consumer_offsets`` may show 49 of
        its 50. :meth:`partitions` gives the numbers. Topics of kvlog's table without a directory are
        left out.
        """
        return {t: len(ps) for t, ps in sorted(self._present.items()) if ps}

    def partitions(self, topic: str) -> list[int]:
        """The sorted partition numbers of ``topic`` present in this data directory (see :meth:`topics`);
        ``UnknownTopicOrPartitionError`` when there are none."""
        present = self._present.get(topic) if isinstance(topic, str) else None
        if not present:
            raise UnknownTopicOrPartitionError(f"no topic {topic!r} in {self.root}", topic=str(topic))
        return sorted(present)

    def topic_config(self, topic: str) -> LogConfig:
        """The config a log of ``topic`` is opened with (see :meth:`resolved_config`); resolved once a topic
        while its entry in the topic table stays the same (opening a topic's thousand partitions)."""
        entry = self._topics.get(topic) if isinstance(topic, str) else None
        given = (entry or {}).get("config")
        key = tuple(sorted(given.items())) if isinstance(given, dict) else ()
        cached = self._config_cache.get(topic)
        if cached is not None and cached[0] == key:
            return cached[1]
        config = self.resolved_config(topic).config
        self._config_cache[topic] = (key, config)
        return config

    def resolved_config(self, topic: str) -> ResolvedConfig:
        """``topic``'s effective config and the source of every value: the broker's KRaft metadata in the
        root (read once, on first use), then ``kvlog-topics.json``, then for internal topics Kafka's
        built-in configs, then the metadata's broker defaults, then this manager's ``config`` (or Kafka's
        defaults when none was given)."""
        entry = self._topics.get(topic) if isinstance(topic, str) else None
        if entry is None and not (isinstance(topic, str) and self._present.get(topic)):
            raise UnknownTopicOrPartitionError(f"no topic {topic!r} in {self.root}", topic=str(topic))
        if not self._kraft_read:
            self._kraft = read_kraft_configs(self.root)
            self._kraft_read = True
        kvlog = {topic: dict((entry or {}).get("config") or {})}  # type: ignore[call-overload]
        return TopicConfigs(kraft=self._kraft, kvlog=kvlog, base=self._explicit_config).resolve(topic)

    # ---------------------------------------------------------------------------------- topics
    def create_topic(self, name: str, partitions: int | Collection[int],
                     config: LogConfig | None = None, *, topic_id: str | None = None) -> list[Log]:
        """Create empty logs for a new topic (Kafka's naming rules apply): ``partitions`` is a count
        (partitions 0..n-1) or the partition numbers to create (a copy of a broker's directory, which
        holds only some of a topic's partitions); returns them by partition number.

        The topic gets ``topic_id`` (Kafka's base64url text: a restore passes the source's or the target
        cluster's) or a new random one, kept in the topic table and in every partition's
        ``partition.metadata``.
        """
        self._check(writing=True)
        validate_topic_name(name)
        tid = parse_topic_id(topic_id, "create_topic(topic_id=...)") if topic_id is not None else new_topic_id()
        wanted = _partition_numbers(partitions)
        if name in self._topics or self._present.get(name):
            raise ConfigError(f"topic {name!r} already exists in {self.root}")
        if len(f"{name}-{wanted[-1]}".encode()) > MAX_NAME_BYTES:
            raise ConfigError(f"partition directory names of {name!r} would exceed {MAX_NAME_BYTES} bytes")
        # delete-directory names truncate the topic as Kafka does, so they always fit
        cfg = config or self.default_config
        self._topics[name] = {"partitions": wanted[-1] + 1,
                              "config": cfg.to_properties() if config is not None else {}, "topic_id": tid}
        self._write_topics()
        self._present.setdefault(name, set()).update(wanted)
        return [self.log(name, p) for p in wanted]

    def topic_id(self, topic: str) -> str | None:
        """``topic``'s id as Kafka writes it (22 base64url characters): the topic table's, else the
        ``partition.metadata`` of its partition directories; None when neither has one (a directory kvlog
        wrote before it kept ids, until a writable manager opens one of its logs)."""
        self._check()
        entry = self._topics.get(topic) if isinstance(topic, str) else None
        if entry is None and not (isinstance(topic, str) and self._present.get(topic)):
            raise UnknownTopicOrPartitionError(f"no topic {topic!r} in {self.root}", topic=str(topic))
        found = entry.get("topic_id") if entry is not None else None
        if isinstance(found, str):
            return found
        if topic not in self._ids:
            for p in sorted(self._present.get(topic, ())):
                on_disk = read_partition_metadata(os.path.join(self.root, f"{topic}-{p}"))
                if on_disk is not None:
                    self._ids[topic] = on_disk
                    break
        return self._ids.get(topic)

    def _id_for_open(self, topic: str) -> str | None:
        """The id a log of ``topic`` is opened with: the table's, else one a log of the topic had. A writable
        manager finds or makes one for a topic without (kept in the table when the topic is in it); a
        read-only one leaves the first log's file unchecked and holds the others to it."""
        entry = self._topics.get(topic)
        tid = entry.get("topic_id") if entry is not None else None
        if isinstance(tid, str):
            return tid
        tid = self._ids.get(topic)
        if tid is None and not self.read_only:
            tid = self._ids[topic] = self.topic_id(topic) or new_topic_id()
            if entry is not None:  # a table written before kvlog kept ids
                entry["topic_id"] = tid
                self._write_topics()
        return tid

    def log(self, topic: str, partition: int) -> Log:
        """The open Log for ``topic``/``partition`` (opened, and recovered if needed, on first use).

        ``UnknownTopicOrPartitionError`` for a partition without a directory here; a writable manager
        also (re)creates a partition below the count kvlog's topic table gives the topic.
        """
        self._check()
        if not isinstance(topic, str) or not isinstance(partition, int) or isinstance(partition, bool):
            raise TypeError(f"log() takes a topic name (str) and a partition number (int), got "
                            f"{type(topic).__name__} and {type(partition).__name__}")
        key = (topic, partition)
        if key in self._logs:
            return self._logs[key]
        present = self._present.get(topic, set())
        declared = int(self._topics.get(topic, {}).get("partitions", 0))  # type: ignore[call-overload]
        if partition not in present and (self.read_only or not 0 <= partition < declared):
            have = (f"its partitions here are {_ranges(sorted(present))}" if present
                    else "there is no such topic")
            raise UnknownTopicOrPartitionError(f"no partition {topic}-{partition} in {self.root} ({have})",
                                               topic=topic, partition=partition)
        path = os.path.join(self.root, f"{topic}-{partition}")
        if not storage.is_remote(path) and os.path.islink(path):  # (a topic name holds no "/" and is no "..")
            if self._real_root is None:
                self._real_root = os.path.realpath(self.root)
            if os.path.commonpath([os.path.realpath(path), self._real_root]) != self._real_root:
                raise KvlogError(f"{path} resolves outside the data directory {self.root} (a symlink?); "
                                 f"refusing it")
        tiered: dict[str, Any] = {}
        if self.remote_storage is not None and not topic.startswith("__"):
            tiered = {"remote_storage": self.remote_storage, "remote_log_metadata": self._remote_log_metadata()}
        log = Log.open(path, self.topic_config(topic), read_only=self.read_only, time=self._time,
                       backup_run=self.backup_run, topic_id=self._id_for_open(topic),
                       _clean_shutdown=self._clean_shutdown, _checkpoints=self._checkpoints, **tiered)
        if log.topic_id is not None:
            self._ids.setdefault(topic, log.topic_id)
        self._logs[key] = log
        present.add(partition)
        self._present[topic] = present
        return log

    def _remote_log_metadata(self) -> Any:
        """The replay of ``__remote_log_metadata`` every tiered partition of this manager shares."""
        from kvlog.internal_topics.remote_log_metadata import RemoteLogMetadata, replay_remote_log_metadata

        source = self._remote_metadata
        if source is None or isinstance(source, (str, os.PathLike)):
            self._remote_metadata = replay_remote_log_metadata(self.root if source is None else os.fspath(source))
        elif not isinstance(source, (RemoteLogMetadata, list, tuple)):
            raise ConfigError(f"remote_log_metadata is a directory, a replay or a list of RemoteSegment, not "
                              f"{type(source).__name__}")
        return self._remote_metadata

    def logs(self) -> list[Log]:
        """Every partition log of every topic (opening them as needed)."""
        return [self.log(t, p) for t in self.topics() for p in self.partitions(t)]

    def delete_topic(self, name: str) -> None:
        """Close the topic's logs, rename their directories to Kafka's ``-delete`` form, remove them."""
        self._check(writing=True)
        entry = self._topics.pop(name, None)
        present = self._present.pop(name, set())
        self._ids.pop(name, None)
        if entry is None and not present:
            raise UnknownTopicOrPartitionError(f"no topic {name!r} in {self.root}", topic=name)
        for p in sorted(present):
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
        """Close every log (flushed, checkpointed) and write the clean-shutdown marker.

        The marker is written back as it was found: a Kafka 3.7+ broker's holds its broker epoch
        (``{"version":0,"brokerEpoch":N}``), which a KRaft broker registers with on its next start; without it
        the controller takes the broker for uncleanly shut down and elects its partitions uncleanly. A
        directory opened without a marker (its broker stopped uncleanly) gets one only when every partition
        directory in it was opened, and so recovered, here: otherwise the broker would trust logs nobody
        recovered."""
        if self._closed:
            return
        try:
            for log in self._logs.values():
                log.close()
            if not self.read_only and (self._clean_shutdown or self._recovered_all()):
                _io.fs.write_atomic(os.path.join(self.root, _files.CLEAN_SHUTDOWN), self._marker)
        finally:
            self._logs.clear()
            self._closed = True
            if self._lock_fd >= 0:
                _files.unlock_file(self._lock_fd)
                self._lock_fd = -1

    def _recovered_all(self) -> bool:
        """Whether every partition directory here was opened for writing by this manager."""
        opened = {(t, p) for (t, p), log in self._logs.items() if not log.read_only}
        return all((t, p) in opened for t, ps in self._present.items() for p in ps) and \
            not any(_files.parse_partition_dir(n) is not None and n.startswith(_files.CLUSTER_METADATA + "-")
                    for n in _io.fs.listdir(self.root))

    def __enter__(self) -> "LogManager":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _partition_numbers(partitions: int | Collection[int]) -> list[int]:
    """``create_topic``'s partitions: a count (0..n-1) or the partition numbers themselves, sorted."""
    if isinstance(partitions, int) and not isinstance(partitions, bool):
        if partitions < 1:
            raise ConfigError(f"partitions must be a positive integer, got {partitions}")
        return list(range(partitions))
    if isinstance(partitions, (str, bytes)) or not isinstance(partitions, Collection) or not partitions:
        raise ConfigError(f"partitions must be a positive count or a non-empty collection of partition "
                          f"numbers, got {partitions!r:.100}")
    out = sorted(set(partitions))
    if not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 2**31 - 1 for p in out):
        raise ConfigError(f"partition numbers must be integers from 0 to 2^31-1, got {partitions!r:.100}")
    return out


def _ranges(numbers: list[int]) -> str:
    """``0-13, 15-49`` for a sorted list of integers."""
    runs: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(runs)
