"""kvlog reads a real cluster's brokers' directories as the cluster served them (issue 50, items 1 and 2).

Three brokers of Kafka 3.7 (ZooKeeper), 4.1 (KRaft, combined) and 4.4 (KRaft, a separate controller), two log
directories each, RF 3 (tests/kafka_oracle/cluster_scenario.py) are copied in the states a replica goes through:
every replica alike, one lagging behind a stopped broker, a partition reassigned and one half-moved between log
directories (``-future``), replicas diverged by an unclean election, every broker stopped, every broker running.
In each state the Java consumer's answer (``truth.json``: records in both isolation levels, high watermarks,
groups' committed offsets) is what kvlog must give from the copies alone, with every broker's directories given
at once, in any order; diverged replicas must be refused by name, or read as the cluster served them with
``divergent="newest"``. Both Spark engines must give kvlog.scan's rows on the same copies."""

from __future__ import annotations

import random
from typing import Any

import pytest

import kvlog
from kvlog.cluster import Cluster
from kvlog.errors import DivergentReplicasError
from tests.kafka_oracle import cluster_scenario as CS
from tests.kafka_oracle.client import unb64
from tests.test_broker_cluster_harness import scenario, truth

pytestmark = [pytest.mark.broker, pytest.mark.xdist_group("cluster-harness")]
VERSIONS = [pytest.param(v, id=f"kafka-{v}") for v in CS.VERSIONS]
#: (version, state) of every copy the cluster lives keep: ``running`` for the versions of CS.RUNNING_COPY only
COPIES = [pytest.param(v, s, id=f"kafka-{v}-{s}") for v in CS.VERSIONS
          for s in ("lagging", "future", "clean", *(("running",) if v in CS.RUNNING_COPY else ()))]


def log_dirs(version: str, state: str, shuffle: int | None = None) -> list[str]:
    """Every log directory of every broker in ``state`` (``broker-<id>/data<i>``), shuffled by seed ``shuffle``."""
    dirs = sorted(str(d) for d in (scenario(version) / state).glob("broker-*/data*"))
    if shuffle is not None:
        random.Random(shuffle).shuffle(dirs)
    return dirs


def served(version: str, state: str, isolation: str) -> dict[str, list[tuple]]:
    """What the consumer read in ``state``: per partition led then, its records (offset, timestamp, key, value,
    headers)."""
    t = truth(version)
    out = {}
    for tp in t["states"][state]["partitions"]:
        got = CS.records(t, state, isolation, tp)
        if got is not None:
            out[tp] = [(r["offset"], r["timestamp"], unb64(r["key"]), unb64(r["value"]),
                        tuple((k, unb64(v)) for k, v in r["headers"])) for r in got["records"]]
    return out


def read(source: Any, topics: list[str], isolation: str) -> dict[str, list[tuple]]:
    t = kvlog.scan(source, topics, threads=1, read_committed=isolation == "read_committed").read_all()
    out: dict[str, list[tuple]] = {}
    cols = [t.column(c).to_pylist() for c in ("topic", "partition", "offset", "timestamp", "key", "value", "headers")]
    for topic, p, off, ts, key, value, headers in zip(*cols):
        ms = int(ts.timestamp() * 1000) if ts is not None else None
        out.setdefault(f"{topic}-{p}", []).append(
            (off, ms, key, value, tuple((h["key"], h["value"]) for h in headers or ())))
    return out


def topics_of(want: dict[str, list[tuple]]) -> list[str]:
    return sorted({tp.rsplit("-", 1)[0] for tp in want})


@pytest.mark.parametrize(("version", "state"), COPIES)
def test_the_cluster_reads_as_it_served(version, state):
    for seed, isolation in ((None, "read_uncommitted"), (7, "read_committed")):
        want = served(version, state, isolation)
        got = read(log_dirs(version, state, seed), topics_of(want), isolation)
        for tp in want:  # a partition empty on every replica has no rows
            got.setdefault(tp, [])
        assert got.keys() == want.keys()
        for tp in sorted(want):
            assert got[tp] == want[tp], f"{state} {isolation} {tp}: {len(got[tp])} rows, the cluster served " \
                f"{len(want[tp])}"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("state", ["lagging", "future", "diverged", "clean"])
def test_each_partition_from_one_replica_to_the_high_watermark(version, state):
    t = truth(version)
    s = t["states"][state]
    with Cluster(log_dirs(version, state), divergent="newest") as c:
        for tp, part in sorted(s["partitions"].items()):
            if tp in s["unread"]:
                continue
            topic, p = tp.rsplit("-", 1)
            assert c.end_offset(topic, int(p)) == part["high_watermark"], (state, tp)
            chosen = c.partition(topic, int(p))
            assert chosen.chosen.directory.broker in part["replicas"], (state, tp, str(chosen.chosen))
            assert not chosen.chosen.path.endswith("-future")


@pytest.mark.parametrize("version", VERSIONS)
def test_the_lagging_replica_is_not_what_is_read(version):
    t = truth(version)
    lag = t["lagging"]
    topic, p = lag["partition"].rsplit("-", 1)
    dirs = log_dirs(version, "lagging")
    stopped = [d for d in dirs if f"/broker-{lag['stopped']}/" in d]
    assert kvlog.scan(stopped, topic).read_all().num_rows == lag["end_before"]  # its replica alone: shorter
    with Cluster(dirs) as c:
        assert c.partition(topic, int(p)).chosen.directory.broker != lag["stopped"]
        assert c.end_offset(topic, int(p)) == lag["end_after"]


@pytest.mark.parametrize("version", VERSIONS)
def test_diverged_replicas_are_refused_by_name_or_read_as_the_new_leader_served(version):
    t = truth(version)
    div = t["diverged"]
    topic, p = div["partition"].rsplit("-", 1)
    dirs = log_dirs(version, "diverged", shuffle=3)
    with pytest.raises(DivergentReplicasError) as e:
        kvlog.scan(dirs, topic).read_all()
    assert (e.value.topic, e.value.partition) == (topic, int(p))
    assert f"broker {div['old_leader']}" in str(e.value)
    assert f"offsets {div['common_end']}..{div['lost_end']}" in str(e.value)
    want = served(version, "diverged", "read_uncommitted")[div["partition"]]
    assert read(Cluster(dirs, divergent="newest"), [topic], "read_uncommitted")[div["partition"]] == want
    lost = {unb64(r["value"]) for r in div["lost"]}
    assert lost and not lost & {v for *_, v, _h in want}
    # the old leader's replica alone still reads as it is: the records the cluster lost
    alone = [d for d in dirs if f"/broker-{div['old_leader']}/" in d]
    old = read(alone, [topic], "read_uncommitted")[div["partition"]]
    assert {v for *_, v, _h in old} >= lost
    # the other topics of the same copies read as the cluster served them
    others = {tp: rows for tp, rows in served(version, "diverged", "read_uncommitted").items()
              if not tp.startswith(f"{topic}-")}
    got = read(dirs, topics_of(others), "read_uncommitted")
    assert {tp: got.get(tp, []) for tp in others} == others


@pytest.mark.parametrize("version", VERSIONS)
def test_groups_committed_offsets_from_every_brokers_directories(version):
    t = truth(version)
    table = kvlog.consumer_offsets(log_dirs(version, "clean", shuffle=5))
    got: dict[str, dict[str, tuple]] = {}
    for row in table.to_pylist():
        got.setdefault(row["group"], {})[f"{row['topic']}-{row['partition']}"] = \
            (row["committed_offset"], row["leader_epoch"], row["metadata"])
    want = {g: {tp: (o["offset"], o["leader_epoch"], o["metadata"]) for tp, o in d["offsets"].items()}
            for g, d in t["groups"].items()}
    assert got == want


@pytest.mark.spark
@pytest.mark.parametrize("version", [pytest.param("4.4.0", id="kafka-4.4.0")])
def test_both_spark_engines_read_the_cluster_as_kvlog_scan(jvm, version):
    for state in ("lagging", "future", "running"):
        dirs = log_dirs(version, state, shuffle=11)
        want = served(version, state, "read_committed")
        topics = [x for x in topics_of(want) if not x.startswith("__")]
        rows = sorted((tp, r[0], r[3]) for tp, rs in want.items() for r in rs if not tp.startswith("__"))
        for fmt in ("kvlog", "kvlog_python"):
            df = (jvm.read.format(fmt).option("subscribe", ",".join(topics))
                  .option("kafka.isolation.level", "read_committed").load(dirs))
            got = sorted((f"{x.topic}-{x.partition}", x.offset, bytes(x.value) if x.value is not None else None)
                         for x in df.select("topic", "partition", "offset", "value").collect())
            assert got == rows, (fmt, state)


@pytest.mark.parametrize("version", VERSIONS)
def test_polars_duckdb_and_the_cli_read_the_cluster_as_it_served(version, capfd):
    """The other readers over the same copies (every broker's directories, shuffled): Polars' LazyFrame and
    DuckDB's source (each partition's rows and their end), and ``kvlog groups`` (the committed offsets)."""
    import duckdb
    import polars as pl

    import kvlog.duckdb
    import kvlog.polars
    from kvlog.cli import main as cli

    want = served(version, "clean", "read_uncommitted")
    topics = [t for t in topics_of(want) if not t.startswith("__")]
    dirs = log_dirs(version, "clean", shuffle=13)
    counts = {tp: len(rows) for tp, rows in want.items() if not tp.startswith("__")}
    df = kvlog.polars.scan_kafka(dirs, topics).group_by("topic", "partition").agg(
        pl.len().alias("n"), pl.col("offset").max().alias("last")).collect()
    got = {f"{r['topic']}-{r['partition']}": r["n"] for r in df.to_dicts()}
    assert {tp: got.get(tp, 0) for tp in counts} == counts
    for r in df.to_dicts():
        assert r["last"] == want[f"{r['topic']}-{r['partition']}"][-1][0]
    con = duckdb.connect()
    kvlog.duckdb.register(con, "c", dirs, topics)
    rows = con.sql('select topic, "partition", count(*), max("offset") from c group by all').fetchall()
    assert {f"{t}-{p}": n for t, p, n, _ in rows} == {tp: n for tp, n in counts.items() if n}
    assert all(last == want[f"{t}-{p}"][-1][0] for t, p, _, last in rows)
    assert cli(["groups", *dirs]) == 0
    out = capfd.readouterr().out
    for group, d in truth(version)["groups"].items():
        for tp, o in d["offsets"].items():
            topic, p = tp.rsplit("-", 1)
            assert any(line.split()[:4] == [group, topic, p, str(o["offset"])] for line in out.splitlines()), \
                (group, tp, out)
