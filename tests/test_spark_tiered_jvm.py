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
    return jvm._jvm.io.kvlog.spark.TieredForTests


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
    hooks = jvm._jvm.io.kvlog.spark.TieredForTests
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
