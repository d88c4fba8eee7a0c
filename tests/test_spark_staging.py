"""The sink's staged commits without a JVM: crash roll-forward, exactly-once batch ids, concurrent commits."""

import os
import threading
import time

import pyarrow as pa
import pytest

from kvlog import LogManager
from kvlog.errors import KvlogError
from kvlog.log import Log
from kvlog.spark import _staging


def _batch(lo, hi, key=True):
    return pa.RecordBatch.from_pydict({
        "key": [b"k%d" % (i % 11) if key else None for i in range(lo, hi)],
        "value": [b"v%d" % i for i in range(lo, hi)],
    }, schema=pa.schema([("key", pa.binary()), ("value", pa.binary())]))


def _values(root, topic="t"):
    out = []
    with LogManager(root, read_only=True) as m:
        for p in range(m.topics().get(topic, 0)):
            out += [r.value for r in m.log(topic, p).records()]
    return sorted(out)


def _stage(root, lo, hi, job=None, partitions=3):
    plan = _staging.plan(root, {"topic": "t", "partitions": str(partitions)}, ["key", "value"], False, job=job)
    files = _staging.stage_batches(plan, [_batch(lo, hi)], os.path.join(_staging.job_dir(root, plan.job), "task-0"))
    return plan, files


def test_commit_interrupted_half_way_rolls_forward_exactly_once(tmp_path, monkeypatch):
    root = str(tmp_path / "d")
    plan, files = _stage(root, 0, 300)
    assert len({(f.topic, f.partition) for f in files}) == 3
    appended = []
    real_append = Log.append

    def flaky(self, *a, **kw):
        if appended:
            raise OSError("power cut during the second partition")
        appended.append(self.partition)
        return real_append(self, *a, **kw)

    monkeypatch.setattr(Log, "append", flaky)
    with pytest.raises(OSError, match="power cut"):
        _staging.commit(plan, files)
    monkeypatch.setattr(Log, "append", real_append)
    assert 0 < len(_values(root)) < 300  # the first partition is visible, the others not yet
    assert _staging.recover(root) == 1
    assert _values(root) == sorted(b"v%d" % i for i in range(300))
    assert _staging.recover(root) == 0
    assert not os.path.exists(os.path.join(root, _staging.STAGING))  # removed once empty


def test_aborted_job_leaves_nothing(tmp_path):
    root = str(tmp_path / "d")
    _staging.commit(*_stage(root, 0, 10))
    plan, files = _stage(root, 10, 20)
    _staging.abort(root, plan.job)
    assert _values(root) == sorted(b"v%d" % i for i in range(10))
    assert not os.path.exists(_staging.job_dir(root, plan.job))
    # a task of the failed job that starts staging only now stages nothing
    with pytest.raises(KvlogError, match="aborted while this task ran"):
        _staging.stage_batches(plan, [_batch(20, 30)], os.path.join(_staging.job_dir(root, plan.job), "task-9"))
    assert not os.path.exists(_staging.job_dir(root, plan.job))
    # abandoned leftovers are collected by a later commit
    old = time.time() - 2 * _staging.ABANDONED_AFTER_S
    os.utime(_staging._tombstone(root, plan.job), (old, old))
    os.makedirs(_staging.job_dir(root, "dead-driver"))
    os.utime(_staging.job_dir(root, "dead-driver"), (old, old))
    _staging.commit(*_stage(root, 30, 31))
    assert not os.path.exists(os.path.join(root, _staging.STAGING))  # emptied, then removed


def test_batch_ids_apply_once(tmp_path):
    root = str(tmp_path / "d")
    for batch_id, (lo, hi) in enumerate([(0, 10), (10, 20)]):
        plan, files = _stage(root, lo, hi, job=f"stream-q-{batch_id}")
        assert not _staging.commit(plan, files, sink="q", batch_id=batch_id)["skipped"]
    plan, files = _stage(root, 10, 20, job="stream-q-1")  # Spark replays batch 1 after a crash
    assert _staging.commit(plan, files, sink="q", batch_id=1)["skipped"]
    assert _values(root) == sorted(b"v%d" % i for i in range(20))


def test_concurrent_commits_wait_for_each_other(tmp_path):
    root = str(tmp_path / "d")
    _staging.commit(*_stage(root, 0, 1))
    staged = [_stage(root, 100 * j, 100 * j + 100) for j in range(1, 5)]
    errors = []

    def run(plan, files):
        try:
            _staging.commit(plan, files)
        except Exception as exc:  # noqa: BLE001 - collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=s) for s in staged]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _values(root) == sorted([b"v0"] + [b"v%d" % i for i in range(100, 500)])


def test_an_unexpected_log_end_is_refused(tmp_path):
    root = str(tmp_path / "d")
    _staging.commit(*_stage(root, 0, 5, partitions=1))
    plan, files = _stage(root, 5, 10, partitions=1)
    manifest = {"job": "x", "overwrite": False, "sink": None, "batch_id": None, "before": {"t-0": 2},
                "files": [[f.topic, f.partition, os.path.relpath(f.path, root), f.records] for f in files]}
    with LogManager(root) as m, pytest.raises(KvlogError, match="refusing to guess"):
        _staging._apply(m, root, manifest)


def test_an_aborted_jobs_leftovers_go_at_the_next_roll_forward(tmp_path):
    """A task killed with its failed job leaves its staged files; the job's tombstone says they are garbage."""
    root = str(tmp_path / "d")
    with LogManager(root) as m:
        m.create_topic("t", 1)
    staging = os.path.join(root, _staging.STAGING)
    os.makedirs(os.path.join(staging, "job1", "task-0"))
    with open(os.path.join(staging, "job1", "task-0", "t-0.batches"), "wb") as f:
        f.write(b"x" * 100)
    open(os.path.join(staging, "job1.aborted"), "wb").close()
    os.makedirs(os.path.join(staging, "job2", "task-0"))  # a job still running: no tombstone, left alone
    assert _staging.recover(root) == 0
    assert sorted(os.listdir(staging)) == ["job1.aborted", "job2"]


def _aborting(root, job, first, then):
    """A task's input whose job is aborted by the driver after the first batch was staged."""
    yield first
    _staging.abort(root, job)
    yield then


def test_a_task_running_through_the_abort_removes_its_own_files(tmp_path):
    root = str(tmp_path / "d")
    _staging.commit(*_stage(root, 0, 10))
    plan = _staging.plan(root, {"topic": "t"}, ["key", "value"], False)
    task = os.path.join(_staging.job_dir(root, plan.job), "task-1")
    late = _staging.stage_batches(plan, _aborting(root, plan.job, _batch(10, 20), _batch(20, 30)), task)
    assert late and not os.path.exists(_staging.job_dir(root, plan.job))
    _staging.commit(*_stage(root, 30, 31))
    assert _values(root) == sorted([b"v%d" % i for i in range(10)] + [b"v30"])


def test_a_micro_batch_retry_keeps_its_files_despite_the_failed_attempts_marker(tmp_path):
    """A stream's job name is reused by the retry of a failed batch: the old marker does not count, one
    renewed while the retry runs does, and the retry's commit removes the marker and the leftovers."""
    root = str(tmp_path / "d")
    _staging.commit(*_stage(root, 0, 10))
    job = _staging.stream_job("q1", 4)
    plan = _staging.plan(root, {"topic": "t"}, ["key", "value"], False, job=job)
    _staging.abort(root, job)  # the first attempt failed
    leftover = os.path.join(_staging.job_dir(root, job), "task-0-0-old")
    os.makedirs(leftover)
    with open(os.path.join(leftover, "t-0.batches"), "wb") as f:
        f.write(b"partial")
    _staging.commit(*_stage(root, 10, 11))  # another job's commit leaves a micro-batch's files to its retry
    assert os.path.exists(leftover)
    staged = _staging.stage_batches(plan, [_batch(11, 20)], os.path.join(_staging.job_dir(root, job), "task-0-0-new"))
    assert all(os.path.exists(f.path) for f in staged)
    # the same retry aborted again while a task ran: that task removes its files
    again = _staging.stage_batches(plan, _aborting(root, job, _batch(20, 25), _batch(25, 30)),
                                   os.path.join(_staging.job_dir(root, job), "task-1-0-new"))
    assert again and not any(os.path.exists(f.path) for f in again)
    retry = _staging.plan(root, {"topic": "t"}, ["key", "value"], False, job=job)
    staged = _staging.stage_batches(retry, [_batch(11, 20)], os.path.join(_staging.job_dir(root, job), "task-0-0-3rd"))
    _staging.commit(retry, staged, sink="q1", batch_id=4)
    assert _values(root) == sorted(b"v%d" % i for i in range(20))
    assert not os.path.exists(os.path.join(root, _staging.STAGING))  # marker and leftovers gone
