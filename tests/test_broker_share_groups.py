"""Share groups (KIP-932, Kafka 4.1+): the share-partition state a live broker reports through the admin client
(``listShareGroupOffsets``: start offset and leader epoch per partition, none for a partition the group
initialised but never consumed) equals what kvlog replays from ``__share_group_state``
(``share_group_state()``, ``kvlog groups --share``), in every state of the data directory."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import kvlog
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import version_tuple

pytestmark = pytest.mark.broker

SHARE_VERSION_PARAMS = [p for p in F.VERSION_PARAMS if version_tuple(p.values[0]) >= (4, 1)]


def broker_share_offsets(version: str) -> dict[tuple[str, str, int], dict]:
    out = {}
    for group, g in F.truth(version)["groups"].items():
        if (g["type"] or "").lower() != "share":
            continue
        for tp, o in g["offsets"].items():
            topic, _, p = tp.rpartition("-")
            out[(group, topic, int(p))] = o
    return out


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", SHARE_VERSION_PARAMS)
def test_share_group_state_equals_admin(version, state):
    want = broker_share_offsets(version)
    assert want, "the scenario has a share group"
    table = kvlog.share_group_state(F.data_dir(version, state))
    got = {(r["group"], r["topic"], r["partition"]): r for r in table.to_pylist()}
    assert set(got) == set(want)
    for k, w in want.items():
        g = got[k]
        if w.get("offset", 0) is None:   # initialised, never consumed: the admin client reports no offset
            assert g["start_offset"] is None, k
        else:
            assert (g["start_offset"], g["leader_epoch"]) == (w["start_offset"], w["leader_epoch"]), k
        assert g["state_epoch"] >= 1 and g["topic_id"] == F.truth(version)["metadata"]["topics"][k[1]]["topic_id"]


@pytest.mark.parametrize("version", SHARE_VERSION_PARAMS)
def test_groups_share_cli_equals_admin(version):
    """``kvlog groups --share --json``: the start offsets and log end offsets; the lag (Kafka 4.2+: log end
    offset - start offset - delivery-complete count) where the records carry that count (4.4.0's do, 4.1.2's
    do not), compared with the admin client's when the scenario recorded it."""
    data = F.data_dir(version, "clean")
    r = subprocess.run([sys.executable, "-m", "kvlog", "groups", str(data), "--share", "--json"],
                       capture_output=True, text=True, check=True)
    rows = {(d["group"], d["topic"], d["partition"]): d for d in map(json.loads, r.stdout.splitlines())}
    want = broker_share_offsets(version)
    latest = F.truth(version)["offsets"]
    assert set(rows) == set(want)
    for k, w in want.items():
        row = rows[k]
        assert row["start_offset"] == w.get("start_offset"), k
        assert row["log_end_offset"] == latest[f"{k[1]}-{k[2]}"]["latest"]["offset"], k
        if "lag" in w:   # SharePartitionOffsetInfo.lag() (4.2+ clients), when the scenario records it
            assert row["lag"] == w["lag"], k
        elif version_tuple(version) >= (4, 2) and row["start_offset"] is not None:
            done = row["delivery_complete_count"]
            assert done is not None and row["lag"] == row["log_end_offset"] - row["start_offset"] - done, k
        else:
            assert row["lag"] is None, k
