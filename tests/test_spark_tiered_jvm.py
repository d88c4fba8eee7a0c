"""The JVM Spark source over KIP-405 tiered storage: ``__remote_log_metadata`` decoded and replayed on the JVM
(held against ``kvlog.remote_log_metadata``), the lineage of remote pieces, and ``format("kvlog_jvm")`` reading a
topic's whole history (remote segments in Kafka's LocalTieredStorage layout below the local ones), compared row by
row with the same records read as one plain local log.
"""

from __future__ import annotations

import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kvlog
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.remote_log_metadata import replay_remote_log_metadata
from tests.test_remote_log_metadata import (
    SEG,
    T0,
    partition_delete,
    segment,
    snapshot,
    spec_encode,
    update,
    write_partition,
)

pytest.importorskip("pyspark")

from py4j.protocol import Py4JJavaError  # noqa: E402


@pytest.fixture(scope="module")
def hooks(jvm):
    return jvm._jvm.io.kvlog.spark.tiered.TieredForTests


# ------------------------------------------------------------------------------------ RLMM replay
def python_lines(root, errors="raise"):
    state = replay_remote_log_metadata(root, errors=errors)
    out = []
    for r in state.segments().to_pylist():
        out.append("\t".join(str(x) for x in (
            r["topic_id"], r["topic"], r["partition"], r["segment_id"], r["start_offset"], r["end_offset"],
            r["state"], "true" if r["in_log"] else "false", r["reason"] or "-", r["metadata_partition"],
            r["metadata_offset"])))
    return out, len(state.problems)


def java_lines(hooks, root, strict=True):
    text = hooks.replay(str(root), strict)
    lines = [ln for ln in text.splitlines() if ln]
    return [ln for ln in lines if not ln.startswith("problem\t")], sum(ln.startswith("problem\t") for ln in lines)


def same_replay(hooks, root, errors="raise"):
    assert java_lines(hooks, root, errors == "raise") == python_lines(root, errors)


REPLAYS = {
    "copy started only": [segment(0, 0, 99)],
    "finished": [segment(0, 0, 99, epochs=((0, None), (2, 40)), txn_empty=True), update(0, 1, custom=b"cm")],
    "deletes": [segment(0, 0, 99), update(0, 1), segment(1, 100, 199), update(1, 1), update(0, 2),
                segment(2, 200, 299), update(2, 1), update(2, 2), update(2, 3)],
    "illegal transitions": [segment(0, 0, 99), update(0, 3), update(0, 1), update(0, 1), update(5, 1),
                            segment(0, 0, 99)],
    "repeated copy started": [segment(0, 0, 50), segment(0, 0, 99), update(0, 1)],
    "supersession": [segment(0, 0, 100), update(0, 1), segment(1, 0, 200), update(1, 1),
                     segment(2, 201, 300, epochs=((1, None),)), update(2, 1)],
    "kept for an epoch it holds": [segment(0, 0, 99, epochs=((0, 0), (1, 50))), update(0, 1),
                                   segment(1, 50, 150, epochs=((1, 50),)), update(1, 1)],
    "versions 1": [segment(2, 0, 99, version=1, brokerLeaderEpoch=7, txnIndexEmpty=True),
                   update(2, 1, version=1, brokerLeaderEpoch=4, endOffset=99)],
}


@pytest.mark.parametrize("name", sorted(REPLAYS))
def test_the_jvm_replay_equals_the_python_replay(hooks, tmp_path, name):
    write_partition(tmp_path, 0, REPLAYS[name])
    same_replay(hooks, tmp_path)


def test_partition_deletes_across_metadata_partitions(hooks, tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99), update(0, 1), segment(1, 0, 9, partition=1),
                                  update(1, 1, partition=1), partition_delete(0), partition_delete(1),
                                  segment(2, 100, 199, partition=1)])
    write_partition(tmp_path, 1, [partition_delete(2, partition=1), segment(3, 100, 199, partition=1)])
    same_replay(hooks, tmp_path)
    same_replay(hooks, tmp_path / "__remote_log_metadata-1")


def test_refused_records_stop_the_jvm_replay_or_are_skipped(hooks, tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99), segment(1, 0, 9, state=1), snapshot(2), update(0, 7)])
    with pytest.raises(Py4JJavaError, match=r"__remote_log_metadata-0, offset 1"):
        hooks.replay(str(tmp_path), True)
    same_replay(hooks, tmp_path, errors="skip")


def test_damaged_and_unknown_records(hooks, tmp_path):
    good = spec_encode(*segment(0, 0, 99))
    log = kvlog.Log.open(tmp_path / "__remote_log_metadata-4")
    log.append([kvlog.Record(None, good, T0), kvlog.Record(None, good[:20], T0),
                kvlog.Record(None, b"\x01\x09\x00" + good[3:], T0), kvlog.Record(None, b"\x01\x00\x02" + good[3:], T0),
                kvlog.Record(None, spec_encode(*update(0, 1)), T0)])
    log.close()
    with pytest.raises(Py4JJavaError, match=r"__remote_log_metadata-4, offset 1"):
        hooks.replay(str(tmp_path), True)
    same_replay(hooks, tmp_path, errors="skip")


@st.composite
def record_sequences(draw):
    out = []
    for _ in range(draw(st.integers(1, 25))):
        i = draw(st.integers(0, 4))
        kind = draw(st.sampled_from(["segment", "update", "update", "delete"]))
        if kind == "segment":
            start = draw(st.integers(0, 300))
            epochs = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 50)), min_size=1, max_size=3))
            out.append(segment(i, start, start + draw(st.integers(0, 200)), state=draw(st.sampled_from([0, 0, 0, 1])),
                               epochs=[(e, start + o) for e, o in epochs], partition=draw(st.integers(0, 1))))
        elif kind == "update":
            out.append(update(i, draw(st.sampled_from([1, 1, 2, 3, 0])), partition=draw(st.integers(0, 1))))
        else:
            out.append(partition_delete(draw(st.integers(0, 2)), partition=draw(st.integers(0, 1))))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=record_sequences())
def test_random_sequences_replay_alike(jvm, records):
    hooks = jvm._jvm.io.kvlog.spark.tiered.TieredForTests
    root = tempfile.mkdtemp(prefix="kvlog-rlmm-")
    try:
        import pathlib

        write_partition(pathlib.Path(root), 0, records)
        same_replay(hooks, root, errors="skip")
    finally:
        shutil.rmtree(root)


def test_ids_print_as_kafka_uuids(hooks, tmp_path):
    write_partition(tmp_path, 0, [segment(3, 0, 9), update(3, 1)])
    lines, _ = java_lines(hooks, tmp_path)
    assert lines[0].split("\t")[3] == topic_id_text(SEG[3])


# ------------------------------------------------------------------------- tiered partitions
import base64  # noqa: E402
import os  # noqa: E402
import pathlib  # noqa: E402
import uuid  # noqa: E402

from kvlog import Log, LogConfig, Record  # noqa: E402
from kvlog.broker_files import read_partition_metadata, write_leader_epochs  # noqa: E402
from kvlog.tiered.local_tiered import LocalTieredStorage  # noqa: E402

TOPIC = "orders"
LAYOUT = "LocalTieredStorage"
SUFFIXES = (".log", ".index", ".timeindex", ".txnindex")
COLS = ["offset", "key", "value", "timestamp"]


def _records(lo, hi, tag="v"):
    return [Record(f"k{j}".encode(), f"{tag}{j}".encode(), T0 + j) for j in range(lo, hi)]


def write_log(pdir, rolls, end, tag="v", fork=None, txn=None):
    """A log of offsets [0, end) rolled at ``rolls``; values ``<tag><offset>`` (``fork``: (offset, tag) from
    which values take another tag); ``txn``: (first, count) offsets of one aborted transaction."""
    log = Log.open(pdir, config=LogConfig(segment_bytes=1 << 20))
    at = 0
    cuts = sorted(set(rolls) | {end})
    for cut in cuts:
        while at < cut:
            hi = min(cut, at + 10)
            if txn is not None and at == txn[0]:
                log.append(_records(at, at + txn[1], "aborted"), producer_id=77, producer_epoch=0, base_sequence=0,
                           is_transactional=True)
                log.end_transaction(77, 0, commit=False, timestamp=T0 + at)
                at += txn[1] + 1
                continue
            t = tag if fork is None or at < fork[0] else fork[1]
            log.append(_records(at, hi, t))
            at = hi
        if at < end:
            log.roll()
    log.close()


def local_bases(pdir):
    return sorted(int(n[:20]) for n in os.listdir(pdir) if n.endswith(".log") and len(n) == 24)


def topic_uuid(pdir):
    text = read_partition_metadata(str(pdir))
    return text, uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))


def copy_to_remote(pdir, remote, base, sid, old_name=False):
    """Copies the local segment at ``base`` into a LocalTieredStorage directory as segment ``sid``."""
    text, _ = topic_uuid(pdir)
    target = pathlib.Path(remote) / f"{TOPIC}-0-{text}"
    target.mkdir(parents=True, exist_ok=True)
    stem = topic_id_text(sid) if old_name else f"{base:020d}-{topic_id_text(sid)}"  # as brokers name them
    for suffix in SUFFIXES:
        src = pathlib.Path(pdir) / f"{base:020d}{suffix}"
        if src.exists():
            shutil.copyfile(src, target / f"{stem}{suffix}")
    return target / f"{stem}.log"


def rlmm_segment(pdir, sid, start, end, epochs=((0, None),), state=0):
    _, tid = topic_uuid(pdir)
    return (0, 0, {"remoteLogSegmentId": {"topicIdPartition": {"name": TOPIC, "id": tid, "partition": 0}, "id": sid},
                   "startOffset": start, "endOffset": end, "brokerId": 1, "maxTimestampMs": T0 + end,
                   "eventTimestampMs": T0, "segmentSizeInBytes": 1000,
                   "segmentLeaderEpochs": [{"leaderEpoch": e, "offset": start if o is None else o} for e, o in epochs],
                   "customMetadata": None, "remoteLogSegmentState": state, "txnIndexEmpty": False})


def rlmm_update(pdir, sid, state):
    _, tid = topic_uuid(pdir)
    return (1, 0, {"remoteLogSegmentId": {"topicIdPartition": {"name": TOPIC, "id": tid, "partition": 0}, "id": sid},
                   "brokerId": 1, "eventTimestampMs": T0 + 1, "customMetadata": None, "remoteLogSegmentState": state})


def drop_local_below(pdir, offset):
    for base in local_bases(pdir):
        if base < offset:
            for suffix in SUFFIXES + (".snapshot",):
                p = pathlib.Path(pdir) / f"{base:020d}{suffix}"
                if p.exists():
                    p.unlink()


def tiered_case(tmp_path, rolls, end, tier, drop_below, *, extra=(), txn=None, old_name=False):
    """``data/`` a tiered partition whose segments at bases ``tier`` were copied (finished) and whose local
    segments below ``drop_below`` were deleted; ``plain/`` the same log untiered. Returns (data, plain, remote)."""
    data, plain, remote = tmp_path / "data", tmp_path / "plain", tmp_path / "remote"
    pdir = data / f"{TOPIC}-0"
    write_log(pdir, rolls, end, txn=txn)
    shutil.copytree(data, plain)
    bases = local_bases(pdir)
    records = []
    for i, base in enumerate(tier):
        nxt = bases[bases.index(base) + 1]
        sid = uuid.UUID(int=(9 << 64) + i)
        copy_to_remote(pdir, remote, base, sid, old_name=old_name)
        records += [rlmm_segment(pdir, sid, base, nxt - 1), rlmm_update(pdir, sid, 1)]
    write_partition(data, 0, records + list(extra))
    drop_local_below(pdir, drop_below)
    return data, plain, remote


def engine_rows(spark, fmt, root, remote=None, **options):
    reader = spark.read.format(fmt).option("subscribe", TOPIC)
    if remote is not None:
        reader = reader.option("kvlog.remoteStorage.layout", LAYOUT).option("kvlog.remoteStorage.path", str(remote))
    for k, v in options.items():
        reader = reader.option(k, v)
    df = reader.load(str(root))
    return sorted((tuple(r) for r in df.select(*COLS).collect()), key=lambda r: r[0]), df.rdd.getNumPartitions()


def jvm_rows(spark, root, remote=None, **options):
    """The JVM scan's rows and splits; over remote storage the Python source must answer alike (the same
    rows, or an error too)."""
    try:
        got = engine_rows(spark, "kvlog_jvm", root, remote, **options)
    except Exception:
        if remote is not None:
            try:
                rows, _ = engine_rows(spark, "kvlog_python", root, remote, **options)
            except Exception:
                pass
            else:
                raise AssertionError(f"the JVM scan failed where the Python source read {len(rows)} rows "
                                     f"({options})") from None
        raise
    if remote is not None:
        assert engine_rows(spark, "kvlog_python", root, remote, **options)[0] == got[0], options
    return got


def python_tiered(data, remote, **kw):
    with Log.open(data / f"{TOPIC}-0", read_only=True, remote_storage=LocalTieredStorage(str(remote))) as log:
        t = log.to_arrow(**kw)
    return list(zip(t.column("offset").to_pylist(), t.column("key").to_pylist(), t.column("value").to_pylist()))


ROLLS = [100, 200, 300, 400]


def test_remote_segments_below_the_local_tail_read_as_one_log(jvm, tmp_path):
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300)
    assert local_bases(data / f"{TOPIC}-0") == [300, 400]
    got, splits = jvm_rows(jvm, data, remote)
    want, _ = jvm_rows(jvm, plain)
    assert len(got) == 450 and got == want
    assert splits == 4  # one split per remote piece, and the local segments as before
    assert [(o, k, v) for o, k, v, _ in got] == python_tiered(data, remote)
    local_only, _ = jvm_rows(jvm, data)
    assert [r[0] for r in local_only] == list(range(300, 450))  # without the option: today's behaviour


def test_offsets_across_tiers_and_old_file_names(jvm, tmp_path):
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300, old_name=True)
    opts = {"startingOffsets": '{"orders": {"0": 150}}', "endingOffsets": '{"orders": {"0": 320}}'}
    got, splits = jvm_rows(jvm, data, remote, **opts)
    assert got == jvm_rows(jvm, plain, **opts)[0] and [r[0] for r in got] == list(range(150, 320))
    assert splits == 3
    got, _ = jvm_rows(jvm, data, remote, maxRecordsPerPartition="40")
    assert got == jvm_rows(jvm, plain)[0]


def test_a_remote_copy_still_local_and_an_unfinished_copy(jvm, tmp_path):
    # segments 0 and 100 copied, only 0 deleted locally (the copy of 100 overlaps the local log); the copy of
    # 200 never finished (COPY_SEGMENT_STARTED only): its offsets come from the local segment
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100], drop_below=100)
    pdir = data / f"{TOPIC}-0"
    sid = uuid.UUID(int=(9 << 64) + 50)
    copy_to_remote(pdir, remote, 200, sid)
    shutil.rmtree(data / "__remote_log_metadata-0")
    records = []
    for i, base in enumerate([0, 100]):
        s = uuid.UUID(int=(9 << 64) + i)
        records += [rlmm_segment(pdir, s, base, base + 99), rlmm_update(pdir, s, 1)]
    write_partition(data, 0, records + [rlmm_segment(pdir, sid, 200, 299)])
    got, splits = jvm_rows(jvm, data, remote)
    assert got == jvm_rows(jvm, plain)[0] and len(got) == 450
    assert splits == 2
    assert [(o, k, v) for o, k, v, _ in got] == python_tiered(data, remote)


def test_a_deleted_remote_segment_moves_the_log_start(jvm, tmp_path):
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300)
    pdir = data / f"{TOPIC}-0"
    first = uuid.UUID(int=9 << 64)
    write_partition(data, 1, [rlmm_update(pdir, first, 2), rlmm_update(pdir, first, 3)])
    for p in (remote / f"{TOPIC}-0-{topic_uuid(pdir)[0]}").glob(f"{0:020d}-{topic_id_text(first)}.*"):
        p.unlink()
    got, _ = jvm_rows(jvm, data, remote)
    assert [r[0] for r in got] == list(range(100, 450))
    assert got == jvm_rows(jvm, plain, startingOffsets='{"orders": {"0": 100}}')[0]
    with pytest.raises(Exception, match="were deleted"):
        jvm_rows(jvm, data, remote, startingOffsets='{"orders": {"0": 50}}')


@pytest.mark.parametrize("state", [0, 1, 2])  # DELETE_PARTITION_MARKED, _STARTED, _FINISHED
def test_a_deleted_partition_reads_its_local_log_only_in_every_reader(jvm, tmp_path, state):
    """A RemotePartitionDeleteMetadataRecord takes every remote segment of the partition out of the log, as
    the broker's metadata cache drops them: the Python view and both engines read the local segments only."""
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300)
    pdir = data / f"{TOPIC}-0"
    _, tid = topic_uuid(pdir)
    write_partition(data, 1, [(2, 0, {"topicIdPartition": {"name": TOPIC, "id": tid, "partition": 0}, "brokerId": 3,
                                      "eventTimestampMs": T0 + 500, "remotePartitionDeleteState": state})])
    want = list(range(300, 450))
    assert [r[0] for r in jvm_rows(jvm, data, remote)[0]] == want
    assert [o for o, _, _ in python_tiered(data, remote)] == want
    df = (jvm.read.format("kvlog_python").option("subscribe", TOPIC)
          .option("kvlog.remoteStorage.layout", LAYOUT).option("kvlog.remoteStorage.path", str(remote))
          .load(str(data)))
    assert [r[0] for r in df.select("offset").orderBy("offset").collect()] == want


def test_an_epoch_fork_follows_the_lineage(jvm, tmp_path):
    # leader A (epoch 0) copied [0, 99] and [100, 199]; leader B (epoch 1) took over at 150 with other records
    # and copied [150, 249]; B's local log holds 250 on and its checkpoint says epoch 1 starts at 150
    a, b = tmp_path / "a" / f"{TOPIC}-0", tmp_path / "data" / f"{TOPIC}-0"
    write_log(a, [100, 200], 200)
    write_log(b, [100, 150, 250], 300, fork=(150, "b"))
    shutil.copyfile(b / "partition.metadata", a / "partition.metadata")
    plain = tmp_path / "plain"
    shutil.copytree(b.parent, plain)
    remote = tmp_path / "remote"
    sids = [uuid.UUID(int=(9 << 64) + i) for i in range(3)]
    copy_to_remote(a, remote, 0, sids[0])
    copy_to_remote(a, remote, 100, sids[1])
    copy_to_remote(b, remote, 150, sids[2])
    write_partition(b.parent, 0, [rlmm_segment(a, sids[0], 0, 99), rlmm_update(a, sids[0], 1),
                                  rlmm_segment(a, sids[1], 100, 199), rlmm_update(a, sids[1], 1),
                                  rlmm_segment(b, sids[2], 150, 249, epochs=((1, None),)), rlmm_update(b, sids[2], 1)])
    drop_local_below(b, 250)
    write_leader_epochs(str(b / "leader-epoch-checkpoint"), [(0, 0), (1, 150)])
    got, splits = jvm_rows(jvm, b.parent, remote)
    want, _ = jvm_rows(jvm, plain)
    assert got == want and got[160][2] == b"b160" and got[120][2] == b"v120"
    assert splits == 4
    assert [(o, k, v) for o, k, v, _ in got] == python_tiered(b.parent, remote)


def test_a_missing_remote_log_file_is_a_typed_error_naming_it(jvm, tmp_path):
    data, _, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300)
    gone = next((remote / f"{TOPIC}-0-{topic_uuid(data / f'{TOPIC}-0')[0]}").glob(f"{100:020d}-*.log"))
    gone.unlink()
    with pytest.raises(Exception, match="RemoteSegmentException") as e:
        jvm_rows(jvm, data, remote)
    assert str(gone) in str(e.value) and "is not in the LocalTieredStorage directory" in str(e.value)
    from tiered_support import thrown

    cause = thrown(e.value, "io.kvlog.spark.tiered.RemoteSegmentException")
    assert cause.object().endswith(str(gone)) and cause.position() == -1
    # a query that does not read the segment: the JVM scan never opens it; the Python source's planning opens
    # the whole view, which checks every remote segment's first batch, and fails naming the object
    got, _ = engine_rows(jvm, "kvlog_jvm", data, remote, startingOffsets='{"orders": {"0": 200}}')
    assert [r[0] for r in got] == list(range(200, 450))
    with pytest.raises(Exception, match="is not in the LocalTieredStorage directory") as e:
        engine_rows(jvm, "kvlog_python", data, remote, startingOffsets='{"orders": {"0": 200}}')
    assert str(gone) in str(e.value)


def test_overlapping_remote_segments_of_one_epoch_are_refused_by_both_engines(jvm, tmp_path):
    """Two copies of one epoch that overlap ([0, 199] and [100, 299]): the lineage would read the second from
    offset 200, past its first batch. Both engines refuse it, naming it (the broker's replay never keeps both)."""
    data, remote = tmp_path / "data", tmp_path / "remote"
    pdir = data / f"{TOPIC}-0"
    write_log(pdir, ROLLS, 450)
    shutil.copytree(data, tmp_path / "plain")
    plain_pdir = tmp_path / "plain" / f"{TOPIC}-0"
    text, _ = topic_uuid(plain_pdir)
    target = remote / f"{TOPIC}-0-{text}"
    target.mkdir(parents=True, exist_ok=True)
    records = []
    for i, (lo, hi) in enumerate(((0, 200), (100, 300))):
        sid = uuid.UUID(int=(7 << 64) + i)
        stem = f"{lo}-{topic_id_text(sid)}"
        with open(target / f"{stem}.log", "wb") as out:
            for base in (lo, lo + 100):
                out.write((plain_pdir / f"{base:020d}.log").read_bytes())
        for suffix in (".index", ".timeindex"):
            shutil.copyfile(plain_pdir / f"{lo:020d}{suffix}", target / f"{stem}{suffix}")
        records += [rlmm_segment(plain_pdir, sid, lo, hi - 1), rlmm_update(plain_pdir, sid, 1)]
    write_partition(data, 0, records)
    drop_local_below(pdir, 300)
    with pytest.raises(Exception, match="RemoteSegmentException") as e:
        jvm_rows(jvm, data, remote)
    assert "[100, 299]" in str(e.value) and "past its first batch" in str(e.value)
    with pytest.raises(RemoteSegmentError, match="past its first batch"):
        python_tiered(data, remote)
    assert local_bases(pdir) == [300, 400]


@pytest.mark.parametrize("suffix", [".index", ".timeindex"])
def test_a_missing_remote_index_reads_alike_in_both_engines(jvm, tmp_path, suffix):
    """An index is a hint: without it both engines read the segment from its start, and agree."""
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300)
    next((remote / f"{TOPIC}-0-{topic_uuid(data / f'{TOPIC}-0')[0]}").glob(f"{100:020d}-*{suffix}")).unlink()
    for opts in ({}, {"startingOffsets": '{"orders": {"0": 150}}'}, {"startingTimestamp": str(T0 + 150)}):
        want, _ = jvm_rows(jvm, plain, **opts)
        got, _ = jvm_rows(jvm, data, remote, **opts)
        assert got == want, opts
    assert [(o, k, v) for o, k, v, _ in jvm_rows(jvm, plain)[0]] == python_tiered(data, remote)
    with Log.open(data / f"{TOPIC}-0", read_only=True, remote_storage=LocalTieredStorage(str(remote))) as log:
        assert log.offset_for_timestamp(T0 + 150).offset == 150


def test_a_hole_in_the_remote_history_is_an_error_naming_offsets(jvm, tmp_path):
    data, _, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 200], drop_below=300)
    with pytest.raises(Exception, match=r"offsets \[100, 200\)"):
        jvm_rows(jvm, data, remote)


def test_read_committed_with_an_aborted_transaction_in_a_remote_segment(jvm, tmp_path):
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300, txn=(120, 10))
    assert (remote / f"{TOPIC}-0-{topic_uuid(data / f'{TOPIC}-0')[0]}").glob(f"{100:020d}-*.txnindex")
    opts = {"kafka.isolation.level": "read_committed"}
    got, _ = jvm_rows(jvm, data, remote, **opts)
    want, _ = jvm_rows(jvm, plain, **opts)
    assert got == want and not any(r[2].startswith(b"aborted") for r in got)
    assert len(jvm_rows(jvm, data, remote)[0]) == len(got) + 10


def test_starting_timestamp_lands_in_a_remote_segment(jvm, tmp_path):
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300)
    for ts in (T0 + 123, T0 + 250, T0 + 420):
        got, _ = jvm_rows(jvm, data, remote, startingTimestamp=str(ts))
        assert got == jvm_rows(jvm, plain, startingTimestamp=str(ts))[0] and got[0][0] == ts - T0
    got, _ = jvm_rows(jvm, data, remote, endingOffsetsByTimestamp='{"orders": {"0": %d}}' % (T0 + 150))
    assert [r[0] for r in got] == list(range(0, 150))


def test_a_streams_first_batch_holds_the_remote_history(jvm, tmp_path):
    data, plain, remote = tiered_case(tmp_path, ROLLS, 450, tier=[0, 100, 200], drop_below=300)
    stream = (jvm.readStream.format("kvlog_jvm").option("subscribe", TOPIC).option("startingOffsets", "earliest")
              .option("kvlog.remoteStorage.layout", "localtieredstorage").option("kvlog.remoteStorage.path", str(remote))
              .load(str(data)))
    q = (stream.select(*COLS).writeStream.format("memory").queryName("tiered_first").trigger(availableNow=True)
         .option("checkpointLocation", str(tmp_path / "ckpt")).start())
    q.awaitTermination(120)
    got = [tuple(r) for r in jvm.sql("select * from tiered_first order by offset").collect()]
    assert got == jvm_rows(jvm, plain)[0]


@pytest.mark.parametrize("options,message", [
    ({"kvlog.remoteStorage.layout": "s3tiered", "kvlog.remoteStorage.path": "/x"}, "LocalTieredStorage or aiven"),
    ({"kvlog.remoteStorage.layout": "LocalTieredStorage"}, "needs kvlog.remoteStorage.path"),
    ({"kvlog.remoteStorage.path": "/x"}, "needs kvlog.remoteStorage.layout"),
    ({"kvlog.remoteStorage.layuot": "LocalTieredStorage"}, "did you mean kvlog.remoteStorage.layout"),
    ({"kvlog.remoteStorage.layout": "LocalTieredStorage", "kvlog.remoteStorage.path": "/x",
      "kvlog.remoteStorage.keyPairs": "a=/k.pem"}, "aiven layout only"),
])
def test_remote_storage_options_are_checked(jvm, tmp_path, options, message):
    write_log(tmp_path / f"{TOPIC}-0", [], 10)
    reader = jvm.read.format("kvlog_jvm").option("subscribe", TOPIC)
    for k, v in options.items():
        reader = reader.option(k, v)
    with pytest.raises(Exception, match=message):
        reader.load(str(tmp_path)).collect()


def test_both_engines_know_the_remote_storage_options(jvm):
    from kvlog.spark import _options

    java = list(jvm._jvm.io.kvlog.spark.read.OptionNames.known())
    names = [n for n in java if n.startswith("kvlog.remoteStorage.")]
    assert len(names) == 5 and all(n in _options.KNOWN for n in names)


# ------------------------------------------------------------------------- the lineage, both engines
from kvlog.errors import RemoteSegmentError  # noqa: E402
from kvlog.tiered import RemoteSegment  # noqa: E402
from kvlog.tiered.lineage import plan_remote_pieces  # noqa: E402


@st.composite
def lineage_cases(draw):
    segs = []
    for i in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, 300))
        end = start + draw(st.integers(0, 150))
        epochs = {}
        for _ in range(draw(st.integers(1, 3))):
            epochs[draw(st.integers(0, 3))] = start + draw(st.integers(0, end - start))
        segs.append((f"s{i}", start, end, sorted(epochs.items())))
    local = sorted(draw(st.dictionaries(st.integers(0, 3), st.integers(0, 400), max_size=3)).items())
    return segs, local, draw(st.integers(0, 120)), draw(st.one_of(st.none(), st.integers(0, 500)))


def python_plan(segs, local, log_start, local_start):
    rs = [RemoteSegment("t", "id", 0, sid, s, e, leader_epochs=tuple(ep)) for sid, s, e, ep in segs]
    try:
        return [f"{p.segment.segment_id} {p.start} {p.end}" for p in plan_remote_pieces(
            rs, local_epochs=local, log_start_offset=log_start, local_log_start=local_start)]
    except RemoteSegmentError as exc:
        return ["error", str(exc).split(" of ")[0]]


def java_plan(hooks, segs, local, log_start, local_start):
    text = hooks.pieces("\n".join(f"{sid} {s} {e} " + ",".join(f"{a}:{b}" for a, b in ep) for sid, s, e, ep in segs),
                        ",".join(f"{a}:{b}" for a, b in local), log_start, -1 if local_start is None else local_start)
    if text.startswith("error\t"):
        return ["error", text[6:].split(" of ")[0]]
    return [ln for ln in text.splitlines() if ln]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=lineage_cases())
def test_the_jvm_lineage_plans_the_pieces_the_python_lineage_plans(jvm, case):
    hooks = jvm._jvm.io.kvlog.spark.tiered.TieredForTests
    assert java_plan(hooks, *case) == python_plan(*case)


def test_the_lineage_examples_of_the_python_tests(hooks):
    a, b = ("s0", 0, 199, [(0, 0)]), ("s1", 150, 249, [(0, 150), (1, 170)])
    assert java_plan(hooks, [a, b], [(0, 0), (1, 170)], 0, 250) == ["s0 0 170", "s1 170 250"]
    assert java_plan(hooks, [a, b], [(1, 170)], 0, 250) == ["s0 0 170", "s1 170 250"]
    assert java_plan(hooks, [a], [], 0, 300) == ["error", "no remote segment in the log holds offsets [200, 300)"]
    assert java_plan(hooks, [a], [], 50, 150) == ["s0 50 150"]


# ------------------------------------------------------------------------- with tests/tiered_support.py
from tiered_support import thrown, tier_log  # noqa: E402
from tiered_support import write_log as support_write_log  # noqa: E402


@pytest.mark.parametrize("compression", ["zstd", "lz4"])
def test_the_shared_fixture_builder_reads_as_the_whole_log(jvm, tmp_path, compression):
    support_write_log(tmp_path / "data", segments=5, compression=compression)
    t = tier_log(tmp_path / "data", remote=3, overlap=1)
    opts = {"kvlog.remoteStorage.layout": LAYOUT, "kvlog.remoteStorage.path": t.remote_root}
    got, splits = jvm_rows(jvm, t.root, **opts)
    assert len(got) == 500 and got == jvm_rows(jvm, t.whole)[0] and splits == 3
    assert [(o, k, v) for o, k, v, _ in got] == python_tiered(pathlib.Path(t.root), t.remote_root)


def test_a_remote_object_of_another_segment_is_refused(jvm, tmp_path):
    support_write_log(tmp_path / "data", segments=5)
    t = tier_log(tmp_path / "data", remote=3)
    shutil.copyfile(t.remote_file(t.segments[2], ".log"), t.remote_file(t.segments[0], ".log"))
    opts = {"kvlog.remoteStorage.layout": LAYOUT, "kvlog.remoteStorage.path": t.remote_root}
    with pytest.raises(Exception, match="first batch starts at offset 200") as e:
        jvm_rows(jvm, t.root, **opts)
    assert t.segments[0].segment_id in str(e.value)


def test_damaged_bytes_in_a_remote_segment_name_the_object(jvm, tmp_path):
    support_write_log(tmp_path / "data", segments=5)
    t = tier_log(tmp_path / "data", remote=3)
    path = t.remote_file(t.segments[1], ".log")
    data = bytearray(pathlib.Path(path).read_bytes())
    data[200] ^= 0xFF
    pathlib.Path(path).write_bytes(bytes(data))
    opts = {"kvlog.remoteStorage.layout": LAYOUT, "kvlog.remoteStorage.path": t.remote_root}
    with pytest.raises(Exception, match="CorruptLogException") as e:
        jvm_rows(jvm, t.root, **opts)
    assert t.segments[1].segment_id in str(e.value)
    cause = thrown(e.value, "io.kvlog.spark.log.CorruptLogException")
    assert cause.file().endswith(os.path.basename(path)) and 0 <= cause.position() <= 200


def test_remote_log_metadata_elsewhere(jvm, tmp_path):
    support_write_log(tmp_path / "data", segments=5)
    t = tier_log(tmp_path / "data", remote=3)
    moved = tmp_path / "metadata"
    moved.mkdir()
    shutil.move(os.path.join(t.root, "__remote_log_metadata-0"), moved / "__remote_log_metadata-0")
    opts = {"kvlog.remoteStorage.layout": LAYOUT, "kvlog.remoteStorage.path": t.remote_root,
            "kvlog.remoteStorage.metadataPath": str(moved)}
    assert len(jvm_rows(jvm, t.root, **opts)[0]) == 500
    with pytest.raises(Exception, match="no __remote_log_metadata-N directory"):
        jvm_rows(jvm, t.root, **{k: v for k, v in opts.items() if "metadata" not in k})
