"""Small CLI and sink fixes: dump of a missing file prints only the error, an index shorter than one entry
fails the sanity check, a sink write leaves no empty staging directory."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

import kvlog
from kvlog.cli import main as cli_main
from kvlog.records import Record
from kvlog.spark import _staging

SEG = "00000000000000000000"


def _run(capfd, *argv: str) -> tuple[int, str, str]:
    capfd.readouterr()
    code = cli_main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


def _partition(tmp_path) -> str:
    path = str(tmp_path / "t-0")
    with kvlog.Log.open(path) as log:
        log.append([Record(b"k", b"v", 1000)])
    return path


def test_dump_of_a_missing_file_prints_only_the_error(tmp_path, capfd):
    part = _partition(tmp_path)
    for name in (f"{SEG}.log", f"{SEG}.index", "00000000000000000042.log", "nope.log"):
        missing = os.path.join(str(tmp_path / "elsewhere"), name)
        code, out, err = _run(capfd, "dump", "--files", missing)
        assert code == 1 and out == "", out
        assert err == f"kvlog: {missing}: no such file\n"
    # with a file that is there, its dump is printed and the missing one still fails the run
    code, out, err = _run(capfd, "dump", "--files", f"{part}/{SEG}.log,{part}/00000000000000000009.log")
    assert code == 1 and out.startswith(f"Dumping {part}/{SEG}.log\n") and out.count("Dumping") == 1
    assert "00000000000000000009.log: no such file" in err


def test_index_sanity_check_of_a_partial_entry_reports_corruption(tmp_path, capfd):
    part = _partition(tmp_path)
    index = os.path.join(part, f"{SEG}.index")
    with open(index, "wb") as f:
        f.write(b"\0" * 5)  # shorter than one 8-byte entry
    code, out, err = _run(capfd, "dump", "--files", index, "--index-sanity-check")
    assert code == 1
    assert "is empty" not in out and "passed" not in out
    assert "corrupt" in err and "5 bytes" in err
    with open(index, "wb"):
        pass  # a zero-length index is empty, and sane
    code, out, _ = _run(capfd, "dump", "--files", index, "--index-sanity-check")
    assert code == 0 and f"{index} is empty." in out


def test_a_sink_commit_leaves_no_staging_directory(tmp_path):
    root = str(tmp_path / "d")
    batch = pa.RecordBatch.from_pydict({"key": [b"a", b"b"], "value": [b"1", b"2"]})
    plan = _staging.plan(root, {"topic": "t", "partitions": "2"}, ["key", "value"], False)
    files = _staging.stage_batches(plan, [batch], os.path.join(_staging.job_dir(root, plan.job), "task-0"))
    assert os.path.isdir(os.path.join(root, _staging.STAGING))
    _staging.commit(plan, files)
    assert not os.path.exists(os.path.join(root, _staging.STAGING))
    # another job's files keep it; it goes with the last of them
    other = _staging.plan(root, {"topic": "t"}, ["key", "value"], False)
    staged = _staging.stage_batches(other, [batch], os.path.join(_staging.job_dir(root, other.job), "task-0"))
    again = _staging.plan(root, {"topic": "t"}, ["key", "value"], False)
    _staging.commit(again, _staging.stage_batches(again, [batch], os.path.join(_staging.job_dir(root, again.job),
                                                                               "task-0")))
    assert os.listdir(os.path.join(root, _staging.STAGING)) == [other.job]
    _staging.commit(other, staged)
    assert not os.path.exists(os.path.join(root, _staging.STAGING))
    with kvlog.LogManager(root, read_only=True) as m:
        assert sum(len(list(m.log("t", p).records())) for p in m.partitions("t")) == 6


def test_log_arguments_are_checked_with_clear_errors(tmp_path):
    import numpy as np

    from kvlog import Log, Record
    from kvlog.errors import DirectoryNotFoundError, OffsetOutOfRangeError

    with Log.open(tmp_path / "t-0") as log:
        log.append([Record(b"k", b"v", 1_700_000_000_000 + i) for i in range(20)])
        with pytest.raises(TypeError, match="epoch milliseconds"):
            log.offset_for_timestamp("2026-01-30")
        with pytest.raises(TypeError, match="takes an offset"):
            log.read("0")
        with pytest.raises(TypeError):
            log.read(True)
        with pytest.raises(ValueError, match="negative"):
            log.read(0, -1)
        with pytest.raises(TypeError, match="start_offset"):
            log.to_arrow("a")
        with pytest.raises(TypeError, match="end_offset"):
            list(log.records(0, 1.5))
        with pytest.raises(TypeError):
            log.truncate_to("3")
        # past the end: out of range like read(), not an empty answer
        with pytest.raises(OffsetOutOfRangeError):
            log.to_arrow(30, 40)
        with pytest.raises(OffsetOutOfRangeError):
            list(log.records(21))
        with pytest.raises(OffsetOutOfRangeError):
            log.read(100)
        assert log.to_arrow(20, 40).num_rows == 0  # at the end: empty, as read(log_end_offset) is
        assert log.to_arrow(np.int64(18)).num_rows == 2  # numpy integers are integers
        assert log.offset_for_timestamp(np.int64(1_700_000_000_005)).offset == 5
    with pytest.raises(DirectoryNotFoundError):
        Log.open(tmp_path / "missing-0", read_only=True)
    with pytest.raises(TypeError, match="directory path"):
        Log.open(123)


def test_cleaner_arguments_are_checked():
    from kvlog import LogCleaner
    from kvlog.errors import ConfigError

    with pytest.raises(TypeError, match="dedupe_buffer_size"):
        LogCleaner(dedupe_buffer_size="x")
    with pytest.raises(ConfigError):
        LogCleaner(dedupe_buffer_size=0)
    with pytest.raises(TypeError, match="load_factor"):
        LogCleaner(load_factor="0.5")


@pytest.mark.parametrize("topic", ["__cluster_metadata", "__consumer_offsets", "__transaction_state"])
def test_the_sink_never_writes_an_internal_topic(tmp_path, topic):
    from kvlog.errors import ConfigError

    root = str(tmp_path / "data")
    os.makedirs(root)
    with pytest.raises(ConfigError, match="internal topic"):
        _staging.plan(root, {"topic": topic}, ["value"], False)
    plan = _staging.plan(root, {}, ["topic", "value"], False)
    batch = pa.RecordBatch.from_pydict({"topic": ["ok", topic], "value": [b"a", b"b"]})
    with pytest.raises(ConfigError, match="internal topic"):
        _staging._route(batch, plan)
