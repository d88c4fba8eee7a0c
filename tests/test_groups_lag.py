"""``kvlog groups`` as Kafka's ``kafka-consumer-groups --describe`` computes and reports it.

``ConsumerGroupCommand.getLag``: LAG = LOG-END-OFFSET - CURRENT-OFFSET, unclamped, so a commit past the
log end shows a negative lag. A group without a committed offset has no row: Kafka's tool prints no table
for it (``shouldPrintMemberState`` wants at least one row) and a line on stderr; kvlog says on stderr that
the group has no committed offsets, instead of printing nothing.
"""

from __future__ import annotations

import json

from kvlog import Log, Record
from kvlog.cli import main
from kvlog.internal_topics.decoders import encode_coordinator_record

T0 = 1_700_000_000_000
CO = "__consumer_offsets"


def run(capfd, *argv):
    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out.splitlines(), err.splitlines()


def commit(group, partition, offset, ts):
    k, v = encode_coordinator_record(CO, 1, {"group": group, "topic": "orders", "partition": partition}, 3,
                                     {"offset": offset, "leaderEpoch": 0, "metadata": "", "commitTimestamp": ts})
    return Record(k, v, ts)


def uncommit(group, partition, ts):
    k, _ = encode_coordinator_record(CO, 1, {"group": group, "topic": "orders", "partition": partition})
    return Record(k, None, ts)


def group(name, ts, alive=True):
    value = {"protocolType": "consumer", "generation": 1, "protocol": "range", "leader": "m",
             "currentStateTimestamp": ts, "members": []}
    k, v = encode_coordinator_record(CO, 2, {"group": name}, 3, value if alive else None)
    return Record(k, v if alive else None, ts)


def data_dir(tmp_path, records):
    root = tmp_path / "data"
    with Log.open(root / "orders-0") as log:
        log.append([Record(b"k", b"v", T0 + i) for i in range(10)])
    with Log.open(root / f"{CO}-0") as log:
        log.append(records)
    return root


def test_a_commit_past_the_log_end_shows_a_negative_lag(tmp_path, capfd):
    root = data_dir(tmp_path, [commit("ahead", 0, 15, T0 + 100), commit("behind", 0, 4, T0 + 100)])
    rc, out, err = run(capfd, "groups", root)
    assert (rc, err) == (0, [])
    assert out == [
        "GROUP  TOPIC  PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG LEADER-EPOCH COMMIT-TIME              METADATA",
        "ahead  orders 0         15             10             -5  0            2023-11-14T22:13:20.100Z -",
        "behind orders 0         4              10             6   0            2023-11-14T22:13:20.100Z -",
    ]
    rc, out, _ = run(capfd, "groups", root, "--group", "ahead", "--json")
    (row,) = [json.loads(line) for line in out]
    assert (rc, row["committed_offset"], row["log_end_offset"], row["lag"]) == (0, 15, 10, -5)


def test_a_group_without_commits_is_reported_not_silent(tmp_path, capfd):
    root = data_dir(tmp_path, [group("idle", T0),
                               group("gone", T0), commit("gone", 0, 3, T0 + 1),  # then DeleteGroups:
                               uncommit("gone", 0, T0 + 2), group("gone", T0 + 2, alive=False),
                               group("emptied", T0), commit("emptied", 0, 2, T0), uncommit("emptied", 0, T0 + 3),
                               group("busy", T0), commit("busy", 0, 7, T0 + 4)])
    rc, out, err = run(capfd, "groups", root)
    assert rc == 0 and [line.split()[:6] for line in out] == [
        ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG"],
        ["busy", "orders", "0", "7", "10", "3"]]
    # the deleted group is not mentioned; the two without commits are, on stderr
    assert err == [f"kvlog: consumer group 'emptied' has no committed offsets in {root}",
                   f"kvlog: consumer group 'idle' has no committed offsets in {root}"]
    rc, out, err = run(capfd, "groups", root, "--json")
    assert rc == 0 and [json.loads(line)["group"] for line in out] == ["busy"] and len(err) == 2


def test_only_groups_without_commits(tmp_path, capfd):
    root = data_dir(tmp_path, [group("idle", T0)])
    rc, out, err = run(capfd, "groups", root)
    assert (rc, out, err) == (0, [], [f"kvlog: consumer group 'idle' has no committed offsets in {root}"])
    # before its commit existed (--as-of), a group that has one now had none
    root = data_dir(tmp_path / "b", [group("late", T0), commit("late", 0, 5, T0 + 1000)])
    rc, out, err = run(capfd, "groups", root, "--as-of", T0 + 500)
    assert (rc, out, err) == (0, [], [f"kvlog: consumer group 'late' has no committed offsets in {root}"])


def test_asking_for_one_group(tmp_path, capfd):
    root = data_dir(tmp_path, [group("idle", T0), commit("busy", 0, 7, T0 + 4)])
    rc, out, err = run(capfd, "groups", root, "--group", "idle")
    assert (rc, out, err) == (1, [], [f"kvlog: consumer group 'idle' has no committed offsets in {root}"])
    rc, out, err = run(capfd, "groups", root, "--group", "nobody")
    assert (rc, out) == (1, []) and err == [
        f"kvlog: consumer group 'nobody' does not exist in {root} (no committed offsets, no group metadata)"]
