"""Topic configs resolved from where a broker keeps them (the KRaft metadata log and snapshot, then
kvlog-topics.json, then Kafka's built-in and default configs), applied by ``kvlog retention``/``compact``,
``LogManager`` and the Spark maintenance plan and tasks, and the rules that keep maintenance off Kafka's
internal topics. The broker-shaped directories are written with kvlog's own logs and internal-topic
encoders; the real KRaft segment comes from tests/data/fixtures."""

import hashlib
import json
import os
import shutil
import uuid

import pytest

import kvlog
from kvlog import Log, LogConfig, LogManager, Record, checkpoint
from kvlog.cli import main
from kvlog.errors import ConfigError, CorruptInternalRecordError
from kvlog.internal_topics.codec import encode, uvarint_bytes
from kvlog.internal_topics.decoders import encode_coordinator_record, encode_metadata_record
from kvlog.internal_topics.schemas_metadata import METADATA_RECORDS
from kvlog.spark import maintenance
from kvlog.topic_configs import ConfigSource, TopicConfigs, maintenance_refusal, read_kraft_configs

T0 = 1_700_000_000_000
DAY = 86_400_000
NOW = T0 + 30 * DAY
CO = "__consumer_offsets"
ORDERS = uuid.UUID(int=0x0D)
OFFSETS = uuid.UUID(int=0xC0)
GONE = uuid.UUID(int=0x99)


def meta(api_key, data, version=0):
    return Record(None, encode_metadata_record(api_key, version, data), T0)


def topic(name, topic_id):
    return meta(2, {"name": name, "topicId": topic_id})


def config(resource, name, value, rtype=2):
    return meta(4, {"resourceType": rtype, "resourceName": resource, "name": name, "value": value})


def commit(group, tp, partition, offset, ts):
    k, v = encode_coordinator_record(CO, 1, {"group": group, "topic": tp, "partition": partition}, 3,
                                     {"offset": offset, "leaderEpoch": 0, "metadata": "", "commitTimestamp": ts})
    return Record(k, v, ts)


def write_metadata(root, batches):
    with Log.open(root / "__cluster_metadata-0") as log:
        for batch in batches:
            log.append(batch)


def write_old_log(path, n=30, key=b"k", segment_bytes=400):
    """A log of ``n`` small batches, a second apart from T0, over several segments."""
    with Log.open(path, LogConfig(segment_bytes=segment_bytes)) as log:
        for i in range(n):
            log.append([Record(key, b"value-%03d" % i, T0 + i * 1000)])


def broker_dir(root):
    """A stopped KRaft broker's log.dirs, as the issue describes: metadata setting cleanup.policy=compact
    for __consumer_offsets and retention.ms for orders (and a segment.bytes later deleted), group commits
    in __consumer_offsets-6 over several segments, an ordinary topic, a topic without configs, an internal
    topic the metadata does not list, meta.properties and the root checkpoint files."""
    root.mkdir()
    write_metadata(root, [
        [topic("orders", ORDERS), topic(CO, OFFSETS), topic("gone", GONE)],
        [config(CO, "cleanup.policy", "compact"), config(CO, "compression.type", "producer"),
         config("orders", "retention.ms", "5000"), config("orders", "segment.bytes", "1048576"),
         config("gone", "retention.ms", "1"),
         config("", "log.cleaner.delete.retention.ms", "1234", rtype=4),
         config("1", "log.cleaner.min.compaction.lag.ms", "7", rtype=4),
         config("2", "log.cleaner.min.compaction.lag.ms", "8", rtype=4)],
        [config("orders", "segment.bytes", None), meta(9, {"topicId": GONE})],
    ])
    with Log.open(root / f"{CO}-6", LogConfig(segment_bytes=600)) as log:
        for i in range(40):
            log.append([commit("g", "orders", i % 2, i, T0 + i * 1000)])
    write_old_log(root / "orders-0")
    write_old_log(root / "plain-0")
    write_old_log(root / "__share_group_state-0", key=b"share")
    (root / "meta.properties").write_text("#\nversion=1\ncluster.id=abc\nnode.id=1\n")
    offsets = {}
    for name in os.listdir(root):
        if "-" in name and (root / name).is_dir():
            t, _, p = name.rpartition("-")
            with Log.open(root / name, read_only=True) as log:
                offsets[(t, int(p))] = log.log_end_offset
    for name in (checkpoint.RECOVERY_POINT, checkpoint.REPLICATION_OFFSET):
        checkpoint.write_offsets(str(root / name), offsets)
    checkpoint.write_offsets(str(root / checkpoint.LOG_START_OFFSET), {tp: 0 for tp in offsets})
    return root


def digest(path):
    """Every file of a directory by name -> content hash: what must not change."""
    return {n: hashlib.sha256((path / n).read_bytes()).hexdigest() for n in sorted(os.listdir(path))}


def tree(root):
    return {name: digest(root / name) for name in sorted(os.listdir(root)) if (root / name).is_dir()}


def run(capfd, *argv):
    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out.splitlines(), err.splitlines()


def line(out, label):
    (found,) = [x for x in out if x.startswith(f"{label}: ")]
    return found


# ================================================================================== resolution
def test_precedence_and_sources(tmp_path):
    root = broker_dir(tmp_path / "data")
    (root / "kvlog-topics.json").write_text(json.dumps({
        "orders": {"partitions": 1, "config": {"retention.ms": "99", "max.message.bytes": "2000"}}}))
    configs = TopicConfigs.load(root)
    assert configs.kraft is not None and configs.kraft.topics == {"orders", CO} and configs.kraft.node_id == 1
    orders = configs.resolve("orders")
    assert orders.config.retention_ms == 5000 and orders.source("retention.ms") is ConfigSource.KRAFT_METADATA
    assert orders.config.max_message_bytes == 2000 and orders.source("max.message.bytes") is ConfigSource.KVLOG
    # segment.bytes was set, then deleted by a null ConfigRecord: Kafka's default again
    assert orders.config.segment_bytes == 1 << 30 and orders.source("segment.bytes") is ConfigSource.KAFKA_DEFAULT
    # broker-level dynamic configs through their synonyms: the cluster default, and node 1's (not node 2's)
    assert str(orders.values["delete.retention.ms"]) == \
        "delete.retention.ms=1234 (kraft-metadata: cluster default log.cleaner.delete.retention.ms)"
    assert str(orders.values["min.compaction.lag.ms"]) == \
        "min.compaction.lag.ms=7 (kraft-metadata: node 1 log.cleaner.min.compaction.lag.ms)"
    assert orders.in_metadata is True
    offsets = configs.resolve(CO)
    assert offsets.config.compact and not offsets.config.delete
    assert offsets.source("cleanup.policy") is ConfigSource.KRAFT_METADATA
    # listed by the metadata, so Kafka's creation-time built-ins are not guessed: segment.bytes is the default
    assert offsets.source("segment.bytes") is ConfigSource.KAFKA_DEFAULT
    # not in the metadata: Kafka's built-in configs
    txn = configs.resolve("__transaction_state")
    assert txn.config.compact and txn.source("cleanup.policy") is ConfigSource.INTERNAL_TOPIC_DEFAULT
    assert txn.config.compression_type == "uncompressed" and txn.config.segment_bytes == 100 << 20
    share = configs.resolve("__share_group_state")
    assert share.config.cleanup_policy == ("delete",) and share.in_metadata is False
    raft = configs.resolve("__cluster_metadata")
    assert raft.config.retention_ms == -1 and raft.config.retention_bytes == -1
    # the removed topic's configs went with it
    gone = configs.resolve("gone")
    assert gone.config.retention_ms == 604800000 and gone.in_metadata is False
    # per-run overrides win for ordinary topics, and reach internal ones only when forced
    assert configs.resolve("orders", {"retention.ms": "1"}).source("retention.ms") is ConfigSource.OVERRIDE
    held = configs.resolve(CO, {"cleanup.policy": "delete"})
    assert held.config.compact and held.ignored_overrides == ("cleanup.policy=delete",)
    assert "overrides not applied to internal topic __consumer_offsets" in held.explain(["cleanup.policy"])
    assert configs.resolve(CO, {"cleanup.policy": "delete"}, force_internal=True).config.cleanup_policy == ("delete",)


def test_snapshot_then_the_log_after_it(tmp_path):
    d = tmp_path / "__cluster_metadata-0"
    write_metadata(tmp_path, [[topic("early", ORDERS)], [config("early", "retention.ms", "1")],
                              [config("early", "cleanup.policy", "compact")]])
    snap = kvlog.encode_batch([topic("t", ORDERS), config("t", "retention.ms", "777"),
                               config("t", "retention.bytes", "5")])
    (d / f"{2:020d}-{1:010d}.checkpoint").write_bytes(snap)
    write_metadata(tmp_path, [[config("t", "retention.bytes", None)]])  # offset 3: after the snapshot
    kraft = read_kraft_configs(tmp_path)
    assert kraft is not None and kraft.topics == {"t"}
    # the snapshot replaces offsets 0-1; the log applies from its end offset (2) on: offsets 2 and 3
    assert kraft.topic_configs == {"t": {"retention.ms": "777"}, "early": {"cleanup.policy": "compact"}}
    assert read_kraft_configs(tmp_path / "__cluster_metadata-0").topic_configs == kraft.topic_configs


def test_metadata_in_another_directory_and_none_at_all(tmp_path, capfd):
    data = tmp_path / "data"
    write_old_log(data / "orders-0")
    write_metadata(tmp_path / "meta", [[topic("orders", ORDERS), config("orders", "retention.ms", "5000")]])
    assert read_kraft_configs(data) is None
    assert TopicConfigs.load(data).resolve("orders").source("retention.ms") is ConfigSource.KAFKA_DEFAULT
    assert TopicConfigs.load(data, metadata_dir=tmp_path / "meta").resolve("orders").config.retention_ms == 5000
    with pytest.raises(ConfigError, match="no __cluster_metadata-0"):
        read_kraft_configs(data, metadata_dir=data)
    rc, out, _ = run(capfd, "retention", data, "--now", NOW, "--dry-run", "--metadata-dir", tmp_path / "meta")
    assert rc == 0 and "retention.ms=5000 (kraft-metadata)" in line(out, "orders-0")


def _raw_metadata(api_key, version, body):
    return Record(None, b"".join(uvarint_bytes(n) for n in (1, api_key, version)) + body, T0)


def test_damaged_metadata_is_a_typed_error_not_a_guess(tmp_path, capfd):
    good = encode(METADATA_RECORDS[4], 0, {"resourceType": 2, "resourceName": "t", "name": "retention.ms",
                                            "value": "1"})
    cases = {
        "malformed": [_raw_metadata(4, 0, good[:-3])],
        "unknown ConfigRecord version": [_raw_metadata(4, 1, good)],
    }
    for name, records in cases.items():
        root = tmp_path / name.replace(" ", "_")
        write_old_log(root / "t-0")
        write_metadata(root, [[topic("t", ORDERS)], records])
        with pytest.raises(CorruptInternalRecordError) as info:
            TopicConfigs.load(root)
        assert info.value.partition == "__cluster_metadata-0", name
        before = tree(root)
        rc, out, err = run(capfd, "retention", root, "--now", NOW)
        assert rc == 1 and out == [] and err[0].startswith("kvlog: "), name
        assert tree(root) == before
    # records of a type kvlog does not know (a newer broker's) do not decide configs: noted, not fatal
    root = tmp_path / "newer"
    write_metadata(root, [[topic("t", ORDERS), _raw_metadata(99, 0, b"\x00"), config("t", "retention.ms", "3")]])
    assert TopicConfigs.load(root).resolve("t").config.retention_ms == 3
    # a metadata log whose first segments are gone, with no snapshot covering them
    root = tmp_path / "cleaned"
    with Log.open(root / "__cluster_metadata-0", LogConfig(segment_bytes=300)) as log:
        for i in range(20):
            log.append([config("t", "retention.ms", str(i))])
        first = log.segments[0].base_offset
    for ext in (".log", ".index", ".timeindex"):
        (root / "__cluster_metadata-0" / f"{first:020d}{ext}").unlink(missing_ok=True)
    with pytest.raises(CorruptInternalRecordError, match="no snapshot covers"):
        TopicConfigs.load(root)
    # a value Kafka would not accept names its source
    root = tmp_path / "bad-value"
    write_metadata(root, [[topic("t", ORDERS), config("t", "retention.ms", "soon")]])
    with pytest.raises(ConfigError, match=r"retention.ms.*kraft-metadata"):
        TopicConfigs.load(root).resolve("t")


def test_maintenance_refusal_rules():
    assert maintenance_refusal("orders", "retention") is None
    assert maintenance_refusal(CO, "compact") is None
    assert "internal topic" in maintenance_refusal(CO, "retention")
    assert maintenance_refusal(CO, "retention", force_internal=True) is None
    for action in ("retention", "compact"):
        assert "Raft" in maintenance_refusal("__cluster_metadata", action, force_internal=True)
    with pytest.raises(ValueError):
        maintenance_refusal("orders", "mirror")


# ========================================================================================== CLI
def test_retention_dry_run_and_run_on_a_broker_directory(tmp_path, capfd):
    root = broker_dir(tmp_path / "data")
    groups = kvlog.consumer_offsets(root).to_pylist()
    before = tree(root)
    rc, out, _ = run(capfd, "retention", root, "--now", NOW, "--dry-run")
    assert rc == 0 and tree(root) == before
    assert line(out, "__cluster_metadata-0").startswith("__cluster_metadata-0: skipped (__cluster_metadata is "
                                                       "KRaft's Raft log")
    assert line(out, f"{CO}-6").startswith(f"{CO}-6: skipped ({CO} is an internal topic; retention never deletes")
    assert "cleanup.policy=compact (kraft-metadata)" in line(out, f"{CO}-6")
    assert "skipped" in line(out, "__share_group_state-0")
    orders = line(out, "orders-0")
    assert ": would delete " in orders and orders.endswith(
        "[cleanup.policy=delete (kafka-default), retention.ms=5000 (kraft-metadata), retention.bytes=-1 "
        "(kafka-default)]")
    assert "retention.ms=604800000 (kafka-default)" in line(out, "plain-0")
    planned = orders.split(": would delete ")[1]
    rc, out, _ = run(capfd, "retention", root, "--now", NOW)
    assert rc == 0 and line(out, "orders-0").split(": deleted ")[1] == planned
    after = tree(root)
    for name in ("__cluster_metadata-0", f"{CO}-6", "__share_group_state-0"):
        assert after[name] == before[name], name
    assert after["orders-0"] != before["orders-0"]
    assert kvlog.consumer_offsets(root).to_pylist() == groups
    with Log.open(root / "orders-0", read_only=True) as log:
        assert log.log_start_offset > 0


def test_forced_retention_reaches_internal_topics_but_never_the_raft_log(tmp_path, capfd):
    root = broker_dir(tmp_path / "data")
    before = tree(root)
    args = ("retention", root, "--now", NOW, "--force-internal", "--config", "cleanup.policy=delete",
            "retention.ms=1000")
    rc, out, _ = run(capfd, *args, "--dry-run")
    assert rc == 0 and ": would delete " in line(out, f"{CO}-6")
    assert "cleanup.policy=delete (override)" in line(out, f"{CO}-6")
    rc, out, _ = run(capfd, *args)
    assert rc == 0 and ": deleted " in line(out, f"{CO}-6")
    assert "skipped (__cluster_metadata is KRaft's Raft log" in line(out, "__cluster_metadata-0")
    after = tree(root)
    assert after["__cluster_metadata-0"] == before["__cluster_metadata-0"] and after[f"{CO}-6"] != before[f"{CO}-6"]
    rc, out, _ = run(capfd, "retention", root / "__cluster_metadata-0", "--force-internal", "--now", NOW)
    assert rc == 0 and "skipped" in out[0] and tree(root)["__cluster_metadata-0"] == before["__cluster_metadata-0"]


def test_compact_follows_the_kraft_config_of_consumer_offsets(tmp_path, capfd):
    root = broker_dir(tmp_path / "data")
    groups = kvlog.consumer_offsets(root).to_pylist()
    raft = digest(root / "__cluster_metadata-0")
    with Log.open(root / f"{CO}-6", read_only=True) as log:
        records_before = sum(1 for _ in log.records())
    rc, out, _ = run(capfd, "compact", root / f"{CO}-6", "--now", NOW)
    assert rc == 0 and "skipped" not in out[0] and out[0].startswith(f"{root / CO}-6: cleaned ")
    assert "cleanup.policy=compact (kraft-metadata)" in out[0]
    with Log.open(root / f"{CO}-6", read_only=True) as log:
        assert sum(1 for _ in log.records()) < records_before
    assert kvlog.consumer_offsets(root).to_pylist() == groups
    rc, out, _ = run(capfd, "compact", root, "--now", NOW, "--config", "cleanup.policy=compact")
    assert rc == 0
    assert "is KRaft's Raft log" in line(out, "__cluster_metadata-0")
    share = line(out, "__share_group_state-0")  # the override does not reach an internal topic
    assert "skipped (cleanup.policy=delete is not compact)" in share
    assert "overrides not applied to internal topic __share_group_state: cleanup.policy=compact" in share
    assert "cleanup.policy=compact (override)" in line(out, "plain-0") and "cleaned" in line(out, "plain-0")
    assert digest(root / "__cluster_metadata-0") == raft
    rc, out, _ = run(capfd, "compact", root / "orders-0")
    assert rc == 0 and out[0].endswith("skipped (cleanup.policy=delete is not compact) [cleanup.policy=delete "
                                       "(kafka-default), min.cleanable.dirty.ratio=0.5 (kafka-default), "
                                       "delete.retention.ms=1234 (kraft-metadata: cluster default "
                                       "log.cleaner.delete.retention.ms), min.compaction.lag.ms=7 (kraft-metadata: "
                                       "node 1 log.cleaner.min.compaction.lag.ms)]")


def test_the_real_kraft_segment(tmp_path, kraft_segment, capfd):
    root = tmp_path / "data"
    (root / "__cluster_metadata-0").mkdir(parents=True)
    shutil.copyfile(kraft_segment, root / "__cluster_metadata-0" / kraft_segment.name)
    write_old_log(root / "saz-0")
    configs = TopicConfigs.load(root)
    assert configs.kraft.topics == {"saz"} and configs.resolve("saz").in_metadata is True
    raft = digest(root / "__cluster_metadata-0")
    rc, out, _ = run(capfd, "retention", root, "--now", NOW, "--dry-run")
    assert rc == 0 and "skipped (__cluster_metadata is KRaft's Raft log" in line(out, "__cluster_metadata-0")
    assert ": would delete " in line(out, "saz-0") and "retention.ms=604800000 (kafka-default)" in line(out, "saz-0")
    for argv in (("retention", root, "--now", NOW), ("compact", root, "--now", NOW)):
        rc, out, _ = run(capfd, *argv)
        assert rc == 0 and "skipped" in line(out, "__cluster_metadata-0")
    assert digest(root / "__cluster_metadata-0") == raft


# =================================================================================== LogManager
def test_log_manager_opens_logs_with_the_broker_configs(tmp_path):
    root = broker_dir(tmp_path / "data")
    with LogManager(root, read_only=True) as mgr:
        assert mgr.log(CO, 6).config.compact
        assert mgr.log("orders", 0).config.retention_ms == 5000
        assert mgr.resolved_config("orders").source("retention.ms") is ConfigSource.KRAFT_METADATA
        assert mgr.log("__share_group_state", 0).config.cleanup_policy == ("delete",)
    with LogManager(root, LogConfig(segment_bytes=1 << 20), read_only=True) as mgr:
        rc = mgr.resolved_config("plain")
        assert rc.config.segment_bytes == 1 << 20 and str(rc.values["segment.bytes"]) == \
            "segment.bytes=1048576 (kvlog: LogManager config)"
        assert mgr.topic_config(CO).compact and mgr.topic_config("orders").retention_ms == 5000


# ===================================================================================== Spark plan
def test_plan_maintenance_and_its_tasks_honour_the_broker_configs(tmp_path):
    root = broker_dir(tmp_path / "data")
    raft = digest(root / "__cluster_metadata-0")
    compact = maintenance.plan(str(root))
    assert [(r["topic"], r["partition"]) for r in compact] == [(CO, 6)]
    assert "cleanup.policy=compact (kraft-metadata)" in compact[0]["config"] and compact[0]["dirty_ratio"] > 0
    assert {r["topic"] for r in maintenance.plan(str(root), force=True)} == {CO, "orders", "plain"}
    forced = maintenance.plan(str(root), force=True, force_internal=True)
    assert {r["topic"] for r in forced} == {CO, "orders", "plain", "__share_group_state"}
    retention = maintenance.plan(str(root), "retention", include_skipped=True)
    work = {r["topic"]: r for r in retention if "skipped" not in r}
    skipped = {r["topic"]: r["skipped"] for r in retention if "skipped" in r}
    assert set(work) == {"orders", "plain"} and "retention.ms=5000 (kraft-metadata)" in work["orders"]["config"]
    assert set(skipped) == {"__cluster_metadata", CO, "__share_group_state"} and "Raft" in skipped["__cluster_metadata"]
    assert {r["topic"] for r in maintenance.plan(str(root), "retention", force_internal=True)} == \
        {CO, "orders", "plain", "__share_group_state"}
    # the tasks the Spark jobs run, one per planned partition, exactly as the job's reader runs them
    before = tree(root)
    options = {"path": str(root), "action": "retention", "now_ms": str(NOW)}
    rows = [maintenance._run(options, item.value) for item in maintenance._plan_work(options)]
    assert {r["topic"] for r in rows} == {"orders", "plain"} and all(r["error"] is None for r in rows)
    after = tree(root)
    assert after[f"{CO}-6"] == before[f"{CO}-6"] and after["orders-0"] != before["orders-0"]
    options = {"path": str(root), "action": "compact", "now_ms": str(NOW)}
    groups = kvlog.consumer_offsets(root).to_pylist()
    rows = [maintenance._run(options, item.value) for item in maintenance._plan_work(options)]
    assert [(r["topic"], r["error"]) for r in rows] == [(CO, None)] and rows[0]["records_retained"] < rows[0]["records_read"]
    assert kvlog.consumer_offsets(root).to_pylist() == groups
    # a hand-made task for the Raft log is refused, forced or not
    props = LogConfig().to_properties()
    for action in ("retention", "compact"):
        row = maintenance._run({"action": action, "force_internal": "true"},
                               (("__cluster_metadata", 0), str(root / "__cluster_metadata-0"), props))
        assert "Raft" in row["error"]
    assert digest(root / "__cluster_metadata-0") == raft
