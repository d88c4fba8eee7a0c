"""Both Spark engines read several brokers' data directories as one cluster, as kvlog.scan reads them
(kvlog.cluster): each partition once, from the same replica, to the same committed end; diverged replicas refused
with the same message, or read as the newest leader's with kvlog.divergentReplicas=newest."""

from __future__ import annotations

import pytest

import kvlog
from tests.test_cluster_read import broker, records

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("spark-cluster")
    full = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 70), 2)] for p in range(3)}
    lagging = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 50), 2)] for p in range(3)}
    leader = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 75), 2)] for p in range(3)}  # 5 unreplicated
    hw = {("t", p): 68 for p in range(3)}
    dirs = [broker(root, 1, leader, hw=hw), broker(root, 2, full, hw=hw), broker(root, 3, lagging, hw=hw)]
    old = {("d", 0): [(records(0, 0, 20), 1), (records(0, 20, 30, b"-lost"), 1)]}
    new = {("d", 0): [(records(0, 0, 20), 1), (records(0, 20, 25, b"-new"), 2)]}
    diverged = [broker(root / "div", 1, old), broker(root / "div", 2, new), broker(root / "div", 3, new)]
    return [str(d) for d in dirs], [str(d) for d in diverged]


def read(spark, fmt, paths, topic, **options):
    r = spark.read.format(fmt).option("subscribe", topic)
    for k, v in options.items():
        r = r.option(k, v)
    return sorted((x.partition, x.offset, bytes(x.value)) for x in r.load(paths).collect())


def test_both_engines_read_the_cluster_as_kvlog_scan_does(jvm, cluster):
    dirs, _ = cluster
    t = kvlog.scan(dirs, "t").read_all()
    want = sorted(zip(t.column("partition").to_pylist(), t.column("offset").to_pylist(), t.column("value").to_pylist()))
    assert len(want) == 3 * 70  # (the leader's 5 unreplicated records past what two replicas hold: not read)
    for fmt in ("kvlog", "kvlog_python"):
        assert read(jvm, fmt, dirs, "t") == want, fmt
        assert read(jvm, fmt, dirs[::-1], "t") == want, fmt


def test_diverged_replicas_are_refused_alike_or_read_as_the_newest(jvm, cluster):
    _, dirs = cluster
    for fmt in ("kvlog", "kvlog_python"):
        with pytest.raises(Exception, match=r"the replicas of d-0 have diverged: broker 1 .* holds offsets 20\.\.30"):
            read(jvm, fmt, dirs, "d")
        got = read(jvm, fmt, dirs, "d", **{"kvlog.divergentReplicas": "newest"})
        assert len(got) == 25 and got[-1][2].endswith(b"-new"), fmt
    with pytest.raises(Exception, match="kvlog.divergentReplicas"):
        read(jvm, "kvlog", dirs, "d", **{"kvlog.divergentReplicas": "oldest"})


def test_replicas_of_different_topics_are_refused_alike(jvm, tmp_path):
    from tests.test_cluster_read import broker

    dirs = [broker(tmp_path, n, {("s", 0): [(records(0, 0, 10), 0)]}) for n in (1, 2)]
    (dirs[0] / "s-0" / "partition.metadata").write_text("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n")
    for fmt in ("kvlog", "kvlog_python"):
        with pytest.raises(Exception, match=r"the replicas of s-0 belong to different topics"):
            read(jvm, fmt, [str(d) for d in dirs], "s")
