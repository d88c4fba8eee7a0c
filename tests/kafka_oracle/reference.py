"""Kafka's own algorithms as references on the same input: a broker started on partition directories kvlog
wrote, left to recover, clean or retain them, and the files it kept.

:func:`broker_on` is :func:`tests.kafka_oracle.serve.served` for every version (Kafka 2.8 in ZooKeeper mode
writes no ``partition.metadata``, so it waits for the partition directories instead), with an unclean
restart on request: the clean-shutdown marker and the partitions' recovery points removed, so the broker
recovers every segment from offset 0 as after a crash. The tests run kvlog's algorithm on a copy of the same
input and compare the files both kept (:func:`log_files`).
"""

from __future__ import annotations

import os
import shutil
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import Broker, KafkaDist, random_uuid, version_tuple

with warnings.catch_warnings():  # kafka-python (the harness's admin client) loads its schemas a deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka  # noqa: F401

#: broker settings every reference run uses: nothing deleted by age unless a test says so
QUIET = {"log.retention.hours": "-1", "log.retention.ms": "-1"}


def dist_or_skip(version: str) -> KafkaDist:
    reason = F.unavailable(version)
    if reason:
        F._skip_or_fail(reason)
    dist = KafkaDist.find(version)
    assert dist is not None
    return dist


def create_topics(broker: Broker, topics: dict[str, tuple[int, dict[str, Any]]], timeout: float = 120) -> None:
    """Create ``{name: (partitions, configs)}`` through the admin API and wait for every partition's directory
    (and its ``partition.metadata`` where the version writes one: 3.0 and later)."""
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=60000)
    try:
        admin.create_topics([NewTopic(name, n, 1, topic_configs={k: str(v) for k, v in cfg.items()})
                             for name, (n, cfg) in topics.items()], timeout_ms=60000)
    finally:
        admin.close()
    meta = version_tuple(broker.dist.version) >= (3, 0)
    deadline = time.monotonic() + timeout
    for name, (n, _cfg) in topics.items():
        for p in range(n):
            d = broker.data / f"{name}-{p}"
            while not (d / "partition.metadata").exists() if meta else not d.is_dir():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no {d}")
                time.sleep(0.05)


def cluster_id() -> str:
    """A cluster id kafka-storage's argument parser accepts (``random_uuid`` may start with '-', which it takes
    for an option; Kafka's own ``Uuid.randomUuid`` never does)."""
    while True:
        cid = random_uuid()
        if not cid.startswith("-"):
            return cid


def forget_recovery_points(data: Path) -> None:
    """An unclean stop as recovery sees it: no clean-shutdown marker, no recovery point for any partition
    (so every segment is recovered from offset 0)."""
    marker = data / ".kafka_cleanshutdown"
    if marker.exists():
        marker.unlink()
    (data / "recovery-point-offset-checkpoint").write_text("0\n0\n")


@contextmanager
def broker_on(dist: KafkaDist, root: Path, topics: dict[str, tuple[int, dict[str, Any]]],
              write: Callable[[Path], None], *, unclean: bool = False,
              extra: dict[str, str] | None = None) -> Iterator[Broker]:
    """A broker started on what ``write(data_dir)`` put into the topics' directories while it was stopped
    (after an unclean stop when ``unclean``); stopped cleanly when the block ends, ZooKeeper too."""
    broker = Broker(dist, root, extra={**QUIET, **(extra or {})}, cluster_id=cluster_id())
    try:
        broker.start()
        create_topics(broker, topics)
        broker.stop()
        write(broker.data)
        if unclean:
            forget_recovery_points(broker.data)
        broker.start(timeout=240)
        yield broker
        broker.stop()
    finally:
        broker.stop_all(kill=True)


def copy_partitions(data: Path, dest: Path) -> Path:
    """A copy of a data directory's partitions and root checkpoints (what kvlog's algorithm works on)."""
    shutil.copytree(data, dest, ignore=shutil.ignore_patterns("__cluster_metadata-*", "meta.properties", ".lock"))
    return dest


def log_files(d: Path) -> dict[str, bytes]:
    """The ``.log`` files of a partition directory by name (segments only: no quarantined or swapped files)."""
    return {f.name: f.read_bytes() for f in sorted(d.iterdir())
            if f.name.endswith(".log") and f.name[:20].isdigit()}


def index_files(d: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(d.iterdir())
            if f.name.endswith((".index", ".timeindex")) and f.name[:20].isdigit()}


def quarantined(d: Path) -> dict[str, bytes]:
    """kvlog's set-aside log bytes: ``<segment>.log.quarantined`` and ``<segment>.log.<position>.quarantined``."""
    return {f.name: f.read_bytes() for f in sorted(d.iterdir())
            if f.name.endswith(".quarantined") and ".log" in f.name}


def versions(*wanted: str, group: str) -> list[Any]:
    """pytest params for ``wanted`` versions, each in its own xdist group (one broker at a time per version)."""
    return [pytest.param(v, id=f"kafka-{v}", marks=pytest.mark.xdist_group(f"{group}-{v}")) for v in wanted]


@contextmanager
def scratch(name: str) -> Iterator[Path]:
    """A scratch directory on tmpfs when there is one (brokers and copies are many small files), removed after."""
    import tempfile

    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    d = Path(tempfile.mkdtemp(prefix=f"kvlog-{name}-", dir=base))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)
