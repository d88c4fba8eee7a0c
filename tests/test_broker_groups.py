"""Committed offsets a live broker reports through the admin client (every group protocol the version has:
classic groups of kafka-python, aiokafka and Java, KIP-848 consumer groups, streams groups) equal what kvlog
replays from ``__consumer_offsets`` (``consumer_offsets()``, ``kvlog groups``); share groups' start offsets
equal kvlog's decoding of ``__share_group_state``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import kvlog
from tests.kafka_oracle import fixtures as F

pytestmark = pytest.mark.broker


def broker_offsets(version: str) -> dict[tuple[str, str, int], dict]:
    out = {}
    for group, g in F.truth(version)["groups"].items():
        if (g["type"] or "").lower() == "share":
            continue
        for tp, o in g["offsets"].items():
            topic, _, p = tp.rpartition("-")
            out[(group, topic, int(p))] = o
    return out


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_consumer_offsets_equal_admin(version, state):
    want = broker_offsets(version)
    table = kvlog.consumer_offsets(F.data_dir(version, state))
    got = {(r["group"], r["topic"], r["partition"]): r for r in table.to_pylist()}
    assert set(got) == set(want)
    for k, w in want.items():
        g = got[k]
        assert (g["committed_offset"], g["metadata"], g["leader_epoch"]) == (
            w["offset"], w["metadata"], w["leader_epoch"]), k


@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_groups_cli_lag_equals_kafka(version):
    """``kvlog groups --json``: Kafka's tool computes LAG = log end offset - committed offset, negative for a
    commit beyond the log end (the scenario's group "ahead")."""
    data = F.data_dir(version, "clean")
    r = subprocess.run([sys.executable, "-m", "kvlog", "groups", str(data), "--json"], capture_output=True,
                       text=True, check=True)
    rows = {(d["group"], d["topic"], d["partition"]): d for d in map(json.loads, r.stdout.splitlines())}
    latest = F.truth(version)["offsets"]
    want = broker_offsets(version)
    assert set(rows) == set(want)
    for (group, topic, p), w in want.items():
        end = latest[f"{topic}-{p}"]["latest"]["offset"]
        assert rows[(group, topic, p)]["log_end_offset"] == end
        assert rows[(group, topic, p)]["lag"] == end - w["offset"], (group, topic, p)
    assert rows[("ahead", "codec-lz4", 0)]["lag"] < 0
