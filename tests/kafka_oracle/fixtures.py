"""What the broker tests share: each version's scenario (generated once per run), its truth, its states.

The scenarios live in ``KVLOG_BROKER_SCENARIOS`` when set (``make test-broker`` generates them there
first, two versions at a time), else in the temporary directory under a name made of the scenario code's
hash (so a changed scenario is generated anew), shared by pytest's workers and later runs.
Without Java or a version's jars a test skips and says why; with ``KVLOG_REQUIRE_BROKER=1`` (CI) it fails.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.kafka_oracle import client, scenario
from tests.kafka_oracle.broker import VERSIONS, KafkaDist, java, version_tuple

STATES = scenario.STATES

#: Partitions a plain ``Log`` reads whole: not the tiered one (its older records are remote).
TIERED_TOPICS = ("tiered",)


def scenarios_base() -> Path:
    if os.environ.get("KVLOG_BROKER_SCENARIOS"):
        return Path(os.environ["KVLOG_BROKER_SCENARIOS"])
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in (here / "scenario.py", here / "broker.py", client.SOURCE):
        h.update(f.read_bytes())
    return Path(tempfile.gettempdir()) / f"kvlog-broker-scenarios-{os.getuid()}" / h.hexdigest()[:12]


def unavailable(version: str) -> str | None:
    if java() is None:
        return "the broker tests need Java 17+ (java on PATH or JAVA_HOME)"
    if KafkaDist.find(version) is None:
        return f"Kafka {version}'s jars are not fetched: run tools/kafka-oracle/fetch.sh (make test-broker does)"
    if client.client_dist() is None:
        return f"the reference client needs Kafka {client.CLIENT_VERSION}'s jars (tools/kafka-oracle/fetch.sh)"
    return None


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("KVLOG_REQUIRE_BROKER") == "1":
        pytest.fail(f"KVLOG_REQUIRE_BROKER=1 but {reason}")
    pytest.skip(reason)


@functools.lru_cache(maxsize=None)
def _scenario(version: str) -> Path:
    return scenario.ensure(version, scenarios_base())


def scenario_dir(version: str) -> Path:
    reason = unavailable(version)
    if reason:
        _skip_or_fail(reason)
    return _scenario(version)


@functools.lru_cache(maxsize=None)
def truth(version: str) -> dict[str, Any]:
    return json.loads((scenario_dir(version) / "truth.json").read_text())


@functools.lru_cache(maxsize=None)
def info(version: str) -> dict[str, Any]:
    return json.loads((scenario_dir(version) / "info.json").read_text())


def data_dir(version: str, state: str) -> Path:
    return scenario_dir(version) / state / "data"


def partitions(version: str, *, internal: bool = True, tiered: bool = False) -> list[tuple[str, int]]:
    out = []
    for topic, d in sorted(truth(version)["metadata"]["topics"].items()):
        if (d["internal"] or topic.startswith("__")) and not internal:
            continue
        if topic in TIERED_TOPICS and not tiered:
            continue
        out.extend((topic, p["partition"]) for p in d["partitions"])
    return out


def consumer_records(version: str, isolation: str, topic: str, partition: int) -> dict[str, Any]:
    """What Kafka's consumer read: log_start_offset, end_offset and records (offset, timestamp,
    timestamp_type, key, value, headers, leader_epoch; bytes as base64)."""
    return truth(version)[isolation][f"{topic}-{partition}"]


def as_tuples(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Consumer records as (offset, key, value, timestamp, timestamp type, headers) with bytes decoded."""
    return [(r["offset"], client.unb64(r["key"]), client.unb64(r["value"]), r["timestamp"], r["timestamp_type"],
             [(k, client.unb64(v)) for k, v in r["headers"]]) for r in records]


def record_tuples(records: Any) -> list[tuple[Any, ...]]:
    """kvlog ``Record``s as :func:`as_tuples` gives a consumer's records."""
    return [(r.offset, r.key, r.value, r.timestamp,
             {0: "CreateTime", 1: "LogAppendTime"}[int(r.timestamp_type)], [(k, v) for k, v in r.headers])
            for r in records]


VERSION_PARAMS = [pytest.param(v, id=f"kafka-{v}") for v in VERSIONS]
STATE_PARAMS = [pytest.param(s, id=s) for s in STATES]
#: Versions run in KRaft mode here (4.x; 2.8 and 3.7 run with ZooKeeper: no __cluster_metadata).
KRAFT_VERSION_PARAMS = [pytest.param(v, id=f"kafka-{v}") for v in VERSIONS if version_tuple(v) >= (4, 0)]
