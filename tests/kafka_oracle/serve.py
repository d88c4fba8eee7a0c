"""kvlog writes, Kafka serves: a broker started on partition directories kvlog wrote.

The procedure (docs/broker-files.md, "Serving what kvlog wrote"): start the cluster on fresh directories and
create the topics through the admin API, so the metadata knows them and each partition directory carries its
``partition.metadata``; stop the broker cleanly; let kvlog write the partitions' files into those directories;
start the broker again and read what it serves. :func:`served` does exactly that and returns the running
broker with the log lines it printed while loading, so a test can assert the broker renamed, truncated,
recovered and rebuilt nothing kvlog flushed (:func:`suspicious_lines`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.kafka_oracle.broker import Broker, KafkaDist

#: Broker log lines that mean it did not take a partition's files as they were: recovery, truncation,
#: a rebuilt or distrusted index, a stray directory, a deleted segment, a corrupt snapshot.
SUSPICIOUS = re.compile(
    r"Recovering unflushed segment|Found invalid messages|[Tt]runcat|[Cc]orrupt|Rebuilding|rebuild|"
    r"-stray|stray|Deleting segment|Found a corrupted|Could not find offset index|Deleting (offset|time) index|"
    r"does not match|Error|Exception|invalid", re.IGNORECASE)

#: Lines that match SUSPICIOUS but are part of every start (per version, as observed). The broker's config dump
#: (a tab, a key, " = ", a value) is left out by its shape, never by a key name: a key such as
#: "log.recovery.threads.per.data.dir" must not also hide the recovery threads' own lines (thread names
#: "log-recovery-<dir>").
EXPECTED = re.compile(
    r"Loading producer state|Reloading from producer snapshot|Producer state recovery took|"
    r"No checkpointed highwatermark|Skipping recovery|epoch cache truncated to|"
    r"^\s+[\w.]+ = ")


def suspicious_lines(text: str, partitions: list[str]) -> list[str]:
    """The broker's lines that name one of ``partitions`` and say it changed or distrusted its files."""
    names = [re.escape(p) for p in partitions]
    about = re.compile("|".join(names)) if names else None
    return [line for line in text.splitlines()
            if SUSPICIOUS.search(line) and not EXPECTED.search(line) and (about is None or about.search(line))]


@dataclass
class Served:
    broker: Broker
    topic_ids: dict[str, str]
    load_log: str  # what the broker printed from its second start until it served

    @property
    def data(self) -> Path:
        return self.broker.data


def create_topics(broker: Broker, topics: dict[str, tuple[int, dict[str, Any]]]) -> dict[str, str]:
    """Create ``{name: (partitions, configs)}`` through the admin API; their topic ids once every partition's
    directory holds ``partition.metadata``."""
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(name, n, 1, topic_configs={k: str(v) for k, v in cfg.items()})
                             for name, (n, cfg) in topics.items()])
    finally:
        admin.close()
    ids: dict[str, str] = {}
    deadline = time.monotonic() + 60
    for name, (n, _cfg) in topics.items():
        for p in range(n):
            meta = broker.data / f"{name}-{p}" / "partition.metadata"
            while not meta.exists():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no {meta}")
                time.sleep(0.1)
            ids[name] = meta.read_text().split("topic_id:")[1].strip()
    return ids


@contextmanager
def served(dist: KafkaDist, root: Path, topics: dict[str, tuple[int, dict[str, Any]]],
           write: Callable[[Path, dict[str, str]], None], *, extra: dict[str, str] | None = None,
           classpath: tuple[str, ...] = ()) -> Iterator[Served]:
    """A broker serving what ``write(data_dir, topic_ids)`` put into the topics' directories while it was
    stopped (see the module's docstring); stopped (cleanly) when the block ends."""
    broker = Broker(dist, root, extra=dict(extra or {}), classpath=classpath)
    try:
        broker.start()
        ids = create_topics(broker, topics)
        broker.stop()
        write(broker.data, ids)
        mark = len(broker.log_text())
        broker.start()
        yield Served(broker, ids, broker.log_text()[mark:])
        broker.stop()
    finally:
        broker.stop_all(kill=True)
